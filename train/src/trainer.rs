//! The training loop: shuffled mini-batches, each split across the rayon threads with a gradient
//! buffer per thread, reduced into one and handed to AdamW.

use crate::data::Entry;
use crate::network::{self, Gradients, Network, Objective, Scratch};
use crate::optimiser::{AdamW, Schedule};
use rayon::prelude::*;
use std::time::Instant;
use support::rng::Rng;

#[derive(Clone, Debug)]
pub struct Settings {
    pub epochs: u32,
    pub batch: usize,
    pub lr: f32,
    pub schedule: Schedule,
    pub objective: Objective,
    /// Each epoch, every position is trained on in a random one of its two file orientations.
    pub mirror: bool,
}

/// The top bit of an index in the shuffled order: train on the mirrored position.
const MIRRORED: u32 = 1 << 31;

/// Everything a run carries from one epoch to the next (what a checkpoint stores).
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub net: Network,
    pub optimiser: AdamW,
    /// Epochs completed.
    pub epoch: u32,
    pub rng: Rng,
}

impl State {
    pub fn new(hidden: usize, buckets: usize, weight_decay: f32, seed: u64) -> State {
        let mut rng = Rng::new(seed);
        let net = Network::random(hidden, buckets, &mut rng);
        let optimiser = AdamW::new(net.params.len(), weight_decay);
        State { net, optimiser, epoch: 0, rng }
    }

    /// A fresh run (epoch 0, new optimiser moments) whose weights start as `net`'s.
    pub fn starting_from(net: Network, weight_decay: f32, seed: u64) -> State {
        let optimiser = AdamW::new(net.params.len(), weight_decay);
        State { net, optimiser, epoch: 0, rng: Rng::new(seed) }
    }
}

/// What one epoch did.
#[derive(Clone, Debug)]
pub struct EpochReport {
    /// From 1.
    pub epoch: u32,
    pub train_loss: f64,
    pub valid_loss: Option<f64>,
    pub lr: f32,
    pub positions_per_second: f64,
    pub seconds: f64,
}

struct Worker {
    grads: Gradients,
    scratch: Scratch,
}

pub struct Trainer {
    pub state: State,
    workers: Vec<Worker>,
}

impl Trainer {
    pub fn new(state: State) -> Trainer {
        let (h, b) = (state.net.hidden, state.net.buckets);
        let workers = (0..rayon::current_num_threads().max(1))
            .map(|_| Worker { grads: Gradients::new(h, b), scratch: Scratch::new(h) })
            .collect();
        Trainer { state, workers }
    }

    /// One optimiser step on `batch` (indices into `data`); returns the batch's summed error.
    pub fn step(&mut self, data: &[Entry], batch: &[u32], objective: &Objective, lr: f32) -> f64 {
        if batch.is_empty() {
            return 0.0;
        }
        let net = &self.state.net;
        let weight = 1.0 / batch.len() as f32;
        let chunk = batch.len().div_ceil(self.workers.len());
        let used = batch.len().div_ceil(chunk);
        let loss: f64 = self.workers[..used]
            .par_iter_mut()
            .zip(batch.par_chunks(chunk))
            .map(|(worker, indices)| {
                worker.grads.clear();
                let mut sum = 0.0f64;
                for &i in indices {
                    let entry = data[(i & !MIRRORED) as usize];
                    let entry = if i & MIRRORED != 0 { entry.mirrored() } else { entry };
                    let l = network::backward(
                        net,
                        &entry,
                        objective,
                        weight,
                        &mut worker.scratch,
                        &mut worker.grads,
                    );
                    sum += f64::from(l);
                }
                sum
            })
            .sum();
        let (first, rest) = self.workers.split_at_mut(1);
        for other in &rest[..used - 1] {
            first[0].grads.add(&other.grads);
        }
        self.state.optimiser.step(&mut self.state.net.params, &first[0].grads.values, lr);
        self.state.net.clip_output_weights();
        loss
    }

    /// The mean error over `data`, in parallel.
    pub fn mean_loss(&self, data: &[Entry], objective: &Objective) -> f64 {
        if data.is_empty() {
            return 0.0;
        }
        let net = &self.state.net;
        let sum: f64 = data
            .par_chunks(4096)
            .map_init(
                || Scratch::new(net.hidden),
                |scratch, chunk| {
                    chunk.iter().map(|e| f64::from(network::loss(net, e, objective, scratch))).sum::<f64>()
                },
            )
            .sum();
        sum / data.len() as f64
    }

    /// Trains from the state's epoch up to `settings.epochs`. After each epoch, `after_epoch`
    /// gets the report and the state (to print, checkpoint and quantise); an error it returns
    /// stops the run.
    pub fn run(
        &mut self,
        train: &[Entry],
        valid: &[Entry],
        settings: &Settings,
        after_epoch: &mut dyn FnMut(&EpochReport, &State) -> Result<(), String>,
    ) -> Result<(), String> {
        if train.is_empty() {
            return Err("no training positions".into());
        }
        let count = u32::try_from(train.len())
            .ok()
            .filter(|&n| n < MIRRORED)
            .ok_or("more than 2^31 training positions")?;
        let mut order: Vec<u32> = Vec::with_capacity(train.len());
        let batches = train.len().div_ceil(settings.batch);
        while self.state.epoch < settings.epochs {
            let epoch = self.state.epoch;
            let clock = Instant::now();
            order.clear();
            order.extend(0..count);
            self.state.rng.shuffle(&mut order);
            if settings.mirror {
                for chunk in order.chunks_mut(64) {
                    let bits = self.state.rng.next_u64();
                    for (n, i) in chunk.iter_mut().enumerate() {
                        *i |= ((bits >> n) as u32 & 1) << 31;
                    }
                }
            }
            let mut sum = 0.0;
            let mut lr = settings.lr;
            for (b, batch) in order.chunks(settings.batch).enumerate() {
                lr = settings.schedule.rate(settings.lr, epoch, b as f32 / batches as f32, settings.epochs);
                sum += self.step(train, batch, &settings.objective, lr);
            }
            let train_seconds = clock.elapsed().as_secs_f64();
            let valid_loss = (!valid.is_empty()).then(|| self.mean_loss(valid, &settings.objective));
            self.state.epoch += 1;
            let report = EpochReport {
                epoch: self.state.epoch,
                train_loss: sum / train.len() as f64,
                valid_loss,
                lr,
                positions_per_second: train.len() as f64 / train_seconds.max(1e-9),
                seconds: clock.elapsed().as_secs_f64(),
            };
            after_epoch(&report, &self.state)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint;
    use crate::network::tests::material_data;

    #[test]
    fn a_resumed_run_ends_where_an_unbroken_one_does() {
        let data = material_data(1500, 8);
        let (train, valid) = data.split_at(1400);
        let settings = Settings {
            epochs: 3,
            batch: 100,
            lr: 0.01,
            schedule: Schedule::Cosine { floor: 0.1 },
            objective: Objective::default(),
            mirror: false,
        };
        let mut unbroken = Trainer::new(State::new(8, 4, 0.01, 4));
        let mut valid_losses = Vec::new();
        unbroken
            .run(train, valid, &settings, &mut |r, _| {
                valid_losses.push(r.valid_loss.expect("a validation set"));
                Ok(())
            })
            .unwrap();

        // The same run, stopped after its first checkpoint as if killed, then resumed from it.
        let mut first = Trainer::new(State::new(8, 4, 0.01, 4));
        let mut saved = Vec::new();
        let stopped = first.run(train, valid, &settings, &mut |_, state| {
            saved = checkpoint::to_bytes(state);
            Err("stop".into())
        });
        assert!(stopped.is_err());
        let saved = checkpoint::from_bytes(&saved).unwrap();
        assert_eq!(saved.epoch, 1);
        let mut resumed = Trainer::new(saved);
        let mut epochs = Vec::new();
        resumed
            .run(train, valid, &settings, &mut |r, _| {
                epochs.push(r.epoch);
                Ok(())
            })
            .unwrap();
        assert_eq!(epochs, [2, 3]);
        // Bit for bit (`assert!` rather than `assert_eq!`: the states are too long to print).
        assert!(resumed.state == unbroken.state);
        assert!(valid_losses[2] < valid_losses[0], "{valid_losses:?}");
    }

    #[test]
    fn a_step_keeps_output_weights_within_their_tighter_clip() {
        use crate::network::{OUTPUT_WEIGHT_CLIP, WEIGHT_CLIP};
        let data = material_data(64, 5);
        let indices: Vec<u32> = (0..64).collect();
        let mut trainer = Trainer::new(State::new(8, 2, 0.0, 3));
        for _ in 0..20 {
            // A rate far too large: every weight is driven to its clip.
            trainer.step(&data, &indices, &Objective::default(), 5.0);
        }
        let net = &trainer.state.net;
        let largest = |w: &[f32]| w.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        assert!(largest(net.output_weights()) <= OUTPUT_WEIGHT_CLIP);
        assert!(largest(net.output_weights()) > 0.9 * OUTPUT_WEIGHT_CLIP, "the clip was reached");
        assert!(
            largest(net.feature_weights()) > OUTPUT_WEIGHT_CLIP
                && largest(net.feature_weights()) <= WEIGHT_CLIP
        );
        assert_eq!(crate::nnue::QuantisedNetwork::from_float(net).qb, 128);
    }

    #[test]
    fn a_mirrored_index_trains_on_the_mirrored_position() {
        let data = material_data(2, 3);
        let settings = Objective::default();
        let mut marked = Trainer::new(State::new(4, 1, 0.01, 7));
        marked.step(&data, &[MIRRORED, 1], &settings, 0.01);
        let flipped = [data[0].mirrored(), data[1]];
        let mut plain = Trainer::new(State::new(4, 1, 0.01, 7));
        plain.step(&flipped, &[0, 1], &settings, 0.01);
        assert!(marked.state == plain.state);
        let mut unmarked = Trainer::new(State::new(4, 1, 0.01, 7));
        unmarked.step(&data, &[0, 1], &settings, 0.01);
        assert!(unmarked.state != plain.state, "the mirrored position must train differently");
    }

    #[test]
    fn an_error_after_an_epoch_stops_the_run() {
        let data = material_data(300, 1);
        let settings = Settings {
            epochs: 5,
            batch: 64,
            lr: 0.001,
            schedule: Schedule::Step { every: 1, gamma: 0.5 },
            objective: Objective::default(),
            mirror: false,
        };
        let mut trainer = Trainer::new(State::new(4, 1, 0.0, 1));
        let err = trainer.run(&data, &[], &settings, &mut |r, _| {
            if r.epoch == 2 {
                Err("disk full".into())
            } else {
                Ok(())
            }
        });
        assert_eq!(err, Err("disk full".to_string()));
        assert_eq!(trainer.state.epoch, 2);
        assert!(trainer.run(&[], &[], &settings, &mut |_, _| Ok(())).is_err());
    }
}
