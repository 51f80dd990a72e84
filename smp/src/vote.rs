//! Choosing the move to play from all threads' results.
//!
//! By default Lazuli plays the move of a vote among the threads: each thread's move gets
//! `(score - worst score + 14) * completed depth`, and the move with most weight is played. A
//! thread that completed a deeper search with a good score counts more; many threads agreeing
//! outweigh one. Decisive results override the vote: a proven mate is taken (the shortest one),
//! and a thread that sees itself being mated is never followed if another thread does not. The
//! main thread's move is kept on ties. Published gains of such a vote are small but positive
//! (a few Elo at 8 threads); with one thread, `go depth`, MultiPV or `searchmoves`, the main
//! thread's result is used as it is.

use engine::board::Move;
use engine::search::score::MATE_BOUND;
use engine::search::SearchResult;
use std::borrow::Borrow;

/// Index (into `results`) of the result to play. `results[0]` is the main thread's.
pub fn choose<R: Borrow<SearchResult>>(results: &[Option<R>]) -> usize {
    let usable: Vec<(usize, &SearchResult)> = results
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.as_ref().map(|r| (i, r.borrow())))
        .filter(|(_, r)| !r.best_move.is_null() && r.depth > 0)
        .collect();
    let Some(&(first, _)) = usable.first() else { return 0 };
    let worst = usable.iter().map(|(_, r)| r.score).min().unwrap_or(0);
    let weight_of = |mv: Move| -> i64 {
        usable
            .iter()
            .filter(|(_, r)| r.best_move == mv)
            .map(|(_, r)| (r.score - worst + 14) as i64 * r.depth as i64)
            .sum()
    };

    let mut best = first;
    let mut best_result = usable[0].1;
    for &(i, r) in &usable[1..] {
        let better = if best_result.score >= MATE_BOUND {
            // Keep the shortest proven mate.
            r.score > best_result.score
        } else if r.score >= MATE_BOUND {
            true
        } else if r.score <= -MATE_BOUND {
            false
        } else if best_result.score <= -MATE_BOUND {
            true
        } else {
            let (w, best_w) = (weight_of(r.best_move), weight_of(best_result.best_move));
            w > best_w || (w == best_w && r.depth > best_result.depth)
        };
        if better {
            best = i;
            best_result = r;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::board::Square;
    use engine::search::score::mate_in;

    fn result(from: u8, score: i32, depth: i32) -> Option<SearchResult> {
        let mv = Move::new(Square::new(from), Square::new(from + 8), Move::QUIET);
        Some(SearchResult { best_move: mv, ponder_move: Move::NULL, score, depth, nodes: 0, pv: vec![mv] })
    }

    #[test]
    fn agreement_outweighs_a_lone_thread() {
        let results = [result(8, 30, 10), result(9, 35, 10), result(9, 34, 10)];
        assert_eq!(choose(&results), 1);
    }

    #[test]
    fn main_thread_kept_on_a_tie_and_alone() {
        assert_eq!(choose(&[result(8, 30, 10), result(9, 30, 10)]), 0);
        assert_eq!(choose(&[result(8, 30, 10)]), 0);
        assert_eq!(choose(&[result(8, 30, 10), None]), 0);
    }

    #[test]
    fn mates_decide() {
        let results = [result(8, 30, 20), result(9, mate_in(5), 8), result(10, mate_in(3), 7)];
        assert_eq!(choose(&results), 2);
        let results = [result(8, -mate_in(4), 20), result(9, -20, 8)];
        assert_eq!(choose(&results), 1);
    }
}
