//! What every node of the search needs: counting and the stop check, the time used, the
//! evaluation, draws and their value, the principal variation, and reading the table's entries.

use super::params::NNUE_OUTPUT_PERCENT;
use super::score::{DRAW, EVAL_LIMIT, MATE_BOUND, MAX_PLY, TB_WIN};
use super::{Searcher, SharedState};
use crate::board::{Board, Move, Position};
use crate::movegen::count_legal_moves;
use crate::nnue::{AccumulatorStack, FeatureDelta};
use crate::tb::Wdl;
use crate::tt::{TtEntry, BOUND_EXACT, BOUND_LOWER, BOUND_UPPER};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Score and bound of a tablebase result found at `ply`. Wins and losses are bounds (the search
/// may still find a mate); draws are exact.
pub(super) fn tb_score(wdl: Wdl, rule50: bool, ply: usize) -> (i32, u8) {
    match wdl {
        Wdl::Win => (TB_WIN - ply as i32, BOUND_LOWER),
        Wdl::Loss => (-TB_WIN + ply as i32, BOUND_UPPER),
        Wdl::CursedWin if !rule50 => (TB_WIN - ply as i32, BOUND_LOWER),
        Wdl::BlessedLoss if !rule50 => (-TB_WIN + ply as i32, BOUND_UPPER),
        // Won or lost in principle, drawn by the 50-move rule: nudge towards the better side.
        Wdl::CursedWin => (DRAW + 1, BOUND_EXACT),
        Wdl::BlessedLoss => (DRAW - 1, BOUND_EXACT),
        Wdl::Draw => (DRAW, BOUND_EXACT),
    }
}

/// Whether a table entry's bound makes its score usable against `alpha`/`beta`.
#[inline]
pub(super) fn tt_cuts(entry: &TtEntry, alpha: i32, beta: i32) -> bool {
    match entry.bound {
        BOUND_EXACT => true,
        BOUND_LOWER => entry.score >= beta,
        BOUND_UPPER => entry.score <= alpha,
        _ => false,
    }
}

/// Whether the node's static evaluation can be sharpened by the table's score.
#[inline]
pub(super) fn tt_refines_eval(entry: &TtEntry, eval: i32) -> bool {
    entry.score.abs() < MATE_BOUND
        && match entry.bound {
            BOUND_EXACT => true,
            BOUND_LOWER => entry.score > eval,
            BOUND_UPPER => entry.score < eval,
            _ => false,
        }
}
impl Searcher {
    /// Count a node, and decide whether to stop: the flag, the clock and the node limit (of all
    /// threads together; each counts the others' nodes as last read, so that a thread passes it
    /// by at most the 1024 nodes between two reads). Depth 1 is always completed by the
    /// answering search, so there is always a move to play.
    #[inline]
    pub(super) fn enter_node(&mut self, ctx: &SharedState<'_>, ply: usize) -> bool {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.nodes & 1023 == 0 {
            ctx.nodes.store(self.nodes, Ordering::Relaxed);
            self.check_limits(ctx);
        }
        if self.limits.nodes.is_some_and(|limit| self.other_nodes + self.nodes >= limit) {
            ctx.control.stop.store(true, Ordering::Relaxed);
        }
        // The answering search completes depth 1, so that there is a move to play.
        if (self.root_depth > 1 || !self.limits.answers) && ctx.control.stopped() {
            self.stopped = true;
        }
        self.stopped
    }

    fn check_limits(&mut self, ctx: &SharedState<'_>) {
        if super::time::hard_limit_reached(&self.limits, ctx.control) {
            ctx.control.stop.store(true, Ordering::Relaxed);
        }
        if self.limits.nodes.is_some() {
            self.other_nodes = (ctx.total_nodes)().saturating_sub(self.nodes);
        }
    }

    /// The static evaluation of `pos`, the board's current position.
    #[inline]
    pub(super) fn evaluate(&mut self, pos: &Position) -> i32 {
        // A network's output is unbounded; the search's evaluations stay far from mates.
        scale_network_output(self.nnue.evaluate(pos), NNUE_OUTPUT_PERCENT())
    }

    /// Set up the network's accumulators for a search from `root`: the ones of the last search
    /// when the network is the same, new ones for another network.
    pub(super) fn prepare_evaluation(&mut self, root: &Position) {
        if Arc::ptr_eq(&self.network, self.nnue.network()) {
            self.nnue.reset(root);
        } else {
            self.nnue = AccumulatorStack::new(Arc::clone(&self.network), root);
        }
    }

    // Every move the search makes goes through these three, so the network's accumulators follow
    // the board (`ponder_move` only peeks at one position and takes its move back at once).

    #[inline(always)]
    pub(super) fn make_move(&mut self, board: &mut Board, mv: Move) {
        Self::make_move_tracked(&mut self.nnue, board, mv);
    }

    #[inline(never)]
    fn make_move_tracked(accumulators: &mut AccumulatorStack, board: &mut Board, mv: Move) {
        let delta = FeatureDelta::of_move(board.position(), mv);
        board.make_move(mv);
        accumulators.push(delta, board.position().key());
    }

    #[inline(always)]
    pub(super) fn make_null_move(&mut self, board: &mut Board) {
        board.make_null_move();
        self.nnue.push(FeatureDelta::NONE, board.position().key());
    }

    #[inline(always)]
    pub(super) fn unmake(&mut self, board: &mut Board) {
        board.unmake();
        self.nnue.pop();
    }

    /// What a drawn game is worth to the side to move at `ply`: `DRAW` less the contempt at
    /// even plies (the root's side to move, null moves included), more at odd ones.
    #[inline]
    pub(super) fn draw_value(&self, ply: usize) -> i32 {
        if ply.is_multiple_of(2) {
            DRAW - self.limits.contempt
        } else {
            DRAW + self.limits.contempt
        }
    }

    /// Draw by the fifty-move rule (unless it is checkmate), repetition or bare material.
    #[inline]
    pub(super) fn is_draw(board: &Board, ply: usize) -> bool {
        let pos = board.position();
        if pos.halfmove_clock() >= 100 && !(pos.in_check() && count_legal_moves(pos) == 0) {
            return true;
        }
        board.is_repetition(ply) || pos.is_insufficient_material()
    }

    /// The table's line from the current position as the variation at `ply`: each entry's move
    /// in turn while it is legal, at most `length` moves, ending at a repeated position.
    pub(super) fn table_line(&mut self, board: &mut Board, ctx: &SharedState<'_>, ply: usize, length: usize) {
        let mut len = 0;
        while len < length.min(MAX_PLY - ply) {
            let pos = *board.position();
            let Some(entry) = ctx.tt.probe(pos.key(), ply + len, pos.halfmove_clock()) else { break };
            if !pos.is_legal_move(entry.mv) {
                break;
            }
            self.pv[ply][len] = entry.mv;
            len += 1;
            board.make_move(entry.mv);
            if board.repetitions(0) > 0 {
                break;
            }
        }
        for _ in 0..len {
            board.unmake();
        }
        self.pv_len[ply] = len;
    }

    pub(super) fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = if ply < MAX_PLY { self.pv_len[ply + 1] } else { 0 };
        self.pv[ply][0] = mv;
        for i in 0..child_len.min(MAX_PLY - 1) {
            self.pv[ply][i + 1] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len.min(MAX_PLY - 1) + 1;
    }
}

/// The static evaluation the search uses for a network output of `output` centipawns (for
/// `eval`; the search itself calls `scale_network_output` directly).
pub fn evaluation_of_network_output(output: i32) -> i32 {
    scale_network_output(output, NNUE_OUTPUT_PERCENT())
}

/// What a table's scores and evaluations come from: the network (its hash) and the scale the
/// search puts on its output, which a tuning build may change. A table file records it, and one
/// of another evaluation is refused.
pub fn evaluation_fingerprint(network_hash: u64) -> u64 {
    fingerprint_of(network_hash, NNUE_OUTPUT_PERCENT())
}

fn fingerprint_of(network_hash: u64, output_percent: i32) -> u64 {
    network_hash ^ (output_percent as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

#[cfg(test)]
#[test]
fn the_evaluation_fingerprint_tells_the_output_scale_apart() {
    let network = 0x0123_4567_89ab_cdef;
    assert_ne!(fingerprint_of(network, 97), fingerprint_of(network, 100));
    assert_ne!(fingerprint_of(network, 97), fingerprint_of(network ^ 1, 97));
    assert_eq!(evaluation_fingerprint(network), fingerprint_of(network, NNUE_OUTPUT_PERCENT()));
}

/// A network's output as the search sees it: `percent` of it, within ±`EVAL_LIMIT`. At 100 (a
/// normal build's constant) it is the output itself, clamped.
#[inline(always)]
fn scale_network_output(output: i32, percent: i32) -> i32 {
    let output = output.clamp(-EVAL_LIMIT, EVAL_LIMIT);
    if percent == 100 {
        output
    } else {
        (output * percent / 100).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_network_output_is_scaled_by_percent_and_stays_within_the_limit() {
        assert_eq!(scale_network_output(250, 100), 250);
        assert_eq!(scale_network_output(250, 140), 350);
        assert_eq!(scale_network_output(-250, 70), -175);
        assert_eq!(scale_network_output(i32::MAX, 100), EVAL_LIMIT);
        assert_eq!(scale_network_output(i32::MIN, 140), -EVAL_LIMIT);
        assert_eq!(scale_network_output(9_000, 140), EVAL_LIMIT);
    }
}
