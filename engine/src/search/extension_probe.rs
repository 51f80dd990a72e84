//! A test-only witness of the double-extension counter: it records, independently of the search
//! stack, which moves on the current path were double-extended, and checks at every node that the
//! counter the search keeps equals that count.

use super::score::MAX_PLY;

pub(super) struct PathProbe {
    /// `doubled[p]`: the move being searched at ply `p` on the current path was double-extended.
    doubled: [bool; MAX_PLY + 1],
    /// The most double extensions seen on one path.
    pub deepest: i32,
    /// Nodes whose counter disagreed with the path.
    pub mismatches: u64,
    /// Double extensions made.
    pub made: u64,
}

impl Default for PathProbe {
    fn default() -> Self {
        PathProbe { doubled: [false; MAX_PLY + 1], deepest: 0, mismatches: 0, made: 0 }
    }
}

impl PathProbe {
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
}

#[cfg(test)]
mod tests {
    use super::super::params::SE_MAX_DOUBLE_EXTENSIONS;
    use super::super::{Limits, Searcher};
    use crate::board::{Board, Position};
    use crate::tt::TranspositionTable;

    /// Middlegames with forcing play, where singular moves are common.
    const POSITIONS: [&str; 4] = [
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "2r3k1/1q1nbppp/r3p3/3pP3/pPpP4/P1Q2N2/2RN1PPP/2R4K b - - 0 23",
        "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    ];

    #[test]
    fn the_double_extension_counter_counts_the_path_and_the_cap_binds() {
        let tt = TranspositionTable::new(16);
        let mut made = 0;
        let mut deepest = 0;
        for fen in POSITIONS {
            let board = Board::new(Position::from_fen(fen).expect("valid FEN"));
            let mut searcher = Searcher::new();
            searcher.search_alone(&board, &Limits::depth(14), &tt, None);
            let probe = &searcher.path_probe;
            assert_eq!(probe.mismatches, 0, "{fen}: the counter differs from the path");
            made += probe.made;
            deepest = deepest.max(probe.deepest);
        }
        assert!(made > 0, "no double extension was made: the test proves nothing");
        assert!(deepest <= SE_MAX_DOUBLE_EXTENSIONS(), "{deepest} double extensions on one path");
    }
}
