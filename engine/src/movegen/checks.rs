//! Whether a move gives check, decided before making it. The search needs this to keep checking
//! moves out of quiet-move pruning (a mate is always a check).

use super::attacks::{aligned, bishop_attacks, knight_attacks, pawn_attacks, rook_attacks};
use crate::board::{Bitboard, Move, Position, Square};

/// Per-node facts that make `gives_check` cheap for every move of the node.
pub struct CheckInfo {
    enemy_king: Square,
    /// Squares from which each of our piece kinds would attack the enemy king.
    check_squares: [Bitboard; 6],
    /// Our pieces whose departure uncovers one of our sliders on the enemy king.
    discoverers: Bitboard,
}

impl CheckInfo {
    pub fn new(pos: &Position) -> CheckInfo {
        let us = pos.side_to_move();
        let enemy_king = pos.king_square(!us);
        let occ = pos.occupied();
        let bishop = bishop_attacks(enemy_king, occ);
        let rook = rook_attacks(enemy_king, occ);
        CheckInfo {
            enemy_king,
            check_squares: [
                pawn_attacks(!us, enemy_king),
                knight_attacks(enemy_king),
                bishop,
                rook,
                bishop | rook,
                Bitboard::EMPTY,
            ],
            discoverers: pos.blockers_for_king(!us) & pos.colored(us),
        }
    }

    /// Whether the legal move `mv` checks the opponent.
    #[inline]
    pub fn gives_check(&self, pos: &Position, mv: Move) -> bool {
        if mv.is_castle() || mv.is_en_passant() || mv.is_promotion() {
            // Rare: decide by playing the move.
            let mut after = *pos;
            after.make_move(mv);
            return after.in_check();
        }
        let Some(piece) = pos.piece_on(mv.from()) else { return false };
        if self.check_squares[piece.kind().index()].has(mv.to()) {
            return true;
        }
        self.discoverers.has(mv.from()) && !aligned(mv.from(), mv.to(), self.enemy_king)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::legal_moves;
    use support::rng::Rng;

    #[test]
    fn agrees_with_making_the_move() {
        let mut rng = Rng::new(0xc4ec);
        let fens = [
            crate::board::STARTPOS,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
        ];
        let mut checked = 0;
        for fen in fens {
            for _ in 0..200 {
                let mut pos = Position::from_fen(fen).expect("valid");
                for _ in 0..60 {
                    let moves = legal_moves(&pos);
                    if moves.is_empty() {
                        break;
                    }
                    let info = CheckInfo::new(&pos);
                    for &mv in moves.iter() {
                        let mut after = pos;
                        after.make_move(mv);
                        assert_eq!(info.gives_check(&pos, mv), after.in_check(), "{} {mv:?}", pos.to_fen());
                        checked += 1;
                    }
                    pos.make_move(moves.get(rng.below(moves.len() as u64) as usize));
                }
            }
        }
        assert!(checked > 100_000);
    }
}
