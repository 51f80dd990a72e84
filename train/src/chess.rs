//! The little chess the trainer needs: colours, piece types, the network's input feature index
//! and a FEN reader for the piece placement and the side to move.
//!
//! Squares are numbered a1 = 0, b1 = 1, …, h8 = 63, as in `docs/network-format.md`.

use std::fmt;

/// The number of input features seen from one perspective.
pub use nnue_format::INPUTS;

/// The most pieces a position may hold (and so the most active features per perspective).
pub const MAX_PIECES: usize = 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Colour {
    White = 0,
    Black = 1,
}

impl Colour {
    pub fn flip(self) -> Colour {
        match self {
            Colour::White => Colour::Black,
            Colour::Black => Colour::White,
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

    pub fn index(self) -> usize {
        self as usize
    }

    /// The type with index `i` (pawn 0 … king 5).
    pub fn from_index(i: usize) -> Option<PieceType> {
        PieceType::ALL.get(i).copied()
    }
}

/// One piece on the board: its colour, type and square (0..64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub colour: Colour,
    pub kind: PieceType,
    pub square: u8,
}

/// The input feature of a piece seen from `perspective` (see docs/network-format.md): own pieces
/// in the first half, and Black's view mirrored by rank so that each side sees itself as White.
#[inline]
pub fn feature_index(perspective: Colour, colour: Colour, kind: PieceType, square: u8) -> usize {
    debug_assert!(square < 64);
    nnue_format::feature_index(perspective as usize, colour as usize, kind.index(), square as usize)
}

/// Why a FEN was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenError(pub String);

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad FEN: {}", self.0)
    }
}

impl std::error::Error for FenError {}

/// The pieces and the side to move of a FEN. Only the first two fields are read; the position
/// must have one king of each colour, at most 32 pieces and no pawn on the first or last rank.
pub fn parse_fen(fen: &str) -> Result<(Vec<Piece>, Colour), FenError> {
    let mut fields = fen.split_whitespace();
    let placement = fields.next().ok_or_else(|| FenError("empty".into()))?;
    let stm = match fields.next() {
        Some("w") => Colour::White,
        Some("b") => Colour::Black,
        Some(other) => return Err(FenError(format!("side to move '{other}'"))),
        None => return Err(FenError("no side to move".into())),
    };
    let ranks: Vec<&str> = placement.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError(format!("{} ranks instead of 8", ranks.len())));
    }
    let mut pieces = Vec::with_capacity(MAX_PIECES);
    for (row, text) in ranks.iter().enumerate() {
        let rank = 7 - row as u8;
        let mut file = 0u8;
        for c in text.chars() {
            if let Some(skip) = c.to_digit(10) {
                if !(1..=8).contains(&skip) {
                    return Err(FenError(format!("bad empty-square count '{c}'")));
                }
                file += skip as u8;
            } else {
                let colour = if c.is_ascii_uppercase() { Colour::White } else { Colour::Black };
                let kind = match c.to_ascii_lowercase() {
                    'p' => PieceType::Pawn,
                    'n' => PieceType::Knight,
                    'b' => PieceType::Bishop,
                    'r' => PieceType::Rook,
                    'q' => PieceType::Queen,
                    'k' => PieceType::King,
                    _ => return Err(FenError(format!("unknown piece '{c}'"))),
                };
                if file >= 8 {
                    return Err(FenError(format!("rank {} is too long", rank + 1)));
                }
                pieces.push(Piece { colour, kind, square: rank * 8 + file });
                file += 1;
            }
            if file > 8 {
                return Err(FenError(format!("rank {} is too long", rank + 1)));
            }
        }
        if file != 8 {
            return Err(FenError(format!("rank {} has {file} squares", rank + 1)));
        }
    }
    check_pieces(&pieces).map_err(FenError)?;
    Ok((pieces, stm))
}

/// The checks every position the trainer keeps must pass, whatever file it came from.
pub(crate) fn check_pieces(pieces: &[Piece]) -> Result<(), String> {
    if pieces.len() > MAX_PIECES {
        return Err(format!("{} pieces (at most {MAX_PIECES})", pieces.len()));
    }
    for colour in [Colour::White, Colour::Black] {
        let kings = pieces.iter().filter(|p| p.colour == colour && p.kind == PieceType::King).count();
        if kings != 1 {
            return Err(format!("{kings} {colour:?} kings"));
        }
    }
    if let Some(p) = pieces.iter().find(|p| p.kind == PieceType::Pawn && (p.square < 8 || p.square >= 56)) {
        return Err(format!("a pawn on square {}", p.square));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_index_follows_the_format_document() {
        // A white pawn on a2 (square 8), seen by White: own half, type 0.
        assert_eq!(feature_index(Colour::White, Colour::White, PieceType::Pawn, 8), 8);
        // The same pawn seen by Black: other half, rank-mirrored to a7 (48).
        assert_eq!(feature_index(Colour::Black, Colour::White, PieceType::Pawn, 8), 384 + 48);
        // The black king on e8 (60), seen by Black: own half, mirrored to e1 (4).
        assert_eq!(feature_index(Colour::Black, Colour::Black, PieceType::King, 60), 5 * 64 + 4);
        // ... and seen by White.
        assert_eq!(feature_index(Colour::White, Colour::Black, PieceType::King, 60), 384 + 5 * 64 + 60);
        // Every index is in range and the map is one-to-one per perspective.
        for p in [Colour::White, Colour::Black] {
            let mut seen = vec![false; INPUTS];
            for c in [Colour::White, Colour::Black] {
                for t in PieceType::ALL {
                    for s in 0..64 {
                        let i = feature_index(p, c, t, s);
                        assert!(!seen[i]);
                        seen[i] = true;
                    }
                }
            }
            assert!(seen.iter().all(|&x| x));
        }
    }

    #[test]
    fn fen_placement_and_side() {
        let (pieces, stm) = parse_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1").unwrap();
        assert_eq!(stm, Colour::Black);
        assert_eq!(pieces.len(), 32);
        assert!(pieces.contains(&Piece { colour: Colour::White, kind: PieceType::Pawn, square: 28 }));
        assert!(pieces.contains(&Piece { colour: Colour::Black, kind: PieceType::King, square: 60 }));
        assert!(pieces.contains(&Piece { colour: Colour::White, kind: PieceType::Rook, square: 0 }));
    }

    #[test]
    fn bad_fens_are_refused() {
        for fen in [
            "",
            "8/8/8/8/8/8/8/8 w",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w",
            "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w",
            "rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQXBNR w",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQQBNR w",
            "Pnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/8 w",
            "rnbqkbnr/pppppppp/8/8/8/P7/PPPPPPPP/RNBQKBNR w",
        ] {
            assert!(parse_fen(fen).is_err(), "{fen}");
        }
    }
}
