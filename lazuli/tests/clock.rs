//! The clock as `go` gives it, through the binary: every field that bounds the move is obeyed,
//! the side to move's clock is the one used, and a `go` whose clock fields cannot be used as
//! they stand still gets its move promptly. The bounds are the limits' own, with a margin for a
//! loaded machine; the lower bounds show that the limit was the one meant.

use std::time::{Duration, Instant};

mod common;
use common::Engine;

/// Sends `go`, waits for `bestmove`; returns the lines and the time it took.
fn timed_go(position: &str, go: &str) -> (Vec<String>, Duration) {
    let mut engine = Engine::start();
    engine.send(position);
    engine.send("isready");
    engine.read_until("readyok", Duration::from_secs(10));
    let start = Instant::now();
    engine.send(go);
    let lines = engine.read_until("bestmove", Duration::from_secs(20));
    let took = start.elapsed();
    engine.send("quit");
    (lines, took)
}

const WHITE: &str = "position startpos";
const BLACK: &str = "position startpos moves e2e4";
/// Slack for a loaded machine above a limit the engine sets itself.
const SLACK: Duration = Duration::from_millis(250);

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn each_side_reads_its_own_clock() {
    for (position, go) in
        [(BLACK, "go wtime 60000 btime 200"), (WHITE, "go wtime 200 btime 60000"), (WHITE, "go wtime 200")]
    {
        let (_, took) = timed_go(position, go);
        assert!(took < ms(200) + SLACK, "{position}, {go}: {took:?} on a 200 ms clock");
    }
    // With a long clock of its own, the side to move takes more than the other's 200 ms.
    let (_, took) = timed_go(BLACK, "go wtime 200 btime 60000");
    assert!(took > ms(300), "Black with 60 s answered in {took:?}");
}

#[test]
fn movetime_is_spent_and_not_exceeded() {
    let (_, took) = timed_go(WHITE, "go movetime 300");
    assert!(took >= ms(280) && took < ms(300) + SLACK, "{took:?}");
}

#[test]
fn movetime_and_a_short_clock_both_apply() {
    let (_, took) = timed_go(WHITE, "go wtime 200 btime 200 movetime 1000");
    assert!(took < ms(200) + SLACK, "{took:?} with 200 ms on the clock");
}

#[test]
fn movestogo_zero_is_no_movestogo() {
    // Taken as one move to go, this spent nearly half the clock; over the usual horizon it is a
    // small share.
    let (lines, took) = timed_go(WHITE, "go wtime 3000 btime 3000 movestogo 0");
    assert!(took < ms(700), "{took:?} of a 3 s clock");
    assert!(lines.iter().any(|l| l.starts_with("info string") && l.contains("movestogo 0")), "{lines:?}");
}

#[test]
fn a_clock_for_the_opponent_alone_still_ends_the_move() {
    let (lines, took) = timed_go(WHITE, "go btime 1000");
    assert!(took < ms(100) + SLACK, "{took:?}");
    assert!(lines.iter().any(|l| l.starts_with("info string") && l.contains("no wtime")), "{lines:?}");
    assert!(lines.last().is_some_and(|l| l.starts_with("bestmove ") && !l.contains("0000")), "{lines:?}");
}
