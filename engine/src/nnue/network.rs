//! The network's weights and the two computations on them: the accumulator of a position from
//! scratch, and the output layer on an accumulator.

use super::simd::{Kernels, OUTPUT_WEIGHT_LIMIT};
use super::{feature_index, output_bucket, Accumulator, Column, HIDDEN, INPUTS, QA, QB, SCALE};
use crate::board::{Color, Piece, Position, Square};
use support::rng::Rng;

/// A loaded network. Immutable once made; searchers share it through an `Arc`.
pub struct Network {
    /// One column of `HIDDEN` weights per input feature.
    feature_weights: Box<[Column]>,
    feature_bias: Column,
    /// One pair per output bucket: applied to the side to move's activations, then to the other
    /// side's.
    output_weights: Box<[[Column; 2]]>,
    /// One per output bucket, at scale QA · QB.
    output_biases: Box<[i32]>,
    /// The scale of the output layer, one of `QB_CHOICES` (the file's header says which).
    qb: i32,
    /// The FNV-1a hash of the file's content, which names the network.
    hash: u64,
    kernels: Kernels,
}

impl Network {
    pub(super) fn from_parts(
        feature_weights: Box<[Column]>,
        feature_bias: Column,
        output_weights: Box<[[Column; 2]]>,
        output_biases: Box<[i32]>,
        qb: i32,
        hash: u64,
    ) -> Network {
        debug_assert!(super::QB_CHOICES.contains(&qb));
        debug_assert_eq!(feature_weights.len(), INPUTS);
        debug_assert_eq!(output_weights.len(), output_biases.len());
        debug_assert!((1..=super::MAX_OUTPUT_BUCKETS).contains(&output_weights.len()));
        debug_assert!(output_weights
            .iter()
            .flatten()
            .all(|c| c.0.iter().all(|w| w.unsigned_abs() <= OUTPUT_WEIGHT_LIMIT as u16)));
        Network {
            feature_weights,
            feature_bias,
            output_weights,
            output_biases,
            qb,
            hash,
            kernels: Kernels::detected(),
        }
    }

    /// A network of random weights of the sizes trained networks have, with one output bucket,
    /// the same for the same seed: for tests and for measuring speed.
    pub fn random(seed: u64) -> Network {
        Network::random_bucketed(seed, 1)
    }

    /// `random` with `buckets` output buckets (1 to `MAX_OUTPUT_BUCKETS`).
    pub fn random_bucketed(seed: u64, buckets: usize) -> Network {
        let mut rng = Rng::new(seed ^ 0x6a09_e667_f3bc_c909);
        let mut next = move |range: i32| -> i16 { rng.below(2 * range as u64 + 1) as i16 - range as i16 };
        let mut column = |range: i32| Column(std::array::from_fn(|_| next(range)));
        let feature_weights: Box<[Column]> = (0..INPUTS).map(|_| column(60)).collect();
        let feature_bias = column(80);
        let output_weights = (0..buckets).map(|_| [column(6), column(6)]).collect();
        let output_biases = (0..buckets as i32).map(|b| 1000 * b).collect();
        let network =
            Network::from_parts(feature_weights, feature_bias, output_weights, output_biases, QB, 0);
        // The hash of the file it would be, so that it names the network as a loaded one would.
        let hash = super::fnv1a(&network.payload());
        Network { hash, ..network }
    }

    /// The same network computed with `kernels` (tests compare the paths).
    pub fn with_kernels(self, kernels: Kernels) -> Network {
        Network { kernels, ..self }
    }

    pub fn kernels(&self) -> Kernels {
        self.kernels
    }

    /// The FNV-1a hash of the network's file content.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    pub fn feature_weights(&self) -> &[Column] {
        &self.feature_weights
    }

    pub fn feature_bias(&self) -> &Column {
        &self.feature_bias
    }

    /// Output buckets, 1 to `MAX_OUTPUT_BUCKETS`.
    pub fn buckets(&self) -> usize {
        self.output_weights.len()
    }

    /// Each bucket's output weights.
    pub fn output_weights(&self) -> &[[Column; 2]] {
        &self.output_weights
    }

    /// Each bucket's output bias.
    pub fn output_biases(&self) -> &[i32] {
        &self.output_biases
    }

    /// The scale of the output weights (QB), as the file's header gave it.
    pub fn qb(&self) -> i32 {
        self.qb
    }

    /// The column of `piece` on `square` seen from `perspective`.
    #[inline]
    pub(super) fn column(&self, perspective: Color, piece: Piece, square: Square) -> &Column {
        &self.feature_weights[feature_index(perspective, piece, square)]
    }

    /// The accumulator of `pos` computed from scratch: the biases plus the column of every
    /// piece, for both perspectives.
    pub fn accumulate(&self, pos: &Position) -> Accumulator {
        let mut acc = Accumulator([self.feature_bias; 2]);
        for perspective in Color::ALL {
            let columns: Vec<&Column> = pos
                .occupied()
                .into_iter()
                .filter_map(|sq| pos.piece_on(sq).map(|piece| self.column(perspective, piece, sq)))
                .collect();
            let sum = &mut acc.0[perspective.index()];
            for group in columns.chunks(4) {
                let before = *sum;
                self.kernels.add_sub(sum, &before, group, &[]);
            }
        }
        acc
    }

    /// The evaluation in centipawns from `stm`'s point of view of a position with `pieces`
    /// pieces on the board, exactly as the format defines it. Unbounded: the search clamps it
    /// into its range of evaluations.
    #[inline]
    pub fn evaluate(&self, acc: &Accumulator, stm: Color, pieces: u32) -> i32 {
        self.evaluate_bucket(acc, stm, output_bucket(pieces, self.buckets()))
    }

    /// `evaluate` through output bucket `bucket`, whatever the number of pieces.
    #[inline]
    fn evaluate_bucket(&self, acc: &Accumulator, stm: Color, bucket: usize) -> i32 {
        let [w_us, w_them] = &self.output_weights[bucket];
        let sum = self.kernels.screlu_output(acc.perspective(stm), acc.perspective(!stm), w_us, w_them);
        // In i64: the bias may be any i32. The result is below 2³¹ · 400 / (QA · QB) in size.
        let hidden = i64::from(sum / QA) + i64::from(self.output_biases[bucket]);
        (hidden * i64::from(SCALE) / i64::from(QA * self.qb)) as i32
    }

    /// The evaluation of `pos` from scratch (for `eval` and tests; the search updates its
    /// accumulators incrementally).
    pub fn evaluate_position(&self, pos: &Position) -> i32 {
        self.evaluate(&self.accumulate(pos), pos.side_to_move(), pos.occupied().count())
    }

    /// What each output bucket makes of `pos`, from its side to move's view: the one its number
    /// of pieces chooses is `evaluate_position`; the others show how much the choice matters.
    pub fn bucket_scores(&self, pos: &Position) -> Vec<i32> {
        let acc = self.accumulate(pos);
        (0..self.buckets()).map(|bucket| self.evaluate_bucket(&acc, pos.side_to_move(), bucket)).collect()
    }
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Network {{ hidden: {HIDDEN}, output buckets: {}, hash: {:#018x}, kernels: {} }}",
            self.buckets(),
            self.hash,
            self.kernels.name()
        )
    }
}
