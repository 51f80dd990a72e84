//! The evaluation broken down by term, for the UCI `eval` command and for debugging.
//!
//! The evaluation is generic over a `Tracer`: the search uses `NoTrace`, whose recording compiles
//! to nothing, and `trace` uses `Trace`, which keeps every term per colour.

use super::score::Score;
use crate::board::Color;
use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Term {
    Material,
    Psqt,
    BishopPair,
    Pawns,
    Passed,
    Mobility,
    Pieces,
    KingSafety,
    Threats,
    Space,
    Tempo,
}

impl Term {
    pub const ALL: [Term; 11] = [
        Term::Material,
        Term::Psqt,
        Term::BishopPair,
        Term::Pawns,
        Term::Passed,
        Term::Mobility,
        Term::Pieces,
        Term::KingSafety,
        Term::Threats,
        Term::Space,
        Term::Tempo,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Term::Material => "Material",
            Term::Psqt => "Piece squares",
            Term::BishopPair => "Bishop pair",
            Term::Pawns => "Pawns",
            Term::Passed => "Passed pawns",
            Term::Mobility => "Mobility",
            Term::Pieces => "Pieces",
            Term::KingSafety => "King safety",
            Term::Threats => "Threats",
            Term::Space => "Space",
            Term::Tempo => "Tempo",
        }
    }
}

pub(super) trait Tracer {
    /// `score` is `color`'s share of `term`, from `color`'s point of view.
    fn record(&mut self, term: Term, color: Color, score: Score);

    /// How the terms were combined: the game phase and the endgame scale factor.
    fn record_result(&mut self, _phase: i32, _scale: i32) {}
}

pub(super) struct NoTrace;

impl Tracer for NoTrace {
    #[inline(always)]
    fn record(&mut self, _: Term, _: Color, _: Score) {}
}

/// Every term per colour, plus how they were combined.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// By term (in `Term::ALL` order), then colour; each from its own colour's point of view.
    pub terms: [[Score; 2]; 11],
    /// Game phase, 24 = all pieces on the board, 0 = pawn ending.
    pub phase: i32,
    /// Endgame scale factor out of 64.
    pub scale: i32,
    /// The final evaluation from White's point of view, in centipawns.
    pub white_score: i32,
    /// The final evaluation from the side to move's point of view (what `evaluate` returns).
    pub stm_score: i32,
    /// Set when the position is a dead draw by material and no term was computed.
    pub dead_draw: bool,
}

impl Trace {
    /// The sum of all terms from White's point of view, before the phase blend and the
    /// endgame scale.
    pub fn total(&self) -> Score {
        self.terms.iter().map(|[w, b]| *w - *b).sum()
    }
}

impl Tracer for Trace {
    fn record(&mut self, term: Term, color: Color, score: Score) {
        self.terms[term as usize][color.index()] += score;
    }

    fn record_result(&mut self, phase: i32, scale: i32) {
        self.phase = phase;
        self.scale = scale;
    }
}

fn pawns(cp: i32) -> String {
    format!("{:+.2}", cp as f64 / 100.0)
}

impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "          Term |     White     |     Black     |     Total")?;
        writeln!(f, "               |   MG     EG   |   MG     EG   |   MG     EG")?;
        writeln!(f, "---------------+---------------+---------------+--------------")?;
        for term in Term::ALL {
            let [w, b] = self.terms[term as usize];
            let total = w - b;
            writeln!(
                f,
                "{:>14} | {:>6} {:>6} | {:>6} {:>6} | {:>6} {:>6}",
                term.name(),
                pawns(w.mg()),
                pawns(w.eg()),
                pawns(b.mg()),
                pawns(b.eg()),
                pawns(total.mg()),
                pawns(total.eg())
            )?;
        }
        writeln!(f, "---------------+---------------+---------------+--------------")?;
        writeln!(
            f,
            "{:>14} |               |               | {:>6} {:>6}",
            "Total",
            pawns(self.total().mg()),
            pawns(self.total().eg())
        )?;
        writeln!(f)?;
        if self.dead_draw {
            writeln!(f, "Dead draw by material")?;
        } else {
            writeln!(f, "Phase {}/24, endgame scale {}/64", self.phase, self.scale)?;
        }
        writeln!(
            f,
            "Final evaluation: {} (White's view), {} (side to move's view)",
            pawns(self.white_score),
            pawns(self.stm_score)
        )
    }
}
