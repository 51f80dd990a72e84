//! viriformat files: a sequence of games, each a 32-byte packed initial position (marlinformat,
//! whose result byte is the game's outcome: 2 White won, 1 draw, 0 White lost) followed by
//! 4-byte records (u16 move, i16 score of the position the move was played from, centipawns,
//! White's view) and a record of four zero bytes.
//!
//! The bytes are framed and the packed position is checked here rather than by
//! `Game::deserialise_from`, whose unpacking panics on some corrupt bytes (a result byte above 2,
//! a piece code of 7, more than 32 pieces). The games are replayed with viriformat's own board,
//! and every move is checked before it is made, so a corrupt file is an error, never a panic.

use super::{held_out, DataError, Dataset, Entry, Filter};
use crate::chess::{check_pieces, Colour, Piece, PieceType, MAX_PIECES};
use std::collections::HashSet;
use std::io::{BufReader, Read};
use std::path::Path;
use viriformat::chess::board::Board;
use viriformat::chess::chessmove::Move;
use viriformat::chess::piece::{Colour as ViriColour, PieceType as ViriPieceType};

const HEADER: usize = 32;
const UNMOVED_ROOK: u8 = 6;

/// Reads one file into `data`. A game already in `earlier` (kept from the files before) or
/// earlier in this file, byte for byte, is counted as a duplicate and not kept again.
pub(super) fn load(
    file: &Path,
    filter: Filter,
    earlier: &HashSet<u64>,
    data: &mut Dataset,
) -> Result<(), DataError> {
    let f = std::fs::File::open(file).map_err(|e| DataError::new(file, "", e.to_string()))?;
    let mut reader = BufReader::with_capacity(1 << 20, f);
    let at = |offset: u64| format!("byte offset {offset}");
    let mut offset = 0u64;
    let (mut bytes, mut kept) = (Vec::with_capacity(1024), Vec::with_capacity(256));
    loop {
        let game_start = offset;
        let mut header = [0u8; HEADER];
        let got = read_full(&mut reader, &mut header).map_err(|e| DataError::new(file, at(offset), e))?;
        if got == 0 {
            return Ok(());
        }
        if got < HEADER {
            let message = format!("truncated: a game's packed position ends after {got} of {HEADER} bytes");
            return Err(DataError::new(file, at(game_start), message));
        }
        offset += HEADER as u64;
        let start = Start::parse(&header).map_err(|m| DataError::new(file, at(game_start), m))?;
        let mut board = Board::new();
        board
            .set_from_fen(&start.fen, true)
            .map_err(|e| DataError::new(file, at(game_start), format!("packed position refused: {e}")))?;
        data.units += 1;
        bytes.clear();
        bytes.extend_from_slice(&header);
        kept.clear();
        let mut filtered = 0;

        // Counted from the game's real start, not from the record's first position (which
        // follows the random opening).
        let mut ply = start.ply;
        loop {
            let mut record = [0u8; 4];
            let got = read_full(&mut reader, &mut record).map_err(|e| DataError::new(file, at(offset), e))?;
            if got < 4 {
                let message = format!("truncated inside the game that starts at byte offset {game_start}");
                return Err(DataError::new(file, at(offset), message));
            }
            bytes.extend_from_slice(&record);
            let record_at = offset;
            offset += 4;
            if record == [0; 4] {
                break;
            }
            let score = i16::from_le_bytes([record[2], record[3]]);
            let mv = Move::from_raw(u16::from_le_bytes([record[0], record[1]]))
                .ok_or_else(|| DataError::new(file, at(record_at), "a null move"))?;
            check_move(&board, mv).map_err(|m| DataError::new(file, at(record_at), m))?;

            let keep = ply >= filter.min_ply
                && !board.in_check()
                && !board.is_tactical(mv)
                && i32::from(score).abs() < filter.max_score;
            if keep {
                kept.push(entry_of(&board, score, start.result));
            } else {
                filtered += 1;
            }
            if !board.make_move_simple(mv) {
                return Err(DataError::new(
                    file,
                    at(record_at),
                    "an illegal move: it leaves the king in check",
                ));
            }
            ply += 1;
        }

        let hash = game_hash(&bytes);
        if earlier.contains(&hash) || data.has_seen(hash) {
            data.duplicates += 1;
            continue;
        }
        data.keep_game(hash);
        data.filtered += filtered;
        if held_out(hash) {
            data.valid.extend_from_slice(&kept);
        } else {
            data.train.extend_from_slice(&kept);
        }
    }
}

/// A game's identity: the FNV-1a hash of its bytes, packed position to terminator. It also
/// decides the game's side of the validation split.
pub fn game_hash(bytes: &[u8]) -> u64 {
    crate::nnue::fnv1a(bytes)
}

/// Reads until `buf` is full or the file ends; returns how many bytes came.
fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> Result<usize, String> {
    let mut n = 0;
    while n < buf.len() {
        match reader.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.to_string()),
        }
    }
    Ok(n)
}

/// A game's initial position, checked, as a FEN for viriformat's board (Shredder castling letters,
/// since an unmoved rook may stand on any file), and the game's result for White.
struct Start {
    fen: String,
    result: u8,
    /// Plies played before this position in the game (from its move number and side to move).
    ply: u32,
}

impl Start {
    fn parse(h: &[u8; HEADER]) -> Result<Start, String> {
        let occupancy = u64::from_le_bytes(h[0..8].try_into().expect("eight bytes"));
        let count = occupancy.count_ones() as usize;
        if count > MAX_PIECES {
            return Err(format!("{count} occupied squares (at most {MAX_PIECES})"));
        }
        let mut pieces = Vec::with_capacity(count);
        let mut unmoved_rooks = Vec::new();
        let mut bits = occupancy;
        for i in 0..count {
            let square = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            let nibble = (h[8 + i / 2] >> (4 * (i % 2))) & 0xf;
            let colour = if nibble >> 3 == 0 { Colour::White } else { Colour::Black };
            let code = nibble & 7;
            let kind = match code {
                UNMOVED_ROOK => {
                    unmoved_rooks.push((colour, square));
                    PieceType::Rook
                }
                _ => PieceType::from_index(usize::from(code)).ok_or(format!("piece code {code}"))?,
            };
            pieces.push(Piece { colour, kind, square });
        }
        check_pieces(&pieces)?;

        let stm = if h[24] >> 7 == 0 { Colour::White } else { Colour::Black };
        let ep = h[24] & 0x7f;
        let ep = match ep {
            64 => None,
            0..64 => {
                // The square behind the pawn that has just moved two squares, with that pawn.
                let (rank, pawn_square) =
                    if stm == Colour::White { (5, ep.wrapping_sub(8)) } else { (2, ep + 8) };
                let pawn = Piece { colour: stm.flip(), kind: PieceType::Pawn, square: pawn_square };
                if ep / 8 != rank || !pieces.contains(&pawn) || pieces.iter().any(|p| p.square == ep) {
                    return Err(format!("en-passant square {ep} does not fit the position"));
                }
                Some(ep)
            }
            _ => return Err(format!("en-passant field {ep}")),
        };
        let halfmove = h[25];
        if halfmove > 100 {
            return Err(format!("halfmove clock {halfmove} (at most 100)"));
        }
        let fullmove = u16::from_le_bytes([h[26], h[27]]).max(1);
        let result = h[30];
        if result > 2 {
            return Err(format!("result byte {result} (expected 0, 1 or 2)"));
        }
        let castling = castling(&pieces, &unmoved_rooks)?;
        let ply = 2 * (u32::from(fullmove) - 1) + u32::from(stm == Colour::Black);
        Ok(Start { fen: fen(&pieces, stm, &castling, ep, halfmove, fullmove), result, ply })
    }
}

/// Shredder-FEN castling letters for the unmoved rooks: each must stand on its side's first rank
/// beside a king on that rank, and at most one on each side of the king.
fn castling(pieces: &[Piece], unmoved_rooks: &[(Colour, u8)]) -> Result<String, String> {
    let mut letters = String::new();
    for colour in [Colour::White, Colour::Black] {
        let back_rank = if colour == Colour::White { 0 } else { 7 };
        let king = pieces
            .iter()
            .find(|p| p.colour == colour && p.kind == PieceType::King)
            .map(|p| p.square)
            .ok_or("no king")?;
        let (mut east, mut west) = (0, 0);
        for &(_, square) in unmoved_rooks.iter().filter(|(c, _)| *c == colour) {
            if square / 8 != back_rank || king / 8 != back_rank {
                return Err(format!("an unmoved {colour:?} rook on square {square} cannot castle"));
            }
            if square > king {
                east += 1;
            } else {
                west += 1;
            }
            let file = b'a' + square % 8;
            letters.push(if colour == Colour::White { file.to_ascii_uppercase() } else { file } as char);
        }
        if east > 1 || west > 1 {
            return Err(format!("more than one unmoved {colour:?} rook on one side of the king"));
        }
    }
    Ok(if letters.is_empty() { "-".into() } else { letters })
}

fn fen(pieces: &[Piece], stm: Colour, castling: &str, ep: Option<u8>, halfmove: u8, fullmove: u16) -> String {
    let mut board = [None; 64];
    for p in pieces {
        board[p.square as usize] = Some(*p);
    }
    let mut out = String::with_capacity(90);
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match board[rank * 8 + file] {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        out.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    let c = b"pnbrqk"[p.kind.index()];
                    out.push(if p.colour == Colour::White { c.to_ascii_uppercase() } else { c } as char);
                }
            }
        }
        if empty > 0 {
            out.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            out.push('/');
        }
    }
    out.push_str(if stm == Colour::White { " w " } else { " b " });
    out.push_str(castling);
    match ep {
        Some(sq) => out.push_str(&format!(" {}{} ", char::from(b'a' + sq % 8), sq / 8 + 1)),
        None => out.push_str(" - "),
    }
    out.push_str(&format!("{halfmove} {fullmove}"));
    out
}

/// Refuses a move that viriformat's board could not make safely: its pseudo-legality check does
/// not cover a king capture, a promotion short of the last rank, an en-passant capture from afar
/// or a move past the fifty-move limit (which its debug builds assert against).
fn check_move(board: &Board, mv: Move) -> Result<(), String> {
    let (from, to) = (mv.from().inner(), mv.to().inner());
    let name = |sq: u8| format!("{}{}", char::from(b'a' + sq % 8), sq / 8 + 1);
    let illegal = || format!("an illegal move {}{}", name(from), name(to));
    if from == to || !board.is_pseudo_legal(mv) {
        return Err(illegal());
    }
    if board.fifty_move_counter() >= 100 {
        return Err("a move after the fifty-move limit".into());
    }
    if board.captured_piece(mv).is_some_and(|p| p.piece_type() == ViriPieceType::King) {
        return Err(format!("{} captures a king", illegal()));
    }
    let white = board.turn() == ViriColour::White;
    if mv.is_promo() && to / 8 != if white { 7 } else { 0 } {
        return Err(illegal());
    }
    if mv.is_ep() {
        let step = if white { i16::from(to) - i16::from(from) } else { i16::from(from) - i16::from(to) };
        let files_apart = (from % 8).abs_diff(to % 8);
        if !matches!(step, 7 | 9) || files_apart != 1 {
            return Err(illegal());
        }
    }
    Ok(())
}

/// The board's pieces and side to move as an entry.
fn entry_of(board: &Board, score: i16, result: u8) -> Entry {
    let mut pieces = [Piece { colour: Colour::White, kind: PieceType::Pawn, square: 0 }; MAX_PIECES];
    let mut n = 0;
    let mut bits = board.pieces.occupied().inner();
    while bits != 0 && n < MAX_PIECES {
        let square = bits.trailing_zeros() as u8;
        bits &= bits - 1;
        if let Some(p) = board.piece_array[square as usize] {
            let colour = if p.colour() == ViriColour::White { Colour::White } else { Colour::Black };
            let kind = PieceType::from_index(usize::from(p.piece_type().inner())).unwrap_or(PieceType::Pawn);
            pieces[n] = Piece { colour, kind, square };
            n += 1;
        }
    }
    let stm = if board.turn() == ViriColour::White { Colour::White } else { Colour::Black };
    Entry::new(&pieces[..n], stm, score, result)
}

#[cfg(test)]
mod tests;
