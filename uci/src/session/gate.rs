//! What a session may do when it serves a client on another machine (`lazuli serve`): a local
//! session has no gate and may do everything.

use crate::options::Setting;

pub trait Gate: Send {
    /// Called with every valid `setoption` before it takes effect; `Err` refuses it with that
    /// reason and the option keeps its value. A gate that accepts `Threads` or `Hash` holds
    /// that much for the session until it accepts another value or is dropped.
    fn check_option(&mut self, setting: &Setting) -> Result<(), String>;

    /// The largest value the `uci` answer announces for a spin option, if lower than its own.
    fn spin_max(&self, name: &str) -> Option<i64>;

    /// The deepest `go perft` and `bench` (both run to completion, deaf to `stop`).
    fn max_perft_depth(&self) -> u32;
    fn max_bench_depth(&self) -> i32;

    /// The largest table `Load Hash` may bring in, in MB.
    fn max_loaded_hash_mb(&self) -> usize;

    /// What the session's pool has now (after pending changes or a load were applied): a gate
    /// holds the larger of this and what it accepted last until the pool has shrunk.
    fn applied(&mut self, threads: usize, hash_mb: usize);
}
