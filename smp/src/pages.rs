//! Bringing a new or cleared table into memory in the background. The operating system hands
//! out a table's pages on first touch (and a clear hands them back), so without this the first
//! searches after `ucinewgame` or a new `Hash` pay the page faults on their clock, while
//! `isready` answers at once. A thread touches every page instead, off the search's clock, and
//! leaves every entry as it was: it may run while a search uses the table. Where the search
//! threads are bound to several NUMA nodes, one thread per node touches an equal share of the
//! table, bound to that node, so that the table's pages are spread over the nodes.

use crate::numa::{bind_current_thread, CpuSet};

use engine::tt::TranspositionTable;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// The threads touching a table's pages; dropping it stops them and waits for them.
pub(crate) struct PageToucher {
    cancel: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl PageToucher {
    /// Starts touching `table`'s pages: one unbound thread when `nodes` is empty, else one per
    /// node, bound to its CPUs. `None` if the system refused every thread (the searches then
    /// pay the faults, as they would anyway).
    pub(crate) fn start(table: &Arc<TranspositionTable>, nodes: &[CpuSet]) -> Option<PageToucher> {
        let cancel = Arc::new(AtomicBool::new(false));
        let parts = nodes.len().max(1);
        let threads: Vec<JoinHandle<()>> = (0..parts)
            .filter_map(|part| {
                let (table, stop, cpus) = (Arc::clone(table), Arc::clone(&cancel), nodes.get(part).cloned());
                std::thread::Builder::new()
                    .name("lazuli-table-pages".into())
                    .spawn(move || {
                        // Unbound if the bind is refused: the pages come in all the same.
                        let _ = cpus.map(|cpus| bind_current_thread(&cpus));
                        table.make_share_resident(part, parts, || stop.load(Ordering::Relaxed));
                    })
                    .ok()
            })
            .collect();
        (!threads.is_empty()).then_some(PageToucher { cancel, threads })
    }
}

impl PageToucher {
    /// Touches every page of `table` as `start` does, and returns when they are all in memory.
    pub(crate) fn run_to_end(table: &Arc<TranspositionTable>, nodes: &[CpuSet]) {
        if let Some(mut toucher) = PageToucher::start(table, nodes) {
            for thread in toucher.threads.drain(..) {
                let _ = thread.join();
            }
        }
    }
}

impl Drop for PageToucher {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}
