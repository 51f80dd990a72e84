//! `lazuli-train`: trains, quantises, inspects and evaluates Lazuli's network. See
//! `docs/training.md` and `lazuli-train --help`.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;
use support::outln;
use train::chess::parse_fen;
use train::cli::{self, Command, DataArgs, TrainArgs, USAGE};
use train::data::{self, Entry};
use train::network::{self, loss_of_eval, Network, Objective};
use train::nnue::{self, QuantisedNetwork};
use train::quantise::{self as quantising, spread_sample};
use train::trainer::{EpochReport, Settings, State, Trainer};
use train::{checkpoint, Colour};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = match cli::parse(&args) {
        Ok(c) => c,
        Err(message) => {
            eprintln!("lazuli-train: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match command {
        Command::Help => {
            outln!("{USAGE}");
            Ok(())
        }
        Command::Train(t) => train(&t),
        Command::Quantise { checkpoint, output, input } => quantise(&checkpoint, &output, input.as_ref()),
        Command::Info { network } => info(&network),
        Command::Eval { network, fen } => eval(&network, &fen),
        Command::Validate { networks, input } => validate(&networks, &input),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("lazuli-train: {message}");
            ExitCode::FAILURE
        }
    }
}

fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

fn start_threads(threads: usize) -> Result<(), String> {
    if threads > 0 {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
    }
    Ok(())
}

fn load(input: &DataArgs) -> Result<data::Dataset, String> {
    let started = Instant::now();
    let (files, passed_over) = data::expand(&input.data).map_err(|e| e.to_string())?;
    let data = data::load(&files, input.format, input.filter).map_err(|e| e.to_string())?;
    for e in &data.skipped {
        eprintln!("lazuli-train: left out {e}");
    }
    let others =
        if passed_over > 0 { format!(", {passed_over} other files passed over") } else { String::new() };
    outln!(
        "read {} of {} data files ({} left out{others}): {} games or text blocks, {} duplicate games dropped",
        data.files,
        files.len(),
        data.skipped.len(),
        data.units,
        data.duplicates
    );
    outln!(
        "loaded {} training and {} validation positions ({} filtered out) in {:.1} s",
        data.train.len(),
        data.valid.len(),
        data.filtered,
        started.elapsed().as_secs_f64()
    );
    Ok(data)
}

/// The objective with its eval scale: the one given, or the one fitted to the training set.
fn objective_for(input: &DataArgs, train: &[Entry]) -> Objective {
    let fitted = network::fitted_eval_scale(train);
    let mut objective = input.objective;
    if input.fit_eval_scale {
        objective.k = fitted;
    }
    outln!("eval scale {:.1} (the training scores' results fit {fitted:.1})", objective.k);
    objective
}

fn train(t: &TrainArgs) -> Result<(), String> {
    start_threads(t.input.threads)?;
    let state = match (&t.resume, &t.init) {
        (Some(path), _) => {
            let mut state = checkpoint::read(path)?;
            if t.hidden.is_some_and(|h| h != state.net.hidden) {
                return Err(format!("{} has hidden size {}, not --hidden", path.display(), state.net.hidden));
            }
            if t.buckets.is_some_and(|b| b != state.net.buckets) {
                return Err(format!(
                    "{} has {} output buckets, not --output-buckets",
                    path.display(),
                    state.net.buckets
                ));
            }
            state.optimiser.weight_decay = t.weight_decay;
            outln!("resuming {} after epoch {}", path.display(), state.epoch);
            state
        }
        (None, Some(path)) => {
            let q = QuantisedNetwork::read(path)?;
            if t.hidden.is_some_and(|h| h != q.hidden) {
                return Err(format!("{} has hidden size {}, not --hidden", path.display(), q.hidden));
            }
            let net =
                q.to_float(t.buckets.unwrap_or(q.buckets)).map_err(|e| format!("{}: {e}", path.display()))?;
            outln!("starting from {} (hash {:016x})", path.display(), q.hash());
            State::starting_from(net, t.weight_decay, t.seed)
        }
        (None, None) => State::new(t.hidden.unwrap_or(256), t.buckets.unwrap_or(1), t.weight_decay, t.seed),
    };
    let data = load(&t.input)?;
    std::fs::create_dir_all(&t.out_dir).map_err(|e| format!("{}: {e}", t.out_dir.display()))?;
    let objective = objective_for(&t.input, &data.train);
    outln!(
        "hidden {}, output buckets {}, epochs {}, batch {}, lr {} ({:?}), wdl {}, power {}, weight decay {}, mirror {}, {} threads",
        state.net.hidden,
        state.net.buckets,
        t.epochs,
        t.batch,
        t.lr,
        t.schedule,
        objective.wdl,
        objective.power,
        t.weight_decay,
        if t.mirror { "on" } else { "off" },
        rayon::current_num_threads()
    );
    let settings = Settings {
        epochs: t.epochs,
        batch: t.batch,
        lr: t.lr,
        schedule: t.schedule,
        objective,
        mirror: t.mirror,
    };
    let first_epoch = state.epoch;
    let sample = correction_sample(&data);
    let mut trainer = Trainer::new(state);
    let run_clock = Instant::now();
    let out_dir = t.out_dir.clone();
    let mut after_epoch = |r: &EpochReport, state: &State| -> Result<(), String> {
        let done = r.epoch - first_epoch;
        let elapsed = run_clock.elapsed().as_secs_f64();
        let eta = elapsed / f64::from(done) * f64::from(t.epochs - r.epoch);
        let valid = r.valid_loss.map_or("-".to_string(), |v| format!("{v:.6}"));
        outln!(
            "epoch {:>3}/{}  train {:.6}  valid {valid}  lr {:.2e}  {:.0} pos/s  elapsed {}  eta {}",
            r.epoch,
            t.epochs,
            r.train_loss,
            r.lr,
            r.positions_per_second,
            clock(elapsed),
            clock(eta)
        );
        checkpoint::write(&out_dir.join(format!("epoch-{}.ckpt", r.epoch)), state)?;
        quantising::quantise(&state.net, &sample).write(&out_dir.join(format!("epoch-{}.lznn", r.epoch)))
    };
    trainer.run(&data.train, &data.valid, &settings, &mut after_epoch)?;
    let net = &trainer.state.net;
    let q = quantising::quantise(net, &sample);
    let final_path = t.out_dir.join("final.lznn");
    q.write(&final_path)?;
    report_quantisation(net, &q, &sample, &objective);
    outln!("wrote {}", final_path.display());
    Ok(())
}

/// The positions the output biases are corrected on and the quantisation is reported on: the
/// validation set (all of it, if there is none), about 100,000 spread over it.
fn correction_sample(data: &data::Dataset) -> Vec<Entry> {
    let pool = if data.valid.is_empty() { &data.train } else { &data.valid };
    spread_sample(pool, 100_000)
}

/// How far the integer network strays from the float one on real positions, in centipawns and
/// in the training objective (the integer network is the one the engine plays with), with the
/// plain rounding's figures for comparison.
fn report_quantisation(net: &Network, q: &QuantisedNetwork, sample: &[Entry], objective: &Objective) {
    if sample.is_empty() {
        return;
    }
    let rounded = QuantisedNetwork::from_float(net);
    let (plain, corrected) = (quantising::gap(net, &rounded, sample), quantising::gap(net, q, sample));
    let mean_loss = |f: &dyn Fn(&Entry, &[train::Piece]) -> f32| {
        sample
            .iter()
            .map(|e| {
                let pieces: Vec<_> = e.pieces().collect();
                f64::from(loss_of_eval(f(e, &pieces), e, objective))
            })
            .sum::<f64>()
            / sample.len() as f64
    };
    let float_loss = mean_loss(&|e, p| net.output(p, e.side_to_move()) * network::SCALE);
    let integer_loss = mean_loss(&|e, p| q.evaluate(p, e.side_to_move()) as f32);
    outln!(
        "quantisation: |float - integer| over {} positions: mean {:.2} cp, max {:.1} cp (rounded biases: {:.2}, {:.1}); loss float {:.6}, integer {:.6}",
        sample.len(),
        corrected.mean_cp,
        corrected.max_cp,
        plain.mean_cp,
        plain.max_cp,
        float_loss,
        integer_loss
    );
}

/// Scores each network on the data's validation positions (or, if the data holds none, on all).
fn validate(networks: &[std::path::PathBuf], input: &DataArgs) -> Result<(), String> {
    start_threads(input.threads)?;
    let nets = networks.iter().map(|p| QuantisedNetwork::read(p)).collect::<Result<Vec<_>, _>>()?;
    let data = load(input)?;
    let objective = objective_for(input, &data.train);
    let (set, name) = if data.valid.is_empty() { (&data.train, "all") } else { (&data.valid, "validation") };
    if set.is_empty() {
        return Err("no positions passed the filter".into());
    }
    for (path, net) in networks.iter().zip(&nets) {
        let v = train::validate::score(net, set, &objective, 1000);
        outln!(
            "{}: hash {:016x}, {} {} positions: loss {:.6}, |eval - score| mean {:.1} cp and slope of score on eval {:.3} where |score| < 1000",
            path.display(),
            net.hash(),
            v.positions,
            name,
            v.loss,
            v.mean_error_cp,
            v.slope
        );
    }
    Ok(())
}

fn quantise(checkpoint_path: &Path, output: &Path, input: Option<&DataArgs>) -> Result<(), String> {
    let state = checkpoint::read(checkpoint_path)?;
    let q = match input {
        Some(input) => {
            start_threads(input.threads)?;
            let data = load(input)?;
            let objective = objective_for(input, &data.train);
            let sample = correction_sample(&data);
            let q = quantising::quantise(&state.net, &sample);
            report_quantisation(&state.net, &q, &sample, &objective);
            q
        }
        None => QuantisedNetwork::from_float(&state.net),
    };
    q.write(output)?;
    outln!(
        "wrote {} (hidden {}, output buckets {}, after epoch {} of its run; output biases {})",
        output.display(),
        state.net.hidden,
        state.net.buckets,
        state.epoch,
        if input.is_some() { "corrected" } else { "rounded" }
    );
    Ok(())
}

fn info(path: &Path) -> Result<(), String> {
    // The file's own bytes: a one-bucket network may come as version 1 or 2.
    let bytes = nnue::read_limited(path)?;
    let q = QuantisedNetwork::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let range = |v: &[i16]| {
        let (lo, hi) = v.iter().fold((i16::MAX, i16::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        format!("{lo}..{hi}")
    };
    outln!("{}: a valid network file", path.display());
    let version = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
    outln!("  magic LZNN, version {version}, {} bytes", bytes.len());
    outln!("  inputs 768, hidden {}, activation SCReLU, output buckets {}", q.hidden, q.buckets);
    outln!("  QA {}, QB {}, SCALE {}", nnue::QA, q.qb, network::SCALE);
    outln!("  hash {:#018x}", q.hash());
    outln!("  feature weights {}", range(&q.feature_weights));
    outln!("  feature biases {}", range(&q.feature_biases));
    outln!("  output weights {}", range(&q.output_weights));
    outln!("  output biases {:?}", q.output_biases);
    Ok(())
}

fn eval(path: &Path, fen: &str) -> Result<(), String> {
    let q = QuantisedNetwork::read(path)?;
    let (pieces, stm) = parse_fen(fen).map_err(|e| e.to_string())?;
    let cp = q.evaluate(&pieces, stm);
    let white = if stm == Colour::White { cp } else { -cp };
    outln!("{cp} cp for the side to move ({white} cp for White)");
    Ok(())
}
