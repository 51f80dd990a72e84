//! ProbCut: a capture that beats a raised beta in a shallow search (quiescence, then a
//! reduced search) is taken as proof that the full-depth search would fail high too.

use super::params::PROBCUT_REDUCTION;
use super::picker::MovePicker;
use super::{Searcher, SharedState};
use crate::board::{Board, Move, Position};
use crate::tt::BOUND_LOWER;

impl Searcher {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn probcut(
        &mut self,
        board: &mut Board,
        ctx: &SharedState<'_>,
        pos: &Position,
        depth: i32,
        probcut_beta: i32,
        eval: i32,
        raw_eval: i32,
        ply: usize,
        cut_node: bool,
    ) -> Option<i32> {
        let tt_move = ctx.tt.probe(pos.key(), ply, pos.halfmove_clock()).map_or(Move::NULL, |e| e.mv);
        let mut picker = MovePicker::new_qsearch(pos, tt_move, [None; 2]);
        while let Some(mv) = picker.next(pos, &self.hist) {
            if !pos.see_ge(mv, probcut_beta - eval) {
                continue;
            }
            let entry = self.ss_mut(ply);
            entry.mv = mv;
            entry.piece = pos.piece_on(mv.from());
            self.make_move(board, mv);
            let mut score = -self.qsearch::<false>(board, ctx, -probcut_beta, -probcut_beta + 1, ply + 1);
            if score >= probcut_beta {
                score = -self.negamax::<false>(
                    board,
                    ctx,
                    depth - PROBCUT_REDUCTION(),
                    -probcut_beta,
                    -probcut_beta + 1,
                    ply + 1,
                    !cut_node,
                );
            }
            self.unmake(board);
            if self.stopped {
                return Some(0);
            }
            if score >= probcut_beta {
                ctx.tt.store(pos.key(), ply, mv, score, raw_eval, depth - 3, BOUND_LOWER, false);
                return Some(score);
            }
        }
        None
    }
}
