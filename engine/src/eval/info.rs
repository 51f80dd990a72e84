//! Per-evaluation scratch: attack maps and king-attack tallies, built once and read by the terms.

use super::bits::{pawn_attacks_by_side, push};
use super::params::Params;
use super::score::Score;
use crate::board::{Bitboard, Color, PieceType, Position};
use crate::movegen::attacks::king_attacks;

pub(super) struct EvalInfo {
    /// Squares attacked by each side's pieces of each type.
    pub attacked_by: [[Bitboard; 6]; 2],
    /// Squares attacked by each side.
    pub attacked: [Bitboard; 2],
    /// Squares attacked at least twice by each side.
    pub attacked2: [Bitboard; 2],
    /// Squares where each side's pieces count as mobile.
    pub mobility_area: [Bitboard; 2],
    /// Squares around each side's king that enemy attacks make dangerous.
    pub king_zone: [Bitboard; 2],
    /// Enemy pieces attacking each side's king zone.
    pub king_attackers: [i32; 2],
    /// Danger units those attackers bring.
    pub king_attack_units: [Score; 2],
    /// Enemy attacks on squares next to each side's king.
    pub king_hits: [i32; 2],
}

impl EvalInfo {
    /// Starts the maps with pawn and king attacks; `add_attacks` adds the pieces'.
    #[inline]
    pub fn new(pos: &Position) -> EvalInfo {
        let mut info = EvalInfo {
            attacked_by: [[Bitboard::EMPTY; 6]; 2],
            attacked: [Bitboard::EMPTY; 2],
            attacked2: [Bitboard::EMPTY; 2],
            mobility_area: [Bitboard::EMPTY; 2],
            king_zone: [Bitboard::EMPTY; 2],
            king_attackers: [0; 2],
            king_attack_units: [Score::ZERO; 2],
            king_hits: [0; 2],
        };
        let occ = pos.occupied();
        for us in Color::ALL {
            let c = us.index();
            let pawns = pos.pieces_of(us, PieceType::Pawn);
            let (west, east) = pawn_attacks_by_side(us, pawns);
            let pawn_attacks = west | east;
            let ksq = pos.king_square(us);
            let king = king_attacks(ksq);
            info.attacked_by[c][PieceType::Pawn.index()] = pawn_attacks;
            info.attacked_by[c][PieceType::King.index()] = king;
            info.attacked[c] = pawn_attacks | king;
            info.attacked2[c] = (west & east) | (pawn_attacks & king);
            let ring = king | Bitboard::from_square(ksq);
            info.king_zone[c] = ring | push(us, ring);
            let blocked = pawns & push(!us, occ);
            info.mobility_area[c] = !(blocked | pos.pieces_of(us, PieceType::King));
        }
        for us in Color::ALL {
            let enemy_pawn_attacks = info.attacked_by[(!us).index()][PieceType::Pawn.index()];
            info.mobility_area[us.index()] &= !enemy_pawn_attacks;
        }
        info
    }

    /// Records the attacks `attacks` of one `us` piece of type `kind`.
    #[inline]
    pub fn add_attacks(&mut self, params: &Params, us: Color, kind: PieceType, attacks: Bitboard) {
        let c = us.index();
        self.attacked2[c] |= self.attacked[c] & attacks;
        self.attacked[c] |= attacks;
        self.attacked_by[c][kind.index()] |= attacks;
        let them = (!us).index();
        if (attacks & self.king_zone[them]).nonempty() {
            self.king_attackers[them] += 1;
            self.king_attack_units[them] += params.king_attacker_weight[kind.index()];
            let next_to_king = self.attacked_by[them][PieceType::King.index()];
            self.king_hits[them] += (attacks & next_to_king).count() as i32;
        }
    }
}
