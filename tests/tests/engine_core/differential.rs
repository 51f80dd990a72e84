//! Differential test against `shakmaty` over seeded random playouts from the standard and from
//! Chess960 start positions. At every ply it compares the legal moves (UCI, king-takes-rook
//! castling on both sides), check / checkmate / stalemate, and the FEN both ways; and it checks
//! our own invariants: incremental keys against recomputed ones, `is_consistent`, a key that
//! depends on the position alone, and `Board` make/unmake (null moves too) restoring the position
//! bit for bit.

use super::common::{playout_start, MovePolicy};
use engine::board::{Board, Move, Position};
use engine::movegen::{count_legal_moves, legal_moves};
use rand::rngs::StdRng;
use rand::SeedableRng;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position as _};
use std::collections::HashMap;

const PLAYOUTS: usize = 2000;
const MAX_PLIES: usize = 200;
const SEED: u64 = 0x1a2a_11d1;

/// What the playouts went through, so that a change which stops them reaching castling, en
/// passant, promotions or mates cannot go unnoticed.
#[derive(Default, Debug)]
struct Coverage {
    plies: u64,
    moves_compared: u64,
    checks: u64,
    checkmates: u64,
    stalemates: u64,
    castles: u64,
    en_passant: u64,
    promotions: u64,
    null_moves: u64,
    chess960_castles: u64,
}

/// Maps between positions (FEN without the clocks) and keys, across all playouts: a key must be a
/// function of the position, and two different positions must not share one.
#[derive(Default)]
struct KeyIdentity {
    key_of: HashMap<String, u64>,
    position_of: HashMap<u64, String>,
}

impl KeyIdentity {
    fn check(&mut self, fen: &str, key: u64) -> Result<(), String> {
        let position: String = fen.split(' ').take(4).collect::<Vec<_>>().join(" ");
        if let Some(&old) = self.key_of.get(&position) {
            if old != key {
                return Err(format!("position '{position}' had key {old:#x}, now {key:#x}"));
            }
        }
        if let Some(old) = self.position_of.get(&key) {
            if *old != position {
                return Err(format!("positions '{old}' and '{position}' share the key {key:#x}"));
            }
        }
        self.key_of.insert(position.clone(), key);
        self.position_of.insert(key, position);
        Ok(())
    }
}

fn shakmaty_fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

fn parse_shakmaty(fen: &str) -> Result<Chess, String> {
    Fen::from_ascii(fen.as_bytes())
        .map_err(|e| format!("shakmaty cannot read '{fen}': {e}"))?
        .into_position(CastlingMode::Chess960)
        .map_err(|e| format!("shakmaty rejects '{fen}': {e}"))
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

/// Compares one ply of both implementations; returns the legal moves in our encoding, in the
/// same order as shakmaty's UCI strings.
fn compare_ply(
    ours: &Position,
    theirs: &Chess,
    keys: &mut KeyIdentity,
    cov: &mut Coverage,
) -> Result<Vec<(String, Move)>, String> {
    let fen = ours.to_fen();

    // Invariants of our own position.
    if ours.key() != ours.compute_key() {
        return Err(format!("incremental key {:#x} != computed {:#x}", ours.key(), ours.compute_key()));
    }
    if ours.pawn_key() != ours.compute_pawn_key() {
        return Err("incremental pawn key differs from the computed one".into());
    }
    if !ours.is_consistent() {
        return Err("is_consistent() is false".into());
    }
    keys.check(&fen, ours.key())?;

    // FEN: ours round-trips, and agrees with shakmaty's both as text and as a position.
    let reparsed = Position::from_fen(&fen).map_err(|e| format!("to_fen output rejected: {e}"))?;
    if reparsed != *ours {
        return Err(format!("from_fen(to_fen) differs from the position: {reparsed:?}"));
    }
    if reparsed.to_fen() != fen {
        return Err(format!("to_fen is not a fixed point: '{}'", reparsed.to_fen()));
    }
    let their_fen = shakmaty_fen(theirs);
    if fen != their_fen {
        return Err(format!("FEN differs: ours '{fen}', shakmaty '{their_fen}'"));
    }
    let via_ours = shakmaty_fen(&parse_shakmaty(&fen)?);
    if via_ours != their_fen {
        return Err(format!("shakmaty reads our FEN as '{via_ours}', its own is '{their_fen}'"));
    }

    // Legal moves, check, mate, stalemate.
    let list = legal_moves(ours);
    let mut our_moves: Vec<(String, Move)> = list.iter().map(|&m| (m.to_uci(true), m)).collect();
    our_moves.sort_by(|a, b| a.0.cmp(&b.0));
    let their_moves: Vec<String> =
        sorted(theirs.legal_moves().iter().map(|m| m.to_uci(CastlingMode::Chess960).to_string()).collect());
    let our_uci: Vec<&str> = our_moves.iter().map(|(u, _)| u.as_str()).collect();
    if our_uci != their_moves {
        let missing: Vec<&String> = their_moves.iter().filter(|m| !our_uci.contains(&m.as_str())).collect();
        let extra: Vec<&&str> = our_uci.iter().filter(|m| !their_moves.iter().any(|t| t == **m)).collect();
        return Err(format!("legal moves differ: missing {missing:?}, extra {extra:?}"));
    }
    if count_legal_moves(ours) != list.len() as u64 {
        return Err(format!("count_legal_moves {} != {} moves", count_legal_moves(ours), list.len()));
    }
    if ours.in_check() != theirs.is_check() {
        return Err(format!("in_check {} but shakmaty says {}", ours.in_check(), theirs.is_check()));
    }
    let (mate, stalemate) = (list.is_empty() && ours.in_check(), list.is_empty() && !ours.in_check());
    if mate != theirs.is_checkmate() || stalemate != theirs.is_stalemate() {
        return Err(format!("mate/stalemate ({mate}, {stalemate}) disagree with shakmaty"));
    }
    cov.plies += 1;
    cov.moves_compared += list.len() as u64;
    cov.checks += ours.in_check() as u64;
    cov.checkmates += mate as u64;
    cov.stalemates += stalemate as u64;
    Ok(our_moves)
}

/// Every legal move, and a null move when not in check, made and unmade on a `Board`.
fn check_make_unmake(board: &mut Board, theirs: &Chess, cov: &mut Coverage) -> Result<(), String> {
    let before = *board.position();
    for &mv in legal_moves(&before).iter() {
        board.make_move(mv);
        let child = *board.position();
        board.unmake();
        if child.key() != child.compute_key() || child.pawn_key() != child.compute_pawn_key() {
            return Err(format!("after {mv:?}: incremental keys differ from the computed ones"));
        }
        let mut copy = before;
        copy.make_move(mv);
        if copy != child {
            return Err(format!("{mv:?}: Board::make_move and Position::make_move disagree"));
        }
        if *board.position() != before {
            return Err(format!("make/unmake of {mv:?} changed the position"));
        }
    }
    if !before.in_check() {
        board.make_null_move();
        let after = *board.position();
        board.unmake();
        if *board.position() != before {
            return Err("null move make/unmake changed the position".into());
        }
        if !after.is_consistent() || after.key() != after.compute_key() {
            return Err("inconsistent position after a null move".into());
        }
        if after.side_to_move() == before.side_to_move() || after.en_passant().is_some() {
            return Err("a null move must pass the turn and clear en passant".into());
        }
        let swapped = theirs.clone().swap_turn().map_err(|e| format!("shakmaty swap_turn: {e}"))?;
        let fields = |fen: &str| fen.split(' ').take(4).collect::<Vec<_>>().join(" ");
        if fields(&after.to_fen()) != fields(&shakmaty_fen(&swapped)) {
            return Err(format!(
                "null move gives '{}', shakmaty '{}'",
                after.to_fen(),
                shakmaty_fen(&swapped)
            ));
        }
        cov.null_moves += 1;
    }
    Ok(())
}

fn playout(index: usize, keys: &mut KeyIdentity, cov: &mut Coverage) -> Result<(), String> {
    let mut rng = StdRng::seed_from_u64(SEED ^ index as u64);
    let start = playout_start(index, &mut rng);
    let policy = MovePolicy::random(&mut rng);
    let mut board = Board::new(Position::from_fen(&start).map_err(|e| format!("bad start: {e}"))?);
    let mut theirs = parse_shakmaty(&start)?;
    let chess960 = start != engine::board::STARTPOS;
    let mut played: Vec<String> = Vec::new();
    let context = |played: &[String], board: &Board, e: String| {
        format!(
            "playout {index} from '{start}', after moves [{}] at '{}': {e}",
            played.join(" "),
            board.position().to_fen()
        )
    };

    for _ in 0..MAX_PLIES {
        let pos = *board.position();
        let moves = compare_ply(&pos, &theirs, keys, cov).map_err(|e| context(&played, &board, e))?;
        check_make_unmake(&mut board, &theirs, cov).map_err(|e| context(&played, &board, e))?;
        if moves.is_empty() {
            break;
        }
        let ours: Vec<Move> = moves.iter().map(|(_, m)| *m).collect();
        let mv = policy.choose(&ours, &mut rng);
        let uci = mv.to_uci(true);
        let their_move = theirs
            .legal_moves()
            .into_iter()
            .find(|m| m.to_uci(CastlingMode::Chess960).to_string() == uci)
            .expect("the move lists were just found equal");
        cov.castles += mv.is_castle() as u64;
        cov.chess960_castles += (mv.is_castle() && chess960) as u64;
        cov.en_passant += mv.is_en_passant() as u64;
        cov.promotions += mv.is_promotion() as u64;
        board.make_move(mv);
        theirs.play_unchecked(their_move);
        played.push(uci);
    }
    Ok(())
}

#[test]
fn random_playouts_agree_with_shakmaty() {
    let mut keys = KeyIdentity::default();
    let mut cov = Coverage::default();
    let mut failures = Vec::new();
    for index in 0..PLAYOUTS {
        if let Err(e) = playout(index, &mut keys, &mut cov) {
            eprintln!("{e}");
            failures.push(e);
            if failures.len() >= 10 {
                break;
            }
        }
    }
    eprintln!("differential playouts: {cov:?}, {} distinct positions", keys.key_of.len());
    assert!(failures.is_empty(), "{} playouts disagree:\n{}", failures.len(), failures.join("\n"));
    // The playouts must have reached the interesting cases at all.
    assert!(cov.plies > (PLAYOUTS * 50) as u64, "playouts too short: {cov:?}");
    for (what, n) in [
        ("checkmates", cov.checkmates),
        ("stalemates", cov.stalemates),
        ("castles", cov.castles),
        ("Chess960 castles", cov.chess960_castles),
        ("en-passant captures", cov.en_passant),
        ("promotions", cov.promotions),
    ] {
        assert!(n >= 10, "only {n} {what} in the playouts: {cov:?}");
    }
}
