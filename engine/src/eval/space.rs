//! Space: safe central squares on our side of the board, counted double behind our pawns and
//! weighted by how many pieces we have to use them.

use super::bits::fill_forward;
use super::info::EvalInfo;
use super::params::Params;
use super::score::Score;
use crate::board::{Bitboard, Color, PieceType, Position};

/// Files c to f on relative ranks 2 to 4.
const SPACE_AREA: [Bitboard; 2] = [Bitboard(0x0000_0000_3c3c_3c00), Bitboard(0x003c_3c3c_0000_0000)];

/// The space term for `us`, from `us`'s point of view.
#[inline]
pub(super) fn space(pos: &Position, params: &Params, info: &EvalInfo, us: Color) -> Score {
    let them = !us;
    let pawns = pos.pieces_of(us, PieceType::Pawn);
    let safe = SPACE_AREA[us.index()] & !pawns & !info.attacked_by[them.index()][PieceType::Pawn.index()];
    let behind = fill_forward(them, pawns);
    let units = safe.count() + (safe & behind).count();
    let pieces = (pos.colored(us).count() - 1).min(16);
    params.space * (units * pieces / 16) as i32
}
