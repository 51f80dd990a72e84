//! Self-play data generation for tuning the evaluation (`lazuli datagen`).
//!
//! Each game starts from the start position with a few uniformly random legal moves (seeded by
//! the game's index, so any game can be replayed), then both sides search a fixed number of
//! nodes per move on one thread with a table of their own. Positions are written once the game
//! is over, each with the search score and the final result.
//!
//! Output: one position per line, `<FEN> | <score> | <result>`, where `score` is the search score
//! in centipawns from White's point of view and `result` is 1.0, 0.5 or 0.0 for White. Skipped:
//! the random opening plies, positions in check, positions whose best move is a capture or
//! promotion (tactical, so the static evaluation cannot match), and decided positions
//! (|score| at or above the adjudication bound).
//!
//! Resuming: every finished game's index is appended to `<output>.done` after its positions are
//! written; a restarted run skips those indices (so the same seed produces the same data).

use engine::board::{Board, Color, Position};
use engine::movegen::{count_legal_moves, legal_moves};
use engine::search::score::{is_mate_score, MATE_BOUND};
use engine::search::{Limits, Searcher};
use engine::tt::TranspositionTable;
use parking_lot::Mutex;
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct DatagenConfig {
    pub games: usize,
    pub nodes_per_move: u64,
    pub threads: usize,
    pub random_plies: usize,
    pub seed: u64,
    pub output: PathBuf,
    /// |score| from which a game is adjudicated as won, and positions are skipped as decided.
    pub decided_score: i32,
}

/// Totals of a run.
#[derive(Clone, Debug, Default)]
pub struct DatagenStats {
    pub games: usize,
    pub positions: u64,
    pub elapsed: Duration,
}

struct Record {
    fen: String,
    white_score: i32,
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Plays game `index`; returns the kept positions and White's result.
fn play_game(
    config: &DatagenConfig,
    index: usize,
    searcher: &mut Searcher,
    tt: &TranspositionTable,
) -> (Vec<Record>, f32) {
    let mut rng = splitmix(config.seed ^ (index as u64).wrapping_mul(0xd6e8_feb8_6659_fd93));
    let mut board = Board::new(Position::startpos());
    for _ in 0..config.random_plies {
        let moves = legal_moves(board.position());
        if moves.is_empty() {
            break;
        }
        rng = splitmix(rng);
        board.make_move(moves.get((rng % moves.len() as u64) as usize));
    }
    searcher.clear();
    tt.clear(1);
    let mut records = Vec::new();
    let mut decided_plies = 0;
    let result = loop {
        let pos = *board.position();
        if count_legal_moves(&pos) == 0 {
            break if pos.in_check() {
                if pos.side_to_move() == Color::White {
                    0.0
                } else {
                    1.0
                }
            } else {
                0.5
            };
        }
        if pos.halfmove_clock() >= 100 || board.repetitions(0) >= 2 || pos.is_insufficient_material() {
            break 0.5;
        }
        if board.plies() >= 400 {
            break 0.5;
        }
        let limits = Limits { nodes: Some(config.nodes_per_move), ..Limits::default() };
        let searched = searcher.search_alone(&board, &limits, tt, None);
        let white_score = searched.score * pos.side_to_move().sign();
        let mv = searched.best_move;
        if mv.is_null() {
            break 0.5;
        }
        // Adjudicate clearly decided games (the result is then known anyway).
        if searched.score.abs() >= config.decided_score {
            decided_plies += 1;
            if decided_plies >= 8 || is_mate_score(searched.score) && searched.score.abs() >= MATE_BOUND {
                break if white_score > 0 { 1.0 } else { 0.0 };
            }
        } else {
            decided_plies = 0;
            if !pos.in_check() && !mv.is_noisy() {
                records.push(Record { fen: pos.to_fen(), white_score });
            }
        }
        board.make_move(mv);
    };
    (records, result)
}

fn read_done(path: &Path) -> HashSet<usize> {
    let Ok(file) = File::open(path) else { return HashSet::new() };
    BufReader::new(file).lines().map_while(Result::ok).filter_map(|l| l.trim().parse().ok()).collect()
}

/// Runs the generation; `progress` is called every few seconds and at the end.
pub fn run(config: &DatagenConfig, progress: impl Fn(&DatagenStats) + Sync) -> std::io::Result<DatagenStats> {
    let done_path = PathBuf::from(format!("{}.done", config.output.display()));
    let done = read_done(&done_path);
    let output =
        Mutex::new(BufWriter::new(OpenOptions::new().create(true).append(true).open(&config.output)?));
    let done_log = Mutex::new(OpenOptions::new().create(true).append(true).open(&done_path)?);
    let next = AtomicUsize::new(0);
    let games = AtomicUsize::new(0);
    let positions = AtomicU64::new(0);
    let start = Instant::now();
    let last_report = Mutex::new(Instant::now());
    let failure: Mutex<Option<std::io::Error>> = Mutex::new(None);
    let stats = || DatagenStats {
        games: games.load(Ordering::Relaxed),
        positions: positions.load(Ordering::Relaxed),
        elapsed: start.elapsed(),
    };

    std::thread::scope(|scope| {
        for _ in 0..config.threads.max(1) {
            scope.spawn(|| {
                let tt = TranspositionTable::new(16);
                let mut searcher = Searcher::new(true);
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= config.games || failure.lock().is_some() {
                        return;
                    }
                    if done.contains(&index) {
                        continue;
                    }
                    let (records, result) = play_game(config, index, &mut searcher, &tt);
                    let written = (|| -> std::io::Result<()> {
                        let mut out = output.lock();
                        for r in &records {
                            writeln!(out, "{} | {} | {:.1}", r.fen, r.white_score, result)?;
                        }
                        out.flush()?;
                        writeln!(done_log.lock(), "{index}")
                    })();
                    if let Err(e) = written {
                        *failure.lock() = Some(e);
                        return;
                    }
                    games.fetch_add(1, Ordering::Relaxed);
                    positions.fetch_add(records.len() as u64, Ordering::Relaxed);
                    let mut last = last_report.lock();
                    if last.elapsed() >= Duration::from_secs(10) {
                        *last = Instant::now();
                        progress(&stats());
                    }
                }
            });
        }
    });
    if let Some(e) = failure.lock().take() {
        return Err(e);
    }
    let final_stats = stats();
    progress(&final_stats);
    Ok(final_stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(dir: &Path, games: usize) -> DatagenConfig {
        DatagenConfig {
            games,
            nodes_per_move: 300,
            threads: 2,
            random_plies: 8,
            seed: 42,
            output: dir.join("data.txt"),
            decided_score: 1500,
        }
    }

    fn lines(path: &Path) -> Vec<String> {
        let mut lines: Vec<String> =
            std::fs::read_to_string(path).unwrap_or_default().lines().map(String::from).collect();
        lines.sort();
        lines
    }

    #[test]
    fn games_are_reproducible_resumable_and_well_formed() {
        let base = std::env::temp_dir().join(format!("lazuli-datagen-{}", std::process::id()));
        let (a, b) = (base.join("a"), base.join("b"));
        std::fs::create_dir_all(&a).expect("temp dir");
        std::fs::create_dir_all(&b).expect("temp dir");
        // Four games at once, or two and then the rest after a "restart": the same data.
        run(&config(&a, 4), |_| {}).expect("datagen runs");
        run(&config(&b, 2), |_| {}).expect("datagen runs");
        let resumed = run(&config(&b, 4), |_| {}).expect("datagen resumes");
        assert_eq!(resumed.games, 2);
        let (la, lb) = (lines(&a.join("data.txt")), lines(&b.join("data.txt")));
        assert!(!la.is_empty());
        assert_eq!(la, lb);
        for line in &la {
            let parts: Vec<&str> = line.split(" | ").collect();
            assert_eq!(parts.len(), 3, "{line}");
            let pos = Position::from_fen(parts[0]).expect("valid FEN");
            assert!(!pos.in_check());
            assert!(parts[1].parse::<i32>().expect("score").abs() < 1500);
            assert!(["1.0", "0.5", "0.0"].contains(&parts[2]));
        }
        let _ = std::fs::remove_dir_all(&base);
    }
}
