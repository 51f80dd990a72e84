//! The thread-scaling benchmark behind `lazuli scaling`.
//!
//! Every measurement is repeated: each repeat is one pass over all thread counts, in an order
//! shuffled anew for every repeat (so that no count always runs first, on a cold machine, or
//! last, on a hot one). For each thread count, with a fresh pool whose hash is sized for it
//! (per thread by default, as testers give an N-CPU engine N times the hash):
//! - warm-up: the table is cleared by writing it (its pages are in memory before anything is
//!   timed, and again before every timed search), and one untimed search starts the threads;
//! - speed: every position is searched for a fixed time from a cleared table and histories;
//!   a repeat's nodes per second are all its nodes over all its time;
//! - time to depth: every position is searched to a fixed depth of the main thread.
//!
//! The summary compares each count with the first of the list (normally one thread):
//! - nodes per second and their speedup, with a t-interval over the repeats;
//! - time to depth: per position the mean time over the repeats; the speedup is the median over
//!   positions of `time(first) / time(N)`, and the geometric mean of those ratios with a
//!   t-interval over positions; the range of the per-repeat geometric means shows how far one
//!   run alone could land from another;
//! - node overhead: nodes to reach the depth over the first count's nodes (summed);
//! - hashfull (permille) at the end of the speed searches, to show whether the table filled.
//!
//! Time to depth understates Lazy SMP: extra threads also widen the search (they find better
//! moves at the same depth), which only games measure.

use crate::stats::{geometric_mean, median, t_interval, Interval};
use engine::board::{Board, Position};
use engine::search::{Limits, SearchResult, SilentReporter};
use serde_json::{json, Value};

use smp::{Engine, HelperPolicy};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};
use support::rng::Rng;

/// The table's size for a thread count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashSize {
    Fixed(usize),
    PerThread(usize),
}

impl HashSize {
    pub fn mb(self, threads: usize) -> usize {
        match self {
            HashSize::Fixed(mb) => mb,
            HashSize::PerThread(mb) => mb.saturating_mul(threads),
        }
    }
}

#[derive(Clone, Debug)]
pub struct ScalingConfig {
    pub threads: Vec<usize>,
    pub positions: Vec<String>,
    pub depth: i32,
    pub speed_time: Duration,
    pub hash: HashSize,
    /// How helper threads differ from the main thread (the `SMP Helpers` option).
    pub policy: HelperPolicy,
    /// Where the threads run (the `NumaPolicy` option).
    pub numa: smp::numa::NumaPolicy,
    /// Passes over all thread counts (at least 1).
    pub repeat: usize,
    /// Seed of the thread counts' order in each pass.
    pub seed: u64,
}

/// One timed search.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub repeat: usize,
    pub threads: usize,
    /// Index into the configuration's positions.
    pub position: usize,
    pub time: Duration,
    pub nodes: u64,
    /// Permille of the table written by this search.
    pub hashfull: usize,
}

/// Every timed search of a benchmark.
#[derive(Clone, Debug, Default)]
pub struct Measurements {
    pub speed: Vec<Run>,
    pub depth: Vec<Run>,
    /// The thread counts in the order each repeat measured them.
    pub orders: Vec<Vec<usize>>,
    /// The most memory of this process seen on huge pages (kB), read while a table was in use.
    pub huge_pages_kb: Option<u64>,
    /// Where each thread count's threads ran (the pool's placement line), by thread count.
    pub placements: std::collections::BTreeMap<usize, String>,
}

/// Results of one thread count, relative to the first of the list.
#[derive(Clone, Debug)]
pub struct ScalingSummary {
    pub threads: usize,
    pub hash_mb: usize,
    /// Nodes per second over the repeats.
    pub nps: Interval,
    pub nps_speedup: Interval,
    pub ttd_speedup_median: f64,
    /// Geometric mean of the per-position speedups, with its interval over positions.
    pub ttd_speedup: Interval,
    /// The lowest and highest per-repeat geometric mean.
    pub ttd_repeat_range: (f64, f64),
    pub node_overhead: f64,
    /// Mean hashfull (permille) at the end of the speed searches.
    pub hashfull: f64,
    /// Time to depth summed over positions, the mean of the repeats.
    pub ttd_total: Duration,
}

/// A position's search on `pool`; with `stop_after`, stopped after that long.
pub fn search(
    engine: &mut Engine,
    board: Board,
    limits: Limits,
    stop_after: Option<Duration>,
) -> SearchResult {
    let (tx, rx) = channel();
    let on_done = Box::new(move |r: SearchResult, _: &smp::Ended| {
        let _ = tx.send(r);
    });
    let mode = if stop_after.is_some() { smp::Mode::Infinite } else { smp::Mode::Normal };
    engine.go(board, limits, mode, Box::new(SilentReporter), on_done);
    if let Some(t) = stop_after {
        std::thread::sleep(t);
        engine.pool().stop();
    }
    let result = rx.recv().expect("the search reports a result");
    engine.pool().wait();
    result
}

fn board(fen: &str) -> Board {
    Board::new(Position::from_fen(fen).expect("scaling positions are checked when read"))
}

/// A new game: cleared histories and a table cleared by writing, so no page is faulted in
/// during the timed search that follows.
fn fresh(engine: &mut Engine) {
    engine.clear_for_benchmark();
}

/// The thread counts in the order of each repeat: a seeded shuffle.
pub fn thread_orders(threads: &[usize], repeats: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut rng = Rng::new(seed);
    (0..repeats.max(1))
        .map(|_| {
            let mut order = threads.to_vec();
            rng.shuffle(&mut order);
            order
        })
        .collect()
}

/// Run the benchmark; `progress` is told what is being measured.
pub fn run(config: &ScalingConfig, mut progress: impl FnMut(&str)) -> Measurements {
    let mut out = Measurements {
        orders: thread_orders(&config.threads, config.repeat, config.seed),
        ..Default::default()
    };
    for (repeat, order) in out.orders.clone().iter().enumerate() {
        for &threads in order {
            let mut engine = Engine::new(threads, config.hash.mb(threads));
            engine.set_helper_policy(config.policy);
            let placement = match engine.set_numa_policy(config.numa.clone()) {
                Ok(()) => engine.pool().placement().describe(),
                Err(smp::ThreadsRefusal::Policy(why)) => why,
                Err(_) => "the system refused a thread".to_string(),
            };
            out.placements.insert(threads, placement);
            progress(&format!(
                "repeat {}/{}, {threads} thread(s): warm-up and speed",
                repeat + 1,
                out.orders.len()
            ));
            fresh(&mut engine);
            search(&mut engine, board(&config.positions[0]), Limits::default(), Some(config.speed_time));
            for (position, fen) in config.positions.iter().enumerate() {
                fresh(&mut engine);
                let start = Instant::now();
                search(&mut engine, board(fen), Limits::default(), Some(config.speed_time));
                let time = start.elapsed();
                let (nodes, hashfull) = (engine.pool().nodes(), engine.tt().hashfull());
                out.speed.push(Run { repeat, threads, position, time, nodes, hashfull });
            }
            out.huge_pages_kb = out.huge_pages_kb.max(crate::machine::resident_huge_kb());
            progress(&format!(
                "repeat {}/{}, {threads} thread(s): time to depth {}",
                repeat + 1,
                out.orders.len(),
                config.depth
            ));
            for (position, fen) in config.positions.iter().enumerate() {
                fresh(&mut engine);
                let start = Instant::now();
                search(&mut engine, board(fen), Limits::depth(config.depth), None);
                let time = start.elapsed();
                let (nodes, hashfull) = (engine.pool().nodes(), engine.tt().hashfull());
                out.depth.push(Run { repeat, threads, position, time, nodes, hashfull });
            }
        }
    }
    out
}

/// Nodes per second of each repeat for one thread count.
fn nps_by_repeat(runs: &[Run], threads: usize, repeats: usize) -> Vec<f64> {
    (0..repeats)
        .map(|r| {
            let mine = runs.iter().filter(|run| run.threads == threads && run.repeat == r);
            let (nodes, secs) =
                mine.fold((0u64, 0f64), |(n, s), run| (n + run.nodes, s + run.time.as_secs_f64()));
            nodes as f64 / secs.max(1e-9)
        })
        .collect()
}

/// Per position, the time to depth (seconds) of one thread count in one repeat, or the mean
/// over all repeats (`repeat` None).
fn ttd_by_position(runs: &[Run], threads: usize, repeat: Option<usize>, positions: usize) -> Vec<f64> {
    (0..positions)
        .map(|p| {
            let times: Vec<f64> = runs
                .iter()
                .filter(|run| {
                    run.threads == threads && run.position == p && repeat.is_none_or(|r| run.repeat == r)
                })
                .map(|run| run.time.as_secs_f64())
                .collect();
            crate::stats::mean(&times)
        })
        .collect()
}

fn ratios(base: &[f64], other: &[f64]) -> Vec<f64> {
    base.iter().zip(other).map(|(b, o)| b / o.max(1e-9)).collect()
}

pub fn summarize(config: &ScalingConfig, m: &Measurements) -> Vec<ScalingSummary> {
    let Some(&base) = config.threads.first() else { return Vec::new() };
    let repeats = m.orders.len();
    let positions = config.positions.len();
    let nodes_to_depth = |threads: usize| {
        m.depth.iter().filter(|run| run.threads == threads).map(|run| run.nodes).sum::<u64>()
    };
    let base_nps = nps_by_repeat(&m.speed, base, repeats);
    let base_ttd = ttd_by_position(&m.depth, base, None, positions);
    config
        .threads
        .iter()
        .map(|&threads| {
            let nps = nps_by_repeat(&m.speed, threads, repeats);
            let ttd = ttd_by_position(&m.depth, threads, None, positions);
            let per_position = ratios(&base_ttd, &ttd);
            let per_repeat: Vec<f64> = (0..repeats)
                .map(|r| {
                    let base_r = ttd_by_position(&m.depth, base, Some(r), positions);
                    geometric_mean(&ratios(&base_r, &ttd_by_position(&m.depth, threads, Some(r), positions)))
                        .mean
                })
                .collect();
            let hashfulls: Vec<f64> =
                m.speed.iter().filter(|run| run.threads == threads).map(|run| run.hashfull as f64).collect();
            ScalingSummary {
                threads,
                hash_mb: config.hash.mb(threads),
                nps: t_interval(&nps),
                nps_speedup: t_interval(&ratios(&nps, &base_nps)),
                ttd_speedup_median: median(&per_position),
                ttd_speedup: geometric_mean(&per_position),
                ttd_repeat_range: (
                    per_repeat.iter().copied().fold(f64::INFINITY, f64::min),
                    per_repeat.iter().copied().fold(0.0, f64::max),
                ),
                node_overhead: nodes_to_depth(threads) as f64 / nodes_to_depth(base).max(1) as f64,
                hashfull: crate::stats::mean(&hashfulls),
                ttd_total: Duration::from_secs_f64(ttd.iter().sum()),
            }
        })
        .collect()
}

/// The summary as CSV (header line included); `scripts/plot_scaling.py` reads it.
pub fn to_csv(summary: &[ScalingSummary]) -> String {
    let mut out = String::from(
        "threads,nps,nps_speedup,ttd_speedup_median,node_overhead,ttd_total_ms,\
         ttd_speedup_geomean,ttd_ci95_low,ttd_ci95_high,nps_ci95_low,nps_ci95_high,\
         nps_speedup_ci95_low,nps_speedup_ci95_high,ttd_repeat_min,ttd_repeat_max,hash_mb,hashfull\n",
    );
    for s in summary {
        out.push_str(&format!(
            "{},{:.0},{:.3},{:.3},{:.3},{},{:.3},{:.3},{:.3},{:.0},{:.0},{:.3},{:.3},{:.3},{:.3},{},{:.0}\n",
            s.threads,
            s.nps.mean,
            s.nps_speedup.mean,
            s.ttd_speedup_median,
            s.node_overhead,
            s.ttd_total.as_millis(),
            s.ttd_speedup.mean,
            s.ttd_speedup.low,
            s.ttd_speedup.high,
            s.nps.low,
            s.nps.high,
            s.nps_speedup.low,
            s.nps_speedup.high,
            s.ttd_repeat_range.0,
            s.ttd_repeat_range.1,
            s.hash_mb,
            s.hashfull,
        ));
    }
    out
}

/// The summary as an aligned table for people.
pub fn to_table(summary: &[ScalingSummary]) -> String {
    let mut out = String::from(
        "threads  hash MB  hashfull            nps [95%]          nps speedup [95%]   ttd speedup: median  geomean [95%]       repeats   node overhead\n",
    );
    for s in summary {
        out.push_str(&format!(
            "{:>7} {:>8} {:>9} {:>22} {:>26} {:>21.2}  {:<19} {:<9} {:>13.2}\n",
            s.threads,
            s.hash_mb,
            format!("{:.0}", s.hashfull),
            format!("{:.0} [{:.0}, {:.0}]", s.nps.mean, s.nps.low, s.nps.high),
            format!("{:.2} [{:.2}, {:.2}]", s.nps_speedup.mean, s.nps_speedup.low, s.nps_speedup.high),
            s.ttd_speedup_median,
            format!("{:.2} [{:.2}, {:.2}]", s.ttd_speedup.mean, s.ttd_speedup.low, s.ttd_speedup.high),
            format!("{:.2}-{:.2}", s.ttd_repeat_range.0, s.ttd_repeat_range.1),
            s.node_overhead,
        ));
    }
    out
}

fn runs_json(runs: &[Run]) -> Value {
    Value::Array(
        runs.iter()
            .map(|r| {
                json!({"repeat": r.repeat, "threads": r.threads, "position": r.position,
                       "time_ms": r.time.as_secs_f64() * 1000.0, "nodes": r.nodes, "hashfull": r.hashfull})
            })
            .collect(),
    )
}

fn interval_json(i: Interval) -> Value {
    json!({"mean": i.mean, "ci95": [i.low, i.high]})
}

/// Everything measured, with the settings and the machine, for `--json`.
pub fn to_json(
    config: &ScalingConfig,
    m: &Measurements,
    summary: &[ScalingSummary],
    machine: Value,
) -> Value {
    let (hash_mode, hash_mb) = match config.hash {
        HashSize::Fixed(mb) => ("fixed", mb),
        HashSize::PerThread(mb) => ("per_thread", mb),
    };
    json!({
        "benchmark": "lazuli scaling",
        "machine": machine,
        "settings": {
            "threads": config.threads,
            "depth": config.depth,
            "speed_ms": config.speed_time.as_millis() as u64,
            "hash": {"mode": hash_mode, "mb": hash_mb},
            "helpers": config.policy.to_string(),
            "numa_policy": config.numa.to_string(),
            "repeats": m.orders.len(),
            "seed": config.seed,
        },
        "positions": config.positions,
        "orders": m.orders,
        "placements": m.placements.iter().map(|(t, p)| (t.to_string(), json!(p))).collect::<serde_json::Map<_, _>>(),
        "speed": runs_json(&m.speed),
        "time_to_depth": runs_json(&m.depth),
        "summary": summary.iter().map(|s| json!({
            "threads": s.threads,
            "hash_mb": s.hash_mb,
            "hashfull": s.hashfull,
            "nps": interval_json(s.nps),
            "nps_speedup": interval_json(s.nps_speedup),
            "ttd_speedup_median": s.ttd_speedup_median,
            "ttd_speedup_geomean": interval_json(s.ttd_speedup),
            "ttd_speedup_repeat_range": [s.ttd_repeat_range.0, s.ttd_repeat_range.1],
            "node_overhead": s.node_overhead,
            "ttd_total_ms": s.ttd_total.as_secs_f64() * 1000.0,
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(repeat: usize, threads: usize, position: usize, ms: u64, nodes: u64) -> Run {
        Run { repeat, threads, position, time: Duration::from_millis(ms), nodes, hashfull: 10 * threads }
    }

    fn config(threads: Vec<usize>, positions: usize) -> ScalingConfig {
        ScalingConfig {
            threads,
            positions: vec![String::new(); positions],
            depth: 10,
            speed_time: Duration::from_millis(100),
            hash: HashSize::PerThread(16),
            policy: HelperPolicy::default(),
            numa: Default::default(),
            repeat: 2,
            seed: 1,
        }
    }

    #[test]
    fn summary_is_relative_to_the_first_count_and_averages_repeats() {
        let config = config(vec![1, 2], 3);
        let m = Measurements {
            orders: vec![vec![2, 1], vec![1, 2]],
            speed: vec![
                run(0, 1, 0, 1000, 1000),
                run(1, 1, 0, 1000, 1200),
                run(0, 2, 0, 1000, 1900),
                run(1, 2, 0, 1000, 2400),
            ],
            depth: vec![
                // One thread: 100, 300, 50 ms in both repeats.
                run(0, 1, 0, 100, 1000),
                run(0, 1, 1, 300, 3000),
                run(0, 1, 2, 50, 500),
                run(1, 1, 0, 100, 1000),
                run(1, 1, 1, 300, 3000),
                run(1, 1, 2, 50, 500),
                // Two threads: 50, 200, 50 in the first repeat, 50, 200, 50 in the second.
                run(0, 2, 0, 50, 1200),
                run(0, 2, 1, 200, 3300),
                run(0, 2, 2, 50, 500),
                run(1, 2, 0, 50, 1200),
                run(1, 2, 1, 200, 3300),
                run(1, 2, 2, 50, 500),
            ],
            huge_pages_kb: None,
            placements: Default::default(),
        };
        let s = summarize(&config, &m);
        assert_eq!((s[0].hash_mb, s[1].hash_mb), (16, 32));
        assert!((s[0].nps.mean - 1100.0).abs() < 1e-9);
        assert!(s[0].nps.low < 1100.0 && s[0].nps.high > 1100.0, "two repeats that differ give an interval");
        // Per-repeat speedups 1.9 and 2.0.
        assert!((s[1].nps_speedup.mean - 1.95).abs() < 1e-9);
        assert_eq!(s[0].nps_speedup.mean, 1.0);
        assert!((s[1].ttd_speedup_median - 1.5).abs() < 1e-9);
        assert!((s[1].node_overhead - 5000.0 / 4500.0).abs() < 1e-9);
        // Ratios 2, 1.5, 1: geometric mean of 3^(1/3), the same in both repeats.
        assert!((s[1].ttd_speedup.mean - 3f64.powf(1.0 / 3.0)).abs() < 1e-9);
        assert!((s[1].ttd_repeat_range.0 - s[1].ttd_repeat_range.1).abs() < 1e-9);
        assert_eq!((s[0].hashfull, s[1].hashfull), (10.0, 20.0));
        let csv = to_csv(&s);
        assert_eq!(csv.lines().count(), 3);
        let width = csv.lines().next().unwrap().split(',').count();
        assert!(csv.lines().all(|line| line.split(',').count() == width));
        let json = to_json(&config, &m, &s, json!({}));
        assert_eq!(m.huge_pages_kb, None);
        assert_eq!(json["speed"].as_array().unwrap().len(), 4);
        assert_eq!(json["time_to_depth"].as_array().unwrap().len(), 12);
        assert_eq!(json["settings"]["hash"]["mode"], "per_thread");
        assert!(to_table(&s).lines().count() == 3);
    }

    #[test]
    fn every_repeat_measures_every_count_in_a_shuffled_order() {
        let counts = [1, 2, 4, 8, 16];
        let orders = thread_orders(&counts, 6, 7);
        assert_eq!(orders.len(), 6);
        for order in &orders {
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, counts);
        }
        assert!(orders.iter().any(|o| o.as_slice() != counts), "never shuffled");
        assert!(orders.windows(2).any(|w| w[0] != w[1]), "the same order every repeat");
        assert_eq!(orders, thread_orders(&counts, 6, 7), "the order depends on the seed alone");
    }

    #[test]
    fn hash_grows_with_threads_unless_fixed() {
        assert_eq!(HashSize::PerThread(16).mb(8), 128);
        assert_eq!(HashSize::Fixed(64).mb(8), 64);
    }
}
