//! Reading and writing network files: a round trip, hand-computed evaluations that pin the byte
//! layout and the output formula, and every refusal.

use super::{extreme_network, fields_v2, network_file, values_for, Rng, FIELDS, FILE_LEN, VALUES};
use crate::board::Position;
use crate::board::{Color, Piece, PieceType, Square};
use crate::nnue::format::body_len;
use crate::nnue::{
    feature_index, output_bucket, HeaderField, LoadError, Network, HEADER_LEN, HEADER_LEN_V2, HIDDEN, INPUTS,
};

fn good_file() -> Vec<u8> {
    let mut rng = Rng::new(7);
    let values: Vec<i16> = (0..VALUES).map(|_| rng.within(100)).collect();
    network_file(b"LZNN", &FIELDS, &values, &[-1234])
}

fn load(bytes: &[u8]) -> Result<Network, LoadError> {
    Network::from_bytes(bytes)
}

#[test]
fn a_network_survives_a_round_trip() {
    for network in
        [Network::random(3), extreme_network(4, 1), extreme_network(5, 8), Network::random_bucketed(6, 16)]
    {
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

/// The header's QB scales the output layer: the same weights under QB 128 evaluate to half of
/// what they do under 64 (to the integer division's truncation), and a file keeps its QB when
/// written back.
#[test]
fn the_header_qb_scales_the_output_and_survives_a_round_trip() {
    let mut values = vec![0i16; VALUES];
    let bias_at = INPUTS * HIDDEN;
    values[bias_at..bias_at + HIDDEN].fill(100);
    values[bias_at + HIDDEN..bias_at + 2 * HIDDEN].fill(1);
    let start = Position::startpos();
    let mut fields = FIELDS;
    for (qb, expected) in [(64, 246), (128, 123)] {
        fields[HeaderField::Qb as usize] = qb;
        let file = network_file(b"LZNN", &fields, &values, &[0]);
        let network = load(&file).expect("QB 64 and 128 are both read");
        assert_eq!(network.qb(), qb as i32);
        assert_eq!(network.evaluate_position(&start), expected, "QB {qb}");
        assert_eq!(network.to_bytes(), file, "QB {qb} written back");
    }
    fields[HeaderField::Qb as usize] = 32;
    let e = load(&network_file(b"LZNN", &fields, &values, &[0])).expect_err("QB 32");
    assert!(e.to_string().contains("QB is 32, this engine reads 64 or 128"), "{e}");
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
        let network = load(&network_file(b"LZNN", &FIELDS, &values, &[bias])).expect("a good file");
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
    let network = load(&network_file(b"LZNN", &FIELDS, &values, &[0])).expect("a good file");
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
    let e = load(&network_file(b"LZNN", &fields, &values, &[0])).expect_err("hidden size 512");
    let text = e.to_string();
    assert!(text.contains("512") && text.contains("256") && text.contains("hidden size"), "{text}");
}

#[test]
fn wrong_lengths_are_refused() {
    let file = good_file();
    for len in [0, 3, 4, HEADER_LEN - 1] {
        assert_eq!(
            load(&file[..len]).expect_err("too short"),
            LoadError::TooShort { len, header: HEADER_LEN }
        );
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
        let e = load(&network_file(b"LZNN", &FIELDS, &values, &[0])).expect_err("out of range");
        assert_eq!(e, LoadError::OutputWeight { index, value });
    }
    let mut values = vec![0i16; VALUES];
    values[outputs..].fill(-128);
    values[outputs] = 128;
    load(&network_file(b"LZNN", &FIELDS, &values, &[0])).expect("±128 is allowed");
}

/// Eight buckets, every weight 0 and bucket b's bias 408·b: the output is 408·b · 400 / 16 320
/// = 10·b, so each position shows which bucket its piece count chose.
#[test]
fn version_2_picks_the_output_layer_by_piece_count() {
    let biases: Vec<i32> = (0..8).map(|b| 408 * b).collect();
    let file = network_file(b"LZNN", &fields_v2(8), &vec![0; values_for(8)], &biases);
    let network = load(&file).expect("a good version 2 file");
    assert_eq!(network.buckets(), 8);
    for (fen, pieces, bucket) in [
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", 2, 0),
        ("4k3/8/8/8/8/8/2P5/R3K3 b - - 0 1", 4, 0),
        ("4k3/p7/1n6/8/8/8/2P5/R3K3 w - - 0 1", 6, 1),
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", 6, 1),
        ("r1bqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1", 30, 7),
        (crate::board::STARTPOS, 32, 7),
    ] {
        let pos = Position::from_fen(fen).expect("valid FEN");
        assert_eq!(pos.occupied().count(), pieces, "{fen}");
        assert_eq!(output_bucket(pieces, 8), bucket, "{fen}");
        assert_eq!(network.evaluate_position(&pos), 10 * bucket as i32, "{fen}");
    }
    // Runs of four pieces: 2-5, 6-9, …, 26-29, 30-32.
    let runs: Vec<usize> = (2..=32).map(|n| output_bucket(n, 8)).collect();
    assert_eq!(runs[..8], [0, 0, 0, 0, 1, 1, 1, 1]);
    assert_eq!(runs[24..], [6, 6, 6, 6, 7, 7, 7]);
    for buckets in 1..=16 {
        let used: std::collections::BTreeSet<usize> = (0..=40).map(|n| output_bucket(n, buckets)).collect();
        assert_eq!(used, (0..buckets).collect(), "{buckets} buckets");
    }
}

/// A one-bucket network reads the same from a version 1 and a version 2 file: same content, same
/// hash, same evaluations. The engine writes it as version 1.
#[test]
fn one_bucket_is_the_same_network_in_either_version() {
    let mut rng = Rng::new(17);
    let values: Vec<i16> = (0..VALUES).map(|_| rng.within(100)).collect();
    let v1 = network_file(b"LZNN", &FIELDS, &values, &[777]);
    let v2 = network_file(b"LZNN", &fields_v2(1), &values, &[777]);
    let (a, b) = (load(&v1).expect("version 1"), load(&v2).expect("version 2"));
    assert_eq!(a.hash(), b.hash());
    let pos =
        Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1").unwrap();
    assert_eq!(a.evaluate_position(&pos), b.evaluate_position(&pos));
    assert_eq!(b.to_bytes(), v1);
}

#[test]
fn version_2_headers_are_checked() {
    let file = network_file(b"LZNN", &fields_v2(8), &vec![3; values_for(8)], &[5; 8]);
    assert_eq!(file.len(), HEADER_LEN_V2 + body_len(8));
    load(&file).expect("a good file");
    let with_buckets = |buckets: u32| {
        let mut bad = file.clone();
        bad[32..36].copy_from_slice(&buckets.to_le_bytes());
        bad
    };
    for buckets in [0, 17, u32::MAX] {
        let e = load(&with_buckets(buckets)).expect_err("a bucket count out of range");
        assert_eq!(e, LoadError::OutputBuckets { found: buckets });
        assert!(e.to_string().contains("output buckets"), "{e}");
    }
    let e = load(&with_buckets(7)).expect_err("seven buckets' length");
    assert_eq!(e, LoadError::Length { found: file.len(), expected: HEADER_LEN_V2 + body_len(7) });
    let e = load(&file[..42]).expect_err("a cut header");
    assert_eq!(e, LoadError::TooShort { len: 42, header: HEADER_LEN_V2 });
    assert!(e.to_string().contains("44-byte header"), "{e}");
    let mut later = file.clone();
    later[4..8].copy_from_slice(&3u32.to_le_bytes());
    let e = load(&later).expect_err("version 3");
    assert!(e.to_string().contains("format version is 3"), "{e}");
    // The hash covers the output biases at the end.
    let mut bias = file.clone();
    let last = bias.len() - 1;
    bias[last] ^= 1;
    assert!(matches!(load(&bias), Err(LoadError::Hash { .. })));
    // Output weights beyond the limit in the last bucket are found and located.
    let mut values = vec![0; values_for(8)];
    let last_weight = values.len() - 1;
    values[last_weight] = 129;
    let e = load(&network_file(b"LZNN", &fields_v2(8), &values, &[0; 8])).expect_err("out of range");
    assert_eq!(e, LoadError::OutputWeight { index: 8 * 2 * HIDDEN - 1, value: 129 });
}

#[test]
fn no_input_makes_the_reader_panic() {
    let files = [good_file(), extreme_network(98, 8).to_bytes()];
    let mut rng = Rng::new(99);
    for _ in 0..300 {
        let mut bytes = if rng.chance(2) {
            files[rng.below(2)].clone()
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
