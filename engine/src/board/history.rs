//! `Board`: the current position plus every position that led to it, for unmaking moves and for
//! detecting repetitions.

use super::{Move, Position};

#[derive(Clone, Debug)]
pub struct Board {
    /// `stack[0]` is the root of the game record; the last entry is the current position.
    stack: Vec<Position>,
}

impl Board {
    pub fn new(root: Position) -> Board {
        let mut stack = Vec::with_capacity(512);
        stack.push(root);
        Board { stack }
    }

    #[inline]
    pub fn position(&self) -> &Position {
        self.stack.last().expect("a board always holds its root")
    }

    /// Plies played since the root of the record.
    #[inline]
    pub fn plies(&self) -> usize {
        self.stack.len() - 1
    }

    #[inline]
    pub fn make_move(&mut self, mv: Move) {
        let mut next = *self.position();
        next.make_move(mv);
        self.stack.push(next);
    }

    #[inline]
    pub fn make_null_move(&mut self) {
        let mut next = *self.position();
        next.make_null_move();
        self.stack.push(next);
    }

    /// Take back the last move (or null move). The root is never removed.
    #[inline]
    pub fn unmake(&mut self) {
        if self.stack.len() > 1 {
            self.stack.pop();
        }
    }

    /// How often the current position occurred before, within the reach of the halfmove clock
    /// (positions across a capture, pawn move or castling-right change cannot repeat).
    /// `within` limits the count to repeats among the last `within` plies (0 = the whole record).
    pub fn repetitions(&self, within: usize) -> usize {
        let current = self.position();
        let reach = (current.halfmove_clock() as usize).min(self.plies());
        let limit = if within == 0 { reach } else { reach.min(within) };
        let n = self.stack.len() - 1;
        (4..=limit).step_by(2).filter(|&back| self.stack[n - back].key() == current.key()).count()
    }

    /// Whether some position since the last capture, pawn move or castling-right change
    /// occurred twice: the game is already going round in circles.
    pub fn has_repeated(&self) -> bool {
        let reach = (self.position().halfmove_clock() as usize).min(self.plies());
        let recent = &self.stack[self.stack.len() - 1 - reach..];
        recent.iter().enumerate().any(|(i, pos)| recent[i + 1..].iter().any(|later| later.key() == pos.key()))
    }

    /// A draw by repetition as the search sees it: a repeat after the search root (`search_plies`
    /// plies ago) counts at once; a repeat of a position from the game before the root needs the
    /// position to occur for the third time.
    pub fn is_repetition(&self, search_plies: usize) -> bool {
        let current = self.position();
        let reach = (current.halfmove_clock() as usize).min(self.plies());
        let n = self.stack.len() - 1;
        let mut seen = 0;
        for back in (4..=reach).step_by(2) {
            if self.stack[n - back].key() == current.key() {
                if back <= search_plies {
                    return true;
                }
                seen += 1;
                if seen >= 2 {
                    return true;
                }
            }
        }
        false
    }

    /// Replace the record by the current position alone (keeps memory).
    pub fn truncate_history(&mut self) {
        let current = *self.position();
        self.stack.clear();
        self.stack.push(current);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::legal_moves;

    fn play(board: &mut Board, moves: &[&str]) {
        for uci in moves {
            let mv = legal_moves(board.position()).iter().copied().find(|m| m.to_string() == *uci);
            board.make_move(mv.expect("legal move"));
        }
    }

    #[test]
    fn a_game_has_repeated_once_any_position_came_back() {
        let mut board = Board::new(Position::startpos());
        play(&mut board, &["g1f3", "g8f6", "f3g1"]);
        assert!(!board.has_repeated());
        play(&mut board, &["f6g8"]);
        assert!(board.has_repeated(), "the start position came back");
        play(&mut board, &["g1f3"]);
        assert!(board.has_repeated(), "a repeat earlier in the game still counts");
        play(&mut board, &["e7e5"]);
        assert!(!board.has_repeated(), "a pawn move starts afresh");
    }
}
