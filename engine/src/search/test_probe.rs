//! A test-only witness of what the search does, for a property no result shows directly:
//! pruning by margins over the evaluation never acts on, nor returns, a decided (tablebase or
//! mate) score it has not proven.

use super::score::is_decisive;

#[derive(Default)]
pub(super) struct SearchProbe {
    /// Nodes whose evaluation (sharpened by the table) was a decided score.
    pub decisive_evals: u64,
    /// Reverse futility cutoffs from a decided evaluation or bound, and null-move cutoffs that
    /// returned an unproven decided score.
    pub decisive_prunings: u64,
}

impl SearchProbe {
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
    use super::super::TbContext;
    use super::super::{Limits, Searcher};
    use crate::board::{Board, Position};
    use crate::tb::Tablebases;
    use crate::tt::TranspositionTable;
    use std::sync::atomic::AtomicU64;

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
        let dir = crate::test_data_dir();
        let (tables, warnings) = Tablebases::open(dir.join("syzygy").to_str().expect("utf-8 path"));
        assert!(warnings.is_empty() && tables.max_pieces() == 4, "{warnings:?}");
        let mut decisive_evals = 0;
        for fen in TABLEBASE_EDGE {
            let tt = TranspositionTable::new(16);
            let hits = AtomicU64::new(0);
            let tb = TbContext {
                tables: &tables,
                probe_depth: 1,
                probe_limit: 7,
                rule50: true,
                hits: &hits,
                root: None,
            };
            let board = Board::new(Position::from_fen(fen).expect("valid FEN"));
            let mut searcher = Searcher::new();
            searcher.search_alone(&board, &Limits::depth(14), &tt, Some(tb));
            let probe = &searcher.probe;
            assert_eq!(probe.decisive_prunings, 0, "{fen}: pruned by margins on a decided score");
            decisive_evals += probe.decisive_evals;
        }
        assert!(decisive_evals > 0, "no tablebase score reached an evaluation: the test proves nothing");
    }
}
