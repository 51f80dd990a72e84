//! Validation of arbitrary 16-bit moves: on a few hundred positions (every line of the standard
//! perft files, a spread of the Chess960 ones, and positions sampled from random playouts), each
//! of the 65,536 raw values must pass `is_pseudo_legal && is_legal` exactly when it is one of
//! `legal_moves`. Also checks that the noisy and quiet generators partition the legal moves, and
//! that evasions are the legal moves in check.

use super::common::{parse_entry, perft_files, sampled_playout_positions};
use engine::board::{Move, Position};
use engine::movegen::{evasions, legal_moves, noisy_moves, quiet_moves, MoveList};

fn raw_set(moves: &MoveList) -> Vec<u16> {
    let mut raw: Vec<u16> = moves.iter().map(|m| m.raw()).collect();
    raw.sort_unstable();
    raw
}

fn check_position(pos: &Position) -> Result<(), String> {
    let legal = legal_moves(pos);
    let legal_raw = raw_set(&legal);
    if legal_raw.windows(2).any(|w| w[0] == w[1]) {
        return Err(format!("legal_moves has duplicates: {:?}", legal.as_slice()));
    }
    let mut is_legal = vec![false; 1 << 16];
    for &raw in &legal_raw {
        is_legal[raw as usize] = true;
    }

    let mut wrong = Vec::new();
    for raw in 0..=u16::MAX {
        let mv = Move::from_raw(raw);
        let pseudo = pos.is_pseudo_legal(mv);
        let accepted = pseudo && pos.is_legal(mv);
        if accepted != is_legal[raw as usize] || pos.is_legal_move(mv) != accepted {
            wrong.push(format!("{mv:?} (raw {raw:#06x}, generated {})", is_legal[raw as usize]));
        }
    }
    if !wrong.is_empty() {
        return Err(format!("{} raw moves misjudged: {}", wrong.len(), wrong.join(", ")));
    }

    let (mut noisy, mut quiet) = (MoveList::new(), MoveList::new());
    noisy_moves(pos, &mut noisy);
    quiet_moves(pos, &mut quiet);
    if let Some(m) = noisy.iter().find(|m| !m.is_noisy()) {
        return Err(format!("noisy_moves yields the quiet move {m:?}"));
    }
    if let Some(m) = quiet.iter().find(|m| m.is_noisy()) {
        return Err(format!("quiet_moves yields the noisy move {m:?}"));
    }
    let mut union: Vec<u16> = noisy.iter().chain(quiet.iter()).map(|m| m.raw()).collect();
    union.sort_unstable();
    if union != legal_raw {
        return Err(format!(
            "noisy {:?} + quiet {:?} != legal {:?}",
            noisy.as_slice(),
            quiet.as_slice(),
            legal.as_slice()
        ));
    }
    if pos.in_check() {
        let mut evade = MoveList::new();
        evasions(pos, &mut evade);
        if raw_set(&evade) != legal_raw {
            return Err(format!("evasions {:?} != legal {:?}", evade.as_slice(), legal.as_slice()));
        }
    }
    for &mv in legal.iter() {
        let mut child = *pos;
        child.make_move(mv);
        if !child.is_consistent() {
            return Err(format!("inconsistent position after {mv:?}: {}", child.to_fen()));
        }
    }
    Ok(())
}

/// Every 10th Chess960 line (and every X-FEN one) keeps this at a few hundred positions.
fn test_positions() -> Vec<Position> {
    let mut positions = Vec::new();
    for (file, entries) in perft_files() {
        for entry in &entries {
            let x_fen = entry.fen.split(' ').nth(2).is_some_and(|c| c.contains(['K', 'Q', 'k', 'q']));
            if file != "perft960.epd" || entry.line % 10 == 0 || x_fen {
                positions.push(parse_entry(file, entry));
            }
        }
    }
    positions.extend(sampled_playout_positions(0x5eed_0016, 60, 3));
    positions
}

#[test]
fn every_raw_move_is_judged_like_the_generator() {
    let positions = test_positions();
    let in_check = positions.iter().filter(|p| p.in_check()).count();
    eprintln!("move validation: {} positions, {in_check} in check", positions.len());
    assert!(positions.len() >= 300 && in_check >= 30, "too few test positions");
    let failures: Vec<String> = positions
        .iter()
        .filter_map(|pos| check_position(pos).err().map(|e| format!("'{}': {e}", pos.to_fen())))
        .collect();
    assert!(failures.is_empty(), "{} positions failed:\n{}", failures.len(), failures.join("\n"));
}
