//! Lazuli's front ends over one `smp::Engine` each: the UCI protocol and session on standard
//! input and output, the server for remote clients, the relay to a server and the cluster's
//! ranks. The `lazuli` binary reads the command line and dispatches to them and to the tools.
#![deny(unsafe_code)]

#[cfg(feature = "cluster")]
pub mod cluster;
pub mod command;
pub mod connect;
pub mod desk;
pub mod host;
pub mod input;
pub mod log;
pub mod options;
pub mod output;
pub mod perft;
pub mod protocol;
#[allow(unsafe_code)]
pub mod sched;
pub mod serve;
pub mod session;
pub mod version;
pub mod wdl;
