//! A network's copies for NUMA nodes: one per node, the same weights, in separate memory.

use crate::board::Position;
use crate::nnue::{Network, NetworkCopies};
use std::sync::Arc;

#[test]
fn each_node_gets_one_copy_with_the_same_evaluation() {
    let original = Arc::new(Network::random(21));
    let copies = NetworkCopies::new(Arc::clone(&original));
    assert!(copies.nodes().is_empty(), "no copy before a node asks");
    let on_a = copies.for_node(0);
    let on_b = copies.for_node(3);
    assert!(!Arc::ptr_eq(&on_a, &original) && !Arc::ptr_eq(&on_a, &on_b), "separate memory");
    assert!(Arc::ptr_eq(&on_a, &copies.for_node(0)), "made once");
    let pos = Position::startpos();
    assert_eq!(on_a.evaluate_position(&pos), original.evaluate_position(&pos));
    assert_eq!(on_b.hash(), original.hash());
    assert_eq!(copies.nodes(), [0, 3]);
    // Another owner's copies are its own.
    let other = NetworkCopies::new(Arc::new(Network::random(22)));
    assert_eq!(other.for_node(0).hash(), Network::random(22).hash());
    assert_eq!(copies.for_node(0).hash(), original.hash());
}
