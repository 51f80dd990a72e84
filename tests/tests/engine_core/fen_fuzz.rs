//! FEN fuzzing with proptest: arbitrary strings, random boards with random fields, and valid FENs
//! with random edits are fed to `Position::from_fen`. It must never panic, and every accepted FEN
//! must round-trip (`to_fen` → `from_fen` gives an equal position; `to_fen` is a fixed point),
//! give a consistent position whose move list is not truncated and whose perft runs. Where
//! `shakmaty` reads the same text as the same position (equal FEN output), the legal moves and
//! perft(2) must also agree.
//!
//! The seed is fixed so CI is reproducible; set `PROPTEST_RNG_SEED` to explore other inputs and
//! `LAZULI_FUZZ_CASES` for more cases.

use super::common::{chess960_start_fen, perft_files};
use engine::board::Position;
use engine::movegen::perft::perft;
use engine::movegen::{count_legal_moves, legal_moves};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position as _};
use std::sync::atomic::{AtomicU64, Ordering};

/// Characters that FENs are made of, plus a few that they never contain.
const ALPHABET: &[char] = &[
    'p', 'n', 'b', 'r', 'q', 'k', 'P', 'N', 'B', 'R', 'Q', 'K', '1', '2', '3', '4', '5', '6', '7', '8', '9',
    '0', '/', ' ', '-', 'w', 'a', 'c', 'd', 'e', 'f', 'g', 'h', 'A', 'C', 'D', 'E', 'F', 'G', 'H', 'x', '\t',
    'é', '+',
];

#[derive(Default)]
struct Tally {
    accepted: AtomicU64,
    compared: AtomicU64,
}

fn cases(default: u32) -> u32 {
    std::env::var("LAZULI_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

fn runner(cases: u32) -> TestRunner {
    let mut config = Config { cases, failure_persistence: None, ..Config::default() };
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        config.rng_seed = RngSeed::Fixed(0x1a20_11f3);
    }
    TestRunner::new(config)
}

fn fail(msg: String) -> Result<(), TestCaseError> {
    Err(TestCaseError::fail(msg))
}

/// The property every input must satisfy.
fn check_fen(fen: &str, tally: &Tally) -> Result<(), TestCaseError> {
    let Ok(pos) = Position::from_fen(fen) else { return Ok(()) };
    tally.accepted.fetch_add(1, Ordering::Relaxed);
    let out = pos.to_fen();
    let again = match Position::from_fen(&out) {
        Ok(p) => p,
        Err(e) => return fail(format!("'{fen}' prints as '{out}', which is rejected: {e}")),
    };
    if again != pos {
        return fail(format!("'{fen}' -> '{out}' parses to a different position"));
    }
    if again.to_fen() != out {
        return fail(format!("to_fen is not a fixed point: '{out}' -> '{}'", again.to_fen()));
    }
    if !pos.is_consistent() {
        return fail(format!("'{fen}' gives an inconsistent position"));
    }
    let moves = legal_moves(&pos);
    if count_legal_moves(&pos) != moves.len() as u64 {
        return fail(format!("'{fen}': {} legal moves, list holds {}", count_legal_moves(&pos), moves.len()));
    }
    let our_perft = perft(&pos, 2);

    // Differential check where shakmaty reads the text as the very same position.
    let Ok(theirs) = Fen::from_ascii(fen.as_bytes())
        .map_err(|_| ())
        .and_then(|f| f.into_position::<Chess>(CastlingMode::Chess960).map_err(|_| ()))
    else {
        return Ok(());
    };
    if Fen::from_position(&theirs, EnPassantMode::Legal).to_string() != out {
        return Ok(());
    }
    tally.compared.fetch_add(1, Ordering::Relaxed);
    let mut ours: Vec<String> = moves.iter().map(|m| m.to_uci(true)).collect();
    let mut their: Vec<String> =
        theirs.legal_moves().iter().map(|m| m.to_uci(CastlingMode::Chess960).to_string()).collect();
    ours.sort();
    their.sort();
    if ours != their {
        return fail(format!("'{out}': legal moves {ours:?}, shakmaty {their:?}"));
    }
    let their_perft = shakmaty::perft(&theirs, 2);
    if our_perft != their_perft {
        return fail(format!("'{out}': perft(2) {our_perft}, shakmaty {their_perft}"));
    }
    Ok(())
}

fn run<S: Strategy>(name: &str, strategy: S, cases: u32, min_accepted: u64, min_compared: u64)
where
    S::Value: AsRef<str>,
{
    let tally = Tally::default();
    let result = runner(cases).run(&strategy, |input| check_fen(input.as_ref(), &tally));
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
    let (accepted, compared) = (tally.accepted.into_inner(), tally.compared.into_inner());
    eprintln!("fen fuzz {name}: {cases} cases, {accepted} accepted, {compared} compared with shakmaty");
    assert!(accepted >= min_accepted, "{name}: only {accepted} inputs accepted");
    assert!(compared >= min_compared, "{name}: only {compared} inputs compared with shakmaty");
}

/// Valid FENs to start mutating from: the perft files and some Chess960 start positions.
fn seed_fens() -> Vec<String> {
    let mut fens: Vec<String> =
        perft_files().into_iter().flat_map(|(_, entries)| entries.into_iter().map(|e| e.fen)).collect();
    fens.extend((0..960).step_by(37).map(chess960_start_fen));
    fens
}

#[test]
fn arbitrary_strings_never_panic() {
    let strategy = prop_oneof![
        any::<String>(),
        "[pnbrqkPNBRQK1-9/]{0,70} [wbx-]{0,2} [KQkqA-Ha-h-]{0,5} [a-h1-8-]{0,3}( [0-9]{0,6}){0,3}",
    ];
    run("arbitrary strings", strategy, cases(10_000), 0, 0);
}

/// A random board with random fields: a sprinkling of pieces of random density (pawns only where
/// pawns can stand), two kings, and half the time kings and rooks on their back ranks so that the
/// castling field is often meaningful.
fn random_board_fen() -> impl Strategy<Value = String> {
    let squares = prop::collection::vec(0u8..100, 64);
    let density = 3u8..30;
    let kings = (0usize..64, 0usize..64, 0usize..8, 0usize..8);
    let back_rank_rooks = (prop::bool::ANY, prop::collection::vec(0usize..16, 0..5));
    let letters =
        vec!['K', 'Q', 'k', 'q', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'a', 'b', 'c', 'd', 'g', 'h'];
    let castling = prop_oneof![
        Just("-".to_string()),
        prop::sample::subsequence(vec!['K', 'Q', 'k', 'q'], 1..5).prop_map(String::from_iter),
        prop::sample::subsequence(letters, 1..4).prop_map(String::from_iter),
    ];
    let ep = prop_oneof![3 => Just("-".to_string()), 1 => "[a-h][36]", 1 => "[a-h][1-8]"];
    let clocks = prop_oneof![Just(String::new()), Just("0 1".to_string()), "[0-9]{1,5} [0-9]{1,5}"];
    (squares, density, kings, back_rank_rooks, prop::bool::ANY, castling, ep, clocks).prop_map(
        |(
            squares,
            density,
            (wk, bk, wk_file, bk_file),
            (castle_setup, rooks),
            white,
            castling,
            ep,
            clocks,
        )| {
            // Index 0 is a8, 63 is h1.
            let mut board: Vec<char> = squares
                .iter()
                .enumerate()
                .map(|(i, &v)| {
                    let piece =
                        if v < density { "pnbrqPNBRQ".as_bytes()[v as usize % 10] as char } else { ' ' };
                    let back_rank = !(8..56).contains(&i);
                    if back_rank && piece.eq_ignore_ascii_case(&'p') {
                        ' '
                    } else {
                        piece
                    }
                })
                .collect();
            let (wk, bk) = if castle_setup { (56 + wk_file, bk_file) } else { (wk, bk) };
            if castle_setup {
                for r in rooks {
                    let (square, rook) = if r < 8 { (56 + r, 'R') } else { (r - 8, 'r') };
                    board[square] = rook;
                }
            }
            board[wk] = 'K';
            board[bk] = 'k';
            let stm = if white { 'w' } else { 'b' };
            format!("{} {stm} {castling} {ep} {clocks}", placement(&board)).trim_end().to_string()
        },
    )
}

/// The FEN placement field of 64 squares, a8 first, `' '` for empty.
fn placement(board: &[char]) -> String {
    let mut out = String::new();
    for (i, row) in board.chunks(8).enumerate() {
        let mut empty = 0;
        for &c in row {
            if c == ' ' {
                empty += 1;
                continue;
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
                empty = 0;
            }
            out.push(c);
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
        if i < 7 {
            out.push('/');
        }
    }
    out
}

#[test]
fn random_boards_round_trip() {
    run("random boards", random_board_fen(), cases(20_000), 1_000, 1_000);
}

#[derive(Clone, Debug)]
enum Edit {
    /// Replace the n-th piece letter of the placement by another letter or an empty square.
    Piece(usize, char),
    Replace(usize, char),
    Insert(usize, char),
    Delete(usize),
    /// Replace one whole space-separated field by a random token.
    Field(usize, String),
}

fn apply(fen: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = fen.chars().collect();
    for edit in edits {
        let len = chars.len().max(1);
        match edit {
            Edit::Piece(n, c) => {
                let pieces: Vec<usize> = chars
                    .iter()
                    .take_while(|&&ch| ch != ' ')
                    .enumerate()
                    .filter(|(_, ch)| ch.is_ascii_alphabetic())
                    .map(|(i, _)| i)
                    .collect();
                if !pieces.is_empty() {
                    chars[pieces[n % pieces.len()]] = *c;
                }
            }
            Edit::Replace(i, c) if !chars.is_empty() => chars[i % len] = *c,
            Edit::Insert(i, c) => chars.insert(i % (chars.len() + 1), *c),
            Edit::Delete(i) if !chars.is_empty() => {
                chars.remove(i % len);
            }
            Edit::Field(i, token) => {
                let text: String = chars.iter().collect();
                let mut fields: Vec<&str> = text.split(' ').collect();
                let n = fields.len();
                fields[i % n] = token;
                chars = fields.join(" ").chars().collect();
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

#[test]
fn mutated_fens_round_trip() {
    let seeds = seed_fens();
    let edit = prop_oneof![
        4 => (any::<usize>(), prop::sample::select(&['p', 'n', 'b', 'r', 'q', 'k', 'P', 'N', 'B', 'R', 'Q', 'K', '1'][..]))
            .prop_map(|(i, c)| Edit::Piece(i, c)),
        1 => (any::<usize>(), prop::sample::select(ALPHABET)).prop_map(|(i, c)| Edit::Replace(i, c)),
        1 => (any::<usize>(), prop::sample::select(ALPHABET)).prop_map(|(i, c)| Edit::Insert(i, c)),
        1 => any::<usize>().prop_map(Edit::Delete),
        2 => (any::<usize>(), "[KQkqA-Ha-h]{1,4}|[a-h][1-8]|-|[wb]|[0-9]{1,6}")
            .prop_map(|(i, t)| Edit::Field(i, t)),
    ];
    let strategy = (prop::sample::select(seeds), prop::collection::vec(edit, 1..3))
        .prop_map(|(fen, edits)| apply(&fen, &edits));
    run("mutated FENs", strategy, cases(20_000), 1_000, 1_000);
}
