//! The differential test: over thousands of random playouts from the perft suites' positions
//! (standard and Chess960), with take-backs and null moves, every accumulator the stack computes
//! incrementally equals the one computed from scratch by the document's definitions, and the
//! evaluation equals the from-scratch one. Special moves are chosen often, and the test fails if
//! the playouts stop reaching any kind of them.

use super::{extreme_network, reference_accumulator, Rng};
use crate::board::{Board, Move, PieceType, Position};
use crate::movegen::legal_moves;
use crate::nnue::{AccumulatorStack, FeatureDelta, Network};
use std::sync::Arc;

#[derive(Default, Debug)]
struct Coverage {
    plies: usize,
    compared: usize,
    /// By colour, then king side / queen side.
    castles: [[usize; 2]; 2],
    /// Chess960 castles where the king or the rook stays put or lands where the other stood.
    overlapping_castles: usize,
    en_passant: usize,
    /// Knight, bishop, rook, queen.
    promotions: [usize; 4],
    capturing_promotions: usize,
    null_moves: usize,
    takebacks: usize,
}

impl Coverage {
    fn record(&mut self, pos: &Position, mv: Move) {
        if mv.is_castle() {
            let king_side = mv.to().file() > mv.from().file();
            self.castles[pos.side_to_move().index()][usize::from(!king_side)] += 1;
            let (king_to, rook_to) = (mv.castle_king_target(), mv.castle_rook_target());
            if king_to == mv.from() || king_to == mv.to() || rook_to == mv.from() || rook_to == mv.to() {
                self.overlapping_castles += 1;
            }
        }
        self.en_passant += usize::from(mv.is_en_passant());
        if let Some(kind) = mv.promotion() {
            self.promotions[kind.index() - PieceType::Knight.index()] += 1;
            self.capturing_promotions += usize::from(mv.is_capture());
        }
    }

    fn check(&self) {
        eprintln!("{self:?}");
        assert!(self.compared > 50_000, "{self:?}");
        assert!(self.castles.iter().flatten().all(|&n| n > 0), "{self:?}");
        assert!(
            self.overlapping_castles > 0 && self.en_passant > 0 && self.capturing_promotions > 0,
            "{self:?}"
        );
        assert!(self.promotions.iter().all(|&n| n > 0), "{self:?}");
        assert!(self.null_moves > 0 && self.takebacks > 0, "{self:?}");
    }
}

fn is_special(mv: Move) -> bool {
    mv.is_castle() || mv.is_en_passant() || mv.is_promotion()
}

/// One playout from `start`: the positions of the line and the stack follow each other; after
/// some plies (not all, so the stack also catches up over several at once) every accumulator not
/// yet checked is compared with the reference.
fn playout(network: &Arc<Network>, start: Position, rng: &mut Rng, plies: usize, coverage: &mut Coverage) {
    let mut board = Board::new(start);
    let mut line = vec![start];
    let mut stack = AccumulatorStack::new(Arc::clone(network), &start);
    // Entries up to this ply were compared and have not changed since.
    let mut checked = 0;
    for _ in 0..plies {
        let pos = *board.position();
        let moves = legal_moves(&pos);
        if moves.is_empty() {
            break;
        }
        if line.len() > 1 && rng.chance(10) {
            for _ in 0..(1 + rng.below(3)).min(line.len() - 1) {
                board.unmake();
                stack.pop();
                line.pop();
            }
            checked = checked.min(line.len() - 1);
            coverage.takebacks += 1;
        } else if !pos.in_check() && rng.chance(20) {
            board.make_null_move();
            stack.push(FeatureDelta::NONE, board.position().key());
            line.push(*board.position());
            coverage.null_moves += 1;
        } else {
            let specials: Vec<Move> = moves.iter().copied().filter(|&m| is_special(m)).collect();
            let mv = if !specials.is_empty() && rng.chance(2) {
                specials[rng.below(specials.len())]
            } else {
                moves.get(rng.below(moves.len()))
            };
            coverage.record(&pos, mv);
            let delta = FeatureDelta::of_move(&pos, mv);
            board.make_move(mv);
            stack.push(delta, board.position().key());
            line.push(*board.position());
        }
        assert_eq!(line.len(), board.plies() + 1);
        assert_eq!(stack.depth(), board.plies());
        coverage.plies += 1;
        if rng.chance(3) {
            compare(&mut stack, &line, network, &mut checked, coverage);
        }
    }
    compare(&mut stack, &line, network, &mut checked, coverage);
}

fn compare(
    stack: &mut AccumulatorStack,
    line: &[Position],
    network: &Network,
    checked: &mut usize,
    coverage: &mut Coverage,
) {
    let top = line.last().expect("the root at least");
    assert_eq!(stack.evaluate(top), network.evaluate_position(top), "{}", top.to_fen());
    let accumulators = stack.computed_line();
    assert_eq!(accumulators.len(), line.len());
    let first = if *checked == 0 { 0 } else { *checked + 1 };
    for (pos, acc) in line.iter().zip(&accumulators).skip(first) {
        let expected = reference_accumulator(network, pos);
        assert!(
            acc.0[0].0 == expected[0] && acc.0[1].0 == expected[1],
            "accumulator differs at {}",
            pos.to_fen()
        );
        coverage.compared += 1;
    }
    *checked = line.len() - 1;
}

#[test]
fn incremental_accumulators_equal_fresh_ones() {
    let networks = [Arc::new(Network::random(21)), Arc::new(extreme_network(22, 8))];
    let mut starts = vec![Position::startpos()];
    for file in ["perft.epd", "perft_tricky.epd", "perft960.epd"] {
        starts.extend(super::epd_positions(file));
    }
    let mut rng = Rng::new(0x1ac0);
    let mut coverage = Coverage::default();
    for (i, start) in starts.iter().enumerate() {
        for round in 0..3 {
            let network = &networks[(i + round) % 2];
            let plies = 30 + rng.below(60);
            playout(network, *start, &mut rng, plies, &mut coverage);
        }
    }
    coverage.check();
}
