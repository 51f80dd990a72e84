//! The board: squares, bitboards, pieces, moves, `Position` and FEN.

mod bitboard;
mod chess_move;
pub mod fen;
mod history;
mod position;
mod types;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use chess_move::Move;
pub use fen::{FenError, STARTPOS};
pub use history::Board;
pub use position::{castling_index, Position};
pub use types::{Color, Piece, PieceType, Square};
