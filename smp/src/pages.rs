//! Bringing a new or cleared table into memory in the background. The operating system hands
//! out a table's pages on first touch (and a clear hands them back), so without this the first
//! searches after `ucinewgame` or a new `Hash` pay the page faults on their clock, while
//! `isready` answers at once. A thread touches every page instead, off the search's clock, and
//! leaves every entry as it was: it may run while a search uses the table.

use engine::tt::TranspositionTable;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// The thread touching a table's pages; dropping it stops the thread and waits for it.
pub(crate) struct PageToucher {
    cancel: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl PageToucher {
    /// Starts touching `table`'s pages; `None` if the system refused the thread (the searches
    /// then pay the faults, as they would anyway).
    pub(crate) fn start(table: &Arc<TranspositionTable>) -> Option<PageToucher> {
        let cancel = Arc::new(AtomicBool::new(false));
        let (table, stop) = (Arc::clone(table), Arc::clone(&cancel));
        let thread = std::thread::Builder::new()
            .name("lazuli-table-pages".into())
            .spawn(move || {
                table.make_resident(|| stop.load(Ordering::Relaxed));
            })
            .ok()?;
        Some(PageToucher { cancel, thread: Some(thread) })
    }
}

impl Drop for PageToucher {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
