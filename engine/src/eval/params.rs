//! The one parameter set: every weight of the evaluation, as packed mg/eg `Score`s.
//!
//! A tuner sees the set as a flat list of `(name, mg, eg)` entries (`Params::list`) and writes
//! entries back by index (`Params::set`); `Params::to_source` prints a set as Rust, which the
//! tuner (`lazuli-tune`) writes to `tuned.rs`, the set the engine plays with. The fields below
//! carry the hand-set starting values (`Params::HAND_SET`): PeSTO's material and tables (see
//! `psqt.rs`) plus hand-set values for the other terms.
//!
//! Arrays indexed by "rank" use the rank relative to the owner (0 = its back rank). Arrays of six
//! are indexed by piece type (pawn, knight, bishop, rook, queen, king).
//! King-danger entries are not centipawns but "units" summed and then squared (see `king.rs`).

use super::psqt::{MATERIAL, PSQT};
use super::score::{s, Score};
use crate::board::{PieceType, Square};

/// One scalar parameter as a tuner sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub mg: i32,
    pub eg: i32,
}

/// A parameter field: a single score or a (nested) array of them, viewed as a flat slice.
trait Group {
    fn slots(&self) -> &[Score];
    fn slots_mut(&mut self) -> &mut [Score];
    fn element_name(&self, name: &str, index: usize) -> String;
    /// The group as a Rust expression, e.g. `s(1, 2)` or `[s(1, 2), s(3, 4)]`.
    fn source(&self) -> String;
}

fn score_source(score: &Score) -> String {
    format!("s({}, {})", score.mg(), score.eg())
}

fn array_source(slots: &[Score], indent: &str) -> String {
    let mut out = String::from("[");
    for (i, score) in slots.iter().enumerate() {
        if i % 8 == 0 {
            out.push('\n');
            out.push_str(indent);
        } else {
            out.push(' ');
        }
        out.push_str(&score_source(score));
        out.push(',');
    }
    out.push('\n');
    out.push_str(&indent[4..]);
    out.push(']');
    out
}

impl Group for Score {
    fn slots(&self) -> &[Score] {
        std::slice::from_ref(self)
    }
    fn slots_mut(&mut self) -> &mut [Score] {
        std::slice::from_mut(self)
    }
    fn element_name(&self, name: &str, _: usize) -> String {
        name.to_string()
    }
    fn source(&self) -> String {
        score_source(self)
    }
}

fn index_label(len: usize, index: usize) -> String {
    match len {
        6 => PieceType::ALL[index].letter().to_string(),
        64 => Square::new(index as u8).to_string(),
        _ => index.to_string(),
    }
}

impl<const N: usize> Group for [Score; N] {
    fn slots(&self) -> &[Score] {
        self
    }
    fn slots_mut(&mut self) -> &mut [Score] {
        self
    }
    fn element_name(&self, name: &str, index: usize) -> String {
        format!("{name}[{}]", index_label(N, index))
    }
    fn source(&self) -> String {
        array_source(self, "        ")
    }
}

impl<const N: usize, const M: usize> Group for [[Score; N]; M] {
    fn slots(&self) -> &[Score] {
        self.as_flattened()
    }
    fn slots_mut(&mut self) -> &mut [Score] {
        self.as_flattened_mut()
    }
    fn element_name(&self, name: &str, index: usize) -> String {
        format!("{name}[{}][{}]", index_label(M, index / N), index_label(N, index % N))
    }
    fn source(&self) -> String {
        let rows: Vec<String> = self.iter().map(|row| array_source(row, "            ")).collect();
        format!("[\n        {},\n    ]", rows.join(",\n        "))
    }
}

macro_rules! parameters {
    ($( $(#[doc = $doc:literal])* $name:ident : $ty:ty = $default:expr, )*) => {
        /// Every weight of the evaluation. `Params::DEFAULT` is the built-in (tuned) set,
        /// `Params::HAND_SET` the starting values written below.
        #[derive(Clone, Debug, PartialEq)]
        pub struct Params {
            $( $(#[doc = $doc])* pub $name: $ty, )*
        }

        impl Params {
            /// The hand-set starting values: PeSTO's material and tables, the rest set by hand.
            pub const HAND_SET: Params = Params { $( $name: $default, )* };

            fn visit(&self, f: &mut dyn FnMut(&dyn Group, &'static str)) {
                $( f(&self.$name, stringify!($name)); )*
            }

            fn visit_mut(&mut self, f: &mut dyn FnMut(&mut dyn Group)) {
                $( f(&mut self.$name); )*
            }
        }
    };
}

parameters! {
    /// Piece values (the king's is unused).
    material: [Score; 6] = MATERIAL,
    /// Piece-square tables, by piece type and by square seen from the owner's side.
    psqt: [[Score; 64]; 6] = PSQT,
    bishop_pair: Score = s(30, 55),

    /// Mobility by the number of safe squares a piece attacks.
    knight_mobility: [Score; 9] = [
        s(-45, -55), s(-25, -35), s(-10, -18), s(-3, -6), s(3, 2), s(9, 8), s(14, 12), s(18, 15),
        s(22, 16),
    ],
    bishop_mobility: [Score; 14] = [
        s(-40, -55), s(-25, -35), s(-12, -20), s(-4, -9), s(3, 0), s(9, 7), s(14, 13), s(18, 18),
        s(22, 22), s(25, 25), s(28, 27), s(30, 29), s(32, 31), s(34, 33),
    ],
    rook_mobility: [Score; 15] = [
        s(-35, -60), s(-22, -38), s(-12, -22), s(-6, -10), s(-2, -2), s(1, 6), s(4, 13), s(7, 19),
        s(10, 24), s(13, 29), s(15, 33), s(17, 36), s(19, 39), s(20, 41), s(21, 43),
    ],
    queen_mobility: [Score; 28] = [
        s(-25, -50), s(-18, -40), s(-12, -30), s(-8, -22), s(-5, -16), s(-3, -11), s(-1, -6),
        s(1, -2), s(3, 2), s(5, 6), s(7, 10), s(9, 14), s(10, 17), s(11, 20), s(12, 23),
        s(13, 26), s(14, 28), s(15, 30), s(16, 32), s(17, 34), s(18, 36), s(19, 38), s(20, 40),
        s(21, 41), s(22, 42), s(23, 43), s(24, 44), s(25, 45),
    ],

    /// A knight on a pawn-protected square that no enemy pawn can ever attack (ranks 4 to 6).
    knight_outpost: Score = s(28, 16),
    /// A knight one move from such a square.
    knight_outpost_reach: Score = s(12, 6),
    bishop_outpost: Score = s(16, 6),
    /// A knight or bishop directly behind a pawn of either colour.
    minor_behind_pawn: Score = s(10, 3),
    /// Per own pawn on the bishop's square colour.
    bishop_pawns_same_color: Score = s(-3, -6),
    rook_open_file: Score = s(30, 8),
    rook_half_open_file: Score = s(12, 6),

    /// No own pawn on an adjacent file.
    pawn_isolated: Score = s(-8, -12),
    /// Per pawn with an own pawn ahead of it on its file.
    pawn_doubled: Score = s(-8, -22),
    /// No own pawn beside or behind on adjacent files, and the stop square is held by enemy pawns.
    pawn_backward: Score = s(-6, -10),
    /// Extra for a backward pawn with no enemy pawn ahead on its file (open to rook attacks).
    pawn_backward_exposed: Score = s(-8, -6),
    /// A pawn with an own pawn beside it, by rank.
    pawn_phalanx: [Score; 8] = [
        s(0, 0), s(3, 2), s(6, 5), s(10, 8), s(20, 16), s(40, 35), s(70, 60), s(0, 0),
    ],
    /// Per own pawn defending this pawn, by rank.
    pawn_supported: [Score; 8] = [
        s(0, 0), s(0, 0), s(8, 5), s(10, 7), s(14, 10), s(25, 20), s(40, 30), s(0, 0),
    ],

    /// A passed pawn, by rank.
    passed_rank: [Score; 8] = [
        s(0, 0), s(2, 4), s(4, 8), s(6, 14), s(12, 25), s(25, 45), s(40, 65), s(0, 0),
    ],
    /// Per square of distance from the own king to the square in front of the passed pawn.
    passed_own_king_distance: [Score; 8] = [
        s(0, 0), s(0, 0), s(0, 0), s(0, -2), s(0, -4), s(0, -6), s(0, -8), s(0, 0),
    ],
    /// Per square of distance from the enemy king to the square in front of the passed pawn.
    passed_their_king_distance: [Score; 8] = [
        s(0, 0), s(0, 0), s(0, 0), s(0, 4), s(0, 8), s(0, 12), s(0, 16), s(0, 0),
    ],
    /// The square in front of the passed pawn holds an enemy piece.
    passed_blocked: [Score; 8] = [
        s(0, 0), s(0, 0), s(0, 0), s(0, -5), s(-2, -10), s(-5, -20), s(-8, -30), s(0, 0),
    ],
    /// The square in front is empty and not attacked by the enemy.
    passed_safe_push: [Score; 8] = [
        s(0, 0), s(0, 0), s(0, 2), s(2, 5), s(4, 10), s(6, 15), s(8, 20), s(0, 0),
    ],
    /// Every square up to promotion is empty and not attacked by the enemy.
    passed_free_path: [Score; 8] = [
        s(0, 0), s(0, 0), s(0, 5), s(2, 10), s(5, 20), s(10, 35), s(15, 55), s(0, 0),
    ],
    /// The enemy has only king and pawns and its king is outside the pawn's square.
    passed_unstoppable: Score = s(0, 150),

    /// Own pawn shelter in front of the king: [adjacent file, king's file][rank of the nearest
    /// own pawn at or ahead of the king; 0 = none].
    king_shelter: [[Score; 8]; 2] = [
        [s(-22, 0), s(14, 0), s(8, 0), s(-2, 0), s(-6, 0), s(-8, 0), s(-10, 0), s(0, 0)],
        [s(-32, -4), s(20, 0), s(10, 0), s(-4, 0), s(-8, 0), s(-10, 0), s(-12, 0), s(0, 0)],
    ],
    /// Enemy pawn storm: [free, blocked by an own pawn][rank (from our side) of the nearest enemy
    /// pawn at or ahead of the king on that file; 0 = none].
    king_storm: [[Score; 8]; 2] = [
        [s(0, 0), s(-10, 0), s(-40, -4), s(-25, -2), s(-12, 0), s(-5, 0), s(0, 0), s(0, 0)],
        [s(0, 0), s(0, 0), s(-6, 0), s(-4, 0), s(-2, 0), s(0, 0), s(0, 0), s(0, 0)],
    ],
    /// Danger units per enemy piece attacking the king zone, by its type.
    king_attacker_weight: [Score; 6] = [
        s(0, 0), s(30, 30), s(20, 20), s(25, 25), s(40, 40), s(0, 0),
    ],
    /// Danger units per attack on a square next to the king.
    king_zone_hits: Score = s(10, 10),
    /// Danger units per weak square in the king zone (attacked, barely defended).
    king_weak_squares: Score = s(12, 12),
    /// Danger units for having a safe check with a piece of this type.
    king_safe_check: [Score; 6] = [
        s(0, 0), s(60, 60), s(40, 40), s(60, 60), s(40, 40), s(0, 0),
    ],
    /// Danger units when the attacker has no queen.
    king_no_queen: Score = s(-120, -120),
    /// Danger units added to every attack.
    king_danger_offset: Score = s(-30, -30),

    /// Enemy pieces attacked by our pawns, by the victim's type.
    threat_by_pawn: [Score; 6] = [
        s(0, 0), s(55, 30), s(55, 35), s(80, 40), s(70, 40), s(0, 0),
    ],
    /// Enemy pieces (and pawns no pawn defends) attacked by our minors, by the victim's type.
    threat_by_minor: [Score; 6] = [
        s(5, 20), s(20, 25), s(20, 25), s(45, 50), s(45, 60), s(0, 0),
    ],
    /// The same for our rooks.
    threat_by_rook: [Score; 6] = [
        s(3, 20), s(15, 25), s(15, 25), s(0, 10), s(40, 40), s(0, 0),
    ],
    /// Per enemy piece a safe pawn push would attack.
    threat_pawn_push: Score = s(15, 12),
    /// Per enemy piece attacked and not defended at all.
    hanging: Score = s(25, 15),

    /// Per unit of safe central space behind our pawns, weighted by our piece count.
    space: Score = s(2, 0),
    /// For the side to move.
    tempo: Score = s(20, 10),
}

impl Default for Params {
    fn default() -> Params {
        Params::DEFAULT
    }
}

impl Params {
    /// The number of scalar parameters (each with an mg and an eg half).
    pub fn len(&self) -> usize {
        let mut n = 0;
        self.visit(&mut |group, _| n += group.slots().len());
        n
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every parameter in a fixed order; `set(i, ..)` writes the `i`-th of this list.
    pub fn list(&self) -> Vec<Param> {
        let mut out = Vec::with_capacity(self.len());
        self.visit(&mut |group, name| {
            for (i, score) in group.slots().iter().enumerate() {
                out.push(Param { name: group.element_name(name, i), mg: score.mg(), eg: score.eg() });
            }
        });
        out
    }

    pub fn get(&self, index: usize) -> Option<Score> {
        let mut left = index;
        let mut found = None;
        self.visit(&mut |group, _| {
            let slots = group.slots();
            if found.is_none() && left < slots.len() {
                found = Some(slots[left]);
            }
            left = left.wrapping_sub(slots.len());
        });
        found
    }

    /// The set as the body of a Rust struct expression (`Params { .. }`), one field per line
    /// group, as the tuner writes it back into `tuned.rs`.
    pub fn to_source(&self) -> String {
        let mut out = String::from("Params {\n");
        self.visit(&mut |group, name| {
            out.push_str(&format!("    {name}: {},\n", group.source()));
        });
        out.push('}');
        out
    }

    /// Overwrite the `index`-th parameter. Returns false if there is no such parameter.
    /// Each half must fit in an `i16`.
    pub fn set(&mut self, index: usize, mg: i32, eg: i32) -> bool {
        let mut left = index;
        let mut done = false;
        self.visit_mut(&mut |group| {
            let slots = group.slots_mut();
            if !done && left < slots.len() {
                slots[left] = Score::new(mg, eg);
                done = true;
            }
            left = left.wrapping_sub(slots.len());
        });
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_get_and_set_agree() {
        let mut p = Params::HAND_SET;
        let list = p.list();
        assert_eq!(list.len(), p.len());
        assert_eq!(list[0], Param { name: "material[p]".into(), mg: 82, eg: 94 });
        assert!(list.iter().any(|e| e.name == "psqt[n][e4]"));
        assert!(list.iter().any(|e| e.name == "king_shelter[1][0]"));
        assert_eq!(list.last().map(|e| e.name.as_str()), Some("tempo"));
        for (i, entry) in list.iter().enumerate() {
            assert_eq!(p.get(i), Some(Score::new(entry.mg, entry.eg)));
        }
        let i = list.iter().position(|e| e.name == "rook_open_file").expect("listed");
        assert!(p.set(i, 11, -12));
        assert_eq!(p.rook_open_file, Score::new(11, -12));
        assert!(!p.set(list.len(), 0, 0));
        assert_eq!(p.get(list.len()), None);
    }
}
