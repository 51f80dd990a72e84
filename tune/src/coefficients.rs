//! The evaluation made linear around a parameter set: base totals and per-parameter derivatives.
//!
//! Material and piece-square entries are counted directly from the board (they are plain sums).
//! Every other parameter is found by finite differences on the evaluation itself: a forward
//! difference of one centipawn for the linear terms, and a central difference for the king-danger
//! units, whose midgame penalty is quadratic. A parameter that does not change the totals has no
//! coefficient, so each position keeps only the few dozen parameters that touch it.

use engine::board::{Color, PieceType, Position};
use engine::eval::{trace_with, Params};

/// How much one parameter moves the totals of one position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coefficient {
    pub index: u32,
    pub mg: f32,
    pub eg: f32,
}

/// One position's evaluation as a linear function of the parameters around `Layout`'s base set.
#[derive(Clone, Debug)]
pub struct Linearised {
    /// Midgame and endgame totals (White's view) at the base set.
    pub mg: f32,
    pub eg: f32,
    /// Game phase, 24 (all pieces) to 0, and the endgame scale out of 64 at the base set.
    pub phase: u8,
    pub scale: u8,
    pub coefficients: Box<[Coefficient]>,
}

impl Linearised {
    /// The modelled evaluation (White's view, centipawns) with parameters moved by `delta`
    /// (interleaved mg, eg per parameter) from the base set.
    #[inline]
    pub fn eval(&self, delta: &[f64]) -> f64 {
        let (mut mg, mut eg) = (self.mg as f64, self.eg as f64);
        for c in self.coefficients.iter() {
            let i = 2 * c.index as usize;
            mg += c.mg as f64 * delta[i];
            eg += c.eg as f64 * delta[i + 1];
        }
        self.blend(mg, eg)
    }

    /// The phase blend of a midgame and an endgame total, as the evaluation does it.
    #[inline]
    pub fn blend(&self, mg: f64, eg: f64) -> f64 {
        let phase = self.phase as f64;
        (mg * phase + eg * (self.scale as f64 / 64.0) * (24.0 - phase)) / 24.0
    }

    /// d eval / d mg-total and d eval / d eg-total.
    #[inline]
    pub fn blend_weights(&self) -> (f64, f64) {
        let phase = self.phase as f64;
        (phase / 24.0, (self.scale as f64 / 64.0) * (24.0 - phase) / 24.0)
    }
}

/// Which parameters are counted directly and which are differenced, and by how much.
#[derive(Clone, Debug)]
pub struct Layout {
    material: usize,
    psqt: usize,
    /// (parameter index, step, central difference?) for every other parameter.
    differenced: Vec<(usize, i32, bool)>,
    len: usize,
}

/// Parameters whose effect is not linear: the king-danger units, squared in the midgame.
const QUADRATIC_PREFIXES: [&str; 6] = [
    "king_attacker_weight",
    "king_zone_hits",
    "king_weak_squares",
    "king_safe_check",
    "king_no_queen",
    "king_danger_offset",
];

impl Layout {
    pub fn new(params: &Params) -> Layout {
        let list = params.list();
        let find = |name: &str| list.iter().position(|p| p.name == name).expect("parameter exists");
        let material = find("material[p]");
        let psqt = find("psqt[p][a1]");
        assert_eq!(find("material[k]"), material + 5, "material is indexed by piece type");
        assert_eq!(find("psqt[k][h8]"), psqt + 6 * 64 - 1, "tables are indexed by type, square");
        let direct = material..material + 6;
        let tables = psqt..psqt + 6 * 64;
        let differenced = list
            .iter()
            .enumerate()
            .filter(|(i, _)| !direct.contains(i) && !tables.contains(i))
            .map(|(i, p)| {
                let quadratic = QUADRATIC_PREFIXES.iter().any(|prefix| p.name.starts_with(prefix));
                if quadratic {
                    (i, 8, true)
                } else {
                    (i, 1, false)
                }
            })
            .collect();
        Layout { material, psqt, differenced, len: list.len() }
    }

    /// The number of parameters.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Linearises `pos` around `params`; `scratch` must equal `params` and is returned equal.
    /// `None` for a dead draw, which the evaluation scores 0 whatever the parameters.
    pub fn linearise(&self, pos: &Position, params: &Params, scratch: &mut Params) -> Option<Linearised> {
        let base = trace_with(pos, params);
        if base.dead_draw {
            return None;
        }
        let total = base.total();
        let mut coefficients = Vec::with_capacity(48);
        for us in Color::ALL {
            let sign = if us == Color::White { 1.0 } else { -1.0 };
            for kind in PieceType::ALL {
                let pieces = pos.pieces_of(us, kind);
                if pieces.is_empty() {
                    continue;
                }
                let count = sign * pieces.count() as f32;
                coefficients.push(Coefficient {
                    index: (self.material + kind.index()) as u32,
                    mg: count,
                    eg: count,
                });
                for sq in pieces {
                    let index = self.psqt + kind.index() * 64 + sq.relative(us).index();
                    coefficients.push(Coefficient { index: index as u32, mg: sign, eg: sign });
                }
            }
        }
        for &(index, step, central) in &self.differenced {
            let original = scratch.get(index).expect("index from the list");
            let (mg, eg) = (original.mg(), original.eg());
            scratch.set(index, mg + step, eg + step);
            let up = trace_with(pos, scratch).total();
            let (dmg, deg) = if central {
                scratch.set(index, mg - step, eg - step);
                let down = trace_with(pos, scratch).total();
                let width = 2.0 * step as f32;
                ((up.mg() - down.mg()) as f32 / width, (up.eg() - down.eg()) as f32 / width)
            } else {
                ((up.mg() - total.mg()) as f32 / step as f32, (up.eg() - total.eg()) as f32 / step as f32)
            };
            scratch.set(index, mg, eg);
            if dmg != 0.0 || deg != 0.0 {
                coefficients.push(Coefficient { index: index as u32, mg: dmg, eg: deg });
            }
        }
        merge_duplicates(&mut coefficients);
        Some(Linearised {
            mg: total.mg() as f32,
            eg: total.eg() as f32,
            phase: base.phase as u8,
            scale: base.scale as u8,
            coefficients: coefficients.into_boxed_slice(),
        })
    }
}

/// White and Black pieces on mirrored squares share a table entry: sum such coefficients and drop
/// those that cancel.
fn merge_duplicates(coefficients: &mut Vec<Coefficient>) {
    coefficients.sort_unstable_by_key(|c| c.index);
    let mut merged: Vec<Coefficient> = Vec::with_capacity(coefficients.len());
    for c in coefficients.drain(..) {
        match merged.last_mut() {
            Some(last) if last.index == c.index => {
                last.mg += c.mg;
                last.eg += c.eg;
            }
            _ => merged.push(c),
        }
    }
    merged.retain(|c| c.mg != 0.0 || c.eg != 0.0);
    *coefficients = merged;
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::eval::Params;

    const FENS: [&str; 5] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
        "8/5pk1/6p1/3P4/1p3P2/6P1/5K2/8 b - - 0 45",
        "r4rk1/1b3ppp/p2qpn2/1p6/3Q4/1BN1B3/PPP2PPP/R4RK1 b - - 3 15",
        "2r3k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 30",
    ];

    /// Moving one linear parameter changes the real totals exactly as the coefficients say.
    #[test]
    fn coefficients_predict_the_evaluation() {
        let params = Params::DEFAULT;
        let layout = Layout::new(&params);
        let mut scratch = params.clone();
        for fen in FENS {
            let pos = Position::from_fen(fen).expect("valid FEN");
            let lin = layout.linearise(&pos, &params, &mut scratch).expect("not a dead draw");
            assert_eq!(scratch, params);
            for c in lin.coefficients.iter() {
                let name = &params.list()[c.index as usize].name;
                if QUADRATIC_PREFIXES.iter().any(|p| name.starts_with(p)) {
                    continue;
                }
                let mut moved = params.clone();
                let base = params.get(c.index as usize).expect("exists");
                moved.set(c.index as usize, base.mg() + 5, base.eg() - 3);
                let total = trace_with(&pos, &moved).total();
                assert_eq!(total.mg() as f32, lin.mg + 5.0 * c.mg, "{fen}: {name} mg");
                assert_eq!(total.eg() as f32, lin.eg - 3.0 * c.eg, "{fen}: {name} eg");
            }
            // Table entries are listed (in the symmetric start position they all cancel).
            let table_entries = lin.coefficients.iter().filter(|c| {
                let i = c.index as usize;
                (layout.psqt..layout.psqt + 384).contains(&i)
            });
            assert_eq!(table_entries.count() >= 2, fen != FENS[0], "{fen}");
        }
    }

    /// The model at the base set reproduces the engine's evaluation (up to its integer rounding).
    #[test]
    fn model_matches_the_evaluation_at_the_base() {
        let params = Params::DEFAULT;
        let layout = Layout::new(&params);
        let mut scratch = params.clone();
        let delta = vec![0.0; 2 * layout.len()];
        for fen in FENS {
            let pos = Position::from_fen(fen).expect("valid FEN");
            let lin = layout.linearise(&pos, &params, &mut scratch).expect("not a dead draw");
            let white = trace_with(&pos, &params).white_score as f64;
            assert!((lin.eval(&delta) - white).abs() <= 1.0, "{fen}: {} vs {white}", lin.eval(&delta));
        }
    }
}
