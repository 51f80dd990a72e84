//! A move in 16 bits: `from` (6 bits), `to` (6 bits) and a 4-bit kind.
//!
//! Castling is stored as "king takes own rook" (`to` is the castling rook's square), which covers
//! Chess960 and standard chess alike; UCI output converts it. The raw value 0 (a1a1) is the null
//! move: no legal move has `from == to`. Any other `u16` may come back from the shared table, so
//! nothing here trusts a move; `Position::is_pseudo_legal` decides.

use super::types::{PieceType, Square};
use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Move(u16);

impl Move {
    pub const NULL: Move = Move(0);

    pub const QUIET: u16 = 0;
    pub const DOUBLE_PUSH: u16 = 1;
    pub const CASTLE: u16 = 2;
    pub const CAPTURE: u16 = 4;
    pub const EN_PASSANT: u16 = 5;
    /// Promotion kinds are `PROMOTION | (piece - 1)`, plus `CAPTURE` when capturing.
    pub const PROMOTION: u16 = 8;

    #[inline]
    pub const fn new(from: Square, to: Square, kind: u16) -> Move {
        Move(from.index() as u16 | (to.index() as u16) << 6 | kind << 12)
    }

    /// A promotion to `piece` (knight..queen), capturing or not.
    #[inline]
    pub const fn promotion_move(from: Square, to: Square, piece: PieceType, capture: bool) -> Move {
        let capture_bit = if capture { Move::CAPTURE } else { 0 };
        Move::new(from, to, Move::PROMOTION | capture_bit | (piece as u16 - 1))
    }

    #[inline]
    pub const fn from_raw(raw: u16) -> Move {
        Move(raw)
    }

    #[inline]
    pub const fn raw(self) -> u16 {
        self.0
    }

    #[inline]
    pub const fn is_null(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub const fn from(self) -> Square {
        Square::new((self.0 & 63) as u8)
    }

    #[inline]
    pub const fn to(self) -> Square {
        Square::new((self.0 >> 6 & 63) as u8)
    }

    #[inline]
    pub const fn kind(self) -> u16 {
        self.0 >> 12
    }

    /// Captures, en passant included.
    #[inline]
    pub const fn is_capture(self) -> bool {
        self.kind() & Move::CAPTURE != 0
    }

    #[inline]
    pub const fn is_promotion(self) -> bool {
        self.kind() & Move::PROMOTION != 0
    }

    /// Captures and promotions: the moves quiescence search and the "noisy" stage look at.
    #[inline]
    pub const fn is_noisy(self) -> bool {
        self.kind() & (Move::CAPTURE | Move::PROMOTION) != 0
    }

    #[inline]
    pub const fn is_quiet(self) -> bool {
        !self.is_noisy()
    }

    #[inline]
    pub const fn is_castle(self) -> bool {
        self.kind() == Move::CASTLE
    }

    #[inline]
    pub const fn is_en_passant(self) -> bool {
        self.kind() == Move::EN_PASSANT
    }

    #[inline]
    pub const fn is_double_push(self) -> bool {
        self.kind() == Move::DOUBLE_PUSH
    }

    /// The piece a promotion creates.
    #[inline]
    pub const fn promotion(self) -> Option<PieceType> {
        if self.is_promotion() {
            Some(PieceType::ALL[(self.kind() & 3) as usize + 1])
        } else {
            None
        }
    }

    /// Where the king lands when this move castles.
    #[inline]
    pub const fn castle_king_target(self) -> Square {
        let file = if self.to().file() > self.from().file() { 6 } else { 2 };
        Square::from_file_rank(file, self.from().rank())
    }

    /// Where the rook lands when this move castles.
    #[inline]
    pub const fn castle_rook_target(self) -> Square {
        let file = if self.to().file() > self.from().file() { 5 } else { 3 };
        Square::from_file_rank(file, self.from().rank())
    }

    /// UCI notation. Castling is `e1g1` in standard chess and king-takes-rook in Chess960 mode.
    pub fn to_uci(self, chess960: bool) -> String {
        if self.is_null() {
            return "0000".to_string();
        }
        let to = if self.is_castle() && !chess960 { self.castle_king_target() } else { self.to() };
        match self.promotion() {
            Some(p) => format!("{}{}{}", self.from(), to, p.letter()),
            None => format!("{}{}", self.from(), to),
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]", self.to_uci(true), self.kind())
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_uci(false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        Square::parse(name).expect("valid square")
    }

    #[test]
    fn fields_round_trip() {
        let m = Move::new(sq("e2"), sq("e4"), Move::DOUBLE_PUSH);
        assert_eq!((m.from(), m.to(), m.is_double_push()), (sq("e2"), sq("e4"), true));
        assert!(m.is_quiet() && !m.is_capture());
        let p = Move::promotion_move(sq("b7"), sq("a8"), PieceType::Knight, true);
        assert_eq!(p.promotion(), Some(PieceType::Knight));
        assert!(p.is_capture() && p.is_noisy());
        assert_eq!(p.to_uci(false), "b7a8n");
        let q = Move::promotion_move(sq("b7"), sq("b8"), PieceType::Queen, false);
        assert!(!q.is_capture() && q.is_noisy());
        assert_eq!(q.to_uci(false), "b7b8q");
        assert_eq!(Move::NULL.to_uci(false), "0000");
    }

    #[test]
    fn castling_notation() {
        let short = Move::new(sq("e1"), sq("h1"), Move::CASTLE);
        assert_eq!(short.to_uci(false), "e1g1");
        assert_eq!(short.to_uci(true), "e1h1");
        let long = Move::new(sq("e8"), sq("a8"), Move::CASTLE);
        assert_eq!(long.to_uci(false), "e8c8");
        assert_eq!(long.castle_rook_target(), sq("d8"));
    }
}
