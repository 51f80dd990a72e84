//! Lazuli's network trainer: reads self-play data, trains the float network of
//! `docs/network-format.md` and writes its quantised form. `nnue::QuantisedNetwork::evaluate` is
//! the integer reference that the engine's inference must match exactly, and
//! `chess::feature_index` the input numbering both sides share.

#![forbid(unsafe_code)]

pub mod checkpoint;
pub mod chess;
pub mod cli;
pub mod data;
pub mod network;
pub mod nnue;
pub mod optimiser;
pub mod quantise;
pub mod trainer;
pub mod validate;

pub use chess::{feature_index, Colour, Piece};
pub use nnue::QuantisedNetwork;
