//! The packed start position: checked, and written out as a FEN with Shredder castling letters
//! (an unmoved rook may stand on any file), which both readers' boards accept.

use crate::START_BYTES;

/// The piece code of a rook that has not moved (it can castle); 0-5 are pawn to king.
const UNMOVED_ROOK: u8 = 6;
/// At most this many pieces stand on a board.
const MAX_PIECES: usize = 32;
const PAWN: u8 = 0;
const ROOK: u8 = 3;
const KING: u8 = 5;

/// A game's start position, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedStart {
    pub fen: String,
    /// The game's result: 0 Black won, 1 draw, 2 White won.
    pub result: u8,
    /// Plies played before this position in the game (from its move number and side to move).
    pub ply: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct Piece {
    black: bool,
    /// 0 pawn, 1 knight, 2 bishop, 3 rook, 4 queen, 5 king.
    kind: u8,
    square: u8,
}

/// Checks and unpacks a packed start position: its pieces (one king each, no pawn on a back
/// rank, at most 32), castling rooks beside their king on the back rank, an en-passant square
/// behind a pawn that has just moved two squares, a halfmove clock of at most 100 and a result
/// byte of 0 to 2.
pub fn unpack_start(h: &[u8; START_BYTES]) -> Result<PackedStart, String> {
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
        let black = nibble >> 3 == 1;
        let kind = match nibble & 7 {
            UNMOVED_ROOK => {
                unmoved_rooks.push((black, square));
                ROOK
            }
            code if code <= KING => code,
            code => return Err(format!("piece code {code}")),
        };
        pieces.push(Piece { black, kind, square });
    }
    check_pieces(&pieces)?;

    let black_to_move = h[24] >> 7 == 1;
    let ep = match h[24] & 0x7f {
        64 => None,
        ep @ 0..64 => {
            // The square behind the pawn that has just moved two squares, with that pawn.
            let (rank, pawn_square) = if black_to_move { (2, ep + 8) } else { (5, ep.wrapping_sub(8)) };
            let pawn = Piece { black: !black_to_move, kind: PAWN, square: pawn_square };
            if ep / 8 != rank || !pieces.contains(&pawn) || pieces.iter().any(|p| p.square == ep) {
                return Err(format!("en-passant square {ep} does not fit the position"));
            }
            Some(ep)
        }
        other => return Err(format!("en-passant field {other}")),
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
    let ply = 2 * (u32::from(fullmove) - 1) + u32::from(black_to_move);
    let side = if black_to_move { "b" } else { "w" };
    let ep = ep.map_or("-".to_string(), |sq| format!("{}{}", char::from(b'a' + sq % 8), sq / 8 + 1));
    let fen = format!("{} {side} {castling} {ep} {halfmove} {fullmove}", placement(&pieces));
    Ok(PackedStart { fen, result, ply })
}

fn check_pieces(pieces: &[Piece]) -> Result<(), String> {
    for black in [false, true] {
        let kings = pieces.iter().filter(|p| p.black == black && p.kind == KING).count();
        if kings != 1 {
            return Err(format!("{kings} {} kings", if black { "Black" } else { "White" }));
        }
    }
    if let Some(p) = pieces.iter().find(|p| p.kind == PAWN && (p.square < 8 || p.square >= 56)) {
        return Err(format!("a pawn on square {}", p.square));
    }
    Ok(())
}

/// Shredder-FEN castling letters for the unmoved rooks: each must stand on its side's first rank
/// beside a king on that rank, and at most one on each side of the king.
fn castling(pieces: &[Piece], unmoved_rooks: &[(bool, u8)]) -> Result<String, String> {
    let mut letters = String::new();
    for black in [false, true] {
        let name = if black { "Black" } else { "White" };
        let back_rank = if black { 7 } else { 0 };
        let king = pieces.iter().find(|p| p.black == black && p.kind == KING).map_or(0, |p| p.square);
        let (mut east, mut west) = (0, 0);
        for &(_, square) in unmoved_rooks.iter().filter(|(b, _)| *b == black) {
            if square / 8 != back_rank || king / 8 != back_rank {
                return Err(format!("an unmoved {name} rook on square {square} cannot castle"));
            }
            if square > king {
                east += 1;
            } else {
                west += 1;
            }
            let file = b'a' + square % 8;
            letters.push(char::from(if black { file } else { file.to_ascii_uppercase() }));
        }
        if east > 1 || west > 1 {
            return Err(format!("more than one unmoved {name} rook on one side of the king"));
        }
    }
    Ok(if letters.is_empty() { "-".into() } else { letters })
}

/// The FEN's piece placement field.
fn placement(pieces: &[Piece]) -> String {
    let mut board = [None; 64];
    for p in pieces {
        board[p.square as usize] = Some(*p);
    }
    let mut out = String::with_capacity(72);
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
                    let letter = b"pnbrqk"[usize::from(p.kind)];
                    out.push(char::from(if p.black { letter } else { letter.to_ascii_uppercase() }));
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
    out
}
