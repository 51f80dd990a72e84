//! `lazuli datagen`: self-play positions for tuning (see `smp::datagen` for the format).

use smp::datagen::{run, DatagenConfig};
use std::path::PathBuf;

pub const USAGE: &str =
    "lazuli datagen --output FILE [--games N] [--nodes N] [--threads N] [--random-plies N] [--seed N]";

pub fn datagen_command(args: &[String]) -> i32 {
    let mut config = DatagenConfig {
        games: 1000,
        nodes_per_move: 5000,
        threads: num_cpus::get().max(1),
        random_plies: 8,
        seed: 1,
        output: PathBuf::new(),
        decided_score: 2000,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if flag == "--help" || flag == "-h" {
            println!("usage: {USAGE}\n\nOutput lines: '<FEN> | <score cp, White's view> | <result 1.0/0.5/0.0 for White>'.\nRe-running with the same arguments resumes (finished games are listed in <FILE>.done).");
            return 0;
        }
        let Some(value) = it.next() else {
            eprintln!("{flag} needs a value\nusage: {USAGE}");
            return 2;
        };
        let number = value.parse::<u64>();
        let ok = match (flag.as_str(), number) {
            ("--output", _) => {
                config.output = PathBuf::from(value);
                true
            }
            ("--games", Ok(n)) => {
                config.games = n as usize;
                true
            }
            ("--nodes", Ok(n)) if n > 0 => {
                config.nodes_per_move = n;
                true
            }
            ("--threads", Ok(n)) if (1..=1024).contains(&n) => {
                config.threads = n as usize;
                true
            }
            ("--random-plies", Ok(n)) if n <= 40 => {
                config.random_plies = n as usize;
                true
            }
            ("--seed", Ok(n)) => {
                config.seed = n;
                true
            }
            _ => false,
        };
        if !ok {
            eprintln!("bad argument {flag} {value}\nusage: {USAGE}");
            return 2;
        }
    }
    if config.output.as_os_str().is_empty() {
        eprintln!("--output is required\nusage: {USAGE}");
        return 2;
    }
    eprintln!(
        "datagen: {} games, {} nodes per move, {} random plies, seed {}, {} threads -> {}",
        config.games,
        config.nodes_per_move,
        config.random_plies,
        config.seed,
        config.threads,
        config.output.display()
    );
    let result = run(&config, |s| {
        let secs = s.elapsed.as_secs_f64().max(1e-9);
        eprintln!(
            "datagen: {} games, {} positions, {:.1} games/s, {:.0} positions/s",
            s.games,
            s.positions,
            s.games as f64 / secs,
            s.positions as f64 / secs
        );
    });
    match result {
        Ok(_) => 0,
        Err(e) => {
            eprintln!("datagen: cannot write {}: {e}", config.output.display());
            1
        }
    }
}
