//! Perft: counts the leaves of the legal move tree, the move generator's correctness check and
//! speedometer. The last ply is bulk-counted (moves are counted, not made).

use super::{count_legal_moves, legal_moves};
use crate::board::{Move, Position};

pub fn perft(pos: &Position, depth: u32) -> u64 {
    perft_until(pos, depth, &|| false).unwrap_or_default()
}

/// `perft`, given up (`None`) once `stop` says so: it is asked at every node three or more plies
/// above the leaves, about once a millisecond.
pub fn perft_until(pos: &Position, depth: u32, stop: &impl Fn() -> bool) -> Option<u64> {
    match depth {
        0 => Some(1),
        1 => Some(count_legal_moves(pos)),
        _ if depth >= 3 && stop() => None,
        _ => {
            let moves = legal_moves(pos);
            let mut total = 0;
            for &mv in moves.iter() {
                let mut child = *pos;
                child.make_move(mv);
                total += perft_until(&child, depth - 1, stop)?;
            }
            Some(total)
        }
    }
}

/// Perft split by root move, in generation order; `None` once `stop` says so (`perft_until`).
pub fn perft_divide(pos: &Position, depth: u32, stop: &impl Fn() -> bool) -> Option<Vec<(Move, u64)>> {
    if depth == 0 {
        return Some(Vec::new());
    }
    legal_moves(pos)
        .iter()
        .map(|&mv| {
            let mut child = *pos;
            child.make_move(mv);
            Some((mv, perft_until(&child, depth - 1, stop)?))
        })
        .collect()
}
