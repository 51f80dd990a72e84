//! The data file: games in the viriformat layout, which bullet and other trainers read.
//!
//! A game is a 32-byte packed start position (marlinformat: occupancy, a 4-bit code per piece,
//! side to move and en-passant square, clocks, a score and the result as 0 / 1 / 2 for a Black
//! win / draw / White win), then 4 bytes per move (the move in 16 bits, the score of the position
//! it was played from in centipawns from White's view, both little-endian), then 4 zero bytes.
//!
//! Games are written with the `viriformat` crate, so the file is what its readers expect. They are
//! read back through `game_records` (the framing and the packed start, shared with the trainer),
//! every move checked against Lazuli's move generator, and a damaged file is reported with its
//! offset instead of failing on it.

use super::game::{GameRecord, Outcome};
use engine::board::{Color, Move, PieceType, Position};
use engine::movegen::legal_moves;
use game_records::{unpack_start, FrameError, Frames};
use std::fmt;
use std::io::Read;

/// The FEN of `pos` with the castling field in Shredder notation (rook files), which
/// viriformat's Chess960 parser reads for any start.
fn shredder_fen(pos: &Position) -> String {
    let fen = pos.to_fen();
    let mut fields: Vec<&str> = fen.split(' ').collect();
    let mut castling = String::new();
    for color in Color::ALL {
        for king_side in [true, false] {
            let bit = color as usize * 2 + usize::from(!king_side);
            if pos.castling_rights() & (1 << bit) != 0 {
                let file = char::from(b'a' + pos.castle_rook(color, king_side).file());
                castling.push(if color == Color::White { file.to_ascii_uppercase() } else { file });
            }
        }
    }
    if castling.is_empty() {
        castling.push('-');
    }
    fields[2] = &castling;
    fields.join(" ")
}

/// Appends `record` to `out` in the viriformat layout.
pub fn encode_game(record: &GameRecord, out: &mut Vec<u8>) -> Result<(), String> {
    use viriformat::chess::board::{Board, DrawType, GameOutcome, WinType};
    let fen = shredder_fen(&record.start);
    let mut board = Board::new();
    board.set_from_fen(&fen, true).map_err(|e| format!("start {fen}: {e}"))?;
    let mut game = viriformat::dataformat::Game::new(&board);
    let mut pos = record.start;
    for &(mv, score) in &record.moves {
        let uci = mv.to_uci(true);
        let encoded = board.parse_uci(&uci).map_err(|e| format!("{uci} in {}: {e}", pos.to_fen()))?;
        game.add_move(encoded, score);
        if !board.make_move_simple(encoded) {
            return Err(format!("{uci} is illegal in {}", pos.to_fen()));
        }
        pos.make_move(mv);
    }
    game.set_outcome(match record.outcome {
        Outcome::WhiteWins => GameOutcome::WhiteWin(WinType::Adjudication),
        Outcome::BlackWins => GameOutcome::BlackWin(WinType::Adjudication),
        Outcome::Draw => GameOutcome::Draw(DrawType::Adjudication),
    });
    game.serialise_into(out).map_err(|e| e.to_string())
}

/// A game read back from a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedGame {
    pub start: Position,
    pub moves: Vec<(Move, i16)>,
    pub outcome: Outcome,
}

/// Why a data file cannot be read past some point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DataError {
    /// The file ends inside a game.
    Truncated {
        offset: u64,
        game: u64,
    },
    /// A game's bytes do not describe a legal game.
    Corrupt {
        offset: u64,
        game: u64,
        what: String,
    },
    Io(String),
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataError::Truncated { offset, game } => {
                write!(f, "truncated: game {game} starting at byte {offset} is incomplete")
            }
            DataError::Corrupt { offset, game, what } => {
                write!(f, "corrupt: game {game} starting at byte {offset}: {what}")
            }
            DataError::Io(e) => write!(f, "read error: {e}"),
        }
    }
}

/// Reads a file's games in order, keeping track of the byte offset.
pub struct GameReader<R: Read> {
    frames: Frames<R>,
}

impl<R: Read> GameReader<R> {
    pub fn new(reader: R) -> GameReader<R> {
        GameReader { frames: Frames::new(reader) }
    }

    /// Bytes of complete games read so far.
    pub fn offset(&self) -> u64 {
        self.frames.offset()
    }

    /// The next game, `Ok(None)` at a clean end of file.
    pub fn next_game(&mut self) -> Result<Option<DecodedGame>, DataError> {
        let game = match self.frames.next_game() {
            Ok(Some(game)) => game,
            Ok(None) => return Ok(None),
            Err(FrameError::Truncated { game, offset, .. }) => {
                return Err(DataError::Truncated { offset, game })
            }
            Err(FrameError::Io { message, .. }) => return Err(DataError::Io(message)),
        };
        let corrupt = |what: String| DataError::Corrupt { offset: game.offset, game: game.index, what };
        let packed = unpack_start(&game.start).map_err(corrupt)?;
        let start = Position::from_fen(&packed.fen)
            .map_err(|e| corrupt(format!("start position {}: {e}", packed.fen)))?;
        let outcome = match packed.result {
            0 => Outcome::BlackWins,
            1 => Outcome::Draw,
            _ => Outcome::WhiteWins,
        };
        let mut pos = start;
        let mut moves = Vec::with_capacity(game.records.len());
        for record in &game.records {
            let mv = decode_move(&pos, record.raw_move).ok_or_else(|| {
                let raw = record.raw_move;
                corrupt(format!("move {} ({raw:#06x}) is illegal in {}", moves.len() + 1, pos.to_fen()))
            })?;
            pos.make_move(mv);
            moves.push((mv, record.score));
        }
        Ok(Some(DecodedGame { start, moves, outcome }))
    }
}

/// The legal move of `pos` that the 16-bit viriformat move `raw` names.
fn decode_move(pos: &Position, raw: u16) -> Option<Move> {
    let (from, to, flags) = (raw & 63, (raw >> 6) & 63, raw >> 14);
    let promotion = (flags == 3).then(|| PieceType::ALL[((raw >> 12) & 3) as usize + 1]);
    legal_moves(pos).iter().copied().find(|mv| {
        mv.from().index() as u16 == from
            && mv.to().index() as u16 == to
            && mv.promotion() == promotion
            && mv.is_castle() == (flags == 2)
            && mv.is_en_passant() == (flags == 1)
    })
}
