//! The evaluation (NNUE): the network of `docs/network-format.md`, its accumulators kept up to
//! date move by move, and which network searches use.
//!
//! - `network`: the weights, the from-scratch accumulator and the output layer;
//! - `format`: reading and writing the file format, with a typed error for every refusal;
//! - `accumulator`: the per-ply accumulator stack a searcher updates lazily as it moves;
//! - `copies`: a network's copies for the NUMA nodes its searches run on;
//! - `simd`: the inner loops, portable and AVX2, chosen at run time.
//!
//! Which network a search uses is its searcher's owner's choice (`Searcher::set_network`);
//! `docs/nnue.md` describes the design.

mod accumulator;
mod copies;
mod format;
mod network;
#[allow(unsafe_code)]
pub mod simd;

#[cfg(test)]
mod tests;

pub use accumulator::{AccumulatorStack, FeatureDelta};
pub use copies::NetworkCopies;
pub use format::{HeaderField, LoadError, FORMAT_VERSION, HEADER_LEN, HEADER_LEN_V2, MAGIC};
pub use network::Network;

use crate::board::{Color, Piece, Square};
use std::sync::{Arc, LazyLock};

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

/// The embedded network, parsed once.
pub fn default_network() -> Arc<Network> {
    static PARSED: LazyLock<Arc<Network>> = LazyLock::new(|| {
        Arc::new(
            Network::from_bytes(EMBEDDED_NETWORK).unwrap_or_else(|e| panic!("the embedded network: {e}")),
        )
    });
    Arc::clone(&PARSED)
}
