//! What the threads of a pool share besides the table: the signals any thread may raise, the
//! per-thread node counters and results, and the tablebase settings.

use crate::control::Latch;
use crossbeam_utils::CachePadded;
use engine::search::{SearchControl, SearchResult};
use engine::tb::Tablebases;
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Tablebases and how to use them in the search.
#[derive(Clone)]
pub struct TbSettings {
    pub tables: Arc<Tablebases>,
    pub probe_depth: i32,
    pub probe_limit: usize,
    pub rule50: bool,
}

/// What any thread may signal to a search, kept for the pool's whole life (a `StopHandle`
/// holds it while the workers are replaced).
#[derive(Default)]
pub(crate) struct Signals {
    pub(crate) control: SearchControl,
    /// Wakes the main thread waiting out `go infinite` or a ponder search.
    pub(crate) wake: (Mutex<()>, Condvar),
    /// Raised by `go`, lowered by the main thread once it has answered: whether a search runs.
    pub(crate) searching: AtomicBool,
}

impl Signals {
    /// Wake the main thread waiting out `go infinite` or a ponder search.
    pub(crate) fn wake(&self) {
        let _guard = self.wake.0.lock();
        self.wake.1.notify_all();
    }

    /// Raise the stop flag for every thread, and wake the main thread if it waits for it.
    pub(crate) fn stop_and_wake(&self) {
        self.control.stop.store(true, Ordering::SeqCst);
        self.wake();
    }
}

/// State the workers of one thread count share.
pub(crate) struct Shared {
    pub(crate) signals: Arc<Signals>,
    pub(crate) counters: Vec<CachePadded<AtomicU64>>,
    /// Helpers still searching (the main thread waits for them before answering).
    pub(crate) helpers_running: Latch,
    /// Workers still busy with a job (the pool waits for it before changing anything).
    pub(crate) busy: Latch,
    /// Each thread's final result, left for the main thread's vote.
    pub(crate) results: Vec<Mutex<Option<SearchResult>>>,
    /// Successful tablebase probes of the current search.
    pub(crate) tb_hits: AtomicU64,
    /// The cores this process may run on, read when the pool's threads are created (reading
    /// them means opening cgroup files, not something to do on every `go`).
    pub(crate) cores: usize,
}

impl Shared {
    pub(crate) fn new(threads: usize, signals: Arc<Signals>) -> Arc<Shared> {
        Arc::new(Shared {
            signals,
            counters: (0..threads.max(1)).map(|_| CachePadded::new(AtomicU64::new(0))).collect(),
            helpers_running: Latch::default(),
            busy: Latch::default(),
            results: (0..threads.max(1)).map(|_| Mutex::new(None)).collect(),
            tb_hits: AtomicU64::new(0),
            cores: crate::available_cores(),
        })
    }

    pub(crate) fn total_nodes(&self) -> u64 {
        self.counters.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }
}
