//! The small value types everything else is built from: colours, piece kinds, pieces, squares.

use std::fmt;
use std::ops::Not;

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// +1 for White, -1 for Black: turns a White-relative score into a side-relative one.
    #[inline]
    pub const fn sign(self) -> i32 {
        match self {
            Color::White => 1,
            Color::Black => -1,
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub enum PieceType {
    Pawn = 0,
    Knight = 1,
    Bishop = 2,
    Rook = 3,
    Queen = 4,
    King = 5,
}

impl PieceType {
    pub const ALL: [PieceType; 6] = [
        PieceType::Pawn,
        PieceType::Knight,
        PieceType::Bishop,
        PieceType::Rook,
        PieceType::Queen,
        PieceType::King,
    ];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Lower-case letter used by FEN (for Black) and by UCI promotions.
    pub const fn letter(self) -> char {
        match self {
            PieceType::Pawn => 'p',
            PieceType::Knight => 'n',
            PieceType::Bishop => 'b',
            PieceType::Rook => 'r',
            PieceType::Queen => 'q',
            PieceType::King => 'k',
        }
    }

    pub const fn from_letter(c: char) -> Option<PieceType> {
        match c.to_ascii_lowercase() {
            'p' => Some(PieceType::Pawn),
            'n' => Some(PieceType::Knight),
            'b' => Some(PieceType::Bishop),
            'r' => Some(PieceType::Rook),
            'q' => Some(PieceType::Queen),
            'k' => Some(PieceType::King),
            _ => None,
        }
    }
}

/// A coloured piece, packed as `color * 6 + piece type` (0..12).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Piece(u8);

impl Piece {
    #[inline]
    pub const fn new(color: Color, kind: PieceType) -> Piece {
        Piece(color as u8 * 6 + kind as u8)
    }

    #[inline]
    pub const fn color(self) -> Color {
        if self.0 < 6 {
            Color::White
        } else {
            Color::Black
        }
    }

    #[inline]
    pub const fn kind(self) -> PieceType {
        PieceType::ALL[(self.0 % 6) as usize]
    }

    /// 0..12, for tables indexed by coloured piece.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub fn from_fen_char(c: char) -> Option<Piece> {
        let kind = PieceType::from_letter(c)?;
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        Some(Piece::new(color, kind))
    }

    pub fn fen_char(self) -> char {
        let c = self.kind().letter();
        match self.color() {
            Color::White => c.to_ascii_uppercase(),
            Color::Black => c,
        }
    }
}

/// A square, a1 = 0, b1 = 1, ..., h8 = 63.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub struct Square(u8);

impl Square {
    /// `index` must be below 64.
    #[inline]
    pub const fn new(index: u8) -> Square {
        debug_assert!(index < 64);
        Square(index & 63)
    }

    #[inline]
    pub const fn from_file_rank(file: u8, rank: u8) -> Square {
        Square::new(rank * 8 + file)
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// The same square seen from `color`'s side: rank 1 for White is rank 8 for Black.
    #[inline]
    pub const fn relative(self, color: Color) -> Square {
        match color {
            Color::White => self,
            Color::Black => Square(self.0 ^ 56),
        }
    }

    /// The rank counted from `color`'s side (0 = its back rank).
    #[inline]
    pub const fn relative_rank(self, color: Color) -> u8 {
        self.relative(color).rank()
    }

    /// The square `delta` steps away (8 = one rank up). The caller keeps it on the board.
    #[inline]
    pub const fn offset(self, delta: i8) -> Square {
        Square::new((self.0 as i8 + delta) as u8)
    }

    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 || !(b'a'..=b'h').contains(&b[0]) || !(b'1'..=b'8').contains(&b[1]) {
            return None;
        }
        Some(Square::from_file_rank(b[0] - b'a', b[1] - b'1'))
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, (b'1' + self.rank()) as char)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip() {
        for sq in Square::all() {
            assert_eq!(Square::parse(&sq.to_string()), Some(sq));
        }
        assert_eq!(Square::parse("e4").map(Square::index), Some(28));
        assert_eq!(Square::parse("i1"), None);
        assert_eq!(Square::parse("a9"), None);
        assert_eq!(Square::parse("a"), None);
    }

    #[test]
    fn pieces_pack_and_unpack() {
        for color in Color::ALL {
            for kind in PieceType::ALL {
                let p = Piece::new(color, kind);
                assert_eq!((p.color(), p.kind()), (color, kind));
                assert_eq!(Piece::from_fen_char(p.fen_char()), Some(p));
            }
        }
        assert_eq!(Piece::from_fen_char('x'), None);
    }
}
