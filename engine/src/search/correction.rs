//! Correction history: how far the static evaluation has been from what the search found,
//! remembered per side to move and added to later static evaluations of similar positions.
//! An evaluation that keeps misjudging a pawn structure (a blocked centre, a passer it
//! underrates) or a placement of one side's pieces is pulled towards the search's verdict, which
//! sharpens every decision that reads the static evaluation: pruning margins, null move,
//! quiescence stand pat.
//!
//! Three tables per side to move: one indexed by the pawn structure, and one for each colour
//! indexed by that colour's other pieces (king included). The pawn table learns the whole error
//! of the raw evaluation; the two piece tables learn what is left after the pawn correction, and
//! the position's correction is the pawn entry plus the mean of the two piece entries. Learning
//! the remainder keeps the sum from counting one error twice.
//!
//! One set of tables serves every thread of a pool (`Searcher::share_histories`), as in
//! Stockfish since 2025: what one thread learns corrects the others' evaluations at once, so a
//! helper's search sharpens the main thread's pruning and not only its table entries. Entries
//! are `AtomicI32`s read and written with relaxed loads and stores; two threads updating one
//! entry at once may lose one update, which only means one observation fewer. With one thread
//! the tables behave exactly as private ones.

use super::params::{CORRECTION_MAX, CORRECTION_MAX_ERROR, CORRECTION_MAX_WEIGHT};
use super::score::MATE_BOUND;
use crate::board::{Color, Position};
use std::sync::atomic::{AtomicI32, Ordering};

/// Entries per side to move in each table; indexed by the low bits of a key.
const ENTRIES: usize = 16_384;
/// Corrections are kept in 1/GRAIN centipawns so that small updates accumulate.
const GRAIN: i32 = 256;
/// Weights are out of this total: a new observation moves an entry by weight/WEIGHT_TOTAL.
const WEIGHT_TOTAL: i32 = 256;

/// One table: `ENTRIES` per side to move, White's first.
struct Table(Box<[AtomicI32]>);

impl Table {
    fn new() -> Table {
        Table((0..2 * ENTRIES).map(|_| AtomicI32::new(0)).collect())
    }

    #[inline]
    fn entry(&self, stm: Color, key: u64) -> &AtomicI32 {
        &self.0[stm.index() * ENTRIES + ((key as usize) & (ENTRIES - 1))]
    }

    /// The entry's correction in 1/GRAIN centipawns.
    #[inline]
    fn get(&self, stm: Color, key: u64) -> i32 {
        self.entry(stm, key).load(Ordering::Relaxed)
    }

    /// Move the entry towards `error` (1/GRAIN centipawns) by weight/WEIGHT_TOTAL.
    fn learn(&self, stm: Color, key: u64, error: i32, weight: i32) {
        let entry = self.entry(stm, key);
        let old = entry.load(Ordering::Relaxed);
        let blended = (old * (WEIGHT_TOTAL - weight) + error * weight) / WEIGHT_TOTAL;
        let limit = CORRECTION_MAX() * GRAIN;
        entry.store(blended.clamp(-limit, limit), Ordering::Relaxed);
    }

    fn clear(&self) {
        self.0.iter().for_each(|entry| entry.store(0, Ordering::Relaxed));
    }

    fn learned(&self) -> usize {
        self.0.iter().filter(|entry| entry.load(Ordering::Relaxed) != 0).count()
    }

    const BYTES: usize = 2 * ENTRIES * 4;

    fn write_to(&self, out: &mut Vec<u8>) {
        out.extend(self.0.iter().flat_map(|entry| entry.load(Ordering::Relaxed).to_le_bytes()));
    }

    fn read_from(&self, bytes: &[u8]) {
        for (entry, b) in self.0.iter().zip(bytes.chunks_exact(4)) {
            entry.store(i32::from_le_bytes([b[0], b[1], b[2], b[3]]), Ordering::Relaxed);
        }
    }
}

pub struct CorrectionHistory {
    pawn: Table,
    /// By the colour whose pieces form the key, White's first.
    pieces: [Table; 2],
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        Self::new()
    }
}

impl CorrectionHistory {
    pub fn new() -> CorrectionHistory {
        CorrectionHistory { pawn: Table::new(), pieces: [Table::new(), Table::new()] }
    }

    pub fn clear(&self) {
        self.pawn.clear();
        self.pieces.iter().for_each(Table::clear);
    }

    /// Bytes of `write_to`: the pawn table, then White's and Black's piece tables.
    pub const BYTES: usize = 3 * Table::BYTES;

    pub fn write_to(&self, out: &mut Vec<u8>) {
        self.pawn.write_to(out);
        self.pieces.iter().for_each(|t| t.write_to(out));
    }

    /// Whether `bytes` are `BYTES` of corrections a search can hold.
    pub fn check(bytes: &[u8]) -> Result<(), String> {
        if bytes.len() != Self::BYTES {
            return Err(format!("correction history of {} bytes, expected {}", bytes.len(), Self::BYTES));
        }
        let limit = CORRECTION_MAX() * GRAIN;
        let values = bytes.chunks_exact(4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        match values.into_iter().find(|v| v.unsigned_abs() > limit.unsigned_abs()) {
            Some(v) => Err(format!("correction history value {v}")),
            None => Ok(()),
        }
    }

    /// Replaces every entry with `bytes`, which `check` accepted.
    pub fn read_from(&self, bytes: &[u8]) {
        let (pawn, pieces) = bytes.split_at(Table::BYTES);
        self.pawn.read_from(pawn);
        for (table, part) in self.pieces.iter().zip(pieces.chunks_exact(Table::BYTES)) {
            table.read_from(part);
        }
    }

    /// How many entries hold a correction (for tests and diagnostics).
    pub fn learned(&self) -> usize {
        self.pawn.learned() + self.pieces.iter().map(Table::learned).sum::<usize>()
    }

    /// `raw` evaluation of `pos` corrected by what was learned for similar positions: the pawn
    /// entry plus the mean of the two piece entries.
    #[inline]
    pub fn corrected(&self, pos: &Position, raw: i32) -> i32 {
        let stm = pos.side_to_move();
        let pawn = self.pawn.get(stm, pos.pawn_key());
        let pieces = (self.pieces[0].get(stm, pos.non_pawn_key(Color::White))
            + self.pieces[1].get(stm, pos.non_pawn_key(Color::Black)))
            / 2;
        let correction = ((pawn + pieces) / GRAIN).clamp(-CORRECTION_MAX(), CORRECTION_MAX());
        (raw + correction).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// Learn from a search of `depth` that scored `score` where the raw evaluation said `raw`:
    /// the entries move towards the difference, the more the deeper the search.
    pub fn update(&self, pos: &Position, depth: i32, raw: i32, score: i32) {
        // A wild search result (a tactic the evaluation cannot see) teaches little.
        let error = (score - raw).clamp(-CORRECTION_MAX_ERROR(), CORRECTION_MAX_ERROR()) * GRAIN;
        let weight = (depth + 1).clamp(1, CORRECTION_MAX_WEIGHT());
        let stm = pos.side_to_move();
        let pawn = self.pawn.get(stm, pos.pawn_key());
        self.pawn.learn(stm, pos.pawn_key(), error, weight);
        let rest = error - pawn;
        for color in Color::ALL {
            self.pieces[color.index()].learn(stm, pos.non_pawn_key(color), rest, weight);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).expect("test FEN is valid")
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn a_repeated_error_is_learned_once_and_bounded() {
        let ch = CorrectionHistory::new();
        let start = pos(START);
        assert_eq!(ch.corrected(&start, 10), 10);
        for _ in 0..300 {
            ch.update(&start, 10, 0, 50);
        }
        // The pawn and piece tables together learn the error once, not once each.
        let learned = ch.corrected(&start, 0);
        assert!((45..=50).contains(&learned), "learned {learned}");
        // The other side to move and an unrelated position are untouched.
        let black_to_move = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1");
        assert_eq!(ch.corrected(&black_to_move, 0), 0);
        let elsewhere = pos("4k3/2p5/8/8/8/8/5P2/3QK3 w - - 0 1");
        assert_eq!(ch.corrected(&elsewhere, 0), 0);
        for _ in 0..1000 {
            ch.update(&start, 20, 0, -10_000);
        }
        assert_eq!(ch.corrected(&start, 0), -CORRECTION_MAX());
        ch.clear();
        assert_eq!(ch.corrected(&start, 0), 0);
        assert_eq!(ch.learned(), 0);
    }

    #[test]
    fn what_the_pawns_do_not_explain_is_learned_by_the_pieces() {
        let ch = CorrectionHistory::new();
        // Same pawns, White's knight on f3 or on c3: the pawn entry is shared, the White pieces'
        // entries are not, and Black's pieces are the same in both.
        let knight_f3 = pos("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1");
        let knight_c3 = pos("rnbqkbnr/pppppppp/8/8/8/2N5/PPPPPPPP/R1BQKBNR b KQkq - 1 1");
        for _ in 0..300 {
            ch.update(&knight_f3, 10, 0, 40);
            ch.update(&knight_c3, 10, 0, -40);
        }
        let f3 = ch.corrected(&knight_f3, 0);
        let c3 = ch.corrected(&knight_c3, 0);
        assert!(f3 > 10 && c3 < -10, "f3 {f3}, c3 {c3}");
        assert!(f3 <= 40 && c3 >= -40, "f3 {f3}, c3 {c3}");
    }

    #[test]
    fn corrections_never_reach_mate_scores() {
        let ch = CorrectionHistory::new();
        let start = pos(START);
        for _ in 0..500 {
            ch.update(&start, 30, 0, 1000);
        }
        assert_eq!(ch.corrected(&start, MATE_BOUND - 10), MATE_BOUND - 1);
    }
}
