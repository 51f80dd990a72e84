//! `lazuli scaling`: the thread-scaling benchmark (see `crate::scaling` for the method).

use crate::machine::Machine;
use crate::scaling::{run, summarize, to_csv, to_json, to_table, HashSize, ScalingConfig};
use engine::bench::BENCH_POSITIONS;
use engine::board::Position;
use smp::HelperPolicy;
use std::time::Duration;

pub const USAGE: &str = "lazuli scaling [--threads 1,2,4] [--depth D] [--repeat R] [--speed-ms T]
                      [--positions N | --positions-file FILE] [--hash-per-thread MB | --hash MB]
                      [--helpers identical|skip] [--numa-policy P] [--seed S] [--csv FILE]
                      [--json FILE]";

const HELP: &str =
    "Defaults: threads 1,2,4,... up to the logical cores; depth 16; 3 repeats, each a pass over
every thread count in a shuffled order; 1000 ms per position for speed; 16 MB of hash per thread
(--hash MB: the same table for every count); 24 positions spread over the bench positions that
have at least 10 pieces (--positions-file: one FEN or EPD a line, '#' comments); helpers as
`SMP Helpers` (identical); threads placed as `NumaPolicy` (auto: bound to NUMA nodes only where
more than one is in reach and the threads outnumber one node's cores). Tables are cleared by writing before every timed search, and each
count warms up with one untimed search. --csv writes the summary, --json every measurement with
the settings and the machine. See tools/src/scaling.rs for the method.";

/// The default positions leave out endgames this small: they are solved in a few plies and
/// time nothing but the threads' start.
const MIN_PIECES: usize = 10;

/// Thread counts 1, 2, 4, ... up to the logical cores, and the core count itself.
fn default_threads() -> Vec<usize> {
    let cores = smp::available_cores();
    let mut list: Vec<usize> =
        std::iter::successors(Some(1usize), |t| Some(t * 2)).take_while(|&t| t <= cores).collect();
    if list.last() != Some(&cores) {
        list.push(cores);
    }
    list
}

fn piece_count(fen: &str) -> usize {
    fen.split_whitespace().next().unwrap_or("").bytes().filter(u8::is_ascii_alphabetic).count()
}

/// `count` positions spread over the bench positions (openings to endgames) with enough pieces.
fn default_positions(count: usize) -> Vec<String> {
    let pool: Vec<&str> =
        BENCH_POSITIONS.iter().copied().filter(|fen| piece_count(fen) >= MIN_PIECES).collect();
    let count = count.clamp(1, pool.len());
    let step = pool.len() as f64 / count as f64;
    (0..count).map(|i| pool[(i as f64 * step) as usize].to_string()).collect()
}

/// Positions from a file: one FEN a line, or an EPD line (its operations are dropped).
fn read_positions(path: &str) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut positions = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let counters = fields.len() >= 6 && fields[4..6].iter().all(|f| f.parse::<u32>().is_ok());
        let fen = if counters { fields[..6].join(" ") } else { fields[..fields.len().min(4)].join(" ") };
        Position::from_fen(&fen)
            .map_err(|e| format!("{path}:{}: not a position ({e}): {line}", number + 1))?;
        positions.push(fen);
    }
    if positions.is_empty() {
        return Err(format!("{path} holds no positions"));
    }
    Ok(positions)
}

#[derive(Debug, Default, PartialEq)]
struct Outputs {
    csv: Option<String>,
    json: Option<String>,
}

fn parse_args(args: &[String]) -> Result<(ScalingConfig, Outputs), String> {
    let mut config = ScalingConfig {
        threads: default_threads(),
        positions: Vec::new(),
        depth: 16,
        speed_time: Duration::from_millis(1000),
        hash: HashSize::PerThread(16),
        policy: HelperPolicy::default(),
        numa: smp::numa::NumaPolicy::default(),
        repeat: 3,
        seed: 1,
    };
    let mut count = 24;
    let mut file = None;
    let mut outputs = Outputs::default();
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
            "--positions" => count = number(value()?)?.max(1) as usize,
            "--positions-file" => file = Some(value()?),
            "--repeat" => config.repeat = number(value()?)?.clamp(1, 100) as usize,
            "--speed-ms" => config.speed_time = Duration::from_millis(number(value()?)?.max(10)),
            "--hash" => config.hash = HashSize::Fixed(number(value()?)?.clamp(1, 1 << 20) as usize),
            "--hash-per-thread" => {
                config.hash = HashSize::PerThread(number(value()?)?.clamp(1, 1 << 16) as usize)
            }
            "--helpers" => {
                let v = value()?;
                config.policy = v.parse().map_err(|_| format!("--helpers: '{v}' is not identical or skip"))?
            }
            "--numa-policy" => config.numa = smp::numa::NumaPolicy::parse(&value()?)?,
            "--seed" => config.seed = number(value()?)?,
            "--csv" => outputs.csv = Some(value()?),
            "--json" => outputs.json = Some(value()?),
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    config.positions = match file {
        Some(path) => read_positions(&path)?,
        None => default_positions(count),
    };
    Ok((config, outputs))
}

pub fn scaling_command(args: &[String], build: &crate::Build) -> i32 {
    let (config, outputs) = match crate::args::parse_or_exit(args, USAGE, HELP, parse_args) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let machine = Machine::detect(build);
    let hash = match config.hash {
        HashSize::Fixed(mb) => format!("{mb} MB hash for every count"),
        HashSize::PerThread(mb) => format!("{mb} MB hash per thread"),
    };
    crate::outln!(
        "Thread scaling: threads {:?}, {} repeat(s) in shuffled order, {} positions, time to depth {}, {} ms per position for speed, {hash}, helpers {}",
        config.threads,
        config.repeat,
        config.positions.len(),
        config.depth,
        config.speed_time.as_millis(),
        config.policy
    );
    let measurements = run(&config, |what| eprintln!("measuring {what}"));
    let summary = summarize(&config, &measurements);
    let huge_kb = measurements.huge_pages_kb;
    for line in machine.lines(huge_kb) {
        crate::outln!("{line}");
    }
    crate::outln!("NumaPolicy {}:", config.numa);
    for placement in measurements.placements.values() {
        crate::outln!("  {placement}");
    }
    crate::outln!("{}", to_table(&summary));
    let mut status = 0;
    let mut write = |path: &Option<String>, text: String| {
        if let Some(path) = path {
            match std::fs::write(path, text) {
                Ok(()) => crate::outln!("wrote {path}"),
                Err(e) => {
                    eprintln!("cannot write {path}: {e}");
                    status = 1;
                }
            }
        }
    };
    write(&outputs.csv, to_csv(&summary));
    let json = to_json(&config, &measurements, &summary, machine.json(huge_kb));
    write(&outputs.json, format!("{json:#}\n"));
    status
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
        assert_eq!(csv, Outputs::default());
        let (config, _) = parse_args(&[]).expect("defaults");
        assert_eq!(config.policy, HelperPolicy::Identical);
        assert_eq!(config.positions.len(), 24);
        assert!(config.positions.iter().all(|fen| piece_count(fen) >= MIN_PIECES));
        assert_eq!(config.repeat, 3);
        assert_eq!(config.hash, HashSize::PerThread(16));
        let (config, outputs) =
            parse_args(&args(&["--hash", "64", "--json", "out.json", "--seed", "9"])).expect("valid");
        assert_eq!((config.hash, config.seed), (HashSize::Fixed(64), 9));
        assert_eq!(outputs.json.as_deref(), Some("out.json"));
        for bad in [
            &["--helpers", "some"][..],
            &["--threads", "0"],
            &["--depth"],
            &["--repeat", "x"],
            &["--frobnicate"],
            &["--positions-file", "/nonexistent/positions.epd"],
        ] {
            assert!(parse_args(&args(bad)).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn position_files_take_fen_and_epd_and_name_a_bad_line() {
        let dir = std::env::temp_dir().join(format!("lazuli-scaling-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.epd");
        std::fs::write(
            &good,
            "# comment\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n\n\
             r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5; id \"x\";\n",
        )
        .unwrap();
        let positions = read_positions(good.to_str().unwrap()).expect("valid file");
        assert_eq!(positions.len(), 2);
        assert_eq!(positions[1], "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -");
        let bad = dir.join("bad.epd");
        std::fs::write(&bad, "8/8/8/8/8/8/8/8 w - - 0 1\n").unwrap();
        let error = read_positions(bad.to_str().unwrap()).unwrap_err();
        assert!(error.contains(":1:"), "{error}");
        std::fs::write(&bad, "# nothing\n").unwrap();
        assert!(read_positions(bad.to_str().unwrap()).unwrap_err().contains("no positions"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
