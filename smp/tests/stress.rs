//! Stress tests of the thread pool: go/stop storms, thread-count and hash changes, and how
//! soon `stop` is answered.

use engine::board::{Board, Position};
use engine::movegen::legal_moves;
use engine::search::{Limits, Reporter, SearchInfo, SearchResult, SilentReporter};
use smp::{Engine, Mode};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use support::rng::Rng;

fn random_positions(count: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let mut positions = Vec::new();
    while positions.len() < count {
        let mut pos = Position::startpos();
        for _ in 0..rng.below(70) {
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            pos.make_move(moves.get(rng.below(moves.len() as u64) as usize));
        }
        if !legal_moves(&pos).is_empty() {
            positions.push(pos);
        }
    }
    positions
}

fn start(engine: &mut Engine, pos: Position, limits: Limits, infinite: bool) -> Receiver<SearchResult> {
    let (tx, rx) = channel();
    let on_done = Box::new(move |result: SearchResult, _: &smp::Ended| {
        let _ = tx.send(result);
    });
    let mode = if infinite { Mode::Infinite } else { Mode::Normal };
    engine.go(Board::new(pos), limits, mode, Box::new(SilentReporter), on_done);
    rx
}

/// Tells the test when the main thread has reported its first completed iteration (by then the
/// helpers have been started).
struct FirstIteration(Mutex<Option<Sender<()>>>);

impl Reporter for FirstIteration {
    fn info(&self, _info: &SearchInfo) {
        if let Some(tx) = self.0.lock().expect("no panics while holding it").take() {
            let _ = tx.send(());
        }
    }
}

/// An infinite search, and a receiver that hears of its first completed iteration.
fn start_infinite(engine: &mut Engine, pos: Position) -> (Receiver<SearchResult>, Receiver<()>) {
    let (tx, rx) = channel();
    let (started_tx, started) = channel();
    let on_done = Box::new(move |result: SearchResult, _: &smp::Ended| {
        let _ = tx.send(result);
    });
    let reporter = Box::new(FirstIteration(Mutex::new(Some(started_tx))));
    engine.go(Board::new(pos), Limits::default(), Mode::Infinite, reporter, on_done);
    (rx, started)
}

fn check_legal(pos: &Position, result: &SearchResult) {
    assert!(legal_moves(pos).contains(result.best_move), "{}: illegal {:?}", pos.to_fen(), result.best_move);
    if !result.ponder_move.is_null() {
        let mut after = *pos;
        after.make_move(result.best_move);
        assert!(legal_moves(&after).contains(result.ponder_move), "{}: bad ponder move", pos.to_fen());
    }
}

#[test]
fn go_stop_storm_with_many_threads() {
    let mut engine = Engine::new(8, 8);
    let mut rng = Rng::new(0x1234_5678);
    for (i, pos) in random_positions(250, 99).into_iter().enumerate() {
        let rx = start(&mut engine, pos, Limits::default(), i % 3 == 0);
        std::thread::sleep(Duration::from_micros(rng.below(1024)));
        engine.pool().stop();
        let result = rx.recv_timeout(Duration::from_secs(10)).expect("bestmove after stop");
        check_legal(&pos, &result);
    }
}

#[test]
fn thread_and_hash_changes_between_searches() {
    let mut engine = Engine::new(1, 4);
    let positions = random_positions(6, 7);
    for (threads, hash) in [(1, 4), (64, 16), (3, 1), (64, 64), (2, 8)] {
        engine.set_threads(threads).expect("threads start");
        engine.set_hash(hash).expect("small tables allocate");
        assert_eq!(engine.pool().threads(), threads);
        for pos in &positions {
            let rx = start(&mut engine, *pos, Limits::depth(6), false);
            let result = rx.recv_timeout(Duration::from_secs(60)).expect("search ends");
            check_legal(pos, &result);
        }
    }
}

#[test]
fn same_size_hash_keeps_its_contents() {
    let mut engine = Engine::new(1, 8);
    let rx = start(&mut engine, Position::startpos(), Limits::depth(8), false);
    rx.recv_timeout(Duration::from_secs(60)).expect("search ends");
    let key = Position::startpos().key();
    assert!(engine.tt().probe(key, 0, 0).is_some());
    engine.set_hash(engine.hash_mb()).expect("no-op");
    engine.set_threads(1).expect("threads start");
    assert!(engine.tt().probe(key, 0, 0).is_some(), "re-sending the same Hash/Threads cleared the table");
}

/// How long `stop` may take to give the answer, at the median and at worst, over ten searches.
/// With a core for every thread the main thread answers within a millisecond or two; the
/// bounds leave room for a loaded machine (these tests run side by side), and a `stop` that
/// waited for an iteration to end would exceed them. With more threads than cores the answer
/// waits until every helper has had a core to see the flag, a round of the scheduler (tens of
/// milliseconds at 64 threads on 2 cores, as for Stockfish: docs/lazy-smp.md), so only the
/// worst case is bounded there.
const STOP_MEDIAN_LIMIT: Duration = Duration::from_millis(10);
const STOP_WORST_LIMIT: Duration = Duration::from_millis(250);

#[test]
fn stop_latency_is_small_at_any_thread_count() {
    let cores = smp::available_cores();
    for threads in [1, cores, 8, 64] {
        let mut engine = Engine::new(threads, 16);
        let mut latencies = Vec::new();
        for pos in random_positions(10, threads as u64) {
            let (rx, started) = start_infinite(&mut engine, pos);
            started.recv_timeout(Duration::from_secs(10)).expect("a first iteration");
            let stopped = Instant::now();
            engine.pool().stop();
            let result = rx.recv_timeout(Duration::from_secs(5)).expect("bestmove after stop");
            latencies.push(stopped.elapsed());
            check_legal(&pos, &result);
        }
        latencies.sort();
        let (median, worst) = (latencies[latencies.len() / 2], *latencies.last().expect("measured"));
        println!("stop latency, {threads} threads: median {median:?}, worst {worst:?}");
        if threads <= cores {
            assert!(median <= STOP_MEDIAN_LIMIT, "{threads} threads: median {median:?} ({latencies:?})");
        }
        assert!(worst <= STOP_WORST_LIMIT, "{threads} threads: worst {worst:?} ({latencies:?})");
    }
}

#[test]
fn dropping_a_pool_during_a_64_thread_search_is_prompt() {
    let mut engine = Engine::new(64, 16);
    let (_rx, started) = start_infinite(&mut engine, Position::startpos());
    started.recv_timeout(Duration::from_secs(10)).expect("a first iteration");
    let start = Instant::now();
    drop(engine);
    assert!(start.elapsed() < Duration::from_secs(5));
}
