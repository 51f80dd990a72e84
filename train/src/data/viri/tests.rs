use super::super::{held_out, load as load_all, Format};
use super::*;
use crate::chess::parse_fen;
use crate::rng::Rng;
use std::path::PathBuf;
use viriformat::chess::board::{GameOutcome, WinType};
use viriformat::dataformat::Game;

const STARTS: [&str; 4] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
];

/// Random games from the starting positions, written with viriformat's own serialiser, and the
/// entries the loader should make of them (from each kept position's FEN), split by game.
fn games(seed: u64, count: usize) -> (Vec<u8>, Vec<Entry>, Vec<Entry>, Vec<usize>) {
    let mut rng = Rng::new(seed);
    let mut kinds = [0usize; 3];
    let (mut bytes, mut train, mut valid, mut ends) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for g in 0..count {
        let mut board = Board::new();
        board.set_from_fen(STARTS[g % STARTS.len()], false).unwrap();
        let mut game = Game::new(&board);
        let result = (g % 3) as u8;
        game.set_outcome(match result {
            2 => GameOutcome::WhiteWin(WinType::Mate),
            0 => GameOutcome::BlackWin(WinType::Mate),
            _ => GameOutcome::Draw(viriformat::chess::board::DrawType::Stalemate),
        });
        for ply in 0..70 {
            let moves = board.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Castling, en passant and promotion are rare in random play: favour them, so that
            // the replay is tested on every kind of move.
            let special: Vec<_> =
                moves.iter().filter(|m| m.is_castle() || m.is_ep() || m.is_promo()).collect();
            let mv = if !special.is_empty() && rng.below(2) == 0 {
                *special[rng.below(special.len() as u64) as usize]
            } else {
                moves[rng.below(moves.len() as u64) as usize]
            };
            kinds[0] += usize::from(mv.is_castle());
            kinds[1] += usize::from(mv.is_ep());
            kinds[2] += usize::from(mv.is_promo());
            let score = if rng.below(10) == 0 { 31_000 } else { rng.below(1200) as i16 - 600 };
            game.add_move(mv, score);
            if ply >= 16 && !board.in_check() && !board.is_tactical(mv) && score.abs() < 10_000 {
                let (pieces, stm) = parse_fen(&board.to_string()).unwrap();
                let entry = Entry::new(&pieces, stm, score, result);
                if held_out(g as u64) {
                    valid.push(entry)
                } else {
                    train.push(entry)
                }
            }
            assert!(board.make_move_simple(mv));
        }
        game.serialise_into(&mut bytes).unwrap();
        ends.push(bytes.len());
    }
    if count > 20 {
        assert!(kinds.iter().all(|&k| k > 0), "castles, en passants, promotions: {kinds:?}");
    }
    (bytes, train, valid, ends)
}

fn load_bytes(name: &str, bytes: &[u8]) -> (Result<Dataset, DataError>, PathBuf) {
    let path = std::env::temp_dir().join(format!("lazuli-train-{}-{name}.vf", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    let result = load_all(std::slice::from_ref(&path), Format::Viri, Filter::default());
    std::fs::remove_file(&path).ok();
    (result, path)
}

#[test]
fn replays_games_and_keeps_the_filtered_positions() {
    let (bytes, train, valid, ends) = games(1, 120);
    let (data, _) = load_bytes("good", &bytes);
    let data = data.unwrap();
    assert_eq!(data.units, ends.len() as u64);
    assert!(!valid.is_empty() && train.len() > 4000, "{} / {}", train.len(), valid.len());
    assert_eq!(data.train, train);
    assert_eq!(data.valid, valid);
    // Mate scores, early plies, checks and captures went.
    assert!(data.filtered > 120 * 16);
}

#[test]
fn truncated_files_are_errors_at_every_cut() {
    let (bytes, _, _, ends) = games(2, 2);
    for cut in 0..bytes.len() {
        let (result, path) = load_bytes("cut", &bytes[..cut]);
        if cut == 0 || ends.contains(&cut) {
            assert!(result.is_ok(), "cut at {cut}");
        } else {
            let message = result.err().expect("an error").to_string();
            assert!(message.contains("truncated"), "{message}");
            assert!(
                message.contains(&*path.to_string_lossy()) && message.contains("byte offset"),
                "{message}"
            );
        }
    }
}

#[test]
fn corrupt_bytes_are_errors_not_panics() {
    let (bytes, _, _, ends) = games(3, 2);
    let mut refused = 0;
    for i in 0..bytes.len() {
        for change in [0xffu8, 0x01, 0x80] {
            let mut bad = bytes.clone();
            bad[i] ^= change;
            let (result, _) = load_bytes("fuzz", &bad);
            refused += usize::from(result.is_err());
        }
    }
    assert!(refused > bytes.len(), "only {refused} of {} changes refused", 3 * bytes.len());

    let named = |offset: usize, value: u8, want: &str| {
        let mut bad = bytes.clone();
        bad[offset] = value;
        let message = load_bytes("named", &bad).0.err().expect("an error").to_string();
        assert!(message.contains(want), "{message} lacks {want}");
    };
    named(30, 3, "byte offset 0: result byte 3");
    named(ends[0] + 30, 7, &format!("byte offset {}: result byte 7", ends[0]));
    named(8, 0x07, "piece code 7");
    named(24, 0x7f, "en-passant");
    named(25, 101, "halfmove clock");
    // The first move's destination moved onto the mover's own side of the board edge.
    named(33, bytes[33] ^ 0x0f, "byte offset 32");
}

#[test]
fn the_minimum_ply_counts_from_the_start_of_the_game() {
    // A game written after a random opening starts at move 5: its first record is ply 8.
    for (fen, first_ply) in [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 5", 8),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 5", 9),
    ] {
        let mut rng = Rng::new(7);
        let mut board = Board::new();
        board.set_from_fen(fen, false).unwrap();
        let mut game = Game::new(&board);
        game.set_outcome(GameOutcome::Draw(viriformat::chess::board::DrawType::Stalemate));
        let mut expected = 0;
        for ply in first_ply..first_ply + 40 {
            let moves = board.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.below(moves.len() as u64) as usize];
            game.add_move(mv, 10);
            expected += usize::from(ply >= 16 && !board.in_check() && !board.is_tactical(mv));
            assert!(board.make_move_simple(mv));
        }
        let mut bytes = Vec::new();
        game.serialise_into(&mut bytes).unwrap();
        let (data, _) = load_bytes("start-ply", &bytes);
        let data = data.unwrap();
        assert_eq!(data.train.len() + data.valid.len(), expected, "{fen}");
    }
}
