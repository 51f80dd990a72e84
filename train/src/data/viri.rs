//! viriformat files: a sequence of games, each a 32-byte packed initial position (marlinformat,
//! whose result byte is the game's outcome: 2 White won, 1 draw, 0 White lost) followed by
//! 4-byte records (u16 move, i16 score of the position the move was played from, centipawns,
//! White's view) and a record of four zero bytes.
//!
//! The bytes are framed and the packed position is checked by `game_records` rather than by
//! `Game::deserialise_from`, whose unpacking panics on some corrupt bytes (a result byte above 2,
//! a piece code of 7, more than 32 pieces). The games are replayed with viriformat's own board,
//! and every move is checked before it is made, so a corrupt file is an error, never a panic.

use super::{held_out, DataError, Dataset, Entry, Filter};
use crate::chess::{Colour, Piece, PieceType, MAX_PIECES};
use game_records::{unpack_start, FrameError, Frames};
use std::collections::HashSet;
use std::io::BufReader;
use std::path::Path;
use viriformat::chess::board::Board;
use viriformat::chess::chessmove::Move;
use viriformat::chess::piece::{Colour as ViriColour, PieceType as ViriPieceType};

/// Reads one file into `data`. A game already in `earlier` (kept from the files before) or
/// earlier in this file, byte for byte, is counted as a duplicate and not kept again.
pub(super) fn load(
    file: &Path,
    filter: Filter,
    earlier: &HashSet<u64>,
    data: &mut Dataset,
) -> Result<(), DataError> {
    let f = std::fs::File::open(file).map_err(|e| DataError::new(file, "", e.to_string()))?;
    let mut frames = Frames::new(BufReader::with_capacity(1 << 20, f));
    let at = |offset: u64| format!("byte offset {offset}");
    let mut kept = Vec::with_capacity(256);
    loop {
        let game = match frames.next_game() {
            Ok(Some(game)) => game,
            Ok(None) => return Ok(()),
            Err(e @ FrameError::Truncated { at: cut, .. } | e @ FrameError::Io { at: cut, .. }) => {
                return Err(DataError::new(file, at(cut), e.to_string()))
            }
        };
        let start = unpack_start(&game.start).map_err(|m| DataError::new(file, at(game.offset), m))?;
        let mut board = Board::new();
        board
            .set_from_fen(&start.fen, true)
            .map_err(|e| DataError::new(file, at(game.offset), format!("packed position refused: {e}")))?;
        data.units += 1;
        kept.clear();
        let mut filtered = 0;

        // Plies count from the game's real start, not from the record's first position (which
        // follows the random opening).
        for (ply, record) in (start.ply..).zip(&game.records) {
            let mv = Move::from_raw(record.raw_move)
                .ok_or_else(|| DataError::new(file, at(record.offset), "a null move"))?;
            check_move(&board, mv).map_err(|m| DataError::new(file, at(record.offset), m))?;

            let keep = ply >= filter.min_ply
                && !board.in_check()
                && !board.is_tactical(mv)
                && i32::from(record.score).abs() < filter.max_score;
            if keep {
                kept.push(entry_of(&board, record.score, start.result));
            } else {
                filtered += 1;
            }
            if !board.make_move_simple(mv) {
                return Err(DataError::new(
                    file,
                    at(record.offset),
                    "an illegal move: it leaves the king in check",
                ));
            }
        }

        let hash = game_hash(&game.bytes);
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
