//! How well a quantised network, evaluating as the engine does, predicts held-out data: the
//! number that compares networks from different runs on one set of positions.

use crate::data::Entry;
use crate::network::{loss_of_eval, Objective};
use crate::nnue::QuantisedNetwork;
use rayon::prelude::*;

/// A network's score on a set of positions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    pub positions: usize,
    /// The mean error under the objective: the integer loss `train` reports.
    pub loss: f64,
    /// The mean |evaluation − search score|, in centipawns, over the positions whose score is
    /// below `max_cp` in size (mate-like scores would swamp it).
    pub mean_error_cp: f64,
}

pub fn score(net: &QuantisedNetwork, data: &[Entry], objective: &Objective, max_cp: i32) -> Verdict {
    let (loss, error, counted) = data
        .par_chunks(4096)
        .map(|chunk| {
            let (mut loss, mut error, mut counted) = (0.0f64, 0.0f64, 0usize);
            for e in chunk {
                let pieces: Vec<_> = e.pieces().collect();
                let cp = net.evaluate(&pieces, e.side_to_move());
                loss += f64::from(loss_of_eval(cp as f32, e, objective));
                let score = i32::from(e.score());
                if score.abs() < max_cp {
                    error += f64::from((cp - score).abs());
                    counted += 1;
                }
            }
            (loss, error, counted)
        })
        .reduce(|| (0.0, 0.0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
    Verdict {
        positions: data.len(),
        loss: if data.is_empty() { 0.0 } else { loss / data.len() as f64 },
        mean_error_cp: if counted == 0 { 0.0 } else { error / counted as f64 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::tests::material_data;
    use crate::network::Network;
    use crate::rng::Rng;

    #[test]
    fn the_verdict_is_the_mean_of_each_positions_loss_and_error() {
        let data = material_data(500, 3);
        let objective = Objective { wdl: 0.0, power: 2.0, k: 400.0 };
        let zero = QuantisedNetwork::from_float(&Network::zeroed(16, 1));
        let blank = score(&zero, &data, &objective, 1000);
        assert_eq!(blank.positions, 500);
        // A network that outputs 0 everywhere errs by the scores themselves.
        let mean_abs: f64 =
            data.iter().filter(|e| e.score().abs() < 1000).map(|e| f64::from(e.score().abs())).sum::<f64>()
                / data.iter().filter(|e| e.score().abs() < 1000).count() as f64;
        assert!((blank.mean_error_cp - mean_abs).abs() < 1e-9);
        assert!(mean_abs > 50.0, "the data must have scores away from zero: {mean_abs}");
        let random = QuantisedNetwork::from_float(&Network::random(16, 1, &mut Rng::new(1)));
        let r = score(&random, &data, &objective, 1000);
        assert!(r.loss.is_finite() && r.loss > 0.0);
        // Each position's loss agrees with the formula applied one at a time.
        let by_hand: f64 = data
            .iter()
            .map(|e| {
                let pieces: Vec<_> = e.pieces().collect();
                f64::from(loss_of_eval(random.evaluate(&pieces, e.side_to_move()) as f32, e, &objective))
            })
            .sum::<f64>()
            / 500.0;
        assert!((r.loss - by_hand).abs() < 1e-9, "{} vs {by_hand}", r.loss);
        assert_eq!(score(&zero, &[], &objective, 1000).loss, 0.0);
    }
}
