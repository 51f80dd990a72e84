//! Threats: enemy pieces attacked by our pawns, minors and rooks, pieces left hanging, and pawn
//! pushes that would attack a piece.

use super::bits::push;
use super::info::EvalInfo;
use super::params::Params;
use super::score::Score;
use crate::board::{Bitboard, Color, PieceType, Position};
use crate::movegen::attacks::pawn_attacks_set;

/// Threats `us` makes, from `us`'s point of view.
pub(super) fn threats(pos: &Position, params: &Params, info: &EvalInfo, us: Color) -> Score {
    let them = !us;
    let (c, t) = (us.index(), them.index());
    let pawn = PieceType::Pawn.index();
    let enemies = pos.colored(them) & !pos.pieces(PieceType::King);
    let enemy_pieces = enemies & !pos.pieces(PieceType::Pawn);
    // Pieces, and pawns that no pawn of theirs defends.
    let targets = enemy_pieces | (enemies & !info.attacked_by[t][pawn]);
    let by_minor =
        info.attacked_by[c][PieceType::Knight.index()] | info.attacked_by[c][PieceType::Bishop.index()];
    let by_rook = info.attacked_by[c][PieceType::Rook.index()];
    let by_pawn = info.attacked_by[c][pawn] & enemy_pieces;

    let mut score = Score::ZERO;
    for kind in [PieceType::Pawn, PieceType::Knight, PieceType::Bishop, PieceType::Rook, PieceType::Queen] {
        let k = kind.index();
        let victims = targets & pos.pieces(kind);
        if victims.is_empty() {
            continue;
        }
        score += params.threat_by_pawn[k] * (by_pawn & victims).count() as i32;
        score += params.threat_by_minor[k] * (by_minor & victims).count() as i32;
        score += params.threat_by_rook[k] * (by_rook & victims).count() as i32;
    }

    let hanging = enemy_pieces & info.attacked[c] & !info.attacked[t];
    score += params.hanging * hanging.count() as i32;

    // Pushes to squares no enemy pawn hits and that we hold at least as well as they do.
    let empty = !pos.occupied();
    let single = push(us, pos.pieces_of(us, PieceType::Pawn)) & empty;
    let third_rank = if us == Color::White { Bitboard::rank(2) } else { Bitboard::rank(5) };
    let double = push(us, single & third_rank) & empty;
    let safe = (single | double) & !info.attacked_by[t][pawn] & (info.attacked[c] | !info.attacked[t]);
    let pushed_threats = pawn_attacks_set(us, safe) & enemy_pieces;
    score += params.threat_pawn_push * pushed_threats.count() as i32;

    score
}
