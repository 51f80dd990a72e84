//! Legal move generation with pin and check masks.
//!
//! Every generated move is legal. Two const parameters select the split the search's staged
//! picker asks for: `NOISY` (captures, en passant and all promotions) and `QUIET` (everything
//! else, castling included). With both, the result is every legal move; in check that is the set
//! of evasions.

use super::attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, rook_attacks,
};
use super::list::MoveSink;
use crate::board::{castling_index, Bitboard, Color, Move, PieceType, Position, Square};

#[inline]
fn shift(bb: Bitboard, delta: i8) -> Bitboard {
    if delta > 0 {
        Bitboard(bb.0 << delta)
    } else {
        Bitboard(bb.0 >> -delta)
    }
}

pub fn generate<S: MoveSink, const NOISY: bool, const QUIET: bool>(pos: &Position, sink: &mut S) {
    let us = pos.side_to_move();
    let them = !us;
    let occ = pos.occupied();
    let ours = pos.colored(us);
    let theirs = pos.colored(them);
    let ksq = pos.king_square(us);
    let checkers = pos.checkers();

    // King steps: the destination must not be attacked once the king has left its square
    // (a slider checking along the line would otherwise "see" through the king).
    let mut king_targets = Bitboard::EMPTY;
    if NOISY {
        king_targets |= theirs;
    }
    if QUIET {
        king_targets |= !occ;
    }
    let occ_without_king = occ ^ Bitboard::from_square(ksq);
    for to in king_attacks(ksq) & king_targets {
        if !pos.is_attacked_by(them, to, occ_without_king) {
            let kind = if theirs.has(to) { Move::CAPTURE } else { Move::QUIET };
            sink.push(Move::new(ksq, to, kind));
        }
    }
    if checkers.several() {
        return;
    }

    // Non-king moves must capture the checker or block the check.
    let check_mask =
        if checkers.nonempty() { between(ksq, checkers.lsb()) | checkers } else { Bitboard::ALL };
    let capture_mask = theirs & check_mask;
    let quiet_mask = !occ & check_mask;
    let pinned = pos.pinned();

    generate_pawn_moves::<S, NOISY, QUIET>(pos, sink, check_mask);

    for from in pos.pieces_of(us, PieceType::Knight) & !pinned {
        let attacks = knight_attacks(from);
        if NOISY {
            sink.push_targets(from, attacks & capture_mask, Move::CAPTURE);
        }
        if QUIET {
            sink.push_targets(from, attacks & quiet_mask, Move::QUIET);
        }
    }

    let queens = pos.pieces(PieceType::Queen);
    let diagonal = (pos.pieces(PieceType::Bishop) | queens) & ours;
    let orthogonal = (pos.pieces(PieceType::Rook) | queens) & ours;
    for (sliders, straight) in [(diagonal, false), (orthogonal, true)] {
        for from in sliders {
            let mut attacks = if straight { rook_attacks(from, occ) } else { bishop_attacks(from, occ) };
            if pinned.has(from) {
                attacks &= line(ksq, from);
            }
            if NOISY {
                sink.push_targets(from, attacks & capture_mask, Move::CAPTURE);
            }
            if QUIET {
                sink.push_targets(from, attacks & quiet_mask, Move::QUIET);
            }
        }
    }

    if QUIET && checkers.is_empty() {
        generate_castling(pos, sink, us, ksq);
    }
}

fn generate_pawn_moves<S: MoveSink, const NOISY: bool, const QUIET: bool>(
    pos: &Position,
    sink: &mut S,
    check_mask: Bitboard,
) {
    let us = pos.side_to_move();
    let white = us == Color::White;
    let occ = pos.occupied();
    let empty = !occ;
    let theirs = pos.colored(!us);
    let ksq = pos.king_square(us);
    let pawns = pos.pieces_of(us, PieceType::Pawn);
    let pinned = pos.pinned();

    let up: i8 = if white { 8 } else { -8 };
    let (west, east): (i8, i8) = if white { (7, 9) } else { (-9, -7) };
    let seventh = Bitboard::rank(if white { 6 } else { 1 });
    let third = Bitboard::rank(if white { 2 } else { 5 });

    // Pinned pawns move only along the pin line; they are rare, so handle them one by one
    // through the same set-wise code with a per-pawn line mask.
    let free = pawns & !pinned;
    let mut groups = [(free, Bitboard::ALL); 9];
    let mut group_count = 1;
    for from in pawns & pinned {
        groups[group_count] = (Bitboard::from_square(from), line(ksq, from));
        group_count += 1;
    }

    for &(group, pin_line) in &groups[..group_count] {
        let mask = check_mask & pin_line;
        let promoting = group & seventh;
        let others = group & !seventh;

        if QUIET {
            let single = shift(others, up) & empty;
            let double = shift(single & third, up) & empty;
            sink.push_pawn_targets(single & mask, up, Move::QUIET);
            sink.push_pawn_targets(double & mask, 2 * up, Move::DOUBLE_PUSH);
        }
        if NOISY {
            let west_from = Bitboard::FILE_A;
            let east_from = Bitboard::FILE_H;
            sink.push_pawn_targets(
                shift(others.without(west_from), west) & theirs & mask,
                west,
                Move::CAPTURE,
            );
            sink.push_pawn_targets(
                shift(others.without(east_from), east) & theirs & mask,
                east,
                Move::CAPTURE,
            );
            if promoting.nonempty() {
                sink.push_promotions(shift(promoting, up) & empty & mask, up, false);
                sink.push_promotions(shift(promoting.without(west_from), west) & theirs & mask, west, true);
                sink.push_promotions(shift(promoting.without(east_from), east) & theirs & mask, east, true);
            }
        }
    }

    if NOISY {
        if let Some(ep) = pos.en_passant() {
            for from in pawn_attacks(!us, ep) & pawns {
                if pos.en_passant_is_legal(from, ep) {
                    sink.push(Move::new(from, ep, Move::EN_PASSANT));
                }
            }
        }
    }
}

/// Castling, standard or Chess960. The king and rook may start anywhere on the back rank; every
/// square either passes over or lands on must be empty (but for the two of them), and no square
/// the king stands on, crosses or reaches may be attacked. Attacks are tested with the castling
/// rook removed, so a rook that shields its own king's destination does not count as a shield.
fn generate_castling<S: MoveSink>(pos: &Position, sink: &mut S, us: Color, ksq: Square) {
    let rights = pos.castling_rights();
    let occ = pos.occupied();
    for king_side in [true, false] {
        let idx = castling_index(us, king_side);
        if rights & (1 << idx) == 0 {
            continue;
        }
        let rook = pos.castle_rook(us, king_side);
        let mv = Move::new(ksq, rook, Move::CASTLE);
        let king_to = mv.castle_king_target();
        let rook_to = mv.castle_rook_target();
        let king_and_rook = Bitboard::from_square(ksq) | Bitboard::from_square(rook);
        let must_be_empty = (between(ksq, king_to)
            | Bitboard::from_square(king_to)
            | between(rook, rook_to)
            | Bitboard::from_square(rook_to))
        .without(king_and_rook);
        if (occ & must_be_empty).nonempty() {
            continue;
        }
        let occ_after = occ ^ king_and_rook;
        let path = between(ksq, king_to) | Bitboard::from_square(king_to);
        if path.into_iter().all(|sq| !pos.is_attacked_by(!us, sq, occ_after)) {
            sink.push(mv);
        }
    }
}
