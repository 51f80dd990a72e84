//! Perft: counts the leaves of the legal move tree, the move generator's correctness check and
//! speedometer. The last ply is bulk-counted (moves are counted, not made).

use super::{count_legal_moves, legal_moves};
use crate::board::{Move, Position};

pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => count_legal_moves(pos),
        _ => {
            let moves = legal_moves(pos);
            let mut total = 0;
            for &mv in moves.iter() {
                let mut child = *pos;
                child.make_move(mv);
                total += perft(&child, depth - 1);
            }
            total
        }
    }
}

/// Perft split by root move, in generation order.
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    legal_moves(pos)
        .iter()
        .map(|&mv| {
            let mut child = *pos;
            child.make_move(mv);
            (mv, perft(&child, depth - 1))
        })
        .collect()
}
