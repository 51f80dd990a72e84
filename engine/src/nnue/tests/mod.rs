//! Tests of the network: the file format and its refusals, the SIMD paths against the portable
//! one, the incremental accumulators against ones computed from scratch, colour symmetry, and
//! searching with a network.

mod copies;
mod format;
mod incremental;
mod kernels;
mod search;
mod symmetry;

use super::fnv1a;
use super::format::body_len;
use super::{Network, HEADER_LEN, HEADER_LEN_V2, HIDDEN, INPUTS};
use crate::board::{Color, Position};

/// The exact length of a one-bucket (version 1) file for this engine's architecture.
pub(super) const FILE_LEN: usize = HEADER_LEN + body_len(1);

/// The shared seeded generator, so every run sees the same cases, with the draws these tests
/// want.
pub(super) struct Rng(support::rng::Rng);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(support::rng::Rng::new(seed))
    }

    pub fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    pub fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }

    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    /// Any i16, the extremes and the clamp edges far more often than chance would give them.
    pub fn extreme_i16(&mut self) -> i16 {
        const EDGES: [i16; 10] = [i16::MIN, i16::MIN + 1, -256, -1, 0, 1, 254, 255, 256, i16::MAX];
        if self.chance(3) {
            EDGES[self.below(EDGES.len())]
        } else {
            self.next() as i16
        }
    }

    /// An i16 in `-limit..=limit`, the ends often.
    pub fn within(&mut self, limit: i16) -> i16 {
        match self.below(6) {
            0 => limit,
            1 => -limit,
            _ => (self.below(2 * limit as usize + 1) as i32 - i32::from(limit)) as i16,
        }
    }
}

/// The positions of an EPD file of the test data.
pub(super) fn epd_positions(name: &str) -> Vec<Position> {
    let path = crate::test_data_dir().join(name);
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let fen = line.split(';').next().unwrap_or_default();
            Position::from_fen(fen).unwrap_or_else(|e| panic!("{name}: '{fen}': {e}"))
        })
        .collect()
}

/// A file in the documented format, written here from the document rather than by the engine's
/// writer: header fields (`fields` in file order after the magic: seven for version 1, eight
/// with the bucket count for version 2), the i16 values in file order, the output biases, and
/// the FNV-1a hash of everything after the header.
pub(super) fn network_file(
    magic: &[u8; 4],
    fields: &[u32],
    values: &[i16],
    output_biases: &[i32],
) -> Vec<u8> {
    let mut payload = Vec::new();
    for v in values {
        payload.extend_from_slice(&v.to_le_bytes());
    }
    for b in output_biases {
        payload.extend_from_slice(&b.to_le_bytes());
    }
    let mut bytes = magic.to_vec();
    for f in fields {
        bytes.extend_from_slice(&f.to_le_bytes());
    }
    bytes.extend_from_slice(&fnv1a(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    bytes
}

/// The header fields of a version 1 file this engine reads.
pub(super) const FIELDS: [u32; 7] = [1, INPUTS as u32, HIDDEN as u32, 1, 255, 64, 400];

/// The header fields of a version 2 file with `buckets` output buckets.
pub(super) fn fields_v2(buckets: u32) -> [u32; 8] {
    [2, INPUTS as u32, HIDDEN as u32, 1, 255, 64, 400, buckets]
}

/// The i16 values in file order for one output bucket: feature weights, feature biases, output
/// weights.
pub(super) const VALUES: usize = INPUTS * HIDDEN + HIDDEN + 2 * HIDDEN;

/// The same for `buckets` output buckets.
pub(super) fn values_for(buckets: usize) -> usize {
    INPUTS * HIDDEN + HIDDEN + buckets * 2 * HIDDEN
}

/// A network whose hidden weights and biases take any i16 (the accumulators wrap around), whose
/// output weights reach the limit and whose output biases take any i32.
pub(super) fn extreme_network(seed: u64, buckets: usize) -> Network {
    let mut rng = Rng::new(seed);
    let values: Vec<i16> = (0..values_for(buckets))
        .map(|i| if i < INPUTS * HIDDEN + HIDDEN { rng.extreme_i16() } else { rng.within(128) })
        .collect();
    let biases: Vec<i32> = (0..buckets).map(|_| rng.next() as i32).collect();
    let bytes = if buckets == 1 {
        network_file(b"LZNN", &FIELDS, &values, &biases)
    } else {
        network_file(b"LZNN", &fields_v2(buckets as u32), &values, &biases)
    };
    let header = if buckets == 1 { HEADER_LEN } else { HEADER_LEN_V2 };
    assert_eq!(bytes.len(), header + body_len(buckets));
    Network::from_bytes(&bytes).expect("a well-formed file")
}

/// The accumulator of `pos` straight from the document's definitions: biases plus the column of
/// `(c == p ? 0 : 384) + 64·t + (p == White ? s : s XOR 56)` for every piece, wrapping in i16.
pub(super) fn reference_accumulator(network: &Network, pos: &Position) -> [[i16; HIDDEN]; 2] {
    let mut acc = [network.feature_bias().0; 2];
    for (p, perspective) in Color::ALL.into_iter().enumerate() {
        for sq in pos.occupied() {
            let piece = pos.piece_on(sq).expect("occupied");
            let s = sq.index();
            let index = if piece.color() == perspective { 0 } else { 384 }
                + 64 * piece.kind().index()
                + if perspective == Color::White { s } else { s ^ 56 };
            for (a, w) in acc[p].iter_mut().zip(network.feature_weights()[index].0.iter()) {
                *a = a.wrapping_add(*w);
            }
        }
    }
    acc
}

#[test]
fn the_file_length_is_the_documented_one() {
    assert_eq!(FILE_LEN, 40 + 768 * 256 * 2 + 256 * 2 + 2 * 256 * 2 + 4);
    assert_eq!(HEADER_LEN + 2 * VALUES + 4, FILE_LEN);
    assert_eq!(Network::random(1).to_bytes().len(), FILE_LEN);
    // Version 2: four more header bytes, and per bucket 2H output weights and one i32 bias.
    assert_eq!(HEADER_LEN_V2 + body_len(8), 44 + 768 * 256 * 2 + 256 * 2 + 8 * (2 * 256 * 2 + 4));
    assert_eq!(Network::random_bucketed(1, 8).to_bytes().len(), HEADER_LEN_V2 + body_len(8));
}

#[test]
fn the_embedded_network_loads() {
    let network = Network::from_bytes(super::EMBEDDED_NETWORK).expect("the embedded network loads");
    assert_eq!(super::default_network().hash(), network.hash());
}

#[test]
fn each_bucket_scores_the_position_and_the_chosen_one_is_the_evaluation() {
    let network = Network::random_bucketed(3, 8);
    for fen in
        [crate::board::STARTPOS, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", "8/8/4k3/8/8/3K4/8/8 b - - 0 1"]
    {
        let pos = Position::from_fen(fen).expect("valid FEN");
        let scores = network.bucket_scores(&pos);
        assert_eq!(scores.len(), 8);
        let chosen = super::output_bucket(pos.occupied().count(), 8);
        assert_eq!(scores[chosen], network.evaluate_position(&pos), "{fen}");
        // The random network's buckets differ by their biases, so every bucket is its own.
        for pair in scores.windows(2) {
            assert_ne!(pair[0], pair[1], "{fen}: {scores:?}");
        }
    }
}
