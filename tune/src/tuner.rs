//! The tuning loop: linearise, fit K, Adam rounds, real-evaluation errors before and after.

use crate::coefficients::Layout;
use crate::dataset::Labelled;
use crate::optimizer::{fit_k, sigmoid, Adam, Objective, Sample};
use crate::writeback;
use engine::eval::{evaluate_uncached, Params};
use rayon::prelude::*;
use std::time::Instant;

/// The knobs of a run (docs/tuning.md says what each does).
#[derive(Clone, Debug)]
pub struct Settings {
    pub rounds: usize,
    pub epochs: usize,
    pub rate: f64,
    pub lambda: f64,
    pub l2: f64,
    pub min_positions: usize,
}

/// What a run found.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub params: Params,
    pub k: f64,
    /// Error of the real evaluation (training, held out) before and after.
    pub before: (f64, f64),
    pub after: (f64, f64),
    pub frozen: usize,
}

/// Linearises every position around `params`; dead draws are dropped.
pub fn linearise(positions: &[Labelled], params: &Params) -> Vec<Sample> {
    let layout = Layout::new(params);
    positions
        .par_iter()
        .map_init(
            || params.clone(),
            |scratch, entry| {
                layout.linearise(&entry.position, params, scratch).map(|linear| Sample {
                    linear,
                    score: entry.score,
                    result: entry.result,
                })
            },
        )
        .flatten()
        .collect()
}

/// The error of the engine's real (integer) evaluation, not the model.
pub fn true_error(positions: &[Labelled], params: &Params, objective: Objective) -> f64 {
    let sum: f64 = positions
        .par_iter()
        .map(|entry| {
            let stm = evaluate_uncached(&entry.position, params) as f64;
            let white = stm * entry.position.side_to_move().sign() as f64;
            let diff = sigmoid(objective.k, white) - objective.target_of(entry.result, entry.score);
            diff * diff
        })
        .sum();
    sum / positions.len().max(1) as f64
}

/// Distance of `params` from `start`, interleaved mg, eg.
fn offset_from(params: &Params, start: &Params) -> Vec<f64> {
    (0..params.len())
        .flat_map(|i| {
            let (now, then) = (params.get(i).expect("in range"), start.get(i).expect("in range"));
            [(now.mg() - then.mg()) as f64, (now.eg() - then.eg()) as f64]
        })
        .collect()
}

/// Tunes `start` on `train`, reporting progress through `log`.
pub fn tune(
    train: &[Labelled],
    valid: &[Labelled],
    start: &Params,
    settings: &Settings,
    log: &mut dyn FnMut(String),
) -> Outcome {
    let mut params = start.clone();
    let len = params.len();
    let mut objective = Objective { k: 1.0, lambda: settings.lambda };
    let mut before = (0.0, 0.0);
    let mut frozen_count = 0;
    for round in 0..settings.rounds {
        let clock = Instant::now();
        let samples = linearise(train, &params);
        let coefficients: usize = samples.iter().map(|s| s.linear.coefficients.len()).sum();
        log(format!(
            "round {}: linearised {} positions ({:.1} coefficients each) in {:.1} s",
            round + 1,
            samples.len(),
            coefficients as f64 / samples.len().max(1) as f64,
            clock.elapsed().as_secs_f64()
        ));
        // Weights too few positions touch are left alone: Adam's normalised steps would
        // otherwise move them as far as the common ones on almost no evidence.
        let mut touched = vec![0usize; len];
        for sample in &samples {
            for c in sample.linear.coefficients.iter() {
                touched[c.index as usize] += 1;
            }
        }
        let frozen: Vec<bool> = touched.iter().map(|&n| n < settings.min_positions).collect();
        frozen_count = frozen.iter().filter(|&&f| f).count();
        let offset = offset_from(&params, start);
        let mut delta = vec![0.0; 2 * len];
        if round == 0 {
            objective.k = fit_k(&samples, &delta);
            before = (true_error(train, &params, objective), true_error(valid, &params, objective));
            log(format!(
                "K = {:.4}; {frozen_count} of {len} weights frozen (seen in fewer than {} positions); \
                 error before: train {:.6}, held out {:.6}",
                objective.k, settings.min_positions, before.0, before.1
            ));
        }
        let mut adam = Adam::new(2 * len, settings.rate / (1u64 << round.min(30)) as f64);
        for epoch in 1..=settings.epochs {
            let mut grad = objective.gradient(&samples, &delta);
            for (i, g) in grad.iter_mut().enumerate() {
                *g = if frozen[i / 2] { 0.0 } else { *g + 2.0 * settings.l2 * (offset[i] + delta[i]) };
            }
            adam.step(&mut delta, &grad);
            if epoch % 100 == 0 || epoch == settings.epochs {
                log(format!("  epoch {epoch}: model error {:.6}", objective.error(&samples, &delta)));
            }
        }
        params = writeback::apply(&params, &delta);
        log(format!(
            "round {} done in {:.1} s: error train {:.6}, held out {:.6}",
            round + 1,
            clock.elapsed().as_secs_f64(),
            true_error(train, &params, objective),
            true_error(valid, &params, objective)
        ));
    }
    let after = (true_error(train, &params, objective), true_error(valid, &params, objective));
    Outcome { params, k: objective.k, before, after, frozen: frozen_count }
}
