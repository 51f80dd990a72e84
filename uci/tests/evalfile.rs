//! `EvalFile` over UCI, driving the real binary: a good network file is loaded and searched with,
//! a bad one (missing, truncated, wrong magic, another architecture) is answered with one
//! `info string` naming the path and the problem and changes nothing, and every case still
//! answers `go` with a legal move. The files are written here from the documented format.

use engine::board::Position;
use engine::nnue::{self, Network};
use std::path::{Path, PathBuf};
use std::time::Duration;
use uci::session::find_move;

mod common;
use common::{network_file, Engine};

impl Engine {
    /// `setoption name EvalFile value <value>`: the one `info string` it answers.
    fn set_eval_file(&mut self, value: &str) -> String {
        self.send(&format!("setoption name EvalFile value {value}"));
        self.send("isready");
        let reply = self.read_until("readyok", Duration::from_secs(10));
        let strings: Vec<&String> = reply.iter().filter(|l| l.starts_with("info string")).collect();
        assert_eq!(strings.len(), 1, "'{value}' answered {reply:?}");
        assert_eq!(reply.len(), 2, "'{value}' answered {reply:?}");
        strings[0].clone()
    }

    /// The network line of `eval`.
    fn network_verdict(&mut self) -> String {
        self.send("eval");
        let lines = self.read_until("Final evaluation", Duration::from_secs(5));
        assert!(lines.iter().any(|l| l.contains("Material")), "the hand-crafted breakdown stays: {lines:?}");
        self.lines.recv_timeout(Duration::from_secs(5)).expect("the network's line follows")
    }

    /// `go depth 5` from `moves` after the start position answers a legal move.
    fn plays_a_legal_move(&mut self, moves: &[&str]) {
        let mut pos = Position::startpos();
        for text in moves {
            pos.make_move(find_move(&pos, text, false).expect("legal test move"));
        }
        self.send(&format!("position startpos moves {}", moves.join(" ")));
        self.send("go depth 5");
        let lines = self.read_until("bestmove", Duration::from_secs(30));
        let mv = lines.last().and_then(|l| l.split_whitespace().nth(1)).expect("a move").to_string();
        assert!(find_move(&pos, &mv, false).is_some(), "bestmove {mv} is not legal; {lines:?}");
    }
}

/// A fresh directory for one test's files.
fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lazuli-evalfile-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write a test file");
    path.display().to_string()
}

#[test]
fn evalfile_is_offered_empty_by_default() {
    let mut engine = Engine::start();
    engine.send("uci");
    let lines = engine.read_until("uciok", Duration::from_secs(5));
    assert!(lines.iter().any(|l| l == "option name EvalFile type string default <empty>"), "{lines:?}");
    assert!(lines.iter().any(|l| l == "option name Use NNUE type check default true"), "{lines:?}");
    let verdict = engine.network_verdict();
    match nnue::default_network() {
        Some(network) => assert!(verdict.contains(&format!("{:016x}", network.hash())), "{verdict}"),
        None => assert!(verdict.contains("hand-crafted"), "{verdict}"),
    }
}

impl Engine {
    /// `setoption name Use NNUE value <on>`: the one `info string` it answers.
    fn set_use_nnue(&mut self, on: bool) -> String {
        self.send(&format!("setoption name Use NNUE value {on}"));
        self.send("isready");
        let reply = self.read_until("readyok", Duration::from_secs(10));
        assert_eq!(reply.len(), 2, "Use NNUE {on} answered {reply:?}");
        reply[0].clone()
    }
}

#[test]
fn use_nnue_off_searches_with_the_hand_crafted_evaluation_and_keeps_the_network_for_later() {
    let dir = temp_dir("use-nnue");
    let path = write(&dir, "random.nnue", &network_file(256, 9));
    let hash = format!("{:016x}", Network::from_bytes(&network_file(256, 9)).expect("valid").hash());
    let mut engine = Engine::start();
    engine.set_eval_file(&path);

    let answer = engine.set_use_nnue(false);
    assert!(answer.contains("Use NNUE: searches use the hand-crafted evaluation"), "{answer}");
    assert!(engine.network_verdict().contains("No network in use"));
    engine.plays_a_legal_move(&["d2d4"]);

    // A network chosen while it is off waits for it.
    let other = write(&dir, "other.nnue", &network_file(256, 10));
    let answer = engine.set_eval_file(&other);
    assert!(answer.contains("hand-crafted") && answer.contains(&other), "{answer}");
    assert!(engine.network_verdict().contains("No network in use"));

    let answer = engine.set_use_nnue(true);
    assert!(answer.contains(&other) && !answer.contains(&hash), "{answer}");
    assert!(!engine.network_verdict().contains("No network"));
    engine.plays_a_legal_move(&["d2d4", "g8f6"]);
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn a_good_network_is_loaded_searched_with_and_left_again() {
    let dir = temp_dir("good");
    let bytes = network_file(256, 5);
    let path = write(&dir, "random.nnue", &bytes);
    let network = Network::from_bytes(&bytes).expect("the test writes a valid file");
    let hash = format!("{:016x}", network.hash());

    let mut engine = Engine::start();
    let answer = engine.set_eval_file(&path);
    assert!(answer.contains(&path) && answer.contains(&hash), "{answer}");
    // The verdict is the network's own, from both points of view.
    let moves = ["e2e4", "c7c5", "g1f3"];
    let mut pos = Position::startpos();
    for text in moves {
        pos.make_move(find_move(&pos, text, false).expect("legal"));
    }
    engine.send(&format!("position startpos moves {}", moves.join(" ")));
    let stm = network.evaluate_position(&pos);
    let verdict = engine.network_verdict();
    assert!(verdict.contains(&hash), "{verdict}");
    assert!(
        verdict.contains(&format!("{} cp (White's view), {stm} cp (side to move's view)", -stm)),
        "{verdict}"
    );
    engine.plays_a_legal_move(&moves);

    let answer = engine.set_eval_file("<empty>");
    match nnue::default_network() {
        Some(network) => {
            let embedded = format!("the embedded network {:016x}", network.hash());
            assert!(answer.contains(&embedded), "{answer}");
            assert!(engine.network_verdict().contains(&format!("{:016x}", network.hash())));
        }
        None => {
            assert!(answer.contains("hand-crafted"), "{answer}");
            assert!(engine.network_verdict().contains("No network"));
        }
    }
    engine.plays_a_legal_move(&[]);
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn bad_files_are_reported_once_and_change_nothing() {
    let dir = temp_dir("bad");
    let good = network_file(256, 6);
    let good_path = write(&dir, "good.nnue", &good);
    let hash = format!("{:016x}", Network::from_bytes(&good).expect("valid").hash());
    let mut wrong_magic = good.clone();
    wrong_magic[..4].copy_from_slice(b"NNUE");
    let cases = [
        (dir.join("missing.nnue").display().to_string(), "cannot read"),
        (write(&dir, "truncated.nnue", &good[..good.len() / 3]), "bytes"),
        (write(&dir, "magic.nnue", &wrong_magic), "magic"),
        (write(&dir, "wide.nnue", &network_file(512, 7)), "512"),
        (dir.display().to_string(), "cannot read"),
    ];

    let mut engine = Engine::start();
    // First with the hand-crafted evaluation, then with a network: each stays.
    for loaded in [false, true] {
        engine.set_use_nnue(loaded);
        if loaded {
            engine.set_eval_file(&good_path);
        }
        for (path, problem) in &cases {
            let answer = engine.set_eval_file(path);
            assert!(answer.contains(path.as_str()) && answer.contains(problem), "{answer}");
            assert!(answer.contains("unchanged"), "{answer}");
            let verdict = engine.network_verdict();
            assert_eq!(verdict.contains(&hash), loaded, "{verdict}");
            assert_eq!(verdict.contains("No network"), !loaded, "{verdict}");
            engine.plays_a_legal_move(&["d2d4"]);
        }
    }
    let answer = engine.set_eval_file(&format!("{good_path}.other"));
    assert!(answer.contains("No such file"), "{answer}");
    engine.send("quit");
    assert!(engine.child.wait().expect("exits").success());
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn lazuli_simd_caps_the_kernels_and_a_value_it_cannot_follow_is_named_once() {
    let mut engine = Engine::start_with(&[("LAZULI_SIMD", "scalar")]);
    let verdict = engine.network_verdict();
    assert!(verdict.ends_with("(scalar kernels)"), "{verdict}");
    engine.plays_a_legal_move(&["e2e4"]);

    let fastest = nnue::simd::Kernels::select(None).kernels.name();
    let mut engine = Engine::start_with(&[("LAZULI_SIMD", "sse9")]);
    engine.send("isready");
    let reply = engine.read_until("readyok", Duration::from_secs(10));
    assert_eq!(
        reply,
        [
            format!("info string LAZULI_SIMD=sse9 is not one of scalar, avx2, avx512; using {fastest}"),
            "readyok".into()
        ]
    );
    let verdict = engine.network_verdict();
    assert!(verdict.ends_with(&format!("({fastest} kernels)")), "{verdict}");
    engine.plays_a_legal_move(&["d2d4"]);
}
