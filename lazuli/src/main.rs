//! The `lazuli` binary: a UCI engine when run without arguments, and the server, the relay and
//! the command-line tools (`perft`, `bench`, `datagen`, ...) when given a subcommand. Each is a
//! front end or tool in its own crate; this crate only reads the command line and dispatches.

#![forbid(unsafe_code)]

mod cli;
mod connect_cli;
mod serve_cli;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = cli::run(&args);
    std::process::exit(code);
}
