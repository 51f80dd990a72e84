//! Move-ordering statistics learned during search: butterfly (from-to) history, capture history,
//! continuation history (indexed by the previous move's piece and destination) and counter moves.
//! All use the "gravity" update, which keeps values within `±HISTORY_MAX`.

use super::params::{HISTORY_BONUS_MAX, HISTORY_BONUS_OFFSET, HISTORY_BONUS_SCALE, HISTORY_MAX};
use crate::board::{Color, Move, Piece, PieceType};

/// Bonus for a move that caused a cutoff at `depth` (and malus for those tried before it).
#[inline]
pub fn history_bonus(depth: i32) -> i32 {
    (HISTORY_BONUS_SCALE() * depth - HISTORY_BONUS_OFFSET()).clamp(0, HISTORY_BONUS_MAX())
}

#[inline]
fn apply(entry: &mut i16, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    let value = *entry as i32;
    *entry = (value + bonus - value * bonus.abs() / HISTORY_MAX) as i16;
}

/// One continuation-history table: for a previous (piece, to), a score per (piece, to).
pub type PieceToTable = [[i16; 64]; 12];

pub struct Histories {
    butterfly: [[i16; 64 * 64]; 2],
    capture: [[[i16; 6]; 64]; 12],
    continuation: Vec<PieceToTable>,
    counter_moves: [[Move; 64]; 12],
}

/// Identifies a previous move for continuation history: the piece that moved and where to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ContKey {
    pub piece: Piece,
    pub to: u8,
}

impl ContKey {
    #[inline]
    fn index(self) -> usize {
        self.piece.index() * 64 + self.to as usize
    }
}

impl Histories {
    pub fn new() -> Box<Histories> {
        Box::new(Histories {
            butterfly: [[0; 64 * 64]; 2],
            capture: [[[0; 6]; 64]; 12],
            continuation: vec![[[0; 64]; 12]; 12 * 64],
            counter_moves: [[Move::NULL; 64]; 12],
        })
    }

    pub fn clear(&mut self) {
        self.butterfly = [[0; 64 * 64]; 2];
        self.capture = [[[0; 6]; 64]; 12];
        for table in &mut self.continuation {
            *table = [[0; 64]; 12];
        }
        self.counter_moves = [[Move::NULL; 64]; 12];
    }

    #[inline]
    fn from_to(mv: Move) -> usize {
        mv.from().index() * 64 + mv.to().index()
    }

    #[inline]
    pub fn butterfly(&self, stm: Color, mv: Move) -> i32 {
        self.butterfly[stm.index()][Self::from_to(mv)] as i32
    }

    #[inline]
    pub fn update_butterfly(&mut self, stm: Color, mv: Move, bonus: i32) {
        apply(&mut self.butterfly[stm.index()][Self::from_to(mv)], bonus);
    }

    #[inline]
    pub fn capture(&self, piece: Piece, mv: Move, victim: PieceType) -> i32 {
        self.capture[piece.index()][mv.to().index()][victim.index()] as i32
    }

    #[inline]
    pub fn update_capture(&mut self, piece: Piece, mv: Move, victim: PieceType, bonus: i32) {
        apply(&mut self.capture[piece.index()][mv.to().index()][victim.index()], bonus);
    }

    #[inline]
    pub fn continuation(&self, key: Option<ContKey>, piece: Piece, mv: Move) -> i32 {
        match key {
            Some(k) => self.continuation[k.index()][piece.index()][mv.to().index()] as i32,
            None => 0,
        }
    }

    #[inline]
    pub fn update_continuation(&mut self, key: Option<ContKey>, piece: Piece, mv: Move, bonus: i32) {
        if let Some(k) = key {
            apply(&mut self.continuation[k.index()][piece.index()][mv.to().index()], bonus);
        }
    }

    #[inline]
    pub fn counter_move(&self, key: Option<ContKey>) -> Move {
        key.map_or(Move::NULL, |k| self.counter_moves[k.piece.index()][k.to as usize])
    }

    #[inline]
    pub fn set_counter_move(&mut self, key: Option<ContKey>, mv: Move) {
        if let Some(k) = key {
            self.counter_moves[k.piece.index()][k.to as usize] = mv;
        }
    }

    /// The combined quiet-move score used for ordering and for LMR and pruning decisions.
    #[inline]
    pub fn quiet_score(&self, stm: Color, piece: Piece, mv: Move, cont: [Option<ContKey>; 2]) -> i32 {
        self.butterfly(stm, mv)
            + self.continuation(cont[0], piece, mv)
            + self.continuation(cont[1], piece, mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravity_keeps_values_bounded() {
        let mut entry = 0i16;
        for _ in 0..1000 {
            apply(&mut entry, HISTORY_BONUS_MAX());
        }
        assert!(entry as i32 <= HISTORY_MAX && entry > 15_000);
        for _ in 0..1000 {
            apply(&mut entry, -HISTORY_BONUS_MAX());
        }
        assert!(entry as i32 >= -HISTORY_MAX && entry < -15_000);
    }
}
