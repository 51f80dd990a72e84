//! The UCI front end of Lazuli: the command line, the UCI protocol and session, and the server;
//! the tools beside the engine (datagen, scaling, speedtest) are the `tools` crate.
#![deny(unsafe_code)]

pub mod cli;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod command;
pub mod connect;
pub mod desk;
pub mod input;
pub mod log;
pub mod options;
pub mod output;
pub mod perft;
pub mod protocol;
#[allow(unsafe_code)]
pub mod sched;
pub mod serve;
pub mod serve_cli;
pub mod session;
pub mod version;
pub mod wdl;
