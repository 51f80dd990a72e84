//! The trainer's integer reference and the engine's inference read the same network file and
//! must give the same integer for every position: the two are written separately against
//! docs/network-format.md, so this pins them to one reading of it.

use engine::board::Position;
use engine::nnue::Network as EngineNetwork;
use lazuli_tests::data_dir;
use support::rng::Rng;
use train::network::Network as FloatNetwork;
use train::QuantisedNetwork;

fn positions() -> Vec<String> {
    let mut fens = Vec::new();
    for suite in ["perft.epd", "perft_tricky.epd", "perft960.epd"] {
        let text = std::fs::read_to_string(data_dir().join(suite)).expect("the perft suites");
        fens.extend(
            text.lines()
                .filter_map(|l| l.split(';').next())
                .map(str::trim)
                .filter(|f| !f.is_empty())
                .map(String::from),
        );
    }
    assert!(fens.len() > 100);
    fens
}

/// Weights of the trainer's initial size, or (with `spread`) spread over the whole clipped range
/// so that the clamps and large sums are reached; `buckets` output buckets.
fn network(seed: u64, spread: bool, buckets: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut net = FloatNetwork::random(engine::nnue::HIDDEN, buckets, &mut rng);
    if spread {
        net.params.iter_mut().for_each(|w| *w = 1.98 * rng.symmetric());
    }
    QuantisedNetwork::from_float(&net).to_bytes()
}

#[test]
fn trainer_and_engine_agree_on_every_position() {
    let fens = positions();
    let cases =
        [(1, false, 1), (2, false, 1), (3, true, 1), (4, true, 1), (5, false, 8), (6, true, 8), (7, true, 5)];
    let mut scales = Vec::new();
    for (seed, spread, buckets) in cases {
        let bytes = network(seed, spread, buckets);
        let reference = QuantisedNetwork::from_bytes(&bytes).expect("the trainer reads its file");
        let engine = EngineNetwork::from_bytes(&bytes).expect("the engine reads the trainer's file");
        assert_eq!(engine.buckets(), buckets);
        assert_eq!(engine.qb(), reference.qb);
        scales.push(reference.qb);
        let mut nonzero = 0;
        for fen in &fens {
            let pos = Position::from_fen(fen).expect("suite FEN");
            let (pieces, stm) = train::chess::parse_fen(fen).expect("the trainer reads the FEN");
            let expected = reference.evaluate(&pieces, stm);
            assert_eq!(engine.evaluate_position(&pos), expected, "seed {seed}, {fen}");
            nonzero += usize::from(expected != 0);
        }
        assert!(nonzero * 2 > fens.len(), "seed {seed}: most evaluations are not zero");
    }
    // Small output weights quantise at QB 128, those spread to 1.98 at 64: both are compared.
    assert!(scales.contains(&64) && scales.contains(&128), "{scales:?}");
}
