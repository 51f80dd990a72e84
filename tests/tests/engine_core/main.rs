//! Integration tests of the chess core, one module per topic: perft suites, a differential test
//! against `shakmaty` over random playouts, FEN fuzzing, exhaustive move validation and the
//! move picker's perft.

#![forbid(unsafe_code)]

mod common;
mod differential;
mod fen_fuzz;
mod move_validation;
mod perft;
mod picker;
