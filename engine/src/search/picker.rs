//! The staged move picker: moves come out in the order most likely to cause a cutoff, and are
//! generated lazily, stage by stage, so a cutoff by the table move or a good capture saves the
//! cost of generating quiet moves.
//!
//! Main search: table move, good captures and promotions (SEE above a small threshold, ordered by
//! victim and capture history), two killers, the counter move, quiet moves by history, then the
//! captures that lose material. In check: the table move, then every evasion, captures first.
//! Quiescence: the table move if it is noisy, then captures and queen promotions (all evasions
//! when in check). Table, killer and counter moves are validated before being returned.

use super::history::{ContKey, Histories};
use super::params::PICKER_GOOD_NOISY_SEE;
use crate::board::{Move, PieceType, Position};
use crate::movegen::{evasions, noisy_moves, quiet_moves, CheckInfo, MoveList, MAX_MOVES};
use crate::see::SEE_VALUES;
use arrayvec::ArrayVec;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Stage {
    TtMove,
    GenerateNoisy,
    GoodNoisy,
    Killer1,
    Killer2,
    Counter,
    GenerateQuiet,
    Quiet,
    BadNoisy,
    GenerateEvasions,
    Evasions,
    Done,
}

pub struct MovePicker {
    stage: Stage,
    tt_move: Move,
    killers: [Move; 2],
    counter: Move,
    cont: [Option<ContKey>; 2],
    qsearch: bool,
    skip_quiets: bool,
    /// Computed on first use: many nodes never ask.
    checks: Option<CheckInfo>,
    moves: MoveList,
    scores: ArrayVec<i32, MAX_MOVES>,
    next: usize,
    bad_noisy: MoveList,
    bad_next: usize,
}

/// Ordering value of a capture: the victim first, then the capture history.
#[inline]
fn noisy_score(pos: &Position, hist: &Histories, mv: Move) -> i32 {
    let piece = pos.piece_on(mv.from()).expect("generated moves start on a piece");
    let victim = if mv.is_en_passant() {
        PieceType::Pawn
    } else {
        pos.piece_on(mv.to()).map_or(PieceType::Pawn, |p| p.kind())
    };
    let mut score = 16 * SEE_VALUES[victim.index()];
    if mv.is_capture() {
        score += hist.capture(piece, mv, victim);
    } else {
        score -= 16 * SEE_VALUES[0];
    }
    match mv.promotion() {
        Some(PieceType::Queen) => score + 16 * SEE_VALUES[PieceType::Queen.index()],
        Some(_) => score - 100_000,
        None => score,
    }
}

impl MovePicker {
    /// Picker for the main search.
    pub fn new(
        pos: &Position,
        tt_move: Move,
        killers: [Move; 2],
        counter: Move,
        cont: [Option<ContKey>; 2],
    ) -> Self {
        let mut picker = Self::empty(tt_move, false);
        picker.killers = killers;
        picker.counter = counter;
        picker.cont = cont;
        picker.stage = Self::first_stage(pos, tt_move, false);
        picker
    }

    /// Picker for quiescence search.
    pub fn new_qsearch(pos: &Position, tt_move: Move, cont: [Option<ContKey>; 2]) -> Self {
        let mut picker = Self::empty(tt_move, true);
        picker.cont = cont;
        picker.stage = Self::first_stage(pos, tt_move, true);
        picker
    }

    fn empty(tt_move: Move, qsearch: bool) -> Self {
        MovePicker {
            stage: Stage::Done,
            tt_move,
            killers: [Move::NULL; 2],
            counter: Move::NULL,
            cont: [None; 2],
            qsearch,
            skip_quiets: false,
            checks: None,
            moves: MoveList::new(),
            scores: ArrayVec::new(),
            next: 0,
            bad_noisy: MoveList::new(),
            bad_next: 0,
        }
    }

    fn first_stage(pos: &Position, tt_move: Move, qsearch: bool) -> Stage {
        let usable = !tt_move.is_null()
            && (!qsearch || pos.in_check() || tt_move.is_noisy())
            && pos.is_legal_move(tt_move);
        match (usable, pos.in_check()) {
            (true, _) => Stage::TtMove,
            (false, true) => Stage::GenerateEvasions,
            (false, false) => Stage::GenerateNoisy,
        }
    }

    /// Stop returning quiet moves, except those that give check (late move pruning,
    /// futility). Captures still come.
    pub fn skip_quiets(&mut self) {
        self.skip_quiets = true;
    }

    /// Whether `mv` (legal here) gives check.
    #[inline]
    pub fn gives_check(&mut self, pos: &Position, mv: Move) -> bool {
        self.checks.get_or_insert_with(|| CheckInfo::new(pos)).gives_check(pos, mv)
    }

    /// The next move, or `None` when all have been returned.
    pub fn next(&mut self, pos: &Position, hist: &Histories) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = if pos.in_check() { Stage::GenerateEvasions } else { Stage::GenerateNoisy };
                    return Some(self.tt_move);
                }
                Stage::GenerateNoisy => {
                    noisy_moves(pos, &mut self.moves);
                    self.score_noisy(pos, hist);
                    self.stage = Stage::GoodNoisy;
                }
                Stage::GoodNoisy => match self.select_best() {
                    Some(mv) => {
                        if mv == self.tt_move {
                            continue;
                        }
                        if self.qsearch {
                            // Underpromotions are not worth a quiescence node.
                            if mv.promotion().is_some_and(|p| p != PieceType::Queen) {
                                continue;
                            }
                            return Some(mv);
                        }
                        if pos.see_ge(mv, PICKER_GOOD_NOISY_SEE())
                            && mv.promotion().is_none_or(|p| p == PieceType::Queen)
                        {
                            return Some(mv);
                        }
                        self.bad_noisy.push(mv);
                    }
                    None => {
                        self.stage = if self.qsearch { Stage::Done } else { Stage::Killer1 };
                    }
                },
                Stage::Killer1 | Stage::Killer2 | Stage::Counter => {
                    let mv = match self.stage {
                        Stage::Killer1 => self.killers[0],
                        Stage::Killer2 => self.killers[1],
                        _ => self.counter,
                    };
                    let fresh = match self.stage {
                        Stage::Killer1 => true,
                        Stage::Killer2 => mv != self.killers[0],
                        _ => mv != self.killers[0] && mv != self.killers[1],
                    };
                    self.stage = match self.stage {
                        Stage::Killer1 => Stage::Killer2,
                        Stage::Killer2 => Stage::Counter,
                        _ => Stage::GenerateQuiet,
                    };
                    if fresh
                        && !mv.is_null()
                        && mv != self.tt_move
                        && mv.is_quiet()
                        && pos.is_legal_move(mv)
                        && (!self.skip_quiets || self.gives_check(pos, mv))
                    {
                        return Some(mv);
                    }
                }
                Stage::GenerateQuiet => {
                    self.moves.clear();
                    self.next = 0;
                    quiet_moves(pos, &mut self.moves);
                    self.score_quiet(pos, hist);
                    self.stage = Stage::Quiet;
                }
                Stage::Quiet => {
                    // Once quiets are skipped only checks remain wanted: scan, don't sort.
                    let next = if self.skip_quiets { self.take_next() } else { self.select_best() };
                    if let Some(mv) = next {
                        if mv == self.tt_move
                            || self.is_special_quiet(mv)
                            || (self.skip_quiets && !self.gives_check(pos, mv))
                        {
                            continue;
                        }
                        return Some(mv);
                    }
                    self.stage = Stage::BadNoisy;
                }
                Stage::BadNoisy => {
                    if self.bad_next < self.bad_noisy.len() {
                        let mv = self.bad_noisy.get(self.bad_next);
                        self.bad_next += 1;
                        return Some(mv);
                    }
                    self.stage = Stage::Done;
                }
                Stage::GenerateEvasions => {
                    evasions(pos, &mut self.moves);
                    self.score_evasions(pos, hist);
                    self.stage = Stage::Evasions;
                }
                Stage::Evasions => match self.select_best() {
                    Some(mv) if mv == self.tt_move => continue,
                    Some(mv) => return Some(mv),
                    None => self.stage = Stage::Done,
                },
                Stage::Done => return None,
            }
        }
    }

    fn is_special_quiet(&self, mv: Move) -> bool {
        mv == self.killers[0] || mv == self.killers[1] || mv == self.counter
    }

    /// The next remaining move in list order.
    fn take_next(&mut self) -> Option<Move> {
        let mv = self.moves.as_slice().get(self.next).copied();
        self.next += mv.is_some() as usize;
        mv
    }

    /// Remove and return the highest-scored remaining move (selection sort, one step).
    fn select_best(&mut self) -> Option<Move> {
        let len = self.moves.len();
        if self.next >= len {
            return None;
        }
        let scores = &self.scores[self.next..len];
        let mut best = self.next;
        let mut best_score = scores[0];
        for (i, &score) in scores.iter().enumerate().skip(1) {
            if score > best_score {
                best_score = score;
                best = self.next + i;
            }
        }
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        let mv = self.moves.get(self.next);
        self.next += 1;
        Some(mv)
    }

    fn score_noisy(&mut self, pos: &Position, hist: &Histories) {
        self.scores.clear();
        for &mv in self.moves.iter() {
            self.scores.push(noisy_score(pos, hist, mv));
        }
    }

    fn score_quiet(&mut self, pos: &Position, hist: &Histories) {
        let stm = pos.side_to_move();
        self.scores.clear();
        for &mv in self.moves.iter() {
            let piece = pos.piece_on(mv.from()).expect("generated moves start on a piece");
            self.scores.push(hist.quiet_score(stm, piece, mv, self.cont));
        }
    }

    fn score_evasions(&mut self, pos: &Position, hist: &Histories) {
        let stm = pos.side_to_move();
        self.scores.clear();
        for &mv in self.moves.iter() {
            self.scores.push(if mv.is_noisy() {
                1_000_000 + noisy_score(pos, hist, mv)
            } else {
                let piece = pos.piece_on(mv.from()).expect("generated moves start on a piece");
                hist.quiet_score(stm, piece, mv, self.cont)
            });
        }
    }
}
