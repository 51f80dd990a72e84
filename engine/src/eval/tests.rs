//! Evaluation tests: colour and file symmetry on random and fixed positions, cache agreement,
//! material sanity and endgame scaling.

use super::*;
use crate::board::{Position, STARTPOS};
use crate::movegen::legal_moves;

/// A small xorshift generator so the random positions are the same on every run.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Every position of `games` random games of up to `max_plies` plies from the start position.
fn random_positions(seed: u64, games: usize, max_plies: usize) -> Vec<Position> {
    let mut rng = XorShift(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::startpos();
        for _ in 0..max_plies {
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            pos.make_move(moves.get(rng.below(moves.len())));
            out.push(pos);
        }
    }
    out
}

const FENS: &[&str] = &[
    STARTPOS,
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/8/1p2k3/p1p1p3/P1P1P3/1P2K3/8/8 b - - 0 1",
    "6k1/5ppp/8/8/8/8/1P3PPP/6K1 w - - 0 1",
    "8/6k1/8/3B4/8/2b5/4PK2/8 w - - 0 1",
    "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
    "2r3k1/pp3ppp/8/3N4/8/1B6/PP3PPP/6K1 b - - 0 1",
    "r1b2rk1/pp2nppp/2n1p3/q2pP3/3P4/P1PB1N2/2Q2PPP/R1B1K2R w KQ - 1 11",
    "1k6/8/8/8/8/8/6P1/6K1 w - - 0 1",
    "8/8/8/8/8/5k2/6p1/6K1 b - - 0 1",
];

fn fixed_positions() -> Vec<Position> {
    FENS.iter().map(|f| Position::from_fen(f).expect("valid test FEN")).collect()
}

fn swap_case(c: char) -> char {
    if c.is_ascii_uppercase() {
        c.to_ascii_lowercase()
    } else {
        c.to_ascii_uppercase()
    }
}

/// The same position with colours swapped: ranks flipped, side to move, castling and en passant
/// mirrored.
fn flip_colors(pos: &Position) -> Position {
    let fen = pos.to_fen();
    let f: Vec<&str> = fen.split(' ').collect();
    let board: Vec<String> = f[0].split('/').rev().map(|r| r.chars().map(swap_case).collect()).collect();
    let stm = if f[1] == "w" { "b" } else { "w" };
    let castling: String = f[2].chars().map(|c| if c == '-' { c } else { swap_case(c) }).collect();
    let ep = match f[3].as_bytes() {
        [file, rank] => format!("{}{}", *file as char, (b'1' + b'8' - rank) as char),
        _ => "-".to_string(),
    };
    let flipped = format!("{} {stm} {castling} {ep} {} {}", board.join("/"), f[4], f[5]);
    Position::from_fen(&flipped).unwrap_or_else(|e| panic!("{flipped}: {e}"))
}

/// The same position mirrored a-file to h-file (castling rights dropped: they do not affect the
/// evaluation and need not survive the mirror).
fn mirror_files(pos: &Position) -> Position {
    let fen = pos.to_fen();
    let f: Vec<&str> = fen.split(' ').collect();
    let board: Vec<String> = f[0].split('/').map(|r| r.chars().rev().collect()).collect();
    let ep = match f[3].as_bytes() {
        [file, rank] => format!("{}{}", (b'a' + b'h' - file) as char, *rank as char),
        _ => "-".to_string(),
    };
    let mirrored = format!("{} {} - {ep} {} {}", board.join("/"), f[1], f[4], f[5]);
    Position::from_fen(&mirrored).unwrap_or_else(|e| panic!("{mirrored}: {e}"))
}

fn all_positions() -> Vec<Position> {
    let mut positions = fixed_positions();
    positions.extend(random_positions(0x9e37_79b9_7f4a_7c15, 60, 160));
    positions
}

fn eval(fen: &str) -> i32 {
    evaluate_uncached(&Position::from_fen(fen).expect("valid FEN"), &DEFAULT_PARAMS)
}

#[test]
fn colour_flip_gives_the_same_score() {
    let positions = all_positions();
    assert!(positions.len() > 1000, "only {} positions", positions.len());
    let mut cache = PawnCache::new(1 << 10);
    for pos in &positions {
        let flipped = flip_colors(pos);
        let a = evaluate_uncached(pos, &DEFAULT_PARAMS);
        let b = evaluate_uncached(&flipped, &DEFAULT_PARAMS);
        assert_eq!(a, b, "{} vs {}", pos.to_fen(), flipped.to_fen());
        assert_eq!(evaluate(&flipped, &mut cache), a, "{}", flipped.to_fen());
    }
}

/// PeSTO's tables are not left-right symmetric (they know where kings castle), so the file
/// mirror is checked with tables made symmetric: every other term must be file-symmetric.
#[test]
fn file_mirror_gives_the_same_score_with_symmetric_tables() {
    let mut params = Params::DEFAULT;
    for table in params.psqt.iter_mut() {
        for sq in 0..64 {
            if sq % 8 >= 4 {
                table[sq] = table[sq ^ 7];
            }
        }
    }
    for pos in &all_positions() {
        let mirrored = mirror_files(pos);
        let a = evaluate_uncached(pos, &params);
        let b = evaluate_uncached(&mirrored, &params);
        assert_eq!(a, b, "{} vs {}", pos.to_fen(), mirrored.to_fen());
    }
}

#[test]
fn cached_equals_uncached() {
    // A tiny cache so entries are replaced and probed again.
    let mut cache = PawnCache::new(16);
    let positions = all_positions();
    for _ in 0..2 {
        for pos in &positions {
            assert_eq!(
                evaluate(pos, &mut cache),
                evaluate_uncached(pos, &DEFAULT_PARAMS),
                "{}",
                pos.to_fen()
            );
        }
    }
    cache.clear();
    for pos in positions.iter().take(50) {
        assert_eq!(evaluate(pos, &mut cache), evaluate_uncached(pos, &DEFAULT_PARAMS));
    }
}

#[test]
fn scores_stay_in_bounds_and_trace_agrees() {
    for pos in &all_positions() {
        let score = evaluate_uncached(pos, &DEFAULT_PARAMS);
        assert!(score.abs() <= EVAL_LIMIT);
        let t = trace_with(pos, &DEFAULT_PARAMS);
        assert_eq!(t.stm_score, score, "{}", pos.to_fen());
    }
    let text = trace(&Position::startpos());
    assert!(text.contains("King safety") && text.contains("Final evaluation"), "{text}");
}

#[test]
fn start_position_is_about_even() {
    let score = eval(STARTPOS);
    assert!((0..=40).contains(&score), "start position scores {score}");
}

#[test]
fn extra_queen_is_clearly_winning() {
    let up = eval("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert!(up > 700, "queen up scores {up}");
    let down = eval("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1");
    assert!(down < -700, "queen down scores {down}");
    assert!(eval("4k3/8/8/8/8/8/8/3QK3 w - - 0 1") > 700);
    assert!(eval("4k3/8/8/8/8/8/8/3RK3 b - - 0 1") < -400);
}

#[test]
fn insufficient_material_scores_zero() {
    for fen in [
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/2N1K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/2B1K3 b - - 0 1",
        "4k3/8/3n4/8/8/8/8/2B1K3 w - - 0 1",
        "4kn2/8/8/8/8/8/8/1N2K3 w - - 0 1",
    ] {
        assert_eq!(eval(fen), 0, "{fen}");
    }
    // Two knights cannot force mate against a bare king: the endgame half is scaled to zero and
    // only the midgame half's small share (phase 2 of 24) remains.
    assert!(eval("4k3/8/8/8/8/8/8/1NN1K3 w - - 0 1").abs() < 80);
}

#[test]
fn drawish_endings_are_scaled_down() {
    // Rook against bishop, no pawns.
    assert!(eval("4k3/8/8/3b4/8/8/8/R3K3 w - - 0 1").abs() < 100);
    // Bishops and an extra pawn: opposite colours (d3 and e5) scale down, same colours do not.
    let scale = |fen| trace_with(&Position::from_fen(fen).expect("valid FEN"), &DEFAULT_PARAMS).scale;
    assert!(scale("4k3/8/4p3/4b3/8/3B4/3PP3/4K3 w - - 0 1") <= 32);
    assert_eq!(scale("4k3/8/4p3/3b4/8/3B4/3PP3/4K3 w - - 0 1"), 64);
    assert!(eval("4k3/8/4p3/4b3/8/3B4/3PP3/4K3 w - - 0 1") > 0);
    // A bishop and pawn up is a normal win.
    assert!(eval("4k3/8/8/8/8/8/3P4/2B1K3 w - - 0 1") > 300);
}

#[test]
fn passed_pawns_and_king_safety_point_the_right_way() {
    // An advanced passed pawn is worth more than a blocked one.
    let free = eval("4k3/8/P7/8/8/8/8/4K3 w - - 0 1");
    let blocked = eval("k7/8/P7/8/8/8/8/4K3 w - - 0 1");
    assert!(free > blocked, "free {free}, blocked {blocked}");
    // Losing the shelter in front of a castled king costs.
    let sheltered = eval("r4rk1/ppp2ppp/8/8/8/8/PPP2PPP/R4RK1 w - - 0 1");
    let open = eval("r4rk1/ppp2ppp/8/8/8/8/PPP5/R4RK1 w - - 0 1");
    assert!(sheltered > open + 100, "sheltered {sheltered}, open {open}");
}

#[test]
fn params_list_round_trips_through_set() {
    let defaults = Params::DEFAULT;
    let mut p = Params::DEFAULT;
    for (i, entry) in defaults.list().iter().enumerate() {
        assert!(p.set(i, entry.mg + 1, entry.eg - 1));
    }
    for (i, entry) in defaults.list().iter().enumerate() {
        assert!(p.set(i, entry.mg, entry.eg));
    }
    assert_eq!(p, defaults);
}

/// `tuned.rs` is exactly what `to_source` prints for the built-in set, so a tuner that
/// writes `to_source` output back produces the set it tuned.
#[test]
fn tuned_file_round_trips_through_to_source() {
    let file = include_str!("tuned.rs");
    let body = Params::DEFAULT.to_source();
    assert!(file.contains(&format!("= {body};")), "tuned.rs differs from DEFAULT.to_source()");
    assert_ne!(Params::HAND_SET.to_source(), String::new());
}
