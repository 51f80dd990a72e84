//! The other processes of one search spread over several machines (the `cluster` build's MPI
//! ranks), as an engine sees them. An engine without peers searches alone, as always.

use crate::vote::VoteMode;
use engine::search::{Limits, SearchResult};
use engine::tt::TranspositionTable;
use std::sync::Arc;

pub trait Peers: Send + Sync {
    /// A search is about to start on `table` (the engine's table, which `Hash` and `Load Hash`
    /// replace): what the others share goes there.
    fn search_on(&self, table: &Arc<TranspositionTable>);

    /// This process's search has ended with `local`, its own threads' choice: the result to
    /// answer with. The process that answers stops the others and, given a `vote`, chooses
    /// among every process's result; the others hand theirs over and keep it.
    fn finish(&self, local: SearchResult, vote: Option<VoteMode>) -> SearchResult;

    /// The search about to start counts its nodes with `counts`.
    #[cfg(feature = "cluster")]
    fn count_with(&self, counts: NodeCounts);
}

/// A pool's node count of the current search, and where the other processes' count goes (the
/// pool's `info` lines and node limit add it).
#[cfg(feature = "cluster")]
#[derive(Clone)]
pub struct NodeCounts(pub(crate) Arc<crate::thread::Shared>);

#[cfg(feature = "cluster")]
impl NodeCounts {
    /// This process's nodes.
    pub fn own(&self) -> u64 {
        self.0.own_nodes()
    }

    /// The other processes' nodes, as last reported.
    pub fn others(&self) -> u64 {
        self.0.signals.others_nodes.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn set_others(&self, nodes: u64) {
        self.0.signals.others_nodes.store(nodes, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Whether the processes' results go to a vote after a search with `limits`: as between one
/// process's threads, a plain search's only (no depth, node or mate limit, one line, every root
/// move; a limited strength sets a node budget and several lines). Any other search answers
/// with the answering process's own result.
pub(crate) fn votes(limits: &Limits) -> bool {
    limits.depth.is_none()
        && limits.nodes.is_none()
        && limits.soft_nodes.is_none()
        && limits.mate.is_none()
        && limits.multipv <= 1
        && limits.search_moves.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_plain_search_is_put_to_a_vote() {
        assert!(votes(&Limits::default()));
        assert!(!votes(&Limits::depth(10)));
        assert!(!votes(&Limits { nodes: Some(1000), ..Limits::default() }));
        assert!(!votes(&Limits { soft_nodes: Some(1000), multipv: 4, ..Limits::default() }));
        assert!(!votes(&Limits { mate: Some(3), ..Limits::default() }));
        assert!(!votes(&Limits { multipv: 2, ..Limits::default() }));
    }
}
