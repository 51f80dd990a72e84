//! `Score`: a midgame and an endgame value packed into one `i32`, so that one addition sums both.
//!
//! The endgame half lives in the upper 16 bits and the midgame half in the lower 16 (sign-extended
//! on extraction), which works as long as each half stays within `i16`. Evaluation terms are a
//! few thousand centipawns at most, far inside that range.

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct Score(i32);

/// Shorthand for `Score::new`, used by the parameter tables.
#[inline]
pub const fn s(mg: i32, eg: i32) -> Score {
    Score::new(mg, eg)
}

impl Score {
    pub const ZERO: Score = Score(0);

    #[inline]
    pub const fn new(mg: i32, eg: i32) -> Score {
        debug_assert!(mg >= i16::MIN as i32 && mg <= i16::MAX as i32);
        debug_assert!(eg >= i16::MIN as i32 && eg <= i16::MAX as i32);
        Score(((eg as u32) << 16).wrapping_add(mg as u32) as i32)
    }

    #[inline]
    pub const fn mg(self) -> i32 {
        self.0 as i16 as i32
    }

    #[inline]
    pub const fn eg(self) -> i32 {
        (self.0.wrapping_add(0x8000) >> 16) as i16 as i32
    }
}

impl Add for Score {
    type Output = Score;
    #[inline]
    fn add(self, rhs: Score) -> Score {
        Score(self.0.wrapping_add(rhs.0))
    }
}

impl Sub for Score {
    type Output = Score;
    #[inline]
    fn sub(self, rhs: Score) -> Score {
        Score(self.0.wrapping_sub(rhs.0))
    }
}

impl Neg for Score {
    type Output = Score;
    #[inline]
    fn neg(self) -> Score {
        Score(self.0.wrapping_neg())
    }
}

impl Mul<i32> for Score {
    type Output = Score;
    #[inline]
    fn mul(self, rhs: i32) -> Score {
        Score(self.0.wrapping_mul(rhs))
    }
}

impl AddAssign for Score {
    #[inline]
    fn add_assign(&mut self, rhs: Score) {
        *self = *self + rhs;
    }
}

impl SubAssign for Score {
    #[inline]
    fn sub_assign(&mut self, rhs: Score) {
        *self = *self - rhs;
    }
}

impl Sum for Score {
    fn sum<I: Iterator<Item = Score>>(iter: I) -> Score {
        iter.fold(Score::ZERO, Add::add)
    }
}

impl fmt::Debug for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "s({}, {})", self.mg(), self.eg())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_survive_packing_and_arithmetic() {
        for mg in [-3000, -1, 0, 1, 77, 3000] {
            for eg in [-3000, -1, 0, 1, -77, 3000] {
                let a = s(mg, eg);
                assert_eq!((a.mg(), a.eg()), (mg, eg));
                let b = s(eg, mg);
                assert_eq!(((a + b).mg(), (a + b).eg()), (mg + eg, eg + mg));
                assert_eq!(((a - b).mg(), (a - b).eg()), (mg - eg, eg - mg));
                assert_eq!(((-a).mg(), (-a).eg()), (-mg, -eg));
                assert_eq!(((a * -3).mg(), (a * -3).eg()), (-3 * mg, -3 * eg));
            }
        }
    }
}
