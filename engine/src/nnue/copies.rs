//! A network and its copies for NUMA nodes, owned by whoever runs the searches (no process-wide
//! state): each node's copy is made by the first of its threads that asks, a thread bound to
//! that node, so that the copy's pages are first touched, and placed, there.

use super::Network;
use std::sync::{Arc, Mutex};

pub struct NetworkCopies {
    original: Arc<Network>,
    /// (node, its copy), made on demand.
    copies: Mutex<Vec<(usize, Arc<Network>)>>,
}

impl NetworkCopies {
    pub fn new(original: Arc<Network>) -> NetworkCopies {
        NetworkCopies { original, copies: Mutex::default() }
    }

    /// The network itself.
    pub fn original(&self) -> &Arc<Network> {
        &self.original
    }

    /// The copy for NUMA node `node`, made on the first call for that node.
    pub fn for_node(&self, node: usize) -> Arc<Network> {
        let mut copies = self.copies.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((_, copy)) = copies.iter().find(|(n, _)| *n == node) {
            return Arc::clone(copy);
        }
        let copy = Arc::new(
            Network::from_bytes(&self.original.to_bytes()).expect("a network reads back what it writes"),
        );
        copies.push((node, Arc::clone(&copy)));
        copy
    }

    /// The nodes that hold a copy, in the order the copies were made.
    pub fn nodes(&self) -> Vec<usize> {
        let copies = self.copies.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        copies.iter().map(|(node, _)| *node).collect()
    }
}
