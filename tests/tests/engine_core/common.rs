//! Helpers shared by the topic modules: Chess960 start positions, seeded random playouts, and
//! the positions the exhaustive checks run on.

use engine::board::{Move, Position, STARTPOS};
use engine::movegen::legal_moves;
use lazuli_tests::{read_epd, EpdEntry};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;

/// The back rank of Chess960 start position `n` (0..960) in the usual numbering, where 518 is the
/// standard array: light-square bishop, dark-square bishop, queen, the knight pair, then rook,
/// king, rook on the three squares left.
pub fn chess960_back_rank(n: u32) -> [char; 8] {
    assert!(n < 960, "Chess960 positions are numbered 0..960");
    let mut rank = [' '; 8];
    let mut rest = n;
    // Light squares on the first rank are b, d, f, h; dark squares a, c, e, g.
    rank[(rest % 4 * 2 + 1) as usize] = 'b';
    rest /= 4;
    rank[(rest % 4 * 2) as usize] = 'b';
    rest /= 4;
    place_on_nth_empty(&mut rank, (rest % 6) as usize, 'q');
    rest /= 6;
    // The ten ways to put two knights on five empty squares, in lexicographic order.
    let pairs: Vec<(usize, usize)> = (0..5).flat_map(|a| (a + 1..5).map(move |b| (a, b))).collect();
    let (first, second) = pairs[rest as usize];
    // Place the second knight first so the first one's index still counts the same squares.
    place_on_nth_empty(&mut rank, second, 'n');
    place_on_nth_empty(&mut rank, first, 'n');
    for piece in ['r', 'k', 'r'] {
        place_on_nth_empty(&mut rank, 0, piece);
    }
    rank
}

fn place_on_nth_empty(rank: &mut [char; 8], nth: usize, piece: char) {
    let file = (0..8).filter(|&f| rank[f] == ' ').nth(nth).expect("enough empty squares");
    rank[file] = piece;
}

/// The FEN of Chess960 start position `n`, castling rights in X-FEN (`KQkq`).
pub fn chess960_start_fen(n: u32) -> String {
    let black: String = chess960_back_rank(n).iter().collect();
    let white = black.to_ascii_uppercase();
    format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1")
}

/// A start position for playout `index`: even indices play standard chess, odd ones a random
/// Chess960 array.
pub fn playout_start(index: usize, rng: &mut StdRng) -> String {
    if index.is_multiple_of(2) {
        STARTPOS.to_string()
    } else {
        chess960_start_fen(rng.gen_range(0..960))
    }
}

/// How a playout picks its moves: uniformly, or preferring captures and promotions with some
/// probability so that games reach endings, promotions and mates more often.
#[derive(Clone, Copy, Debug)]
pub struct MovePolicy {
    pub noisy_bias: f64,
}

impl MovePolicy {
    pub fn random(rng: &mut StdRng) -> MovePolicy {
        MovePolicy { noisy_bias: [0.0, 0.3, 0.6, 0.9][rng.gen_range(0..4)] }
    }

    /// A legal move of `moves`, which must not be empty.
    pub fn choose(self, moves: &[Move], rng: &mut StdRng) -> Move {
        if rng.gen_bool(self.noisy_bias) {
            let noisy: Vec<Move> = moves.iter().copied().filter(|m| m.is_noisy()).collect();
            if let Some(&mv) = noisy.choose(rng) {
                return mv;
            }
        }
        *moves.choose(rng).expect("a move to choose from")
    }
}

/// Positions sampled from seeded random playouts played with our own generator: a few per game,
/// plus every position in check (up to a cap) so that evasions are well represented.
pub fn sampled_playout_positions(seed: u64, games: usize, per_game: usize) -> Vec<Position> {
    use rand::SeedableRng;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut in_check = 0;
    for game in 0..games {
        let start = playout_start(game, &mut rng);
        let mut pos = Position::from_fen(&start).expect("start positions are valid");
        let policy = MovePolicy::random(&mut rng);
        let mut plies = Vec::new();
        for _ in 0..200 {
            plies.push(pos);
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            pos.make_move(policy.choose(moves.as_slice(), &mut rng));
        }
        for _ in 0..per_game {
            out.push(plies[rng.gen_range(0..plies.len())]);
        }
        for p in plies.iter().filter(|p| p.in_check()) {
            if in_check < games && rng.gen_bool(0.2) {
                out.push(*p);
                in_check += 1;
            }
        }
    }
    out
}

/// The perft files, read once per caller: (file name, entries).
pub fn perft_files() -> Vec<(&'static str, Vec<EpdEntry>)> {
    ["perft.epd", "perft_tricky.epd", "perft960.epd"]
        .into_iter()
        .map(|name| {
            let entries = read_epd(name);
            assert!(!entries.is_empty(), "{name} holds no positions");
            (name, entries)
        })
        .collect()
}

/// Parses an EPD position, failing the test with the file and line on error.
pub fn parse_entry(file: &str, entry: &EpdEntry) -> Position {
    Position::from_fen(&entry.fen)
        .unwrap_or_else(|e| panic!("{file}:{}: cannot parse '{}': {e}", entry.line, entry.fen))
}

#[test]
fn chess960_numbering_matches_known_arrays() {
    assert_eq!(chess960_start_fen(518), STARTPOS);
    assert_eq!(chess960_back_rank(0).iter().collect::<String>(), "bbqnnrkr");
    assert_eq!(chess960_back_rank(959).iter().collect::<String>(), "rkrnnqbb");
    let mut seen = std::collections::HashSet::new();
    for n in 0..960 {
        let rank = chess960_back_rank(n);
        let files = |c: char| (0..8).filter(move |&f| rank[f] == c);
        let bishops: Vec<usize> = files('b').collect();
        let rooks: Vec<usize> = files('r').collect();
        let king = files('k').next().expect("a king");
        assert_eq!(bishops.len(), 2);
        assert_ne!(bishops[0] % 2, bishops[1] % 2, "{n}: bishops on opposite colours");
        assert!(rooks[0] < king && king < rooks[1], "{n}: king between the rooks");
        assert!(seen.insert(rank), "{n}: every number gives a different array");
        Position::from_fen(&chess960_start_fen(n)).expect("a valid start position");
    }
}
