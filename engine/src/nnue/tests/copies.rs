//! A network's copies for NUMA nodes: one per node, the same weights, kept until the node asks
//! for another network.

use crate::board::Position;
use crate::nnue::{copy_for_node, node_copies, Network};
use std::sync::Arc;

#[test]
fn each_node_gets_one_copy_with_the_same_evaluation() {
    // Node numbers far from any real machine's, so that no other test's copies mix in.
    let (a, b) = (1000, 1001);
    let original = Arc::new(Network::random(21));
    let on_a = copy_for_node(&original, a);
    let on_b = copy_for_node(&original, b);
    assert!(!Arc::ptr_eq(&on_a, &original) && !Arc::ptr_eq(&on_a, &on_b), "separate memory");
    assert!(Arc::ptr_eq(&on_a, &copy_for_node(&original, a)), "made once");
    let pos = Position::startpos();
    assert_eq!(on_a.evaluate_position(&pos), original.evaluate_position(&pos));
    assert_eq!(on_b.hash(), original.hash());
    // Another network replaces the node's copy.
    let other = Arc::new(Network::random(22));
    let replaced = copy_for_node(&other, a);
    assert_eq!(replaced.hash(), other.hash());
    let copies = node_copies();
    assert!(copies.contains(&(a, other.hash())) && !copies.contains(&(a, original.hash())), "{copies:?}");
    assert!(copies.contains(&(b, original.hash())), "{copies:?}");
}
