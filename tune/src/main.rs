//! `lazuli-tune`: Texel tuning of the evaluation from `lazuli datagen` output.
//!
//! ```text
//! lazuli-tune --data FILE [--data FILE ...] [--limit N] [--rounds N] [--epochs N] [--rate R]
//!             [--lambda L] [--start default|hand-set] [--threads N] [--output PATH]
//! ```
//!
//! Writes the tuned set to `--output` (default `engine/src/eval/tuned.rs`) as Rust source the
//! engine compiles. With `--rounds 0` it writes the starting set unchanged.

use engine::eval::{evaluate_uncached, Params};
use rayon::prelude::*;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use tune::coefficients::Layout;
use tune::dataset::{self, Labelled};
use tune::optimizer::{fit_k, sigmoid, Adam, Objective, Sample};
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

fn parse_args() -> Result<Config, String> {
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
            return Err(USAGE.to_string());
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
    Ok(config)
}

/// Linearises every position around `params`; dead draws are dropped.
fn linearise(positions: &[Labelled], params: &Params) -> Vec<Sample> {
    let layout = Layout::new(params);
    positions
        .par_iter()
        .map_init(
            || params.clone(),
            |scratch, entry| {
                layout.linearise(&entry.position, params, scratch).map(|linear| Sample {
                    linear,
                    score: entry.score,
                    result: entry.result,
                })
            },
        )
        .flatten()
        .collect()
}

/// The error of the engine's real (integer) evaluation, not the model.
fn true_error(positions: &[Labelled], params: &Params, objective: Objective) -> f64 {
    let sum: f64 = positions
        .par_iter()
        .map(|entry| {
            let stm = evaluate_uncached(&entry.position, params) as f64;
            let white = stm * entry.position.side_to_move().sign() as f64;
            let target = objective.lambda * entry.result as f64
                + (1.0 - objective.lambda) * sigmoid(objective.k, entry.score as f64);
            let diff = sigmoid(objective.k, white) - target;
            diff * diff
        })
        .sum();
    sum / positions.len().max(1) as f64
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
    // Every 20th block of 2,000 lines is held out to check that the fit generalises. Datagen
    // writes each game's positions together, so blocks keep (nearly) whole games on one side:
    // positions of one game are too alike for a per-position split to be a fair test.
    let (mut train, mut valid) = (Vec::new(), Vec::new());
    for (i, entry) in positions.into_iter().enumerate() {
        if (i / 2000) % 20 == 19 {
            valid.push(entry);
        } else {
            train.push(entry);
        }
    }

    let mut params = start.clone();
    let len = params.len();
    let mut objective = Objective { k: 1.0, lambda: config.lambda };
    let mut first_errors = None;
    for round in 0..config.rounds {
        let clock = Instant::now();
        let samples = linearise(&train, &params);
        let coefficients: usize = samples.iter().map(|s| s.linear.coefficients.len()).sum();
        eprintln!(
            "round {}: linearised {} positions ({:.1} coefficients each) in {:.1} s",
            round + 1,
            samples.len(),
            coefficients as f64 / samples.len().max(1) as f64,
            clock.elapsed().as_secs_f64()
        );
        let mut delta = vec![0.0; 2 * len];
        // Parameters too few positions touch are left alone: Adam's normalised steps would
        // otherwise move them as far as the common ones on almost no evidence.
        let mut touched = vec![0usize; len];
        for sample in &samples {
            for c in sample.linear.coefficients.iter() {
                touched[c.index as usize] += 1;
            }
        }
        let frozen: Vec<bool> = touched.iter().map(|&n| n < config.min_positions).collect();
        // Distance of this round's base from the starting set, for the L2 pull towards it.
        let offset: Vec<f64> = (0..2 * len)
            .map(|i| {
                let (now, then) = (params.get(i / 2).expect("in range"), start.get(i / 2).expect("in range"));
                if i % 2 == 0 {
                    (now.mg() - then.mg()) as f64
                } else {
                    (now.eg() - then.eg()) as f64
                }
            })
            .collect();
        if round == 0 {
            eprintln!(
                "{} of {len} parameters touched by fewer than {} positions are frozen",
                frozen.iter().filter(|&&f| f).count(),
                config.min_positions
            );
        }
        if round == 0 {
            objective.k = fit_k(&samples, &delta);
            let errors = (true_error(&train, &params, objective), true_error(&valid, &params, objective));
            eprintln!(
                "K = {:.4}; error before: train {:.6}, validation {:.6}",
                objective.k, errors.0, errors.1
            );
            first_errors = Some(errors);
        }
        let mut adam = Adam::new(2 * len, config.rate / (1 << round) as f64);
        for epoch in 1..=config.epochs {
            let mut grad = objective.gradient(&samples, &delta);
            for (i, g) in grad.iter_mut().enumerate() {
                *g = if frozen[i / 2] { 0.0 } else { *g + 2.0 * config.l2 * (offset[i] + delta[i]) };
            }
            adam.step(&mut delta, &grad);
            if epoch % 50 == 0 || epoch == config.epochs {
                eprintln!("  epoch {epoch}: model error {:.6}", objective.error(&samples, &delta));
            }
        }
        params = writeback::apply(&params, &delta);
        eprintln!(
            "round {} done in {:.1} s: error train {:.6}, validation {:.6}",
            round + 1,
            clock.elapsed().as_secs_f64(),
            true_error(&train, &params, objective),
            true_error(&valid, &params, objective)
        );
    }
    let (before_train, before_valid) = first_errors.unwrap_or((0.0, 0.0));
    let after = (true_error(&train, &params, objective), true_error(&valid, &params, objective));
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
            objective.k,
            config.lambda,
            config.rounds,
            config.epochs,
            config.rate,
            config.l2,
            config.min_positions
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
        Ok(c) => c,
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
