//! Choosing the move to play from all threads' results.
//!
//! By default Lazuli plays the move of a vote among the threads: each thread's move gets
//! `(score - worst score + 14) * completed depth`, and the move with most weight is played. A
//! thread that completed a deeper search with a good score counts more; many threads agreeing
//! outweigh one. Decisive results override the vote: a proven mate is taken (the shortest one),
//! and a thread that sees itself being mated is never followed if another thread does not. The
//! main thread's move is kept on ties. Published gains of such a vote are small but positive,
//! and grow with the thread count; with one thread, `go depth`, MultiPV or `searchmoves`, the
//! main thread's result is used as it is.
//!
//! The weight hardly depends on depth (15 against 14 plies is 7%), so a helper whose last
//! completed iteration is a ply shallower than the main thread's wins with a score a few
//! centipawns higher, and a shallower score is often higher because the refutation lies just
//! beyond it. `VoteMode::Deeper` therefore lets only threads that completed at least the main
//! thread's depth vote; `VoteMode::Main` plays the main thread's move, as Ethereal 12 does.

use engine::board::Move;
use engine::search::score::MATE_BOUND;
use engine::search::SearchResult;
use std::borrow::Borrow;
use std::collections::HashMap;

/// Which threads' results the final move may come from (UCI option `SMP Vote`), named in
/// lower case.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Default, strum::Display, strum::EnumString, strum::VariantNames,
)]
#[strum(serialize_all = "lowercase", ascii_case_insensitive)]
pub enum VoteMode {
    /// Every thread with a result votes.
    #[default]
    All,
    /// Only threads that completed at least the main thread's depth vote.
    Deeper,
    /// The main thread's move is played.
    Main,
}

/// Index (into `results`) of the result to play. `results[0]` is the main thread's; when it
/// has none (answered before its first iteration), every thread votes whatever the mode.
pub fn choose<R: Borrow<SearchResult>>(results: &[Option<R>], mode: VoteMode) -> usize {
    let main = results.first().and_then(|r| r.as_ref()).map(|r| r.borrow());
    let min_depth = match (mode, main) {
        (VoteMode::Main, Some(_)) => return 0,
        (VoteMode::Deeper, Some(main)) => main.depth,
        _ => 1,
    };
    let usable: Vec<(usize, &SearchResult)> = results
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.as_ref().map(|r| (i, r.borrow())))
        .filter(|(_, r)| !r.best_move.is_null() && r.depth >= min_depth.max(1))
        .collect();
    let Some(&(first, _)) = usable.first() else { return 0 };
    let worst = usable.iter().map(|(_, r)| r.score).min().unwrap_or(0);
    // Each move's weight, summed once: a lookup per thread, not a pass over every thread.
    let mut weights: HashMap<Move, i64> = HashMap::with_capacity(usable.len());
    for (_, r) in &usable {
        *weights.entry(r.best_move).or_default() += (r.score - worst + 14) as i64 * r.depth as i64;
    }
    let weight_of = |mv: Move| -> i64 { weights.get(&mv).copied().unwrap_or(0) };

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
    use support::rng::Rng;

    fn result(from: u8, score: i32, depth: i32) -> Option<SearchResult> {
        let mv = Move::new(Square::new(from), Square::new(from + 8), Move::QUIET);
        Some(SearchResult {
            best_move: mv,
            ponder_move: Move::NULL,
            score,
            bound: engine::search::Bound::Exact,
            depth,
            nodes: 0,
            pv: vec![mv],
        })
    }

    /// The weights summed once per move choose as summing them for each thread did: many
    /// threads, few moves, every score and depth, against a direct count.
    #[test]
    fn the_vote_of_many_threads_is_the_move_with_most_weight() {
        let mut rng = Rng::new(0x7e1e);
        let mut next = |n: u64| rng.below(n);
        for _ in 0..200 {
            let results: Vec<Option<SearchResult>> = (0..1 + next(300))
                .map(|_| result(8 + next(6) as u8, next(200) as i32 - 100, 1 + next(20) as i32))
                .collect();
            let usable: Vec<&SearchResult> = results.iter().flatten().collect();
            let worst = usable.iter().map(|r| r.score).min().unwrap();
            let weight = |mv: Move| -> i64 {
                usable
                    .iter()
                    .filter(|r| r.best_move == mv)
                    .map(|r| (r.score - worst + 14) as i64 * r.depth as i64)
                    .sum()
            };
            let chosen = results[choose(&results, VoteMode::All)].as_ref().unwrap();
            let most = usable.iter().map(|r| weight(r.best_move)).max().unwrap();
            assert_eq!(weight(chosen.best_move), most);
        }
    }

    #[test]
    fn agreement_outweighs_a_lone_thread() {
        let results = [result(8, 30, 10), result(9, 35, 10), result(9, 34, 10)];
        assert_eq!(choose(&results, VoteMode::All), 1);
        assert_eq!(choose(&results, VoteMode::Deeper), 1);
        assert_eq!(choose(&results, VoteMode::Main), 0);
    }

    #[test]
    fn main_thread_kept_on_a_tie_and_alone() {
        for mode in [VoteMode::All, VoteMode::Deeper, VoteMode::Main] {
            assert_eq!(choose(&[result(8, 30, 10), result(9, 30, 10)], mode), 0);
            assert_eq!(choose(&[result(8, 30, 10)], mode), 0);
            assert_eq!(choose(&[result(8, 30, 10), None], mode), 0);
        }
    }

    #[test]
    fn mates_decide() {
        let results = [result(8, 30, 20), result(9, mate_in(5), 8), result(10, mate_in(3), 7)];
        assert_eq!(choose(&results, VoteMode::All), 2);
        let results = [result(8, -mate_in(4), 20), result(9, -20, 8)];
        assert_eq!(choose(&results, VoteMode::All), 1);
    }

    #[test]
    fn a_shallower_optimist_wins_only_the_full_vote() {
        // The helper completed one ply less and scores its move 10 cp higher.
        let results = [result(8, 20, 15), result(9, 30, 14)];
        assert_eq!(choose(&results, VoteMode::All), 1);
        assert_eq!(choose(&results, VoteMode::Deeper), 0);
        assert_eq!(choose(&results, VoteMode::Main), 0);
        // A helper as deep as the main thread still votes.
        let results = [result(8, 20, 15), result(9, 30, 15)];
        assert_eq!(choose(&results, VoteMode::Deeper), 1);
    }

    #[test]
    fn without_a_main_result_every_thread_votes() {
        let results = [None, result(9, 30, 3), result(10, 10, 5)];
        for mode in [VoteMode::All, VoteMode::Deeper, VoteMode::Main] {
            assert_eq!(choose(&results, mode), 1);
        }
        assert_eq!("deeper".parse(), Ok(VoteMode::Deeper));
        for mode in [VoteMode::All, VoteMode::Deeper, VoteMode::Main] {
            assert_eq!(mode.to_string().parse(), Ok(mode));
        }
        assert!("best".parse::<VoteMode>().is_err());
    }
}
