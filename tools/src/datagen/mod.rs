//! Self-play data generation (`lazuli datagen`): whole games in the viriformat layout (see
//! `viri`), every move with its search score, so the positions a trainer keeps are chosen when it
//! reads them.
//!
//! Games are written in the order of their indices, whichever thread finishes first: a game that
//! ends before those below it waits in memory. The file's first N games are then the same bytes
//! whatever the thread count or timing, and so is every split a trainer makes of them.
//!
//! Resuming: after each game's bytes are written, `<output>.done` gets a line `<index> <end>`,
//! the game's index and the file length after it. A restarted run cuts the data file back to the
//! last listed end (dropping a game whose line never came) and skips the listed indices. Games
//! are seeded by the run's seed and their index, so a resumed run writes the same games as an
//! uninterrupted one: nothing is lost or written twice (games still waiting at an interrupt were
//! never listed, and are played again). `settings` keeps a resumed run from changing what its
//! games are.

pub mod game;
pub mod inspect;
pub mod openings;
pub mod settings;
pub mod viri;

use engine::nnue::Network;
use engine::search::Searcher;
use engine::tb::Tablebases;
use engine::tt::TranspositionTable;
use game::play_game;
use parking_lot::Mutex;
use std::collections::{BTreeMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct DatagenConfig {
    pub games: u64,
    /// A search stops after the iteration that passes this many nodes...
    pub soft_nodes: u64,
    /// ...and at once at this many.
    pub hard_nodes: u64,
    pub threads: usize,
    /// Random moves from the start (one more in half the games, so both sides begin).
    pub random_plies: usize,
    /// Share of games, in percent, that begin from a double Chess960 start.
    pub dfrc_percent: u32,
    /// A start is drawn again while its search score is beyond this (centipawns).
    pub start_balance: i32,
    pub seed: u64,
    pub output: PathBuf,
    /// |score| from which a game is adjudicated as won once both sides have agreed for a while.
    pub decided_score: i32,
    /// Syzygy directories for adjudication (empty: none).
    pub syzygy: String,
    /// The network the games' searches evaluate with.
    pub network: Arc<Network>,
    /// What evaluates in the games' searches, as a resumed run must find it again (e.g. the
    /// network's hash).
    pub evaluation: String,
}

impl Default for DatagenConfig {
    fn default() -> Self {
        DatagenConfig {
            games: 1_000,
            soft_nodes: 5_000,
            hard_nodes: 100_000,
            threads: 1,
            random_plies: 8,
            dfrc_percent: 10,
            start_balance: 300,
            seed: 1,
            output: PathBuf::new(),
            decided_score: 2_000,
            syzygy: String::new(),
            network: engine::nnue::default_network(),
            evaluation: String::new(),
        }
    }
}

/// Totals of a run (this process only).
#[derive(Clone, Debug, Default)]
pub struct DatagenStats {
    pub games: u64,
    pub positions: u64,
    pub elapsed: Duration,
    /// Games finished before this run started.
    pub resumed_games: u64,
}

fn done_path(output: &Path) -> PathBuf {
    PathBuf::from(format!("{}.done", output.display()))
}

/// Reads the done list, cuts the data file back to the last complete listed game and rewrites
/// the list without entries that point past it. Returns the finished indices.
fn recover(output: &Path) -> std::io::Result<HashSet<u64>> {
    let data_len = std::fs::metadata(output).map(|m| m.len()).unwrap_or(0);
    let mut done = HashSet::new();
    let mut kept = String::new();
    let mut end = 0;
    if let Ok(file) = File::open(done_path(output)) {
        for line in BufReader::new(file).lines() {
            let line = line?;
            let mut fields = line.split_ascii_whitespace().map(str::parse::<u64>);
            let (Some(Ok(index)), Some(Ok(offset)), None) = (fields.next(), fields.next(), fields.next())
            else {
                break;
            };
            if offset < end || offset > data_len {
                break;
            }
            end = offset;
            done.insert(index);
            kept.push_str(&line);
            kept.push('\n');
        }
    }
    if data_len > end {
        OpenOptions::new().write(true).open(output)?.set_len(end)?;
    }
    let temporary = PathBuf::from(format!("{}.tmp", done_path(output).display()));
    std::fs::write(&temporary, kept)?;
    std::fs::rename(&temporary, done_path(output))?;
    Ok(done)
}

/// Where finished games go: written at once when every lower index is in the file, held until
/// then otherwise.
struct Sink {
    data: File,
    done: File,
    end: u64,
    /// The lowest index neither in the file nor listed as done before this run.
    next: u64,
    /// Finished games above `next`: their bytes and their number of positions.
    waiting: BTreeMap<u64, (Vec<u8>, u64)>,
}

impl Sink {
    /// Takes a finished game and writes every game that is now next in line. Returns the games
    /// and positions written.
    fn finish(
        &mut self,
        index: u64,
        bytes: Vec<u8>,
        positions: u64,
        done: &HashSet<u64>,
    ) -> std::io::Result<(u64, u64)> {
        self.waiting.insert(index, (bytes, positions));
        let mut written = (0, 0);
        while let Some((bytes, positions)) = self.waiting.remove(&self.next) {
            self.data.write_all(&bytes)?;
            self.end += bytes.len() as u64;
            self.done.write_all(format!("{} {}\n", self.next, self.end).as_bytes())?;
            written = (written.0 + 1, written.1 + positions);
            self.next = first_not_done(self.next + 1, done);
        }
        Ok(written)
    }
}

/// The first index from `from` on that an earlier run has not finished.
fn first_not_done(from: u64, done: &HashSet<u64>) -> u64 {
    (from..u64::MAX).find(|i| !done.contains(i)).unwrap_or(u64::MAX)
}

/// Runs the generation; `progress` is called about every `report_every` and at the end.
pub fn run(
    config: &DatagenConfig,
    report_every: Duration,
    progress: impl Fn(&DatagenStats) + Sync,
) -> std::io::Result<DatagenStats> {
    let done = recover(&config.output)?;
    settings::check_or_record(config, done.len())?;
    let data = OpenOptions::new().create(true).append(true).open(&config.output)?;
    let end = data.metadata()?.len();
    let done_log = OpenOptions::new().create(true).append(true).open(done_path(&config.output))?;
    let first_free = first_not_done(0, &done);
    let sink = Mutex::new(Sink { data, done: done_log, end, next: first_free, waiting: BTreeMap::new() });
    let tablebases = (!config.syzygy.is_empty()).then(|| Tablebases::open(&config.syzygy).0);
    let tablebases = tablebases.filter(|tb| tb.files() > 0);

    let next = AtomicU64::new(0);
    let games = AtomicU64::new(0);
    let positions = AtomicU64::new(0);
    let start = Instant::now();
    let last_report = Mutex::new(Instant::now());
    let failure: Mutex<Option<std::io::Error>> = Mutex::new(None);
    let stats = || DatagenStats {
        games: games.load(Ordering::Relaxed),
        positions: positions.load(Ordering::Relaxed),
        elapsed: start.elapsed(),
        resumed_games: done.len() as u64,
    };

    std::thread::scope(|scope| {
        for _ in 0..config.threads.max(1) {
            scope.spawn(|| {
                let tt = TranspositionTable::new(16);
                let mut searcher = Searcher::new();
                searcher.set_network(Arc::clone(&config.network));
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= config.games || failure.lock().is_some() {
                        return;
                    }
                    if done.contains(&index) {
                        continue;
                    }
                    let record = play_game(config, index, &mut searcher, &tt, tablebases.as_ref());
                    let mut bytes = Vec::new();
                    let written = viri::encode_game(&record, &mut bytes)
                        .map_err(std::io::Error::other)
                        .and_then(|()| sink.lock().finish(index, bytes, record.moves.len() as u64, &done));
                    let (new_games, new_positions) = match written {
                        Ok(counts) => counts,
                        Err(e) => {
                            *failure.lock() = Some(e);
                            return;
                        }
                    };
                    games.fetch_add(new_games, Ordering::Relaxed);
                    positions.fetch_add(new_positions, Ordering::Relaxed);
                    let mut last = last_report.lock();
                    if last.elapsed() >= report_every {
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
mod tests;
