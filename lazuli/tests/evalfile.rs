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

    /// What `eval` prints, one line after another.
    fn network_verdict(&mut self) -> String {
        self.send("eval");
        self.read_until("Final evaluation", Duration::from_secs(5)).join("\n")
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

/// A test's directory, a network file of random weights (`seed`) in it, and the path a table
/// file of the test goes to.
fn network_and_table(test: &str, seed: u64) -> (PathBuf, String, String) {
    let dir = temp_dir(test);
    let network = write(&dir, "random.nnue", &network_file(256, seed));
    let table = dir.join("table.lzh").display().to_string();
    (dir, network, table)
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
    assert!(!lines.iter().any(|l| l.contains("Use NNUE")), "the network is the only evaluation: {lines:?}");
    let verdict = engine.network_verdict();
    assert!(verdict.contains(&format!("{:016x}", nnue::default_network().hash())), "{verdict}");
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
        verdict
            .contains(&format!("Network output: {} cp (White's view), {stm} cp (side to move's view)", -stm)),
        "{verdict}"
    );
    engine.plays_a_legal_move(&moves);

    let answer = engine.set_eval_file("<empty>");
    let embedded = nnue::default_network();
    assert!(answer.contains(&format!("the embedded network {:016x}", embedded.hash())), "{answer}");
    assert!(engine.network_verdict().contains(&format!("{:016x}", embedded.hash())));
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
    // First with the embedded network, then with a loaded one: each stays.
    for loaded in [false, true] {
        if loaded {
            engine.set_eval_file(&good_path);
        }
        for (path, problem) in &cases {
            let answer = engine.set_eval_file(path);
            assert!(answer.contains(path.as_str()) && answer.contains(problem), "{answer}");
            assert!(answer.contains("unchanged"), "{answer}");
            let verdict = engine.network_verdict();
            assert_eq!(verdict.contains(&hash), loaded, "{verdict}");
            let embedded = format!("{:016x}", nnue::default_network().hash());
            assert_eq!(verdict.contains(&embedded), !loaded, "{verdict}");
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
    assert!(verdict.contains(", scalar kernels,"), "{verdict}");
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
    assert!(verdict.contains(&format!(", {fastest} kernels,")), "{verdict}");
    engine.plays_a_legal_move(&["d2d4"]);
}

#[test]
fn eval_shows_every_bucket_the_chosen_one_and_the_searchs_evaluation() {
    let dir = temp_dir("buckets");
    let path = write(&dir, "random.nnue", &network_file(256, 11));
    let network = Network::load_file(Path::new(&path)).expect("the test writes a valid file");
    let mut engine = Engine::start();
    // The embedded network first: its bucket table has a row per bucket, the start position's
    // 32 pieces marked.
    engine.send("position startpos");
    let verdict = engine.network_verdict();
    let embedded = nnue::default_network();
    let rows: Vec<&str> = verdict.lines().filter(|l| l.contains(" cp |")).collect();
    assert_eq!(rows.len(), embedded.buckets(), "{verdict}");
    let marked: Vec<&&str> = rows.iter().filter(|l| l.contains("<- 32 pieces")).collect();
    assert_eq!(marked.len(), 1, "{verdict}");
    let pos = Position::startpos();
    let output = embedded.evaluate_position(&pos);
    assert!(marked[0].trim_start().starts_with(&format!("{} ", rows.len() - 1)), "{verdict}");
    let eval = engine::search::evaluation_of_network_output(output);
    assert!(verdict.ends_with(&format!("Final evaluation: {eval} cp (White's view), {eval} cp (side to move's view), as the search scales it")), "{verdict}");

    // A loaded network, with Black to move: both points of view, every bucket's own score.
    engine.set_eval_file(&path);
    let fen = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1";
    engine.send(&format!("position fen {fen}"));
    let verdict = engine.network_verdict();
    let pos = Position::from_fen(fen).expect("valid FEN");
    for (bucket, stm) in network.bucket_scores(&pos).into_iter().enumerate() {
        assert!(
            verdict.lines().any(|l| l.trim_start().starts_with(&format!("{bucket} "))
                && l.contains(&format!(" {stm} cp | "))
                && l.contains(&format!(" {} cp", -stm))),
            "bucket {bucket}: {verdict}"
        );
    }
    assert!(verdict.contains(&format!("<- {} pieces", pos.occupied().count())), "{verdict}");
    let output = network.evaluate_position(&pos);
    let eval = engine::search::evaluation_of_network_output(output);
    assert!(
        verdict.contains(&format!("Network output: {} cp (White's view), {output} cp", -output)),
        "{verdict}"
    );
    assert!(
        verdict.contains(&format!("Final evaluation: {} cp (White's view), {eval} cp", -eval)),
        "{verdict}"
    );
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// Options sent during a search take effect when it ends, in the order they were sent: a
/// `Save Hash` pressed before an `EvalFile` change saves the table of the network it came from.
#[test]
fn options_sent_during_a_search_take_effect_in_their_order() {
    let (dir, network, table) = network_and_table("order", 12);
    let mut engine = Engine::start();
    engine.send(&format!("setoption name Hash File value {table}"));
    engine.send("position startpos");
    engine.send("go infinite");
    engine.read_until("info depth", Duration::from_secs(10));
    engine.send("setoption name Save Hash");
    engine.send(&format!("setoption name EvalFile value {network}"));
    engine.send("isready");
    let during = engine.read_until("readyok", Duration::from_secs(10));
    assert!(
        during.iter().any(|l| l.contains("from the next search on")),
        "set during the search: {during:?}"
    );
    engine.send("stop");
    engine.read_until("bestmove", Duration::from_secs(10));
    engine.send("isready");
    let lines = engine.read_until("readyok", Duration::from_secs(10));
    assert!(lines.iter().any(|l| l.contains("saved the hash")), "{lines:?}");
    // The table was saved under the embedded network, before the switch cleared it.
    engine.set_eval_file("<empty>");
    engine.send("setoption name Load Hash");
    engine.send("isready");
    let loaded = engine.read_until("readyok", Duration::from_secs(10));
    assert!(loaded[0].contains("loaded the hash"), "{lines:?} then {loaded:?}");
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// `Keep Hash File` with a table saved under a loaded network: a GUI sets the options in its own
/// order (here the `uci` answer's, `EvalFile` last), and the table is loaded once the network it
/// came from is set, not refused before.
#[test]
fn a_kept_hash_file_of_a_loaded_network_is_loaded_whatever_the_order_of_the_options() {
    let (dir, network, table) = network_and_table("kept", 13);
    let mut first = Engine::start();
    first.set_eval_file(&network);
    first.send(&format!("setoption name Hash File value {table}"));
    first.send("position startpos");
    first.send("go depth 6");
    first.read_until("bestmove", Duration::from_secs(30));
    first.send("setoption name Save Hash");
    first.send("isready");
    let saved = first.read_until("readyok", Duration::from_secs(10));
    assert!(saved[0].contains("saved the hash"), "{saved:?}");

    let mut engine = Engine::start();
    engine.send(&format!("setoption name Hash File value {table}"));
    engine.send("setoption name Keep Hash File value true");
    engine.send(&format!("setoption name EvalFile value {network}"));
    engine.send("isready");
    let lines = engine.read_until("readyok", Duration::from_secs(10));
    assert!(!lines.iter().any(|l| l.contains("cannot load")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("loaded the hash")), "{lines:?}");
    // And the other way round: the network first, then the kept file.
    let mut engine = Engine::start();
    engine.send(&format!("setoption name EvalFile value {network}"));
    engine.send(&format!("setoption name Hash File value {table}"));
    engine.send("setoption name Keep Hash File value true");
    engine.send("isready");
    let lines = engine.read_until("readyok", Duration::from_secs(10));
    assert!(lines.iter().any(|l| l.contains("loaded the hash")), "{lines:?}");
    std::fs::remove_dir_all(&dir).expect("clean up");
}
