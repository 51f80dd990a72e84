//! The shared transposition table: lock-free, written and read by every search thread at once.
//!
//! # Layout
//! The table is a vector of 64-byte buckets (one cache line), each holding four entries of two
//! `AtomicU64` words: `check = key ^ data` and `data`. `data` packs the move (16 bits), score
//! (16), static evaluation (16), depth (8) and a byte of generation (5 bits), PV flag (1) and
//! bound (2). A bucket is chosen by the high bits of a 128-bit product of the key and the bucket
//! count, so any table size works.
//!
//! # Concurrency contract
//! All accesses are `Relaxed` loads and stores of whole words; there is no lock and no `unsafe`.
//! A writer stores `data` and then `check`; a racing reader may see a `data` from one write and a
//! `check` from another. Such a torn entry fails the test `check ^ data == key` and reads as a
//! miss (a false match needs a 64-bit collision). An entry that survives the test is still only a
//! hint: its move was legal in *some* position with this key, so the search validates it with
//! `Position::is_pseudo_legal` and `is_legal` before playing it. Scores and bounds from a
//! genuine key collision can at worst mislead the search, never crash it.
//!
//! # Replacement
//! Within a bucket, an entry with the same key is overwritten when the new one is exact, deeper
//! (allowing a margin) or the old one is from an earlier search. Otherwise the entry with the
//! least `depth - 8 * age` is replaced. The generation advances once per search (`new_search`).
//!
//! Mate scores are stored relative to the node (`score_to_tt`) and converted back relative to the
//! root on probe (`score_from_tt`).

mod memory;

use crate::board::Move;
use memory::ZeroedSlice;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

pub const BOUND_NONE: u8 = 0;
pub const BOUND_UPPER: u8 = 1;
pub const BOUND_LOWER: u8 = 2;
pub const BOUND_EXACT: u8 = 3;

const ENTRIES_PER_BUCKET: usize = 4;
const GENERATION_BITS: u8 = 5;
const GENERATION_CYCLE: u8 = 1 << GENERATION_BITS;

use crate::search::score::PLY_DEPENDENT_BOUND;

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

#[repr(C, align(64))]
#[derive(Default)]
pub(crate) struct Bucket {
    slots: [Slot; ENTRIES_PER_BUCKET],
}

/// A decoded table entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    pub mv: Move,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: u8,
    pub pv: bool,
    generation: u8,
}

impl TtEntry {
    fn unpack(data: u64) -> TtEntry {
        let flags = (data >> 56) as u8;
        TtEntry {
            mv: Move::from_raw(data as u16),
            score: (data >> 16) as u16 as i16 as i32,
            eval: (data >> 32) as u16 as i16 as i32,
            depth: (data >> 48) as u8 as i32 - DEPTH_OFFSET,
            bound: flags & 3,
            pv: flags & 4 != 0,
            generation: flags >> 3,
        }
    }

    fn pack(self) -> u64 {
        let flags = self.bound & 3 | (self.pv as u8) << 2 | self.generation << 3;
        self.mv.raw() as u64
            | (self.score as i16 as u16 as u64) << 16
            | (self.eval as i16 as u16 as u64) << 32
            | ((self.depth + DEPTH_OFFSET).clamp(0, 255) as u64) << 48
            | (flags as u64) << 56
    }
}

/// Stored depths are offset so quiescence entries (depth 0 and slightly below) fit in a byte.
const DEPTH_OFFSET: i32 = 8;

pub struct TranspositionTable {
    buckets: ZeroedSlice<Bucket>,
    generation: AtomicU8,
}

impl TranspositionTable {
    /// A table of about `mb` megabytes (at least one bucket). Panics only if the allocation
    /// fails; use `try_new` to handle that.
    pub fn new(mb: usize) -> TranspositionTable {
        Self::try_new(mb).expect("allocate the transposition table")
    }

    /// A table of about `mb` megabytes, or `None` when the memory cannot be allocated.
    pub fn try_new(mb: usize) -> Option<TranspositionTable> {
        let buckets = ZeroedSlice::new(Self::bucket_count(mb))?;
        Some(TranspositionTable { buckets, generation: AtomicU8::new(0) })
    }

    fn bucket_count(mb: usize) -> usize {
        (mb.max(1).saturating_mul(1 << 20) / std::mem::size_of::<Bucket>()).max(1)
    }

    /// Size in megabytes.
    pub fn size_mb(&self) -> usize {
        (self.buckets.len() * std::mem::size_of::<Bucket>()) >> 20
    }

    /// Erase every entry, splitting the work over `threads` threads.
    pub fn clear(&self, threads: usize) {
        let threads = threads.clamp(1, 256);
        let chunk = self.buckets.len().div_ceil(threads);
        std::thread::scope(|scope| {
            for part in self.buckets.chunks(chunk.max(1)) {
                scope.spawn(move || {
                    for bucket in part {
                        for slot in &bucket.slots {
                            slot.check.store(0, Ordering::Relaxed);
                            slot.data.store(0, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Start a new search: entries from earlier searches become preferred victims.
    pub fn new_search(&self) {
        let next = (self.generation.load(Ordering::Relaxed) + 1) % GENERATION_CYCLE;
        self.generation.store(next, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        let index = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index]
    }

    /// Hint the CPU to fetch the bucket of `key` (call right after making a move).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        memory::prefetch(self.bucket(key));
    }

    /// The entry stored for `key`, with its score converted for a node at `ply`.
    #[inline]
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtEntry> {
        for slot in &self.bucket(key).slots {
            let data = slot.data.load(Ordering::Relaxed);
            let check = slot.check.load(Ordering::Relaxed);
            if check ^ data == key && data != 0 {
                let mut entry = TtEntry::unpack(data);
                entry.score = score_from_tt(entry.score, ply);
                return Some(entry);
            }
        }
        None
    }

    /// Store a search result for `key` found at `ply`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn store(
        &self,
        key: u64,
        ply: usize,
        mv: Move,
        score: i32,
        eval: i32,
        depth: i32,
        bound: u8,
        pv: bool,
    ) {
        let generation = self.generation.load(Ordering::Relaxed);
        let bucket = self.bucket(key);
        let mut victim = &bucket.slots[0];
        let mut victim_worth = i32::MAX;
        let mut old = None;
        for slot in &bucket.slots {
            let data = slot.data.load(Ordering::Relaxed);
            let check = slot.check.load(Ordering::Relaxed);
            if check ^ data == key && data != 0 {
                victim = slot;
                old = Some(TtEntry::unpack(data));
                break;
            }
            let entry = TtEntry::unpack(data);
            let age = (GENERATION_CYCLE + generation - entry.generation) % GENERATION_CYCLE;
            let worth = if data == 0 { i32::MIN } else { entry.depth - 8 * age as i32 };
            if worth < victim_worth {
                victim_worth = worth;
                victim = slot;
            }
        }

        let mut mv = mv;
        if let Some(old) = old {
            // Keep a deeper result from this search unless the new one is exact.
            if bound != BOUND_EXACT && old.generation == generation && depth + 2 * pv as i32 + 4 <= old.depth
            {
                return;
            }
            if mv.is_null() {
                mv = old.mv;
            }
        }
        let entry = TtEntry { mv, score: score_to_tt(score, ply), eval, depth, bound, pv, generation };
        let data = entry.pack();
        victim.data.store(data, Ordering::Relaxed);
        victim.check.store(key ^ data, Ordering::Relaxed);
    }

    /// Permille of sampled entries written during the current search.
    pub fn hashfull(&self) -> usize {
        let generation = self.generation.load(Ordering::Relaxed);
        let sample = self.buckets.len().clamp(1, 1000 / ENTRIES_PER_BUCKET + 1);
        let mut used = 0;
        for bucket in &self.buckets[..sample] {
            for slot in &bucket.slots {
                let data = slot.data.load(Ordering::Relaxed);
                if data != 0 && TtEntry::unpack(data).generation == generation {
                    used += 1;
                }
            }
        }
        used * 1000 / (sample * ENTRIES_PER_BUCKET)
    }
}

/// Mate and tablebase scores count plies from the root; in the table they count from the node.
#[inline]
pub fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= PLY_DEPENDENT_BOUND {
        score + ply as i32
    } else if score <= -PLY_DEPENDENT_BOUND {
        score - ply as i32
    } else {
        score
    }
}

#[inline]
pub fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= PLY_DEPENDENT_BOUND {
        score - ply as i32
    } else if score <= -PLY_DEPENDENT_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;

    fn some_move() -> Move {
        Move::new(Square::new(12), Square::new(28), Move::DOUBLE_PUSH)
    }

    #[test]
    fn store_then_probe() {
        let tt = TranspositionTable::new(1);
        tt.store(0xdead_beef, 0, some_move(), -123, 45, 7, BOUND_LOWER, true);
        let e = tt.probe(0xdead_beef, 0).expect("stored");
        assert_eq!(
            (e.mv, e.score, e.eval, e.depth, e.bound, e.pv),
            (some_move(), -123, 45, 7, BOUND_LOWER, true)
        );
        assert!(tt.probe(0xdead_bee0, 0).is_none());
        tt.clear(2);
        assert!(tt.probe(0xdead_beef, 0).is_none());
    }

    #[test]
    fn mate_scores_are_stored_relative_to_the_node() {
        let tt = TranspositionTable::new(1);
        let mate_in_3_from_root = 32_000 - 5;
        // Found at ply 2: from that node it is a mate in 3 plies.
        tt.store(42, 2, Move::NULL, mate_in_3_from_root, 0, 4, BOUND_EXACT, false);
        // Probed at ply 4 through another path: the mate is 2 plies further from the root.
        assert_eq!(tt.probe(42, 4).map(|e| e.score), Some(mate_in_3_from_root - 2));
        tt.store(43, 3, Move::NULL, -32_000 + 7, 0, 4, BOUND_EXACT, false);
        assert_eq!(tt.probe(43, 1).map(|e| e.score), Some(-32_000 + 5));
        assert_eq!(score_from_tt(score_to_tt(250, 9), 3), 250);
    }

    #[test]
    fn torn_entries_read_as_misses() {
        let tt = TranspositionTable::new(1);
        tt.store(7, 0, some_move(), 10, 0, 3, BOUND_EXACT, false);
        let slot = &tt.bucket(7).slots[0];
        slot.data.store(slot.data.load(Ordering::Relaxed) ^ 1 << 20, Ordering::Relaxed);
        assert!(tt.probe(7, 0).is_none());
    }

    /// Every field of an entry derived from its key, so a hit can be checked.
    fn fields_for(key: u64) -> (Move, i32, i32, i32) {
        let mv = Move::from_raw((key >> 7) as u16 | 1);
        let score = ((key >> 23) % 2001) as i32 - 1000;
        let eval = ((key >> 37) % 2001) as i32 - 1000;
        let depth = ((key >> 51) % 60) as i32;
        (mv, score, eval, depth)
    }

    #[test]
    fn concurrent_writers_never_produce_a_torn_hit() {
        // A small table, so threads constantly overwrite each other's buckets.
        let tt = TranspositionTable::new(1);
        let hits = AtomicU64::new(0);
        std::thread::scope(|scope| {
            for thread in 0..8u64 {
                let tt = &tt;
                let hits = &hits;
                scope.spawn(move || {
                    let mut state = 0x9e37_79b9_7f4a_7c15 ^ thread.wrapping_mul(0x2545_f491_4f6c_dd1d);
                    for _ in 0..300_000 {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        // Few distinct keys, so probes often find entries written by others.
                        let key = (state % 20_000).wrapping_mul(0xd6e8_feb8_6659_fd93);
                        if (state >> 40) & 1 == 0 {
                            let (mv, score, eval, depth) = fields_for(key);
                            tt.store(key, 0, mv, score, eval, depth, BOUND_EXACT, false);
                        } else if let Some(e) = tt.probe(key, 0) {
                            assert_eq!((e.mv, e.score, e.eval, e.depth), fields_for(key), "torn entry");
                            hits.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        let hits = hits.load(Ordering::Relaxed);
        assert!(hits > 10_000, "only {hits} hits");
    }

    #[test]
    fn packing_is_total() {
        for data in [0u64, u64::MAX, 0x8000_8000_8000_8000, 0x0123_4567_89ab_cdef] {
            let e = TtEntry::unpack(data);
            assert!((0..4).contains(&e.bound) && e.generation < GENERATION_CYCLE);
        }
    }

    #[test]
    fn generation_ages_entries_and_hashfull_counts_this_search() {
        let tt = TranspositionTable::new(1);
        for key in 0..2000u64 {
            tt.store(key.wrapping_mul(0x9e37_79b9_7f4a_7c15), 0, Move::NULL, 0, 0, 1, BOUND_EXACT, false);
        }
        assert!(tt.hashfull() > 0);
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
    }
}
