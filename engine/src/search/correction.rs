//! Pawn-structure correction history: how far the static evaluation has been from what the
//! search found, remembered per side to move and pawn structure, and added to later static
//! evaluations of positions with the same pawns. An evaluation that keeps misjudging a pawn
//! structure (a blocked centre, a passer it underrates) is pulled towards the search's verdict,
//! which sharpens every decision that reads the static evaluation: pruning margins, null move,
//! quiescence stand pat.

use super::params::{CORRECTION_MAX, CORRECTION_MAX_ERROR, CORRECTION_MAX_WEIGHT};
use super::score::MATE_BOUND;
use crate::board::Color;

/// Entries per side; indexed by the low bits of the pawn key.
const ENTRIES: usize = 16_384;
/// Corrections are kept in 1/GRAIN centipawns so that small updates accumulate.
const GRAIN: i32 = 256;
/// Weights are out of this total: a new observation moves an entry by weight/WEIGHT_TOTAL.
const WEIGHT_TOTAL: i32 = 256;

pub struct CorrectionHistory {
    pawn: Vec<[i32; ENTRIES]>,
}

impl CorrectionHistory {
    pub fn new() -> CorrectionHistory {
        CorrectionHistory { pawn: vec![[0; ENTRIES]; 2] }
    }

    pub fn clear(&mut self) {
        for side in &mut self.pawn {
            side.fill(0);
        }
    }

    #[inline]
    fn slot(pawn_key: u64) -> usize {
        (pawn_key as usize) & (ENTRIES - 1)
    }

    /// `raw` evaluation corrected by what was learned for this pawn structure.
    #[inline]
    pub fn corrected(&self, stm: Color, pawn_key: u64, raw: i32) -> i32 {
        let correction = self.pawn[stm.index()][Self::slot(pawn_key)] / GRAIN;
        (raw + correction).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// Learn from a search of `depth` that scored `score` where the raw evaluation said `raw`:
    /// the entry moves towards the difference, the more the deeper the search.
    pub fn update(&mut self, stm: Color, pawn_key: u64, depth: i32, raw: i32, score: i32) {
        // A wild search result (a tactic the evaluation cannot see) teaches little.
        let error = (score - raw).clamp(-CORRECTION_MAX_ERROR(), CORRECTION_MAX_ERROR()) * GRAIN;
        let weight = (depth + 1).clamp(1, CORRECTION_MAX_WEIGHT());
        let entry = &mut self.pawn[stm.index()][Self::slot(pawn_key)];
        let blended = (*entry * (WEIGHT_TOTAL - weight) + error * weight) / WEIGHT_TOTAL;
        *entry = blended.clamp(-CORRECTION_MAX() * GRAIN, CORRECTION_MAX() * GRAIN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_error_is_learned_and_bounded() {
        let mut ch = CorrectionHistory::new();
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
        let mut ch = CorrectionHistory::new();
        for _ in 0..500 {
            ch.update(Color::Black, 7, 30, 0, 1000);
        }
        assert_eq!(ch.corrected(Color::Black, 7, MATE_BOUND - 10), MATE_BOUND - 1);
    }
}
