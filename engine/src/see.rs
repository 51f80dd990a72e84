//! Static exchange evaluation: the material outcome of the capture sequence on one square when
//! both sides always recapture with their least valuable attacker and may stop at any time.
//! X-ray attackers behind the capturers join in; promotions and en passant are valued; a king
//! captures only when the opponent has no attacker left.

use crate::board::{Bitboard, Move, PieceType, Position, Square};
use crate::movegen::attacks::{bishop_attacks, rook_attacks};

/// Piece values used by SEE (pawn, knight, bishop, rook, queen, king).
pub const SEE_VALUES: [i32; 6] = [100, 300, 300, 500, 900, 0];

#[inline]
fn value(kind: PieceType) -> i32 {
    SEE_VALUES[kind.index()]
}

impl Position {
    /// Whether the exchange started by `mv` wins at least `threshold` (in SEE units).
    pub fn see_ge(&self, mv: Move, threshold: i32) -> bool {
        // Most calls are decided without playing out the exchange: by the victim alone (not
        // enough even if nothing recaptures), or by the victim minus the mover (enough even if
        // the mover is lost). Promotions, en passant and castling take the full path.
        if mv.kind() == Move::QUIET || mv.kind() == Move::CAPTURE {
            if let Some(mover) = self.piece_on(mv.from()) {
                let victim = self.piece_on(mv.to()).map_or(0, |p| value(p.kind()));
                if victim < threshold {
                    return false;
                }
                // (Not on the last ranks, where a recapturing pawn promotes.)
                let promotion_rank = mv.to().rank() == 0 || mv.to().rank() == 7;
                if !promotion_rank && victim - value(mover.kind()) >= threshold {
                    return true;
                }
            }
        }
        self.see_value(mv) >= threshold
    }

    /// The exchange's value for the side making `mv` (swap-list negamax).
    pub fn see_value(&self, mv: Move) -> i32 {
        if mv.is_castle() {
            return 0;
        }
        let from = mv.from();
        let to = mv.to();
        let Some(mover) = self.piece_on(from) else { return 0 };

        let mut occ = self.occupied() ^ Bitboard::from_square(from);
        let mut gains = [0i32; 34];
        gains[0] = match self.piece_on(to) {
            Some(victim) if mv.is_capture() => value(victim.kind()),
            _ => 0,
        };
        if mv.is_en_passant() {
            gains[0] = value(PieceType::Pawn);
            occ ^= Bitboard::from_square(Square::from_file_rank(to.file(), from.rank()));
        }
        let mut on_square = mover.kind();
        if let Some(promoted) = mv.promotion() {
            gains[0] += value(promoted) - value(PieceType::Pawn);
            on_square = promoted;
        }

        let queens = self.pieces(PieceType::Queen);
        let diagonal = self.pieces(PieceType::Bishop) | queens;
        let orthogonal = self.pieces(PieceType::Rook) | queens;
        let promotion_rank = to.rank() == 0 || to.rank() == 7;
        let mut attackers = self.attackers_to(to, occ) & occ;
        let mut side = !self.side_to_move();
        let mut depth = 0;
        // A piece pinned to its king may not join in while its pinner is still on the board.
        let pins = [self.pins(crate::board::Color::White), self.pins(crate::board::Color::Black)];

        loop {
            let (pinned, pinners) = pins[side.index()];
            let mut ours = attackers & self.colored(side);
            if (pinners & occ).nonempty() {
                ours = ours.without(pinned);
            }
            let Some(kind) = PieceType::ALL.into_iter().find(|&k| (ours & self.pieces(k)).nonempty()) else {
                break;
            };
            if kind == PieceType::King && (attackers & self.colored(!side)).nonempty() {
                break;
            }
            depth += 1;
            let promotes = kind == PieceType::Pawn && promotion_rank;
            let promo_gain = if promotes { value(PieceType::Queen) - value(PieceType::Pawn) } else { 0 };
            gains[depth] = value(on_square) + promo_gain - gains[depth - 1];
            on_square = if promotes { PieceType::Queen } else { kind };
            if depth == gains.len() - 1 {
                break;
            }

            occ ^= Bitboard::from_square((ours & self.pieces(kind)).lsb());
            if matches!(kind, PieceType::Pawn | PieceType::Bishop | PieceType::Queen) {
                attackers |= bishop_attacks(to, occ) & diagonal;
            }
            if matches!(kind, PieceType::Rook | PieceType::Queen) {
                attackers |= rook_attacks(to, occ) & orthogonal;
            }
            attackers &= occ;
            side = !side;
        }

        // Each side may decline to continue the exchange.
        while depth > 0 {
            gains[depth - 1] = gains[depth - 1].min(-gains[depth]);
            depth -= 1;
        }
        gains[0]
    }
}

#[cfg(test)]
mod tests {
    use crate::board::{Move, Position};
    use crate::movegen::legal_moves;

    fn see(fen: &str, uci: &str) -> i32 {
        let pos = Position::from_fen(fen).expect("valid FEN");
        let mv: Move = *legal_moves(&pos)
            .iter()
            .find(|m| m.to_uci(false) == uci)
            .unwrap_or_else(|| panic!("{uci} is legal in {fen}"));
        let value = pos.see_value(mv);
        assert!(pos.see_ge(mv, value) && !pos.see_ge(mv, value + 1));
        value
    }

    #[test]
    fn simple_exchanges() {
        // Undefended pawn.
        assert_eq!(see("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5"), 100);
        // Pawn defended by a knight behind a rook x-ray chain: RxP NxR.
        assert_eq!(see("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5"), -200);
        // Queen takes a defended pawn.
        assert_eq!(see("4k3/8/3p4/4p3/8/8/8/4QK2 w - - 0 1", "e1e5"), -800);
        // Quiet move to an attacked square loses the piece.
        assert_eq!(see("4k3/8/3p4/8/8/8/8/2N1K3 w - - 0 1", "c1b3"), 0);
        assert_eq!(see("4k3/8/8/2p5/8/8/8/2N1K3 w - - 0 1", "c1d3"), 0);
        assert_eq!(see("4k3/8/8/2p5/8/8/2N5/4K3 w - - 0 1", "c2b4"), -300);
    }

    #[test]
    fn xray_recapture() {
        // Rook takes a pawn defended by a rook; the second white rook behind backs it up.
        assert_eq!(see("3r2k1/8/8/3p4/8/8/3R4/3R2K1 w - - 0 1", "d2d5"), 100);
        // Without the second rook it loses the exchange.
        assert_eq!(see("3r2k1/8/8/3p4/8/8/3R4/6K1 w - - 0 1", "d2d5"), -400);
    }

    #[test]
    fn en_passant_and_promotion() {
        assert_eq!(see("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), 100);
        // Promotion to a queen on an undefended square gains queen minus pawn.
        assert_eq!(see("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q"), 800);
        // Defended promotion square: the new queen is taken.
        assert_eq!(see("r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q"), -100);
        // Capture-promotion of an undefended rook.
        assert_eq!(see("r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7a8q"), 500 + 800);
    }

    #[test]
    fn pinned_pieces_do_not_recapture() {
        // The queen takes a bishop defended only by a rook pinned to its king.
        assert_eq!(see("8/Q7/8/8/8/5B2/6r1/1K1R2bk w - - 0 1", "a7g1"), 300);
        // Unpinned (no bishop on f3): RxQ, RxR, KxR.
        assert_eq!(see("8/Q7/8/8/8/8/6r1/1K1R2bk w - - 0 1", "a7g1"), 300 - 900);
    }

    #[test]
    fn king_cannot_capture_into_defence() {
        // Rook takes a pawn defended only by the king, but a bishop guards the square.
        assert_eq!(see("8/8/8/3k4/3p4/8/5B2/3R2K1 w - - 0 1", "d1d4"), 100);
    }
}

#[cfg(test)]
mod shortcut_tests {
    use crate::board::Position;
    use crate::movegen::legal_moves;
    use support::rng::Rng;

    #[test]
    fn shortcuts_agree_with_the_full_exchange() {
        let mut rng = Rng::new(0x5ee);
        for _ in 0..300 {
            let mut pos = Position::startpos();
            for _ in 0..rng.below(60) {
                let moves = legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                pos.make_move(moves.get(rng.below(moves.len() as u64) as usize));
            }
            for &mv in legal_moves(&pos).iter() {
                let value = pos.see_value(mv);
                for threshold in [-1000, -500, -200, -100, -1, 0, 1, 100, 200, 500, 1000] {
                    assert_eq!(
                        pos.see_ge(mv, threshold),
                        value >= threshold,
                        "{} {mv:?} {threshold}",
                        pos.to_fen()
                    );
                }
            }
        }
    }
}
