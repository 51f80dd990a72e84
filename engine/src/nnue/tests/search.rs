//! Searching with a network: the searcher's accumulators follow every move it makes (in test
//! builds the stack checks each evaluated accumulator against a fresh one), the result is a
//! legal move and reproducible, and each searcher uses the network it was given.

use crate::board::{Board, Position};
use crate::movegen::legal_moves;
use crate::nnue::Network;
use crate::search::{Limits, Searcher};
use crate::tt::TranspositionTable;
use std::sync::Arc;

const FENS: &[&str] = &[
    crate::board::STARTPOS,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    // Chess960, king and rooks where castling overlaps.
    "1rk2r2/pppppppp/8/8/8/8/PPPPPPPP/1RK2R2 w FBfb - 0 1",
];

/// Searches `fen` with `network` (`None`: the searcher's default).
fn search(network: Option<Arc<Network>>, fen: &str, depth: i32) -> (u64, crate::board::Move) {
    let mut searcher = Searcher::new();
    if let Some(network) = network {
        searcher.set_network(network);
    }
    let tt = TranspositionTable::new(8);
    let board = Board::new(Position::from_fen(fen).expect("valid FEN"));
    // A random network can make a tactical position's tree explode: a node limit keeps the test
    // quick (and a single-threaded search stops at the same node every time).
    let limits = Limits { nodes: Some(150_000), ..Limits::depth(depth) };
    let result = searcher.search_alone(&board, &limits, &tt, None);
    assert!(legal_moves(board.position()).contains(result.best_move), "{fen}: {:?}", result.best_move);
    (result.nodes, result.best_move)
}

#[test]
fn searches_with_a_network_follow_the_board_and_repeat() {
    let network = Arc::new(Network::random(41));
    for fen in FENS {
        let first = search(Some(Arc::clone(&network)), fen, 6);
        let again = search(Some(Arc::clone(&network)), fen, 6);
        assert_eq!(first, again, "{fen}");
    }
}

#[test]
fn each_searcher_uses_its_own_network_and_the_default_is_the_embedded_one() {
    let network = Arc::new(Network::random(42));
    let mut differ = 0;
    for fen in FENS {
        let embedded = search(Some(crate::nnue::default_network()), fen, 5);
        assert_eq!(search(None, fen, 5), embedded, "{fen}");
        differ += usize::from(search(Some(Arc::clone(&network)), fen, 5).0 != embedded.0);
    }
    assert!(differ >= FENS.len() - 1, "another network changed only {differ} searches");
}
