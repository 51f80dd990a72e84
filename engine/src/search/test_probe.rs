//! Test-only witnesses of what the search does, for properties no result shows directly:
//! - the double-extension counter: which moves on the current path were double-extended,
//!   recorded independently of the search stack, against the counter the search keeps;
//! - pruning by margins over the evaluation: never from, nor returning, a decided (tablebase or
//!   mate) score it has not proven.

use super::score::{is_decisive, MAX_PLY};

pub(super) struct SearchProbe {
    /// `doubled[p]`: the move being searched at ply `p` on the current path was double-extended.
    doubled: [bool; MAX_PLY + 1],
    /// The most double extensions seen on one path.
    pub deepest: i32,
    /// Nodes whose counter disagreed with the path.
    pub mismatches: u64,
    /// Double extensions made.
    pub made: u64,
    /// Nodes whose evaluation (sharpened by the table) was a decided score.
    pub decisive_evals: u64,
    /// Reverse futility cutoffs from a decided evaluation or bound, and null-move cutoffs that
    /// returned an unproven decided score.
    pub decisive_prunings: u64,
}

impl Default for SearchProbe {
    fn default() -> Self {
        SearchProbe {
            doubled: [false; MAX_PLY + 1],
            deepest: 0,
            mismatches: 0,
            made: 0,
            decisive_evals: 0,
            decisive_prunings: 0,
        }
    }
}

impl SearchProbe {
    /// A node at `ply` whose counter reads `counter`.
    pub fn enter(&mut self, ply: usize, counter: i32) {
        let on_path = self.doubled[..ply].iter().filter(|&&d| d).count() as i32;
        self.deepest = self.deepest.max(on_path);
        self.mismatches += (on_path != counter) as u64;
        // Searches from this node before its first move (null move, ProbCut, the singular
        // verification) go down a path with no double extension at this ply.
        self.doubled[ply] = false;
    }

    /// The node at `ply` searches a move, double-extended or not.
    pub fn descend(&mut self, ply: usize, doubled: bool) {
        self.doubled[ply] = doubled;
        self.made += doubled as u64;
    }

    /// A node's evaluation before pruning.
    pub fn evaluated(&mut self, eval: i32) {
        self.decisive_evals += is_decisive(eval) as u64;
    }

    /// A pruning returned; `decided`: from, or with, a decided score it should not have used.
    pub fn pruned(&mut self, decided: bool) {
        self.decisive_prunings += decided as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::super::params::SE_MAX_DOUBLE_EXTENSIONS;
    use super::super::TbContext;
    use super::super::{Limits, Searcher};
    use crate::board::{Board, Position};
    use crate::tb::Tablebases;
    use crate::tt::TranspositionTable;
    use std::sync::atomic::AtomicU64;

    /// Middlegames with forcing play, where singular moves are common.
    const POSITIONS: [&str; 4] = [
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "2r3k1/1q1nbppp/r3p3/3pP3/pPpP4/P1Q2N2/2RN1PPP/2R4K b - - 0 23",
        "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    ];

    /// Five-piece positions whose captures lead into the repository's four-piece tables, so
    /// that tablebase scores enter the tree (and, through the table, the evaluations).
    const TABLEBASE_EDGE: [&str; 6] = [
        "8/8/4k3/8/2r5/8/3QP3/3K4 w - - 0 1",
        "8/8/4k3/3p4/2r5/8/3Q4/3K4 w - - 0 1",
        "8/8/8/4k3/8/2n5/2R1P3/4K3 b - - 0 1",
        "8/8/2k5/8/3p4/8/2R5/2K1B3 b - - 0 1",
        "8/8/8/8/4k3/8/1r2P3/R3K3 b - - 0 1",
        "8/3k4/8/8/3P4/8/r7/4K2R b - - 0 1",
    ];

    #[test]
    fn margin_pruning_neither_uses_nor_invents_tablebase_scores() {
        // The repository's test data, or the directory LAZULI_DATA names.
        let dir = std::env::var("LAZULI_DATA")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|_| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data"));
        let (tables, warnings) = Tablebases::open(dir.join("syzygy").to_str().expect("utf-8 path"));
        assert!(warnings.is_empty() && tables.max_pieces() == 4, "{warnings:?}");
        let mut decisive_evals = 0;
        for fen in TABLEBASE_EDGE {
            let tt = TranspositionTable::new(16);
            let hits = AtomicU64::new(0);
            let tb = TbContext { tables: &tables, probe_depth: 1, probe_limit: 7, rule50: true, hits: &hits };
            let board = Board::new(Position::from_fen(fen).expect("valid FEN"));
            let mut searcher = Searcher::new();
            searcher.search_alone(&board, &Limits::depth(14), &tt, Some(tb));
            let probe = &searcher.probe;
            assert_eq!(probe.decisive_prunings, 0, "{fen}: pruned by margins on a decided score");
            decisive_evals += probe.decisive_evals;
        }
        assert!(decisive_evals > 0, "no tablebase score reached an evaluation: the test proves nothing");
    }

    #[test]
    fn the_double_extension_counter_counts_the_path_and_the_cap_binds() {
        let tt = TranspositionTable::new(16);
        let mut made = 0;
        let mut deepest = 0;
        for fen in POSITIONS {
            let board = Board::new(Position::from_fen(fen).expect("valid FEN"));
            let mut searcher = Searcher::new();
            searcher.search_alone(&board, &Limits::depth(14), &tt, None);
            let probe = &searcher.probe;
            assert_eq!(probe.mismatches, 0, "{fen}: the counter differs from the path");
            made += probe.made;
            deepest = deepest.max(probe.deepest);
        }
        assert!(made > 0, "no double extension was made: the test proves nothing");
        assert!(deepest <= SE_MAX_DOUBLE_EXTENSIONS(), "{deepest} double extensions on one path");
    }
}
