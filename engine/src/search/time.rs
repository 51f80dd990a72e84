//! The time manager: everything about when a search stops for time, in one place.
//!
//! - **Allocation** (`allocate`): soft and hard limits for one move from the clock, the
//!   increment, `movestogo` and the move overhead. The front end calls it for `go`.
//! - **The soft stop** (`soft_limit_reached`): after each completed iteration, the soft limit
//!   scaled by best-move stability, the score trend and the best move's share of the nodes.
//! - **The hard limit** (`hard_limit_reached`): checked by the searcher every 1024 nodes.
//! - **Pondering suspends the stops, not the clock**: time counts from `go` in a ponder search
//!   as in any other, as Stockfish counts it; no limit ends the search while it ponders. Once it
//!   has had its soft limit it marks itself to stop on `ponderhit` (`stop_on_ponderhit`); a hit
//!   before that leaves it the rest of its time. The move played costs the clock only the time
//!   after the hit, so the time pondered is thinking the opponent paid for.
//!
//! The scaling factors are tunables in `params` (percentages where the factor is a fraction); the
//! horizons, the largest share of the clock and the clamp on the scaling are fixed margins.

use super::params::{
    TM_HARD_MULTIPLE, TM_INCREMENT_PERCENT, TM_NODE_SHARE_BASE, TM_SCORE_DROP, TM_SCORE_DROP_PERCENT,
    TM_SOFT_PERCENT, TM_STABILITY_0, TM_STABILITY_1, TM_STABILITY_2, TM_STABILITY_3, TM_STABILITY_4,
    TM_STABILITY_5,
};
use super::{Limits, SearchControl};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The clock situation of the side to move, as `go` gives it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clock {
    pub time: Option<Duration>,
    pub increment: Duration,
    pub moves_to_go: Option<u32>,
    pub move_time: Option<Duration>,
}

/// Soft and hard limits for a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeLimits {
    pub soft: Duration,
    pub hard: Duration,
    /// A fixed time per move (`movetime`, when the clock allows it) is used in full: the soft
    /// stop does not apply.
    pub fixed: bool,
}

/// Moves the clock is planned over in sudden death without increment: spread thin, since the
/// game may last long and nothing refills the clock.
const SUDDEN_DEATH_HORIZON: f64 = 30.0;
/// The horizon when the increments make up a large part of the budget: the clock is refilled
/// every move, so more of it can be spent early, while the position is still open. (With the
/// sudden-death horizon, games with an increment ended with much of the base time unused.)
const INCREMENT_HORIZON: f64 = 16.0;
/// Increments worth this share of the remaining time per move (0.01: 100 moves of increment
/// equal the clock) select `INCREMENT_HORIZON` fully; smaller ones move toward sudden death.
const RICH_INCREMENT_SHARE: f64 = 0.01;
/// Never plan to use more than this share of the remaining time on one move.
const MAX_SHARE: f64 = 0.8;
/// The soft limit is scaled by at least this and at most that, whatever the search looks like.
const SCALE_RANGE: (f64, f64) = (0.4, 2.5);
/// With one legal move, stop at this share of the soft limit or after this depth.
const ONLY_MOVE_DIVISOR: u32 = 8;
const ONLY_MOVE_DEPTH: i32 = 8;

fn percent(value: i32) -> f64 {
    f64::from(value) / 100.0
}

/// Limits for a move, or `None` when the clock sets none. With both a clock and `movetime`,
/// both apply: the move takes the fixed time unless the clock allows less.
pub fn allocate(clock: &Clock, move_overhead: Duration) -> Option<TimeLimits> {
    let fixed = clock.move_time.map(|t| t.saturating_sub(move_overhead).max(Duration::from_millis(1)));
    let from_clock = clock.time.map(|time| from_clock(time, clock, move_overhead));
    match (from_clock, fixed) {
        (None, None) => None,
        (Some(limits), None) => Some(limits),
        (None, Some(t)) => Some(TimeLimits { soft: t, hard: t, fixed: true }),
        (Some(limits), Some(t)) if t <= limits.soft => Some(TimeLimits { soft: t, hard: t, fixed: true }),
        (Some(limits), Some(t)) => Some(TimeLimits { hard: limits.hard.min(t), ..limits }),
    }
}

/// Limits from the clock: the time left, the increment and `movestogo`.
fn from_clock(time: Duration, clock: &Clock, move_overhead: Duration) -> TimeLimits {
    // What may be spent: keep the overhead for every move still to be made before control.
    let usable = time.saturating_sub(move_overhead).max(Duration::from_millis(1));
    let increment = clock.increment.min(usable);
    let moves_to_go = match clock.moves_to_go {
        Some(n) => n.clamp(1, 50) as f64,
        None => horizon(usable, increment),
    };
    let base = usable.div_f64(moves_to_go) + increment.mul_f64(percent(TM_INCREMENT_PERCENT()));
    let max_share = if moves_to_go <= 1.0 { MAX_SHARE } else { MAX_SHARE.min(0.2 + 2.4 / moves_to_go) };
    let ceiling = usable.mul_f64(max_share);
    // The clock left at the end of a game is not all waste: spending it (the whole increment
    // in `base` and 0.7 of it as the soft limit) lost in games (notes/ideas-not-kept.md): less
    // time in hand leaves the hard limit less room in the positions that need it.
    let soft = base.mul_f64(percent(TM_SOFT_PERCENT())).min(ceiling);
    let hard = (base * TM_HARD_MULTIPLE().max(1) as u32).min(ceiling).max(soft);
    TimeLimits { soft, hard, fixed: false }
}

/// How many moves a clock without `movestogo` is planned over: from `SUDDEN_DEATH_HORIZON`
/// with no increment down to `INCREMENT_HORIZON` as the increment grows against the time left.
fn horizon(usable: Duration, increment: Duration) -> f64 {
    let share = increment.as_secs_f64() / usable.as_secs_f64().max(1e-3);
    let weight = (share / RICH_INCREMENT_SHARE).min(1.0);
    SUDDEN_DEATH_HORIZON - (SUDDEN_DEATH_HORIZON - INCREMENT_HORIZON) * weight
}

/// Time that counts against the limits (from `go`), or `None` while pondering.
pub(super) fn time_used(limits: &Limits, control: &SearchControl) -> Option<Duration> {
    if control.pondering.load(Ordering::Acquire) {
        return None;
    }
    Some(limits.start.elapsed())
}

/// Whether the hard limit has passed.
pub(super) fn hard_limit_reached(limits: &Limits, control: &SearchControl) -> bool {
    limits.hard_time.is_some_and(|hard| time_used(limits, control).is_some_and(|used| used >= hard))
}

/// What a completed iteration tells the time manager.
pub(super) struct IterationTrend {
    pub depth: i32,
    pub root_moves: usize,
    /// Consecutive iterations with the same best move.
    pub stability: i32,
    pub score: i32,
    pub previous_score: i32,
    /// The best move's share of the root's nodes.
    pub best_move_share: f64,
}

/// Whether not to start another iteration, for time.
/// While pondering, a reached limit does not stop the search: it marks it to stop on
/// `ponderhit` instead.
pub(super) fn soft_limit_reached(limits: &Limits, control: &SearchControl, trend: &IterationTrend) -> bool {
    if !soft_limit_passed(limits, trend) {
        return false;
    }
    if !control.pondering.load(Ordering::SeqCst) {
        return true;
    }
    // Marked, then pondering read again: either this sees the hit or the hit sees the mark
    // (both sides use SeqCst), so a hit that comes meanwhile still ends the search.
    control.stop_on_ponderhit.store(true, Ordering::SeqCst);
    !control.pondering.load(Ordering::SeqCst)
}

/// Whether the soft limit, as this iteration scales it, has passed since `go`.
fn soft_limit_passed(limits: &Limits, trend: &IterationTrend) -> bool {
    let Some(soft) = limits.soft_time else { return false };
    let elapsed = limits.start.elapsed();
    // A fixed time per move (`go movetime`) is used in full; the hard limit ends it.
    if limits.fixed_time && trend.root_moves > 1 {
        return false;
    }
    if trend.root_moves == 1 {
        return elapsed >= soft / ONLY_MOVE_DIVISOR || trend.depth >= ONLY_MOVE_DEPTH;
    }
    // Spend less time when the best move is stable and takes most of the effort, more when
    // it keeps changing or the score drops. Only the main thread's changes count: also
    // lengthening the limit for each helper's recent best-move changes, as Stockfish sums
    // its threads' changes, lost in games (notes/ideas-not-kept.md).
    let stability =
        [TM_STABILITY_0, TM_STABILITY_1, TM_STABILITY_2, TM_STABILITY_3, TM_STABILITY_4, TM_STABILITY_5];
    let stability_factor = percent(stability[trend.stability.clamp(0, 5) as usize]());
    let dropped = trend.score < trend.previous_score - TM_SCORE_DROP();
    let score_factor = if dropped { percent(TM_SCORE_DROP_PERCENT()) } else { 1.0 };
    let node_factor = (percent(TM_NODE_SHARE_BASE()) - trend.best_move_share).clamp(0.6, 1.5);
    let scale = (stability_factor * score_factor * node_factor).clamp(SCALE_RANGE.0, SCALE_RANGE.1);
    let mut limit = soft.mul_f64(scale);
    if let Some(hard) = limits.hard_time {
        limit = limit.min(hard);
    }
    elapsed >= limit
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn movetime_is_used_minus_overhead() {
        let clock = Clock { move_time: Some(ms(1000)), ..Clock::default() };
        assert_eq!(allocate(&clock, ms(10)), Some(TimeLimits { soft: ms(990), hard: ms(990), fixed: true }));
    }

    #[test]
    fn movetime_and_a_clock_both_apply() {
        // A short clock wins over a long movetime...
        let short = Clock { time: Some(ms(200)), move_time: Some(ms(1000)), ..Clock::default() };
        let limits = allocate(&short, ms(10)).expect("limits");
        let clock_only = allocate(&Clock { move_time: None, ..short }, ms(10)).expect("limits");
        assert_eq!(limits, clock_only);
        assert!(!limits.fixed && limits.hard < ms(100), "{limits:?}");
        // ...and a short movetime over a long clock, used in full.
        let long = Clock { time: Some(ms(60_000)), move_time: Some(ms(100)), ..Clock::default() };
        assert_eq!(allocate(&long, ms(10)), Some(TimeLimits { soft: ms(90), hard: ms(90), fixed: true }));
        // Between the two: the clock's soft limit, the movetime as the hard one.
        let between = Clock { time: Some(ms(10_000)), move_time: Some(ms(800)), ..Clock::default() };
        let limits = allocate(&between, ms(10)).expect("limits");
        assert!(!limits.fixed && limits.soft < ms(790) && limits.hard == ms(790), "{limits:?}");
    }

    #[test]
    fn only_a_fixed_time_is_spent_in_full() {
        // An increment large against the clock caps the soft limit at the hard one; that is
        // not `movetime`, and the soft stop still applies.
        let clock = Clock { time: Some(ms(1_000)), increment: ms(5_000), ..Clock::default() };
        let limits = allocate(&clock, ms(10)).expect("limits");
        assert_eq!(limits.soft, limits.hard);
        assert!(!limits.fixed);
        let mut search =
            Limits { soft_time: Some(limits.soft), hard_time: Some(limits.hard), ..Limits::default() };
        search.start = std::time::Instant::now() - limits.soft;
        let control = SearchControl::default();
        let trend = IterationTrend {
            depth: 10,
            root_moves: 20,
            stability: 5,
            score: 0,
            previous_score: 0,
            best_move_share: 0.9,
        };
        assert!(soft_limit_reached(&search, &control, &trend), "a stable search stops at the soft limit");
        search.fixed_time = true;
        assert!(!soft_limit_reached(&search, &control, &trend), "movetime runs to the hard limit");
    }

    #[test]
    fn limits_stay_within_the_clock() {
        for time in [1u64, 5, 20, 100, 1_000, 10_000, 60_000, 3_600_000] {
            for inc in [0u64, 10, 100, 1_000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    let clock =
                        Clock { time: Some(ms(time)), increment: ms(inc), moves_to_go: mtg, move_time: None };
                    let limits = allocate(&clock, ms(10)).expect("a clock gives limits");
                    assert!(limits.soft <= limits.hard);
                    let usable = ms(time).saturating_sub(ms(10)).max(ms(1));
                    assert!(limits.hard <= usable, "{time} {inc} {mtg:?}: {limits:?}");
                }
            }
        }
    }

    #[test]
    fn increments_let_the_clock_be_spent_sooner() {
        let sudden = Clock { time: Some(ms(10_000)), ..Clock::default() };
        let with_inc = Clock { increment: ms(100), ..sudden };
        let soft = |c: &Clock| allocate(c, ms(10)).expect("limits").soft;
        // 10+0.1 plans over 16 moves, 10+0 over 30: more than the increment's own worth.
        assert!(soft(&with_inc) > soft(&sudden) + ms(100), "{:?} {:?}", soft(&with_inc), soft(&sudden));
        assert_eq!(horizon(ms(10_000), Duration::ZERO), SUDDEN_DEATH_HORIZON);
        assert_eq!(horizon(ms(5_000), ms(100)), INCREMENT_HORIZON);
        let small = horizon(ms(60_000), ms(100));
        assert!(small > INCREMENT_HORIZON && small < SUDDEN_DEATH_HORIZON, "{small}");
    }

    #[test]
    fn a_long_game_with_increment_keeps_time_in_hand() {
        // 300 moves, each spending the soft limit (what a search with a stable best move uses),
        // or each spending the hard limit (the most any move can take).
        for (base, inc) in [(1_000u64, 10u64), (10_000, 100), (60_000, 600), (180_000, 2_000)] {
            for worst in [false, true] {
                let mut left = ms(base);
                for _ in 0..300 {
                    let clock = Clock { time: Some(left), increment: ms(inc), ..Clock::default() };
                    let limits = allocate(&clock, ms(10)).expect("limits");
                    let spent = if worst { limits.hard } else { limits.soft };
                    assert!(spent < left, "{base}+{inc}: spends {spent:?} of {left:?}");
                    left = left - spent + ms(inc);
                }
                // Spending the soft limit settles with several increments in hand.
                if !worst {
                    assert!(left > ms(5 * inc), "{base}+{inc}: {left:?} left");
                }
            }
        }
    }

    #[test]
    fn no_clock_no_limits() {
        assert_eq!(allocate(&Clock::default(), ms(10)), None);
    }

    #[test]
    fn one_move_spends_a_small_share_of_the_clock() {
        // 10+0.1 at the start of a game: soft about a 23rd of the clock, hard a fifth at most.
        let clock = Clock { time: Some(ms(10_000)), increment: ms(100), ..Clock::default() };
        let limits = allocate(&clock, ms(10)).expect("limits");
        assert!(limits.soft > ms(300) && limits.soft < ms(500), "{limits:?}");
        assert!(limits.hard < ms(2_200), "{limits:?}");
        // Sudden death spreads the clock thinner.
        let clock = Clock { time: Some(ms(10_000)), ..Clock::default() };
        let limits = allocate(&clock, ms(10)).expect("limits");
        assert!(limits.soft > ms(150) && limits.soft < ms(250), "{limits:?}");
        assert!(limits.hard < ms(1_100), "{limits:?}");
    }
}
