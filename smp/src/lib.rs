//! Lazy SMP orchestration: runs the engine's searchers on many threads over one shared table.
//! The engine crate itself never spawns threads.

#![forbid(unsafe_code)]

pub use engine;
