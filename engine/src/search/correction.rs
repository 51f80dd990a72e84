//! Pawn-structure correction history: how far the static evaluation has been from what the
//! search found, remembered per side to move and pawn structure, and added to later static
//! evaluations of positions with the same pawns. An evaluation that keeps misjudging a pawn
//! structure (a blocked centre, a passer it underrates) is pulled towards the search's verdict,
//! which sharpens every decision that reads the static evaluation: pruning margins, null move,
//! quiescence stand pat.
//!
//! One table serves every thread of a pool (`Searcher::share_correction`), as in Stockfish since
//! 2025: what one thread learns about a pawn structure corrects the others' evaluations at once,
//! so a helper's search sharpens the main thread's pruning and not only its table entries.
//! Entries are `AtomicI32`s read and written with relaxed loads and stores; two threads updating
//! one entry at once may lose one update, which only means one observation fewer. With one thread
//! the table behaves exactly as a private one.

use super::params::{CORRECTION_MAX, CORRECTION_MAX_ERROR, CORRECTION_MAX_WEIGHT};
use super::score::MATE_BOUND;
use crate::board::Color;
use std::sync::atomic::{AtomicI32, Ordering};

/// Entries per side; indexed by the low bits of the pawn key.
const ENTRIES: usize = 16_384;
/// Corrections are kept in 1/GRAIN centipawns so that small updates accumulate.
const GRAIN: i32 = 256;
/// Weights are out of this total: a new observation moves an entry by weight/WEIGHT_TOTAL.
const WEIGHT_TOTAL: i32 = 256;

pub struct CorrectionHistory {
    /// `ENTRIES` per side to move, White's first.
    pawn: Box<[AtomicI32]>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        Self::new()
    }
}

impl CorrectionHistory {
    pub fn new() -> CorrectionHistory {
        CorrectionHistory { pawn: (0..2 * ENTRIES).map(|_| AtomicI32::new(0)).collect() }
    }

    pub fn clear(&self) {
        self.pawn.iter().for_each(|entry| entry.store(0, Ordering::Relaxed));
    }

    /// How many entries hold a correction (for tests and diagnostics).
    pub fn learned(&self) -> usize {
        self.pawn.iter().filter(|entry| entry.load(Ordering::Relaxed) != 0).count()
    }

    #[inline]
    fn entry(&self, stm: Color, pawn_key: u64) -> &AtomicI32 {
        &self.pawn[stm.index() * ENTRIES + ((pawn_key as usize) & (ENTRIES - 1))]
    }

    /// `raw` evaluation corrected by what was learned for this pawn structure.
    #[inline]
    pub fn corrected(&self, stm: Color, pawn_key: u64, raw: i32) -> i32 {
        let correction = self.entry(stm, pawn_key).load(Ordering::Relaxed) / GRAIN;
        (raw + correction).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// Learn from a search of `depth` that scored `score` where the raw evaluation said `raw`:
    /// the entry moves towards the difference, the more the deeper the search.
    pub fn update(&self, stm: Color, pawn_key: u64, depth: i32, raw: i32, score: i32) {
        // A wild search result (a tactic the evaluation cannot see) teaches little.
        let error = (score - raw).clamp(-CORRECTION_MAX_ERROR(), CORRECTION_MAX_ERROR()) * GRAIN;
        let weight = (depth + 1).clamp(1, CORRECTION_MAX_WEIGHT());
        let entry = self.entry(stm, pawn_key);
        let old = entry.load(Ordering::Relaxed);
        let blended = (old * (WEIGHT_TOTAL - weight) + error * weight) / WEIGHT_TOTAL;
        entry.store(blended.clamp(-CORRECTION_MAX() * GRAIN, CORRECTION_MAX() * GRAIN), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_error_is_learned_and_bounded() {
        let ch = CorrectionHistory::new();
        let key = 0x1234_5678_9abc_def0;
        assert_eq!(ch.corrected(Color::White, key, 10), 10);
        for _ in 0..200 {
            ch.update(Color::White, key, 10, 0, 50);
        }
        let learned = ch.corrected(Color::White, key, 0);
        assert!((45..=50).contains(&learned), "learned {learned}");
        // The other side and other pawn structures are untouched.
        assert_eq!(ch.corrected(Color::Black, key, 0), 0);
        assert_eq!(ch.corrected(Color::White, key ^ 1, 0), 0);
        for _ in 0..1000 {
            ch.update(Color::White, key, 20, 0, -10_000);
        }
        assert_eq!(ch.corrected(Color::White, key, 0), -CORRECTION_MAX());
        ch.clear();
        assert_eq!(ch.corrected(Color::White, key, 0), 0);
    }

    #[test]
    fn corrections_never_reach_mate_scores() {
        let ch = CorrectionHistory::new();
        for _ in 0..500 {
            ch.update(Color::Black, 7, 30, 0, 1000);
        }
        assert_eq!(ch.corrected(Color::Black, 7, MATE_BOUND - 10), MATE_BOUND - 1);
    }
}
