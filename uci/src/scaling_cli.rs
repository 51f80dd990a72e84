//! `lazuli scaling`: the thread-scaling benchmark (see `crate::scaling` for the method).

use crate::scaling::{run, summarize, to_csv, to_table, ScalingConfig};
use smp::engine::bench::BENCH_POSITIONS;
use smp::HelperPolicy;
use std::time::Duration;

pub const USAGE: &str =
    "lazuli scaling [--threads 1,2,4] [--depth D] [--positions N] [--repeat R] [--speed-ms T]\n                      [--hash MB] [--helpers identical|skip] [--csv FILE]";

/// Thread counts 1, 2, 4, ... up to the logical cores, and the core count itself.
fn default_threads() -> Vec<usize> {
    let cores = num_cpus::get().max(1);
    let mut list: Vec<usize> =
        std::iter::successors(Some(1usize), |t| Some(t * 2)).take_while(|&t| t <= cores).collect();
    if list.last() != Some(&cores) {
        list.push(cores);
    }
    list
}

fn parse_args(args: &[String]) -> Result<(ScalingConfig, Option<String>), String> {
    let mut config = ScalingConfig {
        threads: default_threads(),
        positions: Vec::new(),
        depth: 16,
        speed_time: Duration::from_millis(1000),
        hash_mb: 64,
        policy: HelperPolicy::default(),
        repeat: 1,
    };
    let mut count = 24;
    let mut csv = None;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        let number = |v: String| v.parse::<u64>().map_err(|_| format!("{flag}: '{v}' is not a number"));
        match flag.as_str() {
            "--threads" => {
                config.threads = value()?
                    .split(',')
                    .map(|t| t.trim().parse::<usize>().ok().filter(|&t| (1..=1024).contains(&t)))
                    .collect::<Option<Vec<_>>>()
                    .ok_or("--threads takes a comma-separated list of counts from 1 to 1024")?;
            }
            "--depth" => config.depth = number(value()?)?.clamp(1, 100) as i32,
            "--positions" => count = number(value()?)?.clamp(1, BENCH_POSITIONS.len() as u64) as usize,
            "--repeat" => config.repeat = number(value()?)?.clamp(1, 100) as usize,
            "--speed-ms" => config.speed_time = Duration::from_millis(number(value()?)?.max(10)),
            "--hash" => config.hash_mb = number(value()?)?.clamp(1, 1 << 20) as usize,
            "--helpers" => config.policy = value()?.parse()?,
            "--csv" => csv = Some(value()?),
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    // Spread the chosen count over the whole bench list (openings to endgames).
    let step = BENCH_POSITIONS.len() as f64 / count as f64;
    config.positions = (0..count).map(|i| BENCH_POSITIONS[(i as f64 * step) as usize].to_string()).collect();
    Ok((config, csv))
}

pub fn scaling_command(args: &[String]) -> i32 {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        crate::outln!("usage: {USAGE}\n\nDefaults: threads 1,2,4,... up to the logical cores; depth 16; 24 positions spread over\nthe bench list; 1 time-to-depth run per position and thread count; 1000 ms per position for\nspeed; 64 MB hash; helpers as `SMP Helpers` (identical). See uci/src/scaling.rs for the method.");
        return 0;
    }
    let (config, csv) = match parse_args(args) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{e}\nusage: {USAGE}");
            return 2;
        }
    };
    crate::outln!(
        "Thread scaling: {} positions, time to depth {} ({} run(s) each), {} ms per position for speed, {} MB hash, helpers {}",
        config.positions.len(),
        config.depth,
        config.repeat,
        config.speed_time.as_millis(),
        config.hash_mb,
        config.policy
    );
    let rows = run(&config, |what| eprintln!("measuring {what}"));
    let summary = summarize(&rows);
    crate::outln!("{}", to_table(&summary));
    if let Some(path) = csv {
        if let Err(e) = std::fs::write(&path, to_csv(&summary)) {
            eprintln!("cannot write {path}: {e}");
            return 1;
        }
        crate::outln!("wrote {path}");
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_are_parsed_and_checked() {
        let (config, csv) = parse_args(&args(&[
            "--threads",
            "1,3",
            "--depth",
            "9",
            "--positions",
            "4",
            "--helpers",
            "skip",
            "--repeat",
            "3",
        ]))
        .expect("valid arguments");
        assert_eq!(config.repeat, 3);
        assert_eq!(config.threads, vec![1, 3]);
        assert_eq!(config.depth, 9);
        assert_eq!(config.positions.len(), 4);
        assert_eq!(config.policy, HelperPolicy::DepthSkip);
        assert_eq!(csv, None);
        let (config, _) = parse_args(&[]).expect("defaults");
        assert_eq!(config.policy, HelperPolicy::Identical);
        assert_eq!(config.positions.len(), 24);
        assert_eq!(config.repeat, 1);
        for bad in [
            &["--helpers", "some"][..],
            &["--threads", "0"],
            &["--depth"],
            &["--repeat", "x"],
            &["--frobnicate"],
        ] {
            assert!(parse_args(&args(bad)).is_err(), "{bad:?} accepted");
        }
    }
}
