//! The `lazuli` binary: a UCI engine when run without arguments, and command-line tools
//! (`perft`, ...) when given a subcommand.

#![forbid(unsafe_code)]

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = uci::cli::run(&args);
    std::process::exit(code);
}
