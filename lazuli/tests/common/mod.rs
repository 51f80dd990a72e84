//! The real `lazuli` binary driven over UCI, for the integration tests.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

pub struct Engine {
    pub child: Child,
    pub stdin: ChildStdin,
    pub lines: Receiver<String>,
}

impl Engine {
    pub fn start() -> Engine {
        Engine::start_with(&[])
    }

    pub fn start_with(env: &[(&str, &str)]) -> Engine {
        let mut command = Command::new(env!("CARGO_BIN_EXE_lazuli"));
        command.env_remove("LAZULI_LOG").env_remove("LAZULI_SIMD").envs(env.iter().copied());
        Engine::spawn(command)
    }

    /// `command` (the binary, or a wrapper that runs it) with the engine's pipes.
    pub fn spawn(mut command: Command) -> Engine {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start lazuli");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine { child, stdin, lines }
    }

    pub fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("engine accepts input");
        self.stdin.flush().expect("flush");
    }

    /// Lines up to and including the first one starting with `prefix`.
    pub fn read_until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!("no '{prefix}' within {timeout:?}; got {seen:?}"),
            }
        }
    }

    /// Lines up to and including the first `info depth` line of at least `depth`, which must come
    /// before any `bestmove` (the search is still running when this returns).
    pub fn wait_for_depth(&mut self, depth: i64) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(line) = self.lines.recv_timeout(left) else {
                panic!("no 'info depth {depth}' within 30 s; got {seen:?}")
            };
            assert!(!line.starts_with("bestmove"), "the search ended before depth {depth}: {seen:?} {line}");
            let reached = line.starts_with("info depth ") && info_field(&line, "depth") >= depth;
            seen.push(line);
            if reached {
                return seen;
            }
        }
    }

    /// The answer to a `go` that may or may not end by itself: once it has started (or already
    /// ended), `stop` it, and return every line up to `bestmove`.
    pub fn stop_once_started(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !lines.last().is_some_and(|l: &String| l.starts_with("info depth") || l.starts_with("bestmove"))
        {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => lines.push(line),
                Err(_) => panic!("neither an 'info depth' line nor 'bestmove' within 10 s; got {lines:?}"),
            }
        }
        if lines.last().is_some_and(|l| l.starts_with("info depth")) {
            self.send("stop");
            lines.extend(self.read_until("bestmove", Duration::from_secs(10)));
        }
        lines
    }

    /// Everything the engine printed and nothing more arrives for `quiet`.
    pub fn drain(&mut self, quiet: Duration) -> Vec<String> {
        let mut seen = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(quiet) {
            seen.push(line);
        }
        seen
    }

    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        self.read_until("readyok", Duration::from_secs(10))
    }

    pub fn fen(&mut self) -> String {
        self.send("d");
        let lines = self.read_until("Fen:", Duration::from_secs(5));
        lines.last().expect("a Fen line").trim_start_matches("Fen: ").to_string()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The number after `name` in an `info` line.
pub fn info_field(line: &str, name: &str) -> i64 {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|&w| w == name).expect("field present");
    words[at + 1].parse().expect("a number")
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// A network file of random weights with `hidden` neurons, as `docs/network-format.md` lays it
/// out: magic, seven u32 fields, the FNV-1a hash of the rest, then the i16 weights and the i32
/// output bias, little-endian.
pub fn network_file(hidden: usize, seed: u64) -> Vec<u8> {
    let mut rng = support::rng::Rng::new(seed);
    let mut random = |range: u64| -> i16 { rng.below(2 * range + 1) as i16 - range as i16 };
    let mut payload = Vec::new();
    for (count, range) in [(768 * hidden, 60), (hidden, 80), (2 * hidden, 6)] {
        for _ in 0..count {
            payload.extend_from_slice(&random(range).to_le_bytes());
        }
    }
    payload.extend_from_slice(&25_000i32.to_le_bytes());
    let mut file = b"LZNN".to_vec();
    for field in [1, 768, hidden as u32, 1, 255, 64, 400] {
        file.extend_from_slice(&u32::to_le_bytes(field));
    }
    file.extend_from_slice(&fnv1a(&payload).to_le_bytes());
    file.extend_from_slice(&payload);
    file
}
