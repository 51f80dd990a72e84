//! Drives the real `lazuli` binary over UCI: handshake, bad input, terminal positions, stop.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lazuli"))
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

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("engine accepts input");
        self.stdin.flush().expect("flush");
    }

    /// Lines up to and including the first one starting with `prefix`.
    fn read_until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
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

    fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        self.read_until("readyok", Duration::from_secs(10))
    }

    fn fen(&mut self) -> String {
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

fn corpus(name: &str) -> Vec<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus").join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
        .lines()
        .map(str::to_string)
        .collect()
}

fn bestmove(lines: &[String]) -> String {
    lines.last().expect("lines").split_whitespace().nth(1).expect("a move").to_string()
}

#[test]
fn handshake_lists_options() {
    let mut engine = Engine::start();
    engine.send("uci");
    let lines = engine.read_until("uciok", Duration::from_secs(5));
    assert!(lines.iter().any(|l| l.starts_with("id name Lazuli")));
    for option in ["Hash", "Threads", "MultiPV", "Move Overhead", "Ponder", "UCI_Chess960", "Clear Hash"] {
        assert!(lines.iter().any(|l| l.starts_with(&format!("option name {option} type"))), "{option}");
    }
}

#[test]
fn bad_input_is_answered_and_changes_nothing() {
    let mut engine = Engine::start();
    engine.send("position startpos moves e2e4");
    let before = engine.fen();
    for line in corpus("bad_input.txt") {
        engine.send(&line);
        let reply = engine.sync();
        if !line.trim().is_empty() {
            assert!(
                reply.iter().any(|l| l.starts_with("info string")),
                "no info string for '{line}': {reply:?}"
            );
        }
        // Every bad `position` leaves the previous position in place.
        assert_eq!(engine.fen(), before, "after '{line}'");
    }
    // Binary garbage and a very long line.
    let garbage: Vec<u8> = (0..=255u8).cycle().take(4096).filter(|&b| b != b'\n').collect();
    engine.stdin.write_all(&garbage).expect("write");
    engine.stdin.write_all(b"\n").expect("write");
    engine.send(&"x".repeat(1 << 20));
    engine.sync();
    engine.send("go depth 3");
    let lines = engine.read_until("bestmove", Duration::from_secs(20));
    let mv = bestmove(&lines);
    assert!(mv.len() == 4 && mv != "0000", "bestmove {mv}");
    assert_eq!(engine.fen(), before);
}

#[test]
fn absurd_go_parameters_still_give_a_legal_move() {
    let mut engine = Engine::start();
    for line in corpus("absurd_go.txt") {
        engine.send("position startpos moves e2e4 e7e5");
        engine.send(&line);
        // Some of these set no usable limit: the search then runs until `stop`.
        std::thread::sleep(Duration::from_millis(1500));
        engine.send("stop");
        let lines = engine.read_until("bestmove", Duration::from_secs(5));
        let mv = bestmove(&lines);
        assert!(mv.len() == 4 && mv != "0000", "'{line}' gave {mv}");
        engine.sync();
    }
}

#[test]
fn huge_depth_runs_until_stopped() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go depth 99999");
    std::thread::sleep(Duration::from_millis(300));
    engine.send("stop");
    let lines = engine.read_until("bestmove", Duration::from_secs(5));
    assert_ne!(bestmove(&lines), "0000");
}

#[test]
fn no_legal_move_answers_null_move() {
    let mut engine = Engine::start();
    for fen in
        ["rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"]
    {
        engine.send(&format!("position fen {fen}"));
        engine.send("go depth 5");
        let lines = engine.read_until("bestmove", Duration::from_secs(10));
        assert_eq!(lines.last().map(String::as_str), Some("bestmove 0000"));
    }
}

#[test]
fn stop_ends_infinite_search_quickly() {
    let mut engine = Engine::start();
    engine.send("setoption name Threads value 2");
    engine.send("position startpos");
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(500));
    engine.sync();
    let start = Instant::now();
    engine.send("stop");
    let lines = engine.read_until("bestmove", Duration::from_secs(5));
    assert!(start.elapsed() < Duration::from_millis(500), "stop took {:?}", start.elapsed());
    assert_ne!(bestmove(&lines), "0000");
}

#[test]
fn infinite_search_waits_for_stop_even_when_finished() {
    let mut engine = Engine::start();
    // Mate in one: the search completes every depth almost at once.
    engine.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(700));
    let early: Vec<String> = engine.lines.try_iter().collect();
    assert!(!early.iter().any(|l| l.starts_with("bestmove")), "bestmove before stop: {early:?}");
    engine.send("stop");
    let lines = engine.read_until("bestmove", Duration::from_secs(5));
    assert_eq!(bestmove(&lines), "a1a8");
}

#[test]
fn go_perft_prints_the_divide() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go perft 3");
    let lines = engine.read_until("Nodes searched", Duration::from_secs(10));
    assert_eq!(lines.last().map(String::as_str), Some("Nodes searched: 8902"));
    assert_eq!(lines.iter().filter(|l| l.contains(": ")).count(), 20 + 1);
}

#[test]
fn chess960_castling_notation_follows_the_option() {
    let mut engine = Engine::start();
    let fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
    engine.send(&format!("position fen {fen} moves e1g1"));
    assert!(engine.fen().starts_with("4k3/8/8/8/8/8/8/5RK1 b"));
    engine.send("setoption name UCI_Chess960 value true");
    engine.send(&format!("position fen {fen} moves e1h1"));
    assert!(engine.fen().starts_with("4k3/8/8/8/8/8/8/5RK1 b"));
    engine.send(&format!("position fen {fen}"));
    engine.send("go perft 1");
    let lines = engine.read_until("Nodes searched", Duration::from_secs(10));
    assert!(lines.iter().any(|l| l.starts_with("e1h1:")), "{lines:?}");
}
