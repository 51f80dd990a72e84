use super::super::{held_out, load as load_all, Format};
use super::game_hash;
use super::*;
use crate::chess::parse_fen;
use std::path::PathBuf;
use support::rng::Rng;
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
        let mut entries = Vec::new();
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
                entries.push(Entry::new(&pieces, stm, score, result));
            }
            assert!(board.make_move_simple(mv));
        }
        let start = bytes.len();
        game.serialise_into(&mut bytes).unwrap();
        ends.push(bytes.len());
        if held_out(game_hash(&bytes[start..])) {
            valid.extend(entries);
        } else {
            train.extend(entries);
        }
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

/// A fresh directory under the system's temporary one.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lazuli-train-{}-{name}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_directory_gives_its_data_files_in_name_order_and_duplicate_games_are_kept_once() {
    let dir = scratch("dir");
    let (bytes, train, valid, ends) = games(4, 60);
    // b.vf holds every game; a.vf its first 20 again; c.txt is not viriformat but named as text;
    // datagen's side files and a README are passed over.
    std::fs::write(dir.join("b.vf"), &bytes).unwrap();
    std::fs::write(dir.join("a.vf"), &bytes[..ends[19]]).unwrap();
    std::fs::write(dir.join("b.vf.done"), "1 2\n").unwrap();
    std::fs::write(dir.join("README.md"), "# data\n").unwrap();
    let (files, other) = crate::data::expand(std::slice::from_ref(&dir)).unwrap();
    assert_eq!(files, vec![dir.join("a.vf"), dir.join("b.vf")]);
    assert_eq!(other, 2);
    let data = load_all(&files, Format::Auto, Filter::default()).unwrap();
    assert_eq!((data.units, data.duplicates, data.files), (80, 20, 2));
    assert!(data.skipped.is_empty());
    // The same positions as from b.vf alone, and each game on the same side of the split.
    let (mut got, mut want) = (data.train.clone(), train.clone());
    got.sort_by_key(|e| format!("{e:?}"));
    want.sort_by_key(|e| format!("{e:?}"));
    assert_eq!(got, want);
    assert_eq!(data.valid.len(), valid.len());
    // The other order splits the same way.
    let reversed = load_all(&[dir.join("b.vf"), dir.join("a.vf")], Format::Viri, Filter::default()).unwrap();
    assert_eq!((reversed.train, reversed.valid), (train, valid));
    assert!(crate::data::expand(&[scratch("empty")]).is_err());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_damaged_file_is_left_out_whole_and_named_and_the_rest_is_read() {
    let dir = scratch("damaged");
    let (bytes, train, valid, ends) = games(5, 30);
    std::fs::write(dir.join("good.vf"), &bytes).unwrap();
    let (other, _, _, other_ends) = games(6, 11);
    // Ten good games, then one cut short: none of the file's games are kept.
    std::fs::write(dir.join("cut.vf"), &other[..other_ends[9] + 50]).unwrap();
    let files = [dir.join("cut.vf"), dir.join("good.vf")];
    let data = load_all(&files, Format::Viri, Filter::default()).unwrap();
    assert_eq!(data.skipped.len(), 1);
    let message = data.skipped[0].to_string();
    assert!(message.contains("cut.vf") && message.contains("truncated"), "{message}");
    assert_eq!((data.train, data.valid, data.files), (train, valid, 1));
    assert_eq!(data.units, 30);
    // Every file damaged: the first one's error.
    let only = load_all(&files[..1], Format::Viri, Filter::default());
    assert!(only.err().expect("an error").to_string().contains("cut.vf"));
    assert_eq!(ends.len(), 30);
    std::fs::remove_dir_all(&dir).ok();
}
