//! Perft suites: the node counts of `perft.epd`, `perft_tricky.epd` and `perft960.epd` (Shredder-
//! and X-FEN castling), chosen by node count rather than by depth. The counts come from the files.
//!
//! - `perft_suites`: every count up to `QUICK_LIMIT` nodes on every line, plus the deepest count
//!   up to `DEEP_LIMIT` on every standard-chess line and on a spread of Chess960 lines totalling
//!   at most `DEEP_960_BUDGET` nodes.
//! - `perft_suites_deep` (ignored; `cargo test --release -- --ignored perft_suites_deep`): every
//!   count up to `LAZULI_PERFT_MAX` nodes (default 1e9).

use super::common::{parse_entry, perft_files};
use engine::board::Position;
use engine::movegen::perft::perft;
use lazuli_tests::EpdEntry;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

const QUICK_LIMIT: u64 = 1_000_000;
const DEEP_LIMIT: u64 = 100_000_000;
const DEEP_960_BUDGET: u64 = 1_000_000_000;

struct Job {
    label: String,
    fen: String,
    pos: Position,
    depth: u32,
    expected: u64,
}

fn job(file: &str, entry: &EpdEntry, pos: Position, depth: u32, expected: u64) -> Job {
    Job { label: format!("{file}:{}", entry.line), fen: entry.fen.clone(), pos, depth, expected }
}

/// Runs the jobs on every available core (largest first) and fails listing every mismatch.
fn run_jobs(mut jobs: Vec<Job>) {
    assert!(!jobs.is_empty(), "no perft counts selected");
    jobs.sort_by_key(|j| std::cmp::Reverse(j.expected));
    let total: u64 = jobs.iter().map(|j| j.expected).sum();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(jobs.len());
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(job) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let got = std::panic::catch_unwind(|| perft(&job.pos, job.depth));
                    if got.as_ref().ok() != Some(&job.expected) {
                        let got = got.map_or_else(|_| "a panic".to_string(), |n| n.to_string());
                        let message = format!(
                            "{}: perft mismatch for '{}' depth {}: expected {}, got {}",
                            job.label, job.fen, job.depth, job.expected, got
                        );
                        eprintln!("{message}");
                        failures.lock().expect("no panics while holding the lock").push(message);
                    }
                }
            });
        }
    });
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "perft: {} counts, {total} nodes in {secs:.2} s on {threads} threads ({:.0} Mnps)",
        jobs.len(),
        total as f64 / secs / 1e6
    );
    let failures = failures.into_inner().expect("workers finished");
    assert!(failures.is_empty(), "{} perft mismatches:\n{}", failures.len(), failures.join("\n"));
}

/// Every line must give a position and at least one count (guards against a truncated file
/// silently testing nothing).
fn parsed_files() -> Vec<(&'static str, Vec<(EpdEntry, Position)>)> {
    perft_files()
        .into_iter()
        .map(|(file, entries)| {
            let parsed = entries
                .into_iter()
                .map(|e| {
                    assert!(!e.perft_counts().is_empty(), "{file}:{}: no perft counts", e.line);
                    let pos = parse_entry(file, &e);
                    (e, pos)
                })
                .collect();
            (file, parsed)
        })
        .collect()
}

#[test]
fn perft_suites() {
    let mut jobs = Vec::new();
    let mut deep_960 = Vec::new();
    for (file, entries) in parsed_files() {
        for (entry, pos) in entries {
            let counts = entry.perft_counts();
            for &(depth, n) in counts.iter().filter(|(_, n)| *n <= QUICK_LIMIT) {
                jobs.push(job(file, &entry, pos, depth, n));
            }
            let deepest = counts.iter().filter(|(_, n)| (QUICK_LIMIT + 1..=DEEP_LIMIT).contains(n));
            if let Some(&(depth, n)) = deepest.max_by_key(|(_, n)| *n) {
                let deep = job(file, &entry, pos, depth, n);
                if file == "perft960.epd" {
                    deep_960.push(deep);
                } else {
                    jobs.push(deep);
                }
            }
        }
    }
    // A spread of deeper Chess960 counts: walk the lines with a stride that roughly fits the
    // budget, taking each count while the budget lasts.
    let candidate_nodes: u64 = deep_960.iter().map(|j| j.expected).sum();
    let stride = candidate_nodes.div_ceil(DEEP_960_BUDGET).max(1) as usize;
    let mut budget = DEEP_960_BUDGET;
    for candidate in deep_960.into_iter().step_by(stride) {
        if candidate.expected <= budget {
            budget -= candidate.expected;
            jobs.push(candidate);
        }
    }
    run_jobs(jobs);
}

#[test]
#[ignore = "minutes of perft; run with --ignored (LAZULI_PERFT_MAX sets the node limit)"]
fn perft_suites_deep() {
    let limit: u64 = std::env::var("LAZULI_PERFT_MAX")
        .ok()
        .map(|s| s.parse::<f64>().expect("LAZULI_PERFT_MAX is a number") as u64)
        .unwrap_or(1_000_000_000);
    let mut jobs = Vec::new();
    for (file, entries) in parsed_files() {
        for (entry, pos) in entries {
            for (depth, n) in entry.perft_counts().into_iter().filter(|(_, n)| *n <= limit) {
                jobs.push(job(file, &entry, pos, depth, n));
            }
        }
    }
    run_jobs(jobs);
}
