//! An analysis resumes from the table: `go infinite` (or, in `UCI_AnalyseMode`, any search
//! without a clock or `movetime`) starts at the depth the table holds for the root, in the same process and
//! after `Load Hash` in a new one; games and fixed searches start at depth 1 as always.

mod common;

use common::{info_field, Engine};
use std::time::Duration;

const FEN: &str = "r1b2rk1/2q1bppp/p2p1n2/np2p3/3PP3/5N1P/PPB2PP1/RNBQR1K1 w - - 0 12";
const TEN_S: Duration = Duration::from_secs(10);

/// Analyses `FEN` until depth `depth`, then stops; returns every line up to `bestmove`.
fn analyse_to(engine: &mut Engine, depth: i64) -> Vec<String> {
    engine.send(&format!("position fen {FEN}"));
    engine.send("go infinite");
    let mut lines = engine.wait_for_depth(depth);
    engine.send("stop");
    lines.extend(engine.read_until("bestmove", TEN_S));
    lines
}

/// The depth a `resuming` line names, if the lines hold one.
fn resumed_at(lines: &[String]) -> Option<i64> {
    let line = lines.iter().find(|l| l.starts_with("info string resuming the analysis at depth "))?;
    line.split_whitespace().nth(7)?.trim_end_matches(',').parse().ok()
}

/// The depths of the `info depth` lines with a principal variation, in order.
fn depths(lines: &[String]) -> Vec<i64> {
    lines
        .iter()
        .filter(|l| l.starts_with("info depth") && l.contains(" pv "))
        .map(|l| info_field(l, "depth"))
        .collect()
}

#[test]
fn an_analysis_resumes_at_the_tables_depth_and_a_game_does_not() {
    let mut engine = Engine::start();
    engine.send("setoption name Hash value 32");
    let first = analyse_to(&mut engine, 12);
    assert_eq!(resumed_at(&first), None, "nothing to resume from: {first:?}");
    assert_eq!(depths(&first)[0], 1);

    let again = analyse_to(&mut engine, 13);
    let start = resumed_at(&again).unwrap_or_else(|| panic!("no resume: {again:?}"));
    // At the depth the first analysis completed (not one its interrupted iteration reached).
    assert_eq!(start, *depths(&first).iter().max().unwrap(), "{again:?}");
    assert!(again.iter().any(|l| l.ends_with("the depth the last search of this position completed")));
    // Every depth reported is one completed now, from the resumed depth on.
    let reported = depths(&again);
    assert!(reported[0] >= start && reported.windows(2).all(|w| w[0] <= w[1]), "{again:?}");

    // A fixed-depth search and a game on the clock search from depth 1.
    engine.send("go depth 8");
    let fixed = engine.read_until("bestmove", TEN_S);
    assert_eq!((resumed_at(&fixed), depths(&fixed)[0]), (None, 1), "{fixed:?}");
    engine.send("go wtime 2000 btime 2000 winc 100 binc 100");
    let game = engine.read_until("bestmove", TEN_S);
    assert_eq!(resumed_at(&game), None, "{game:?}");

    // In analysis mode, any search without a clock is an analysis; with a clock it is a game.
    engine.send("setoption name UCI_AnalyseMode value true");
    engine.send("go depth 14");
    let analysed = engine.read_until("bestmove", Duration::from_secs(30));
    // It reports from the resumed depth on, or the depth asked for when the table holds more
    // (the game before it left the root's entry at whatever depth its clock allowed).
    let resumed = resumed_at(&analysed).unwrap_or_else(|| panic!("no resume: {analysed:?}"));
    assert!(depths(&analysed).iter().all(|&d| d >= resumed.min(14)), "{analysed:?}");
    engine.send("go wtime 2000 btime 2000");
    let game = engine.read_until("bestmove", TEN_S);
    assert_eq!(resumed_at(&game), None, "{game:?}");
    // Nor does a search given a time (it might not complete the resumed iteration in it).
    engine.send("go movetime 200");
    let timed = engine.read_until("bestmove", TEN_S);
    assert_eq!((resumed_at(&timed), depths(&timed)[0]), (None, 1), "{timed:?}");

    // MultiPV resumes with every line.
    engine.send("setoption name MultiPV value 3");
    let multi = analyse_to(&mut engine, 14);
    let at = resumed_at(&multi).expect("resumed");
    for pv in 1..=3 {
        assert!(
            multi
                .iter()
                .any(|l| l.starts_with(&format!("info depth {at} ")) && info_field(l, "multipv") == pv),
            "line {pv} at depth {at}: {multi:?}"
        );
    }
    // UCI_Opponent is accepted and changes nothing.
    engine.send("setoption name UCI_Opponent value GM 2800 computer Stockfish");
    assert!(engine.sync().iter().all(|l| !l.starts_with("info string")));
}

/// The first line with a principal variation at `depth`.
fn line_at(lines: &[String], depth: i64) -> &str {
    let line = lines
        .iter()
        .find(|l| l.starts_with("info depth") && l.contains(" pv ") && info_field(l, "depth") == depth);
    line.unwrap_or_else(|| panic!("no line at depth {depth}: {lines:?}"))
}

fn pv_of(line: &str) -> Vec<&str> {
    line.split(" pv ").nth(1).map_or(Vec::new(), |moves| moves.split_whitespace().collect())
}

#[test]
fn the_resumed_depth_comes_back_from_the_table_with_its_whole_line() {
    let mut engine = Engine::start();
    engine.send("setoption name Hash value 32");
    let first = analyse_to(&mut engine, 13);
    let deepest = *depths(&first).iter().max().unwrap();
    let before = line_at(&first, deepest);

    let again = analyse_to(&mut engine, deepest);
    assert_eq!(resumed_at(&again), Some(deepest), "{again:?}");
    let resumed = line_at(&again, deepest);
    // What the first analysis proved is taken back, not searched again...
    assert!(
        info_field(resumed, "nodes") * 10 < info_field(before, "nodes"),
        "first: {before}\nresumed: {resumed}"
    );
    // ...and its line with it, as far as the depth reaches.
    assert!(pv_of(resumed).len() >= 6, "first: {before}\nresumed: {resumed}");
}

#[test]
fn a_loaded_table_resumes_the_analysis_in_a_new_process() {
    let dir = std::env::temp_dir().join(format!("lazuli-analysis-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("analysis.lzh");
    let mut first = Engine::start();
    first.send("setoption name Hash value 32");
    let lines = analyse_to(&mut first, 13);
    let deepest = *depths(&lines).iter().max().unwrap();
    first.send(&format!("setoption name Hash File value {}", file.display()));
    first.send("setoption name Save Hash");
    let saved = first.sync();
    assert!(saved[0].contains(", the search's histories and 1 searched root,"), "{saved:?}");
    drop(first);

    let mut second = Engine::start();
    second.send(&format!("setoption name Hash File value {}", file.display()));
    second.send("setoption name Load Hash");
    let loaded = second.sync();
    assert!(
        loaded[0].contains("loaded the hash (32 MB), the search's histories and 1 searched root"),
        "{loaded:?}"
    );
    let again = analyse_to(&mut second, deepest);
    let start = resumed_at(&again).unwrap_or_else(|| panic!("no resume: {again:?}"));
    assert_eq!(start, deepest, "the depth the first analysis completed: {again:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn keep_hash_file_saves_at_ucinewgame_and_quit_and_loads_when_set() {
    let dir = std::env::temp_dir().join(format!("lazuli-keep-hash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("kept.lzh");
    let mut first = Engine::start();
    first.send("setoption name Hash value 16");
    first.send("setoption name Keep Hash File value true");
    // No file yet: nothing to load, nothing said.
    first.send(&format!("setoption name Hash File value {}", file.display()));
    assert!(first.sync().iter().all(|l| !l.starts_with("info string")));
    analyse_to(&mut first, 12);
    first.send("ucinewgame");
    let saved = first.sync();
    assert!(saved.iter().any(|l| l.contains("saved the hash (16 MB)")), "{saved:?}");
    assert!(file.exists());
    let _ = std::fs::remove_file(&file);
    analyse_to(&mut first, 12);
    first.send("quit");
    assert!(first.child.wait().expect("the engine ends").success());
    assert!(file.exists(), "saved at quit");

    // Switched on after the path is set: the file is loaded, and the analysis resumes.
    let mut second = Engine::start();
    second.send(&format!("setoption name Hash File value {}", file.display()));
    second.send("setoption name Keep Hash File value true");
    let loaded = second.sync();
    assert!(loaded.iter().any(|l| l.contains("loaded the hash (16 MB)")), "{loaded:?}");
    let again = analyse_to(&mut second, 12);
    assert!(resumed_at(&again).is_some(), "{again:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
