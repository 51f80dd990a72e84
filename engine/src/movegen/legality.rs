//! Validation of arbitrary 16-bit moves: the shared table, killers and counter moves hand back
//! moves that were legal in some other position (or torn by a racing thread), so the search asks
//! `is_pseudo_legal` and then `is_legal` before playing one. Both accept every `u16`.

use super::attacks::{between, line, pawn_attacks, piece_attacks};
use super::generate::generate;
use super::list::MoveList;
use crate::board::{Bitboard, Color, Move, PieceType, Position};

impl Position {
    /// Whether `mv` is a move of the side to move's pieces that follows the piece's movement
    /// rules here, ignoring only whether it leaves the own king in check. Castling is checked
    /// completely (it is legal iff this returns true).
    pub fn is_pseudo_legal(&self, mv: Move) -> bool {
        let from = mv.from();
        let to = mv.to();
        let kind = mv.kind();
        if from == to || matches!(kind, 3 | 6 | 7) {
            return false;
        }
        let us = self.side_to_move();
        let Some(piece) = self.piece_on(from) else { return false };
        if piece.color() != us {
            return false;
        }
        if mv.is_castle() {
            if piece.kind() != PieceType::King || self.in_check() {
                return false;
            }
            let mut castles = MoveList::new();
            generate::<_, false, true>(self, &mut castles);
            return castles.contains(mv);
        }

        let target = self.piece_on(to);
        if mv.is_en_passant() {
            if piece.kind() != PieceType::Pawn || self.en_passant() != Some(to) {
                return false;
            }
        } else if mv.is_capture() {
            match target {
                Some(p) if p.color() != us && p.kind() != PieceType::King => {}
                _ => return false,
            }
        } else if target.is_some() {
            return false;
        }

        let last_rank = to.relative_rank(us) == 7;
        if piece.kind() != PieceType::Pawn {
            return !mv.is_promotion()
                && !mv.is_double_push()
                && piece_attacks(piece.kind(), from, self.occupied()).has(to);
        }

        // Pawns: promotions exactly when reaching the last rank.
        if mv.is_promotion() != last_rank {
            return false;
        }
        let up: i8 = if us == Color::White { 8 } else { -8 };
        if mv.is_capture() {
            return pawn_attacks(us, from).has(to);
        }
        if mv.is_double_push() {
            return from.relative_rank(us) == 1
                && to.index() as i32 == from.index() as i32 + 2 * up as i32
                && self.piece_on(from.offset(up)).is_none();
        }
        to.index() as i32 == from.index() as i32 + up as i32
    }

    /// Whether a pseudo-legal move leaves the own king safe.
    pub fn is_legal(&self, mv: Move) -> bool {
        debug_assert!(self.is_pseudo_legal(mv));
        let us = self.side_to_move();
        let from = mv.from();
        let to = mv.to();
        let ksq = self.king_square(us);
        if mv.is_castle() {
            return true;
        }
        if from == ksq {
            let occ = self.occupied() ^ Bitboard::from_square(from);
            return !self.is_attacked_by(!us, to, occ);
        }
        if mv.is_en_passant() {
            return self.en_passant_is_legal(from, to);
        }
        let checkers = self.checkers();
        if checkers.several() {
            return false;
        }
        if let Some(checker) = checkers.into_iter().next() {
            if !(between(ksq, checker) | Bitboard::from_square(checker)).has(to) {
                return false;
            }
        }
        !self.pinned().has(from) || line(ksq, from).has(to)
    }

    /// Both checks at once, for moves of unknown origin.
    #[inline]
    pub fn is_legal_move(&self, mv: Move) -> bool {
        self.is_pseudo_legal(mv) && self.is_legal(mv)
    }
}
