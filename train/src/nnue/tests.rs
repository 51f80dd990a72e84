use super::*;
use crate::chess::{parse_fen, PieceType};
use crate::network::tests::positions;
use crate::network::SCALE;
use support::rng::Rng;

fn random_network(hidden: usize, buckets: usize, seed: u64) -> Network {
    let mut rng = Rng::new(seed);
    let mut net = Network::random(hidden, buckets, &mut rng);
    // Weights of a trained network's size: feature weights and biases within a few tenths,
    // output weights up to about one, with some at the clip.
    let h = hidden;
    for (i, w) in net.params.iter_mut().enumerate() {
        *w = if i < INPUTS * h {
            0.12 * rng.symmetric()
        } else if i < INPUTS * h + h {
            0.1 + 0.2 * rng.symmetric()
        } else {
            rng.symmetric()
        };
        if rng.below(200) == 0 {
            *w = if rng.below(2) == 0 { 1.98 } else { -1.98 };
        }
    }
    let biases = net.params.len() - buckets;
    for (b, w) in net.params[biases..].iter_mut().enumerate() {
        *w = 0.05 * (b as f32 - 1.5);
    }
    net
}

#[test]
fn output_buckets_cut_the_piece_counts_evenly() {
    let of = |buckets: usize| (0..=40).map(|n| output_bucket(n, buckets)).collect::<Vec<_>>();
    assert!(of(1).iter().all(|&b| b == 0));
    let eight = of(8);
    assert_eq!(
        (eight[0], eight[2], eight[5], eight[6], eight[29], eight[30], eight[32], eight[40]),
        (0, 0, 0, 1, 6, 7, 7, 7)
    );
    for buckets in 1..=MAX_OUTPUT_BUCKETS {
        let used: std::collections::BTreeSet<usize> = of(buckets).into_iter().collect();
        assert_eq!(used.len(), buckets, "{buckets} buckets");
        assert!(used.iter().all(|&b| b < buckets));
    }
}

#[test]
fn file_round_trip() {
    for (buckets, version, header) in [(1, 1, HEADER_LEN), (8, 2, HEADER_LEN_V2)] {
        let q = QuantisedNetwork::from_float(&random_network(32, buckets, 1));
        let bytes = q.to_bytes();
        assert_eq!(bytes.len(), header + QuantisedNetwork::body_len(32, buckets));
        assert_eq!(&bytes[0..4], b"LZNN");
        assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), version);
        assert_eq!(u32::from_le_bytes(bytes[12..16].try_into().unwrap()), 32);
        assert_eq!(q.hash(), u64::from_le_bytes(bytes[header - 8..header].try_into().unwrap()));
        assert_eq!(QuantisedNetwork::from_bytes(&bytes).unwrap(), q);
    }
    let q = QuantisedNetwork::from_float(&random_network(32, 3, 1));

    let path = std::env::temp_dir().join(format!("lazuli-train-{}-round.lznn", std::process::id()));
    q.write(&path).unwrap();
    let back = QuantisedNetwork::read(&path);
    std::fs::remove_file(&path).ok();
    assert_eq!(back.unwrap(), q);
}

#[test]
fn corrupt_network_files_name_the_field() {
    let good = QuantisedNetwork::from_float(&random_network(8, 1, 2)).to_bytes();
    let with = |offset: usize, value: u32| {
        let mut b = good.clone();
        b[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
        b
    };
    let mut flipped = good.clone();
    flipped[HEADER_LEN + 100] ^= 0x40;
    let mut longer = good.clone();
    longer.push(0);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"LZN".to_vec(), "length"),
        (with(0, u32::from_le_bytes(*b"LZNX")), "magic"),
        (with(4, 3), "version"),
        (with(8, 769), "inputs"),
        (with(12, 0), "hidden"),
        (with(12, 9), "length"),
        (with(12, u32::MAX), "hidden"),
        (with(16, 2), "activation"),
        (with(20, 256), "QA"),
        (with(24, 32), "QB"),
        (with(28, 100), "SCALE"),
        (flipped, "hash"),
        (good[..good.len() - 1].to_vec(), "length"),
        (longer, "length"),
    ];
    let bucketed = QuantisedNetwork::from_float(&random_network(8, 4, 2)).to_bytes();
    let with_buckets = |value: u32| {
        let mut b = bucketed.clone();
        b[32..36].copy_from_slice(&value.to_le_bytes());
        b
    };
    let cases = cases.into_iter().chain([
        (with_buckets(0), "output buckets"),
        (with_buckets(17), "output buckets"),
        (with_buckets(3), "length"),
        (bucketed[..42].to_vec(), "length"),
    ]);
    for (bytes, field) in cases {
        let err = QuantisedNetwork::from_bytes(&bytes).expect_err(field);
        assert!(err.0.starts_with(field), "{err} should name {field}");
    }
    let missing = std::env::temp_dir().join("lazuli-train-no-such-file.lznn");
    assert!(QuantisedNetwork::read(&missing).unwrap_err().contains("no-such-file"));
}

#[test]
fn integer_formula_by_hand() {
    // H = 1: the white king on e1 adds 0.5 (127.5 → 128) to a bias of 0.25 (63.75 → 64), so the
    // side to move's accumulator is 192 when White is to move; the black king on e8 seen by Black
    // is the same feature, so the other accumulator is 192 too.
    let mut net = Network::zeroed(1, 1);
    let king = crate::feature_index(Colour::White, Colour::White, PieceType::King, 4);
    net.params[king] = 0.5;
    net.params[INPUTS] = 0.25;
    net.params[INPUTS + 1] = 0.75; // → 96 at QB 128
    net.params[INPUTS + 2] = -0.25; // → -32
    net.params[INPUTS + 3] = 0.1; // → 0.1 · 255 · 128 = 3264
    let q = QuantisedNetwork::from_float(&net);
    assert_eq!(q.qb, 128, "every output weight fits QB 128");
    assert_eq!((q.feature_weights[king], q.feature_biases[0]), (128, 64));
    assert_eq!((q.output_weights.clone(), q.output_biases.clone()), (vec![96, -32], vec![3264]));
    let (pieces, stm) = parse_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap();
    // sum = 192² · 96 + 192² · (-32) = 2359296; / 255 = 9252; + 3264 = 12516; · 400 / 32640 = 153.
    assert_eq!(q.evaluate(&pieces, stm), 153);
    // An output weight beyond 0.99 (a network trained before the tighter clip) is kept at QB 64.
    let mut wide = net.clone();
    wide.params[INPUTS + 1] = 1.5;
    let q64 = QuantisedNetwork::from_float(&wide);
    assert_eq!(
        (q64.qb, q64.output_weights.clone(), q64.output_biases.clone()),
        (64, vec![96, -16], vec![1632])
    );
    let q = {
        let mut q = q;
        // The QB 64 form of the same network, for the hand computations below.
        q.qb = 64;
        q.output_weights = vec![48, -16];
        q.output_biases = vec![1632];
        q
    };
    // A negative total rounds toward zero: flip the output weights' signs and drop the bias.
    let mut neg = q.clone();
    neg.output_weights = vec![-48, 16];
    neg.output_biases = vec![0];
    // -1179648 / 255 = -4626 (toward zero); · 400 = -1850400; / 16320 = -113.38… → -113.
    assert_eq!(neg.evaluate(&pieces, stm), -113);
    // The largest bias does not overflow: (−4626 + 2³¹ − 1) · 400 / 16320 = 52 634 289.7 → 52 634 289.
    neg.output_biases = vec![i32::MAX];
    assert_eq!(neg.evaluate(&pieces, stm), 52_634_289);
}

/// The float network with the quantised weights put back into floats: the integer evaluation
/// must give its output up to the two truncating divisions (under 1.1 cp together).
fn dequantised(q: &QuantisedNetwork) -> Network {
    q.to_float(q.buckets).expect("the same bucket count")
}

#[test]
fn dequantising_then_quantising_gives_the_same_network() {
    for buckets in [1, 8] {
        let q = QuantisedNetwork::from_float(&random_network(64, buckets, 5));
        assert_eq!(QuantisedNetwork::from_float(&dequantised(&q)), q, "{buckets} buckets");
    }
}

#[test]
fn a_one_bucket_network_starts_a_bucketed_one_with_the_same_evaluations() {
    let one = QuantisedNetwork::from_float(&random_network(64, 1, 9));
    let eight = QuantisedNetwork::from_float(&one.to_float(8).unwrap());
    assert_eq!(eight.buckets, 8);
    for (pieces, stm) in positions() {
        assert_eq!(eight.evaluate(&pieces, stm), one.evaluate(&pieces, stm));
    }
    let message = eight.to_float(4).unwrap_err();
    assert!(message.contains("8 output buckets"), "{message}");
    assert_eq!(eight.to_float(8).unwrap().buckets, 8);
}

#[test]
fn integer_evaluation_is_the_formula_on_the_stored_weights() {
    let q = QuantisedNetwork::from_float(&random_network(256, 8, 7));
    let net = dequantised(&q);
    let mut spread = 0.0f32;
    for (pieces, stm) in positions() {
        for side in [stm, stm.flip()] {
            let float_cp = net.output(&pieces, side) * SCALE;
            let int_cp = q.evaluate(&pieces, side) as f32;
            assert!((float_cp - int_cp).abs() <= 1.1 + 1e-4 * float_cp.abs(), "{float_cp} vs {int_cp}");
            spread = spread.max(float_cp.abs());
        }
    }
    assert!(spread > 100.0, "outputs too small to mean anything: {spread}");
}

#[test]
fn quantised_output_follows_the_float_network() {
    use crate::network::Objective;
    use crate::optimiser::Schedule;
    use crate::trainer::{Settings, State, Trainer};
    let data = crate::network::tests::material_data(3000, 11);
    let settings = Settings {
        epochs: 4,
        batch: 128,
        lr: 0.005,
        schedule: Schedule::Step { every: 10, gamma: 0.3 },
        objective: Objective { wdl: 0.0, power: 2.0, k: 400.0 },
        mirror: false,
    };
    let mut trainer = Trainer::new(State::new(256, 1, 0.01, 3));
    trainer.run(&data, &[], &settings, &mut |_, _| Ok(())).unwrap();
    let net = &trainer.state.net;
    let q = QuantisedNetwork::from_float(net);
    // Rounding the output weights to 1/64 moves the output by some centipawns per active
    // neuron group; ±(2% + 10 cp) is the budget the quantisation is allowed.
    let mut spread = 0.0f32;
    for (pieces, stm) in positions() {
        for side in [stm, stm.flip()] {
            let float_cp = net.output(&pieces, side) * SCALE;
            let int_cp = q.evaluate(&pieces, side) as f32;
            let allowed = 0.02 * float_cp.abs() + 10.0;
            assert!((float_cp - int_cp).abs() <= allowed, "float {float_cp} cp, integer {int_cp} cp");
            spread = spread.max(float_cp.abs());
        }
    }
    assert!(spread > 100.0, "the trained network's outputs are too small to mean anything: {spread}");
}

#[test]
fn colour_mirrored_positions_evaluate_alike() {
    let q = QuantisedNetwork::from_float(&random_network(64, 4, 3));
    for (pieces, stm) in positions() {
        let mirrored: Vec<Piece> = pieces
            .iter()
            .map(|p| Piece { colour: p.colour.flip(), kind: p.kind, square: p.square ^ 56 })
            .collect();
        assert_eq!(q.evaluate(&pieces, stm), q.evaluate(&mirrored, stm.flip()));
    }
}
