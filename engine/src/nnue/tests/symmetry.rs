//! Colour symmetry: the position with ranks flipped, colours and the side to move swapped
//! evaluates the same for its side to move, with any network, from scratch and incrementally.

use super::{extreme_network, Rng};
use crate::board::{Board, Position};
use crate::movegen::legal_moves;
use crate::nnue::{AccumulatorStack, FeatureDelta, Network};
use std::sync::Arc;

fn swap_case(c: char) -> char {
    if c.is_ascii_uppercase() {
        c.to_ascii_lowercase()
    } else {
        c.to_ascii_uppercase()
    }
}

/// The colour-mirrored position: ranks flipped, colours swapped (castling rights too), the
/// other side to move, the en-passant square on the mirrored rank.
fn flip_colours(pos: &Position) -> Position {
    let fen = pos.to_fen();
    let fields: Vec<&str> = fen.split(' ').collect();
    let board: Vec<String> =
        fields[0].split('/').rev().map(|rank| rank.chars().map(swap_case).collect()).collect();
    let stm = if fields[1] == "w" { "b" } else { "w" };
    let castling: String = fields[2].chars().map(swap_case).collect();
    let ep = match fields[3].as_bytes() {
        [file, rank] => format!("{}{}", *file as char, (b'1' + b'8' - rank) as char),
        _ => "-".to_string(),
    };
    let flipped = format!("{} {stm} {castling} {ep} {} {}", board.join("/"), fields[4], fields[5]);
    Position::from_fen(&flipped).unwrap_or_else(|e| panic!("{flipped}: {e}"))
}

/// Positions along random games from the perft suites' positions.
fn positions() -> Vec<Position> {
    let mut rng = Rng::new(0x5f1);
    let mut out = Vec::new();
    let starts = super::epd_positions("perft.epd")
        .into_iter()
        .chain(super::epd_positions("perft960.epd").into_iter().step_by(8));
    for start in starts {
        let mut pos = start;
        for _ in 0..12 {
            out.push(pos);
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            pos.make_move(moves.get(rng.below(moves.len())));
        }
    }
    out
}

#[test]
fn colour_flipped_positions_evaluate_alike() {
    let positions = positions();
    assert!(positions.len() > 2000, "{} positions", positions.len());
    for network in [Network::random(31), extreme_network(32, 8)] {
        let mut differ = 0;
        for pos in &positions {
            let flipped = flip_colours(pos);
            let score = network.evaluate_position(pos);
            assert_eq!(
                network.evaluate_position(&flipped),
                score,
                "{} vs {}",
                pos.to_fen(),
                flipped.to_fen()
            );
            differ += usize::from(score != network.evaluate_position(&positions[0]));
        }
        // A network that says the same of everything would pass the comparison trivially.
        assert!(differ > positions.len() / 2, "{differ} of {} scores differ from the first", positions.len());
    }
}

#[test]
fn a_mirrored_game_evaluates_alike_incrementally() {
    let network = Arc::new(Network::random(33));
    let mut rng = Rng::new(0x5f2);
    for start in super::epd_positions("perft_tricky.epd").into_iter().chain([Position::startpos()]) {
        let mut board = Board::new(start);
        let mut stack = AccumulatorStack::new(Arc::clone(&network), &start);
        for _ in 0..40 {
            let pos = *board.position();
            let flipped = flip_colours(&pos);
            let mut mirror = AccumulatorStack::new(Arc::clone(&network), &flipped);
            assert_eq!(stack.evaluate(&pos), mirror.evaluate(&flipped), "{}", pos.to_fen());
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            let mv = moves.get(rng.below(moves.len()));
            let delta = FeatureDelta::of_move(&pos, mv);
            board.make_move(mv);
            stack.push(delta, board.position().key());
        }
    }
}
