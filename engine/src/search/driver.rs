//! Iterative deepening with aspiration windows and MultiPV; decides when to stop between
//! iterations (depth, mate and soft time limits) and reports each completed iteration.

use super::params::{ASPIRATION_DELTA, ASPIRATION_MIN_DEPTH};
use super::score::{mated_in, DRAW, INFINITY, MATE, MATE_BOUND, MAX_PLY, TB_WIN};
use super::time::{soft_limit_reached, IterationTrend};
use super::{Bound, Limits, Reporter, RootMove, SearchInfo, Searcher, SharedState, StackEntry};
use crate::board::{Board, Move};
use crate::movegen::legal_moves;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// What a finished search hands back.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// `Move::NULL` only when there is no legal move.
    pub best_move: Move,
    /// A legal reply to `best_move`, or `Move::NULL`.
    pub ponder_move: Move,
    pub score: i32,
    /// `Exact` when the score is the last completed iteration's; `Lower` when a move the
    /// interrupted next iteration found better replaced its move.
    pub bound: Bound,
    /// The last completed depth.
    pub depth: i32,
    pub nodes: u64,
    pub pv: Vec<Move>,
}

impl SearchResult {
    /// The answer of a search that could not run: the first of `search_moves` (when given)
    /// that is legal, else the first legal move (`Move::NULL` with none), at depth 0.
    pub fn unsearched(board: &Board, search_moves: &[Move]) -> SearchResult {
        let legal = legal_moves(board.position());
        let allowed = |m: &Move| search_moves.is_empty() || search_moves.contains(m);
        let best_move = legal.iter().copied().find(allowed).or_else(|| legal.iter().next().copied());
        SearchResult { best_move: best_move.unwrap_or(Move::NULL), ..SearchResult::nothing() }
    }

    /// No move, no depth: what a search that has nothing to add answers.
    fn nothing() -> SearchResult {
        SearchResult {
            best_move: Move::NULL,
            ponder_move: Move::NULL,
            score: 0,
            bound: Bound::Exact,
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
        }
    }
}

/// The shallowest table entry an analysis resumes from (below it, starting at depth 1 costs
/// nothing worth saving).
const RESUME_MIN_DEPTH: i32 = 6;

/// Where a resumed analysis starts: the depth an earlier search completed, its score and line
/// (the answer until an iteration of this search completes), and where they come from.
struct Resume {
    depth: i32,
    score: i32,
    bound: Bound,
    pv: Vec<Move>,
    source: &'static str,
}

/// Aspiration fail-high/low lines are only printed once the search has run this long.
const BOUND_REPORT_DELAY: Duration = Duration::from_secs(3);

impl Searcher {
    /// Search `board`'s position until a limit is reached or `ctx.stop` is raised.
    pub fn search(&mut self, board: &Board, limits: &Limits, ctx: &SharedState<'_>) -> SearchResult {
        let reporter = ctx.reporter;
        let mut board = board.clone();
        let root = *board.position();
        self.limits = limits.clone();
        self.nodes = 0;
        self.other_nodes = 0;
        self.seldepth = 0;
        self.stopped = false;
        self.nmp_min_ply = 0;
        self.stack.iter_mut().for_each(|e| *e = StackEntry::default());
        if !limits.answers && ctx.control.stopped() {
            // A helper that starts after `stop` has nothing to add: no setup, no search.
            return SearchResult::nothing();
        }
        self.prepare_evaluation(&root);
        // The LMR coefficients may have been changed by UCI options since the last search.
        #[cfg(feature = "spsa")]
        {
            self.reductions = super::alphabeta::reduction_table();
        }
        ctx.nodes.store(0, Ordering::Relaxed);

        let legal = legal_moves(&root);
        let wanted = |mv: &Move| limits.search_moves.is_empty() || limits.search_moves.contains(mv);
        self.root_moves =
            legal.iter().copied().filter(wanted).map(|mv| RootMove { mv, nodes: 0, group: 0 }).collect();
        // In tablebase territory, the search plays from the moves that keep the best result;
        // MultiPV lines beyond them come from the next groups, each shown with its own result.
        self.root_tb = None;
        if let Some(ranking) = ctx.tb.and_then(|tb| tb.root) {
            if limits.answers {
                ctx.tb.map(|tb| tb.hits.fetch_add(1, Ordering::Relaxed));
            }
            for r in &mut self.root_moves {
                r.group = ranking.groups.iter().position(|g| g.moves.contains(&r.mv)).unwrap_or(0);
            }
            self.root_moves.sort_by_key(|r| r.group);
            self.root_tb = Some(ranking.groups.iter().map(|g| g.wdl).collect());
            if !ranking.by_dtz && limits.multipv > 0 {
                if let Some(reporter) = reporter {
                    reporter.note(
                        "the root is ranked by WDL alone: a DTZ table is missing or unreadable, or the clock is short",
                    );
                }
            }
        }
        if self.root_moves.is_empty() {
            let score = if root.in_check() && legal.is_empty() { mated_in(0) } else { DRAW };
            if let Some(reporter) = reporter {
                reporter.info(&self.info(ctx, 0, 1, score, Bound::Exact, Vec::new()));
            }
            return SearchResult { score, ..SearchResult::nothing() };
        }

        let fallback = self.root_moves[0].mv;
        let mut result = SearchResult {
            best_move: fallback,
            ponder_move: Move::NULL,
            score: 0,
            bound: Bound::Exact,
            depth: 0,
            nodes: 0,
            pv: vec![fallback],
        };
        let max_depth = limits.depth.unwrap_or(MAX_PLY as i32 - 1).clamp(1, MAX_PLY as i32 - 1);
        let multipv = limits.multipv.clamp(1, self.root_moves.len());
        let mut previous_scores = vec![0; multipv];
        let mut stability = 0;
        let mut previous_score = 0;
        let resume = self.resumable_depth(&root, limits, ctx);
        let resumed = resume.is_some();
        let first_depth = match resume {
            Some(Resume { depth, score, bound, pv, source }) => {
                previous_scores.fill(score);
                previous_score = score;
                if let Some(reporter) = reporter {
                    reporter.note(&format!("resuming the analysis at depth {depth}, {source}"));
                }
                // Stopped before its first iteration completes, the search answers with the
                // line it resumed, never with a move it did not search.
                result = SearchResult { best_move: pv[0], score, bound, depth, pv, ..result };
                depth.min(max_depth)
            }
            None => 1,
        };

        for depth in first_depth..=max_depth {
            if self.variation.skips(depth) && depth < max_depth && depth > first_depth {
                continue;
            }
            self.root_depth = depth;
            self.resumed = resumed && depth == first_depth;
            self.seldepth = 0;
            self.excluded_root.clear();
            let mut lines: Vec<(usize, i32, Vec<Move>)> = Vec::with_capacity(multipv);
            for (pv_index, previous) in previous_scores.iter_mut().enumerate() {
                self.root_best = (Move::NULL, 0);
                self.root_group = self.next_root_group();
                let score = self.aspiration(&mut board, ctx, depth, *previous, pv_index, reporter);
                let pv = self.pv[0][..self.pv_len[0]].to_vec();
                if self.stopped {
                    // A move the interrupted iteration searched completely and found better than
                    // the window's lower end is at least as good as the previous best.
                    let (best, best_score) = self.root_best;
                    if pv_index == 0 && !best.is_null() && pv.first() == Some(&best) {
                        result.best_move = best;
                        result.pv = pv;
                        result.score = best_score;
                        result.bound = Bound::Lower;
                    }
                    break;
                }
                *previous = score;
                self.excluded_root.push(pv[0]);
                lines.push((self.root_group, self.tb_root_score(score, self.root_group), pv));
            }
            if self.stopped {
                // With several lines, those this iteration completed before the stop stand:
                // line 1 is the best of every root move at this depth.
                if let Some((_, score, pv)) = lines.into_iter().next() {
                    result =
                        SearchResult { best_move: pv[0], score, bound: Bound::Exact, depth, pv, ..result };
                }
                break;
            }

            lines.sort_by_key(|&(group, score, _)| (group, -score));
            let (_, score, pv) = lines[0].clone();
            if pv[0] == result.best_move {
                stability += 1;
            } else {
                stability = 0;
            }
            result.best_move = pv[0];
            result.score = score;
            result.bound = Bound::Exact;
            result.depth = depth;
            result.pv = pv;
            if let Some(reporter) = reporter {
                ctx.nodes.store(self.nodes, Ordering::Relaxed);
                for (i, (_, score, pv)) in lines.into_iter().enumerate() {
                    reporter.info(&self.info(ctx, depth, i + 1, score, Bound::Exact, pv));
                }
            }

            if self.iteration_ends_search(ctx, &result, stability, previous_score) {
                break;
            }
            previous_score = score;
        }

        ctx.nodes.store(self.nodes, Ordering::Relaxed);
        result.nodes = self.nodes;
        result.score = self.tb_root_score(result.score, 0);
        result.ponder_move = self.ponder_move(&mut board, ctx, &result.pv);
        result
    }

    /// Where an analysis can start instead of depth 1, the score to centre its window on, and
    /// where they come from. The table must hold the root (exact, or the bound an interrupted
    /// iteration left) with a move this search may play, and the tablebases must not have
    /// decided the position. The depth is the one an earlier search of the root completed
    /// (`limits.resume_from`), or else the table entry's; an entry an interrupted iteration
    /// left is deeper than what was completed, and would start the search at that iteration.
    fn resumable_depth(
        &self,
        root: &crate::board::Position,
        limits: &Limits,
        ctx: &SharedState<'_>,
    ) -> Option<Resume> {
        if !limits.resume || self.root_tb.is_some() {
            return None;
        }
        let entry = ctx.tt.probe(root.key(), 0, root.halfmove_clock())?;
        let playable = |mv: Move| self.root_moves.iter().any(|r| r.mv == mv);
        if entry.bound == crate::tt::BOUND_NONE || entry.depth < RESUME_MIN_DEPTH || !playable(entry.mv) {
            return None;
        }
        match limits.resume_from.as_ref().filter(|r| r.key == root.key()) {
            Some(record)
                if record.depth >= RESUME_MIN_DEPTH && record.pv.first().is_some_and(|&m| playable(m)) =>
            {
                Some(Resume {
                    // Never deeper than the table holds: a record that claims more (a damaged
                    // or forged file) would start an iteration that never completes.
                    depth: record.depth.min(entry.depth),
                    score: record.score,
                    bound: record.bound,
                    pv: record.pv.clone(),
                    source: "the depth the last search of this position completed",
                })
            }
            _ => Some(Resume {
                depth: entry.depth,
                score: entry.score,
                bound: match entry.bound {
                    crate::tt::BOUND_LOWER => Bound::Lower,
                    crate::tt::BOUND_UPPER => Bound::Upper,
                    _ => Bound::Exact,
                },
                pv: vec![entry.mv],
                source: "the depth the table holds",
            }),
        }
    }

    /// One root search at `depth`, widening the window around `previous` until the score falls
    /// inside it.
    fn aspiration(
        &mut self,
        board: &mut Board,
        ctx: &SharedState<'_>,
        depth: i32,
        previous: i32,
        pv_index: usize,
        reporter: Option<&dyn Reporter>,
    ) -> i32 {
        let mut delta =
            ASPIRATION_DELTA() + self.variation.aspiration_offset + (previous * previous / 16_384).min(100);
        let (mut alpha, mut beta) = if depth >= ASPIRATION_MIN_DEPTH() && previous.abs() < MATE_BOUND {
            ((previous - delta).max(-INFINITY), (previous + delta).min(INFINITY))
        } else {
            (-INFINITY, INFINITY)
        };
        loop {
            let score = self.negamax::<true>(board, ctx, depth, alpha, beta, 0, false);
            if self.stopped {
                return score;
            }
            // Mate scores open the window fully: their exact value matters, not a margin.
            let bound = if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = if score <= -MATE_BOUND { -INFINITY } else { (score - delta).max(-INFINITY) };
                Bound::Upper
            } else if score >= beta {
                beta = if score >= MATE_BOUND { INFINITY } else { (score + delta).min(INFINITY) };
                Bound::Lower
            } else {
                return score;
            };
            if let Some(reporter) = reporter.filter(|_| self.limits.start.elapsed() >= BOUND_REPORT_DELAY) {
                let pv = self.pv[0][..self.pv_len[0]].to_vec();
                if !pv.is_empty() {
                    reporter.info(&self.info(ctx, depth, pv_index + 1, score, bound, pv));
                }
            }
            delta += delta / 2;
        }
    }

    /// Whether to stop after a completed iteration: the depth, mate or soft time limit.
    fn iteration_ends_search(
        &self,
        ctx: &SharedState<'_>,
        result: &SearchResult,
        stability: i32,
        previous_score: i32,
    ) -> bool {
        if let Some(mate) = self.limits.mate {
            if result.score >= MATE_BOUND && (MATE - result.score + 1) / 2 <= mate {
                return true;
            }
        }
        if self.limits.soft_nodes.is_some_and(|soft| self.nodes >= soft)
            && result.depth >= self.limits.min_depth
        {
            return true;
        }
        let total: u64 = self.root_moves.iter().map(|r| r.nodes).sum();
        let best_nodes = self.root_moves.iter().find(|r| r.mv == result.best_move).map_or(0, |r| r.nodes);
        let trend = IterationTrend {
            depth: result.depth,
            root_moves: self.root_moves.iter().filter(|r| r.group == 0).count(),
            stability,
            score: result.score,
            previous_score,
            best_move_share: if total > 0 { best_nodes as f64 / total as f64 } else { 0.5 },
        };
        soft_limit_reached(&self.limits, ctx.control, &trend)
    }

    /// A tablebase result at the root is shown as a large score unless the search proved a mate.
    fn tb_root_score(&self, score: i32, group: usize) -> i32 {
        use crate::tb::Wdl;
        match self.root_tb.as_ref().and_then(|results| results.get(group)) {
            _ if score.abs() >= MATE_BOUND => score,
            Some(Wdl::Win) => score.max(TB_WIN - 1),
            Some(Wdl::Loss) => score.min(-TB_WIN + 1),
            Some(Wdl::Draw) => 0,
            _ => score,
        }
    }

    pub(super) fn root_move_allowed(&self, mv: Move) -> bool {
        !self.excluded_root.contains(&mv)
            && self.root_moves.iter().any(|r| r.mv == mv && r.group == self.root_group)
    }

    /// The best rank group with a root move no earlier line of this iteration took.
    fn next_root_group(&self) -> usize {
        self.root_moves
            .iter()
            .filter(|r| !self.excluded_root.contains(&r.mv))
            .map(|r| r.group)
            .min()
            .unwrap_or(0)
    }

    pub(super) fn record_root_nodes(&mut self, mv: Move, nodes: u64) {
        if let Some(r) = self.root_moves.iter_mut().find(|r| r.mv == mv) {
            r.nodes += nodes;
        }
    }

    /// The reply to ponder on: the PV's second move, or the table's move after the best move.
    fn ponder_move(&self, board: &mut Board, ctx: &SharedState<'_>, pv: &[Move]) -> Move {
        let Some(&best) = pv.first() else { return Move::NULL };
        board.make_move(best);
        let pos = *board.position();
        board.unmake();
        let candidate =
            pv.get(1).copied().or_else(|| ctx.tt.probe(pos.key(), 1, pos.halfmove_clock()).map(|e| e.mv));
        candidate.filter(|&mv| pos.is_legal_move(mv)).unwrap_or(Move::NULL)
    }

    fn info(
        &self,
        ctx: &SharedState<'_>,
        depth: i32,
        multipv: usize,
        score: i32,
        bound: Bound,
        pv: Vec<Move>,
    ) -> SearchInfo {
        SearchInfo {
            depth,
            seldepth: self.seldepth.max(depth.max(0) as usize),
            multipv,
            score,
            bound,
            nodes: (ctx.total_nodes)(),
            time: self.limits.start.elapsed(),
            hashfull: ctx.tt.hashfull(),
            tb_hits: ctx.tb.map_or(0, |tb| tb.hits.load(Ordering::Relaxed)),
            pv,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;
    use crate::search::RootRecord;
    use crate::tt::TranspositionTable;

    /// An analysis resumed at the depth an earlier search completed, and stopped before its
    /// first iteration completes, answers with the line it resumed and that depth, never with
    /// the first move generated.
    #[test]
    fn a_resumed_search_stopped_at_once_answers_with_the_line_it_resumed() {
        let fen = "r1bq1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/R3KB1R w KQ - 3 9";
        let board = Board::new(Position::from_fen(fen).expect("valid FEN"));
        let tt = TranspositionTable::new(16);
        let mut searcher = Searcher::new();
        let first = searcher.search_alone(&board, &Limits::depth(10), &tt, None);
        let generated_first = legal_moves(board.position()).iter().next().copied().expect("a move");
        assert_ne!(first.best_move, generated_first, "the test needs a best move generated later");
        let record = RootRecord {
            key: board.position().key(),
            depth: first.depth,
            score: first.score,
            bound: first.bound,
            pv: first.pv.clone(),
        };
        for multipv in [1, 3] {
            // One node: the stop comes at the resumed iteration's root.
            let limits = Limits {
                resume: true,
                resume_from: Some(record.clone()),
                nodes: Some(1),
                multipv,
                ..Limits::default()
            };
            let resumed = searcher.search_alone(&board, &limits, &tt, None);
            assert_eq!(resumed.best_move, first.best_move, "MultiPV {multipv}");
            assert_eq!((resumed.depth, resumed.score), (first.depth, first.score), "MultiPV {multipv}");
            assert_eq!(resumed.pv.first(), Some(&first.best_move));
        }
    }

    /// A record that claims more depth than the table's root entry holds (a damaged or forged
    /// file) resumes from the entry's depth: its first iteration must be one the search can
    /// complete.
    #[test]
    fn a_record_deeper_than_the_table_resumes_from_the_table() {
        let board = Board::new(Position::startpos());
        let tt = TranspositionTable::new(16);
        let mut searcher = Searcher::new();
        let first = searcher.search_alone(&board, &Limits::depth(9), &tt, None);
        let record = RootRecord {
            key: board.position().key(),
            depth: 120,
            score: first.score,
            bound: first.bound,
            pv: first.pv.clone(),
        };
        let limits =
            Limits { resume: true, resume_from: Some(record), nodes: Some(300_000), ..Limits::default() };
        let resumed = searcher.search_alone(&board, &limits, &tt, None);
        assert!(resumed.depth > 9 && resumed.depth < 20, "answered at depth {}", resumed.depth);
    }
}
