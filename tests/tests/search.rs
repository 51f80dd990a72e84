//! Search behaviour: exact mate distances, legal best moves, draws, determinism.

use engine::board::{Board, Move, Position};
use engine::movegen::legal_moves;
use engine::search::score::{mate_in, mated_in, MATE, MATE_BOUND};
use engine::search::{Limits, SearchResult, Searcher, SharedHistories};
use engine::tt::TranspositionTable;
use lazuli_tests::read_epd;
use support::rng::Rng;

fn search_board(
    searcher: &mut Searcher,
    tt: &TranspositionTable,
    board: &Board,
    limits: Limits,
) -> SearchResult {
    searcher.search_alone(board, &limits, tt, None)
}

fn search_fen(fen: &str, limits: Limits) -> SearchResult {
    let tt = TranspositionTable::new(16);
    let mut searcher = Searcher::new();
    let board = Board::new(Position::from_fen(fen).expect("valid FEN"));
    search_board(&mut searcher, &tt, &board, limits)
}

/// UCI-style mate distance in moves (negative when mated), if the score is a mate.
fn mate_moves(score: i32) -> Option<i32> {
    if score.abs() < MATE_BOUND {
        return None;
    }
    let moves = (MATE - score.abs() + 1) / 2;
    Some(if score > 0 { moves } else { -moves })
}

const MATE_NODE_BUDGET: u64 = 10_000_000;

/// Problems the search does not solve exactly within the budget with the network the engine
/// ships: two composed mates whose quiet key move and quiet follow-up the
/// pruning hides, and a mate in 3 against the side to move that the null move's reduction at
/// `NMP_DEPTH_DIVISOR` 2 hides. Every other position must be solved exactly, and each of these
/// must still be missed (a fix shortens the list).
const NETWORK_MISSES: &[&str] = &[
    "8/1B6/8/5p2/8/8/5Qrq/1K1R2bk w - - 0 1",
    "2brk3/3p4/3p1Q1p/5K2/4N3/b1p1R3/1Pq2P1n/r7 w - - 0 1",
    "8/3p4/1p1N1pK1/kBnppPp1/n1PB4/P1R3P1/8/N7 b - - 0 1",
];

/// The mate suite: the positions solved wrongly that `misses` does not list, and
/// the listed ones that are solved now.
fn mate_suite(misses: &[&str]) -> (Vec<String>, Vec<String>) {
    let (mut wrong, mut fixed) = (Vec::new(), Vec::new());
    for entry in read_epd("mates.epd") {
        let expected: i32 = entry.op("dm").expect("dm op").parse().expect("number");
        // Deepen until the mate is proven short enough (winning side) or to a fixed depth
        // (losing side), within a node budget.
        let limits = if expected > 0 {
            Limits { mate: Some(expected), nodes: Some(MATE_NODE_BUDGET), ..Limits::default() }
        } else {
            Limits { depth: Some(40), nodes: Some(MATE_NODE_BUDGET), ..Limits::default() }
        };
        let result = search_fen(&entry.fen, limits);
        let solved = mate_moves(result.score) == Some(expected);
        let listed = misses.contains(&entry.fen.as_str());
        if !solved && !listed {
            wrong.push(format!(
                "{} dm {expected}: got score {} ({:?})",
                entry.fen,
                result.score,
                mate_moves(result.score)
            ));
        }
        if solved && listed {
            fixed.push(entry.fen.clone());
        }
        let pos = Position::from_fen(&entry.fen).expect("valid");
        assert!(legal_moves(&pos).contains(result.best_move), "{}: illegal best move", entry.fen);
    }
    (wrong, fixed)
}

/// The mate scores' bookkeeping and pruning that leaves mates findable, with the evaluation the
/// engine plays with.
#[test]
fn the_shipped_network_finds_every_mate_at_its_exact_distance() {
    let (wrong, fixed) = mate_suite(NETWORK_MISSES);
    assert!(wrong.is_empty(), "{} mates wrong:\n{}", wrong.len(), wrong.join("\n"));
    assert!(fixed.is_empty(), "solved now, take them off NETWORK_MISSES: {fixed:?}");
}

#[test]
fn best_move_is_legal_on_random_positions() {
    let mut rng = Rng::new(0x1234_5678_9abc_def1);
    let tt = TranspositionTable::new(8);
    let mut searcher = Searcher::new();
    let mut checked = 0;
    while checked < 300 {
        let mut pos = Position::startpos();
        let plies = 4 + rng.below(80);
        for _ in 0..plies {
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            pos.make_move(moves.get(rng.below(moves.len() as u64) as usize));
        }
        let board = Board::new(pos);
        let result = search_board(&mut searcher, &tt, &board, Limits::depth(1 + rng.below(5) as i32));
        let legal = legal_moves(&pos);
        if legal.is_empty() {
            assert_eq!(result.best_move, Move::NULL);
        } else {
            assert!(legal.contains(result.best_move), "{}: {:?}", pos.to_fen(), result.best_move);
            if !result.ponder_move.is_null() {
                let mut after = pos;
                after.make_move(result.best_move);
                assert!(
                    legal_moves(&after).contains(result.ponder_move),
                    "{}: bad ponder move",
                    pos.to_fen()
                );
            }
        }
        checked += 1;
    }
}

#[test]
fn no_legal_move_gives_null_move_and_terminal_score() {
    // Checkmated (fool's mate) and stalemated.
    let mated = search_fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", Limits::depth(5));
    assert_eq!((mated.best_move, mated.score), (Move::NULL, mated_in(0)));
    let stalemate = search_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", Limits::depth(5));
    assert_eq!((stalemate.best_move, stalemate.score), (Move::NULL, 0));
}

#[test]
fn draws_are_recognised() {
    // Bare kings, and king and knight against king.
    assert_eq!(search_fen("8/8/4k3/8/8/3K4/8/8 w - - 0 1", Limits::depth(8)).score, 0);
    assert_eq!(search_fen("8/8/4k3/8/8/3KN3/8/8 w - - 0 1", Limits::depth(8)).score, 0);
    // Fifty-move rule: a queen up, but the next move ends the game in a draw.
    let fifty = search_fen("8/8/4k3/8/8/Q2K4/8/8 w - - 99 80", Limits::depth(6));
    assert!(fifty.score.abs() < 50, "score {}", fifty.score);
    // ...unless the move that reaches the 100th half-move mates.
    let mate = search_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80", Limits::depth(4));
    assert_eq!(mate.score, mate_in(1));
}

#[test]
fn contempt_makes_a_draw_worth_less_to_the_side_to_move_at_the_root() {
    // Every move draws: king and knight against king (either side to move), and a queen up
    // with the fifty-move rule due. The root's side scores the draw as -contempt.
    let fens = [
        "8/8/4k3/8/8/3KN3/8/8 w - - 0 1",
        "8/8/4k3/8/8/3KN3/8/8 b - - 0 1",
        "8/8/4k3/8/8/Q2K4/8/8 w - - 99 80",
    ];
    for fen in fens {
        for contempt in [-30, 0, 25] {
            let limits = Limits { depth: Some(6), contempt, ..Limits::default() };
            assert_eq!(search_fen(fen, limits).score, -contempt, "{fen}, contempt {contempt}");
        }
    }
}

#[test]
fn repetition_in_game_history_needs_a_third_occurrence() {
    // Knights shuffle back and forth twice: the start position occurs for the third time.
    let mut board = Board::new(Position::startpos());
    let moves = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"];
    for (i, text) in moves.iter().enumerate() {
        let mv = *legal_moves(board.position()).iter().find(|m| m.to_uci(false) == *text).expect("legal");
        board.make_move(mv);
        let third = i == moves.len() - 1;
        assert_eq!(board.is_repetition(0), third, "after {} plies", i + 1);
    }
    // Inside the search tree, one earlier occurrence is enough.
    let mut board = Board::new(Position::startpos());
    for text in &moves[..4] {
        let mv = *legal_moves(board.position()).iter().find(|m| m.to_uci(false) == *text).expect("legal");
        board.make_move(mv);
    }
    assert!(board.is_repetition(4));
    assert!(!board.is_repetition(3));
}

#[test]
fn bench_is_deterministic() {
    let first = engine::bench::run_bench(7, |_, _, _| {});
    let second = engine::bench::run_bench(7, |_, _, _| {});
    assert_eq!(first.nodes, second.nodes);
}

#[test]
fn same_search_after_clearing_gives_same_nodes() {
    let tt = TranspositionTable::new(16);
    let mut searcher = Searcher::new();
    let board = Board::new(Position::from_fen(engine::bench::BENCH_POSITIONS[8]).expect("valid"));
    let first = search_board(&mut searcher, &tt, &board, Limits::depth(9));
    tt.clear(1);
    searcher.clear();
    let second = search_board(&mut searcher, &tt, &board, Limits::depth(9));
    assert_eq!(first.nodes, second.nodes);
    assert_eq!(first.best_move, second.best_move);
}

/// A search whose stop flag is already raised still completes depth 1 when it gives the answer:
/// there must be a move to play, whichever searcher of a pool is asked. A helper's search (one
/// that does not answer) ends at once, without searching.
#[test]
fn a_raised_stop_flag_still_lets_the_first_iteration_complete() {
    use engine::search::{SearchControl, SharedState, Variation};
    use std::sync::atomic::{AtomicU64, Ordering};

    let board = Board::new(Position::startpos());
    let run = |variation: Variation, answers: bool| {
        let tt = TranspositionTable::new(4);
        let control = SearchControl::default();
        control.stop.store(true, Ordering::SeqCst);
        let counter = AtomicU64::new(0);
        let total = || counter.load(Ordering::Relaxed);
        let ctx = SharedState {
            tt: &tt,
            control: &control,
            nodes: &counter,
            total_nodes: &total,
            reporter: None,
            tb: None,
        };
        let mut searcher = Searcher::new();
        searcher.set_variation(variation);
        searcher.search(&board, &Limits { answers, ..Limits::default() }, &ctx)
    };
    for variation in [Variation::default(), Variation { aspiration_offset: 3, skip_block: 1, skip_phase: 0 }]
    {
        let result = run(variation, true);
        assert_eq!(result.depth, 1, "{variation:?}");
        assert!(board.position().is_legal_move(result.best_move));
        assert!(result.nodes < 200, "{variation:?}: a stopped search searched {} nodes", result.nodes);
        let helper = run(variation, false);
        assert_eq!((helper.depth, helper.nodes), (0, 0), "{variation:?}: a stopped helper searched");
    }
}

#[test]
fn searchers_given_shared_histories_learn_into_them_and_clear_them_only_when_asked() {
    let shared = SharedHistories::new();
    let learned = || (shared.correction.learned(), shared.continuation.learned());
    let tt = TranspositionTable::new(4);
    let board = Board::new(
        Position::from_fen("r2q1rk1/pp1bbppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R1BQ1RK1 w - - 4 10").unwrap(),
    );
    let mut first = Searcher::new();
    let mut second = Searcher::new();
    first.share_histories(&shared);
    second.share_histories(&shared);
    first.search_alone(&board, &Limits::depth(8), &tt, None);
    let after_first = learned();
    assert!(after_first.0 > 0 && after_first.1 > 0, "a search taught the shared tables {after_first:?}");
    tt.clear(1);
    second.search_alone(&board, &Limits::depth(8), &tt, None);
    let after_second = learned();
    assert!(after_second.0 >= after_first.0 && after_second.1 > after_first.1, "{after_second:?}");
    // A thread's own histories go without the shared tables; `clear` takes them too.
    first.clear_own();
    assert_eq!(learned(), after_second);
    second.clear();
    assert_eq!(learned(), (0, 0));
}
