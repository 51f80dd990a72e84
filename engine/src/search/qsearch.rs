//! Quiescence search: at the horizon, resolve captures (and queen promotions) until the
//! position is quiet, so the evaluation is never taken in the middle of an exchange. In check,
//! every evasion is searched, so mates at the horizon are seen.

use super::params::{QS_DELTA_MARGIN, QS_SEE_THRESHOLD};
use super::picker::MovePicker;
use super::score::{mated_in, DRAW, INFINITY, MATE_BOUND, MAX_PLY};
use super::{Searcher, SharedState, EVAL_NONE};
use crate::board::{Board, Move};
use crate::see::SEE_VALUES;
use crate::tt::{BOUND_EXACT, BOUND_LOWER, BOUND_UPPER};

impl Searcher {
    pub(super) fn qsearch<const PV: bool>(
        &mut self,
        board: &mut Board,
        ctx: &SharedState<'_>,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        if PV {
            self.pv_len[ply] = 0;
        }
        if self.enter_node(ctx, ply) {
            return 0;
        }
        let pos = *board.position();
        if Self::is_draw(board, ply) {
            return self.draw_value(ply);
        }
        let in_check = pos.in_check();
        if ply >= MAX_PLY - 1 {
            return if in_check { DRAW } else { self.evaluate(&pos) };
        }

        let tt_entry = ctx.tt.probe(pos.key(), ply, pos.halfmove_clock());
        if let Some(entry) = tt_entry {
            let usable = match entry.bound {
                BOUND_EXACT => true,
                BOUND_LOWER => entry.score >= beta,
                BOUND_UPPER => entry.score <= alpha,
                _ => false,
            };
            if !PV && usable {
                return entry.score;
            }
        }

        // Stand pat: the side to move may decline every capture.
        let (raw_eval, mut best_score) = if in_check {
            (EVAL_NONE, -INFINITY)
        } else {
            let raw = match tt_entry {
                Some(entry) if entry.eval != EVAL_NONE => entry.eval,
                _ => self.evaluate(&pos),
            };
            let corrected = self.correction.corrected(&pos, raw);
            let stand_pat = match tt_entry {
                Some(e)
                    if e.score.abs() < MATE_BOUND
                        && (e.bound == BOUND_EXACT
                            || (e.bound == BOUND_LOWER && e.score > corrected)
                            || (e.bound == BOUND_UPPER && e.score < corrected)) =>
                {
                    e.score
                }
                _ => corrected,
            };
            if stand_pat >= beta {
                if tt_entry.is_none() {
                    ctx.tt.store(pos.key(), ply, Move::NULL, stand_pat, raw, -1, BOUND_LOWER, false);
                }
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            (raw, stand_pat)
        };

        let cont = [self.cont_key(ply, 1), self.cont_key(ply, 2)];
        let tt_move = tt_entry.map_or(Move::NULL, |e| e.mv);
        let mut picker = MovePicker::new_qsearch(&pos, tt_move, cont);
        let mut best_move = Move::NULL;
        let mut move_count = 0;
        while let Some(mv) = picker.next(&pos, &self.hist) {
            move_count += 1;
            if !in_check {
                // Delta pruning: even winning the victim outright cannot reach alpha (checks
                // are kept: a mate is worth more than the victim).
                if !mv.is_promotion() && !picker.gives_check(&pos, mv) {
                    let victim =
                        pos.piece_on(mv.to()).map_or(SEE_VALUES[0], |p| SEE_VALUES[p.kind().index()]);
                    let futility = best_score + victim + QS_DELTA_MARGIN();
                    if futility <= alpha {
                        best_score = best_score.max(futility);
                        continue;
                    }
                }
                // Losing captures are not worth resolving.
                if !pos.see_ge(mv, QS_SEE_THRESHOLD()) {
                    continue;
                }
            }

            ctx.tt.prefetch(pos.key_after(mv));
            let entry = self.ss_mut(ply);
            entry.mv = mv;
            entry.piece = pos.piece_on(mv.from());
            self.make_move(board, mv);
            let score = -self.qsearch::<PV>(board, ctx, -beta, -alpha, ply + 1);
            self.unmake(board);
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = mv;
                    if PV {
                        self.update_pv(ply, mv);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
        }

        if in_check && move_count == 0 {
            return mated_in(ply);
        }
        let bound = if best_score >= beta { BOUND_LOWER } else { BOUND_UPPER };
        ctx.tt.store(pos.key(), ply, best_move, best_score, raw_eval, 0, bound, false);
        best_score
    }
}
