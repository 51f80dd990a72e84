//! `bench`: a fixed set of positions searched to a fixed depth on one thread with a fresh 16 MB
//! table. Its node count is the engine's signature: deterministic, it changes exactly when the
//! search's behaviour does, and every functional commit records it (`Bench: <nodes>`).

use crate::board::{Board, Position};
use crate::search::{Limits, Searcher};
use crate::tt::TranspositionTable;
use std::time::{Duration, Instant};

pub const DEFAULT_BENCH_DEPTH: i32 = 12;
pub const BENCH_HASH_MB: usize = 16;

/// Openings, middlegames, endgames and tactical positions.
pub const BENCH_POSITIONS: &[&str] = &[
    // Openings and early middlegames.
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkb1r/pppp1ppp/5n2/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR w KQkq - 2 3",
    "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",
    "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5",
    "rnbqk2r/ppp1bppp/4pn2/3p4/2PP4/2N2N2/PP2PPPP/R1BQKB1R w KQkq - 4 5",
    "r1bqkb1r/pp3ppp/2nppn2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 0 6",
    "rnbq1rk1/ppp1bppp/4pn2/3p4/2PP4/5NP1/PP2PPBP/RNBQ1RK1 b - - 4 6",
    "r1bq1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/R3KB1R w KQ - 3 9",
    // Middlegames.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bq1rk1/pp1nbppp/2p1pn2/3p4/2PP4/2NBPN2/PP3PPP/R1BQ1RK1 w - - 2 8",
    "2rq1rk1/pb1nbppp/1p2pn2/2ppN3/3P4/1P1BPN2/PBP2PPP/R2Q1RK1 w - - 4 11",
    "r2q1rk1/pp2bppp/2n1pn2/3p4/3P1B2/2PB1N2/PP1N1PPP/R2QK2R w KQ - 6 10",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3BPP2/2NB4/PPPQ2PP/2KR3R w - - 2 13",
    "3r1rk1/p1q2ppp/1pn1p3/2p1P3/2P5/P1Q2N2/1P3PPP/3RR1K1 w - - 1 19",
    "r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13",
    "r2qr1k1/1p1nbppp/p2p1n2/2pPp3/P1P1P3/2N1BN1P/1P3PP1/R2QRBK1 b - - 0 14",
    "2r2rk1/1bqnbpp1/1p1ppn1p/pP6/N1P1P3/P2B1N1P/1B2QPP1/R2R2K1 b - - 1 18",
    "r1q2rk1/2p1bppp/2Pp4/p6b/Q1PNp3/4B3/PP1R1PPP/2K4R w - - 2 18",
    "4k2r/1pb2ppp/1p2p3/1R1p4/3P4/2r1PN2/P4PPP/1R4K1 b - - 3 22",
    // Tactics.
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
    "2kr3r/pp1q1ppp/5n2/1Nb5/2Pp1B2/7Q/P4PPP/1R3RK1 w - - 0 16",
    "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 7",
    "6k1/5p1p/4p1p1/2p5/P2pPq2/1P1P1P2/2Q3PP/6K1 b - - 0 30",
    "r3r1k1/pp3pbp/1qp1b1p1/2B5/2BP4/Q1n2N2/P4PPP/3R1K1R w - - 4 18",
    "5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1",
    "r1bq1r1k/b1p1npp1/p2p3p/1p6/3PP3/1B2NN2/PP3PPP/R2Q1RK1 w - - 1 16",
    "2q1rr1k/3bbnnp/p2p1pp1/2pPp3/PpP1P1P1/1P2BNNP/2BQ1PRK/7R b - - 0 1",
    // Endgames.
    "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
    "8/8/1P6/5pr1/8/4R3/7k/2K5 w - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/8/8/8/5kp1/P7/8/1K1N4 w - - 0 1",
    "8/8/8/5N2/8/p7/8/2NK3k w - - 0 1",
    "8/3k4/8/8/8/4B3/4KB2/2B5 w - - 0 1",
    "6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/8 b - - 0 1",
    "8/3p4/p1bk3p/Pp6/1Kp1PpPp/2P2P1P/2P5/5B2 b - - 0 1",
    "5k2/7R/4P2p/5K2/p1r2P1p/8/8/8 b - - 0 1",
    "6k1/6p1/P6p/r1N5/5p2/7P/1b3PP1/4R1K1 w - - 0 1",
    "1r3k2/4q3/2Pp3b/3Bp3/2Q2p2/1p1P2P1/1P2KP2/3N4 w - - 0 1",
    "8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1",
    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    "8/6pk/1p6/8/PP3p1p/5P2/4KP1q/3Q4 w - - 0 1",
    "7k/3p2pp/4q3/8/4Q3/5Kp1/P6b/8 w - - 0 1",
    "8/2p5/8/2kPKp1p/2p4P/2P5/3P4/8 w - - 0 1",
    "8/1p3pp1/7p/5P1P/2k3P1/8/2K2P2/8 w - - 0 1",
    "8/pp2r1k1/2p1p3/3pP2p/1P1P1P1P/P5KR/8/8 w - - 0 1",
];

/// Totals of a bench run.
pub struct BenchResult {
    pub nodes: u64,
    pub elapsed: Duration,
}

impl BenchResult {
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)) as u64
    }
}

/// Search every bench position to `depth` with a fresh table and searcher; `per_position` is
/// told each position's node count.
pub fn run_bench(depth: i32, mut per_position: impl FnMut(usize, &str, u64)) -> BenchResult {
    let tt = TranspositionTable::new(BENCH_HASH_MB);
    let mut searcher = Searcher::new();
    let mut nodes = 0;
    let start = Instant::now();
    for (i, fen) in BENCH_POSITIONS.iter().enumerate() {
        let pos = Position::from_fen(fen).expect("bench positions are valid");
        let board = Board::new(pos);
        let limits = Limits { depth: Some(depth), ..Limits::default() };
        let result = searcher.search_alone(&board, &limits, &tt, None);
        per_position(i, fen, result.nodes);
        nodes += result.nodes;
    }
    BenchResult { nodes, elapsed: start.elapsed() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_positions_are_valid_and_distinct() {
        assert!(BENCH_POSITIONS.len() >= 40);
        let mut keys: Vec<u64> =
            BENCH_POSITIONS.iter().map(|f| Position::from_fen(f).expect("valid bench FEN").key()).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), BENCH_POSITIONS.len());
    }
}
