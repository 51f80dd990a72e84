//! Score conventions: centipawns from the side to move's view; mates as distance from the root.

/// Deepest ply the search reaches (stack and PV sizes).
pub const MAX_PLY: usize = 128;

/// Score of being mated at the root; `MATE - n` is mate in `n` plies.
pub const MATE: i32 = 32_000;
pub const INFINITY: i32 = MATE + 1;
/// Scores beyond this are mates (ply-dependent); the evaluation stays far below it.
pub const MATE_BOUND: i32 = MATE - 2 * MAX_PLY as i32;
pub const DRAW: i32 = 0;
/// Evaluations never leave ±`EVAL_LIMIT`, far from tablebase results and mates.
pub const EVAL_LIMIT: i32 = 10_000;
/// A tablebase win at the root; `TB_WIN - ply` deeper in the tree. Above any evaluation,
/// below every mate.
pub const TB_WIN: i32 = 20_000;
/// Scores at or beyond this magnitude depend on the ply (tablebase results and mates): the
/// table stores them relative to the node.
pub const PLY_DEPENDENT_BOUND: i32 = TB_WIN - MAX_PLY as i32;

/// A decided score: a tablebase result or a mate, never an evaluation. Pruning that reasons
/// from margins over the evaluation must not act on, or build, such a score.
#[inline]
pub const fn is_decisive(score: i32) -> bool {
    score.abs() >= PLY_DEPENDENT_BOUND
}

/// A tablebase win or a mate for the side to move.
#[inline]
pub const fn is_win(score: i32) -> bool {
    score >= PLY_DEPENDENT_BOUND
}

/// A tablebase loss or being mated.
#[inline]
pub const fn is_loss(score: i32) -> bool {
    score <= -PLY_DEPENDENT_BOUND
}

#[inline]
pub const fn mate_in(ply: usize) -> i32 {
    MATE - ply as i32
}

#[inline]
pub const fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

#[inline]
pub const fn is_mate_score(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// A score as UCI shows it: `cp N` or `mate N` (N in moves, negative when being mated).
pub fn uci_score(score: i32) -> String {
    if is_mate_score(score) {
        let plies = MATE - score.abs();
        let moves = (plies + 1) / 2;
        if score > 0 || moves == 0 {
            format!("mate {moves}")
        } else {
            format!("mate -{moves}")
        }
    } else {
        format!("cp {score}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uci_mate_scores_count_moves() {
        assert_eq!(uci_score(mate_in(1)), "mate 1");
        assert_eq!(uci_score(mate_in(3)), "mate 2");
        assert_eq!(uci_score(mated_in(2)), "mate -1");
        assert_eq!(uci_score(mated_in(0)), "mate 0");
        assert_eq!(uci_score(-35), "cp -35");
    }
}
