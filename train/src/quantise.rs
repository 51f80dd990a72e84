//! From the float network to the integers the engine plays with, and how far apart they are.
//!
//! Rounding each weight is unbiased, but the integer network's output is not: its activations
//! are always positive, so the rounding of a bucket's output weights adds up to an offset that
//! the same bucket shows on every position, and the final division truncates. Each bucket's
//! integer bias is therefore moved by the mean float − integer difference measured on sample
//! positions of that bucket, which removes the offset without touching any weight.

use crate::data::Entry;
use crate::network::Network;
use crate::network::SCALE;
use crate::nnue::{QuantisedNetwork, QA};
use rayon::prelude::*;

/// |float − integer| in centipawns over sample positions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Gap {
    pub positions: usize,
    pub mean_cp: f64,
    pub max_cp: f64,
}

/// Per bucket: the number of sample positions and the sum of float − integer, in centipawns.
fn differences(net: &Network, q: &QuantisedNetwork, sample: &[Entry]) -> (Vec<(usize, f64)>, Gap) {
    let buckets = net.buckets;
    let fold = |chunk: &[Entry]| {
        let mut per_bucket = vec![(0usize, 0.0f64); buckets];
        let (mut total, mut worst) = (0.0f64, 0.0f64);
        for e in chunk {
            let pieces: Vec<_> = e.pieces().collect();
            let float_cp = f64::from(net.output(&pieces, e.side_to_move()) * SCALE);
            let integer_cp = f64::from(q.evaluate(&pieces, e.side_to_move()));
            let b = &mut per_bucket[net.bucket(pieces.len())];
            b.0 += 1;
            b.1 += float_cp - integer_cp;
            total += (float_cp - integer_cp).abs();
            worst = worst.max((float_cp - integer_cp).abs());
        }
        (per_bucket, total, worst)
    };
    let (per_bucket, total, worst) = sample.par_chunks(4096).map(fold).reduce(
        || (vec![(0, 0.0); buckets], 0.0, 0.0),
        |mut a, b| {
            for (x, y) in a.0.iter_mut().zip(&b.0) {
                x.0 += y.0;
                x.1 += y.1;
            }
            (a.0, a.1 + b.1, a.2.max(b.2))
        },
    );
    let n = sample.len();
    let mean_cp = if n == 0 { 0.0 } else { total / n as f64 };
    (per_bucket, Gap { positions: n, mean_cp, max_cp: worst })
}

/// How far the integer network strays from the float one on `sample`.
pub fn gap(net: &Network, q: &QuantisedNetwork, sample: &[Entry]) -> Gap {
    differences(net, q, sample).1
}

/// Moves each bucket's integer bias by the mean float − integer difference of the sample's
/// positions in that bucket (buckets without sample positions keep theirs). Two passes: the
/// second picks up what the truncation of the first one's shift left.
pub fn correct_output_biases(net: &Network, q: &mut QuantisedNetwork, sample: &[Entry]) {
    let units_per_cp = f64::from(QA * q.qb) / f64::from(SCALE);
    for _ in 0..2 {
        let (per_bucket, _) = differences(net, q, sample);
        for (bias, &(count, sum)) in q.output_biases.iter_mut().zip(&per_bucket) {
            if count > 0 {
                let shift = (sum / count as f64 * units_per_cp).round();
                *bias = (f64::from(*bias) + shift).clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
            }
        }
    }
}

/// The integer network of `net`, its output biases corrected on `sample` (plain rounding when
/// the sample is empty).
pub fn quantise(net: &Network, sample: &[Entry]) -> QuantisedNetwork {
    let mut q = QuantisedNetwork::from_float(net);
    if !sample.is_empty() {
        correct_output_biases(net, &mut q, sample);
    }
    q
}

/// About `target` positions spread evenly over `pool` (a data set's files come one after
/// another, so its first positions would all be from the first file).
pub fn spread_sample(pool: &[Entry], target: usize) -> Vec<Entry> {
    pool.iter().step_by(pool.len().div_ceil(target.max(1)).max(1)).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::tests::material_data;
    use support::rng::Rng;

    fn bucket_means(net: &Network, q: &QuantisedNetwork, sample: &[Entry]) -> Vec<f64> {
        differences(net, q, sample)
            .0
            .iter()
            .map(|&(n, sum)| if n == 0 { 0.0 } else { sum / n as f64 })
            .collect()
    }

    #[test]
    fn an_offset_bucket_is_moved_back_and_the_others_stay_centred() {
        let data = material_data(3000, 5);
        let net = Network::random(32, 4, &mut Rng::new(9));
        let plain = QuantisedNetwork::from_float(&net);
        let mut q = plain.clone();
        // An offset of about 12 cp in one bucket, the size of the steps seen between buckets.
        let busiest = {
            let counts = differences(&net, &q, &data).0;
            (0..4).max_by_key(|&b| counts[b].0).unwrap()
        };
        q.output_biases[busiest] += 500 * q.qb / 64;
        let before = bucket_means(&net, &q, &data);
        assert!(before[busiest] < -10.0, "the offset shows: {before:?}");
        correct_output_biases(&net, &mut q, &data);
        let after = bucket_means(&net, &q, &data);
        for (b, m) in after.iter().enumerate() {
            assert!(m.abs() < 0.5, "bucket {b} still {m} cp off: {after:?}");
        }
        assert!((q.output_biases[busiest] - plain.output_biases[busiest]).abs() < 100);
        assert!(gap(&net, &q, &data).mean_cp <= gap(&net, &plain, &data).mean_cp + 0.5);
        // Only biases move.
        assert_eq!(q.output_weights, plain.output_weights);
        assert_eq!(q.feature_weights, plain.feature_weights);
        assert_eq!(quantise(&net, &[]).output_biases, plain.output_biases);
    }

    #[test]
    fn the_sample_spreads_over_the_whole_pool() {
        let data = material_data(1000, 2);
        let sample = spread_sample(&data, 100);
        assert_eq!(sample.len(), 100);
        assert_eq!(sample[99], data[990]);
        assert_eq!(spread_sample(&data, 5000).len(), 1000);
        assert!(spread_sample(&[], 10).is_empty());
    }
}
