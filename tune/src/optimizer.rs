//! The Texel error, the fit of the scaling constant K, and Adam over the full-batch gradient.

use crate::coefficients::Linearised;
use rayon::prelude::*;

/// A linearised position with its labels.
#[derive(Clone, Debug)]
pub struct Sample {
    pub linear: Linearised,
    /// Search score in centipawns, White's view.
    pub score: f32,
    /// Game result for White.
    pub result: f32,
}

/// How a target mixes the game result with the search score: `lambda·result + (1 −
/// lambda)·σ(K·score)`.
#[derive(Clone, Copy, Debug)]
pub struct Objective {
    pub k: f64,
    pub lambda: f64,
}

/// The expected score of an evaluation in centipawns: `1 / (1 + 10^(−K·e/400))`.
#[inline]
pub fn sigmoid(k: f64, e: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * e / 400.0))
}

impl Objective {
    #[inline]
    pub fn target(&self, sample: &Sample) -> f64 {
        self.target_of(sample.result, sample.score)
    }

    /// The target of a game result and a search score (centipawns, White's view).
    #[inline]
    pub fn target_of(&self, result: f32, score: f32) -> f64 {
        self.lambda * result as f64 + (1.0 - self.lambda) * sigmoid(self.k, score as f64)
    }

    /// Mean squared error of the modelled evaluation at `delta`.
    pub fn error(&self, samples: &[Sample], delta: &[f64]) -> f64 {
        if samples.is_empty() {
            return 0.0;
        }
        let sum: f64 = samples
            .par_iter()
            .map(|s| {
                let diff = sigmoid(self.k, s.linear.eval(delta)) - self.target(s);
                diff * diff
            })
            .sum();
        sum / samples.len() as f64
    }

    /// The gradient of `error` with respect to `delta` (interleaved mg, eg).
    pub fn gradient(&self, samples: &[Sample], delta: &[f64]) -> Vec<f64> {
        let len = delta.len();
        let ln10 = std::f64::consts::LN_10;
        let mut grad = samples
            .par_chunks(4096)
            .map(|chunk| {
                let mut local = vec![0.0; len];
                for s in chunk {
                    let e = s.linear.eval(delta);
                    let p = sigmoid(self.k, e);
                    let g = 2.0 * (p - self.target(s)) * p * (1.0 - p) * self.k * ln10 / 400.0;
                    let (wmg, weg) = s.linear.blend_weights();
                    let (gmg, geg) = (g * wmg, g * weg);
                    for c in s.linear.coefficients.iter() {
                        let i = 2 * c.index as usize;
                        local[i] += gmg * c.mg as f64;
                        local[i + 1] += geg * c.eg as f64;
                    }
                }
                local
            })
            .reduce(
                || vec![0.0; len],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        let n = samples.len().max(1) as f64;
        grad.iter_mut().for_each(|g| *g /= n);
        grad
    }
}

/// The K that minimises the error of the evaluation against game results alone (the classic
/// Texel fit), by golden-section search over [0.05, 5].
pub fn fit_k(samples: &[Sample], delta: &[f64]) -> f64 {
    let error = |k: f64| Objective { k, lambda: 1.0 }.error(samples, delta);
    let (mut lo, mut hi) = (0.05f64, 5.0f64);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let mut a = hi - ratio * (hi - lo);
    let mut b = lo + ratio * (hi - lo);
    let (mut fa, mut fb) = (error(a), error(b));
    while hi - lo > 1e-4 {
        if fa < fb {
            hi = b;
            b = a;
            fb = fa;
            a = hi - ratio * (hi - lo);
            fa = error(a);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + ratio * (hi - lo);
            fb = error(b);
        }
    }
    (lo + hi) / 2.0
}

/// Adam (Kingma and Ba, 2015) with the usual constants.
pub struct Adam {
    pub rate: f64,
    m: Vec<f64>,
    v: Vec<f64>,
    t: i32,
}

impl Adam {
    pub fn new(len: usize, rate: f64) -> Adam {
        Adam { rate, m: vec![0.0; len], v: vec![0.0; len], t: 0 }
    }

    pub fn step(&mut self, delta: &mut [f64], grad: &[f64]) {
        const BETA1: f64 = 0.9;
        const BETA2: f64 = 0.999;
        const EPSILON: f64 = 1e-8;
        self.t += 1;
        let c1 = 1.0 - BETA1.powi(self.t);
        let c2 = 1.0 - BETA2.powi(self.t);
        for i in 0..delta.len() {
            self.m[i] = BETA1 * self.m[i] + (1.0 - BETA1) * grad[i];
            self.v[i] = BETA2 * self.v[i] + (1.0 - BETA2) * grad[i] * grad[i];
            let m = self.m[i] / c1;
            let v = self.v[i] / c2;
            delta[i] -= self.rate * m / (v.sqrt() + EPSILON);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coefficients::Coefficient;

    fn sample(mg: f32, coefficient: f32, result: f32) -> Sample {
        Sample {
            linear: Linearised {
                mg,
                eg: mg,
                phase: 24,
                scale: 64,
                coefficients: vec![Coefficient { index: 0, mg: coefficient, eg: coefficient }].into(),
            },
            score: 0.0,
            result,
        }
    }

    /// The analytic gradient agrees with finite differences of the error.
    #[test]
    fn gradient_matches_finite_differences() {
        let samples = vec![sample(50.0, 1.0, 1.0), sample(-20.0, -1.0, 0.5), sample(10.0, 2.0, 0.0)];
        let objective = Objective { k: 1.1, lambda: 1.0 };
        let delta = vec![3.0, -2.0];
        let grad = objective.gradient(&samples, &delta);
        for i in 0..2 {
            let h = 1e-4;
            let mut up = delta.clone();
            up[i] += h;
            let mut down = delta.clone();
            down[i] -= h;
            let numeric = (objective.error(&samples, &up) - objective.error(&samples, &down)) / (2.0 * h);
            assert!((numeric - grad[i]).abs() < 1e-9, "{i}: {numeric} vs {}", grad[i]);
        }
    }

    /// Adam drives a parameter towards the value that explains the results.
    #[test]
    fn adam_lowers_the_error() {
        // A parameter worth +100 in positions White won and -100 where Black won, starting at 0.
        let samples: Vec<Sample> = (0..200)
            .map(|i| if i % 2 == 0 { sample(0.0, 1.0, 0.9) } else { sample(0.0, -1.0, 0.1) })
            .collect();
        let objective = Objective { k: 1.0, lambda: 1.0 };
        let mut delta = vec![0.0, 0.0];
        let before = objective.error(&samples, &delta);
        let mut adam = Adam::new(2, 2.0);
        for _ in 0..3000 {
            let grad = objective.gradient(&samples, &delta);
            adam.step(&mut delta, &grad);
        }
        assert!(objective.error(&samples, &delta) < before / 10.0);
        // σ(x) = 0.9 at x = 400·log10(9) ≈ 381.7.
        assert!((delta[0] - 381.7).abs() < 5.0, "{delta:?}");
    }

    #[test]
    fn k_fit_finds_the_generating_constant() {
        // Results drawn as the expected score of K = 1.3 at a spread of evaluations.
        let samples: Vec<Sample> = (-40..=40)
            .flat_map(|e| {
                let p = sigmoid(1.3, e as f64 * 10.0);
                let wins = (p * 100.0).round() as usize;
                (0..100).map(move |j| sample(e as f32 * 10.0, 0.0, if j < wins { 1.0 } else { 0.0 }))
            })
            .collect();
        let k = fit_k(&samples, &[0.0, 0.0]);
        assert!((k - 1.3).abs() < 0.05, "{k}");
    }
}
