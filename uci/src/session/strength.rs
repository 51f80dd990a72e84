//! Playing at a chosen strength (`UCI_LimitStrength`, `UCI_Elo`): a short search of the best few
//! moves, then a choice among them that lets a weaker level take a worse move, the more often
//! the further it is behind. A weak player misjudges and sees less; it does not blunder at
//! random: a move the search found losing by force is never chosen while another is not.
//!
//! The mapping from Elo to search effort and spread is fitted by games against Stockfish's
//! calibrated levels, with the search as it is: a change that makes the search stronger per node
//! moves the levels, and the constants below are refitted after it (docs/strength.md has the
//! games of each fit).

use engine::board::Move;
use engine::search::score::MATE_BOUND;
use engine::search::time::{allocate, Clock};
use engine::search::SearchInfo;
use std::time::Duration;
use support::rng;

/// The weakest and strongest levels offered, in Elo.
pub const MIN_ELO: i64 = 1350;
pub const MAX_ELO: i64 = 2850;
/// Lines searched to choose among.
const LINES: usize = 4;
/// The search completes at least this depth: a mate in one against a candidate is then seen.
pub const MIN_DEPTH: i32 = 3;
/// Nodes a move at measured levels, in Elo order; in between, a geometric scale (straight in
/// the logarithm of the nodes). Fitted by games against Stockfish's levels (docs/strength.md):
/// the weakest levels complete depth 3 or 4 whatever their nodes, and below 1850 Stockfish's
/// levels gain far more from each doubling of effort than above it.
const NODES_AT: [(i64, f64); 5] =
    [(MIN_ELO, 600.0), (1600, 1300.0), (1850, 3150.0), (2100, 41_600.0), (MAX_ELO, 12_000_000.0)];
/// Centipawns a choice may give away at measured levels, scaled by a random draw for each line;
/// straight in between, and none from the last on: above it a level plays its search's move and
/// only the effort weakens it. What a spread costs grows faster than the spread: the games put
/// 121 cp at about 320 Elo below the same search's own move, and 16 cp at next to nothing. It
/// weakens less than fewer nodes do: the four lines' scores are often further apart than it.
const SPREAD_AT: [(i64, f64); 3] = [(MIN_ELO, 155.0), (1600, 50.0), (1850, 0.0)];
/// The clock the nodes above were fitted at (10+0.1): a longer one gives a level more nodes.
const FITTED_CLOCK: Clock = Clock {
    time: Some(Duration::from_secs(10)),
    increment: Duration::from_millis(100),
    moves_to_go: None,
    move_time: None,
};
/// How a level's nodes grow with the time a move may take against the fitted clock's: as the
/// ratio raised to this power, straight in Elo between measured levels and held beyond them.
/// Stockfish's levels take their move at depth 1 + level and search on to their clock, filling
/// the table for the next move, so the higher levels gain from a longer clock and the lowest
/// do not. Fitted to the games at 60+0.6 (1850, 2100 and 2350 short of Stockfish by about 70,
/// 80 and 150 Elo with the nodes alone, about 90 Elo to each doubling of nodes there).
const CLOCK_POWER_AT: [(i64, f64); 3] = [(1600, 0.0), (1850, 0.2), (2350, 0.65)];

/// What one level searches and how freely it chooses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    /// The search stops once an iteration of depth `MIN_DEPTH` or more has used this many nodes.
    pub nodes: u64,
    pub lines: usize,
    /// The most centipawns a choice may give away.
    pub spread: i32,
    /// How the nodes grow with a longer clock than the fitted one.
    pub clock_power: f64,
}

impl Level {
    /// The nodes for a move whose soft time limit is `soft` (`None`: no clock; the fitted
    /// nodes). A move with less time than the fitted clock's keeps the fitted nodes: the time
    /// limits still stop it.
    pub fn nodes_for(&self, soft: Option<Duration>, move_overhead: Duration) -> u64 {
        let fitted = allocate(&FITTED_CLOCK, move_overhead).map(|t| t.soft);
        let (Some(soft), Some(fitted)) = (soft, fitted) else { return self.nodes };
        let ratio = (soft.as_secs_f64() / fitted.as_secs_f64().max(1e-6)).max(1.0);
        (self.nodes as f64 * ratio.powf(self.clock_power)).round() as u64
    }
}

/// The value at `elo` of a table of measured points: straight in between, held beyond the ends.
fn between(points: &[(i64, f64)], elo: i64) -> f64 {
    match points.iter().position(|&(at, _)| at >= elo) {
        Some(0) => points[0].1,
        Some(upper) => {
            let ((low_elo, low), (high_elo, high)) = (points[upper - 1], points[upper]);
            low + (high - low) * (elo - low_elo) as f64 / (high_elo - low_elo) as f64
        }
        None => points[points.len() - 1].1,
    }
}

/// The level for `elo` (clamped to the offered range).
pub fn level(elo: i64) -> Level {
    let elo = elo.clamp(MIN_ELO, MAX_ELO);
    let upper = NODES_AT.iter().position(|&(at, _)| at >= elo).unwrap_or(NODES_AT.len() - 1).max(1);
    let ((low_elo, low), (high_elo, high)) = (NODES_AT[upper - 1], NODES_AT[upper]);
    let t = (elo - low_elo) as f64 / (high_elo - low_elo) as f64;
    let nodes = low * (high / low).powf(t);
    let spread = between(&SPREAD_AT, elo);
    let clock_power = between(&CLOCK_POWER_AT, elo);
    Level { nodes: nodes.round() as u64, lines: LINES, spread: spread.round() as i32, clock_power }
}

/// A deterministic draw in [0, 1) for line `index` of the position with `key`, under `seed`.
fn draw(key: u64, seed: u64, index: usize) -> f64 {
    let x =
        key ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (index as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    rng::unit_f64(rng::mix(x))
}

/// The move to play and its ponder move, chosen among the search's last lines: each line's score
/// plus a draw of up to `spread` centipawns, the highest wins. A line the search found lost by
/// force is left out unless every line is, and a forced mate the search proved is played as
/// found, the shortest first: a level may miss a mate, never pass over one it has seen. `None`
/// when there are no lines (the search's own move stands).
pub fn choose(lines: &[SearchInfo], level: &Level, key: u64, seed: u64) -> Option<(Move, Move)> {
    let candidates: Vec<&SearchInfo> = lines.iter().filter(|l| !l.pv.is_empty()).collect();
    let best = candidates.iter().map(|l| l.score).max()?;
    let lost = |l: &SearchInfo| l.score <= -MATE_BOUND && best > -MATE_BOUND;
    let spread = if best >= MATE_BOUND { 0.0 } else { f64::from(level.spread) };
    let chosen = candidates
        .iter()
        .filter(|l| !lost(l))
        .map(|l| (f64::from(l.score) + spread * draw(key, seed, l.multipv), *l))
        .max_by(|a, b| a.0.total_cmp(&b.0))?
        .1;
    Some((chosen.pv[0], chosen.pv.get(1).copied().unwrap_or(Move::NULL)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::board::Square;
    use engine::search::Bound;
    use std::time::Duration;

    fn line(multipv: usize, score: i32, from: u8, to: u8) -> SearchInfo {
        SearchInfo {
            depth: 5,
            seldepth: 5,
            multipv,
            score,
            bound: Bound::Exact,
            nodes: 100,
            time: Duration::ZERO,
            hashfull: 0,
            tb_hits: 0,
            pv: vec![Move::new(Square::new(from), Square::new(to), 0)],
        }
    }

    #[test]
    fn levels_grow_with_elo_and_the_top_gives_nothing_away() {
        let (low, high) = (level(MIN_ELO), level(MAX_ELO));
        assert_eq!((low.nodes, low.spread), (600, 155));
        assert_eq!((high.nodes, high.spread), (12_000_000, 0));
        // The measured points are the scale's own, and it is geometric between them.
        for (elo, nodes) in NODES_AT {
            assert_eq!(level(elo).nodes, nodes as u64, "{elo}");
        }
        assert_eq!(level(1475).nodes, 883, "halfway from 600 to 1,300 nodes, in the logarithm");
        assert_eq!((level(1475).spread, level(1600).spread, level(1750).spread), (103, 50, 20));
        assert_eq!((level(1850).spread, level(2100).spread), (0, 0));
        assert_eq!(level(0), low);
        assert_eq!(level(9999), high);
        let mut previous = low;
        for elo in (MIN_ELO..=MAX_ELO).step_by(20) {
            let l = level(elo);
            assert!(l.nodes >= previous.nodes && l.spread <= previous.spread, "{elo}");
            previous = l;
        }
    }

    #[test]
    fn a_longer_clock_than_the_fitted_one_gives_the_higher_levels_more_nodes() {
        let overhead = Duration::from_millis(10);
        let soft = |time: u64, increment: u64| {
            let clock = Clock {
                time: Some(Duration::from_secs(time)),
                increment: Duration::from_millis(increment),
                moves_to_go: None,
                move_time: None,
            };
            allocate(&clock, overhead).map(|t| t.soft)
        };
        for elo in [MIN_ELO, 1850, 2100, 2350, MAX_ELO] {
            let l = level(elo);
            // The fitted clock, a shorter one and no clock: the fitted nodes.
            assert_eq!(l.nodes_for(soft(10, 100), overhead), l.nodes, "{elo}");
            assert_eq!(l.nodes_for(soft(1, 10), overhead), l.nodes, "{elo}");
            assert_eq!(l.nodes_for(None, overhead), l.nodes, "{elo}");
        }
        // Six times the clock: the lowest levels as they were, the higher ones up to 6^0.65.
        let long = soft(60, 600);
        assert_eq!(level(MIN_ELO).nodes_for(long, overhead), level(MIN_ELO).nodes);
        let gain = |elo| level(elo).nodes_for(long, overhead) as f64 / level(elo).nodes as f64;
        assert!((gain(1850) - 6f64.powf(0.2)).abs() < 0.05, "{}", gain(1850));
        assert!((gain(2350) - 6f64.powf(0.65)).abs() < 0.1, "{}", gain(2350));
        assert!(gain(2100) > gain(1850) && gain(2350) > gain(2100));
        assert!((gain(MAX_ELO) - gain(2350)).abs() < 1e-3, "held beyond the last measured level");
        let mut previous = 0;
        for elo in (MIN_ELO..=MAX_ELO).step_by(20) {
            let nodes = level(elo).nodes_for(long, overhead);
            assert!(nodes >= previous, "{elo}");
            previous = nodes;
        }
    }

    #[test]
    fn the_top_level_plays_the_best_line_and_a_lost_line_is_never_chosen() {
        let lines = [line(1, 40, 12, 28), line(2, 35, 11, 27), line(3, -31_000, 6, 21), line(4, -200, 1, 18)];
        for key in 0..200u64 {
            let (mv, _) = choose(&lines, &level(MAX_ELO), key, 1).unwrap();
            assert_eq!(mv, lines[0].pv[0]);
            let (mv, _) = choose(&lines, &level(MIN_ELO), key, 1).unwrap();
            assert_ne!(mv, lines[2].pv[0], "the mated line");
        }
        // A proven mate is played, the shortest of them, whatever the draw.
        let mates = [line(1, 31_995, 12, 28), line(2, 31_999, 11, 27), line(3, 400, 10, 26)];
        for seed in 0..50 {
            assert_eq!(choose(&mates, &level(MIN_ELO), 5, seed).map(|c| c.0), Some(mates[1].pv[0]), "{seed}");
        }
        // When every line is lost, one is still played.
        let all_lost = [line(1, -31_000, 12, 28), line(2, -31_500, 11, 27)];
        assert_eq!(choose(&all_lost, &level(MIN_ELO), 5, 0).map(|c| c.0), Some(all_lost[0].pv[0]));
        assert_eq!(choose(&[], &level(MIN_ELO), 5, 0), None);
    }

    #[test]
    fn weak_levels_vary_their_choice_and_the_same_seed_repeats_it() {
        let lines = [line(1, 30, 12, 28), line(2, 20, 11, 27), line(3, 5, 6, 21), line(4, -15, 1, 18)];
        let picks = |seed: u64| -> Vec<Move> {
            (0..300u64)
                .map(|key| choose(&lines, &level(MIN_ELO), key.wrapping_mul(0x2545_f491), seed).unwrap().0)
                .collect()
        };
        let first = picks(3);
        assert_eq!(first, picks(3), "deterministic");
        assert_ne!(first, picks(4), "another seed, other choices");
        let best = first.iter().filter(|&&m| m == lines[0].pv[0]).count();
        let worst = first.iter().filter(|&&m| m == lines[3].pv[0]).count();
        assert!(best > 100 && best < 280, "the best line most often, not always: {best}");
        assert!(worst > 0 && worst < best, "{worst}");
        // A middle level strays less often than the weakest.
        let middle: usize = (0..300u64)
            .filter(|&key| {
                choose(&lines, &level((MIN_ELO + MAX_ELO) / 2), key.wrapping_mul(0x2545_f491), 3).unwrap().0
                    == lines[0].pv[0]
            })
            .count();
        assert!(middle > best, "{middle} against {best}");
    }
}
