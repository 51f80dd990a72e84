//! Pawn structure: isolated, doubled, backward, phalanx and supported pawns, and the facts about
//! the pawn skeleton that other terms reuse (passed pawns, where enemy pawns can ever attack,
//! which files hold no own pawn). All of it depends on the pawns alone, so it is cached by
//! `pawn_key()` in a small per-searcher `PawnCache`.

use super::bits::{adjacent_files, file_mask, fill_forward, forward_file, passed_span, ranks_ahead};
use super::params::Params;
use super::score::Score;
use crate::board::{Bitboard, Color, PieceType, Position};
use crate::movegen::attacks::{pawn_attacks, pawn_attacks_set};

/// What the evaluation needs to know about one pawn structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PawnEntry {
    key: u64,
    /// Structure score of each side, from that side's point of view.
    pub score: [Score; 2],
    /// Passed pawns of each side (only the frontmost pawn of a file can be passed).
    pub passed: [Bitboard; 2],
    /// Squares each side's pawns attack now or after some advance.
    pub attack_span: [Bitboard; 2],
    /// Bit `f` set when the side has no pawn on file `f`.
    pub semi_open: [u8; 2],
}

impl PawnEntry {
    /// The entry of a position without pawns (whose pawn key is 0), so a fresh cache is valid.
    const NO_PAWNS: PawnEntry = PawnEntry {
        key: 0,
        score: [Score::ZERO; 2],
        passed: [Bitboard::EMPTY; 2],
        attack_span: [Bitboard::EMPTY; 2],
        semi_open: [0xff; 2],
    };

    pub fn compute(pos: &Position, params: &Params) -> PawnEntry {
        let mut entry = PawnEntry { key: pos.pawn_key(), ..PawnEntry::NO_PAWNS };
        for us in Color::ALL {
            let pawns = pos.pieces_of(us, PieceType::Pawn);
            let (score, passed) = structure(pos, params, us);
            entry.score[us.index()] = score;
            entry.passed[us.index()] = passed;
            entry.attack_span[us.index()] = pawn_attacks_set(us, pawns | fill_forward(us, pawns));
            entry.semi_open[us.index()] = !file_mask(pawns);
        }
        entry
    }
}

/// Scores `us`'s pawns and finds the passed ones.
fn structure(pos: &Position, params: &Params, us: Color) -> (Score, Bitboard) {
    let them = !us;
    let ours = pos.pieces_of(us, PieceType::Pawn);
    let theirs = pos.pieces_of(them, PieceType::Pawn);
    let their_attacks = pawn_attacks_set(them, theirs);
    let mut score = Score::ZERO;
    let mut passed = Bitboard::EMPTY;

    for sq in ours {
        let rank = sq.relative_rank(us) as usize;
        let ahead = forward_file(us, sq);
        let stop = sq.offset(if us == Color::White { 8 } else { -8 });
        let neighbours = ours & adjacent_files(sq.file());
        let supporters = pawn_attacks(them, sq) & ours;
        let phalanx = neighbours & Bitboard::rank(sq.rank());
        let doubled = (ours & ahead).nonempty();
        let opposed = (theirs & ahead).nonempty();

        if doubled {
            score += params.pawn_doubled;
        }
        if neighbours.is_empty() {
            score += params.pawn_isolated;
        } else if (neighbours & !ranks_ahead(us, sq)).is_empty() && (their_attacks | theirs).has(stop) {
            score += params.pawn_backward;
            if !opposed {
                score += params.pawn_backward_exposed;
            }
        }
        if supporters.nonempty() {
            score += params.pawn_supported[rank] * supporters.count() as i32;
        }
        if phalanx.nonempty() {
            score += params.pawn_phalanx[rank];
        }
        if !doubled && (theirs & passed_span(us, sq)).is_empty() {
            passed |= Bitboard::from_square(sq);
        }
    }
    (score, passed)
}

/// A small table of pawn-structure entries, one per searcher. Entries depend on the parameter
/// set: clear the cache after changing parameters.
pub struct PawnCache {
    entries: Box<[PawnEntry]>,
}

impl PawnCache {
    pub const DEFAULT_ENTRIES: usize = 1 << 14;

    /// A cache of `entries` entries, rounded down to a power of two (at least one).
    pub fn new(entries: usize) -> PawnCache {
        let size = if entries <= 1 { 1 } else { 1 << (usize::BITS - 1 - entries.leading_zeros()) };
        PawnCache { entries: vec![PawnEntry::NO_PAWNS; size].into_boxed_slice() }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn clear(&mut self) {
        self.entries.fill(PawnEntry::NO_PAWNS);
    }

    /// The entry for `pos`'s pawns, computed and stored on a miss.
    #[inline]
    pub(super) fn probe(&mut self, pos: &Position, params: &Params) -> &PawnEntry {
        let key = pos.pawn_key();
        let index = key as usize & (self.entries.len() - 1);
        let slot = &mut self.entries[index];
        if slot.key != key {
            *slot = PawnEntry::compute(pos, params);
        }
        slot
    }
}

impl Default for PawnCache {
    fn default() -> PawnCache {
        PawnCache::new(PawnCache::DEFAULT_ENTRIES)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;
    use crate::eval::DEFAULT_PARAMS;

    fn entry(fen: &str) -> PawnEntry {
        PawnEntry::compute(&Position::from_fen(fen).expect("valid FEN"), &DEFAULT_PARAMS)
    }

    #[test]
    fn no_pawns_matches_the_empty_entry() {
        assert_eq!(entry("4k3/8/8/8/8/8/8/4K3 w - - 0 1"), PawnEntry::NO_PAWNS);
    }

    #[test]
    fn passed_pawns_are_found() {
        // White: a5 passed, d4 faces d5. Black: h3 passed, c6 and d5 are held by d4.
        let e = entry("4k3/8/2p5/P2p4/3P4/7p/8/4K3 w - - 0 1");
        let a5 = Square::parse("a5").expect("square");
        let h3 = Square::parse("h3").expect("square");
        assert_eq!(e.passed[0], Bitboard::from_square(a5));
        assert_eq!(e.passed[1], Bitboard::from_square(h3));
        assert_eq!(e.semi_open[0], !0b0000_1001);
    }

    #[test]
    fn doubled_isolated_pawns_cost() {
        let healthy = entry("4k3/8/8/8/8/8/3PP3/4K3 w - - 0 1");
        let broken = entry("4k3/8/8/8/8/4P3/4P3/4K3 w - - 0 1");
        assert!(broken.score[0].eg() < healthy.score[0].eg());
    }

    #[test]
    fn cache_sizes_round_down() {
        assert_eq!(PawnCache::new(0).len(), 1);
        assert_eq!(PawnCache::new(1000).len(), 512);
        assert_eq!(PawnCache::new(1024).len(), 1024);
    }
}
