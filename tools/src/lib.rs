//! The tools the `lazuli` binary offers beside the engine: self-play games for training
//! (`datagen`, with `genfens` for OpenBench), the thread-scaling benchmark (`scaling`) and the
//! speed test (`speedtest`), with what they share: argument handling, standard output that ends
//! quietly on a closed pipe, statistics and a description of the machine.

#![forbid(unsafe_code)]

pub mod args;
pub mod datagen;
pub mod datagen_cli;
pub mod machine;
pub mod scaling;
pub mod scaling_cli;
pub mod speedtest;
pub mod stats;

/// Standard output that ends the process on a closed pipe: the workspace's one writer, named here
/// too (`tools::outln!`, `tools::stdout::failed`) for the command line in `uci/`.
pub use support::stdout;
pub use support::{out, outln};

/// What the binary says of its own build, for the reports that describe the machine.
#[derive(Clone, Debug)]
pub struct Build {
    /// `Lazuli 0.2.0 (abc1234)`, as `id name` gives it.
    pub name: String,
    /// The commit it was built from, if known.
    pub commit: Option<&'static str>,
}
