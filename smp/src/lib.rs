//! Lazy SMP orchestration: runs the engine's searchers on many threads over one shared
//! transposition table. The main worker owns the limits and gives `bestmove`; the engine crate
//! itself never spawns threads and knows nothing of pools.

#![forbid(unsafe_code)]

mod answer;
mod facade;
mod helpers;
mod memory;
pub mod numa;
mod pages;
mod peers;
pub mod pool;
mod table;
mod thread;
pub mod vote;

pub use facade::{Engine, ThreadsRefusal};
pub use helpers::HelperPolicy;
#[cfg(feature = "cluster")]
pub use peers::NodeCounts;
pub use peers::Peers;
pub use pool::{Pool, StopHandle};
pub use strum::VariantNames;
pub use table::{Loaded, LoadedMemory, Saved, TableRefusal};
pub use thread::{Ended, Mode, OnBestmove};
pub use vote::VoteMode;

/// The cores this process may run on (its affinity mask and CPU quota included), at least 1: the
/// one count of logical CPUs behind every default thread count, here and in the tools and server.
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
