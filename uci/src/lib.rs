//! The UCI front end of Lazuli: command-line tools, the UCI protocol and session.
#![deny(unsafe_code)]

mod args;
pub mod cli;
pub mod command;
pub mod connect;
pub mod datagen;
pub mod datagen_cli;
pub mod held;
pub mod log;
pub mod machine;
pub mod options;
pub mod output;
pub mod perft;
pub mod protocol;
pub mod scaling;
pub mod scaling_cli;
#[allow(unsafe_code)]
pub mod sched;
pub mod serve;
pub mod serve_cli;
pub mod session;
pub mod speedtest;
pub mod stats;
pub mod stdout;
pub mod version;
pub mod wdl;
