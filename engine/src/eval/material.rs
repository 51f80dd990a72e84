//! Material, piece-square tables and the bishop pair.

use super::params::Params;
use super::score::Score;
use crate::board::{Color, PieceType, Position};

/// `us`'s material and piece-square scores, from `us`'s point of view.
#[inline]
pub(super) fn material_and_psqt(pos: &Position, params: &Params, us: Color) -> (Score, Score) {
    let mut material = Score::ZERO;
    let mut psqt = Score::ZERO;
    for kind in PieceType::ALL {
        let pieces = pos.pieces_of(us, kind);
        material += params.material[kind.index()] * pieces.count() as i32;
        let table = &params.psqt[kind.index()];
        for sq in pieces {
            psqt += table[sq.relative(us).index()];
        }
    }
    (material, psqt)
}

#[inline]
pub(super) fn bishop_pair(pos: &Position, params: &Params, us: Color) -> Score {
    if pos.pieces_of(us, PieceType::Bishop).several() {
        params.bishop_pair
    } else {
        Score::ZERO
    }
}
