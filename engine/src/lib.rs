//! Lazuli's chess core: board representation, legal move generation, static exchange
//! evaluation. Single-threaded code only: the `smp` crate runs it on many threads.

pub mod board;
pub mod movegen;
pub mod see;
