//! Command-line parsing for `lazuli-train`.

use crate::data::{Filter, Format};
use crate::network::Objective;
use crate::optimiser::Schedule;
use std::path::PathBuf;

pub const USAGE: &str = "\
usage:
  lazuli-train train --data FILE [--data FILE ...] --out-dir DIR [options]
  lazuli-train quantise CHECKPOINT OUTPUT.lznn [--data FILE ...]
  lazuli-train info NETWORK.lznn
  lazuli-train eval NETWORK.lznn FEN
  lazuli-train validate NETWORK.lznn [NETWORK.lznn ...] --data FILE [--data FILE ...] [options]
  lazuli-train --help

train: fits the network of docs/network-format.md to the data and writes, after every epoch,
DIR/epoch-N.ckpt (float weights and optimiser state, for --resume and quantise) and
DIR/epoch-N.lznn (the quantised network), and at the end DIR/final.lznn. Each quantised
network's output biases are corrected, bucket by bucket, by the mean float - integer difference
on the validation positions; quantise does the same on the validation positions of --data
(and rounds only, without it).

  --data PATH          a data file, or a directory: its .vf and .txt files in name order;
                       repeat for several. A game found twice (byte for byte) is kept once; a
                       file that fails its check is named and left out whole
  --format F           auto (default: sniffed from each file), viri or text
  --out-dir DIR        where checkpoints and networks go (created if missing)
  --hidden H           hidden neurons per perspective (default 256)
  --output-buckets B   sets of output weights, chosen by the number of pieces on the board,
                       1 to 16 (default 1)
  --epochs N           passes over the training set (default 10)
  --batch N            positions per optimiser step (default 16384)
  --lr R               starting learning rate (default 0.001)
  --schedule S         step (default) or cosine
  --lr-step N          step schedule: multiply the rate by --lr-gamma every N epochs (default 4)
  --lr-gamma G         step schedule factor (default 0.3)
  --lr-floor F         cosine schedule: end at F x the starting rate (default 0.01)
  --wdl L              weight of the game result in the target, 0 to 1 (default 0.25)
  --power P            error exponent, 1 to 4: 2 is mean squared error (default 2)
  --eval-scale K       centipawns per unit of the sigmoid that turns scores and the network's
                       output into win probabilities, 20 to 2000 (default 180), or auto: the K
                       at which the training scores best predict their results
  --weight-decay D     AdamW weight decay (default 0.01)
  --min-ply N          viriformat: drop positions fewer than N plies into the game, counted from
                       its start (the record's move number; default 16)
  --max-score S        drop positions with |score| >= S centipawns, mates (default 10000)
  --mirror on|off      train on each position in a random one of its two file orientations
                       each epoch (default off)
  --threads N          worker threads (default: all cores)
  --seed N             seed of the initial weights and the shuffles (default 1)
  --resume CHECKPOINT  continue a run from a checkpoint (up to --epochs in all)
  --init NETWORK.lznn  start from a trained network's weights instead of random ones (a new
                       run: epoch 1, fresh optimiser); a one-bucket network may start a run
                       with any number of output buckets

Validation: about 2% of the games are held out, chosen by a fixed hash of the game's bytes, so
a game keeps its side whatever files it is read with. Text files hold no game boundaries, so
there whole blocks of 1024 consecutive lines (several games' worth) are held out instead.

eval prints the integer evaluation of a FEN, in centipawns, as the engine must compute it.

validate scores each network, as the engine computes it (integers), on the validation positions
of the data (held out as train holds them out): the loss under the objective, and how far its
evaluations lie from the data's search scores. It takes the data options above (--data,
--format, --wdl, --power, --eval-scale, --min-ply, --max-score, --threads); with the same data
and objective, its loss is the integer loss train reports, so networks from different runs can
be compared on one set.";

/// The eval scale K unless `--eval-scale` says otherwise: one fixed value, so that networks of
/// different runs evaluate on one scale. At it the search scores of Lazuli's self-play data
/// regress on a trained network's evaluations with a slope of about 1; at the K fitted to the
/// results (about 128) the network's evaluations come out some 19% narrower than the scores.
pub const DEFAULT_EVAL_SCALE: f32 = 180.0;

/// What the commands that read data share: the files, how to read and filter them, and the
/// objective the loss is measured by.
#[derive(Clone, Debug)]
pub struct DataArgs {
    pub data: Vec<PathBuf>,
    pub format: Format,
    pub filter: Filter,
    pub objective: Objective,
    /// `--eval-scale auto`: fit the objective's K to the training data.
    pub fit_eval_scale: bool,
    pub threads: usize,
}

impl Default for DataArgs {
    fn default() -> Self {
        DataArgs {
            data: Vec::new(),
            format: Format::Auto,
            filter: Filter::default(),
            objective: Objective { k: DEFAULT_EVAL_SCALE, ..Objective::default() },
            fit_eval_scale: false,
            threads: 0,
        }
    }
}

impl DataArgs {
    /// Takes `flag` if it is one of the data options; `Ok(false)` leaves it to the caller.
    fn take(&mut self, flag: &str, value: &str) -> Result<bool, String> {
        match flag {
            "--data" => self.data.push(value.into()),
            "--format" => {
                self.format = match value {
                    "auto" => Format::Auto,
                    "viri" | "viriformat" => Format::Viri,
                    "text" => Format::Text,
                    _ => return Err(bad(flag, value)),
                }
            }
            "--wdl" => self.objective.wdl = number(flag, value, 0.0, 1.0)? as f32,
            "--power" => self.objective.power = number(flag, value, 1.0, 4.0)? as f32,
            "--eval-scale" if value == "auto" => self.fit_eval_scale = true,
            "--eval-scale" => {
                self.objective.k = number(flag, value, 20.0, 2000.0)? as f32;
                self.fit_eval_scale = false;
            }
            "--min-ply" => {
                self.filter.min_ply = u32::try_from(count(flag, value, 0)?).map_err(|_| bad(flag, value))?
            }
            "--max-score" => self.filter.max_score = count(flag, value, 1)?.min(i32::MAX as u64) as i32,
            "--threads" => self.threads = count(flag, value, 0)?.min(1024) as usize,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

#[derive(Clone, Debug)]
pub struct TrainArgs {
    pub input: DataArgs,
    pub out_dir: PathBuf,
    pub hidden: Option<usize>,
    pub buckets: Option<usize>,
    pub epochs: u32,
    pub batch: usize,
    pub lr: f32,
    pub schedule: Schedule,
    pub weight_decay: f32,
    pub seed: u64,
    pub mirror: bool,
    pub resume: Option<PathBuf>,
    /// Start from this network's weights instead of random ones.
    pub init: Option<PathBuf>,
}

#[derive(Clone, Debug)]
pub enum Command {
    Help,
    Train(Box<TrainArgs>),
    /// `input` is `None` without `--data`: then the biases are rounded, not corrected.
    Quantise {
        checkpoint: PathBuf,
        output: PathBuf,
        input: Option<DataArgs>,
    },
    Info {
        network: PathBuf,
    },
    Eval {
        network: PathBuf,
        fen: String,
    },
    Validate {
        networks: Vec<PathBuf>,
        input: DataArgs,
    },
}

pub fn parse(args: &[String]) -> Result<Command, String> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        return Ok(Command::Help);
    }
    let (command, rest) = args.split_first().ok_or("no command given")?;
    let positional = |n: usize| -> Result<&[String], String> {
        if rest.len() == n {
            Ok(rest)
        } else {
            Err(format!("{command} takes {n} arguments, got {}", rest.len()))
        }
    };
    match command.as_str() {
        "help" => Ok(Command::Help),
        "train" => parse_train(rest).map(|t| Command::Train(Box::new(t))),
        "validate" => parse_validate(rest),
        "quantise" | "quantize" => {
            let first_flag = rest.iter().position(|a| a.starts_with("--")).unwrap_or(rest.len());
            let a = &rest[..first_flag];
            if a.len() != 2 {
                return Err(format!(
                    "{command} takes a checkpoint and an output file, got {} arguments",
                    a.len()
                ));
            }
            let mut input = DataArgs::default();
            each_flag(&rest[first_flag..], |flag, value| {
                if input.take(flag, value)? {
                    Ok(())
                } else {
                    Err(format!("unknown option {flag}"))
                }
            })?;
            let input = if input.data.is_empty() { None } else { Some(input) };
            Ok(Command::Quantise { checkpoint: a[0].clone().into(), output: a[1].clone().into(), input })
        }
        "info" => Ok(Command::Info { network: positional(1)?[0].clone().into() }),
        "eval" => {
            if rest.len() < 2 {
                return Err("eval takes a network and a FEN".into());
            }
            // A FEN may come quoted as one argument or unquoted as several.
            Ok(Command::Eval { network: rest[0].clone().into(), fen: rest[1..].join(" ") })
        }
        other => Err(format!("unknown command '{other}'")),
    }
}

fn bad(flag: &str, value: &str) -> String {
    format!("bad value for {flag}: '{value}'")
}

fn number(flag: &str, value: &str, lo: f64, hi: f64) -> Result<f64, String> {
    value.parse::<f64>().ok().filter(|x| (lo..=hi).contains(x)).ok_or_else(|| bad(flag, value))
}

fn count(flag: &str, value: &str, lo: u64) -> Result<u64, String> {
    value.parse::<u64>().ok().filter(|&x| x >= lo).ok_or_else(|| bad(flag, value))
}

/// Splits `--flag value` pairs, handing each to `take`.
fn each_flag(args: &[String], mut take: impl FnMut(&str, &str) -> Result<(), String>) -> Result<(), String> {
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        take(flag, value)?;
    }
    Ok(())
}

fn parse_validate(args: &[String]) -> Result<Command, String> {
    let first_flag = args.iter().position(|a| a.starts_with("--")).unwrap_or(args.len());
    let networks: Vec<PathBuf> = args[..first_flag].iter().map(PathBuf::from).collect();
    let mut input = DataArgs::default();
    each_flag(&args[first_flag..], |flag, value| {
        if input.take(flag, value)? {
            Ok(())
        } else {
            Err(format!("unknown option {flag}"))
        }
    })?;
    if networks.is_empty() {
        return Err("validate needs at least one network".into());
    }
    if input.data.is_empty() {
        return Err("validate needs at least one --data FILE".into());
    }
    Ok(Command::Validate { networks, input })
}

fn parse_train(args: &[String]) -> Result<TrainArgs, String> {
    let mut t = TrainArgs {
        input: DataArgs::default(),
        out_dir: PathBuf::new(),
        hidden: None,
        buckets: None,
        epochs: 10,
        batch: 16384,
        lr: 0.001,
        schedule: Schedule::Step { every: 4, gamma: 0.3 },
        weight_decay: 0.01,
        seed: 1,
        mirror: false,
        resume: None,
        init: None,
    };
    let (mut cosine, mut every, mut gamma, mut floor) = (false, 4u32, 0.3f32, 0.01f32);
    each_flag(args, |flag, value| {
        if t.input.take(flag, value)? {
            return Ok(());
        }
        match flag {
            "--out-dir" => t.out_dir = value.into(),
            "--hidden" => {
                t.hidden = Some(count(flag, value, 1)?.min(crate::nnue::MAX_HIDDEN as u64 + 1) as usize)
            }
            "--output-buckets" => {
                t.buckets =
                    Some(count(flag, value, 1)?.min(crate::nnue::MAX_OUTPUT_BUCKETS as u64 + 1) as usize)
            }
            "--epochs" => t.epochs = u32::try_from(count(flag, value, 1)?).map_err(|_| bad(flag, value))?,
            "--batch" => t.batch = count(flag, value, 1)?.min(1 << 30) as usize,
            "--lr" => t.lr = number(flag, value, 1e-9, 10.0)? as f32,
            "--schedule" => {
                cosine = match value {
                    "step" => false,
                    "cosine" => true,
                    _ => return Err(bad(flag, value)),
                }
            }
            "--lr-step" => every = u32::try_from(count(flag, value, 1)?).map_err(|_| bad(flag, value))?,
            "--lr-gamma" => gamma = number(flag, value, 0.0, 1.0)? as f32,
            "--lr-floor" => floor = number(flag, value, 0.0, 1.0)? as f32,
            "--weight-decay" => t.weight_decay = number(flag, value, 0.0, 1.0)? as f32,
            "--seed" => t.seed = count(flag, value, 0)?,
            "--mirror" => {
                t.mirror = match value {
                    "on" => true,
                    "off" => false,
                    _ => return Err(bad(flag, value)),
                }
            }
            "--resume" => t.resume = Some(value.into()),
            "--init" => t.init = Some(value.into()),
            _ => return Err(format!("unknown option {flag}")),
        }
        Ok(())
    })?;
    if t.hidden.is_some_and(|h| h > crate::nnue::MAX_HIDDEN) {
        return Err(format!("--hidden is at most {}", crate::nnue::MAX_HIDDEN));
    }
    if t.buckets.is_some_and(|b| b > crate::nnue::MAX_OUTPUT_BUCKETS) {
        return Err(format!("--output-buckets is at most {}", crate::nnue::MAX_OUTPUT_BUCKETS));
    }
    if t.input.data.is_empty() {
        return Err("train needs at least one --data FILE".into());
    }
    if t.out_dir.as_os_str().is_empty() {
        return Err("train needs --out-dir DIR".into());
    }
    if t.init.is_some() && t.resume.is_some() {
        return Err("--init starts a new run and --resume continues one: give one of them".into());
    }
    t.schedule = if cosine { Schedule::Cosine { floor } } else { Schedule::Step { every, gamma } };
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_training_options() {
        let Command::Train(t) = parse(&args(
            "train --data a.txt --data b.vf --out-dir nets --hidden 128 --epochs 3 --wdl 0.5 \
             --schedule cosine --lr-floor 0.1 --threads 2 --format text --mirror on --output-buckets 8",
        ))
        .unwrap() else {
            panic!("not train")
        };
        assert_eq!(t.input.data.len(), 2);
        assert_eq!((t.hidden, t.epochs, t.input.threads, t.input.format), (Some(128), 3, 2, Format::Text));
        assert!(t.mirror);
        assert_eq!(t.buckets, Some(8));
        assert!(!t.input.fit_eval_scale);
        assert_eq!(t.input.objective.k, DEFAULT_EVAL_SCALE);
        assert_eq!(t.input.objective.wdl, 0.5);
        assert_eq!(t.schedule, Schedule::Cosine { floor: 0.1 });
    }

    #[test]
    fn the_eval_scale_is_a_number_or_fitted_to_the_data() {
        let train = |extra: &str| match parse(&args(&format!("train --data a --out-dir x {extra}"))) {
            Ok(Command::Train(t)) => t,
            other => panic!("{other:?}"),
        };
        assert!(!train("").input.fit_eval_scale);
        assert!(train("--eval-scale auto").input.fit_eval_scale);
        let fixed = train("--eval-scale 160");
        assert_eq!((fixed.input.objective.k, fixed.input.fit_eval_scale), (160.0, false));
        assert!(train("--eval-scale 160 --eval-scale auto").input.fit_eval_scale);
        assert!(!train("--eval-scale auto --eval-scale 160").input.fit_eval_scale);
    }

    #[test]
    fn parses_validation_and_a_starting_network() {
        let Command::Validate { networks, input } =
            parse(&args("validate a.lznn b.lznn --data d1.vf --data d2.vf --eval-scale 150 --min-ply 8"))
                .unwrap()
        else {
            panic!("not validate")
        };
        assert_eq!(networks, [PathBuf::from("a.lznn"), PathBuf::from("b.lznn")]);
        assert_eq!(input.data.len(), 2);
        assert_eq!((input.objective.k, input.fit_eval_scale, input.filter.min_ply), (150.0, false, 8));
        let Command::Train(t) = parse(&args("train --data a --out-dir x --init n.lznn")).unwrap() else {
            panic!("not train")
        };
        assert_eq!(t.init, Some(PathBuf::from("n.lznn")));
    }

    #[test]
    fn refuses_bad_arguments() {
        for bad in [
            "",
            "fly",
            "train --out-dir x",
            "train --data a",
            "train --data a --out-dir x --wdl 2",
            "train --data a --out-dir x --hidden 0",
            "train --data a --out-dir x --output-buckets 0",
            "train --data a --out-dir x --output-buckets 17",
            "train --data a --out-dir x --epochs",
            "train --data a --out-dir x --bogus 1",
            "train --data a --out-dir x --schedule linear",
            "train --data a --out-dir x --mirror yes",
            "train --data a --out-dir x --eval-scale 10",
            "train --data a --out-dir x --eval-scale fitted",
            "info",
            "quantise a",
            "quantise a b c",
            "quantise a b --epochs 3",
            "quantise a b --data",
            "eval net",
            "validate",
            "validate n.lznn",
            "validate --data a",
            "validate n.lznn --data a --epochs 3",
            "train --data a --out-dir x --init n.lznn --resume c.ckpt",
        ] {
            assert!(parse(&args(bad)).is_err(), "{bad}");
        }
        assert!(matches!(parse(&args("train --help")), Ok(Command::Help)));
        assert!(matches!(parse(&args("quantise c.ckpt n.lznn")), Ok(Command::Quantise { input: None, .. })));
        let Ok(Command::Quantise { input: Some(input), .. }) =
            parse(&args("quantise c.ckpt n.lznn --data d --eval-scale 150"))
        else {
            panic!("not quantise with data")
        };
        assert_eq!(input.data, vec![PathBuf::from("d")]);
        let Ok(Command::Eval { fen, .. }) = parse(&args("eval n.lznn 8/8/8/8/8/8/8/K6k w - - 0 1")) else {
            panic!("not eval")
        };
        assert_eq!(fen, "8/8/8/8/8/8/8/K6k w - - 0 1");
    }
}
