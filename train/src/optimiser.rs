//! AdamW with decoupled weight decay, the learning-rate schedule, and the clip that keeps every
//! weight quantisable.

use crate::network::WEIGHT_CLIP;
use rayon::prelude::*;

pub const BETA1: f32 = 0.9;
pub const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;
/// Parameters per parallel task in the update: large enough to amortise the task.
const UPDATE_CHUNK: usize = 1 << 14;

#[derive(Clone, Debug, PartialEq)]
pub struct AdamW {
    pub weight_decay: f32,
    /// Steps taken so far (for the bias correction).
    pub steps: u64,
    pub momentum: Vec<f32>,
    pub velocity: Vec<f32>,
}

impl AdamW {
    pub fn new(params: usize, weight_decay: f32) -> AdamW {
        AdamW { weight_decay, steps: 0, momentum: vec![0.0; params], velocity: vec![0.0; params] }
    }

    /// One step on every parameter. Rows that no position of the batch touched have a zero
    /// gradient but still move by their momentum, as Adam prescribes.
    pub fn step(&mut self, params: &mut [f32], grads: &[f32], lr: f32) {
        self.steps += 1;
        let t = self.steps.min(i32::MAX as u64) as i32;
        let correct1 = 1.0 / (1.0 - BETA1.powi(t));
        let correct2 = 1.0 / (1.0 - BETA2.powi(t));
        let decay = lr * self.weight_decay;
        params
            .par_chunks_mut(UPDATE_CHUNK)
            .zip(grads.par_chunks(UPDATE_CHUNK))
            .zip(self.momentum.par_chunks_mut(UPDATE_CHUNK))
            .zip(self.velocity.par_chunks_mut(UPDATE_CHUNK))
            .for_each(|(((w, g), m), v)| {
                for i in 0..w.len() {
                    m[i] = BETA1 * m[i] + (1.0 - BETA1) * g[i];
                    v[i] = BETA2 * v[i] + (1.0 - BETA2) * g[i] * g[i];
                    let update = (m[i] * correct1) / ((v[i] * correct2).sqrt() + EPSILON);
                    w[i] = (w[i] - lr * update - decay * w[i]).clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
                }
            });
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Schedule {
    /// × `gamma` after every `every` epochs.
    Step { every: u32, gamma: f32 },
    /// Half a cosine from the start rate down to `floor` × the start rate over the whole run.
    Cosine { floor: f32 },
}

impl Schedule {
    /// The rate at `epoch` (from 0), `progress` of the way through it, in a run of `epochs`.
    pub fn rate(&self, start: f32, epoch: u32, progress: f32, epochs: u32) -> f32 {
        match *self {
            Schedule::Step { every, gamma } => start * gamma.powi((epoch / every.max(1)) as i32),
            Schedule::Cosine { floor } => {
                let x = ((epoch as f32 + progress) / epochs.max(1) as f32).clamp(0.0, 1.0);
                let low = start * floor;
                low + (start - low) * 0.5 * (1.0 + (std::f32::consts::PI * x).cos())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules() {
        let step = Schedule::Step { every: 3, gamma: 0.3 };
        assert_eq!(step.rate(1.0, 0, 0.5, 10), 1.0);
        assert_eq!(step.rate(1.0, 2, 0.9, 10), 1.0);
        assert!((step.rate(1.0, 3, 0.0, 10) - 0.3).abs() < 1e-6);
        assert!((step.rate(1.0, 7, 0.0, 10) - 0.09).abs() < 1e-6);
        let cosine = Schedule::Cosine { floor: 0.01 };
        assert!((cosine.rate(1.0, 0, 0.0, 10) - 1.0).abs() < 1e-6);
        assert!((cosine.rate(1.0, 5, 0.0, 10) - 0.505).abs() < 1e-6);
        assert!((cosine.rate(1.0, 9, 1.0, 10) - 0.01).abs() < 1e-6);
    }

    #[test]
    fn adamw_moves_against_the_gradient_and_clips() {
        let mut opt = AdamW::new(3, 0.0);
        let mut w = vec![0.0, 1.979, -0.5];
        opt.step(&mut w, &[1.0, -1.0, 0.0], 0.01);
        // The first bias-corrected step is lr · sign(g).
        assert!((w[0] + 0.01).abs() < 1e-5);
        assert_eq!(w[1], WEIGHT_CLIP);
        assert_eq!(w[2], -0.5);
        let mut decayed = AdamW::new(1, 0.5);
        let mut x = vec![1.0];
        decayed.step(&mut x, &[0.0], 0.1);
        assert!((x[0] - 0.95).abs() < 1e-6);
    }
}
