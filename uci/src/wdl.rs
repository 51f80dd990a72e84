//! Win/draw/loss estimates for `UCI_ShowWDL`: what a centipawn score means as game outcomes, in
//! permille from the side to move's view.
//!
//! The model is ours and simple, not fitted to game data. A score `s` is a win with probability
//! `σ((s − a) / b)` and a loss with probability `σ((−s − a) / b)`, where `σ` is the logistic
//! function; the draw takes the rest. `a` is the score at which a win becomes an even bet and `b`
//! how quickly the odds change around it. Both depend on the material left (the game phase):
//!
//! - with the board full, a pawn or two of advantage is still often held, so `a` is larger and
//!   the curve flatter;
//! - with little material, an advantage the evaluation already reports converts more directly,
//!   so `a` is smaller and the curve steeper.
//!
//! Since `a > 0` at every phase, the two probabilities never add up to more than one, and the
//! estimate is symmetric: negating the score swaps wins and losses. Mate scores are certain:
//! `1000 0 0` or `0 0 1000`.

use engine::board::{PieceType, Position};
use engine::search::score::is_mate_score;

/// Material (pawn = 1, minor = 3, rook = 5, queen = 9) of both sides in the start position.
const FULL_MATERIAL: i32 = 78;
/// Score (centipawns) at which a win is an even bet, with a full board and with bare kings.
const EVEN_WIN_OPENING: f64 = 160.0;
const EVEN_WIN_ENDGAME: f64 = 110.0;
/// Logistic scale (centipawns), with a full board and with bare kings.
const SCALE_OPENING: f64 = 70.0;
const SCALE_ENDGAME: f64 = 45.0;

/// Wins, draws and losses in permille; they add up to 1000.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wdl {
    pub win: u32,
    pub draw: u32,
    pub loss: u32,
}

/// The material of both sides together, in pawns, capped at the start position's.
pub fn material(pos: &Position) -> i32 {
    let count = |kind| pos.pieces(kind).count() as i32;
    let total = count(PieceType::Pawn)
        + 3 * (count(PieceType::Knight) + count(PieceType::Bishop))
        + 5 * count(PieceType::Rook)
        + 9 * count(PieceType::Queen);
    total.clamp(0, FULL_MATERIAL)
}

/// The estimate for `score` (the engine's internal score, mates included) with `material`
/// pawns' worth of material on the board.
pub fn wdl(score: i32, material: i32) -> Wdl {
    if is_mate_score(score) {
        return if score > 0 {
            Wdl { win: 1000, draw: 0, loss: 0 }
        } else {
            Wdl { win: 0, draw: 0, loss: 1000 }
        };
    }
    let phase = f64::from(material.clamp(0, FULL_MATERIAL)) / f64::from(FULL_MATERIAL);
    let a = EVEN_WIN_ENDGAME + (EVEN_WIN_OPENING - EVEN_WIN_ENDGAME) * phase;
    let b = SCALE_ENDGAME + (SCALE_OPENING - SCALE_ENDGAME) * phase;
    let s = f64::from(score);
    let permille = |x: f64| (1000.0 / (1.0 + (-x).exp())).round() as u32;
    let win = permille((s - a) / b);
    let loss = permille((-s - a) / b);
    // Rounding both up can overshoot by one: take it from the larger.
    let (win, loss) = match win + loss {
        1001 if win >= loss => (win - 1, loss),
        1001 => (win, loss - 1),
        _ => (win, loss),
    };
    Wdl { win, draw: 1000 - win - loss, loss }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::search::score::{mate_in, mated_in};

    #[test]
    fn sums_to_a_thousand_and_is_symmetric() {
        for material in [0, 10, 40, 78, 100] {
            for score in (-3000..=3000).step_by(7) {
                let w = wdl(score, material);
                assert_eq!(w.win + w.draw + w.loss, 1000, "{score} {material}: {w:?}");
                let m = wdl(-score, material);
                assert_eq!((w.win, w.draw, w.loss), (m.loss, m.draw, m.win), "{score} {material}");
            }
        }
    }

    #[test]
    fn better_scores_win_more() {
        for material in [0, 30, 78] {
            let mut last = wdl(-3000, material);
            for score in -2999..=3000 {
                let w = wdl(score, material);
                assert!(w.win >= last.win && w.loss <= last.loss, "{score}: {w:?} after {last:?}");
                last = w;
            }
        }
        let even = wdl(0, 78);
        assert!(even.draw > even.win && even.win == even.loss);
        assert!(wdl(1000, 78).win > 990);
        // The same advantage converts more readily in an endgame.
        assert!(wdl(150, 10).win > wdl(150, 78).win);
    }

    #[test]
    fn mates_are_certain() {
        assert_eq!(wdl(mate_in(3), 78), Wdl { win: 1000, draw: 0, loss: 0 });
        assert_eq!(wdl(mated_in(2), 5), Wdl { win: 0, draw: 0, loss: 1000 });
    }

    #[test]
    fn start_position_material_is_full() {
        assert_eq!(material(&Position::startpos()), FULL_MATERIAL);
        let bare = Position::from_fen("8/8/8/8/8/8/8/K6k w - - 0 1").expect("valid FEN");
        assert_eq!(material(&bare), 0);
    }
}
