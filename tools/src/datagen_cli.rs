//! `lazuli datagen` (self-play games for training), `lazuli datagen inspect` (what a data file
//! holds) and OpenBench's `genfens` (opening positions for its workers).

use crate::datagen::openings::{random_plies, random_start};
use crate::datagen::{inspect, run, DatagenConfig};
use engine::board::{Board, Position};
use engine::nnue::{self, Network};
use engine::search::{Limits, Searcher};
use engine::tt::TranspositionTable;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use support::rng::Rng;

pub const USAGE: &str =
    "usage: lazuli datagen --output FILE [--games N] [--nodes N] [--hard-nodes N] [--threads N]
                      [--random-plies N] [--dfrc-percent P] [--balance CP] [--seed N] [--syzygy DIRS]
                      [--network FILE|embedded]
       lazuli datagen inspect FILE [--text OUT]

Writes whole self-play games in the viriformat layout (bullet reads it): each move with the
search score of its position (centipawns, White's view) and the game's result. Re-running with
the same arguments resumes (<FILE>.done lists the finished games). Defaults: 1000 games, a soft
limit of 5000 nodes per move (the iteration that passes it is the last) and a hard one of
100000, all cores, 8 or 9 random plies, 10% double Chess960 starts, starts re-drawn while the
search scores them beyond 300 cp, seed 1, the embedded network (--network: a network file). A resumed run must be given the same settings
(<FILE>.settings records them; only --games and --threads may change).
`inspect` counts games, positions, results and scores, reports a truncated or corrupt file with
the byte where it breaks, and with --text writes the positions a trainer keeps (past ply 16, not
in check, quiet best move, |score| < 2000) as '<FEN> | <score> | <result>' (lazuli-train's text format).";

pub fn datagen_command(args: &[String]) -> i32 {
    if args.first().map(String::as_str) == Some("inspect") {
        return inspect_command(&args[1..]);
    }
    let mut config = DatagenConfig { threads: smp::available_cores(), ..DatagenConfig::default() };
    let mut network = None;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if flag == "--help" || flag == "-h" {
            crate::outln!("{USAGE}");
            return 0;
        }
        let Some(value) = it.next() else {
            eprintln!("{flag} needs a value\n{USAGE}");
            return 2;
        };
        let number = value.parse::<u64>().ok();
        match (flag.as_str(), number) {
            ("--output", _) => config.output = PathBuf::from(value),
            ("--syzygy", _) => config.syzygy = value.clone(),
            ("--network", _) => network = Some(value.clone()),
            ("--games", Some(n)) => config.games = n,
            ("--nodes", Some(n)) if n > 0 => config.soft_nodes = n,
            ("--hard-nodes", Some(n)) if n > 0 => config.hard_nodes = n,
            ("--threads", Some(n)) if (1..=1024).contains(&n) => config.threads = n as usize,
            ("--random-plies", Some(n)) if n <= 40 => config.random_plies = n as usize,
            ("--dfrc-percent", Some(n)) if n <= 100 => config.dfrc_percent = n as u32,
            ("--balance", Some(n)) if n <= 10_000 => config.start_balance = n as i32,
            ("--seed", Some(n)) => config.seed = n,
            _ => {
                eprintln!("bad argument {flag} {value}\n{USAGE}");
                return 2;
            }
        }
    }
    if config.output.as_os_str().is_empty() {
        eprintln!("--output is required\n{USAGE}");
        return 2;
    }
    config.hard_nodes = config.hard_nodes.max(config.soft_nodes);
    match choose_evaluation(network.as_deref()) {
        Ok((network, source)) => {
            config.evaluation = format!("network {:016x}", network.hash());
            eprintln!("datagen: evaluation {}{source}", config.evaluation);
            config.network = network;
        }
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    }
    eprintln!(
        "datagen: {} games, {}/{} nodes per move, {} random plies, {}% double Chess960, balance {} cp, seed {}, {} threads -> {}",
        config.games,
        config.soft_nodes,
        config.hard_nodes,
        config.random_plies,
        config.dfrc_percent,
        config.start_balance,
        config.seed,
        config.threads,
        config.output.display()
    );
    let result = run(&config, Duration::from_secs(10), |s| {
        let secs = s.elapsed.as_secs_f64().max(1e-9);
        let done = s.games + s.resumed_games;
        let left = config.games.saturating_sub(done) as f64 / (s.games as f64 / secs).max(1e-9);
        eprintln!(
            "datagen: {done}/{} games, {} positions, {:.0} positions/s, {:.2} games/s, elapsed {}, left {}",
            config.games,
            s.positions,
            s.positions as f64 / secs,
            s.games as f64 / secs,
            clock(secs),
            if s.games > 0 { clock(left) } else { "?".to_string() },
        );
    });
    match result {
        Ok(_) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
            eprintln!("datagen: {e}");
            2
        }
        Err(e) => {
            eprintln!("datagen: cannot write {}: {e}", config.output.display());
            1
        }
    }
}

/// The network `--network` names for the games' searches, and where it came from.
fn choose_evaluation(network: Option<&str>) -> Result<(Arc<Network>, String), String> {
    let (network, from) = match network {
        None | Some("embedded") => (nnue::default_network(), String::new()),
        Some(path) => {
            let loaded = Network::load_file(Path::new(path)).map_err(|e| format!("--network {path}: {e}"))?;
            (Arc::new(loaded), format!(" ({path})"))
        }
    };
    Ok((network, from))
}

fn clock(secs: f64) -> String {
    let s = secs.min(1e9) as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

fn inspect_command(args: &[String]) -> i32 {
    let (path, text) = match args {
        [flag] if flag == "--help" || flag == "-h" => {
            crate::outln!("{USAGE}");
            return 0;
        }
        [path] => (path, None),
        [path, flag, out] if flag == "--text" => (path, Some(out)),
        _ => {
            eprintln!("{USAGE}");
            return 2;
        }
    };
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("cannot open {path}: {e}");
            return 1;
        }
    };
    let mut text_file = match text.map(std::fs::File::create).transpose() {
        Ok(f) => f.map(std::io::BufWriter::new),
        Err(e) => {
            eprintln!("cannot create {}: {e}", text.map_or("", |t| t.as_str()));
            return 1;
        }
    };
    let summary = inspect::inspect(file, text_file.as_mut().map(|f| f as &mut dyn std::io::Write));
    match summary {
        Ok(summary) => {
            crate::out!("{}", summary.report());
            i32::from(summary.error.is_some())
        }
        Err(e) => {
            eprintln!("cannot write the text export: {e}");
            1
        }
    }
}

/// OpenBench's `genfens N seed S book <file|None>`: N opening positions, printed as
/// `info string genfens <FEN>`. Each is a book line (when a book is given) or the start
/// position, then 8 or 9 random moves, drawn again while a short search scores it beyond 300 cp.
pub fn genfens_command(spec: &str) -> i32 {
    let words: Vec<&str> = spec.split_ascii_whitespace().collect();
    let field = |name: &str| words.iter().position(|w| *w == name).and_then(|i| words.get(i + 1).copied());
    let count = words.get(1).and_then(|n| n.parse::<u64>().ok());
    let seed = field("seed").and_then(|s| s.parse::<u64>().ok());
    let (Some(count), Some(seed)) = (count, seed) else {
        eprintln!("usage: lazuli \"genfens N seed S book <file|None>\"");
        return 2;
    };
    let book: Vec<Position> = match field("book").filter(|b| !b.eq_ignore_ascii_case("none")) {
        None => Vec::new(),
        Some(path) => match std::fs::read_to_string(path) {
            Ok(text) => {
                let book: Vec<Position> = text
                    .lines()
                    .filter_map(|l| Position::from_fen(l.split(';').next()?.trim()).ok())
                    .collect();
                if book.is_empty() {
                    eprintln!("the book {path} holds no valid position");
                    return 1;
                }
                book
            }
            Err(e) => {
                eprintln!("cannot read the book {path}: {e}");
                return 1;
            }
        },
    };
    let tt = TranspositionTable::new(16);
    let mut searcher = Searcher::new();
    let limits = Limits { soft_nodes: Some(5_000), nodes: Some(100_000), ..Limits::default() };
    let mut rng = Rng::new(seed);
    let mut printed = 0;
    while printed < count {
        let plies = 8 + rng.below(2) as usize;
        let start = if book.is_empty() {
            random_start(&mut rng, plies, 0).map(|(board, _)| board)
        } else {
            let root = book[rng.below(book.len() as u64) as usize];
            random_plies(Board::new(root), &mut rng, plies)
        };
        let Some(board) = start else { continue };
        searcher.clear();
        tt.clear(1);
        if searcher.search_alone(&board, &limits, &tt, None).score.abs() <= 300 {
            crate::outln!("info string genfens {}", board.position().to_fen());
            printed += 1;
        }
    }
    0
}
