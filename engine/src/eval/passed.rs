//! Passed pawns: by rank, by the distance of both kings, and by what stands or strikes in front.

use super::bits::{distance, forward_file};
use super::info::EvalInfo;
use super::params::Params;
use super::score::Score;
use crate::board::{Bitboard, Color, Position, Square};

/// The kings' distance counts up to this many squares.
const MAX_KING_DISTANCE: i32 = 5;

/// `us`'s passed pawns (from the pawn entry), from `us`'s point of view.
pub(super) fn passed_pawns(
    pos: &Position,
    params: &Params,
    info: &EvalInfo,
    passed: Bitboard,
    us: Color,
) -> Score {
    let them = !us;
    let our_king = pos.king_square(us);
    let their_king = pos.king_square(them);
    let their_attacks = info.attacked[them.index()];
    let occ = pos.occupied();
    let pawn_ending = pos.non_pawn_material(them).is_empty();
    let mut score = Score::ZERO;

    for sq in passed {
        let rank = sq.relative_rank(us) as usize;
        let stop = sq.offset(if us == Color::White { 8 } else { -8 });
        let path = forward_file(us, sq);
        score += params.passed_rank[rank];
        score += params.passed_own_king_distance[rank] * distance(our_king, stop).min(MAX_KING_DISTANCE);
        score += params.passed_their_king_distance[rank] * distance(their_king, stop).min(MAX_KING_DISTANCE);

        if occ.has(stop) {
            if pos.colored(them).has(stop) {
                score += params.passed_blocked[rank];
            }
        } else if (path & (occ | their_attacks)).is_empty() {
            score += params.passed_free_path[rank];
        } else if !their_attacks.has(stop) {
            score += params.passed_safe_push[rank];
        }

        if pawn_ending && (path & occ).is_empty() && outside_square(pos, sq, rank, their_king, us) {
            score += params.passed_unstoppable;
        }
    }
    score
}

/// The rule of the square: the enemy king cannot catch the pawn on its way to promotion.
fn outside_square(pos: &Position, sq: Square, rank: usize, their_king: Square, us: Color) -> bool {
    let promotion = Square::from_file_rank(sq.file(), if us == Color::White { 7 } else { 0 });
    // From its starting rank the pawn's first step can be a double one.
    let pawn_moves = 7 - rank.max(2) as i32;
    let tempo = (pos.side_to_move() != us) as i32;
    distance(their_king, promotion) - tempo > pawn_moves
}
