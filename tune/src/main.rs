//! `lazuli-tune`: Texel tuning of the evaluation from `lazuli datagen inspect --text` output.
//!
//! ```text
//! lazuli-tune --data FILE [--data FILE ...] [--limit N] [--rounds N] [--epochs N] [--rate R]
//!             [--lambda L] [--start default|hand-set] [--threads N] [--output PATH]
//! ```
//!
//! Writes the tuned set to `--output` (default `engine/src/eval/tuned.rs`) as Rust source the
//! engine compiles. With `--rounds 0` it writes the starting set unchanged.
#![forbid(unsafe_code)]

use engine::eval::Params;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use tune::dataset;
use tune::tuner::{tune, Settings};
use tune::writeback;

struct Config {
    data: Vec<PathBuf>,
    limit: usize,
    rounds: usize,
    epochs: usize,
    rate: f64,
    lambda: f64,
    hand_set: bool,
    threads: usize,
    output: PathBuf,
    l2: f64,
    min_positions: usize,
}

const USAGE: &str = "usage: lazuli-tune --data FILE [--data FILE ...] [--limit N] [--rounds N] [--epochs N] \
[--rate R] [--lambda L] [--l2 X] [--min-positions N] [--start default|hand-set] [--threads N] [--output PATH]";

/// What the command line asks for.
enum Request {
    Tune(Config),
    Help,
}

fn parse_args() -> Result<Request, String> {
    let mut config = Config {
        data: Vec::new(),
        limit: usize::MAX,
        rounds: 3,
        epochs: 400,
        rate: 1.0,
        lambda: 0.5,
        hand_set: false,
        threads: 0,
        output: PathBuf::from("engine/src/eval/tuned.rs"),
        l2: 5e-9,
        min_positions: 500,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if flag == "--help" || flag == "-h" {
            return Ok(Request::Help);
        }
        let value = it.next().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        let bad = || format!("bad value for {flag}: {value}\n{USAGE}");
        match flag.as_str() {
            "--data" => config.data.push(PathBuf::from(value)),
            "--limit" => config.limit = value.parse().map_err(|_| bad())?,
            "--rounds" => config.rounds = value.parse().map_err(|_| bad())?,
            "--epochs" => config.epochs = value.parse().map_err(|_| bad())?,
            "--rate" => config.rate = value.parse().ok().filter(|r: &f64| *r > 0.0).ok_or_else(bad)?,
            "--lambda" => {
                config.lambda =
                    value.parse().ok().filter(|l: &f64| (0.0..=1.0).contains(l)).ok_or_else(bad)?
            }
            "--start" => {
                config.hand_set = match value.as_str() {
                    "default" => false,
                    "hand-set" => true,
                    _ => return Err(bad()),
                }
            }
            "--threads" => config.threads = value.parse().map_err(|_| bad())?,
            "--output" => config.output = PathBuf::from(value),
            "--l2" => config.l2 = value.parse().ok().filter(|l: &f64| *l >= 0.0).ok_or_else(bad)?,
            "--min-positions" => config.min_positions = value.parse().map_err(|_| bad())?,
            _ => return Err(format!("unknown argument {flag}\n{USAGE}")),
        }
    }
    if config.data.is_empty() && config.rounds > 0 {
        return Err(format!("--data is required\n{USAGE}"));
    }
    Ok(Request::Tune(config))
}

fn run(config: &Config) -> Result<(), String> {
    let start = if config.hand_set { Params::HAND_SET } else { Params::DEFAULT };
    if config.rounds == 0 {
        writeback::write(&config.output, &start, &[]).map_err(|e| e.to_string())?;
        eprintln!("wrote the starting set to {}", config.output.display());
        return Ok(());
    }
    let clock = Instant::now();
    let (positions, report) = dataset::load(&config.data, config.limit).map_err(|e| e.to_string())?;
    eprintln!(
        "loaded {} positions ({} malformed lines) in {:.1} s",
        positions.len(),
        report.malformed,
        clock.elapsed().as_secs_f64()
    );
    // Every 20th block of 2,000 lines is held out to check that the fit generalises. The text
    // that `datagen inspect --text` writes keeps each game's positions together, so blocks keep (nearly) whole games on one side:
    // positions of one game are too alike for a per-position split to be a fair test.
    let (mut train, mut valid) = (Vec::new(), Vec::new());
    for (i, entry) in positions.into_iter().enumerate() {
        if (i / 2000) % 20 == 19 {
            valid.push(entry);
        } else {
            train.push(entry);
        }
    }
    if train.is_empty() {
        return Err("no usable positions to tune on".to_string());
    }

    let settings = Settings {
        rounds: config.rounds,
        epochs: config.epochs,
        rate: config.rate,
        lambda: config.lambda,
        l2: config.l2,
        min_positions: config.min_positions,
    };
    let outcome = tune(&train, &valid, &start, &settings, &mut |line| eprintln!("{line}"));
    let (before_train, before_valid) = outcome.before;
    let (after, params) = (outcome.after, outcome.params);
    let k = outcome.k;
    let names: Vec<String> = config
        .data
        .iter()
        .map(|p| p.file_name().unwrap_or_default().to_string_lossy().into_owned())
        .collect();
    let provenance = vec![
        format!(
            "Tuned from the {} set on {} positions ({} held out) of {}.",
            if config.hand_set { "hand-set" } else { "previous" },
            train.len(),
            valid.len(),
            names.join(", ")
        ),
        format!(
            "K {:.4}, lambda {}, {} rounds of {} Adam epochs, rate {}, L2 {:e} towards the start, \
             parameters seen in fewer than {} positions frozen.",
            k, config.lambda, config.rounds, config.epochs, config.rate, config.l2, config.min_positions
        ),
        format!(
            "Error (train / held out): before {before_train:.6} / {before_valid:.6}, after {:.6} / {:.6}.",
            after.0, after.1
        ),
    ];
    for line in &provenance {
        eprintln!("{line}");
    }
    writeback::write(&config.output, &params, &provenance).map_err(|e| e.to_string())?;
    eprintln!("wrote {}", config.output.display());
    Ok(())
}

fn main() -> ExitCode {
    let config = match parse_args() {
        Ok(Request::Tune(c)) => c,
        Ok(Request::Help) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    if config.threads > 0 {
        if let Err(e) = rayon::ThreadPoolBuilder::new().num_threads(config.threads).build_global() {
            eprintln!("cannot set threads: {e}");
        }
    }
    match run(&config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lazuli-tune: {e}");
            ExitCode::FAILURE
        }
    }
}
