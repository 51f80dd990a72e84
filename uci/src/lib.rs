//! The UCI front end of Lazuli: command-line tools and the UCI protocol loop.
#![forbid(unsafe_code)]

pub mod cli;
pub mod perft;
pub mod protocol;
