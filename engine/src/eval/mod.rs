//! Hand-crafted tapered evaluation.
//!
//! Every term produces a midgame and an endgame value packed in one `Score`; the two are blended
//! by the game phase, and the endgame half is first scaled towards a draw where the stronger
//! side's material cannot win. Every weight lives in one `Params` set that a tuner can list and
//! write. Pawn-structure terms are cached per searcher in a `PawnCache`.
//!
//! Each term is computed per colour from that colour's point of view, and White's minus Black's
//! makes the total, so a colour-flipped position gets exactly the opposite score (the symmetry
//! tests check it on random positions).
//!
//! One evaluation runs in passes: pawn entry (cached), pawn and king attack maps, then the pieces
//! of both sides (mobility and the rest of the attack maps), then the terms that read the
//! complete maps: king safety, threats, passed pawns, space.

mod bits;
mod info;
mod king;
mod material;
mod params;
mod passed;
mod pawns;
mod pieces;
mod psqt;
mod scale;
mod score;
mod space;
mod threats;
mod trace;
mod tuned;

#[cfg(test)]
mod tests;

pub use params::Params;
pub use pawns::PawnCache;
pub use score::Score;
pub use trace::{Term, Trace};

use crate::board::{Color, Position};

impl Params {
    /// The values the engine plays with, written by the Texel tuner into `tuned.rs`.
    pub const DEFAULT: Params = tuned::TUNED;
}

/// The built-in parameter set.
pub static DEFAULT_PARAMS: Params = Params::DEFAULT;
use info::EvalInfo;
use pawns::PawnEntry;
use scale::{PHASE_MAX, SCALE_NORMAL};
use trace::{NoTrace, Tracer};

/// Evaluations never leave ±`EVAL_LIMIT`, far from mate scores.
pub const EVAL_LIMIT: i32 = 10_000;

/// The static evaluation in centipawns from the side to move's point of view, tempo included.
#[inline]
pub fn evaluate(pos: &Position, pawns: &mut PawnCache) -> i32 {
    evaluate_with(pos, &DEFAULT_PARAMS, pawns)
}

/// `evaluate` with a chosen parameter set. The cache must only ever have seen `params`.
#[inline]
pub fn evaluate_with(pos: &Position, params: &Params, pawns: &mut PawnCache) -> i32 {
    if scale::is_dead_draw(pos) {
        return 0;
    }
    let entry = pawns.probe(pos, params);
    evaluate_entry(pos, params, entry, &mut NoTrace)
}

/// `evaluate_with` without a cache (for tuning, where parameters change between calls).
pub fn evaluate_uncached(pos: &Position, params: &Params) -> i32 {
    if scale::is_dead_draw(pos) {
        return 0;
    }
    evaluate_entry(pos, params, &PawnEntry::compute(pos, params), &mut NoTrace)
}

/// The evaluation with the default parameters broken down by term, as text for `eval`.
pub fn trace(pos: &Position) -> String {
    trace_with(pos, &DEFAULT_PARAMS).to_string()
}

/// The evaluation broken down by term.
pub fn trace_with(pos: &Position, params: &Params) -> Trace {
    let mut trace = Trace::default();
    if scale::is_dead_draw(pos) {
        trace.dead_draw = true;
        return trace;
    }
    let stm = evaluate_entry(pos, params, &PawnEntry::compute(pos, params), &mut trace);
    trace.stm_score = stm;
    trace.white_score = stm * pos.side_to_move().sign();
    trace
}

/// Adds `score`, `color`'s share of `term` from `color`'s view, to the White-relative `total`.
#[inline(always)]
fn add<T: Tracer>(t: &mut T, total: &mut Score, term: Term, color: Color, score: Score) {
    t.record(term, color, score);
    if color == Color::White {
        *total += score;
    } else {
        *total -= score;
    }
}

fn evaluate_entry<T: Tracer>(pos: &Position, params: &Params, entry: &PawnEntry, t: &mut T) -> i32 {
    let mut info = EvalInfo::new(pos);
    let mut total = Score::ZERO;

    for us in Color::ALL {
        let (material, psqt) = material::material_and_psqt(pos, params, us);
        add(t, &mut total, Term::Material, us, material);
        add(t, &mut total, Term::Psqt, us, psqt);
        add(t, &mut total, Term::BishopPair, us, material::bishop_pair(pos, params, us));
        add(t, &mut total, Term::Pawns, us, entry.score[us.index()]);
    }
    // Both sides' pieces first: the terms after this need complete attack maps.
    for us in Color::ALL {
        let (mobility, pieces) = pieces::pieces(pos, params, entry, &mut info, us);
        add(t, &mut total, Term::Mobility, us, mobility);
        add(t, &mut total, Term::Pieces, us, pieces);
    }
    for us in Color::ALL {
        add(t, &mut total, Term::KingSafety, us, king::king_safety(pos, params, &info, us));
        add(t, &mut total, Term::Threats, us, threats::threats(pos, params, &info, us));
        let passed = entry.passed[us.index()];
        add(t, &mut total, Term::Passed, us, passed::passed_pawns(pos, params, &info, passed, us));
        add(t, &mut total, Term::Space, us, space::space(pos, params, &info, us));
    }
    add(t, &mut total, Term::Tempo, pos.side_to_move(), params.tempo);

    let phase = scale::phase(pos);
    let passed = entry.passed[0] | entry.passed[1];
    let scale = scale::scale_factor(pos, total.eg(), passed);
    let eg = total.eg() * scale / SCALE_NORMAL;
    let white = (total.mg() * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX;
    let white = white.clamp(-EVAL_LIMIT, EVAL_LIMIT);
    t.record_result(phase, scale);
    white * pos.side_to_move().sign()
}
