//! Lazuli's chess core: board representation, legal move generation, static exchange
//! evaluation. Single-threaded code only: the `smp` crate runs it on many threads.

pub mod bench;
pub mod board;
pub mod eval;
pub mod movegen;
pub mod nnue;
pub mod search;
pub mod see;
pub mod tb;
pub mod tt;
