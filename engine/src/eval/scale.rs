//! Game phase and endgame scaling: how far towards a draw the endgame half of the score shrinks
//! when the stronger side lacks the material to win or the bishops are of opposite colours.

use crate::board::{Bitboard, Color, PieceType, Position};

/// The scale of a normal position.
pub(super) const SCALE_NORMAL: i32 = 64;
/// Phase of the starting material: knight and bishop 1, rook 2, queen 4.
pub(super) const PHASE_MAX: i32 = 24;

#[inline]
pub(super) fn phase(pos: &Position) -> i32 {
    let minors = (pos.pieces(PieceType::Knight) | pos.pieces(PieceType::Bishop)).count() as i32;
    let rooks = pos.pieces(PieceType::Rook).count() as i32;
    let queens = pos.pieces(PieceType::Queen).count() as i32;
    (minors + 2 * rooks + 4 * queens).min(PHASE_MAX)
}

/// Non-pawn material in pawns (3, 3, 5, 9) for endgame decisions.
#[inline]
fn piece_material(pos: &Position, color: Color) -> i32 {
    let count = |kind| pos.pieces_of(color, kind).count() as i32;
    3 * (count(PieceType::Knight) + count(PieceType::Bishop))
        + 5 * count(PieceType::Rook)
        + 9 * count(PieceType::Queen)
}

/// Neither side can mate: no pawns and at most one minor piece each.
#[inline]
pub(super) fn is_dead_draw(pos: &Position) -> bool {
    pos.pieces(PieceType::Pawn).is_empty()
        && pos.pieces(PieceType::Rook).is_empty()
        && pos.pieces(PieceType::Queen).is_empty()
        && Color::ALL.iter().all(|&c| pos.non_pawn_material(c).count() <= 1)
}

/// The factor (out of 64) for the endgame half of a score whose endgame half is `eg` (White's
/// view); `passed` holds both sides' passed pawns.
pub(super) fn scale_factor(pos: &Position, eg: i32, passed: Bitboard) -> i32 {
    if eg == 0 {
        return SCALE_NORMAL;
    }
    let strong = if eg > 0 { Color::White } else { Color::Black };
    let weak = !strong;
    let strong_pieces = piece_material(pos, strong);
    let weak_pieces = piece_material(pos, weak);

    if pos.pieces_of(strong, PieceType::Pawn).is_empty() {
        // A lone minor cannot mate; nor can two knights against a bare king.
        let two_knights =
            pos.non_pawn_material(strong) == pos.pieces_of(strong, PieceType::Knight) && strong_pieces == 6;
        if strong_pieces <= 3 || (two_knights && pos.colored(weak).count() == 1) {
            return 0;
        }
        // Up no more than a minor piece, without pawns: usually a draw.
        if strong_pieces - weak_pieces <= 3 {
            return if two_knights { 8 } else { 16 };
        }
    }

    let bishops = pos.pieces(PieceType::Bishop);
    let white_bishops = pos.pieces_of(Color::White, PieceType::Bishop);
    let black_bishops = pos.pieces_of(Color::Black, PieceType::Bishop);
    if white_bishops.count() == 1
        && black_bishops.count() == 1
        && (bishops & Bitboard::LIGHT_SQUARES).count() == 1
    {
        if strong_pieces == 3 && weak_pieces == 3 {
            let strong_passers = (passed & pos.colored(strong)).count() as i32;
            return (16 + 8 * strong_passers).min(SCALE_NORMAL);
        }
        return 48;
    }
    SCALE_NORMAL
}
