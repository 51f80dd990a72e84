//! The thread-scaling benchmark behind `lazuli scaling`.
//!
//! For each thread count, over a fixed set of positions (each searched from a cleared table and
//! cleared histories):
//! - speed: every position is searched for a fixed time; NPS is all nodes over all time;
//! - time to depth: every position is searched to a fixed depth of the main thread, `repeat`
//!   times (each from a cleared table; a position's time and nodes are the means of its runs,
//!   since several threads never search the same tree twice); the speedup of N threads is
//!   reported as the median over positions of `time(1 thread) / time(N threads)`, and as the
//!   geometric mean of those ratios with a 95% interval (normal approximation on the logarithms,
//!   `exp(mean ± 1.96 sd / sqrt(n))`), so a reader sees how far another run could move it;
//! - node overhead: nodes needed to reach that depth with N threads over nodes with 1 thread
//!   (summed over positions).
//!
//! Time to depth understates Lazy SMP: extra threads also widen the search (they find better
//! moves at the same depth), which only games measure.

use engine::board::{Board, Position};
use engine::search::{Limits, SearchResult, SilentReporter};
use smp::engine;
use smp::{HelperPolicy, Pool};
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
    /// Time-to-depth runs per position and thread count (at least 1).
    pub repeat: usize,
}

/// Measurements of one thread count.
#[derive(Clone, Debug)]
pub struct ScalingRow {
    pub threads: usize,
    pub nps: f64,
    /// Per position: (time to depth, nodes to depth), the means over the repeated runs.
    pub to_depth: Vec<(Duration, u64)>,
}

/// Results relative to the first row (normally one thread).
#[derive(Clone, Debug)]
pub struct ScalingSummary {
    pub threads: usize,
    pub nps: f64,
    pub nps_speedup: f64,
    pub ttd_speedup_median: f64,
    /// Geometric mean of the per-position speedups, and its 95% interval.
    pub ttd_speedup_geomean: f64,
    pub ttd_ci95: (f64, f64),
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
    let on_done = Box::new(move |r: SearchResult, _: &smp::Ended| {
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
            pool.clear(false);
            let start = Instant::now();
            search(&mut pool, fen, Limits::default(), true, Some(config.speed_time));
            time += start.elapsed();
            nodes += pool.nodes();
        }
        progress(&format!("{threads} thread(s): time to depth {}", config.depth));
        let mut to_depth = Vec::new();
        let repeat = config.repeat.max(1);
        for fen in &config.positions {
            let (mut time, mut nodes) = (Duration::ZERO, 0);
            for _ in 0..repeat {
                pool.clear(false);
                let start = Instant::now();
                search(&mut pool, fen, Limits::depth(config.depth), false, None);
                time += start.elapsed();
                nodes += pool.nodes();
            }
            to_depth.push((time / repeat as u32, nodes / repeat as u64));
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

/// Geometric mean of `ratios` and its 95% interval (normal approximation on the logarithms;
/// a single ratio has no spread to estimate, so its interval is the value itself).
fn geometric_mean_ci(ratios: &[f64]) -> (f64, (f64, f64)) {
    let logs: Vec<f64> = ratios.iter().filter(|r| **r > 0.0).map(|r| r.ln()).collect();
    if logs.is_empty() {
        return (0.0, (0.0, 0.0));
    }
    let n = logs.len() as f64;
    let mean = logs.iter().sum::<f64>() / n;
    let half_width = if logs.len() > 1 {
        let variance = logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1.0);
        1.96 * (variance / n).sqrt()
    } else {
        0.0
    };
    (mean.exp(), ((mean - half_width).exp(), (mean + half_width).exp()))
}

pub fn summarize(rows: &[ScalingRow]) -> Vec<ScalingSummary> {
    let Some(base) = rows.first() else { return Vec::new() };
    let base_nodes: u64 = base.to_depth.iter().map(|(_, n)| n).sum();
    rows.iter()
        .map(|row| {
            let ratios: Vec<f64> = base
                .to_depth
                .iter()
                .zip(&row.to_depth)
                .map(|((t1, _), (tn, _))| t1.as_secs_f64() / tn.as_secs_f64().max(1e-9))
                .collect();
            let (geomean, ci) = geometric_mean_ci(&ratios);
            let nodes: u64 = row.to_depth.iter().map(|(_, n)| n).sum();
            ScalingSummary {
                threads: row.threads,
                nps: row.nps,
                nps_speedup: row.nps / base.nps.max(1e-9),
                ttd_speedup_median: median(ratios),
                ttd_speedup_geomean: geomean,
                ttd_ci95: ci,
                node_overhead: nodes as f64 / base_nodes.max(1) as f64,
                ttd_total: row.to_depth.iter().map(|(t, _)| *t).sum(),
            }
        })
        .collect()
}

/// The summary as CSV (header line included).
pub fn to_csv(summary: &[ScalingSummary]) -> String {
    let mut out = String::from(
        "threads,nps,nps_speedup,ttd_speedup_median,node_overhead,ttd_total_ms,\
         ttd_speedup_geomean,ttd_ci95_low,ttd_ci95_high\n",
    );
    for s in summary {
        out.push_str(&format!(
            "{},{:.0},{:.3},{:.3},{:.3},{},{:.3},{:.3},{:.3}\n",
            s.threads,
            s.nps,
            s.nps_speedup,
            s.ttd_speedup_median,
            s.node_overhead,
            s.ttd_total.as_millis(),
            s.ttd_speedup_geomean,
            s.ttd_ci95.0,
            s.ttd_ci95.1
        ));
    }
    out
}

/// The summary as an aligned table for people.
pub fn to_table(summary: &[ScalingSummary]) -> String {
    let mut out = String::from(
        "threads          nps   nps speedup   ttd speedup: median   geomean [95% interval]   node overhead   ttd total\n",
    );
    for s in summary {
        let interval = format!("{:.2} [{:.2}, {:.2}]", s.ttd_speedup_geomean, s.ttd_ci95.0, s.ttd_ci95.1);
        out.push_str(&format!(
            "{:>7} {:>12.0} {:>13.2} {:>21.2} {:>24} {:>15.2} {:>9.1}s\n",
            s.threads,
            s.nps,
            s.nps_speedup,
            s.ttd_speedup_median,
            interval,
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
        // Ratios 2, 1.5, 1: geometric mean of 3^(1/3); one thread against itself is exactly 1.
        assert!((s[1].ttd_speedup_geomean - 3f64.powf(1.0 / 3.0)).abs() < 1e-9);
        assert!(s[1].ttd_ci95.0 < s[1].ttd_speedup_geomean && s[1].ttd_speedup_geomean < s[1].ttd_ci95.1);
        assert_eq!(s[0].ttd_ci95, (1.0, 1.0));
        let csv = to_csv(&s);
        assert_eq!(csv.lines().count(), 3);
        assert!(csv.lines().all(|line| line.split(',').count() == 9));
    }

    #[test]
    fn the_interval_narrows_with_more_positions() {
        let spread = [1.0, 1.2, 1.5, 1.1, 1.4, 1.3];
        let (_, few) = geometric_mean_ci(&spread);
        let many: Vec<f64> = spread.iter().cycle().take(60).copied().collect();
        let (mean, narrow) = geometric_mean_ci(&many);
        assert!(narrow.1 - narrow.0 < (few.1 - few.0) / 2.0);
        assert!(narrow.0 < mean && mean < narrow.1);
        let (one, (low, high)) = geometric_mean_ci(&[1.7]);
        assert!((one - 1.7).abs() < 1e-12 && low == one && high == one);
    }
}
