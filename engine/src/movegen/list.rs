//! Fixed-capacity move lists and the "sinks" the generator writes into: a list that stores
//! moves, and a counter that only counts them (perft's bulk counting at the last ply).

use crate::board::{Bitboard, Move, PieceType, Square};
use arrayvec::ArrayVec;

/// Enough for any position the FEN parser accepts (the known maximum is 218).
pub const MAX_MOVES: usize = 256;

/// Storage is not initialised up front, so an empty list costs nothing to create.
#[derive(Clone)]
pub struct MoveList {
    moves: ArrayVec<Move, MAX_MOVES>,
}

impl MoveList {
    #[inline]
    pub fn new() -> MoveList {
        MoveList { moves: ArrayVec::new() }
    }

    #[inline]
    pub fn push(&mut self, mv: Move) {
        // The FEN parser bounds the material, so this never fills; if it did, the move would
        // be dropped rather than crash the engine.
        let _ = self.moves.try_push(mv);
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves
    }

    #[inline]
    pub fn contains(&self, mv: Move) -> bool {
        self.as_slice().contains(&mv)
    }

    #[inline]
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }

    #[inline]
    pub fn clear(&mut self) {
        self.moves.clear();
    }

    /// Swap two entries (for in-place selection sorts in the move picker).
    #[inline]
    pub fn swap(&mut self, a: usize, b: usize) {
        self.moves.swap(a, b);
    }

    #[inline]
    pub fn get(&self, index: usize) -> Move {
        self.as_slice()[index]
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// What the generator writes moves into.
pub trait MoveSink {
    fn push(&mut self, mv: Move);

    /// One piece's moves from `from` to every square of `targets`, all of one kind.
    #[inline]
    fn push_targets(&mut self, from: Square, targets: Bitboard, kind: u16) {
        for to in targets {
            self.push(Move::new(from, to, kind));
        }
    }

    /// Pawn moves to every square of `targets`, each coming from `to - delta`.
    #[inline]
    fn push_pawn_targets(&mut self, targets: Bitboard, delta: i8, kind: u16) {
        for to in targets {
            self.push(Move::new(to.offset(-delta), to, kind));
        }
    }

    /// All four promotions for each square of `targets`, each pawn coming from `to - delta`.
    #[inline]
    fn push_promotions(&mut self, targets: Bitboard, delta: i8, capture: bool) {
        for to in targets {
            let from = to.offset(-delta);
            for piece in [PieceType::Queen, PieceType::Knight, PieceType::Rook, PieceType::Bishop] {
                self.push(Move::promotion_move(from, to, piece, capture));
            }
        }
    }
}

impl MoveSink for MoveList {
    #[inline]
    fn push(&mut self, mv: Move) {
        MoveList::push(self, mv);
    }
}

/// Counts moves without storing them.
#[derive(Default)]
pub struct MoveCounter(pub u64);

impl MoveSink for MoveCounter {
    #[inline]
    fn push(&mut self, _mv: Move) {
        self.0 += 1;
    }

    #[inline]
    fn push_targets(&mut self, _from: Square, targets: Bitboard, _kind: u16) {
        self.0 += targets.count() as u64;
    }

    #[inline]
    fn push_pawn_targets(&mut self, targets: Bitboard, _delta: i8, _kind: u16) {
        self.0 += targets.count() as u64;
    }

    #[inline]
    fn push_promotions(&mut self, targets: Bitboard, _delta: i8, _capture: bool) {
        self.0 += 4 * targets.count() as u64;
    }
}
