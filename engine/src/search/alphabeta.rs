//! The main search: fail-soft negamax with principal variation search.

use super::node::{tb_score, tt_cuts, tt_refines_eval};
use super::params::*;
use super::picker::MovePicker;
use super::score::{is_decisive, is_loss, is_win, mate_in, mated_in, DRAW, INFINITY, MAX_PLY};
use super::{Searcher, SharedState, EVAL_NONE};
use crate::board::{Board, Move, PieceType};
use crate::movegen::MoveList;
use crate::tt::{BOUND_EXACT, BOUND_LOWER, BOUND_NONE, BOUND_UPPER};
use std::sync::atomic::Ordering;

/// Root moves are announced (`currmove`) only once the search has run this long.
const CURRMOVE_DELAY: std::time::Duration = std::time::Duration::from_secs(3);

fn hundredths(value: i32) -> f64 {
    value as f64 / 100.0
}

/// `reductions[noisy][depth][move number]` for late move reductions.
pub(super) fn reduction_table() -> Box<[[[i32; 64]; 64]; 2]> {
    let mut table = Box::new([[[0; 64]; 64]; 2]);
    for depth in 1..64 {
        for count in 1..64 {
            let product = (depth as f64).ln() * (count as f64).ln();
            table[0][depth][count] =
                (hundredths(LMR_QUIET_BASE()) + product / hundredths(LMR_QUIET_DIVISOR())) as i32;
            table[1][depth][count] =
                (hundredths(LMR_NOISY_BASE()) + product / hundredths(LMR_NOISY_DIVISOR())).max(0.0) as i32;
        }
    }
    table
}

#[inline]
fn rfp_margin(depth: i32, improving: bool) -> i32 {
    RFP_MARGIN() * depth - RFP_IMPROVING_MARGIN() * improving as i32
}

#[inline]
fn lmp_threshold(depth: i32, improving: bool) -> i32 {
    (LMP_BASE() + depth * depth) / (2 - improving as i32)
}

#[inline]
fn futility_margin(lmr_depth: i32) -> i32 {
    FUTILITY_BASE() + FUTILITY_PER_DEPTH() * lmr_depth
}

impl Searcher {
    #[inline]
    pub(super) fn reduction(&self, quiet: bool, depth: i32, move_count: i32) -> i32 {
        self.reductions[!quiet as usize][depth.clamp(0, 63) as usize][move_count.clamp(0, 63) as usize]
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn negamax<const PV: bool>(
        &mut self,
        board: &mut Board,
        ctx: &SharedState<'_>,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        if depth <= 0 {
            return self.qsearch::<PV>(board, ctx, alpha, beta, ply);
        }
        self.pv_len[ply] = 0;
        if self.enter_node(ctx, ply) {
            return 0;
        }
        let root = ply == 0;
        let pos = *board.position();
        let in_check = pos.in_check();

        // Step 1. Draws, the ply limit and mate distance pruning (never at the root, which must
        // return a move).
        if !root {
            if Self::is_draw(board, ply) {
                return self.draw_value(ply);
            }
            if ply >= MAX_PLY - 1 {
                return if in_check { DRAW } else { self.evaluate(&pos) };
            }
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        // Step 2. Transposition table.
        let excluded = self.ss(ply).excluded;
        let tt_entry =
            if excluded.is_null() { ctx.tt.probe(pos.key(), ply, pos.halfmove_clock()) } else { None };
        let tt_move = tt_entry.map_or(Move::NULL, |e| e.mv);
        let tt_pv = PV || tt_entry.is_some_and(|e| e.pv);
        if let Some(entry) = tt_entry {
            if !PV && entry.depth >= depth && tt_cuts(&entry, alpha, beta) && pos.halfmove_clock() < 90 {
                return entry.score;
            }
            // The iteration a resumed analysis starts with takes back what an earlier search
            // proved exactly at this depth on the principal variation too (searching it again
            // would repeat that search), with the table's line from here as the variation. Never
            // at the root, whose moves are all searched.
            if PV
                && self.resumed
                && !root
                && entry.bound == BOUND_EXACT
                && entry.depth >= depth
                && pos.halfmove_clock() < 90
                && pos.is_legal_move(tt_move)
            {
                self.table_line(board, ctx, ply, depth as usize);
                return entry.score;
            }
        }

        // Step 3. Tablebases: right after a capture or pawn move the WDL tables are exact.
        let mut tb_floor = -INFINITY;
        let mut tb_ceiling = INFINITY;
        if let Some(tb) = ctx.tb {
            let pieces = pos.occupied().count() as usize;
            let limit = tb.probe_limit.min(tb.tables.max_pieces());
            if !root
                && excluded.is_null()
                && pos.halfmove_clock() == 0
                && pos.castling_rights() == 0
                && pieces <= limit
                && (pieces < limit || depth >= tb.probe_depth)
            {
                if let Some(wdl) = tb.tables.probe_wdl(&pos) {
                    tb.hits.fetch_add(1, Ordering::Relaxed);
                    let (score, bound) = tb_score(wdl, tb.rule50, ply);
                    if bound == BOUND_EXACT
                        || (bound == BOUND_LOWER && score >= beta)
                        || (bound == BOUND_UPPER && score <= alpha)
                    {
                        let stored_depth = (depth + 6).min(MAX_PLY as i32);
                        ctx.tt.store(
                            pos.key(),
                            ply,
                            Move::NULL,
                            score,
                            EVAL_NONE,
                            stored_depth,
                            bound,
                            tt_pv,
                        );
                        return score;
                    }
                    if PV {
                        if bound == BOUND_LOWER {
                            tb_floor = score;
                            alpha = alpha.max(score);
                        } else {
                            tb_ceiling = score;
                        }
                    }
                }
            }
        }

        // Step 4. Static evaluation: `raw_eval` is what the table keeps, `static_eval` the same
        // corrected by the correction history, and `eval` that or a tighter table score.
        let (raw_eval, static_eval, eval) = if in_check {
            (EVAL_NONE, EVAL_NONE, EVAL_NONE)
        } else if !excluded.is_null() {
            let e = self.ss(ply).static_eval;
            (e, e, e)
        } else {
            let raw = match tt_entry {
                Some(entry) if entry.eval != EVAL_NONE => entry.eval,
                _ => {
                    let raw = self.evaluate(&pos);
                    if tt_entry.is_none() {
                        ctx.tt.store(pos.key(), ply, Move::NULL, 0, raw, -1, BOUND_NONE, tt_pv);
                    }
                    raw
                }
            };
            let corrected = self.correction.corrected(&pos, raw);
            let eval = match tt_entry {
                Some(entry) if tt_refines_eval(&entry, corrected) => entry.score,
                _ => corrected,
            };
            (raw, corrected, eval)
        };
        self.ss_mut(ply).static_eval = static_eval;
        // Improving: better than two plies ago (or four, when two plies ago was in check).
        let improving = !in_check && {
            let two = self.ss_back(ply, 2).static_eval;
            let four = self.ss_back(ply, 4).static_eval;
            if two != EVAL_NONE {
                static_eval > two
            } else {
                four != EVAL_NONE && static_eval > four
            }
        };
        self.ss_mut(ply + 2).killers = [Move::NULL; 2];

        let stm = pos.side_to_move();
        let has_pieces = pos.non_pawn_material(stm).nonempty();

        #[cfg(test)]
        self.probe.evaluated(eval);

        if !PV && !in_check && excluded.is_null() {
            // Step 5. Razoring: hopeless positions drop into quiescence.
            if depth <= RAZOR_MAX_DEPTH() && !is_decisive(alpha) && eval + RAZOR_MARGIN() * depth < alpha {
                let score = self.qsearch::<false>(board, ctx, alpha, alpha + 1, ply);
                if score <= alpha {
                    return score;
                }
            }

            // Step 6. Reverse futility pruning: far enough above beta, assume a cutoff.
            if depth <= RFP_MAX_DEPTH()
                && !is_decisive(eval)
                && !is_decisive(beta)
                && eval - rfp_margin(depth, improving) >= beta
            {
                #[cfg(test)]
                self.probe.pruned(is_decisive(eval) || is_decisive(beta));
                return (eval + beta) / 2;
            }

            // Step 7. Null move pruning: if passing still fails high, the node will. Not after
            // a null move, and not with only pawns left (zugzwang).
            let after_null = ply > 0 && self.ss(ply - 1).mv.is_null();
            if depth >= NMP_MIN_DEPTH()
                && eval >= beta
                && static_eval >= beta
                && !after_null
                && has_pieces
                && ply >= self.nmp_min_ply
                && !is_loss(beta)
            {
                let r = NMP_BASE_REDUCTION()
                    + depth / NMP_DEPTH_DIVISOR()
                    + ((eval - beta) / NMP_EVAL_DIVISOR()).min(NMP_MAX_EVAL_REDUCTION());
                let entry = self.ss_mut(ply);
                entry.mv = Move::NULL;
                entry.piece = None;
                self.make_null_move(board);
                let score =
                    -self.negamax::<false>(board, ctx, depth - r, -beta, -beta + 1, ply + 1, !cut_node);
                self.unmake(board);
                if self.stopped {
                    return 0;
                }
                if score >= beta {
                    let score = if is_win(score) { beta } else { score };
                    if depth < NMP_VERIFY_DEPTH() || self.nmp_min_ply > 0 {
                        #[cfg(test)]
                        self.probe.pruned(is_decisive(score) && score != beta);
                        return score;
                    }
                    // Deep null-move cutoffs are verified without null moves near this ply.
                    self.nmp_min_ply = ply + (3 * (depth - r) / 4) as usize;
                    let verified = self.negamax::<false>(board, ctx, depth - r, beta - 1, beta, ply, false);
                    self.nmp_min_ply = 0;
                    if verified >= beta {
                        return score;
                    }
                }
            }

            // Step 8. ProbCut: a capture that beats beta by a margin in a reduced search
            // almost surely beats beta in a full one.
            let probcut_beta = beta + PROBCUT_MARGIN();
            if depth >= PROBCUT_MIN_DEPTH()
                && !is_decisive(beta)
                && !tt_entry.is_some_and(|e| e.depth >= depth - 3 && e.score < probcut_beta)
            {
                if let Some(score) =
                    self.probcut(board, ctx, &pos, depth, probcut_beta, eval, raw_eval, ply, cut_node)
                {
                    return score;
                }
            }
        }

        // Step 9. Internal iterative reduction: without a table move, this node was not searched
        // before and is probably less important.
        if (PV || cut_node) && depth >= IIR_MIN_DEPTH() && tt_move.is_null() {
            depth -= 1;
        }

        // Step 10. The move loop.
        let cont = [self.cont_key(ply, 1), self.cont_key(ply, 2)];
        let counter = self.hist.counter_move(cont[0]);
        let mut picker = MovePicker::new(&pos, tt_move, self.ss(ply).killers, counter, cont);
        let mut best_score = -INFINITY;
        let mut best_move = Move::NULL;
        let mut move_count = 0;
        let mut quiets_tried = MoveList::new();
        let mut noisy_tried = MoveList::new();
        let original_alpha = alpha;

        while let Some(mv) = picker.next(&pos, &self.hist) {
            if mv == excluded || (root && !self.root_move_allowed(mv)) {
                continue;
            }
            move_count += 1;
            if let Some(reporter) = ctx.reporter.filter(|_| root) {
                if self.limits.start.elapsed() >= CURRMOVE_DELAY {
                    reporter.current_move(depth, mv, move_count as usize);
                }
            }
            let quiet = mv.is_quiet();
            let piece = pos.piece_on(mv.from()).expect("legal moves start on a piece");
            let history = if quiet {
                self.hist.quiet_score(stm, piece, mv, cont)
            } else {
                let victim = pos.piece_on(mv.to()).map_or(PieceType::Pawn, |p| p.kind());
                self.hist.capture(piece, mv, victim)
            };
            let nodes_before = self.nodes;
            let gives_check = picker.gives_check(&pos, mv);

            // Step 11. Pruning of late, unpromising moves (not at the root, not while every
            // move so far loses to a mate, not with only pawns left).
            if !root && !is_loss(best_score) && has_pieces {
                let lmr_depth = (depth - self.reduction(quiet, depth, move_count)).max(0);
                if quiet && depth <= LMP_MAX_DEPTH() && move_count >= lmp_threshold(depth, improving) {
                    picker.skip_quiets();
                    if !gives_check {
                        continue;
                    }
                }
                if quiet && !gives_check {
                    if !in_check
                        && lmr_depth <= FUTILITY_MAX_DEPTH()
                        && !is_decisive(alpha)
                        && eval + futility_margin(lmr_depth) <= alpha
                    {
                        picker.skip_quiets();
                        continue;
                    }
                    if lmr_depth <= HISTORY_PRUNING_MAX_DEPTH() && history < -HISTORY_PRUNING_MARGIN() * depth
                    {
                        continue;
                    }
                    if lmr_depth <= SEE_PRUNING_MAX_DEPTH()
                        && !pos.see_ge(mv, -SEE_QUIET_MARGIN() * lmr_depth * lmr_depth)
                    {
                        continue;
                    }
                } else if depth <= SEE_PRUNING_MAX_DEPTH()
                    && !pos.see_ge(mv, -SEE_NOISY_MARGIN() * depth * depth)
                {
                    continue;
                }
            }

            // Step 12. Singular extension: if every other move fails low against a bound just
            // below the table score, the table move is forced and searched deeper; if even the
            // bound beats beta, several moves do and the node is cut (multi-cut).
            let mut extension = 0;
            if let Some(entry) = tt_entry {
                if !root
                    && mv == tt_move
                    && depth >= SE_MIN_DEPTH()
                    && entry.depth >= depth - SE_TT_DEPTH_MARGIN()
                    && entry.bound & BOUND_LOWER != 0
                    && !is_decisive(entry.score)
                    && ply < 2 * self.root_depth as usize
                {
                    let singular_beta = entry.score - SE_BETA_SCALE() * depth;
                    let singular_depth = (depth - 1) / 2;
                    self.ss_mut(ply).excluded = mv;
                    let score = self.negamax::<false>(
                        board,
                        ctx,
                        singular_depth,
                        singular_beta - 1,
                        singular_beta,
                        ply,
                        cut_node,
                    );
                    self.ss_mut(ply).excluded = Move::NULL;
                    if self.stopped {
                        return 0;
                    }
                    if score < singular_beta {
                        extension = 1;
                        // No cap on double extensions along a path: with one that binds, games
                        // went worse (notes/ideas-not-kept.md); the ply limit above bounds them.
                        if !PV && score < singular_beta - SE_DOUBLE_MARGIN() {
                            extension = 2;
                        }
                    } else if singular_beta >= beta {
                        return singular_beta;
                    } else if entry.score >= beta {
                        extension = -1;
                    }
                }
            }

            ctx.tt.prefetch(pos.key_after(mv));
            let entry = self.ss_mut(ply);
            entry.mv = mv;
            entry.piece = Some(piece);
            self.make_move(board, mv);

            // Step 13. Check extension.
            if gives_check && extension == 0 && ply < 2 * self.root_depth as usize {
                extension = 1;
            }
            let new_depth = depth - 1 + extension;

            // Step 14. Late move reductions with the re-search ladder, then PVS.
            let mut score = -INFINITY;
            if depth >= LMR_MIN_DEPTH() && move_count > 1 + root as i32 && (quiet || !tt_pv) {
                let mut r = self.reduction(quiet, depth, move_count);
                r += !improving as i32;
                r += 2 * cut_node as i32;
                r -= tt_pv as i32;
                r -= gives_check as i32;
                if quiet {
                    r -= history / LMR_HISTORY_DIVISOR();
                }
                let reduced = (new_depth - r).clamp(1, new_depth.max(1));
                score = -self.negamax::<false>(board, ctx, reduced, -alpha - 1, -alpha, ply + 1, true);
                if score > alpha && reduced < new_depth {
                    score =
                        -self.negamax::<false>(board, ctx, new_depth, -alpha - 1, -alpha, ply + 1, !cut_node);
                }
            } else if !PV || move_count > 1 {
                score = -self.negamax::<false>(board, ctx, new_depth, -alpha - 1, -alpha, ply + 1, !cut_node);
            }
            if PV && (move_count == 1 || score > alpha) {
                score = -self.negamax::<true>(board, ctx, new_depth, -beta, -alpha, ply + 1, false);
            }
            self.unmake(board);
            if self.stopped {
                return 0;
            }
            if root {
                self.record_root_nodes(mv, self.nodes - nodes_before);
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = mv;
                    if PV {
                        self.update_pv(ply, mv);
                    }
                    if root {
                        self.root_best = (mv, score);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
            if mv != best_move {
                if quiet {
                    quiets_tried.push(mv);
                } else {
                    noisy_tried.push(mv);
                }
            }
        }

        // Step 15. No move: checkmate or stalemate (or, in a singular search, a fail low).
        if move_count == 0 {
            return if !excluded.is_null() {
                alpha
            } else if in_check {
                mated_in(ply)
            } else {
                self.draw_value(ply)
            };
        }

        // A tablebase bound found at this PV node limits what the moves could show.
        let best_score = best_score.clamp(tb_floor, tb_ceiling);

        // Step 16. Learn from the cutoff.
        if best_score >= beta {
            self.update_histories(
                &pos,
                ply,
                depth,
                best_move,
                &quiets_tried,
                &noisy_tried,
                cont,
                best_score > beta + 80,
            );
        }

        // Step 17. Store the result.
        if excluded.is_null() {
            let bound = if best_score >= beta {
                BOUND_LOWER
            } else if PV && best_score > original_alpha {
                BOUND_EXACT
            } else {
                BOUND_UPPER
            };
            ctx.tt.store(pos.key(), ply, best_move, best_score, raw_eval, depth, bound, tt_pv);

            // Step 18. Teach the correction history how far the evaluation was off, when the
            // result says so: a quiet best move (or none), and a bound on the right side.
            if !in_check
                && (best_move.is_null() || best_move.is_quiet())
                && !is_decisive(best_score)
                && !(bound == BOUND_LOWER && best_score <= static_eval)
                && !(bound == BOUND_UPPER && best_score >= static_eval)
            {
                self.correction.update(&pos, depth, raw_eval, best_score);
            }
        }
        best_score
    }
}
