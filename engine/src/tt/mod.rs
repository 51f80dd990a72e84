//! The shared transposition table: lock-free, written and read by every search thread at once.
//!
//! # Layout
//! The table is a vector of 64-byte buckets (one cache line), each holding six entries of ten
//! bytes: an `AtomicU64` word and an `AtomicU16` static evaluation. The word packs a 16-bit check
//! (the key's low 16 bits XOR-ed with the evaluation), the move (16 bits), score (16), depth (8)
//! and a byte of generation (5 bits), PV flag (1) and bound (2). A bucket is chosen by the high
//! bits of a 128-bit product of the key and the bucket count, so any table size works and the
//! check bits are independent of the bucket. Six entries per line is 1.5 times the entries of a
//! layout with a full 64-bit key in every entry (Ethereal and Stockfish pack theirs the same way).
//!
//! # Concurrency contract
//! All accesses are `Relaxed` loads and stores of whole atomics; there is no lock and no `unsafe`.
//! Each word is written in one store, so the only tear possible is a word from one write paired
//! with an evaluation from another. Such an entry fails the check `check ^ eval == key & 0xffff`
//! unless both writes stored the same evaluation (then nothing is wrong with it). With 16 check
//! bits, a probe for a position that is not stored matches some other position's entry about once
//! in 11,000 probes (six slots, 1/65536 each): twice Stockfish's rate, which checks 16 bits in
//! three slots. The bucket's 4 spare bytes could hold 5 more check bits per entry, at the cost
//! of a second atomic per store that can tear from the word.
//! An entry is therefore only a hint: its move is validated with `Position::is_pseudo_legal` and
//! `is_legal` before it is played, and a wrong score can at worst mislead the search, never crash
//! it.
//!
//! # Replacement
//! Within a bucket, an entry with the same key is overwritten when the new one is exact, deeper
//! (allowing a margin) or the old one is from an earlier search. Otherwise the entry with the
//! least `depth - 8 * age` is replaced. The generation advances once per search (`new_search`).
//!
//! Mate scores are stored relative to the node (`score_to_tt`) and converted back relative to the
//! root on probe (`score_from_tt`).

#[cfg(feature = "cluster")]
mod exchange;
#[allow(unsafe_code)]
mod memory;
mod persist;

#[cfg(feature = "cluster")]
pub use exchange::{Outbox, SharedEntry};
pub use persist::TableFile;

use crate::board::Move;
use memory::ZeroedSlice;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, AtomicU8, Ordering};

pub const BOUND_NONE: u8 = 0;
pub const BOUND_UPPER: u8 = 1;
pub const BOUND_LOWER: u8 = 2;
pub const BOUND_EXACT: u8 = 3;

const ENTRIES_PER_BUCKET: usize = 6;
const GENERATION_BITS: u8 = 5;
const GENERATION_CYCLE: u8 = 1 << GENERATION_BITS;

use crate::search::score::{is_decisive, MATE, MATE_BOUND, PLY_DEPENDENT_BOUND, TB_WIN};

/// Six entries in one cache line: 48 bytes of words, 12 of evaluations, 4 unused.
#[repr(C, align(64))]
#[derive(Default)]
pub(crate) struct Bucket {
    words: [AtomicU64; ENTRIES_PER_BUCKET],
    evals: [AtomicU16; ENTRIES_PER_BUCKET],
}

const _: () = assert!(std::mem::size_of::<Bucket>() == 64);

/// The 16 bits of a key that an entry keeps.
#[inline]
fn key_check(key: u64) -> u16 {
    key as u16
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
    /// The entry held by `word` and `eval`, if it belongs to a key whose check bits are `check`.
    #[inline]
    fn unpack_if(word: u64, eval: u16, check: u16) -> Option<TtEntry> {
        (word != 0 && word as u16 ^ eval == check).then(|| TtEntry::unpack(word, eval))
    }

    fn unpack(word: u64, eval: u16) -> TtEntry {
        let flags = (word >> 56) as u8;
        TtEntry {
            mv: Move::from_raw((word >> 16) as u16),
            score: (word >> 32) as u16 as i16 as i32,
            eval: eval as i16 as i32,
            depth: (word >> 48) as u8 as i32 - DEPTH_OFFSET,
            bound: flags & 3,
            pv: flags & 4 != 0,
            generation: flags >> 3,
        }
    }

    /// The word and the evaluation to store for the key whose check bits are `check`.
    fn pack(self, check: u16) -> (u64, u16) {
        let eval = self.eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16;
        let flags = self.bound & 3 | (self.pv as u8) << 2 | self.generation << 3;
        let word = (check ^ eval) as u64
            | (self.mv.raw() as u64) << 16
            | (self.score as i16 as u16 as u64) << 32
            | ((self.depth + DEPTH_OFFSET).clamp(0, 255) as u64) << 48
            | (flags as u64) << 56;
        (word, eval)
    }
}

/// Stored depths are offset so quiescence entries (depth 0 and slightly below) fit in a byte;
/// every stored depth is at least -1, so a stored word is never zero (zero marks an empty slot).
const DEPTH_OFFSET: i32 = 8;

pub struct TranspositionTable {
    buckets: ZeroedSlice<Bucket>,
    generation: AtomicU8,
    /// An analysis runs: a position's entry is never replaced by a shallower one.
    keep_deeper: AtomicBool,
    /// Where stores go to be shared with other processes' tables (the `cluster` build).
    #[cfg(feature = "cluster")]
    outbox: std::sync::OnceLock<std::sync::Arc<Outbox>>,
}

impl TranspositionTable {
    /// A table of about `mb` megabytes (at least one bucket). Panics only if the allocation
    /// fails; use `try_new` to handle that.
    pub fn new(mb: usize) -> TranspositionTable {
        Self::try_new(mb).expect("allocate the transposition table")
    }

    /// A table of about `mb` megabytes, or `None` when the memory cannot be allocated.
    pub fn try_new(mb: usize) -> Option<TranspositionTable> {
        ZeroedSlice::new(Self::buckets_for(mb)).map(Self::of_buckets)
    }

    fn of_buckets(buckets: ZeroedSlice<Bucket>) -> TranspositionTable {
        TranspositionTable {
            buckets,
            generation: AtomicU8::new(0),
            keep_deeper: AtomicBool::new(false),
            #[cfg(feature = "cluster")]
            outbox: std::sync::OnceLock::new(),
        }
    }

    fn buckets_for(mb: usize) -> usize {
        (mb.max(1).saturating_mul(1 << 20) / std::mem::size_of::<Bucket>()).max(1)
    }

    /// Buckets of 64 bytes.
    pub fn bucket_count(&self) -> usize {
        self.buckets.len()
    }

    /// Size in megabytes.
    pub fn size_mb(&self) -> usize {
        (self.buckets.len() * std::mem::size_of::<Bucket>()) >> 20
    }

    /// Erase every entry. On Linux the memory goes back to the system at once; elsewhere the
    /// zeros are written by `threads` threads.
    pub fn clear(&self, threads: usize) {
        self.buckets.zero(|buckets| write_zeros(buckets, threads));
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Clear the table by writing every entry, on `threads` threads: slower than `clear`, but
    /// afterwards every page of the table is in memory, so a timed search that follows (a
    /// benchmark's) pays for no page faults.
    pub fn clear_resident(&self, threads: usize) {
        write_zeros(&self.buckets, threads);
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Makes every page of the table resident, 2 MB at a time until `cancelled` says to stop,
    /// without changing any entry: each page is touched by an atomic compare-and-swap of zero
    /// for zero, which leaves its word as it was, so searches may use the table meanwhile. Returns whether it
    /// got to the end.
    pub fn make_resident(&self, cancelled: impl Fn() -> bool) -> bool {
        self.make_share_resident(0, 1, cancelled)
    }

    /// `make_resident` for share `part` of `parts`: the 2 MB chunks `part`, `part + parts`, ...
    /// (threads on different NUMA nodes each touch their share, and so place it on their node).
    pub fn make_share_resident(&self, part: usize, parts: usize, cancelled: impl Fn() -> bool) -> bool {
        const PAGE_BUCKETS: usize = 4096 / std::mem::size_of::<Bucket>();
        const CHUNK_BUCKETS: usize = (2 << 20) / std::mem::size_of::<Bucket>();
        for chunk in self.buckets.chunks(CHUNK_BUCKETS).skip(part).step_by(parts.max(1)) {
            if cancelled() {
                return false;
            }
            for bucket in chunk.iter().step_by(PAGE_BUCKETS) {
                // A write, whatever the outcome (an idempotent `fetch_or` may be compiled to a
                // plain load, which only maps the shared zero page).
                let _ = bucket.words[0].compare_exchange(0, 0, Ordering::Relaxed, Ordering::Relaxed);
            }
        }
        true
    }

    /// For an analysis (`on`), a position's entry is kept against every shallower result, of
    /// whatever search or bound, and counts as the current search's: an analysis resumed from
    /// the table at its depth would otherwise overwrite the deep entries it resumes from as it
    /// goes. Games keep the usual rule (`store`).
    pub fn set_keep_deeper(&self, on: bool) {
        self.keep_deeper.store(on, Ordering::Relaxed);
    }

    /// Start a new search: entries from earlier searches become preferred victims.
    pub fn new_search(&self) {
        let next = (self.generation.load(Ordering::Relaxed) + 1) % GENERATION_CYCLE;
        self.generation.store(next, Ordering::Relaxed);
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        ((key as u128 * self.buckets.len() as u128) >> 64) as usize
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        &self.buckets[self.index(key)]
    }

    /// Hint the CPU to fetch the bucket of `key` (call right after making a move).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        memory::prefetch(self.bucket(key));
    }

    /// The entry stored for `key`, with its score converted for a node at `ply` whose
    /// fifty-move counter is `halfmove` (`score_from_tt`).
    #[inline]
    pub fn probe(&self, key: u64, ply: usize, halfmove: u16) -> Option<TtEntry> {
        let bucket = self.bucket(key);
        let check = key_check(key);
        for (word, eval) in bucket.words.iter().zip(&bucket.evals) {
            let word = word.load(Ordering::Relaxed);
            if let Some(mut entry) = TtEntry::unpack_if(word, eval.load(Ordering::Relaxed), check) {
                entry.score = score_from_tt(entry.score, ply, halfmove);
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
        let _written = self.place(key, ply, mv, score, eval, depth, bound, pv);
        #[cfg(feature = "cluster")]
        if let (Some(entry), Some(outbox)) = (_written, self.outbox.get()) {
            outbox.saved(key, &entry);
        }
    }

    /// Share this table's deep stores through `outbox` from now on (once per table).
    #[cfg(feature = "cluster")]
    pub fn set_outbox(&self, outbox: std::sync::Arc<Outbox>) {
        let _ = self.outbox.set(outbox);
    }

    /// Store an entry another process's table shared, by the rules the table's own stores
    /// follow; it is not offered to the outbox again.
    #[cfg(feature = "cluster")]
    pub fn store_shared(&self, shared: &SharedEntry) {
        let mv = Move::from_raw(shared.mv);
        let (score, eval, depth) = (shared.score.into(), shared.eval.into(), shared.depth.into());
        self.place(shared.key, 0, mv, score, eval, depth, shared.bound, shared.pv);
    }

    /// `store`'s work: the entry written, if the table took it.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn place(
        &self,
        key: u64,
        ply: usize,
        mv: Move,
        score: i32,
        eval: i32,
        depth: i32,
        bound: u8,
        pv: bool,
    ) -> Option<TtEntry> {
        let generation = self.generation.load(Ordering::Relaxed);
        let bucket = self.bucket(key);
        let check = key_check(key);
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        let mut old = None;
        for (slot, (word, eval)) in bucket.words.iter().zip(&bucket.evals).enumerate() {
            let word = word.load(Ordering::Relaxed);
            let eval = eval.load(Ordering::Relaxed);
            if let Some(entry) = TtEntry::unpack_if(word, eval, check) {
                victim = slot;
                old = Some(entry);
                break;
            }
            let entry = TtEntry::unpack(word, eval);
            let age = (GENERATION_CYCLE + generation - entry.generation) % GENERATION_CYCLE;
            let worth = if word == 0 { i32::MIN } else { entry.depth - 8 * age as i32 };
            if worth < victim_worth {
                victim_worth = worth;
                victim = slot;
            }
        }

        let mut mv = mv;
        if let Some(old) = old.filter(|old| old.depth > depth && self.keep_deeper.load(Ordering::Relaxed)) {
            if old.generation != generation {
                let (word, eval) = TtEntry { generation, ..old }.pack(check);
                bucket.evals[victim].store(eval, Ordering::Relaxed);
                bucket.words[victim].store(word, Ordering::Relaxed);
            }
            return None;
        }
        if let Some(old) = old {
            // Keep a deeper result from this search unless the new one is exact.
            if bound != BOUND_EXACT && old.generation == generation && depth + 2 * pv as i32 + 4 <= old.depth
            {
                return None;
            }
            if mv.is_null() {
                mv = old.mv;
            }
        }
        let entry = TtEntry { mv, score: score_to_tt(score, ply), eval, depth, bound, pv, generation };
        let (word, eval) = entry.pack(check);
        bucket.evals[victim].store(eval, Ordering::Relaxed);
        bucket.words[victim].store(word, Ordering::Relaxed);
        Some(entry)
    }

    /// Permille of sampled entries written during the current search.
    pub fn hashfull(&self) -> usize {
        let generation = self.generation.load(Ordering::Relaxed);
        let sample = self.buckets.len().clamp(1, 1000 / ENTRIES_PER_BUCKET + 1);
        let mut used = 0;
        for bucket in &self.buckets[..sample] {
            for word in &bucket.words {
                let word = word.load(Ordering::Relaxed);
                if word != 0 && TtEntry::unpack(word, 0).generation == generation {
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

/// The stored `score` for a node at `ply` whose fifty-move counter is `halfmove`. A mate or a
/// tablebase result further away than the counter leaves may never be reached (the draw comes
/// first): it reads as the best undecided score instead, still good enough to steer by, never a
/// proof.
#[inline]
pub fn score_from_tt(score: i32, ply: usize, halfmove: u16) -> i32 {
    if !is_decisive(score) {
        return score;
    }
    let plies_left = 100 - i32::from(halfmove.min(100));
    let distance = if score.abs() >= MATE_BOUND { MATE - score.abs() } else { TB_WIN - score.abs() };
    let undecided = PLY_DEPENDENT_BOUND - 1;
    match (distance > plies_left, score > 0) {
        (true, true) => undecided,
        (true, false) => -undecided,
        (false, true) => score - ply as i32,
        (false, false) => score + ply as i32,
    }
}

/// Zero `buckets` by writing them, split among `threads` scoped threads (a part whose thread
/// the system refuses is written by this one).
fn write_zeros(buckets: &[Bucket], threads: usize) {
    let threads = threads.clamp(1, 256);
    let chunk = buckets.len().div_ceil(threads);
    let zero = |part: &[Bucket]| {
        for bucket in part {
            bucket.words.iter().for_each(|word| word.store(0, Ordering::Relaxed));
            bucket.evals.iter().for_each(|eval| eval.store(0, Ordering::Relaxed));
        }
    };
    std::thread::scope(|scope| {
        for part in buckets.chunks(chunk.max(1)) {
            if std::thread::Builder::new().spawn_scoped(scope, move || zero(part)).is_err() {
                zero(part);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;
    use crate::search::score::TB_WIN;
    use support::rng::Rng;

    fn some_move() -> Move {
        Move::new(Square::new(12), Square::new(28), Move::DOUBLE_PUSH)
    }

    #[test]
    fn store_then_probe() {
        let tt = TranspositionTable::new(1);
        tt.store(0xdead_beef, 0, some_move(), -123, 45, 7, BOUND_LOWER, true);
        let e = tt.probe(0xdead_beef, 0, 0).expect("stored");
        assert_eq!(
            (e.mv, e.score, e.eval, e.depth, e.bound, e.pv),
            (some_move(), -123, 45, 7, BOUND_LOWER, true)
        );
        assert!(tt.probe(0xdead_bee0, 0, 0).is_none());
        tt.clear(2);
        assert!(tt.probe(0xdead_beef, 0, 0).is_none());
    }

    #[test]
    fn mate_scores_are_stored_relative_to_the_node() {
        let tt = TranspositionTable::new(1);
        let mate_in_3_from_root = 32_000 - 5;
        // Found at ply 2: from that node it is a mate in 3 plies.
        tt.store(42, 2, Move::NULL, mate_in_3_from_root, 0, 4, BOUND_EXACT, false);
        // Probed at ply 4 through another path: the mate is 2 plies further from the root.
        assert_eq!(tt.probe(42, 4, 0).map(|e| e.score), Some(mate_in_3_from_root - 2));
        tt.store(43, 3, Move::NULL, -32_000 + 7, 0, 4, BOUND_EXACT, false);
        assert_eq!(tt.probe(43, 1, 0).map(|e| e.score), Some(-32_000 + 5));
        assert_eq!(score_from_tt(score_to_tt(250, 9), 3, 0), 250);
    }

    #[test]
    fn a_decided_score_the_fifty_move_rule_spoils_is_read_as_the_best_undecided_one() {
        let best_undecided = PLY_DEPENDENT_BOUND - 1;
        let tt = TranspositionTable::new(1);
        // A mate in 5 plies from the node: reachable with 94 plies on the counter, not with 96.
        tt.store(50, 0, Move::NULL, 32_000 - 5, 0, 4, BOUND_EXACT, false);
        assert_eq!(tt.probe(50, 0, 94).map(|e| e.score), Some(32_000 - 5));
        assert_eq!(tt.probe(50, 0, 96).map(|e| e.score), Some(best_undecided));
        tt.store(51, 0, Move::NULL, -32_000 + 5, 0, 4, BOUND_EXACT, false);
        assert_eq!(tt.probe(51, 2, 94).map(|e| e.score), Some(-32_000 + 7));
        assert_eq!(tt.probe(51, 2, 96).map(|e| e.score), Some(-best_undecided));
        // A tablebase win 30 plies away: reachable with 70 on the counter, not with 71.
        tt.store(52, 0, Move::NULL, TB_WIN - 30, 0, 4, BOUND_EXACT, false);
        assert_eq!(tt.probe(52, 0, 70).map(|e| e.score), Some(TB_WIN - 30));
        assert_eq!(tt.probe(52, 0, 71).map(|e| e.score), Some(best_undecided));
        tt.store(53, 0, Move::NULL, -TB_WIN + 30, 0, 4, BOUND_EXACT, false);
        assert_eq!(tt.probe(53, 0, 71).map(|e| e.score), Some(-best_undecided));
        assert_eq!(score_from_tt(300, 5, 99), 300);
    }

    #[test]
    fn an_evaluation_from_another_write_reads_as_a_miss() {
        let tt = TranspositionTable::new(1);
        tt.store(7, 0, some_move(), 10, 25, 3, BOUND_EXACT, false);
        let bucket = tt.bucket(7);
        let slot = bucket.words.iter().position(|w| w.load(Ordering::Relaxed) != 0).expect("stored");
        // The word of this write paired with another write's evaluation: a tear.
        bucket.evals[slot].store(-40i16 as u16, Ordering::Relaxed);
        assert!(tt.probe(7, 0, 0).is_none());
        // The same evaluation again: the entry is whole.
        bucket.evals[slot].store(25, Ordering::Relaxed);
        assert_eq!(tt.probe(7, 0, 0).map(|e| (e.mv, e.eval)), Some((some_move(), 25)));
    }

    #[test]
    fn an_analysis_keeps_a_deeper_entry_against_every_shallower_result() {
        let other = Move::new(Square::new(6), Square::new(21), 0);
        for keep in [false, true] {
            let tt = TranspositionTable::new(1);
            tt.store(99, 0, some_move(), 40, 5, 20, BOUND_EXACT, true);
            // A later search (a loaded file's, or the one before in this process).
            tt.new_search();
            tt.set_keep_deeper(keep);
            tt.store(99, 0, other, -15, 5, 6, BOUND_EXACT, true);
            let entry = tt.probe(99, 0, 0).expect("stored");
            if keep {
                assert_eq!((entry.mv, entry.score, entry.depth), (some_move(), 40, 20));
                // It now counts as this search's: a new entry elsewhere does not age it out.
                assert_eq!(entry.generation, tt.generation.load(Ordering::Relaxed));
                // A deeper result replaces it as always.
                tt.store(99, 0, other, -15, 5, 21, BOUND_LOWER, true);
                assert_eq!(tt.probe(99, 0, 0).map(|e| (e.mv, e.depth)), Some((other, 21)));
            } else {
                assert_eq!((entry.mv, entry.score, entry.depth), (other, -15, 6), "games replace as before");
            }
        }
    }

    /// Keys that share a bucket (the same high bits) and differ in their check bits.
    fn keys_of_one_bucket(count: u64) -> Vec<u64> {
        (1..=count).map(|i| 0xabcd_0000_0000_0000 | (i * 0x0101)).collect()
    }

    #[test]
    fn a_bucket_holds_six_entries_and_tells_their_keys_apart() {
        let tt = TranspositionTable::new(1);
        let keys = keys_of_one_bucket(7);
        assert!(keys.iter().all(|&key| tt.index(key) == tt.index(keys[0])));
        for (depth, &key) in keys[..6].iter().enumerate() {
            tt.store(key, 0, some_move(), depth as i32, depth as i32, depth as i32 + 1, BOUND_LOWER, false);
        }
        for (depth, &key) in keys[..6].iter().enumerate() {
            let entry = tt.probe(key, 0, 0).expect("all six kept");
            assert_eq!(
                (entry.score, entry.eval, entry.depth),
                (depth as i32, depth as i32, depth as i32 + 1)
            );
        }
        // A seventh key replaces the shallowest entry (depth 1), and only that one.
        tt.store(keys[6], 0, some_move(), 99, 0, 9, BOUND_EXACT, false);
        assert_eq!(tt.probe(keys[6], 0, 0).map(|e| e.score), Some(99));
        assert!(tt.probe(keys[0], 0, 0).is_none());
        assert!(keys[1..6].iter().all(|&key| tt.probe(key, 0, 0).is_some()));
    }

    #[test]
    fn a_shallower_result_of_this_search_keeps_the_deeper_one() {
        let tt = TranspositionTable::new(1);
        tt.store(5, 0, some_move(), 30, 0, 12, BOUND_LOWER, false);
        tt.store(5, 0, Move::NULL, -30, 0, 2, BOUND_UPPER, false);
        assert_eq!(tt.probe(5, 0, 0).map(|e| (e.score, e.depth)), Some((30, 12)));
        // From an earlier search it gives way, and an empty move keeps the old one.
        tt.new_search();
        tt.store(5, 0, Move::NULL, -30, 0, 2, BOUND_UPPER, false);
        assert_eq!(tt.probe(5, 0, 0).map(|e| (e.mv, e.score, e.depth)), Some((some_move(), -30, 2)));
    }

    /// Every field of an entry derived from its key, so a hit can be checked.
    fn fields_for(key: u64) -> (Move, i32, i32, i32) {
        let mv = Move::from_raw((key >> 7) as u16 | 1);
        let score = ((key >> 23) % 2001) as i32 - 1000;
        let eval = ((key >> 37) % 2001) as i32 - 1000;
        let depth = ((key >> 51) % 60) as i32;
        (mv, score, eval, depth)
    }

    /// Keys for the hammer test: `per_bucket` keys in each of the first `buckets` buckets, so
    /// threads fight over the same slots. Buckets where a tear could pass the check are left
    /// out: a word of key `a` with the evaluation of key `b` (or of an empty slot) looks like key
    /// `c` when `check(a) ^ eval(a) ^ eval(b) == check(c)`. With 16 check bits that happens for
    /// a few real keys by chance; excluding those buckets makes any torn hit a failure.
    fn hammer_keys(tt: &TranspositionTable, buckets: usize, per_bucket: usize) -> Vec<u64> {
        let mut groups = vec![Vec::new(); buckets];
        let mut i = 0u64;
        while groups.iter().any(|group| group.len() < per_bucket) {
            let key = i.wrapping_mul(0xd6e8_feb8_6659_fd93);
            i += 1;
            if let Some(group) = groups.get_mut(tt.index(key)).filter(|g| g.len() < per_bucket) {
                group.push(key);
            }
        }
        let eval_bits = |key: u64| fields_for(key).2 as i16 as u16;
        let tear_can_pass = |group: &Vec<u64>| {
            let evals: Vec<u16> = group.iter().map(|&k| eval_bits(k)).chain([0]).collect();
            group.iter().any(|&a| {
                evals.iter().filter(|&&e| e != eval_bits(a)).any(|&e| {
                    let seen = key_check(a) ^ eval_bits(a) ^ e;
                    group.iter().any(|&c| key_check(c) == seen)
                })
            })
        };
        groups.into_iter().filter(|group| !tear_can_pass(group)).flatten().collect()
    }

    #[test]
    fn concurrent_writers_never_produce_a_torn_hit() {
        // Twelve keys for six slots in each of a few buckets: threads constantly overwrite
        // each other's entries.
        let tt = TranspositionTable::new(1);
        let keys = hammer_keys(&tt, 16, 12);
        assert!(keys.len() >= 12 * 12, "{} keys left", keys.len());
        let hits = AtomicU64::new(0);
        std::thread::scope(|scope| {
            for thread in 0..8u64 {
                let (tt, hits, keys) = (&tt, &hits, &keys);
                scope.spawn(move || {
                    let mut rng = Rng::new(thread);
                    for _ in 0..300_000 {
                        let key = keys[rng.below(keys.len() as u64) as usize];
                        if rng.below(2) == 0 {
                            let (mv, score, eval, depth) = fields_for(key);
                            tt.store(key, 0, mv, score, eval, depth, BOUND_EXACT, false);
                        } else if let Some(e) = tt.probe(key, 0, 0) {
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
        for word in [0u64, u64::MAX, 0x8000_8000_8000_8000, 0x0123_4567_89ab_cdef] {
            let e = TtEntry::unpack(word, word as u16);
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

    /// For each 2 MB chunk of the table: `Some(true)` when every page of it is in memory,
    /// `Some(false)` when none is, `None` when some are.
    #[cfg(target_os = "linux")]
    fn resident_chunks(tt: &TranspositionTable) -> Vec<Option<bool>> {
        let (page, pages) = tt.buckets.resident_pages();
        let chunks =
            pages.chunks((2 << 20) / page).map(|chunk| match chunk.iter().filter(|&&page| page).count() {
                0 => Some(false),
                n if n == chunk.len() => Some(true),
                _ => None,
            });
        chunks.collect()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn making_the_table_resident_touches_every_page_and_changes_no_entry() {
        let tt = TranspositionTable::new(64);
        assert!(
            resident_chunks(&tt).iter().all(|&chunk| chunk == Some(false)),
            "a new table costs no memory"
        );
        assert!(tt.make_resident(|| false));
        assert!(resident_chunks(&tt).iter().all(|&chunk| chunk == Some(true)), "every page came in");
        let keys: Vec<u64> = (1..2000u64).map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        for (i, &key) in keys.iter().enumerate() {
            tt.store(key, 0, Move::NULL, i as i32 % 500, 7, 3, BOUND_EXACT, false);
        }
        let before: Vec<Option<TtEntry>> = keys.iter().map(|&key| tt.probe(key, 0, 0)).collect();
        assert!(tt.make_resident(|| false));
        let after: Vec<Option<TtEntry>> = keys.iter().map(|&key| tt.probe(key, 0, 0)).collect();
        assert!(before == after, "no entry changed");
        let calls = std::cell::Cell::new(0);
        assert!(!tt.make_resident(|| {
            calls.set(calls.get() + 1);
            calls.get() > 1
        }));
        assert_eq!(calls.get(), 2, "it stops at the first chunk after it is told to");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_share_of_the_table_touches_its_part_and_the_shares_together_all() {
        let tt = TranspositionTable::new(128);
        assert!(tt.make_share_resident(1, 4, || false));
        let chunks = resident_chunks(&tt);
        assert_eq!(chunks.len(), 64);
        for (i, &chunk) in chunks.iter().enumerate() {
            assert_eq!(chunk, Some(i % 4 == 1), "chunk {i} after share 1 of 4");
        }
        for part in [0, 2, 3] {
            assert!(tt.make_share_resident(part, 4, || false));
        }
        assert!(
            resident_chunks(&tt).iter().all(|&chunk| chunk == Some(true)),
            "the four shares brought in all"
        );
    }

    #[test]
    fn clearing_resident_empties_the_table_like_clear() {
        let tt = TranspositionTable::new(1);
        let keys: Vec<u64> = (1..500u64).map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        for &key in &keys {
            tt.store(key, 0, Move::NULL, 0, 0, 1, BOUND_EXACT, false);
        }
        assert!(keys.iter().any(|&key| tt.probe(key, 0, 0).is_some()));
        tt.clear_resident(3);
        assert!(keys.iter().all(|&key| tt.probe(key, 0, 0).is_none()));
        assert_eq!(tt.hashfull(), 0);
    }
}
