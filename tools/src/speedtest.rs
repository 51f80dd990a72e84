//! `lazuli speedtest`: one command whose output a tester can paste. It names the build, its SIMD
//! path and the machine, then measures nodes per second over a game-like workload: the
//! positions of real games, each game's in order from a new game (`ucinewgame`) with the table
//! kept between its moves, every position searched for the same fixed time. One warm-up pass
//! over the start of the first game is not counted; then every pass over all games is one
//! sample, and the report gives their mean, a t-interval and the spread.

use crate::machine::{resident_huge_kb, Machine};
use crate::scaling::search;
use crate::stats::{sample_sd, t_interval};
use engine::board::{Board, Position};
use engine::movegen::legal_moves;
use engine::search::Limits;
use serde_json::json;
use smp::Engine;
use std::time::{Duration, Instant};

const GAMES: &str = include_str!("speedtest-games.txt");

/// Positions of the warm-up pass, from the start of the first game.
const WARM_UP_POSITIONS: usize = 8;

pub const USAGE: &str = "lazuli speedtest [--threads N] [--hash MB] [--seconds S] [--repeat R] [--json FILE]";

const HELP: &str = "Nodes per second over the positions of four self-play games, searched in game order for a
fixed time each (the table kept within a game, cleared by writing between games, so that no page
is faulted in while the clock runs), after one warm-up pass.
Defaults: threads = logical cores; 16 MB of hash per thread; 60 seconds of search per pass over
all positions; 3 passes. Each pass is a sample: the report gives the mean, a 95% t-interval and
the range. --json writes every pass with the settings and the machine.";

/// The games: each a list of boards, one per position before a move, with the game's history.
pub fn games() -> Vec<Vec<Board>> {
    GAMES
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (fen, moves) = line.split_once('|').expect("a speedtest game is 'FEN | moves'");
            let mut board =
                Board::new(Position::from_fen(fen.trim()).expect("speedtest games start legally"));
            let mut boards = Vec::new();
            for text in moves.split_whitespace() {
                boards.push(board.clone());
                let mv = legal_moves(board.position())
                    .iter()
                    .copied()
                    .find(|m| m.to_uci(false) == text)
                    .expect("speedtest games are legal");
                board.make_move(mv);
            }
            boards
        })
        .collect()
}

#[derive(Clone, Debug, PartialEq)]
pub struct SpeedtestConfig {
    pub threads: usize,
    pub hash_mb: usize,
    /// Search time of one pass over all positions.
    pub pass_time: Duration,
    pub repeat: usize,
}

/// One pass over every game.
#[derive(Clone, Debug)]
pub struct Pass {
    pub nodes: u64,
    pub time: Duration,
    /// Hashfull (permille) at the end of each game.
    pub hashfull: Vec<usize>,
}

impl Pass {
    pub fn nps(&self) -> f64 {
        self.nodes as f64 / self.time.as_secs_f64().max(1e-9)
    }
}

fn play(engine: &mut Engine, boards: &[Board], per_position: Duration) -> (u64, Duration) {
    let (mut nodes, mut time) = (0, Duration::ZERO);
    for board in boards {
        let start = Instant::now();
        search(engine, board.clone(), Limits::default(), Some(per_position));
        time += start.elapsed();
        nodes += engine.pool().nodes();
    }
    (nodes, time)
}

/// The passes, and the memory of this process on huge pages while the table was in use.
pub fn run(config: &SpeedtestConfig, mut progress: impl FnMut(&str)) -> (Vec<Pass>, Option<u64>) {
    let games = games();
    let positions: usize = games.iter().map(Vec::len).sum();
    let per_position = config.pass_time / positions.max(1) as u32;
    let mut engine = Engine::new(config.threads, config.hash_mb);
    progress("warm-up");
    engine.clear_for_benchmark();
    play(&mut engine, &games[0][..WARM_UP_POSITIONS.min(games[0].len())], per_position);
    let passes = (0..config.repeat.max(1))
        .map(|pass| {
            progress(&format!("pass {}/{}", pass + 1, config.repeat.max(1)));
            let mut result = Pass { nodes: 0, time: Duration::ZERO, hashfull: Vec::new() };
            for game in &games {
                engine.clear_for_benchmark();
                let (nodes, time) = play(&mut engine, game, per_position);
                result.nodes += nodes;
                result.time += time;
                result.hashfull.push(engine.tt().hashfull());
            }
            result
        })
        .collect();
    (passes, resident_huge_kb())
}

fn parse_args(args: &[String]) -> Result<(SpeedtestConfig, Option<String>), String> {
    let threads = smp::available_cores();
    let mut config =
        SpeedtestConfig { threads, hash_mb: 16 * threads, pass_time: Duration::from_secs(60), repeat: 3 };
    let mut hash = None;
    let mut json = None;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        let number = |v: String| v.parse::<u64>().map_err(|_| format!("{flag}: '{v}' is not a number"));
        match flag.as_str() {
            "--threads" => config.threads = number(value()?)?.clamp(1, 1024) as usize,
            "--hash" => hash = Some(number(value()?)?.clamp(1, 1 << 20) as usize),
            "--seconds" => config.pass_time = Duration::from_secs(number(value()?)?.clamp(1, 86_400)),
            "--repeat" => config.repeat = number(value()?)?.clamp(1, 100) as usize,
            "--json" => json = Some(value()?),
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    config.hash_mb = hash.unwrap_or(16 * config.threads);
    Ok((config, json))
}

pub fn speedtest_command(args: &[String], build: &crate::Build) -> i32 {
    let (config, json_path) = match crate::args::parse_or_exit(args, USAGE, HELP, parse_args) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let games = games();
    let positions: usize = games.iter().map(Vec::len).sum();
    let machine = Machine::detect(build);
    let (passes, huge_kb) = run(&config, |what| eprintln!("speedtest: {what}"));
    crate::outln!("Lazuli speedtest");
    for line in machine.lines(huge_kb) {
        crate::outln!("{line}");
    }
    crate::outln!(
        "threads {}, hash {} MB; {positions} positions of {} games, {} ms each, in game order; {} pass(es) after a warm-up",
        config.threads,
        config.hash_mb,
        games.len(),
        (config.pass_time / positions as u32).as_millis(),
        passes.len()
    );
    for (i, pass) in passes.iter().enumerate() {
        crate::outln!(
            "pass {}: {} nodes in {:.2} s, {:.0} nodes/second, hashfull at game ends {:?}",
            i + 1,
            pass.nodes,
            pass.time.as_secs_f64(),
            pass.nps(),
            pass.hashfull
        );
    }
    let nps: Vec<f64> = passes.iter().map(Pass::nps).collect();
    let interval = t_interval(&nps);
    let (low, high) = nps.iter().fold((f64::INFINITY, 0f64), |(l, h), &v| (l.min(v), h.max(v)));
    crate::outln!(
        "nodes/second: {:.0}, 95% interval [{:.0}, {:.0}] over {} passes; range {:.0} - {:.0}, sd {:.1}%",
        interval.mean,
        interval.low,
        interval.high,
        nps.len(),
        low,
        high,
        100.0 * sample_sd(&nps) / interval.mean.max(1e-9)
    );
    if let Some(path) = json_path {
        let report = json!({
            "benchmark": "lazuli speedtest",
            "machine": machine.json(huge_kb),
            "settings": {"threads": config.threads, "hash_mb": config.hash_mb,
                         "pass_ms": config.pass_time.as_millis() as u64, "repeats": config.repeat,
                         "games": games.len(), "positions": positions},
            "passes": passes.iter().map(|p| json!({"nodes": p.nodes, "time_ms": p.time.as_secs_f64() * 1000.0,
                                                   "nps": p.nps(), "hashfull": p.hashfull})).collect::<Vec<_>>(),
            "nps": {"mean": interval.mean, "ci95": [interval.low, interval.high]},
        });
        if let Err(e) = std::fs::write(&path, format!("{report:#}\n")) {
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
    fn the_games_are_legal_and_long() {
        let games = games();
        assert_eq!(games.len(), 4);
        assert!(games.iter().all(|g| g.len() == 100), "{:?}", games.iter().map(Vec::len).collect::<Vec<_>>());
    }

    #[test]
    fn options_are_parsed_and_hash_follows_threads() {
        let (config, json) = parse_args(&args(&["--threads", "4", "--seconds", "10"])).expect("valid");
        assert_eq!((config.threads, config.hash_mb, config.pass_time), (4, 64, Duration::from_secs(10)));
        assert_eq!(json, None);
        let (config, json) =
            parse_args(&args(&["--hash", "8", "--threads", "2", "--json", "x"])).expect("valid");
        assert_eq!((config.hash_mb, json.as_deref()), (8, Some("x")));
        for bad in [&["--threads"][..], &["--seconds", "ten"], &["--fast"]] {
            assert!(parse_args(&args(bad)).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn a_short_run_counts_every_pass() {
        let config =
            SpeedtestConfig { threads: 1, hash_mb: 1, pass_time: Duration::from_millis(400), repeat: 2 };
        let (passes, _) = run(&config, |_| {});
        assert_eq!(passes.len(), 2);
        assert!(passes.iter().all(|p| p.nodes > 0 && p.hashfull.len() == 4 && p.nps() > 0.0));
    }
}
