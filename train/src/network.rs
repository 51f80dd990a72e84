//! The float network and its gradient: 768 → H (shared by both perspectives) → SCReLU → 1,
//! with B output buckets: B sets of output weights, of which the piece count picks one.
//!
//! All parameters live in one flat vector, so that the optimiser, the gradient reduction and the
//! checkpoint treat them alike:
//!
//! ```text
//! [ feature weights 768·H, feature-major | feature biases H | output weights B·2H | output biases B ]
//! ```
//!
//! Each bucket's output weights are the side to move's H, then the other side's H. The float
//! output × 400 is centipawns for the side to move (`SCALE`).

use crate::chess::{Colour, Piece, INPUTS, MAX_PIECES};
use crate::data::Entry;
use nnue_format::output_bucket;
use support::rng::Rng;

/// The float output × SCALE is centipawns for the side to move.
pub const SCALE: f32 = nnue_format::SCALE as f32;

/// The bound every weight is clipped to after each step, so that the quantised values fit i16.
pub const WEIGHT_CLIP: f32 = 1.98;
/// The tighter bound of the output weights, so that they quantise at QB 128.
pub const OUTPUT_WEIGHT_CLIP: f32 = nnue_format::output_weight_clip(nnue_format::QB);

#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    pub hidden: usize,
    /// Output buckets, 1 to `nnue_format::MAX_OUTPUT_BUCKETS`.
    pub buckets: usize,
    pub params: Vec<f32>,
}

impl Network {
    pub fn param_count(hidden: usize, buckets: usize) -> usize {
        INPUTS * hidden + hidden + buckets * (2 * hidden + 1)
    }

    pub fn zeroed(hidden: usize, buckets: usize) -> Network {
        Network { hidden, buckets, params: vec![0.0; Network::param_count(hidden, buckets)] }
    }

    /// Uniform weights of the usual size for each layer's fan-in (about 32 active inputs for the
    /// first, 2H for the second) and zero biases.
    pub fn random(hidden: usize, buckets: usize, rng: &mut Rng) -> Network {
        let mut net = Network::zeroed(hidden, buckets);
        let first = (3.0f32 / MAX_PIECES as f32).sqrt() * 0.5;
        let second = (3.0f32 / (2 * hidden) as f32).sqrt();
        net.params[..INPUTS * hidden].iter_mut().for_each(|w| *w = first * rng.symmetric());
        let start = INPUTS * hidden + hidden;
        let end = start + buckets * 2 * hidden;
        net.params[start..end].iter_mut().for_each(|w| *w = second * rng.symmetric());
        net
    }

    /// Where the output weights start; the output biases follow all buckets' weights.
    fn output_start(&self) -> usize {
        INPUTS * self.hidden + self.hidden
    }

    pub fn feature_weights(&self) -> &[f32] {
        &self.params[..INPUTS * self.hidden]
    }

    pub fn feature_biases(&self) -> &[f32] {
        let h = self.hidden;
        &self.params[INPUTS * h..INPUTS * h + h]
    }

    /// Every bucket's output weights, bucket after bucket.
    pub fn output_weights(&self) -> &[f32] {
        let start = self.output_start();
        &self.params[start..start + self.buckets * 2 * self.hidden]
    }

    /// One bias per bucket.
    pub fn output_biases(&self) -> &[f32] {
        &self.params[self.output_start() + self.buckets * 2 * self.hidden..]
    }

    /// Clips the output weights to `OUTPUT_WEIGHT_CLIP` (the optimiser clips every weight to the
    /// looser `WEIGHT_CLIP`).
    pub fn clip_output_weights(&mut self) {
        let start = self.output_start();
        let end = start + self.buckets * 2 * self.hidden;
        for w in &mut self.params[start..end] {
            *w = w.clamp(-OUTPUT_WEIGHT_CLIP, OUTPUT_WEIGHT_CLIP);
        }
    }

    /// The side to move's and the other side's output weights of `bucket`, and its bias.
    fn output_layer(&self, bucket: usize) -> (&[f32], &[f32], f32) {
        let h = self.hidden;
        let weights = &self.output_weights()[bucket * 2 * h..(bucket + 1) * 2 * h];
        (&weights[..h], &weights[h..], self.output_biases()[bucket])
    }

    /// The raw output for a position (× `SCALE` = centipawns, side to move's view).
    pub fn output(&self, pieces: &[Piece], stm: Colour) -> f32 {
        let us: Vec<u16> = pieces
            .iter()
            .map(|p| crate::chess::feature_index(stm, p.colour, p.kind, p.square) as u16)
            .collect();
        let them: Vec<u16> = pieces
            .iter()
            .map(|p| crate::chess::feature_index(stm.flip(), p.colour, p.kind, p.square) as u16)
            .collect();
        forward(self, &us, &them, &mut Scratch::new(self.hidden))
    }

    /// The output bucket of a position with `pieces` pieces on the board.
    pub fn bucket(&self, pieces: usize) -> usize {
        output_bucket(pieces, self.buckets)
    }
}

/// What the network is fitted to, and how the error is measured.
#[derive(Clone, Copy, Debug)]
pub struct Objective {
    /// λ: the weight of the game result in the target; the rest is the score's win probability.
    pub wdl: f32,
    /// The error's exponent: 2 is mean squared error.
    pub power: f32,
    /// Centipawns per unit of the sigmoid's argument (the eval scale K).
    pub k: f32,
}

impl Default for Objective {
    fn default() -> Self {
        Objective { wdl: 0.25, power: 2.0, k: 400.0 }
    }
}

impl Objective {
    pub fn target(&self, entry: &Entry) -> f32 {
        self.wdl * entry.result() + (1.0 - self.wdl) * sigmoid(f32::from(entry.score()) / self.k)
    }
}

/// The eval scale K (centipawns) at which the scores' win probability, sigmoid(score / K), best
/// predicts the game results (least squares over at most 2^20 evenly spread positions). With
/// this K the score and the result in a blended target agree on average, so the network's
/// centipawns stay on the scale of the scores it learned from.
pub fn fitted_eval_scale(data: &[Entry]) -> f32 {
    let step = data.len().div_ceil(1 << 20).max(1);
    let sample: Vec<&Entry> = data.iter().step_by(step).collect();
    let error = |k: f32| -> f64 {
        sample.iter().map(|e| f64::from(sigmoid(f32::from(e.score()) / k) - e.result()).powi(2)).sum::<f64>()
    };
    // Golden-section search on [20, 2000]: the error is unimodal in K.
    let ratio = (5f32.sqrt() - 1.0) / 2.0;
    let (mut low, mut high) = (20.0f32, 2000.0f32);
    while high - low > 0.5 {
        let a = high - ratio * (high - low);
        let b = low + ratio * (high - low);
        if error(a) < error(b) {
            high = b;
        } else {
            low = a;
        }
    }
    (low + high) / 2.0
}

pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Per-thread working vectors, allocated once.
pub struct Scratch {
    acc_us: Vec<f32>,
    acc_them: Vec<f32>,
    grad_us: Vec<f32>,
    grad_them: Vec<f32>,
}

impl Scratch {
    pub fn new(hidden: usize) -> Scratch {
        Scratch {
            acc_us: vec![0.0; hidden],
            acc_them: vec![0.0; hidden],
            grad_us: vec![0.0; hidden],
            grad_them: vec![0.0; hidden],
        }
    }
}

/// A gradient in the network's layout, with a record of which feature rows hold anything, so that
/// clearing and reducing cost only the rows a batch touched.
pub struct Gradients {
    pub values: Vec<f32>,
    touched: [u64; INPUTS / 64],
    hidden: usize,
}

impl Gradients {
    pub fn new(hidden: usize, buckets: usize) -> Gradients {
        Gradients {
            values: vec![0.0; Network::param_count(hidden, buckets)],
            touched: [0; INPUTS / 64],
            hidden,
        }
    }

    fn rows(&self) -> impl Iterator<Item = usize> + '_ {
        self.touched.iter().enumerate().flat_map(|(word, &bits)| {
            let mut bits = bits;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let bit = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    word * 64 + bit
                })
            })
        })
    }

    pub fn clear(&mut self) {
        let h = self.hidden;
        let rows: Vec<usize> = self.rows().collect();
        for row in rows {
            self.values[row * h..(row + 1) * h].fill(0.0);
        }
        self.touched = [0; INPUTS / 64];
        self.values[INPUTS * h..].fill(0.0);
    }

    /// Adds `other` into `self`.
    pub fn add(&mut self, other: &Gradients) {
        let h = self.hidden;
        for row in other.rows() {
            let range = row * h..(row + 1) * h;
            add_into(&mut self.values[range.clone()], &other.values[range]);
        }
        for (mine, theirs) in self.touched.iter_mut().zip(other.touched) {
            *mine |= theirs;
        }
        add_into(&mut self.values[INPUTS * h..], &other.values[INPUTS * h..]);
    }

    #[inline]
    fn add_row(&mut self, feature: usize, grad: &[f32]) {
        self.touched[feature / 64] |= 1 << (feature % 64);
        let h = self.hidden;
        add_into(&mut self.values[feature * h..(feature + 1) * h], grad);
    }
}

#[inline]
fn add_into(dst: &mut [f32], src: &[f32]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d += s;
    }
}

/// Σ clamp(a, 0, 1)² · w, in eight lanes so that it vectorises.
#[inline]
fn screlu_dot(acc: &[f32], weights: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let (acc8, acc_rest) = acc.split_at(acc.len() / 8 * 8);
    let (w8, w_rest) = weights.split_at(acc8.len());
    for (a, w) in acc8.chunks_exact(8).zip(w8.chunks_exact(8)) {
        for i in 0..8 {
            let c = a[i].clamp(0.0, 1.0);
            lanes[i] += c * c * w[i];
        }
    }
    let rest: f32 = acc_rest.iter().zip(w_rest).map(|(a, w)| a.clamp(0.0, 1.0).powi(2) * w).sum();
    lanes.iter().sum::<f32>() + rest
}

fn accumulate(net: &Network, features: &[u16], acc: &mut [f32]) {
    let h = net.hidden;
    acc.copy_from_slice(net.feature_biases());
    let weights = net.feature_weights();
    for &f in features {
        let f = usize::from(f);
        add_into(acc, &weights[f * h..(f + 1) * h]);
    }
}

/// The raw output; leaves both accumulators in `scratch` for the backward pass. The bucket
/// follows from the piece count, which is the number of features a perspective has.
fn forward(net: &Network, us: &[u16], them: &[u16], scratch: &mut Scratch) -> f32 {
    accumulate(net, us, &mut scratch.acc_us);
    accumulate(net, them, &mut scratch.acc_them);
    let (w_us, w_them, bias) = net.output_layer(net.bucket(us.len()));
    screlu_dot(&scratch.acc_us, w_us) + screlu_dot(&scratch.acc_them, w_them) + bias
}

/// One perspective's share of the backward pass: the output weights' gradient, and the gradient
/// at its accumulator (zero where SCReLU is flat, below 0 and above 1).
#[inline]
fn backprop_side(acc: &[f32], out_w: &[f32], g_out_w: &mut [f32], grad: &mut [f32], d_out: f32) {
    for (((&a, &w), gw), g) in acc.iter().zip(out_w).zip(g_out_w.iter_mut()).zip(grad.iter_mut()) {
        let c = a.clamp(0.0, 1.0);
        *gw += d_out * c * c;
        *g = if a < 1.0 { 2.0 * c * d_out * w } else { 0.0 };
    }
}

/// |diff|^power and its derivative, with the common square done without `powf`.
#[inline]
fn error(diff: f32, power: f32) -> (f32, f32) {
    if power == 2.0 {
        (diff * diff, 2.0 * diff)
    } else {
        let a = diff.abs();
        (a.powf(power), power * a.powf(power - 1.0) * diff.signum())
    }
}

/// The error of one position, without its gradient.
pub fn loss(net: &Network, entry: &Entry, objective: &Objective, scratch: &mut Scratch) -> f32 {
    let (mut us, mut them) = ([0u16; MAX_PIECES], [0u16; MAX_PIECES]);
    let n = entry.features(&mut us, &mut them);
    let out = forward(net, &us[..n], &them[..n], scratch);
    loss_of_eval(out * SCALE, entry, objective)
}

/// The error of an evaluation in centipawns (side to move's view) of `entry`: how the float
/// network's and the quantised network's verdicts are compared on the same footing.
pub fn loss_of_eval(centipawns: f32, entry: &Entry, objective: &Objective) -> f32 {
    let p = sigmoid(centipawns / objective.k);
    error(p - objective.target(entry), objective.power).0
}

/// The error of one position; adds its gradient times `weight` (1 / batch size) into `grads`.
pub fn backward(
    net: &Network,
    entry: &Entry,
    objective: &Objective,
    weight: f32,
    scratch: &mut Scratch,
    grads: &mut Gradients,
) -> f32 {
    let h = net.hidden;
    let (mut us, mut them) = ([0u16; MAX_PIECES], [0u16; MAX_PIECES]);
    let n = entry.features(&mut us, &mut them);
    let out = forward(net, &us[..n], &them[..n], scratch);
    let slope = SCALE / objective.k;
    let p = sigmoid(out * slope);
    let diff = p - objective.target(entry);
    if diff == 0.0 {
        return 0.0;
    }
    let (loss, d_p) = error(diff, objective.power);
    let d_out = d_p * p * (1.0 - p) * slope * weight;

    let bucket = net.bucket(n);
    let (w_us, w_them, _) = net.output_layer(bucket);
    let (ft_b, rest) = grads.values[INPUTS * h..].split_at_mut(h);
    let (g_out_w, g_out_b) = rest.split_at_mut(net.buckets * 2 * h);
    g_out_b[bucket] += d_out;
    let (g_us, g_them) = g_out_w[bucket * 2 * h..(bucket + 1) * 2 * h].split_at_mut(h);
    backprop_side(&scratch.acc_us, w_us, g_us, &mut scratch.grad_us, d_out);
    backprop_side(&scratch.acc_them, w_them, g_them, &mut scratch.grad_them, d_out);
    for ((b, us), them) in ft_b.iter_mut().zip(&scratch.grad_us).zip(&scratch.grad_them) {
        *b += us + them;
    }
    for &f in &us[..n] {
        grads.add_row(usize::from(f), &scratch.grad_us);
    }
    for &f in &them[..n] {
        grads.add_row(usize::from(f), &scratch.grad_them);
    }
    loss
}

#[cfg(test)]
pub(crate) mod tests;
