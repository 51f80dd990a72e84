//! What the engine does with a search's answer between the threads' vote and the front end's
//! `on_bestmove`, in this order: the other processes' results (a cluster), then the root
//! remembered for an analysis that resumes it. The main thread runs it (`thread.rs`) as the
//! search's one `Finish` step.

use crate::peers::Peers;
use crate::vote::VoteMode;
use engine::board::Position;
use engine::search::{RootRecord, SearchMemory, SearchResult};
use parking_lot::Mutex;
use std::sync::Arc;

/// The engine's steps for one search's answer.
#[derive(Default)]
pub(crate) struct Finish {
    /// The other processes, and the vote among them (if any).
    pub(crate) peers: Option<(Arc<dyn Peers>, Option<VoteMode>)>,
    /// Where a search of every root move is remembered, under its root's key.
    pub(crate) remember: Option<(Arc<Mutex<Vec<RootRecord>>>, u64)>,
}

impl Finish {
    /// As the step the main thread takes.
    pub(crate) fn into_step(self) -> crate::thread::Finish {
        Box::new(move |local, root| self.answer(local, root))
    }

    /// The answer to give for this process's own `local` one, searched at `root`.
    pub(crate) fn answer(self, local: SearchResult, root: &Position) -> SearchResult {
        let mut answer = local;
        if let Some((peers, vote)) = self.peers {
            let joint = peers.finish(answer.clone(), vote);
            // Every process searched this position; a move that is not legal here came from
            // one that did not, and is not played.
            if joint.best_move == answer.best_move || root.is_legal_move(joint.best_move) {
                answer = joint;
            }
        }
        if let Some((roots, key)) = self.remember {
            if answer.depth > 0 && !answer.pv.is_empty() {
                let record = RootRecord {
                    key,
                    depth: answer.depth,
                    score: answer.score,
                    bound: answer.bound,
                    pv: answer.pv.clone(),
                };
                SearchMemory::remember(&mut roots.lock(), record);
            }
        }
        answer
    }
}
