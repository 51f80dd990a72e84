//! The accumulators of a search, one per ply, updated lazily.
//!
//! The board is copy-make, and `Position::make_move` stays free of network work (perft pays
//! nothing for it). Instead the searcher tells the stack, as it makes each move,
//! which features the move changes (`FeatureDelta`, found from the position before the move);
//! the stack records the change and marks the new ply's accumulator as not computed. Only when a
//! position is evaluated does the stack walk back to the nearest computed ply and apply the
//! recorded changes forward from there, one fused pass (parent + added − removed columns) per
//! ply. Nodes cut off before their evaluation (table hits, draws, pruning) never pay for their
//! accumulators, and unmaking a move is just dropping the top entry.

use super::{Accumulator, Network};
use crate::board::{Color, Move, Piece, PieceType, Position, Square};
use crate::search::score::MAX_PLY;
use std::sync::Arc;

/// The features a move adds and removes: a quiet move adds one and removes one, a capture
/// removes two, a promotion swaps the pawn for another piece, castling moves two pieces. In
/// Chess960 the king or rook may land on a square one of them left, or stay put: adding and
/// removing are plain sums, so any overlap comes out right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureDelta {
    added: [(Piece, Square); 2],
    removed: [(Piece, Square); 2],
    added_len: u8,
    removed_len: u8,
}

impl FeatureDelta {
    /// No change (a null move).
    pub const NONE: FeatureDelta = FeatureDelta {
        added: [(Piece::new(Color::White, PieceType::Pawn), Square::new(0)); 2],
        removed: [(Piece::new(Color::White, PieceType::Pawn), Square::new(0)); 2],
        added_len: 0,
        removed_len: 0,
    };

    #[inline]
    fn add(&mut self, piece: Piece, square: Square) {
        self.added[self.added_len as usize] = (piece, square);
        self.added_len += 1;
    }

    #[inline]
    fn remove(&mut self, piece: Piece, square: Square) {
        self.removed[self.removed_len as usize] = (piece, square);
        self.removed_len += 1;
    }

    /// What legal move `mv` changes in `pos` (the position before it).
    #[inline]
    pub fn of_move(pos: &Position, mv: Move) -> FeatureDelta {
        let mut delta = FeatureDelta::NONE;
        let us = pos.side_to_move();
        let (from, to) = (mv.from(), mv.to());
        let piece = pos.piece_on(from).expect("a legal move starts on one of our pieces");
        if mv.is_castle() {
            // Encoded as king takes own rook.
            let rook = Piece::new(us, PieceType::Rook);
            delta.remove(piece, from);
            delta.remove(rook, to);
            delta.add(piece, mv.castle_king_target());
            delta.add(rook, mv.castle_rook_target());
            return delta;
        }
        if mv.is_en_passant() {
            delta.remove(Piece::new(!us, PieceType::Pawn), Square::from_file_rank(to.file(), from.rank()));
        } else if mv.is_capture() {
            delta.remove(pos.piece_on(to).expect("a capture lands on an enemy piece"), to);
        }
        delta.remove(piece, from);
        let landed = mv.promotion().map_or(piece, |kind| Piece::new(us, kind));
        delta.add(landed, to);
        delta
    }
}

#[derive(Clone)]
struct Entry {
    acc: Accumulator,
    /// The change from the previous entry's position to this one's.
    delta: FeatureDelta,
    /// Whether `acc` holds this entry's accumulator yet.
    computed: bool,
    /// The key of the position, to catch a stack that got out of step with the board.
    key: u64,
}

/// The accumulators from the search root (entry 0) to the current position (the top).
pub struct AccumulatorStack {
    network: Arc<Network>,
    entries: Vec<Entry>,
    top: usize,
}

impl AccumulatorStack {
    /// A stack whose root is `root`.
    pub fn new(network: Arc<Network>, root: &Position) -> AccumulatorStack {
        let blank = Entry { acc: Accumulator::ZERO, delta: FeatureDelta::NONE, computed: false, key: 0 };
        // The search goes at most `MAX_PLY` plies deep; a little more costs nothing.
        let mut stack = AccumulatorStack { network, entries: vec![blank; MAX_PLY + 8], top: 0 };
        stack.reset(root);
        stack
    }

    pub fn network(&self) -> &Arc<Network> {
        &self.network
    }

    /// Start again from `root`, computed from scratch.
    pub fn reset(&mut self, root: &Position) {
        self.top = 0;
        let entry = &mut self.entries[0];
        entry.acc = self.network.accumulate(root);
        entry.delta = FeatureDelta::NONE;
        entry.computed = true;
        entry.key = root.key();
    }

    /// Plies above the root.
    pub fn depth(&self) -> usize {
        self.top
    }

    /// A move was made: `delta` leads from the current top to the position with key `key`.
    #[inline]
    pub fn push(&mut self, delta: FeatureDelta, key: u64) {
        self.top += 1;
        if self.top == self.entries.len() {
            let blank = self.entries[0].clone();
            self.entries.push(blank);
        }
        let entry = &mut self.entries[self.top];
        entry.delta = delta;
        entry.computed = false;
        entry.key = key;
    }

    /// The last move was taken back. The root stays.
    #[inline]
    pub fn pop(&mut self) {
        debug_assert!(self.top > 0, "popped the root of the accumulator stack");
        self.top = self.top.saturating_sub(1);
    }

    /// The accumulator of the current position, bringing it up to date first.
    #[inline]
    pub fn current(&mut self) -> &Accumulator {
        if !self.entries[self.top].computed {
            self.catch_up();
        }
        &self.entries[self.top].acc
    }

    /// Apply the recorded changes from the last computed entry (the root at worst) to the top.
    fn catch_up(&mut self) {
        let mut first = self.top;
        while first > 0 && !self.entries[first].computed {
            first -= 1;
        }
        let network = &*self.network;
        for ply in first + 1..=self.top {
            let (done, rest) = self.entries.split_at_mut(ply);
            let parent = &done[ply - 1].acc;
            let child = &mut rest[0];
            let delta = child.delta;
            for perspective in Color::ALL {
                // Unused slots hold a placeholder feature, never read past the lengths.
                let column = |(piece, square): (Piece, Square)| network.column(perspective, piece, square);
                let adds = delta.added.map(column);
                let subs = delta.removed.map(column);
                network.kernels().add_sub(
                    &mut child.acc.0[perspective.index()],
                    parent.perspective(perspective),
                    &adds[..delta.added_len as usize],
                    &subs[..delta.removed_len as usize],
                );
            }
            child.computed = true;
        }
    }

    /// The network's evaluation of `pos`, the current position, from its side to move's view.
    #[inline]
    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        debug_assert_eq!(
            self.entries[self.top].key,
            pos.key(),
            "accumulator stack out of step with the board"
        );
        if !self.entries[self.top].computed {
            self.catch_up();
        }
        // The engine's own tests check every evaluated accumulator, in searches too.
        #[cfg(test)]
        assert_eq!(self.entries[self.top].acc, self.network.accumulate(pos), "{}", pos.to_fen());
        self.network.evaluate(&self.entries[self.top].acc, pos.side_to_move(), pos.occupied().count())
    }

    /// Every accumulator from the root to the top, brought up to date (for tests).
    pub fn computed_line(&mut self) -> Vec<Accumulator> {
        self.current();
        self.entries[..=self.top].iter().map(|e| e.acc).collect()
    }
}
