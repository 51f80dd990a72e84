//! Square-set helpers the evaluation needs beyond the board's: file spans, fills and distances.

use crate::board::{Bitboard, Color, Square};

/// Squares strictly ahead of each square on its file, from `color`'s side.
const FORWARD_FILE: [[u64; 64]; 2] = {
    let mut table = [[0u64; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let file = 0x0101_0101_0101_0101u64 << (sq % 8);
        let rank = sq / 8;
        // Ranks above `rank` (White) and below it (Black).
        let above = if rank == 7 { 0 } else { !0u64 << (8 * (rank + 1)) };
        let below = (1u64 << (8 * rank)) - 1;
        table[0][sq] = file & above;
        table[1][sq] = file & below;
        sq += 1;
    }
    table
};

/// Files next to `file`.
#[inline]
pub(super) const fn adjacent_files(file: u8) -> Bitboard {
    let f = Bitboard::file(file).0;
    Bitboard(((f << 1) & !Bitboard::FILE_A.0) | ((f >> 1) & !Bitboard::FILE_H.0))
}

/// Squares ahead of `sq` on its file, from `color`'s side.
#[inline]
pub(super) fn forward_file(color: Color, sq: Square) -> Bitboard {
    Bitboard(FORWARD_FILE[color.index()][sq.index()])
}

/// Squares ahead of `sq` on its own and the adjacent files: where an enemy pawn stops it passing.
#[inline]
pub(super) fn passed_span(color: Color, sq: Square) -> Bitboard {
    let ahead = forward_file(color, sq);
    ahead | Bitboard((ahead.0 << 1) & !Bitboard::FILE_A.0) | Bitboard((ahead.0 >> 1) & !Bitboard::FILE_H.0)
}

/// The ranks strictly ahead of `sq` from `color`'s side.
#[inline]
pub(super) fn ranks_ahead(color: Color, sq: Square) -> Bitboard {
    let rank = sq.rank() as u32;
    match color {
        Color::White => Bitboard((!0u64).checked_shl(8 * (rank + 1)).unwrap_or(0)),
        Color::Black => Bitboard((1u64 << (8 * rank)) - 1),
    }
}

/// Every square ahead of a member of `set` on its file, from `color`'s side (members excluded
/// unless another member stands behind them).
#[inline]
pub(super) fn fill_forward(color: Color, set: Bitboard) -> Bitboard {
    let mut b = set.0;
    match color {
        Color::White => {
            b |= b << 8;
            b |= b << 16;
            b |= b << 32;
            Bitboard(b << 8)
        }
        Color::Black => {
            b |= b >> 8;
            b |= b >> 16;
            b |= b >> 32;
            Bitboard(b >> 8)
        }
    }
}

/// `set` shifted one rank towards `color`'s opponent.
#[inline]
pub(super) fn push(color: Color, set: Bitboard) -> Bitboard {
    set.forward(color == Color::White)
}

/// The squares `color`'s pawns in `pawns` attack towards the a-file and towards the h-file.
#[inline]
pub(super) fn pawn_attacks_by_side(color: Color, pawns: Bitboard) -> (Bitboard, Bitboard) {
    let west = pawns.without(Bitboard::FILE_A).0;
    let east = pawns.without(Bitboard::FILE_H).0;
    match color {
        Color::White => (Bitboard(west << 7), Bitboard(east << 9)),
        Color::Black => (Bitboard(west >> 9), Bitboard(east >> 7)),
    }
}

/// The member of `set` nearest to `color`'s back rank; `set` must not be empty.
#[inline]
pub(super) fn backmost(color: Color, set: Bitboard) -> Square {
    match color {
        Color::White => set.lsb(),
        Color::Black => set.msb(),
    }
}

/// King-move distance.
#[inline]
pub(super) fn distance(a: Square, b: Square) -> i32 {
    let df = (a.file() as i32 - b.file() as i32).abs();
    let dr = (a.rank() as i32 - b.rank() as i32).abs();
    df.max(dr)
}

/// Bit `f` set for each file `f` holding a member of `set`.
#[inline]
pub(super) fn file_mask(set: Bitboard) -> u8 {
    let mut b = set.0;
    b |= b >> 32;
    b |= b >> 16;
    b |= b >> 8;
    b as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        Square::parse(name).expect("valid square")
    }

    #[test]
    fn spans_and_fills() {
        assert_eq!(forward_file(Color::White, sq("e2")).count(), 6);
        assert!(forward_file(Color::Black, sq("e7")).has(sq("e1")));
        assert_eq!(passed_span(Color::White, sq("a2")).count(), 12);
        assert_eq!(passed_span(Color::Black, sq("d7")).count(), 18);
        assert_eq!(ranks_ahead(Color::White, sq("c8")), Bitboard::EMPTY);
        assert_eq!(ranks_ahead(Color::Black, sq("c2")), Bitboard::RANK_1);
        assert_eq!(adjacent_files(0), Bitboard::file(1));
        assert_eq!(adjacent_files(4), Bitboard::file(3) | Bitboard::file(5));
        let set = Bitboard::from_square(sq("b3")) | Bitboard::from_square(sq("g6"));
        assert_eq!(fill_forward(Color::White, set).count(), 5 + 2);
        assert_eq!(fill_forward(Color::Black, set).count(), 2 + 5);
        assert_eq!(file_mask(set), 0b0100_0010);
        assert_eq!(distance(sq("a1"), sq("h8")), 7);
        assert_eq!(backmost(Color::Black, set), sq("g6"));
    }
}
