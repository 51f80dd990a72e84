//! The evaluation (NNUE): the network of `docs/network-format.md`, its accumulators kept up to
//! date move by move, and which network searches use.
//!
//! - `network`: the weights, the from-scratch accumulator and the output layer;
//! - `format`: reading and writing the file format, with a typed error for every refusal;
//! - `accumulator`: the per-ply accumulator stack a searcher updates lazily as it moves;
//! - `simd`: the inner loops, portable and AVX2, chosen at run time.
//!
//! Which network a search uses is process-wide (`set_active`), read once by each searcher at
//! the start of a search; `docs/nnue.md` describes the design.

mod accumulator;
mod format;
mod network;
#[allow(unsafe_code)]
pub mod simd;

#[cfg(test)]
mod tests;

pub use accumulator::{AccumulatorStack, FeatureDelta};
pub use format::{HeaderField, LoadError, FORMAT_VERSION, HEADER_LEN, HEADER_LEN_V2, MAGIC};
pub use network::Network;

use crate::board::{Color, Piece, Square};
use std::sync::{Arc, LazyLock, Mutex, RwLock};

pub use nnue_format::{fnv1a, ACTIVATION_SCRELU, INPUTS, MAX_OUTPUT_BUCKETS, QA, QB, QB_CHOICES, SCALE};

/// Neurons of the hidden layer. Networks of another size are refused.
pub const HIDDEN: usize = 256;

/// Which of `buckets` output layers a position with `pieces` pieces on the board uses
/// (`nnue_format::output_bucket`).
#[inline]
pub fn output_bucket(pieces: u32, buckets: usize) -> usize {
    nnue_format::output_bucket(pieces as usize, buckets)
}

/// The network the engine starts with and that an empty `EvalFile` returns to. How it was
/// trained: docs/nnue.md. A test checks that it loads.
pub const EMBEDDED_NETWORK: &[u8] = include_bytes!("../../networks/nn-10d26d66fe6e89b2.lznn");

/// `HIDDEN` i16 values aligned to a cache line: one feature's weights, the biases, an output
/// weight vector, or one perspective of an accumulator. Aligned, no vector load straddles two
/// cache lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Column(pub [i16; HIDDEN]);

impl Column {
    pub const ZERO: Column = Column([0; HIDDEN]);
}

/// The hidden layer's input sums seen from each side: `[White's, Black's]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accumulator(pub [Column; 2]);

impl Accumulator {
    pub const ZERO: Accumulator = Accumulator([Column::ZERO; 2]);

    #[inline]
    pub fn perspective(&self, color: Color) -> &Column {
        &self.0[color.index()]
    }
}

/// The input index of `piece` on `square` seen from `perspective` (`nnue_format::feature_index`).
#[inline]
pub fn feature_index(perspective: Color, piece: Piece, square: Square) -> usize {
    nnue_format::feature_index(
        perspective.index(),
        piece.color().index(),
        piece.kind().index(),
        square.index(),
    )
}

/// The network searches use when told nothing else.
static ACTIVE: LazyLock<RwLock<Arc<Network>>> = LazyLock::new(|| RwLock::new(default_network()));

/// The network set with `set_active` (at start, the embedded one).
pub fn active() -> Arc<Network> {
    Arc::clone(&ACTIVE.read().unwrap_or_else(|poisoned| poisoned.into_inner()))
}

/// Make `network` the one that searches started from now on use. Searches already running keep
/// the network they started with.
pub fn set_active(network: Arc<Network>) {
    *ACTIVE.write().unwrap_or_else(|poisoned| poisoned.into_inner()) = network;
}

/// The embedded network, parsed once.
pub fn default_network() -> Arc<Network> {
    static PARSED: LazyLock<Arc<Network>> = LazyLock::new(|| {
        Arc::new(
            Network::from_bytes(EMBEDDED_NETWORK).unwrap_or_else(|e| panic!("the embedded network: {e}")),
        )
    });
    Arc::clone(&PARSED)
}

/// A NUMA node's copy of a network: (node, the original, its copy).
type NodeCopy = (usize, Arc<Network>, Arc<Network>);

/// The copies, one per NUMA node that asked for one.
static NODE_COPIES: LazyLock<Mutex<Vec<NodeCopy>>> = LazyLock::new(Mutex::default);

/// The copy of `original` for NUMA node `node`, made on the first call from that node (by a
/// thread bound to it, so that the copy's pages are first touched, and placed, there). A node
/// keeps one copy: that of the last network it asked for.
pub fn copy_for_node(original: &Arc<Network>, node: usize) -> Arc<Network> {
    let mut copies = NODE_COPIES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, _, copy)) = copies.iter().find(|(n, o, _)| *n == node && Arc::ptr_eq(o, original)) {
        return Arc::clone(copy);
    }
    copies.retain(|(n, _, _)| *n != node);
    let copy =
        Arc::new(Network::from_bytes(&original.to_bytes()).expect("a network reads back what it writes"));
    copies.push((node, Arc::clone(original), Arc::clone(&copy)));
    copy
}

/// The nodes that hold a copy of some network, and that network's hash.
pub fn node_copies() -> Vec<(usize, u64)> {
    let copies = NODE_COPIES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    copies.iter().map(|(node, _, copy)| (*node, copy.hash())).collect()
}

/// Which network a searcher uses.
#[derive(Clone, Default)]
pub enum EvalSource {
    /// Whatever `active()` says when a search starts.
    #[default]
    Active,
    /// As `Active`, through the copy of that network for this NUMA node (`copy_for_node`).
    ActiveOnNode(usize),
    /// This network, whatever is active (tests and tools that must not depend on the process).
    Network(Arc<Network>),
}

impl EvalSource {
    /// The network to use now.
    pub fn resolve(&self) -> Arc<Network> {
        match self {
            EvalSource::Active => active(),
            EvalSource::ActiveOnNode(node) => copy_for_node(&active(), *node),
            EvalSource::Network(network) => Arc::clone(network),
        }
    }
}
