//! The contract of the network file (`docs/network-format.md`): the constants of its header,
//! the input feature a piece is, the output bucket a position uses and the content hash. The
//! engine that reads networks and the trainer that writes them both take these from here, so
//! the two cannot drift apart; each keeps its own reader, writer and inference, which the
//! trainer's agreement test compares.

#![forbid(unsafe_code)]

/// The first four bytes of every network file.
pub const MAGIC: [u8; 4] = *b"LZNN";
/// The newest version; readers take every older one too.
pub const FORMAT_VERSION: u32 = 2;
/// The header of version 1: the magic, seven u32 fields and the u64 hash.
pub const HEADER_LEN: usize = 40;
/// The header of version 2: the output bucket count follows the seven fields.
pub const HEADER_LEN_V2: usize = 44;
/// Where version 2's output bucket count starts.
pub const BUCKETS_OFFSET: usize = 32;

/// Input features per perspective: 2 colours × 6 piece types × 64 squares.
pub const INPUTS: usize = 768;
/// Hidden weights and biases are stored as round(w · QA); an activation of 1.0 is QA.
pub const QA: i32 = 255;
/// Output weights are stored as round(w · QB); output biases as round(b · QA · QB). The header
/// names a network's QB, one of `QB_CHOICES`: 64 in the first networks, 128 (twice the
/// precision of the output layer) in those trained since.
pub const QB_CHOICES: [i32; 2] = [64, 128];
/// The QB the trainer writes.
pub const QB: i32 = 128;
/// The largest stored |output weight|: the SIMD evaluation multiplies it by an activation of at
/// most QA within i16 (255 · 128 < 2¹⁵), which is what keeps its shortcut exact.
pub const OUTPUT_WEIGHT_LIMIT: i32 = i16::MAX as i32 / QA;

/// The bound a float output weight is clipped to in training, so that it quantises well within
/// `OUTPUT_WEIGHT_LIMIT` at `qb` (1.98 at 64, 0.99 at 128).
pub const fn output_weight_clip(qb: i32) -> f32 {
    126.72 / qb as f32
}
/// The float network's output × SCALE is centipawns for the side to move.
pub const SCALE: i32 = 400;
/// The header's activation code for SCReLU, the only activation there is.
pub const ACTIVATION_SCRELU: u32 = 1;
/// The most output buckets a network may have (one for every two pieces on the board).
pub const MAX_OUTPUT_BUCKETS: usize = 16;

/// The input feature of a piece of `colour` (0 White, 1 Black) and `kind` (0 pawn to 5 king)
/// on `square` (0 = a1 to 63 = h8), seen from `perspective`: the perspective's own pieces in
/// the first half, and Black's view mirrored by rank so that each side sees itself as White.
#[inline]
pub const fn feature_index(perspective: usize, colour: usize, kind: usize, square: usize) -> usize {
    let side = if colour == perspective { 0 } else { INPUTS / 2 };
    let square = if perspective == 0 { square } else { square ^ 56 };
    side + 64 * kind + square
}

/// The output bucket of a position with `pieces` pieces on the board, of `buckets`: the counts
/// 2 to 32 cut into `buckets` runs of nearly equal length, fewest pieces first (with 8, runs of
/// four: 2-5, 6-9, …, 30-32). Counts outside 2 to 32 take the nearest run.
#[inline]
pub const fn output_bucket(pieces: usize, buckets: usize) -> usize {
    let pieces = if pieces < 2 {
        2
    } else if pieces > 32 {
        32
    } else {
        pieces
    };
    (pieces - 2) * buckets / 31
}

/// The content hash of the header: 64-bit FNV-1a of everything after the header.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_follow_the_format_document() {
        // White's pawn on a2: feature 8 for White; for Black an enemy pawn seen on a7.
        assert_eq!(feature_index(0, 0, 0, 8), 8);
        assert_eq!(feature_index(1, 0, 0, 8), 384 + 48);
        // Black's king on e8 is Black's own king on e1; for White an enemy king on e8.
        assert_eq!(feature_index(1, 1, 5, 60), 5 * 64 + 4);
        assert_eq!(feature_index(0, 1, 5, 60), 384 + 5 * 64 + 60);
        let mut seen = [false; INPUTS];
        for perspective in 0..2 {
            for colour in 0..2 {
                for kind in 0..6 {
                    for square in 0..64 {
                        seen[feature_index(perspective, colour, kind, square)] = true;
                    }
                }
            }
        }
        assert!(seen.iter().all(|&s| s), "every feature is some piece's");
    }

    #[test]
    fn buckets_cut_the_piece_counts_into_even_runs() {
        let eight: Vec<usize> = (2..=32).map(|n| output_bucket(n, 8)).collect();
        assert_eq!(&eight[..5], &[0, 0, 0, 0, 1]);
        assert_eq!(*eight.last().unwrap(), 7);
        for buckets in 1..=MAX_OUTPUT_BUCKETS {
            let used: std::collections::BTreeSet<usize> =
                (0..=40).map(|n| output_bucket(n, buckets)).collect();
            assert_eq!(used, (0..buckets).collect(), "{buckets} buckets");
        }
    }

    #[test]
    fn the_hash_is_fnv1a() {
        // The published 64-bit FNV-1a test vectors.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
