//! What the searches learned that outlives them, as a hash file carries it beside the table:
//! the histories the threads share, each thread's own histories, and what the last completed
//! iteration found for each root searched, so that an analysis picks up where it stopped.
//!
//! # Section format (little-endian; the hash file's version 3)
//! | size | field |
//! | --- | --- |
//! | 8 | u64 length of the shared histories: 0 or `SharedHistories::BYTES` |
//! | that length | `SharedHistories::to_bytes` |
//! | 4 | u32 thread count |
//! | `Histories::OWN_BYTES` each | each thread's own histories, in thread order |
//! | 4 | u32 root count, at most `ROOTS_KEPT` |
//! | per root | u64 key, i32 depth, i32 score, u8 bound (0 exact, 1 lower, 2 upper), u8 moves, u16 each |

use super::history::Histories;
use super::score::{MATE, MAX_PLY};
use super::{Bound, SharedHistories};
use crate::board::Move;

/// What the last completed iteration of a search of one root found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootRecord {
    pub key: u64,
    pub depth: i32,
    pub score: i32,
    pub bound: Bound,
    pub pv: Vec<Move>,
}

/// How many roots are remembered (the most recent): enough for an analysis stepped through a
/// long game and back.
pub const ROOTS_KEPT: usize = 512;
/// More threads than any pool runs: a count beyond it is a damaged file.
const MAX_THREADS: usize = 4096;

/// The searches' memory beyond the table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchMemory {
    /// `SharedHistories::to_bytes`, or empty.
    pub shared: Vec<u8>,
    /// Each thread's `Searcher::own_histories`, in thread order.
    pub threads: Vec<Vec<u8>>,
    /// Most recent first, one per key.
    pub roots: Vec<RootRecord>,
}

impl SearchMemory {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(self.shared.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.shared);
        out.extend_from_slice(&(self.threads.len() as u32).to_le_bytes());
        for own in &self.threads {
            out.extend_from_slice(own);
        }
        let roots = &self.roots[..self.roots.len().min(ROOTS_KEPT)];
        out.extend_from_slice(&(roots.len() as u32).to_le_bytes());
        for root in roots {
            out.extend_from_slice(&root.key.to_le_bytes());
            out.extend_from_slice(&root.depth.to_le_bytes());
            out.extend_from_slice(&root.score.to_le_bytes());
            out.push(match root.bound {
                Bound::Exact => 0,
                Bound::Lower => 1,
                Bound::Upper => 2,
            });
            let pv = &root.pv[..root.pv.len().min(MAX_PLY)];
            out.push(pv.len() as u8);
            out.extend(pv.iter().flat_map(|m| m.raw().to_le_bytes()));
        }
        out
    }

    /// Reads what `to_bytes` wrote, checking every field a search relies on; any other bytes
    /// are refused with what is wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<SearchMemory, String> {
        let mut input = Input(bytes);
        let shared_len = input.u64()? as usize;
        if shared_len != 0 && shared_len != SharedHistories::BYTES {
            return Err(format!(
                "shared histories of {shared_len} bytes, this build keeps {}",
                SharedHistories::BYTES
            ));
        }
        let shared = input.take(shared_len)?.to_vec();
        if !shared.is_empty() {
            SharedHistories::check_bytes(&shared)?;
        }
        let thread_count = input.u32()? as usize;
        if thread_count > MAX_THREADS {
            return Err(format!("{thread_count} threads' histories"));
        }
        let mut threads = Vec::with_capacity(thread_count);
        for _ in 0..thread_count {
            let own = input.take(Histories::OWN_BYTES)?;
            Histories::check_own(own)?;
            threads.push(own.to_vec());
        }
        let root_count = input.u32()? as usize;
        if root_count > ROOTS_KEPT {
            return Err(format!("{root_count} roots, at most {ROOTS_KEPT} are kept"));
        }
        let mut roots = Vec::with_capacity(root_count);
        for _ in 0..root_count {
            let key = input.u64()?;
            let depth = input.u32()? as i32;
            let score = input.u32()? as i32;
            let bound = match input.take(1)?[0] {
                0 => Bound::Exact,
                1 => Bound::Lower,
                2 => Bound::Upper,
                other => return Err(format!("a root's bound {other}")),
            };
            let moves = input.take(1)?[0] as usize;
            if !(1..MAX_PLY as i32).contains(&depth) || score.abs() > MATE || moves > MAX_PLY {
                return Err(format!("a root searched to depth {depth} with score {score} and {moves} moves"));
            }
            let pv = input
                .take(moves * 2)?
                .chunks_exact(2)
                .map(|b| Move::from_raw(u16::from_le_bytes([b[0], b[1]])));
            roots.push(RootRecord { key, depth, score, bound, pv: pv.collect() });
        }
        if !input.0.is_empty() {
            return Err(format!("{} bytes after the roots", input.0.len()));
        }
        Ok(SearchMemory { shared, threads, roots })
    }

    /// Remembers `record` as the most recent, replacing an older one of the same root unless
    /// that one is deeper (a root's record never gets shallower: where an analysis resumes).
    pub fn remember(roots: &mut Vec<RootRecord>, record: RootRecord) {
        let old = roots.iter().position(|r| r.key == record.key).map(|i| roots.remove(i));
        let record = old.filter(|old| old.depth > record.depth).unwrap_or(record);
        roots.insert(0, record);
        roots.truncate(ROOTS_KEPT);
    }
}

/// Bytes still to read.
struct Input<'a>(&'a [u8]);

impl<'a> Input<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.0.len() {
            return Err("the search memory is cut short".to_string());
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Ok(head)
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;

    fn record(key: u64, depth: i32) -> RootRecord {
        let mv = Move::new(Square::new(12), Square::new(28), 1);
        RootRecord { key, depth, score: -35, bound: Bound::Lower, pv: vec![mv, Move::from_raw(777)] }
    }

    fn sample() -> SearchMemory {
        let shared = SharedHistories::new().to_bytes();
        let mut searcher = super::super::Searcher::new();
        searcher.clear_own();
        let threads = vec![searcher.own_histories(), searcher.own_histories()];
        SearchMemory { shared, threads, roots: vec![record(1, 20), record(u64::MAX, 7)] }
    }

    #[test]
    fn the_memory_comes_back_from_its_bytes() {
        let memory = sample();
        assert_eq!(SearchMemory::from_bytes(&memory.to_bytes()), Ok(memory));
        let empty = SearchMemory::default();
        assert_eq!(SearchMemory::from_bytes(&empty.to_bytes()), Ok(empty));
    }

    #[test]
    fn damaged_memory_is_refused_with_what_is_wrong() {
        let bytes = sample().to_bytes();
        let error = |bytes: &[u8]| SearchMemory::from_bytes(bytes).unwrap_err();
        assert!(error(&bytes[..bytes.len() - 1]).contains("cut short"));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(error(&longer).contains("after the roots"));
        // The last root's fields: key, depth, score, bound, moves, two moves.
        let last = bytes.len() - (8 + 4 + 4 + 1 + 1 + 4);
        let mut deep = bytes.clone();
        deep[last + 8..last + 12].copy_from_slice(&(MAX_PLY as i32).to_le_bytes());
        assert!(error(&deep).contains("depth"));
        let mut beyond_mate = bytes.clone();
        beyond_mate[last + 12..last + 16].copy_from_slice(&(MATE + 1).to_le_bytes());
        assert!(error(&beyond_mate).contains("score"));
        let mut bound = bytes.clone();
        bound[last + 16] = 3;
        assert!(error(&bound).contains("bound"));
        let mut threads = bytes;
        threads[8 + SharedHistories::BYTES..][..4].copy_from_slice(&9999u32.to_le_bytes());
        assert!(error(&threads).contains("threads"));
    }

    #[test]
    fn the_most_recent_root_comes_first_and_one_per_key() {
        let mut roots = Vec::new();
        for key in 0..ROOTS_KEPT as u64 + 10 {
            SearchMemory::remember(&mut roots, record(key, 10));
        }
        assert_eq!(roots.len(), ROOTS_KEPT);
        assert_eq!(roots[0].key, ROOTS_KEPT as u64 + 9);
        SearchMemory::remember(&mut roots, record(300, 22));
        assert_eq!((roots[0].key, roots[0].depth), (300, 22));
        assert_eq!(roots.iter().filter(|r| r.key == 300).count(), 1);
        // A shallower search of the same root (a helper's move won the vote) keeps the deeper
        // record, as the most recent.
        SearchMemory::remember(&mut roots, record(0, 5));
        SearchMemory::remember(&mut roots, record(300, 21));
        assert_eq!((roots[0].key, roots[0].depth), (300, 22));
        assert_eq!(roots.iter().filter(|r| r.key == 300).count(), 1);
    }
}
