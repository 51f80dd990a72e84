//! Knights, bishops, rooks and queens: mobility on safe squares, outposts, bishops and their
//! pawns, rooks on open files. Builds the pieces' attack maps as it goes.

use super::bits::push;
use super::info::EvalInfo;
use super::params::Params;
use super::pawns::PawnEntry;
use super::score::Score;
use crate::board::{Bitboard, Color, PieceType, Position};
use crate::movegen::attacks::{bishop_attacks, knight_attacks, queen_attacks, rook_attacks};

/// Relative ranks 4 to 6, where outposts are.
const OUTPOST_RANKS: [Bitboard; 2] = [Bitboard(0x0000_ffff_ff00_0000), Bitboard(0x0000_00ff_ffff_0000)];

/// `us`'s (mobility, other piece terms), from `us`'s point of view.
pub(super) fn pieces(
    pos: &Position,
    params: &Params,
    pawns: &PawnEntry,
    info: &mut EvalInfo,
    us: Color,
) -> (Score, Score) {
    let them = !us;
    let c = us.index();
    let ours = pos.colored(us);
    let occ = pos.occupied();
    let area = info.mobility_area[c];
    let mut mobility = Score::ZERO;
    let mut score = Score::ZERO;

    let outposts =
        OUTPOST_RANKS[c] & !pawns.attack_span[them.index()] & info.attacked_by[c][PieceType::Pawn.index()];
    let own_pawns = pos.pieces_of(us, PieceType::Pawn);

    let knights = pos.pieces_of(us, PieceType::Knight);
    for sq in knights {
        let attacks = knight_attacks(sq);
        info.add_attacks(params, us, PieceType::Knight, attacks);
        mobility += params.knight_mobility[(attacks & area).count() as usize];
        if outposts.has(sq) {
            score += params.knight_outpost;
        } else if (attacks & outposts & !ours).nonempty() {
            score += params.knight_outpost_reach;
        }
    }

    let bishops = pos.pieces_of(us, PieceType::Bishop);
    let queens = pos.pieces_of(us, PieceType::Queen);
    for sq in bishops {
        // Bishops see through their own queen: the battery shares the diagonal.
        let attacks = bishop_attacks(sq, occ ^ queens);
        info.add_attacks(params, us, PieceType::Bishop, attacks);
        mobility += params.bishop_mobility[(attacks & area).count() as usize];
        if outposts.has(sq) {
            score += params.bishop_outpost;
        }
        let same_color =
            if Bitboard::LIGHT_SQUARES.has(sq) { Bitboard::LIGHT_SQUARES } else { !Bitboard::LIGHT_SQUARES };
        score += params.bishop_pawns_same_color * (own_pawns & same_color).count() as i32;
    }

    let minors_behind_pawns = push(us, knights | bishops) & pos.pieces(PieceType::Pawn);
    score += params.minor_behind_pawn * minors_behind_pawns.count() as i32;

    let rooks = pos.pieces_of(us, PieceType::Rook);
    for sq in rooks {
        // Rooks see through their own rooks and queens.
        let attacks = rook_attacks(sq, occ ^ queens ^ rooks);
        info.add_attacks(params, us, PieceType::Rook, attacks);
        mobility += params.rook_mobility[(attacks & area).count() as usize];
        let file = 1u8 << sq.file();
        if pawns.semi_open[c] & file != 0 {
            score += if pawns.semi_open[them.index()] & file != 0 {
                params.rook_open_file
            } else {
                params.rook_half_open_file
            };
        }
    }

    for sq in queens {
        let attacks = queen_attacks(sq, occ);
        info.add_attacks(params, us, PieceType::Queen, attacks);
        mobility += params.queen_mobility[(attacks & area).count() as usize];
    }

    (mobility, score)
}
