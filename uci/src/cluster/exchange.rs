//! The table entries the ranks share: each rank's thread takes what its table offered (stores
//! at or above the threshold, with full keys), sends it to the next rank on a ring, stores what
//! the previous rank sends and passes that on until it has gone round. Sends are eager (small
//! messages) and receives are polled, so nothing here waits on another rank.
//!
//! The threshold adapts to the load: a round whose offers overflowed the outbox raises it by
//! one; a second in which every round stayed under an eighth of the outbox lowers it by one.

use super::link::Link;
use crate::output::Output;
use engine::tt::{Outbox, SharedEntry, TranspositionTable};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const TABLE: i32 = 3;
/// How often the outbox is emptied and the ring read.
const ROUND: Duration = Duration::from_millis(2);
/// Entries a rank offers in one round at most (about 128,000 a second).
const OUTBOX: usize = 256;
const FIRST_DEPTH: i32 = 10;
const DEPTHS: std::ops::RangeInclusive<i32> = 4..=40;
/// Quiet rounds before the threshold falls (a second).
const QUIET_ROUNDS: u32 = 500;
/// Rounds between two reports of a rank's node count without entries (20 ms).
const NODE_REPORT_ROUNDS: u32 = 10;
/// How often the leader reports the exchange during a search.
const REPORT_EVERY: Duration = Duration::from_secs(5);

pub struct Exchange {
    link: Link,
    outbox: Arc<Outbox>,
    table: Mutex<Option<Arc<TranspositionTable>>>,
    /// The current search's number (every rank numbers its searches alike) and node counts.
    search: AtomicU64,
    counts: Mutex<Option<smp::NodeCounts>>,
    closing: AtomicBool,
    thread: Mutex<Option<JoinHandle<()>>>,
}

/// What the leader's report counts.
#[derive(Default)]
struct Counts {
    sent: AtomicU64,
    received: AtomicU64,
}

impl Exchange {
    /// Starts sharing; the leader passes where to report and whether a search runs.
    pub fn start(link: Link, report: Option<(Output, smp::StopHandle)>) -> Arc<Exchange> {
        let exchange = Arc::new(Exchange {
            link,
            outbox: Arc::new(Outbox::new(FIRST_DEPTH, OUTBOX)),
            table: Mutex::new(None),
            search: AtomicU64::new(0),
            counts: Mutex::new(None),
            closing: AtomicBool::new(false),
            thread: Mutex::new(None),
        });
        let runner = Arc::clone(&exchange);
        let spawned = std::thread::Builder::new()
            .name("lazuli-exchange".into())
            .spawn(move || runner.run(report))
            .map_err(|e| eprintln!("lazuli: no thread to share the table with the other ranks: {e}"));
        *exchange.thread.lock() = spawned.ok();
        exchange
    }

    /// The engine searches on `table` now: its deep stores are offered, and what the others
    /// share is stored there.
    pub fn search_on(&self, table: &Arc<TranspositionTable>, search: u64) {
        self.search.store(search, Ordering::SeqCst);
        let mut current = self.table.lock();
        if !current.as_ref().is_some_and(|t| Arc::ptr_eq(t, table)) {
            table.set_outbox(Arc::clone(&self.outbox));
            *current = Some(Arc::clone(table));
        }
    }

    /// The current search counts its nodes with `counts`.
    pub fn count_with(&self, counts: smp::NodeCounts) {
        *self.counts.lock() = Some(counts);
    }

    /// The other ranks' nodes in the current search, as this rank last counted them.
    pub fn others_reported(&self) -> u64 {
        self.counts.lock().as_ref().map_or(0, smp::NodeCounts::others)
    }

    /// Stops sending and receiving (before the process leaves MPI).
    pub fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.lock().take() {
            let _ = thread.join();
        }
    }

    fn run(&self, report: Option<(Output, smp::StopHandle)>) {
        let world = SimpleCommunicator::world();
        let next = (self.link.rank + 1) % self.link.size;
        let previous = (self.link.rank + self.link.size - 1) % self.link.size;
        let counts = Counts::default();
        let mut quiet_rounds = 0;
        // Each rank's last report: its search number and its nodes in it.
        let mut reports = vec![(0u64, 0u64); self.link.size as usize];
        let mut last_nodes = (0u64, 0u32);
        let mut last_report = (Instant::now(), 0, 0, self.outbox.saves());
        let mut bytes = Vec::new();
        while !self.closing.load(Ordering::SeqCst) {
            std::thread::sleep(ROUND);
            let (mine, dropped) = self.outbox.take();
            self.adapt(mine.len(), dropped, &mut quiet_rounds);
            let search = self.search.load(Ordering::SeqCst);
            let nodes = self.counts.lock().as_ref().map_or(0, smp::NodeCounts::own);
            // Entries go when there are some; a changed node count at least every 20 ms.
            last_nodes.1 += 1;
            if !mine.is_empty() || (nodes != last_nodes.0 && last_nodes.1 >= NODE_REPORT_ROUNDS) {
                last_nodes = (nodes, 0);
                bytes.clear();
                Header { origin: self.link.rank as u32, search, nodes }.write(&mut bytes);
                mine.iter().for_each(|entry| entry.write(&mut bytes));
                world.process_at_rank(next).send_with_tag(&bytes[..], TABLE);
                counts.sent.fetch_add(mine.len() as u64, Ordering::Relaxed);
            }
            let from = world.process_at_rank(previous);
            while let Some(probed) = from.immediate_matched_probe_with_tag(TABLE) {
                let (message, _) = probed.matched_receive_vec::<u8>();
                let Some(header) = Header::read(&message) else { continue };
                let origin = header.origin;
                if let Some(report) = reports.get_mut(origin as usize) {
                    *report = (header.search, header.nodes);
                }
                let table = self.table.lock().clone();
                let entries =
                    message[Header::BYTES..].chunks_exact(SharedEntry::BYTES).filter_map(SharedEntry::read);
                let mut stored = 0;
                if let Some(table) = table {
                    for entry in entries {
                        table.store_shared(&entry);
                        stored += 1;
                    }
                }
                counts.received.fetch_add(stored, Ordering::Relaxed);
                if origin as i32 != next {
                    world.process_at_rank(next).send_with_tag(&message[..], TABLE);
                }
            }
            if self.link.rank == 0 {
                if let Some(counts) = self.counts.lock().as_ref() {
                    counts.set_others(others_nodes(&reports, 0, search));
                }
            }
            if let Some((out, searching)) = &report {
                self.report(out, searching, &counts, &mut last_report);
            }
        }
    }

    fn adapt(&self, offered: usize, dropped: u64, quiet_rounds: &mut u32) {
        let depth = self.outbox.min_depth();
        if dropped > 0 {
            *quiet_rounds = 0;
            self.outbox.set_min_depth((depth + 1).min(*DEPTHS.end()));
        } else if offered < OUTBOX / 8 {
            *quiet_rounds += 1;
            if *quiet_rounds >= QUIET_ROUNDS {
                *quiet_rounds = 0;
                self.outbox.set_min_depth((depth - 1).max(*DEPTHS.start()));
            }
        } else {
            *quiet_rounds = 0;
        }
    }

    /// Every `REPORT_EVERY` of a search: entries sent and received a second against the table's
    /// stores a second.
    fn report(
        &self,
        out: &Output,
        searching: &smp::StopHandle,
        counts: &Counts,
        last: &mut (Instant, u64, u64, u64),
    ) {
        let elapsed = last.0.elapsed();
        if elapsed < REPORT_EVERY {
            return;
        }
        let (sent, received, saves) = (
            counts.sent.load(Ordering::Relaxed),
            counts.received.load(Ordering::Relaxed),
            self.outbox.saves(),
        );
        let rate = |now: u64, then: u64| ((now - then) as f64 / elapsed.as_secs_f64()).round() as u64;
        let line = format!(
            "info string cluster: {} ranks; entries of depth {} and more shared: {} a second sent, {} a second received; table stores {} a second",
            self.link.size,
            self.outbox.min_depth(),
            rate(sent, last.1),
            rate(received, last.2),
            rate(saves, last.3),
        );
        // Checked under the output's lock: never after the search's `bestmove`.
        out.line_if(&line, || searching.is_searching());
        *last = (Instant::now(), sent, received, saves);
    }
}

/// What every exchange message starts with: the rank whose entries it carries, that rank's
/// search number and its nodes in that search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Header {
    origin: u32,
    search: u64,
    nodes: u64,
}

impl Header {
    const BYTES: usize = 20;

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.origin.to_le_bytes());
        out.extend_from_slice(&self.search.to_le_bytes());
        out.extend_from_slice(&self.nodes.to_le_bytes());
    }

    fn read(message: &[u8]) -> Option<Header> {
        let bytes = message.get(..Self::BYTES)?;
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
        Some(Header {
            origin: u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
            search: word(4),
            nodes: word(12),
        })
    }
}

/// The nodes the ranks other than `rank` have reported for search number `search`.
fn others_nodes(reports: &[(u64, u64)], rank: usize, search: u64) -> u64 {
    reports.iter().enumerate().filter(|&(r, &(s, _))| r != rank && s == search).map(|(_, &(_, n))| n).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_comes_back_as_written_and_a_short_message_has_none() {
        let header = Header { origin: 2, search: 17, nodes: 123_456_789_012 };
        let mut bytes = Vec::new();
        header.write(&mut bytes);
        assert_eq!(bytes.len(), Header::BYTES);
        bytes.extend_from_slice(&[9; SharedEntry::BYTES]);
        assert_eq!(Header::read(&bytes), Some(header));
        assert_eq!(Header::read(&bytes[..Header::BYTES - 1]), None);
    }

    #[test]
    fn the_leader_counts_the_other_ranks_nodes_of_its_own_search_only() {
        // Rank 0's own report, rank 1 in the same search, rank 2 still reporting the last one.
        let reports = [(5, 1_000), (5, 700), (4, 9_000), (5, 300)];
        assert_eq!(others_nodes(&reports, 0, 5), 1_000);
        assert_eq!(others_nodes(&reports, 0, 4), 9_000);
        assert_eq!(others_nodes(&reports, 0, 6), 0);
    }
}
