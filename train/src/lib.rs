//! Lazuli's network trainer: reads self-play data, trains the float network of
//! `docs/network-format.md` and writes its quantised form.

#![forbid(unsafe_code)]

pub mod chess;
pub mod data;
pub mod rng;

pub use chess::{feature_index, Colour, Piece, PieceType};
