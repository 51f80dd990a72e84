//! Command-line subcommands.

use engine::bench::{run_bench, DEFAULT_BENCH_DEPTH};
use engine::board::Position;
use engine::movegen::perft::perft_divide;
use std::io::Write;
use uci::perft::write_divide;

const USAGE: &str = "usage: lazuli                      run the UCI engine (reads commands on stdin)
       lazuli bench [depth]         fixed-depth search of the bench positions (1 thread, 16 MB)
       lazuli perft <depth> [fen]   perft divide from the start position or <fen>
       lazuli speedtest [options]   nodes per second on this machine, a report to paste (--help)
       lazuli scaling [options]     thread-scaling benchmark (lazuli scaling --help)
       lazuli datagen [options]     self-play games for training (lazuli datagen --help)
       lazuli serve [options]       the engine for clients on other machines (lazuli serve --help)
       lazuli connect HOST:PORT --secret-file FILE   a local UCI engine that relays to a server
       lazuli datagen inspect FILE  games, positions, results and damage in a data file
       lazuli \"genfens N seed S book <file|None>\"   opening positions for OpenBench
       lazuli spsa                  the tunable search constants in OpenBench's SPSA format
       lazuli --version             the version and the commit it was built from";

/// This binary's build, for the tools' reports.
fn build() -> tools::Build {
    tools::Build { name: uci::version::name(), commit: uci::version::COMMIT }
}

/// Runs the command line and returns the process exit code.
pub fn run(args: &[String]) -> i32 {
    match args.first().map(String::as_str) {
        None => {
            #[cfg(feature = "cluster")]
            uci::cluster::run_stdio();
            #[cfg(not(feature = "cluster"))]
            uci::protocol::run_stdio();
            0
        }
        // `speedtest`, `scaling` and `datagen` print their own, longer help.
        Some("perft" | "bench" | "spsa" | "genfens")
            if args[1..].iter().any(|a| a == "--help" || a == "-h") =>
        {
            tools::outln!("{USAGE}");
            0
        }
        Some("perft") => perft_command(&args[1..]),
        Some("bench") => bench_command(&args[1..]),
        Some("speedtest") => tools::speedtest::speedtest_command(&args[1..], &build()),
        Some("scaling") => tools::scaling_cli::scaling_command(&args[1..], &build()),
        Some("datagen") => tools::datagen_cli::datagen_command(&args[1..]),
        Some("serve") => crate::serve_cli::serve_command(&args[1..]),
        Some("connect") => crate::connect_cli::connect_command(&args[1..]),
        // OpenBench passes the whole request as one argument (then `quit`).
        Some(spec) if spec.starts_with("genfens") => tools::datagen_cli::genfens_command(spec),
        Some("spsa") => {
            tools::out!("{}", engine::search::params::openbench_spsa_input());
            if !cfg!(feature = "spsa") {
                eprintln!("note: this build does not offer them as UCI options; build with --features spsa");
            }
            0
        }
        Some("--version" | "-V" | "version") => {
            tools::outln!("{}", uci::version::name());
            0
        }
        Some("help" | "-h" | "--help") => {
            tools::outln!("{USAGE}");
            0
        }
        Some(other) => {
            eprintln!("unknown command '{other}'\n{USAGE}");
            2
        }
    }
}

fn bench_command(args: &[String]) -> i32 {
    let depth = match args.first().map(|d| d.parse::<i32>()) {
        None => DEFAULT_BENCH_DEPTH,
        Some(Ok(d)) if (1..=64).contains(&d) => d,
        Some(_) => {
            eprintln!("bench depth must be a number from 1 to 64\n{USAGE}");
            return 2;
        }
    };
    if let Some(problem) = &engine::nnue::simd::Kernels::selection().problem {
        eprintln!("{problem}");
    }
    let result = run_bench(depth, |i, fen, nodes| {
        tools::outln!("position {:>2} nodes {:>10}  {fen}", i + 1, nodes);
    });
    tools::outln!();
    tools::outln!("depth {depth}, time {} ms", result.elapsed.as_millis());
    tools::outln!("{} nodes {} nps", result.nodes, result.nps());
    0
}

fn perft_command(args: &[String]) -> i32 {
    let Some(depth) = args.first().and_then(|d| d.parse::<u32>().ok()) else {
        eprintln!("perft needs a depth\n{USAGE}");
        return 2;
    };
    let pos = if args.len() > 1 {
        match Position::from_fen(&args[1..].join(" ")) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("bad FEN: {e}");
                return 2;
            }
        }
    } else {
        Position::startpos()
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let chess960 = pos.castling_rights() != 0 && !is_standard_castling(&pos);
    let start = std::time::Instant::now();
    let divide = perft_divide(&pos, depth, &|| false).unwrap_or_default();
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    match write_divide(&mut out, &divide, depth, chess960) {
        Ok(total) => {
            if let Err(e) = out.flush() {
                tools::stdout::failed(&e);
            }
            eprintln!("time {:.3} s, {:.0} nodes/second", secs, total as f64 / secs);
            0
        }
        Err(e) => tools::stdout::failed(&e),
    }
}

/// Whether every castling right uses the standard king and rook squares.
fn is_standard_castling(pos: &Position) -> bool {
    use engine::board::{Color, PieceType, Square};
    Color::ALL.iter().all(|&c| {
        let king_home = Square::from_file_rank(4, 0).relative(c);
        let ks_rook = Square::from_file_rank(7, 0).relative(c);
        let qs_rook = Square::from_file_rank(0, 0).relative(c);
        let rights = pos.castling_rights() >> (c.index() * 2);
        let king_ok = rights & 3 == 0 || pos.pieces_of(c, PieceType::King).has(king_home);
        king_ok
            && (rights & 1 == 0 || pos.castle_rook(c, true) == ks_rook)
            && (rights & 2 == 0 || pos.castle_rook(c, false) == qs_rook)
    })
}
