//! `lazuli datagen inspect`: what a data file holds (games, positions, results, scores), read
//! with the checking decoder, so a damaged file is reported with the offset where it breaks.
//! Optionally writes the positions a trainer would keep as text lines for the Texel tuner.

use super::game::Outcome;
use super::viri::{DataError, DecodedGame, GameReader};
use std::fmt::Write as _;
use std::io::Write;

/// Plies from a game's start that the text export skips (the random opening).
pub const EXPORT_MIN_PLY: usize = 16;
/// |score| from which the text export treats a position as decided and skips it.
pub const EXPORT_MAX_SCORE: i32 = 2_000;

/// Score buckets of the histogram (upper bounds of |score|, centipawns).
const SCORE_BUCKETS: [i32; 8] = [25, 50, 100, 200, 400, 800, 2_000, i32::MAX];

#[derive(Debug, Default)]
pub struct Summary {
    pub games: u64,
    pub positions: u64,
    pub bytes: u64,
    /// White wins, draws, Black wins.
    pub results: [u64; 3],
    pub score_histogram: [u64; SCORE_BUCKETS.len()],
    /// Positions the text export keeps (quiet best move, not in check, past the opening,
    /// undecided score).
    pub exportable: u64,
    pub longest_game: usize,
    /// Where and why reading stopped early.
    pub error: Option<DataError>,
}

impl Summary {
    pub fn report(&self) -> String {
        let mut out = String::new();
        let per_game = self.positions as f64 / self.games.max(1) as f64;
        let _ = writeln!(out, "games      {}", self.games);
        let _ = writeln!(
            out,
            "positions  {} ({per_game:.1} per game, longest {})",
            self.positions, self.longest_game
        );
        let _ = writeln!(
            out,
            "bytes      {} ({:.1} per position)",
            self.bytes,
            self.bytes as f64 / self.positions.max(1) as f64
        );
        let [w, d, l] = self.results;
        let pct = |n: u64| 100.0 * n as f64 / self.games.max(1) as f64;
        let _ = writeln!(
            out,
            "results    White {w} ({:.1}%)  draw {d} ({:.1}%)  Black {l} ({:.1}%)",
            pct(w),
            pct(d),
            pct(l)
        );
        let _ = writeln!(out, "filtered   {} positions pass the training filter", self.exportable);
        let _ = writeln!(out, "|score|    share of positions");
        let mut lower = 0;
        for (bound, count) in SCORE_BUCKETS.iter().zip(self.score_histogram) {
            let share = 100.0 * count as f64 / self.positions.max(1) as f64;
            let label =
                if *bound == i32::MAX { format!("{lower}+") } else { format!("{lower}-{}", bound - 1) };
            let _ = writeln!(out, "  {label:>10}  {share:5.1}%  {count}");
            lower = *bound;
        }
        match &self.error {
            None => out.push_str("status     complete, every game legal\n"),
            Some(e) => {
                let _ = writeln!(out, "status     {e}; {} complete games before it", self.games);
            }
        }
        out
    }
}

/// The positions of `game` that the training filter keeps, as tuner text lines.
fn export_lines(game: &DecodedGame, out: &mut dyn Write) -> std::io::Result<u64> {
    let result = match game.outcome {
        Outcome::WhiteWins => "1.0",
        Outcome::Draw => "0.5",
        Outcome::BlackWins => "0.0",
    };
    let mut pos = game.start;
    let mut kept = 0;
    let first = plies_before(&game.start);
    for (ply, &(mv, score)) in game.moves.iter().enumerate() {
        if keeps(first + ply, &pos, mv, score) {
            writeln!(out, "{} | {score} | {result}", pos.to_fen())?;
            kept += 1;
        }
        pos.make_move(mv);
    }
    Ok(kept)
}

/// Plies the game had played before `start`, its record's first position (the random opening).
fn plies_before(start: &engine::board::Position) -> usize {
    2 * (usize::from(start.fullmove_number().max(1)) - 1)
        + usize::from(start.side_to_move() == engine::board::Color::Black)
}

/// Whether the training filter keeps a position `ply` plies into the game (counted from the
/// game's start, as the trainer counts it).
fn keeps(ply: usize, pos: &engine::board::Position, mv: engine::board::Move, score: i16) -> bool {
    ply >= EXPORT_MIN_PLY && !pos.in_check() && !mv.is_noisy() && i32::from(score).abs() < EXPORT_MAX_SCORE
}

/// Reads every game of `reader`; writes the kept positions to `text` when given. Reading stops
/// at the first damaged game, which the summary names.
pub fn inspect(reader: impl std::io::Read, mut text: Option<&mut dyn Write>) -> std::io::Result<Summary> {
    let mut games = GameReader::new(std::io::BufReader::with_capacity(1 << 20, reader));
    let mut summary = Summary::default();
    loop {
        let game = match games.next_game() {
            Ok(Some(game)) => game,
            Ok(None) => break,
            Err(e) => {
                summary.error = Some(e);
                break;
            }
        };
        summary.games += 1;
        summary.positions += game.moves.len() as u64;
        summary.longest_game = summary.longest_game.max(game.moves.len());
        summary.results[match game.outcome {
            Outcome::WhiteWins => 0,
            Outcome::Draw => 1,
            Outcome::BlackWins => 2,
        }] += 1;
        let mut pos = game.start;
        let first = plies_before(&game.start);
        for (ply, &(mv, score)) in game.moves.iter().enumerate() {
            let bucket = SCORE_BUCKETS.iter().position(|&b| i32::from(score).abs() < b).unwrap_or(0);
            summary.score_histogram[bucket] += 1;
            summary.exportable += u64::from(keeps(first + ply, &pos, mv, score));
            pos.make_move(mv);
        }
        if let Some(out) = text.as_deref_mut() {
            export_lines(&game, out)?;
        }
    }
    summary.bytes = games.offset();
    Ok(summary)
}
