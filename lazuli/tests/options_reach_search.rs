//! Options reach the search, not only `eval` or the option table: the same fixed-depth search
//! from a new game counts other nodes once an option that changes the evaluation or the probes
//! is set, and exactly the same nodes once it is set back.

mod common;
use common::{info_field, network_file, Engine};
use std::time::Duration;

struct Search {
    nodes: i64,
    tb_hits: i64,
}

impl Engine {
    fn ready() -> Engine {
        let mut engine = Engine::start();
        engine.send("uci");
        engine.read_until("uciok", Duration::from_secs(5));
        engine
    }

    fn set(&mut self, name: &str, value: &str) -> Vec<String> {
        self.send(&format!("setoption name {name} value {value}"));
        self.sync()
    }

    /// `go depth` from a new game (cleared table and histories), one thread: deterministic.
    fn search(&mut self, position: &str, depth: u32) -> Search {
        self.send("ucinewgame");
        self.send(&format!("position {position}"));
        self.send(&format!("go depth {depth}"));
        let lines = self.read_until("bestmove", Duration::from_secs(60));
        let last = lines.iter().rev().find(|l| l.starts_with("info depth")).expect("an info line");
        let tb_hits = if last.contains(" tbhits ") { info_field(last, "tbhits") } else { 0 };
        Search { nodes: info_field(last, "nodes"), tb_hits }
    }
}

const MIDDLEGAME: &str = "fen r1bq1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/R3KB1R w KQ - 3 9";

#[test]
fn eval_file_changes_what_the_search_sees() {
    let mut engine = Engine::ready();
    let network = engine.search(MIDDLEGAME, 9).nodes;
    assert_eq!(engine.search(MIDDLEGAME, 9).nodes, network, "a new game searches the same tree");

    let dir = std::env::temp_dir().join(format!("lazuli-options-search-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("random.lznn");
    std::fs::write(&path, network_file(256, 7)).unwrap();
    let reply = engine.set("EvalFile", &path.display().to_string());
    assert!(reply.iter().any(|l| l.contains("searches use the network")), "{reply:?}");
    let other = engine.search(MIDDLEGAME, 9).nodes;
    assert_ne!(other, network, "EvalFile did not reach the search");
    engine.set("EvalFile", "<empty>");
    assert_eq!(engine.search(MIDDLEGAME, 9).nodes, network, "EvalFile <empty> brings the default back");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn syzygy_path_reaches_the_search_and_leaves_it() {
    let tables = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/syzygy");
    // Rook and pawn against rook: the tables decide every capture into three or four pieces.
    let ending = "fen 8/8/4k3/8/2r5/4PK2/8/5R2 w - - 0 1";
    let mut engine = Engine::ready();
    let without = engine.search(ending, 8);
    assert_eq!(without.tb_hits, 0);
    let reply = engine.set("SyzygyPath", &tables.display().to_string());
    assert!(reply.iter().any(|l| l.contains("Syzygy")), "{reply:?}");
    let with = engine.search(ending, 8);
    assert!(with.tb_hits > 0, "SyzygyPath did not reach the search");
    assert_ne!(with.nodes, without.nodes);
    engine.set("SyzygyPath", "<empty>");
    let after = engine.search(ending, 8);
    assert_eq!((after.nodes, after.tb_hits), (without.nodes, 0), "an empty SyzygyPath stops the probes");
}

#[test]
fn multipv_with_tablebases_lists_every_move_the_best_result_first() {
    let tables = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/syzygy");
    let mut engine = Engine::ready();
    engine.set("SyzygyPath", &tables.display().to_string());
    engine.set("MultiPV", "10");
    // KRvK, Black in check from a rook it can take: the capture draws, the four king moves
    // lose. The tables keep the capture for the search; the other lines follow it, as losses.
    engine.send("position fen 8/8/8/3Rk3/8/8/8/K7 b - - 0 1");
    engine.send("go depth 6");
    let lines = engine.read_until("bestmove", Duration::from_secs(30));
    assert_eq!(lines.last().map(String::as_str), Some("bestmove e5d5"), "{lines:?}");
    let last_depth: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth 6 ")).collect();
    let moves: Vec<&str> =
        last_depth.iter().map(|l| l.split(" pv ").nth(1).expect("a pv").split(' ').next().unwrap()).collect();
    assert_eq!(moves.len(), 5, "{last_depth:?}");
    assert_eq!(moves[0], "e5d5");
    assert_eq!(info_field(last_depth[0], "multipv"), 1);
    assert!(last_depth[0].contains(" score cp 0 "), "{}", last_depth[0]);
    for line in &last_depth[1..] {
        assert!(line.contains(" score cp -") || line.contains(" score mate -"), "a loss: {line}");
    }
    let mut distinct = moves.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 5, "each move once: {moves:?}");
}
