//! What a table shares with the tables of other processes (the `cluster` build): every store at
//! or above a depth threshold is also offered to an outbox, with the position's full key (each
//! table keeps only part of it), and entries from elsewhere are stored without being offered
//! again. The outbox is bounded: offers beyond its capacity are counted and dropped, and whoever
//! empties it raises the threshold when that happens.

use super::TtEntry;
use std::cell::Cell;
use std::sync::atomic::{AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// One table entry as it travels: the full key, then what the table stores (its score as the
/// table holds it, counted from the node).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedEntry {
    pub key: u64,
    pub mv: u16,
    pub score: i16,
    pub eval: i16,
    pub depth: i8,
    pub bound: u8,
    pub pv: bool,
}

impl SharedEntry {
    pub const BYTES: usize = 16;

    pub(super) fn of(key: u64, entry: &TtEntry) -> SharedEntry {
        SharedEntry {
            key,
            mv: entry.mv.raw(),
            score: entry.score as i16,
            eval: entry.eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            depth: entry.depth.clamp(i8::MIN as i32, i8::MAX as i32) as i8,
            bound: entry.bound,
            pv: entry.pv,
        }
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.key.to_le_bytes());
        out.extend_from_slice(&self.mv.to_le_bytes());
        out.extend_from_slice(&self.score.to_le_bytes());
        out.extend_from_slice(&self.eval.to_le_bytes());
        out.push(self.depth as u8);
        out.push(self.bound | (self.pv as u8) << 2);
    }

    /// The entry in `bytes` (`BYTES` long); `None` if its bound is not one a table stores.
    pub fn read(bytes: &[u8]) -> Option<SharedEntry> {
        let bytes: &[u8; Self::BYTES] = bytes.try_into().ok()?;
        let flags = bytes[15];
        let bound = flags & 3;
        (bound != super::BOUND_NONE && flags >> 3 == 0).then(|| SharedEntry {
            key: u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default()),
            mv: u16::from_le_bytes([bytes[8], bytes[9]]),
            score: i16::from_le_bytes([bytes[10], bytes[11]]),
            eval: i16::from_le_bytes([bytes[12], bytes[13]]),
            depth: bytes[14] as i8,
            bound,
            pv: flags & 4 != 0,
        })
    }
}

/// Counters of table saves, one cache line per stripe so that threads do not contend.
const STRIPES: usize = 64;

#[repr(align(64))]
#[derive(Default)]
struct Stripe(AtomicU64);

pub struct Outbox {
    min_depth: AtomicI32,
    capacity: usize,
    entries: Mutex<Vec<SharedEntry>>,
    dropped: AtomicU64,
    saves: [Stripe; STRIPES],
}

thread_local! {
    static STRIPE: Cell<Option<usize>> = const { Cell::new(None) };
}

static NEXT_STRIPE: AtomicUsize = AtomicUsize::new(0);

impl Outbox {
    /// An outbox that takes stores from `min_depth` on and holds at most `capacity` entries.
    pub fn new(min_depth: i32, capacity: usize) -> Outbox {
        Outbox {
            min_depth: AtomicI32::new(min_depth),
            capacity,
            entries: Mutex::new(Vec::with_capacity(capacity)),
            dropped: AtomicU64::new(0),
            saves: std::array::from_fn(|_| Stripe::default()),
        }
    }

    pub fn min_depth(&self) -> i32 {
        self.min_depth.load(Ordering::Relaxed)
    }

    pub fn set_min_depth(&self, depth: i32) {
        self.min_depth.store(depth, Ordering::Relaxed);
    }

    /// A store into the table: counted, and kept to share when it is deep enough.
    #[inline]
    pub(super) fn saved(&self, key: u64, entry: &TtEntry) {
        let stripe = STRIPE.with(|s| {
            s.get().unwrap_or_else(|| {
                let new = NEXT_STRIPE.fetch_add(1, Ordering::Relaxed) % STRIPES;
                s.set(Some(new));
                new
            })
        });
        self.saves[stripe].0.fetch_add(1, Ordering::Relaxed);
        if entry.depth >= self.min_depth() {
            let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            if entries.len() < self.capacity {
                entries.push(SharedEntry::of(key, entry));
            } else {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The entries offered since the last call, and how many did not fit.
    pub fn take(&self) -> (Vec<SharedEntry>, u64) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let taken = std::mem::replace(&mut *entries, Vec::with_capacity(self.capacity));
        (taken, self.dropped.swap(0, Ordering::Relaxed))
    }

    /// Stores into the table so far (every thread's).
    pub fn saves(&self) -> u64 {
        self.saves.iter().map(|s| s.0.load(Ordering::Relaxed)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Move;
    use crate::tt::{TranspositionTable, BOUND_EXACT, BOUND_LOWER};
    use std::sync::Arc;

    #[test]
    fn an_entry_travels_whole_and_a_damaged_one_is_refused() {
        let entry = SharedEntry {
            key: 0xfedc_ba98_7654_3210,
            mv: 0x0abc,
            score: -31_000,
            eval: 57,
            depth: 23,
            bound: 2,
            pv: true,
        };
        let mut bytes = Vec::new();
        entry.write(&mut bytes);
        assert_eq!(bytes.len(), SharedEntry::BYTES);
        assert_eq!(SharedEntry::read(&bytes), Some(entry));
        let mut no_bound = bytes.clone();
        no_bound[15] &= !3;
        assert_eq!(SharedEntry::read(&no_bound), None);
        let mut stray_bits = bytes.clone();
        stray_bits[15] |= 8;
        assert_eq!(SharedEntry::read(&stray_bits), None);
        assert_eq!(SharedEntry::read(&bytes[1..]), None);
    }

    #[test]
    fn deep_stores_are_offered_with_their_key_and_shared_ones_are_not_offered_again() {
        let tt = TranspositionTable::new(1);
        let outbox = Arc::new(Outbox::new(8, 2));
        tt.set_outbox(Arc::clone(&outbox));
        let mv = Move::from_raw(0x0123);
        tt.store(1, 0, mv, 40, 10, 7, BOUND_LOWER, false);
        tt.store(2, 0, mv, 41, 11, 8, BOUND_EXACT, true);
        tt.store(3, 0, mv, 42, 12, 12, BOUND_EXACT, false);
        tt.store(4, 0, mv, 43, 13, 9, BOUND_EXACT, false);
        let (offered, dropped) = outbox.take();
        assert_eq!(offered.iter().map(|e| (e.key, e.depth)).collect::<Vec<_>>(), vec![(2, 8), (3, 12)]);
        assert_eq!(
            (offered[0].score, offered[0].eval, offered[0].bound, offered[0].pv),
            (41, 11, BOUND_EXACT, true)
        );
        assert_eq!(dropped, 1, "the third deep store did not fit");
        assert_eq!(outbox.saves(), 4);

        // Received from elsewhere: stored, found, not offered again.
        let other = TranspositionTable::new(1);
        other.set_outbox(Arc::clone(&outbox));
        other.store_shared(&offered[1]);
        let found = other.probe(3, 0, 0).expect("stored");
        assert_eq!((found.mv, found.score, found.depth, found.bound), (mv, 42, 12, BOUND_EXACT));
        assert_eq!(outbox.take(), (Vec::new(), 0));
    }
}
