//! Pondering through the binary: a ponder search counts its time from `go`, as a search that
//! was not pondering would; no limit ends it before `ponderhit`, which it answers at once when
//! it has already had its time, and no node or depth limit answers before it or `stop`; `Ponder`
//! on plans a quarter more time per move.

use std::time::{Duration, Instant};

mod common;
use common::Engine;

/// Sends `ponderhit` after `pondered` of a `go ponder` on `clock_ms` each, and returns how long
/// the `bestmove` took after the hit.
fn answer_after_ponderhit(engine: &mut Engine, pondered: Duration, clock_ms: u64) -> Duration {
    engine.send("position startpos moves e2e4");
    engine.send(&format!("go ponder wtime {clock_ms} btime {clock_ms}"));
    std::thread::sleep(pondered);
    let early = engine.drain(Duration::from_millis(1));
    assert!(!early.iter().any(|l| l.starts_with("bestmove")), "answered while pondering: {early:?}");
    let hit = Instant::now();
    engine.send("ponderhit");
    let lines = engine.read_until("bestmove", Duration::from_secs(10));
    assert!(lines.last().is_some_and(|l| l.starts_with("bestmove ")), "{lines:?}");
    hit.elapsed()
}

#[test]
fn a_ponder_search_that_had_its_time_answers_at_once_on_ponderhit() {
    let mut engine = Engine::start();
    // On a 20 s clock a move is planned at about 0.5 s (never less than 0.18 s, never more
    // than 1.2 s, whatever the search looks like); this search has thought 3 s, time enough for
    // an iteration to end past the plan and mark it. Counted from the hit, it would take at
    // least those 0.18 s more.
    let after = answer_after_ponderhit(&mut engine, Duration::from_millis(3000), 20_000);
    assert!(after < Duration::from_millis(100), "bestmove {after:?} after ponderhit");
}

#[test]
fn a_ponderhit_that_comes_early_leaves_the_search_its_time() {
    let mut engine = Engine::start();
    // On a 60 s clock a move is planned at about 2 s: a hit after 50 ms leaves most of it.
    let after = answer_after_ponderhit(&mut engine, Duration::from_millis(50), 60_000);
    assert!(after > Duration::from_millis(300), "bestmove {after:?} after ponderhit");
    assert!(after < Duration::from_secs(8), "bestmove {after:?} after ponderhit");
}

/// `Ponder` on gives each move a quarter more soft time, visible in `debug on`'s time limits.
#[test]
fn ponder_on_plans_a_quarter_more_time() {
    let soft_ms = |ponder: bool| -> u128 {
        let mut engine = Engine::start();
        engine.send(&format!("setoption name Ponder value {ponder}"));
        engine.send("debug on");
        engine.send("position startpos");
        engine.send("go wtime 60000 btime 60000 depth 1");
        let lines = engine.read_until("bestmove", Duration::from_secs(10));
        let limits = lines.iter().find(|l| l.contains("time limits")).expect("the debug line");
        let soft = limits.split("soft: ").nth(1).expect("soft").split(',').next().unwrap();
        let value: f64 = soft.trim_end_matches("ms").trim_end_matches('s').parse().expect("a duration");
        if soft.ends_with("ms") {
            value as u128
        } else {
            (value * 1000.0) as u128
        }
    };
    let (off, on) = (soft_ms(false), soft_ms(true));
    assert!(on * 100 >= off * 124 && on * 100 <= off * 126, "soft {off} ms without Ponder, {on} ms with it");
}

/// A ponder search with a node or depth limit, and `go infinite` with one, search to it and
/// then wait: the answer comes only after `ponderhit` or `stop`.
#[test]
fn a_limit_never_ends_a_ponder_or_infinite_search_before_ponderhit_or_stop() {
    let mut engine = Engine::start();
    for (go, end) in [
        ("go ponder nodes 1000", "ponderhit"),
        ("go ponder depth 3", "ponderhit"),
        ("go ponder nodes 1000", "stop"),
        ("go infinite nodes 1000", "stop"),
        ("go infinite depth 3", "stop"),
    ] {
        engine.send("position startpos moves e2e4");
        engine.send(go);
        std::thread::sleep(Duration::from_millis(300));
        engine.send("isready");
        let before = engine.read_until("readyok", Duration::from_secs(10));
        assert!(!before.iter().any(|l| l.starts_with("bestmove")), "{go}: answered before {end}: {before:?}");
        engine.send(end);
        let lines = engine.read_until("bestmove", Duration::from_secs(10));
        assert!(lines.last().is_some_and(|l| l.starts_with("bestmove ")), "{go}: {lines:?}");
    }
}
