//! Picker perft: the staged move picker must yield exactly the legal moves, each once, whatever it
//! is given. Over every line of `perft.epd` and `perft_tricky.epd` and a spread of `perft960.epd`,
//! the tree is walked a few plies with the picker as the move generator, and the leaf count must
//! equal the file's perft count (which the legal generator also meets: `perft.rs`).
//!
//! At every node the picker is run several times more, each with another setup, and the moves it
//! yields are compared with `legal_moves` as sets (a lost move, a repeated one or an illegal one
//! fails):
//!
//! - main search, with and without a table move (legal here, legal elsewhere, or a random 16-bit
//!   value), killers and a counter move (legal quiet moves, captures, moves of a sibling, random
//!   values, duplicates of each other and of the table move), in check and not;
//! - main search with `skip_quiets` called after a random number of moves (one at least, as the
//!   search calls it from its move loop): from then on the
//!   quiet moves that do not give check are left out, and nothing else (in check, nothing);
//! - quiescence: the legal captures and promotions without the underpromotions, plus a noisy
//!   table move; in check every evasion.
//!
//! The histories are filled with random values so that the ordering, not only the generation,
//! is exercised. A legal table move that the picker accepts must come first.

use super::common::{parse_entry, perft_files};
use engine::board::{Color, Move, Piece, PieceType, Position};
use engine::movegen::legal_moves;
use engine::search::history::{ContKey, Histories};
use engine::search::picker::MovePicker;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The deepest count of each line up to this many leaves is walked (standard files).
const LEAF_LIMIT: u64 = 100_000;
/// The same for the Chess960 lines, of which every `STRIDE_960`-th is walked.
const LEAF_LIMIT_960: u64 = 30_000;
const STRIDE_960: usize = 6;
/// Extra picker runs per node, each with its own random setup.
const SETUPS: usize = 3;

/// More moves than any position has: a picker that loops is cut off here and fails.
const RUNAWAY: usize = 512;

/// What a searcher would hand the picker at a node.
#[derive(Clone, Copy, Debug)]
struct Setup {
    tt: Move,
    killers: [Move; 2],
    counter: Move,
    cont: [Option<ContKey>; 2],
}

/// Random histories: every table gets values of both signs, so orderings differ between nodes.
fn random_histories(rng: &mut StdRng) -> Box<Histories> {
    let mut hist = Histories::new();
    let pieces: Vec<Piece> =
        Color::ALL.iter().flat_map(|&c| PieceType::ALL.iter().map(move |&t| Piece::new(c, t))).collect();
    for _ in 0..40_000 {
        let mv = Move::from_raw(rng.gen());
        let piece = *pieces.choose(rng).expect("twelve pieces");
        let bonus = rng.gen_range(-2000..=2000);
        match rng.gen_range(0..3) {
            0 => hist.update_butterfly(piece.color(), mv, bonus),
            1 => {
                let victim = [
                    PieceType::Pawn,
                    PieceType::Knight,
                    PieceType::Bishop,
                    PieceType::Rook,
                    PieceType::Queen,
                ][rng.gen_range(0..5)];
                hist.update_capture(piece, mv, victim, bonus);
            }
            _ => {
                let key =
                    ContKey { piece: *pieces.choose(rng).expect("twelve pieces"), to: rng.gen_range(0..64) };
                hist.update_continuation(Some(key), piece, mv, bonus);
            }
        }
    }
    hist
}

/// Every move the picker yields, in order (cut off if it never ends).
fn drain(picker: &mut MovePicker, pos: &Position, hist: &Histories, out: &mut Vec<Move>) {
    while let Some(mv) = picker.next(pos, hist) {
        out.push(mv);
        if out.len() > RUNAWAY {
            return;
        }
    }
}

fn uci(moves: &[Move]) -> String {
    moves.iter().map(|m| m.to_uci(true)).collect::<Vec<_>>().join(" ")
}

/// `got` must be `expected` as a set, with no move twice.
fn same_moves(got: &[Move], expected: &[Move]) -> Result<(), String> {
    let mut sorted: Vec<Move> = got.to_vec();
    sorted.sort_by_key(|m| m.raw());
    let repeated: Vec<Move> = sorted.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0]).collect();
    let lost: Vec<Move> = expected.iter().copied().filter(|m| !got.contains(m)).collect();
    let extra: Vec<Move> = got.iter().copied().filter(|m| !expected.contains(m)).collect();
    if repeated.is_empty() && lost.is_empty() && extra.is_empty() && got.len() <= RUNAWAY {
        return Ok(());
    }
    Err(format!(
        "repeated [{}], lost [{}], not expected [{}] (yielded {} moves: {})",
        uci(&repeated),
        uci(&lost),
        uci(&extra),
        got.len(),
        uci(got)
    ))
}

fn gives_check(pos: &Position, mv: Move) -> bool {
    let mut after = *pos;
    after.make_move(mv);
    after.in_check()
}

/// A move for a table, killer or counter slot: legal here (quiet or not), legal somewhere else,
/// random bits, or none.
fn slot_move(rng: &mut StdRng, legal: &[Move], elsewhere: &[Move]) -> Move {
    let quiet: Vec<Move> = legal.iter().copied().filter(|m| m.is_quiet()).collect();
    let noisy: Vec<Move> = legal.iter().copied().filter(|m| m.is_noisy()).collect();
    let pick = |list: &[Move], rng: &mut StdRng| list.choose(rng).copied().unwrap_or(Move::NULL);
    match rng.gen_range(0..10) {
        0..=3 => pick(&quiet, rng),
        4 | 5 => pick(&noisy, rng),
        6 | 7 => pick(elsewhere, rng),
        8 => Move::from_raw(rng.gen()),
        _ => Move::NULL,
    }
}

fn random_setup(rng: &mut StdRng, legal: &[Move], elsewhere: &[Move], cont: [Option<ContKey>; 2]) -> Setup {
    let mut setup = Setup {
        tt: slot_move(rng, legal, elsewhere),
        killers: [slot_move(rng, legal, elsewhere), slot_move(rng, legal, elsewhere)],
        counter: slot_move(rng, legal, elsewhere),
        cont,
    };
    // The duplicates a search produces: a killer that is also the table move, both killers the
    // same, a counter move that is a killer.
    match rng.gen_range(0..6) {
        0 => setup.killers[0] = setup.tt,
        1 => setup.killers[1] = setup.killers[0],
        2 => setup.counter = setup.killers[rng.gen_range(0..2)],
        3 => setup.counter = setup.tt,
        _ => {}
    }
    setup
}

/// Whether a legal table move must be yielded first by a picker of this kind.
fn tt_first(pos: &Position, tt: Move, legal: &[Move], qsearch: bool) -> bool {
    legal.contains(&tt) && (!qsearch || pos.in_check() || tt.is_noisy())
}

fn check_main(pos: &Position, hist: &Histories, setup: &Setup, legal: &[Move]) -> Result<Vec<Move>, String> {
    let mut picker = MovePicker::new(pos, setup.tt, setup.killers, setup.counter, setup.cont);
    let mut got = Vec::new();
    drain(&mut picker, pos, hist, &mut got);
    same_moves(&got, legal)?;
    if tt_first(pos, setup.tt, legal, false) && got.first() != Some(&setup.tt) {
        return Err(format!("the table move {} did not come first: {}", setup.tt.to_uci(true), uci(&got)));
    }
    Ok(got)
}

fn check_skip_quiets(
    pos: &Position,
    hist: &Histories,
    setup: &Setup,
    legal: &[Move],
    rng: &mut StdRng,
) -> Result<(), String> {
    let mut picker = MovePicker::new(pos, setup.tt, setup.killers, setup.counter, setup.cont);
    // The search calls it from inside its move loop: after the first move at the earliest.
    let before_skip = rng.gen_range(1..=legal.len().max(1));
    let mut got = Vec::new();
    while got.len() < before_skip {
        match picker.next(pos, hist) {
            Some(mv) => got.push(mv),
            None => break,
        }
    }
    let skipped_at = got.len();
    picker.skip_quiets();
    drain(&mut picker, pos, hist, &mut got);
    let expected: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|&m| pos.in_check() || got[..skipped_at].contains(&m) || m.is_noisy() || gives_check(pos, m))
        .collect();
    same_moves(&got, &expected).map_err(|e| format!("skip_quiets after {skipped_at} moves: {e}"))
}

fn check_qsearch(pos: &Position, hist: &Histories, setup: &Setup, legal: &[Move]) -> Result<(), String> {
    let mut picker = MovePicker::new_qsearch(pos, setup.tt, setup.cont);
    let mut got = Vec::new();
    drain(&mut picker, pos, hist, &mut got);
    let under_promotion = |m: Move| m.promotion().is_some_and(|p| p != PieceType::Queen);
    let expected: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|&m| pos.in_check() || (m.is_noisy() && (!under_promotion(m) || m == setup.tt)))
        .collect();
    same_moves(&got, &expected).map_err(|e| format!("quiescence: {e}"))?;
    if tt_first(pos, setup.tt, legal, true) && got.first() != Some(&setup.tt) {
        return Err(format!("quiescence: the table move {} did not come first", setup.tt.to_uci(true)));
    }
    Ok(())
}

/// The walk's state along the current line.
struct Walk<'a> {
    hist: &'a Histories,
    rng: StdRng,
    /// Legal moves of the previous node visited, as "moves of another position".
    elsewhere: Vec<Move>,
}

impl Walk<'_> {
    /// Leaves `depth` plies below `pos`, counted through the picker; every node's setups checked.
    fn perft(&mut self, pos: &Position, depth: u32, cont: [Option<ContKey>; 2]) -> Result<u64, String> {
        let legal: Vec<Move> = legal_moves(pos).as_slice().to_vec();
        let fail = |setup: &Setup, e: String| format!("{} with {setup:?}: {e}", pos.to_fen());
        // The walk's own setup: the killers and counter a search would have from the histories.
        let walk_setup = random_setup(&mut self.rng, &legal, &self.elsewhere, cont);
        let moves = check_main(pos, self.hist, &walk_setup, &legal).map_err(|e| fail(&walk_setup, e))?;
        for _ in 0..SETUPS {
            let setup = random_setup(&mut self.rng, &legal, &self.elsewhere, cont);
            check_main(pos, self.hist, &setup, &legal).map_err(|e| fail(&setup, e))?;
            check_skip_quiets(pos, self.hist, &setup, &legal, &mut self.rng).map_err(|e| fail(&setup, e))?;
            check_qsearch(pos, self.hist, &setup, &legal).map_err(|e| fail(&setup, e))?;
        }
        self.elsewhere = legal;
        if depth == 1 {
            return Ok(moves.len() as u64);
        }
        let mut leaves = 0;
        for mv in moves {
            let piece = pos.piece_on(mv.from()).expect("a legal move starts on a piece");
            let mut child = *pos;
            child.make_move(mv);
            let key = ContKey { piece, to: mv.to().index() as u8 };
            leaves += self.perft(&child, depth - 1, [Some(key), cont[0]])?;
        }
        Ok(leaves)
    }
}

struct Job {
    label: String,
    pos: Position,
    depth: u32,
    expected: u64,
}

#[test]
fn picker_perft_yields_every_legal_move_once_in_every_setup() {
    let mut jobs = Vec::new();
    for (file, entries) in perft_files() {
        let (limit, stride) =
            if file == "perft960.epd" { (LEAF_LIMIT_960, STRIDE_960) } else { (LEAF_LIMIT, 1) };
        for entry in entries.iter().step_by(stride) {
            let pos = parse_entry(file, entry);
            let counts = entry.perft_counts();
            let deepest = counts.iter().filter(|&&(d, n)| d <= 4 && n <= limit).max_by_key(|&&(d, _)| d);
            let &(depth, expected) =
                deepest.unwrap_or_else(|| panic!("{file}:{}: no small perft count", entry.line));
            jobs.push(Job { label: format!("{file}:{}", entry.line), pos, depth, expected });
        }
    }
    assert!(jobs.len() > 250, "only {} positions", jobs.len());
    assert!(jobs.iter().any(|j| j.depth >= 3), "the walk must go a few plies deep");

    let mut rng = StdRng::seed_from_u64(0x5eed_91c0);
    let hist = random_histories(&mut rng);
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(jobs.len());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(index) else { break };
                let mut walk =
                    Walk { hist: &hist, rng: StdRng::seed_from_u64(index as u64), elsewhere: Vec::new() };
                let outcome = match walk.perft(&job.pos, job.depth, [None, None]) {
                    Ok(n) if n == job.expected => continue,
                    Ok(n) => format!(
                        "depth {}: {n} leaves through the picker, {} expected",
                        job.depth, job.expected
                    ),
                    Err(e) => e,
                };
                failures
                    .lock()
                    .expect("no panics while holding it")
                    .push(format!("{}: {outcome}", job.label));
            });
        }
    });
    let failures = failures.into_inner().expect("workers finished");
    assert!(failures.is_empty(), "{} positions failed:\n{}", failures.len(), failures.join("\n"));
}
