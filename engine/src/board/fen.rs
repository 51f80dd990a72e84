//! FEN parsing and printing: standard FEN, X-FEN (`KQkq` = outermost rook) and Shredder-FEN
//! (rook files, `HAha`) castling fields. Parsing never panics; every malformed or impossible
//! position gets a `FenError` naming the problem.

use super::position::{castling_index, Position};
use super::types::{Color, Piece, PieceType, Square};
use super::{zobrist, Bitboard};
use std::fmt;

pub const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// A FEN has 4 to 6 space-separated fields (clocks may be left out).
    FieldCount(usize),
    RankCount(usize),
    BadPieceChar(char),
    RankTooLong(u8),
    RankTooShort(u8),
    KingCount {
        color: Color,
        count: u32,
    },
    PawnOnBackRank(Square),
    TooManyPieces(Color),
    BadSideToMove(String),
    BadCastlingChar(char),
    /// A castling right whose king or rook is not in place.
    CastlingWithoutKingAndRook(char),
    DuplicateCastling(char),
    BadEnPassant(String),
    /// An en-passant square that no double pawn push can have produced.
    ImpossibleEnPassant(Square),
    OpponentInCheck,
    BadHalfmoveClock(String),
    BadFullmoveNumber(String),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::FieldCount(n) => write!(f, "expected 4 to 6 fields, found {n}"),
            FenError::RankCount(n) => write!(f, "expected 8 ranks, found {n}"),
            FenError::BadPieceChar(c) => write!(f, "bad piece letter '{}'", c.escape_debug()),
            FenError::RankTooLong(r) => write!(f, "rank {} has more than 8 squares", r),
            FenError::RankTooShort(r) => write!(f, "rank {} has fewer than 8 squares", r),
            FenError::KingCount { color, count } => {
                write!(f, "{color:?} has {count} kings, expected exactly one")
            }
            FenError::PawnOnBackRank(sq) => write!(f, "pawn on {sq}, on the first or last rank"),
            FenError::TooManyPieces(c) => write!(f, "{c:?} has more pieces than a game can produce"),
            FenError::BadSideToMove(s) => {
                write!(f, "side to move must be 'w' or 'b', found '{}'", s.escape_debug())
            }
            FenError::BadCastlingChar(c) => write!(f, "bad castling letter '{}'", c.escape_debug()),
            FenError::CastlingWithoutKingAndRook(c) => {
                write!(f, "castling right '{c}' without its king and rook in place")
            }
            FenError::DuplicateCastling(c) => write!(f, "castling right '{c}' given twice"),
            FenError::BadEnPassant(s) => write!(f, "bad en-passant square '{}'", s.escape_debug()),
            FenError::ImpossibleEnPassant(sq) => write!(f, "impossible en-passant square {sq}"),
            FenError::OpponentInCheck => write!(f, "the side not to move is in check"),
            FenError::BadHalfmoveClock(s) => write!(f, "bad halfmove clock '{}'", s.escape_debug()),
            FenError::BadFullmoveNumber(s) => write!(f, "bad fullmove number '{}'", s.escape_debug()),
        }
    }
}

impl std::error::Error for FenError {}

impl Position {
    pub fn startpos() -> Position {
        Position::from_fen(STARTPOS).expect("the start position is valid")
    }

    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        if !(4..=6).contains(&fields.len()) {
            return Err(FenError::FieldCount(fields.len()));
        }
        let mut pos = Position::empty();
        parse_placement(&mut pos, fields[0])?;
        validate_material(&pos)?;

        pos.stm = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenError::BadSideToMove(other.to_string())),
        };
        parse_castling(&mut pos, fields[2])?;
        let ep = parse_en_passant(&pos, fields[3])?;

        pos.halfmove = match fields.get(4) {
            Some(s) => s.parse().map_err(|_| FenError::BadHalfmoveClock(s.to_string()))?,
            None => 0,
        };
        pos.fullmove = match fields.get(5) {
            // Some tools write 0; the first move is number 1.
            Some(s) => s.parse::<u16>().map_err(|_| FenError::BadFullmoveNumber(s.to_string()))?.max(1),
            None => 1,
        };

        let them = !pos.stm;
        if pos.is_attacked_by(pos.stm, pos.king_square(them), pos.occupied()) {
            return Err(FenError::OpponentInCheck);
        }
        pos.key ^= zobrist::side_to_move(pos.stm) ^ zobrist::castling(pos.castling);
        pos.update_check_info();
        if let Some(ep) = ep {
            pos.set_en_passant_if_legal(ep);
        }
        Ok(pos)
    }

    /// FEN with X-FEN castling letters (`KQkq` when the rook is the outermost one on its side,
    /// the rook's file letter otherwise), which standard, X-FEN and Shredder readers accept.
    pub fn to_fen(&self) -> String {
        let mut out = String::with_capacity(90);
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.piece_on(Square::from_file_rank(file, rank)) {
                    Some(p) => {
                        if empty > 0 {
                            out.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        out.push(p.fen_char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out.push_str(if self.stm == Color::White { " w " } else { " b " });
        out.push_str(&self.castling_field());
        out.push(' ');
        match self.ep {
            Some(sq) => out.push_str(&sq.to_string()),
            None => out.push('-'),
        }
        out.push_str(&format!(" {} {}", self.halfmove, self.fullmove));
        out
    }

    fn castling_field(&self) -> String {
        let mut out = String::new();
        for color in Color::ALL {
            for king_side in [true, false] {
                let idx = castling_index(color, king_side);
                if self.castling & (1 << idx) == 0 {
                    continue;
                }
                let rook_sq = self.castle_rooks[idx];
                let letter = if self.outermost_rook(color, king_side) == Some(rook_sq) {
                    if king_side {
                        'k'
                    } else {
                        'q'
                    }
                } else {
                    char::from(b'a' + rook_sq.file())
                };
                out.push(if color == Color::White { letter.to_ascii_uppercase() } else { letter });
            }
        }
        if out.is_empty() {
            out.push('-');
        }
        out
    }

    /// The rook of `color` on its back rank furthest from the king on the given side.
    fn outermost_rook(&self, color: Color, king_side: bool) -> Option<Square> {
        let back = Bitboard::rank(Square::new(0).relative(color).rank());
        let king = (self.pieces_of(color, PieceType::King) & back).into_iter().next()?;
        let rooks = self.pieces_of(color, PieceType::Rook) & back;
        let mut files: Box<dyn Iterator<Item = u8>> =
            if king_side { Box::new((king.file() + 1..8).rev()) } else { Box::new(0..king.file()) };
        files.find_map(|f| {
            let sq = Square::from_file_rank(f, king.rank());
            rooks.has(sq).then_some(sq)
        })
    }
}

fn parse_placement(pos: &mut Position, field: &str) -> Result<(), FenError> {
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::RankCount(ranks.len()));
    }
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let mut file: u8 = 0;
        for c in rank_text.chars() {
            if let Some(d) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                file += d as u8;
                if file > 8 {
                    return Err(FenError::RankTooLong(rank + 1));
                }
                continue;
            }
            let piece = Piece::from_fen_char(c).ok_or(FenError::BadPieceChar(c))?;
            if file >= 8 {
                return Err(FenError::RankTooLong(rank + 1));
            }
            let sq = Square::from_file_rank(file, rank);
            if piece.kind() == PieceType::Pawn && (rank == 0 || rank == 7) {
                return Err(FenError::PawnOnBackRank(sq));
            }
            pos.put_piece(piece, sq);
            file += 1;
        }
        if file < 8 {
            return Err(FenError::RankTooShort(rank + 1));
        }
    }
    Ok(())
}

/// One king each, and no more pieces than eight pawns and their promotions allow (this also
/// bounds the number of legal moves, which fixed-size move lists rely on).
fn validate_material(pos: &Position) -> Result<(), FenError> {
    for color in Color::ALL {
        let kings = pos.pieces_of(color, PieceType::King).count();
        if kings != 1 {
            return Err(FenError::KingCount { color, count: kings });
        }
        let count = |k| pos.pieces_of(color, k).count();
        let pawns = count(PieceType::Pawn);
        let promoted = count(PieceType::Queen).saturating_sub(1)
            + count(PieceType::Rook).saturating_sub(2)
            + count(PieceType::Bishop).saturating_sub(2)
            + count(PieceType::Knight).saturating_sub(2);
        if pawns > 8 || promoted > 8 - pawns {
            return Err(FenError::TooManyPieces(color));
        }
    }
    Ok(())
}

fn parse_castling(pos: &mut Position, field: &str) -> Result<(), FenError> {
    if field == "-" {
        return Ok(());
    }
    for c in field.chars() {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        let back_rank = if color == Color::White { 0 } else { 7 };
        let king = pos.pieces_of(color, PieceType::King) & Bitboard::rank(back_rank);
        if !c.is_ascii_alphabetic() || !matches!(c.to_ascii_lowercase(), 'a'..='h' | 'k' | 'q') {
            return Err(FenError::BadCastlingChar(c));
        }
        if king.is_empty() {
            return Err(FenError::CastlingWithoutKingAndRook(c));
        }
        let king = king.lsb();
        let (rook_sq, king_side) = match c.to_ascii_lowercase() {
            'k' => (pos.outermost_rook(color, true), true),
            'q' => (pos.outermost_rook(color, false), false),
            letter => {
                let file = letter as u8 - b'a';
                let sq = Square::from_file_rank(file, back_rank);
                let is_rook = pos.pieces_of(color, PieceType::Rook).has(sq);
                (is_rook.then_some(sq), file > king.file())
            }
        };
        let rook_sq = match rook_sq {
            Some(sq) if sq.file() != king.file() => sq,
            _ => return Err(FenError::CastlingWithoutKingAndRook(c)),
        };
        let idx = castling_index(color, king_side);
        if pos.castling & (1 << idx) != 0 {
            return Err(FenError::DuplicateCastling(c));
        }
        pos.castling |= 1 << idx;
        pos.castle_rooks[idx] = rook_sq;
    }
    Ok(())
}

/// The en-passant square as written, checked for plausibility; whether a capture is actually
/// legal is decided later (an unusable square is simply dropped, as in the key).
fn parse_en_passant(pos: &Position, field: &str) -> Result<Option<Square>, FenError> {
    if field == "-" {
        return Ok(None);
    }
    let sq = Square::parse(field).ok_or_else(|| FenError::BadEnPassant(field.to_string()))?;
    let us = pos.stm;
    let them = !us;
    // The pawn that just moved two squares stands one rank beyond `sq` (from its owner's view),
    // and `sq` and the square it came from are empty.
    let expected_rank = if us == Color::White { 5 } else { 2 };
    if sq.rank() != expected_rank {
        return Err(FenError::ImpossibleEnPassant(sq));
    }
    let pushed = sq.offset(if us == Color::White { -8 } else { 8 });
    let origin = sq.offset(if us == Color::White { 8 } else { -8 });
    if !pos.pieces_of(them, PieceType::Pawn).has(pushed)
        || pos.occupied().has(sq)
        || pos.occupied().has(origin)
    {
        return Err(FenError::ImpossibleEnPassant(sq));
    }
    Ok(Some(sq))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_round_trips() {
        let pos = Position::from_fen(STARTPOS).expect("valid");
        assert_eq!(pos.to_fen(), STARTPOS);
        assert!(pos.is_consistent());
    }

    #[test]
    fn four_field_fen_gets_default_clocks() {
        let pos = Position::from_fen("8/8/8/8/8/8/8/K6k w - -").expect("valid");
        assert_eq!(pos.to_fen(), "8/8/8/8/8/8/8/K6k w - - 0 1");
    }

    #[test]
    fn shredder_and_xfen_castling() {
        let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
        let pos = Position::from_fen(fen).expect("valid");
        assert_eq!(pos.castling_rights(), 15);
        assert_eq!(pos.castle_rook(Color::White, false), Square::parse("f1").unwrap());
        assert_eq!(pos.to_fen(), "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9");
        let reparsed = Position::from_fen(&pos.to_fen()).expect("round trip");
        assert_eq!(reparsed, pos);

        // X-FEN: 'Q' is the outermost rook on the queen side, an inner one needs its file.
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/RR2K3 w QB - 0 1");
        assert_eq!(pos, Err(FenError::DuplicateCastling('B')));
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/1RR1K3 w C - 0 1").expect("valid");
        assert_eq!(pos.to_fen(), "4k3/8/8/8/8/8/8/1RR1K3 w C - 0 1");
    }

    #[test]
    fn errors_name_the_problem() {
        let cases: &[(&str, FenError)] = &[
            ("", FenError::FieldCount(0)),
            ("8/8/8/8/8/8/8/K6k w - - 0 1 extra", FenError::FieldCount(7)),
            ("8/8/8/8/8/8/K6k w - - 0 1", FenError::RankCount(7)),
            ("8/8/8/8/8/8/8/K6kn w - - 0 1", FenError::RankTooLong(1)),
            ("8/8/8/8/8/8/8/K5k w - - 0 1", FenError::RankTooShort(1)),
            ("8/8/8/8/8/8/8/K6X w - - 0 1", FenError::BadPieceChar('X')),
            ("8/8/8/8/8/8/8/K7 w - - 0 1", FenError::KingCount { color: Color::Black, count: 0 }),
            ("8/8/8/8/8/8/8/KK5k w - - 0 1", FenError::KingCount { color: Color::White, count: 2 }),
            ("P7/8/8/8/8/8/8/K6k w - - 0 1", FenError::PawnOnBackRank(Square::parse("a8").unwrap())),
            ("8/8/8/8/8/8/8/K6k x - - 0 1", FenError::BadSideToMove("x".into())),
            ("8/8/8/8/8/8/8/K6k w K - 0 1", FenError::CastlingWithoutKingAndRook('K')),
            ("8/8/8/8/8/8/8/K6k w Z - 0 1", FenError::BadCastlingChar('Z')),
            ("8/8/8/8/8/8/8/K6k w - e9 0 1", FenError::BadEnPassant("e9".into())),
            ("8/8/8/8/8/8/8/K6k w - e6 0 1", FenError::ImpossibleEnPassant(Square::parse("e6").unwrap())),
            ("8/8/8/8/8/8/8/K5Rk w - - 0 1", FenError::OpponentInCheck),
            ("8/8/8/8/8/8/8/K6k w - - x 1", FenError::BadHalfmoveClock("x".into())),
            ("8/8/8/8/8/8/8/K6k w - - 0 -1", FenError::BadFullmoveNumber("-1".into())),
            ("QQQQQQQQ/QQ6/8/8/8/8/8/K6k w - - 0 1", FenError::TooManyPieces(Color::White)),
        ];
        for (fen, expected) in cases {
            assert_eq!(Position::from_fen(fen).as_ref(), Err(expected), "{fen}");
            assert!(!expected.to_string().is_empty());
        }
    }

    #[test]
    fn round_trip_after_losing_castling_rights() {
        // The black king and the white h1 rook give up their rights; the position reached must
        // equal the one read back from its FEN (no stale rook squares of lost rights).
        let mut pos = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1").expect("valid");
        let sq = |name| Square::parse(name).expect("valid square");
        pos.make_move(crate::board::Move::new(sq("e8"), sq("d8"), crate::board::Move::QUIET));
        pos.make_move(crate::board::Move::new(sq("h1"), sq("h5"), crate::board::Move::QUIET));
        assert_eq!(pos.to_fen(), "r2k3r/8/8/7R/8/8/8/R3K3 b Q - 2 2");
        assert_eq!(Position::from_fen(&pos.to_fen()), Ok(pos));
    }

    #[test]
    fn en_passant_kept_only_when_capturable() {
        // Black can capture e3 with the d4 pawn.
        let pos = Position::from_fen("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1").expect("valid");
        assert_eq!(pos.en_passant(), Square::parse("e3"));
        // No black pawn next to e4: the square is dropped.
        let pos = Position::from_fen("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1").expect("valid");
        assert_eq!(pos.en_passant(), None);
        assert_eq!(pos.to_fen(), "4k3/8/8/8/4P3/8/8/4K3 b - - 0 1");
    }
}
