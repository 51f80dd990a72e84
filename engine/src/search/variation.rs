//! How one searcher's iterative deepening differs from the others' that search the same
//! position over the same table, so that they do not search the same tree at the same moment.
//! The pool decides what each thread gets (`smp`'s helper policy); a searcher alone uses the
//! default, which changes nothing.

/// A wider aspiration window, and depths left out of the iterative deepening.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Variation {
    /// Added to the aspiration window's half-width, in centipawns.
    pub aspiration_offset: i32,
    /// Leave out iterations in alternating blocks of this many depths (0: leave out none).
    pub skip_block: i32,
    /// Where the blocks start: depth `d` is left out when `(d + skip_phase) / skip_block` is odd.
    pub skip_phase: i32,
}

impl Variation {
    /// Whether iteration `depth` is left out (depth 1 never is).
    pub fn skips(&self, depth: i32) -> bool {
        self.skip_block > 0 && depth > 1 && ((depth + self.skip_phase) / self.skip_block) % 2 == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_skips_nothing_and_blocks_alternate() {
        assert!((1..64).all(|d| !Variation::default().skips(d)));
        let pairs = Variation { aspiration_offset: 0, skip_block: 2, skip_phase: 1 };
        let left_out: Vec<i32> = (1..12).filter(|&d| pairs.skips(d)).collect();
        assert_eq!(left_out, vec![2, 5, 6, 9, 10]);
    }
}
