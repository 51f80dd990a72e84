//! King safety: the pawn shelter in front of the king, enemy pawns storming it, and the danger
//! from enemy pieces attacking the king zone, summed in units and turned into a penalty that grows
//! with the square of the danger in the midgame.

use super::bits::{backmost, ranks_ahead};
use super::info::EvalInfo;
use super::params::Params;
use super::score::Score;
use crate::board::{Bitboard, Color, PieceType, Position, Square};
use crate::movegen::attacks::{bishop_attacks, knight_attacks, rook_attacks};

/// Midgame penalty = units² / this.
const DANGER_MG_DIVISOR: i32 = 512;
/// Endgame penalty = units / this.
const DANGER_EG_DIVISOR: i32 = 16;

/// `us`'s king safety, from `us`'s point of view (usually negative).
pub(super) fn king_safety(pos: &Position, params: &Params, info: &EvalInfo, us: Color) -> Score {
    let ksq = pos.king_square(us);
    let mut score = shelter_and_storm(pos, params, us, ksq);

    let them = !us;
    let (c, t) = (us.index(), them.index());
    let their_queens = pos.pieces_of(them, PieceType::Queen).count() as i32;
    // One attacker alone is no attack, unless the enemy still has a queen to join in.
    if info.king_attackers[c] + their_queens <= 1 {
        return score;
    }

    // Squares they attack that we defend at most once, and then only with king or queen.
    let weak = info.attacked[t]
        & !info.attacked2[c]
        & (!info.attacked[c]
            | info.attacked_by[c][PieceType::King.index()]
            | info.attacked_by[c][PieceType::Queen.index()]);
    // Where an enemy piece can safely give check.
    let safe = !pos.colored(them) & (!info.attacked[c] | (weak & info.attacked2[t]));

    let occ = pos.occupied();
    let diagonal = bishop_attacks(ksq, occ);
    let straight = rook_attacks(ksq, occ);
    let check_squares =
        [Bitboard::EMPTY, knight_attacks(ksq), diagonal, straight, diagonal | straight, Bitboard::EMPTY];

    let mut danger = info.king_attack_units[c]
        + params.king_zone_hits * info.king_hits[c]
        + params.king_weak_squares * (weak & info.king_zone[c]).count() as i32
        + params.king_danger_offset;
    for kind in [PieceType::Knight, PieceType::Bishop, PieceType::Rook, PieceType::Queen] {
        let k = kind.index();
        if (check_squares[k] & info.attacked_by[t][k] & safe).nonempty() {
            danger += params.king_safe_check[k];
        }
    }
    if their_queens == 0 {
        danger += params.king_no_queen;
    }

    let mg = danger.mg().max(0);
    let eg = danger.eg().max(0);
    score -= Score::new(mg * mg / DANGER_MG_DIVISOR, eg / DANGER_EG_DIVISOR);
    score
}

/// Own pawns in front of the king and enemy pawns coming at it, on the king's file and its
/// neighbours (the three files nearest the king when it stands on an edge file).
fn shelter_and_storm(pos: &Position, params: &Params, us: Color, ksq: Square) -> Score {
    let not_behind = !ranks_ahead(!us, ksq);
    let ours = pos.pieces_of(us, PieceType::Pawn) & not_behind;
    let theirs = pos.pieces_of(!us, PieceType::Pawn) & not_behind;
    let center = ksq.file().clamp(1, 6);
    let mut score = Score::ZERO;
    for file in center - 1..=center + 1 {
        let on_file = Bitboard::file(file);
        let own = ours & on_file;
        let own_rank = if own.nonempty() { backmost(us, own).relative_rank(us) as usize } else { 0 };
        let enemy = theirs & on_file;
        let enemy_rank = if enemy.nonempty() { backmost(us, enemy).relative_rank(us) as usize } else { 0 };
        let blocked = own_rank != 0 && own_rank + 1 == enemy_rank;
        score += params.king_shelter[(file == ksq.file()) as usize][own_rank];
        score += params.king_storm[blocked as usize][enemy_rank];
    }
    score
}
