//! Move-ordering statistics learned during search: butterfly (from-to) history, capture history,
//! continuation history (indexed by the previous move's piece and destination) and counter moves.
//! All use the "gravity" update, which keeps values within `±HISTORY_MAX`.
//!
//! The continuation history is shared by the threads of a pool (`ContinuationHistory`), as in
//! Stockfish since 2026: it has 768 × 768 entries, which one thread at a short time control
//! never fills, so two threads teaching one table fill it twice as fast and each thread orders
//! its moves by what the other found. The rest stays per thread: it fills within one search, and
//! the threads' different orderings are part of what makes their searches differ.

use super::params::{HISTORY_BONUS_MAX, HISTORY_BONUS_OFFSET, HISTORY_BONUS_SCALE, HISTORY_MAX};
use crate::board::{Color, Move, Piece, PieceType};
use std::sync::atomic::{AtomicI16, Ordering};
use std::sync::Arc;

/// Bonus for a move that caused a cutoff at `depth` (and malus for those tried before it).
#[inline]
pub fn history_bonus(depth: i32) -> i32 {
    (HISTORY_BONUS_SCALE() * depth - HISTORY_BONUS_OFFSET()).clamp(0, HISTORY_BONUS_MAX())
}

#[inline]
fn apply(entry: &mut i16, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    let value = *entry as i32;
    *entry = (value + bonus - value * bonus.abs() / HISTORY_MAX) as i16;
}

/// Piece-to pairs: 12 pieces times 64 destination squares.
const PIECE_TO: usize = 12 * 64;

/// Continuation history: for a previous move's (piece, to), a score per (piece, to) of the next
/// move. Entries are `AtomicI16`s read and written with relaxed loads and stores, so threads can
/// share one table; two threads updating one entry at once may lose one update, which only
/// means one observation fewer. With one thread it behaves exactly as a private table.
pub struct ContinuationHistory(Box<[AtomicI16]>);

impl Default for ContinuationHistory {
    fn default() -> Self {
        Self::new()
    }
}

impl ContinuationHistory {
    pub fn new() -> ContinuationHistory {
        ContinuationHistory((0..PIECE_TO * PIECE_TO).map(|_| AtomicI16::new(0)).collect())
    }

    pub fn clear(&self) {
        self.0.iter().for_each(|entry| entry.store(0, Ordering::Relaxed));
    }

    /// How many entries hold something.
    pub fn learned(&self) -> usize {
        self.0.iter().filter(|entry| entry.load(Ordering::Relaxed) != 0).count()
    }

    /// Bytes of `write_to`: every entry, little-endian.
    pub const BYTES: usize = PIECE_TO * PIECE_TO * 2;

    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.extend(self.0.iter().flat_map(|entry| entry.load(Ordering::Relaxed).to_le_bytes()));
    }

    /// Whether `bytes` are `BYTES` of entries a search can hold.
    pub fn check(bytes: &[u8]) -> Result<(), String> {
        if bytes.len() != Self::BYTES {
            return Err(format!("continuation history of {} bytes, expected {}", bytes.len(), Self::BYTES));
        }
        match bytes
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .find(|v| i32::from(*v).abs() > HISTORY_MAX)
        {
            Some(v) => Err(format!("continuation history value {v}")),
            None => Ok(()),
        }
    }

    /// Replaces every entry with `bytes`, which `check` accepted.
    pub fn read_from(&self, bytes: &[u8]) {
        for (entry, b) in self.0.iter().zip(bytes.chunks_exact(2)) {
            entry.store(i16::from_le_bytes([b[0], b[1]]), Ordering::Relaxed);
        }
    }

    #[inline]
    fn entry(&self, key: ContKey, piece: Piece, mv: Move) -> &AtomicI16 {
        &self.0[key.index() * PIECE_TO + piece.index() * 64 + mv.to().index()]
    }

    #[inline]
    fn get(&self, key: ContKey, piece: Piece, mv: Move) -> i32 {
        self.entry(key, piece, mv).load(Ordering::Relaxed) as i32
    }

    #[inline]
    fn update(&self, key: ContKey, piece: Piece, mv: Move, bonus: i32) {
        let entry = self.entry(key, piece, mv);
        let mut value = entry.load(Ordering::Relaxed);
        apply(&mut value, bonus);
        entry.store(value, Ordering::Relaxed);
    }
}

pub struct Histories {
    butterfly: [[i16; 64 * 64]; 2],
    capture: [[[i16; 6]; 64]; 12],
    /// Shared with the other threads of a pool (`Searcher::share_histories`).
    continuation: Arc<ContinuationHistory>,
    counter_moves: [[Move; 64]; 12],
}

/// Identifies a previous move for continuation history: the piece that moved and where to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ContKey {
    pub piece: Piece,
    pub to: u8,
}

impl ContKey {
    #[inline]
    fn index(self) -> usize {
        self.piece.index() * 64 + self.to as usize
    }
}

impl Histories {
    pub fn new() -> Box<Histories> {
        Box::new(Histories {
            butterfly: [[0; 64 * 64]; 2],
            capture: [[[0; 6]; 64]; 12],
            continuation: Arc::new(ContinuationHistory::new()),
            counter_moves: [[Move::NULL; 64]; 12],
        })
    }

    /// Forget this thread's own tables; the continuation history, which may be shared, stays
    /// (`continuation_table().clear()` forgets it).
    pub fn clear_own(&mut self) {
        self.butterfly = [[0; 64 * 64]; 2];
        self.capture = [[[0; 6]; 64]; 12];
        self.counter_moves = [[Move::NULL; 64]; 12];
    }

    /// Bytes of `write_own`: the butterfly and capture histories (i16 each), then the counter
    /// moves (u16 each), little-endian.
    pub const OWN_BYTES: usize = (2 * 64 * 64 + 12 * 64 * 6 + 12 * 64) * 2;
    const OWN_VALUES: usize = 2 * 64 * 64 + 12 * 64 * 6;

    /// This thread's own tables, for a hash file (the continuation history is its owner's).
    pub fn write_own(&self, out: &mut Vec<u8>) {
        let values = self.butterfly.iter().flatten().chain(self.capture.iter().flatten().flatten());
        out.extend(values.flat_map(|v| v.to_le_bytes()));
        out.extend(self.counter_moves.iter().flatten().flat_map(|m| m.raw().to_le_bytes()));
    }

    /// Whether `bytes` could have come from `write_own`: the length, and every history value
    /// within what the updates keep (any counter move is safe: the move picker checks it).
    pub fn check_own(bytes: &[u8]) -> Result<(), String> {
        if bytes.len() != Self::OWN_BYTES {
            return Err(format!(
                "a thread's histories of {} bytes, expected {}",
                bytes.len(),
                Self::OWN_BYTES
            ));
        }
        let values = bytes[..Self::OWN_VALUES * 2].chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]]));
        match values.into_iter().find(|v| i32::from(*v).abs() > HISTORY_MAX) {
            Some(v) => Err(format!("a thread's history value {v}")),
            None => Ok(()),
        }
    }

    /// Replaces this thread's own tables with `bytes`, which `check_own` accepted.
    pub fn read_own(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]]));
        let values = self.butterfly.iter_mut().flatten().chain(self.capture.iter_mut().flatten().flatten());
        for (value, word) in values.zip(&mut words) {
            *value = word as i16;
        }
        for (mv, word) in self.counter_moves.iter_mut().flatten().zip(words) {
            *mv = Move::from_raw(word);
        }
    }

    /// The continuation history these histories read and teach.
    pub fn continuation_table(&self) -> &Arc<ContinuationHistory> {
        &self.continuation
    }

    /// Read and teach `table` as the continuation history from now on.
    pub fn share_continuation(&mut self, table: Arc<ContinuationHistory>) {
        self.continuation = table;
    }

    #[inline]
    fn from_to(mv: Move) -> usize {
        mv.from().index() * 64 + mv.to().index()
    }

    #[inline]
    pub fn butterfly(&self, stm: Color, mv: Move) -> i32 {
        self.butterfly[stm.index()][Self::from_to(mv)] as i32
    }

    #[inline]
    pub fn update_butterfly(&mut self, stm: Color, mv: Move, bonus: i32) {
        apply(&mut self.butterfly[stm.index()][Self::from_to(mv)], bonus);
    }

    #[inline]
    pub fn capture(&self, piece: Piece, mv: Move, victim: PieceType) -> i32 {
        self.capture[piece.index()][mv.to().index()][victim.index()] as i32
    }

    #[inline]
    pub fn update_capture(&mut self, piece: Piece, mv: Move, victim: PieceType, bonus: i32) {
        apply(&mut self.capture[piece.index()][mv.to().index()][victim.index()], bonus);
    }

    #[inline]
    pub fn continuation(&self, key: Option<ContKey>, piece: Piece, mv: Move) -> i32 {
        match key {
            Some(k) => self.continuation.get(k, piece, mv),
            None => 0,
        }
    }

    #[inline]
    pub fn update_continuation(&self, key: Option<ContKey>, piece: Piece, mv: Move, bonus: i32) {
        if let Some(k) = key {
            self.continuation.update(k, piece, mv, bonus);
        }
    }

    #[inline]
    pub fn counter_move(&self, key: Option<ContKey>) -> Move {
        key.map_or(Move::NULL, |k| self.counter_moves[k.piece.index()][k.to as usize])
    }

    #[inline]
    pub fn set_counter_move(&mut self, key: Option<ContKey>, mv: Move) {
        if let Some(k) = key {
            self.counter_moves[k.piece.index()][k.to as usize] = mv;
        }
    }

    /// The combined quiet-move score used for ordering and for LMR and pruning decisions.
    #[inline]
    pub fn quiet_score(&self, stm: Color, piece: Piece, mv: Move, cont: [Option<ContKey>; 2]) -> i32 {
        self.butterfly(stm, mv)
            + self.continuation(cont[0], piece, mv)
            + self.continuation(cont[1], piece, mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;

    #[test]
    fn gravity_keeps_values_bounded() {
        let mut entry = 0i16;
        for _ in 0..1000 {
            apply(&mut entry, HISTORY_BONUS_MAX());
        }
        assert!(entry as i32 <= HISTORY_MAX && entry > 15_000);
        for _ in 0..1000 {
            apply(&mut entry, -HISTORY_BONUS_MAX());
        }
        assert!(entry as i32 >= -HISTORY_MAX && entry < -15_000);
    }

    #[test]
    fn a_threads_own_histories_come_back_from_their_bytes_and_bad_values_are_refused() {
        let mut h = Histories::new();
        let (a, b) =
            (Move::new(Square::new(12), Square::new(28), 0), Move::new(Square::new(1), Square::new(18), 0));
        h.update_butterfly(Color::Black, a, 900);
        h.update_capture(Piece::new(Color::White, PieceType::Knight), b, PieceType::Rook, -700);
        h.set_counter_move(Some(ContKey { piece: Piece::new(Color::Black, PieceType::Queen), to: 9 }), b);
        let mut bytes = Vec::new();
        h.write_own(&mut bytes);
        assert_eq!(bytes.len(), Histories::OWN_BYTES);
        assert_eq!(Histories::check_own(&bytes), Ok(()));
        let mut back = Histories::new();
        back.read_own(&bytes);
        assert_eq!(back.butterfly(Color::Black, a), h.butterfly(Color::Black, a));
        assert_ne!(back.butterfly(Color::Black, a), 0);
        let knight = Piece::new(Color::White, PieceType::Knight);
        assert_eq!(back.capture(knight, b, PieceType::Rook), h.capture(knight, b, PieceType::Rook));
        assert_ne!(back.capture(knight, b, PieceType::Rook), 0);
        let key = Some(ContKey { piece: Piece::new(Color::Black, PieceType::Queen), to: 9 });
        assert_eq!(back.counter_move(key), b);
        let mut written = Vec::new();
        back.write_own(&mut written);
        assert_eq!(written, bytes);
        // A value no update makes, and a short section, are refused.
        let mut bad = bytes.clone();
        bad[2..4].copy_from_slice(&i16::MAX.to_le_bytes());
        assert!(Histories::check_own(&bad).is_err());
        assert!(Histories::check_own(&bytes[1..]).is_err());
    }
}
