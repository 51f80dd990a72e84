//! The data file: games in the viriformat layout, which bullet and other trainers read.
//!
//! A game is a 32-byte packed start position (marlinformat: occupancy, a 4-bit code per piece,
//! side to move and en-passant square, clocks, a score and the result as 0 / 1 / 2 for a Black
//! win / draw / White win), then 4 bytes per move (the move in 16 bits, the score of the position
//! it was played from in centipawns from White's view, both little-endian), then 4 zero bytes.
//!
//! Games are written with the `viriformat` crate, so the file is what its readers expect. They are
//! read back by our own decoder, which checks every byte and every move against Lazuli's move
//! generator and reports a damaged file with its offset instead of failing on it.

use super::game::{GameRecord, Outcome};
use engine::board::{Color, Move, PieceType, Position, Square};
use engine::movegen::legal_moves;
use std::fmt;
use std::io::Read;

const PACKED_BOARD_BYTES: usize = 32;
const UNMOVED_ROOK: u8 = 6;

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
    reader: R,
    offset: u64,
    games: u64,
}

impl<R: Read> GameReader<R> {
    pub fn new(reader: R) -> GameReader<R> {
        GameReader { reader, offset: 0, games: 0 }
    }

    /// Bytes of complete games read so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The next game, `Ok(None)` at a clean end of file.
    pub fn next_game(&mut self) -> Result<Option<DecodedGame>, DataError> {
        let (start_offset, game) = (self.offset, self.games);
        let corrupt = |what: String| DataError::Corrupt { offset: start_offset, game, what };
        let mut header = [0u8; PACKED_BOARD_BYTES];
        match read_full(&mut self.reader, &mut header)? {
            0 => return Ok(None),
            PACKED_BOARD_BYTES => {}
            _ => return Err(DataError::Truncated { offset: start_offset, game }),
        }
        let (start, outcome) = unpack_board(&header).map_err(corrupt)?;
        let mut pos = start;
        let mut moves = Vec::new();
        let mut read = PACKED_BOARD_BYTES as u64;
        loop {
            let mut entry = [0u8; 4];
            if read_full(&mut self.reader, &mut entry)? != 4 {
                return Err(DataError::Truncated { offset: start_offset, game });
            }
            read += 4;
            if entry == [0; 4] {
                break;
            }
            let raw = u16::from_le_bytes([entry[0], entry[1]]);
            let score = i16::from_le_bytes([entry[2], entry[3]]);
            let mv = decode_move(&pos, raw).ok_or_else(|| {
                corrupt(format!("move {} ({raw:#06x}) is illegal in {}", moves.len() + 1, pos.to_fen()))
            })?;
            pos.make_move(mv);
            moves.push((mv, score));
        }
        self.offset += read;
        self.games += 1;
        Ok(Some(DecodedGame { start, moves, outcome }))
    }
}

/// Fills `buf` as far as the reader goes; returns the bytes read (short only at end of file).
fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> Result<usize, DataError> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(DataError::Io(e.to_string())),
        }
    }
    Ok(filled)
}

/// A packed start position as a validated `Position` and the game's result.
fn unpack_board(bytes: &[u8; PACKED_BOARD_BYTES]) -> Result<(Position, Outcome), String> {
    let occupancy = u64::from_le_bytes(bytes[0..8].try_into().expect("8 bytes"));
    if occupancy.count_ones() > 32 {
        return Err(format!("{} pieces", occupancy.count_ones()));
    }
    let mut squares = [None; 64];
    let mut castling = String::new();
    let mut king_seen = [false; 2];
    for (i, sq) in (0..64u8).filter(|s| occupancy >> s & 1 == 1).enumerate() {
        let code = (bytes[8 + i / 2] >> ((i % 2) * 4)) & 0xF;
        let color = if code & 8 == 0 { Color::White } else { Color::Black };
        let kind = match code & 7 {
            UNMOVED_ROOK => {
                let file = char::from(b'a' + sq % 8);
                castling.push(if color == Color::White { file.to_ascii_uppercase() } else { file });
                PieceType::Rook
            }
            k if (k as usize) < PieceType::ALL.len() => PieceType::ALL[k as usize],
            k => return Err(format!("piece code {k} on square {sq}")),
        };
        if kind == PieceType::King {
            king_seen[color as usize] = true;
        }
        squares[sq as usize] = Some((color, kind));
    }
    let mut placement = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match squares[rank * 8 + file] {
                None => empty += 1,
                Some((color, kind)) => {
                    if empty > 0 {
                        placement.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    let letter = char::from(b"pnbrqk"[kind as usize]);
                    placement.push(if color == Color::White { letter.to_ascii_uppercase() } else { letter });
                }
            }
        }
        if empty > 0 {
            placement.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            placement.push('/');
        }
    }
    let side = if bytes[24] >> 7 == 0 { "w" } else { "b" };
    let ep = match bytes[24] & 0x7F {
        64 => "-".to_string(),
        sq if sq < 64 => Square::new(sq).to_string(),
        other => return Err(format!("en-passant square {other}")),
    };
    if castling.is_empty() {
        castling.push('-');
    }
    let fullmove = u16::from_le_bytes([bytes[26], bytes[27]]).max(1);
    let fen = format!("{placement} {side} {castling} {ep} {} {fullmove}", bytes[25]);
    let pos = Position::from_fen(&fen).map_err(|e| format!("start position {fen}: {e}"))?;
    let outcome = match bytes[30] {
        0 => Outcome::BlackWins,
        1 => Outcome::Draw,
        2 => Outcome::WhiteWins,
        other => return Err(format!("result byte {other} (expected 0, 1 or 2)")),
    };
    Ok((pos, outcome))
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
