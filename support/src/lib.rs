//! Plumbing that every Lazuli crate shares and none owns: the seeded random generator (`rng`),
//! used from compile-time Zobrist keys to the trainer's checkpointed shuffles, and standard output
//! for the command-line programs that ends the process on a closed pipe (`stdout`, with the `out!`
//! and `outln!` macros). It depends on nothing, so that the engine, its build script and the
//! trainer can all reach it.

#![forbid(unsafe_code)]

pub mod rng;
pub mod stdout;
