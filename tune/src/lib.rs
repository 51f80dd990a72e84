//! Texel tuning of the evaluation.
//!
//! The evaluation is made linear around a parameter set θ₀: for each position the midgame and
//! endgame totals (White's view, before the phase blend and the endgame scale) are recorded at θ₀
//! together with their partial derivatives with respect to every parameter that touches the
//! position (`coefficients`). The model of the evaluation at θ is then
//!
//! ```text
//! mg(θ) = mg₀ + Σ cᵢ·(θᵢ − θ₀ᵢ)       (the same for eg)
//! E(θ)  = (mg(θ)·phase + eg(θ)·scale/64·(24 − phase)) / 24
//! ```
//!
//! which is exact for every term but king danger (squared in the midgame); a tuning run therefore
//! re-linearises around the new parameters a few times (`rounds`). The error is the mean squared
//! difference between `σ(K·E)` and a target mixing the game result with the search score
//! (`optimizer`), minimised by Adam over the full-batch gradient; `writeback` prints the result as
//! `engine/src/eval/tuned.rs`.
#![forbid(unsafe_code)]

pub mod coefficients;
pub mod dataset;
pub mod optimizer;
pub mod tuner;
pub mod writeback;
