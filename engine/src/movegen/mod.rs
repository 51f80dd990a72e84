//! Move generation: attack tables, legal generation split by move kind, move validation, perft.

pub mod attacks;
mod checks;
mod generate;
mod legality;
mod list;
pub mod perft;

pub use checks::CheckInfo;
pub use generate::generate;
pub use list::{MoveCounter, MoveList, MAX_MOVES};

use crate::board::Position;

/// Every legal move.
#[inline]
pub fn legal_moves(pos: &Position) -> MoveList {
    let mut list = MoveList::new();
    generate::<_, true, true>(pos, &mut list);
    list
}

/// Legal captures, en-passant captures and promotions (quiet promotions included).
#[inline]
pub fn noisy_moves(pos: &Position, list: &mut MoveList) {
    generate::<_, true, false>(pos, list);
}

/// Legal moves that neither capture nor promote, castling included.
#[inline]
pub fn quiet_moves(pos: &Position, list: &mut MoveList) {
    generate::<_, false, true>(pos, list);
}

/// All legal replies to a check. Only meaningful when the side to move is in check.
#[inline]
pub fn evasions(pos: &Position, list: &mut MoveList) {
    debug_assert!(pos.in_check());
    generate::<_, true, true>(pos, list);
}

/// The number of legal moves, counted without storing them.
#[inline]
pub fn count_legal_moves(pos: &Position) -> u64 {
    let mut counter = MoveCounter::default();
    generate::<_, true, true>(pos, &mut counter);
    counter.0
}
