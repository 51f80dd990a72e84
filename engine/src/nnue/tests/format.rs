//! Reading and writing network files: a round trip, hand-computed evaluations that pin the byte
//! layout and the output formula, and every refusal.

use super::{extreme_network, network_file, Rng, FIELDS, VALUES};
use crate::board::Position;
use crate::board::{Color, Piece, PieceType, Square};
use crate::nnue::format::FILE_LEN;
use crate::nnue::{feature_index, HeaderField, LoadError, Network, HEADER_LEN, HIDDEN, INPUTS};

fn good_file() -> Vec<u8> {
    let mut rng = Rng::new(7);
    let values: Vec<i16> = (0..VALUES).map(|_| rng.within(100)).collect();
    network_file(b"LZNN", FIELDS, &values, -1234)
}

fn load(bytes: &[u8]) -> Result<Network, LoadError> {
    Network::from_bytes(bytes)
}

#[test]
fn a_network_survives_a_round_trip() {
    for network in [Network::random(3), extreme_network(4)] {
        let bytes = network.to_bytes();
        let again = load(&bytes).expect("what the engine writes, it reads");
        assert_eq!(again.to_bytes(), bytes);
        assert_eq!(again.hash(), network.hash());
        for fen in
            [crate::board::STARTPOS, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"]
        {
            let pos = Position::from_fen(fen).expect("valid FEN");
            assert_eq!(again.evaluate_position(&pos), network.evaluate_position(&pos));
        }
    }
    let file = good_file();
    assert_eq!(
        load(&file).expect("a good file").to_bytes(),
        file,
        "the engine's writer follows the document"
    );
}

/// Every hidden bias 100, the side to move's output weights 1, the other side's 0: both
/// accumulators hold 100 in every lane of the start position (all feature weights 0), so the
/// sum is 256 · 100² = 2 560 000, and the output is (2 560 000 / 255 + bias) · 400 / 16 320.
#[test]
fn the_output_follows_the_documented_formula() {
    let mut values = vec![0i16; VALUES];
    let bias_at = INPUTS * HIDDEN;
    values[bias_at..bias_at + HIDDEN].fill(100);
    values[bias_at + HIDDEN..bias_at + 2 * HIDDEN].fill(1);
    let start = Position::startpos();
    for (bias, expected) in [(0, 246), (-20_000, -244), (100_000, 2697)] {
        // 10 039 · 400 / 16 320 = 246.05; −9 961 · 400 / 16 320 = −244.1 (toward zero, not −245).
        let network = load(&network_file(b"LZNN", FIELDS, &values, bias)).expect("a good file");
        assert_eq!(network.evaluate_position(&start), expected, "output bias {bias}");
    }
}

/// One weight placed by the document's byte offsets lands on the feature the document names.
#[test]
fn feature_weights_are_feature_major_and_indexed_as_documented() {
    let mut values = vec![0i16; VALUES];
    let bias_at = INPUTS * HIDDEN;
    values[bias_at + HIDDEN] = 1; // the side to move's output weight for lane 0
                                  // White's king on e1: index 5 · 64 + 4 = 324 for White, 384 + 320 + (4 XOR 56) = 764 for Black.
    let white_view = 324;
    let black_view = 764;
    values[white_view * HIDDEN] = 200;
    values[black_view * HIDDEN + 1] = 77;
    assert_eq!(
        feature_index(Color::White, Piece::new(Color::White, PieceType::King), Square::new(4)),
        white_view
    );
    assert_eq!(
        feature_index(Color::Black, Piece::new(Color::White, PieceType::King), Square::new(4)),
        black_view
    );
    let network = load(&network_file(b"LZNN", FIELDS, &values, 0)).expect("a good file");
    // Black's king on a8 is feature 760 for White and 320 for Black: both weightless here.
    let kings = Position::from_fen("k7/8/8/8/8/8/8/4K3 w - - 0 1").expect("valid FEN");
    let acc = network.accumulate(&kings);
    assert_eq!(acc.perspective(Color::White).0[..2], [200, 0]);
    assert_eq!(acc.perspective(Color::Black).0[..2], [0, 77]);
    // White to move sees 200² · 1 = 40 000: 40 000 / 255 = 156, · 400 / 16 320 = 3.8 → 3.
    assert_eq!(network.evaluate_position(&kings), 3);
    // Black to move sees its own lane 0 at 0 and weighs nothing else.
    let black_to_move = Position::from_fen("k7/8/8/8/8/8/8/4K3 b - - 0 1").expect("valid FEN");
    assert_eq!(network.evaluate_position(&black_to_move), 0);
}

#[test]
fn each_header_field_is_checked_and_named() {
    let file = good_file();
    let mut magic = file.clone();
    magic[..4].copy_from_slice(b"LZNM");
    let e = load(&magic).expect_err("wrong magic");
    assert_eq!(e, LoadError::Magic { found: *b"LZNM" });
    assert!(e.to_string().contains("magic"), "{e}");
    for field in HeaderField::ALL {
        let mut bad = file.clone();
        let wrong = field.expected() + 1;
        bad[field.offset()..field.offset() + 4].copy_from_slice(&wrong.to_le_bytes());
        let e = load(&bad).expect_err("a wrong field");
        assert_eq!(e, LoadError::Field { field, found: wrong, expected: field.expected() });
        assert!(e.to_string().contains(field.name()), "{e}");
    }
}

#[test]
fn another_hidden_size_is_refused_naming_both_sizes() {
    let mut fields = FIELDS;
    fields[2] = 512;
    let values = vec![1i16; INPUTS * 512 + 512 + 2 * 512];
    let e = load(&network_file(b"LZNN", fields, &values, 0)).expect_err("hidden size 512");
    let text = e.to_string();
    assert!(text.contains("512") && text.contains("256") && text.contains("hidden size"), "{text}");
}

#[test]
fn wrong_lengths_are_refused() {
    let file = good_file();
    for len in [0, 3, 4, HEADER_LEN - 1] {
        assert_eq!(load(&file[..len]).expect_err("too short"), LoadError::TooShort { len });
    }
    for len in [HEADER_LEN, HEADER_LEN + 1, FILE_LEN / 2, FILE_LEN - 1] {
        let e = load(&file[..len]).expect_err("truncated");
        assert_eq!(e, LoadError::Length { found: len, expected: FILE_LEN });
        assert!(e.to_string().contains(&FILE_LEN.to_string()), "{e}");
    }
    let mut longer = file.clone();
    longer.push(0);
    assert_eq!(
        load(&longer).expect_err("a trailing byte"),
        LoadError::Length { found: FILE_LEN + 1, expected: FILE_LEN }
    );
}

#[test]
fn a_wrong_hash_is_refused() {
    let file = good_file();
    for at in [HEADER_LEN, HEADER_LEN + 12_345, FILE_LEN - 1] {
        let mut bad = file.clone();
        bad[at] ^= 0x10;
        assert!(matches!(load(&bad), Err(LoadError::Hash { .. })), "byte {at} changed");
    }
    let mut bad = file.clone();
    bad[32] ^= 1;
    let e = load(&bad).expect_err("a wrong stored hash");
    assert!(matches!(e, LoadError::Hash { .. }) && e.to_string().contains("hash"), "{e}");
}

#[test]
fn output_weights_beyond_the_limit_are_refused() {
    let outputs = INPUTS * HIDDEN + HIDDEN;
    for (value, index) in [(129, 0), (-129, 2 * HIDDEN - 1), (i16::MAX, HIDDEN), (i16::MIN, 7)] {
        let mut values = vec![0i16; VALUES];
        values[outputs + index] = value;
        let e = load(&network_file(b"LZNN", FIELDS, &values, 0)).expect_err("out of range");
        assert_eq!(e, LoadError::OutputWeight { index, value });
    }
    let mut values = vec![0i16; VALUES];
    values[outputs..].fill(-128);
    values[outputs] = 128;
    load(&network_file(b"LZNN", FIELDS, &values, 0)).expect("±128 is allowed");
}

#[test]
fn no_input_makes_the_reader_panic() {
    let file = good_file();
    let mut rng = Rng::new(99);
    for _ in 0..300 {
        let mut bytes = if rng.chance(2) {
            file.clone()
        } else {
            (0..rng.below(500)).map(|_| rng.next() as u8).collect()
        };
        for _ in 0..rng.below(4) {
            if !bytes.is_empty() {
                let at = rng.below(bytes.len());
                bytes[at] = rng.next() as u8;
            }
        }
        if rng.chance(2) {
            let keep = rng.below(bytes.len() + 1);
            bytes.truncate(keep);
        }
        let _ = load(&bytes);
    }
}

#[test]
fn files_are_read_from_disk_and_io_problems_named() {
    let dir = std::env::temp_dir().join(format!("lazuli-nnue-format-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join("good.nnue");
    std::fs::write(&path, good_file()).expect("write");
    assert!(Network::load_file(&path).is_ok());
    let missing = Network::load_file(&dir.join("missing.nnue")).expect_err("no such file");
    assert!(matches!(missing, LoadError::Io(_)) && missing.to_string().contains("cannot read"), "{missing}");
    assert!(matches!(Network::load_file(&dir), Err(LoadError::Io(_))), "a directory");
    std::fs::remove_dir_all(&dir).expect("clean up");
}
