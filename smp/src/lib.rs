//! Lazy SMP orchestration: runs the engine's searchers on many threads over one shared
//! transposition table, and owns time management. The engine crate itself never spawns threads.

#![forbid(unsafe_code)]

mod answer;
mod control;
pub mod mailbox;
pub mod pool;
pub mod scaling;
pub mod time;
mod timer;
pub mod vote;
mod worker;

pub use answer::StopHandle;
pub use engine;
pub use pool::{Pool, TbSettings};
pub use vote::VoteMode;

/// The cores this process may run on (its affinity mask and CPU quota included), at least 1.
pub(crate) fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
