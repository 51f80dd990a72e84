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
    /// The least-squares slope of the search score on the evaluation over the same positions:
    /// above 1 when the network evaluates narrower than the search scores.
    pub slope: f64,
}

/// Sums for the mean error and the regression of score on evaluation.
#[derive(Clone, Copy, Default)]
struct Sums {
    loss: f64,
    error: f64,
    counted: f64,
    x: f64,
    y: f64,
    xx: f64,
    xy: f64,
}

impl std::ops::Add for Sums {
    type Output = Sums;
    fn add(self, o: Sums) -> Sums {
        Sums {
            loss: self.loss + o.loss,
            error: self.error + o.error,
            counted: self.counted + o.counted,
            x: self.x + o.x,
            y: self.y + o.y,
            xx: self.xx + o.xx,
            xy: self.xy + o.xy,
        }
    }
}

pub fn score(net: &QuantisedNetwork, data: &[Entry], objective: &Objective, max_cp: i32) -> Verdict {
    let s = data
        .par_chunks(4096)
        .map(|chunk| {
            let mut s = Sums::default();
            for e in chunk {
                let pieces: Vec<_> = e.pieces().collect();
                let cp = net.evaluate(&pieces, e.side_to_move());
                s.loss += f64::from(loss_of_eval(cp as f32, e, objective));
                let score = i32::from(e.score());
                if score.abs() < max_cp {
                    s = s + Sums::point(f64::from(cp), f64::from(score));
                }
            }
            s
        })
        .reduce(Sums::default, |a, b| a + b);
    Verdict {
        positions: data.len(),
        loss: if data.is_empty() { 0.0 } else { s.loss / data.len() as f64 },
        mean_error_cp: if s.counted == 0.0 { 0.0 } else { s.error / s.counted },
        slope: s.slope(),
    }
}

impl Sums {
    /// One position's evaluation `x` and search score `y`.
    fn point(x: f64, y: f64) -> Sums {
        Sums { error: (x - y).abs(), counted: 1.0, x, y, xx: x * x, xy: x * y, ..Sums::default() }
    }

    /// The least-squares slope of y on x; 0 when x does not vary.
    fn slope(&self) -> f64 {
        let n = self.counted;
        let spread = self.xx - self.x * self.x / n.max(1.0);
        if n < 2.0 || spread <= 1e-9 * self.xx.max(1.0) {
            0.0
        } else {
            (self.xy - self.x * self.y / n) / spread
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::tests::material_data;
    use crate::network::Network;
    use support::rng::Rng;

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
        // A network with no spread has no slope.
        assert_eq!(blank.slope, 0.0);
    }

    #[test]
    fn the_slope_is_that_of_score_on_evaluation() {
        let line = |f: &dyn Fn(f64) -> f64| {
            (-50..50).map(|i| f64::from(i) * 7.0).fold(Sums::default(), |a, x| a + Sums::point(x, f(x)))
        };
        let doubled = line(&|x| 2.0 * x + 5.0);
        assert!((doubled.slope() - 2.0).abs() < 1e-9, "{}", doubled.slope());
        let flat = line(&|_| 30.0);
        assert!(flat.slope().abs() < 1e-9);
        // Scores narrower than the evaluations: below 1.
        let narrow = line(&|x| 0.8 * x);
        assert!((narrow.slope() - 0.8).abs() < 1e-9);
        assert_eq!(Sums::point(3.0, 4.0).slope(), 0.0);
        assert_eq!(Sums::default().slope(), 0.0);
    }
}
