//! The thread-scaling benchmark behind `lazuli scaling`.
//!
//! For each thread count, over a fixed set of positions (each searched from a cleared table and
//! cleared histories):
//! - speed: every position is searched for a fixed time; NPS is all nodes over all time;
//! - time to depth: every position is searched to a fixed depth of the main thread; the
//!   speedup of N threads is the median over positions of `time(1 thread) / time(N threads)`;
//! - node overhead: nodes needed to reach that depth with N threads over nodes with 1 thread
//!   (summed over positions).
//!
//! Time to depth understates Lazy SMP: extra threads also widen the search (they find better
//! moves at the same depth), which only games measure.

use crate::Pool;
use engine::board::{Board, Position};
use engine::search::{HelperPolicy, Limits, SearchResult, SilentReporter};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct ScalingConfig {
    pub threads: Vec<usize>,
    pub positions: Vec<String>,
    pub depth: i32,
    pub speed_time: Duration,
    pub hash_mb: usize,
    /// How helper threads differ from the main thread (the `SMP Helpers` option).
    pub policy: HelperPolicy,
}

/// Measurements of one thread count.
#[derive(Clone, Debug)]
pub struct ScalingRow {
    pub threads: usize,
    pub nps: f64,
    /// Per position: (time to depth, nodes to depth).
    pub to_depth: Vec<(Duration, u64)>,
}

/// Results relative to the first row (normally one thread).
#[derive(Clone, Debug)]
pub struct ScalingSummary {
    pub threads: usize,
    pub nps: f64,
    pub nps_speedup: f64,
    pub ttd_speedup_median: f64,
    pub node_overhead: f64,
    pub ttd_total: Duration,
}

fn search(
    pool: &mut Pool,
    fen: &str,
    limits: Limits,
    infinite: bool,
    stop_after: Option<Duration>,
) -> SearchResult {
    let pos = Position::from_fen(fen).expect("scaling positions are valid");
    let (tx, rx) = channel();
    let on_done = Box::new(move |r: SearchResult| {
        let _ = tx.send(r);
    });
    pool.go(Board::new(pos), limits, false, infinite, Box::new(SilentReporter), on_done);
    if let Some(t) = stop_after {
        std::thread::sleep(t);
        pool.stop();
    }
    let result = rx.recv().expect("the search reports a result");
    pool.wait();
    result
}

/// Run the benchmark; `progress` is told what is being measured.
pub fn run(config: &ScalingConfig, mut progress: impl FnMut(&str)) -> Vec<ScalingRow> {
    let mut rows = Vec::new();
    for &threads in &config.threads {
        let mut pool = Pool::new(threads, config.hash_mb);
        pool.set_policy(config.policy);
        progress(&format!("{threads} thread(s): speed"));
        let mut nodes = 0;
        let mut time = Duration::ZERO;
        for fen in &config.positions {
            pool.clear();
            let start = Instant::now();
            search(&mut pool, fen, Limits::default(), true, Some(config.speed_time));
            time += start.elapsed();
            nodes += pool.nodes();
        }
        progress(&format!("{threads} thread(s): time to depth {}", config.depth));
        let mut to_depth = Vec::new();
        for fen in &config.positions {
            pool.clear();
            let start = Instant::now();
            search(&mut pool, fen, Limits::depth(config.depth), false, None);
            to_depth.push((start.elapsed(), pool.nodes()));
        }
        rows.push(ScalingRow { threads, nps: nodes as f64 / time.as_secs_f64().max(1e-9), to_depth });
    }
    rows
}

fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(|a, b| a.total_cmp(b));
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

pub fn summarize(rows: &[ScalingRow]) -> Vec<ScalingSummary> {
    let Some(base) = rows.first() else { return Vec::new() };
    let base_nodes: u64 = base.to_depth.iter().map(|(_, n)| n).sum();
    rows.iter()
        .map(|row| {
            let ratios = base
                .to_depth
                .iter()
                .zip(&row.to_depth)
                .map(|((t1, _), (tn, _))| t1.as_secs_f64() / tn.as_secs_f64().max(1e-9))
                .collect();
            let nodes: u64 = row.to_depth.iter().map(|(_, n)| n).sum();
            ScalingSummary {
                threads: row.threads,
                nps: row.nps,
                nps_speedup: row.nps / base.nps.max(1e-9),
                ttd_speedup_median: median(ratios),
                node_overhead: nodes as f64 / base_nodes.max(1) as f64,
                ttd_total: row.to_depth.iter().map(|(t, _)| *t).sum(),
            }
        })
        .collect()
}

/// The summary as CSV (header line included).
pub fn to_csv(summary: &[ScalingSummary]) -> String {
    let mut out = String::from("threads,nps,nps_speedup,ttd_speedup_median,node_overhead,ttd_total_ms\n");
    for s in summary {
        out.push_str(&format!(
            "{},{:.0},{:.3},{:.3},{:.3},{}\n",
            s.threads,
            s.nps,
            s.nps_speedup,
            s.ttd_speedup_median,
            s.node_overhead,
            s.ttd_total.as_millis()
        ));
    }
    out
}

/// The summary as an aligned table for people.
pub fn to_table(summary: &[ScalingSummary]) -> String {
    let mut out = String::from(
        "threads          nps   nps speedup   ttd speedup (median)   node overhead   ttd total\n",
    );
    for s in summary {
        out.push_str(&format!(
            "{:>7} {:>12.0} {:>13.2} {:>22.2} {:>15.2} {:>9.1}s\n",
            s.threads,
            s.nps,
            s.nps_speedup,
            s.ttd_speedup_median,
            s.node_overhead,
            s.ttd_total.as_secs_f64()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_is_relative_to_the_first_row() {
        let ms = Duration::from_millis;
        let rows = vec![
            ScalingRow {
                threads: 1,
                nps: 100.0,
                to_depth: vec![(ms(100), 1000), (ms(300), 3000), (ms(50), 500)],
            },
            ScalingRow {
                threads: 2,
                nps: 190.0,
                to_depth: vec![(ms(50), 1200), (ms(200), 3300), (ms(50), 500)],
            },
        ];
        let s = summarize(&rows);
        assert_eq!(s[0].nps_speedup, 1.0);
        assert!((s[1].nps_speedup - 1.9).abs() < 1e-9);
        assert!((s[1].ttd_speedup_median - 1.5).abs() < 1e-9);
        assert!((s[1].node_overhead - 5000.0 / 4500.0).abs() < 1e-9);
        assert!(to_csv(&s).lines().count() == 3);
    }
}
