//! How Lazy SMP helper threads differ from the main thread.
//!
//! Every thread runs the same full search over the shared table. What makes the helpers useful
//! is that they do not search exactly the same tree at the same moment: they fill the table with
//! results the others then find. Two schemes are offered, chosen by `HelperPolicy`:
//!
//! - `Identical`: helpers run the same iterative deepening as the main thread; the only
//!   difference is a slightly wider aspiration window (by thread index), so their searches fail
//!   high and low at other moments. Stockfish (2019), later Ethereal versions and Viridithas
//!   converged on this. (Ethereal 12, as packaged by Debian, still skips depths: its helper 1
//!   searches only odd depths.)
//! - `DepthSkip`: helpers also skip some depths of the iterative deepening, in blocks: helper
//!   `i` (counting from 1) uses a block size `s = 1 + ((i - 1) / 4) % 3` and a phase
//!   `p = (i - 1) % (2 s)`, and skips depth `d` when `((d + p) / s)` is odd. Helpers 1-4 skip
//!   alternate single depths with different phases, 5-8 alternate pairs, 9-12 triples, so the
//!   threads spread over neighbouring depths (the classic "staggered depths" of early Lazy SMP).
//!   Helper 1 searches the even depths, so time to an odd depth measured with `go depth` never
//!   gets its result at that depth: compare policies at two neighbouring depths.
//!
//! The default is chosen by games (notes/results.md). The searcher itself knows nothing of
//! threads: each is given a `Variation` (`HelperPolicy::variation`).

use engine::search::Variation;

/// Named `identical` and `skip` (UCI option `SMP Helpers`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Default, strum::Display, strum::EnumString, strum::VariantNames,
)]
#[strum(ascii_case_insensitive)]
pub enum HelperPolicy {
    #[default]
    #[strum(serialize = "identical")]
    Identical,
    #[strum(serialize = "skip")]
    DepthSkip,
}

impl HelperPolicy {
    /// What thread `thread` of a pool (0 is the main thread, which is given the default)
    /// does differently.
    pub fn variation(self, thread: usize) -> Variation {
        if thread == 0 {
            return Variation::default();
        }
        let aspiration_offset = (thread % 8) as i32;
        if self == HelperPolicy::Identical {
            return Variation { aspiration_offset, ..Variation::default() };
        }
        let k = (thread - 1) as i32;
        let skip_block = 1 + (k / 4) % 3;
        Variation { aspiration_offset, skip_block, skip_phase: k % (2 * skip_block) }
    }

    /// Whether helper `thread` (0 = main, never skips) leaves out iteration `depth`.
    pub fn skips(self, thread: usize, depth: i32) -> bool {
        self.variation(thread).skips(depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_thread_and_identical_helpers_never_skip() {
        for depth in 1..40 {
            assert!(!HelperPolicy::DepthSkip.skips(0, depth));
            for thread in 1..64 {
                assert!(!HelperPolicy::Identical.skips(thread, depth));
            }
        }
    }

    #[test]
    fn skipping_helpers_cover_neighbouring_depths() {
        // Every helper still searches at least every other block of depths, and for each depth
        // some of the first eight helpers search it.
        for thread in 1..64 {
            let searched = (2..40).filter(|&d| !HelperPolicy::DepthSkip.skips(thread, d)).count();
            assert!(searched >= 15, "helper {thread} searches only {searched} depths");
        }
        for depth in 2..40 {
            assert!((1..9).any(|t| !HelperPolicy::DepthSkip.skips(t, depth)));
            assert!((1..9).any(|t| HelperPolicy::DepthSkip.skips(t, depth)));
        }
        assert_eq!("skip".parse(), Ok(HelperPolicy::DepthSkip));
        assert!("other".parse::<HelperPolicy>().is_err());
    }
}
