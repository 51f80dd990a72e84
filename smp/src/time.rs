//! Time allocation: soft and hard limits for one move from the clock, increment, moves to go
//! and the move overhead. The search scales the soft limit at each completed iteration by
//! best-move stability, score trend and the best move's share of the nodes; the main thread
//! checks the hard limit inside the search.

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
}

/// Moves assumed left in a sudden-death game.
const DEFAULT_MOVES_TO_GO: u32 = 30;
/// Never plan to use more than this share of the remaining time on one move.
const MAX_SHARE: f64 = 0.8;

/// Limits for a move, or `None` when the clock sets none.
pub fn allocate(clock: &Clock, move_overhead: Duration) -> Option<TimeLimits> {
    if let Some(move_time) = clock.move_time {
        let t = move_time.saturating_sub(move_overhead).max(Duration::from_millis(1));
        return Some(TimeLimits { soft: t, hard: t });
    }
    let time = clock.time?;
    // What may be spent: keep the overhead for every move still to be made before control.
    let usable = time.saturating_sub(move_overhead).max(Duration::from_millis(1));
    let moves_to_go = clock.moves_to_go.unwrap_or(DEFAULT_MOVES_TO_GO).clamp(1, 50);
    let increment = clock.increment.min(usable);
    let base = usable / moves_to_go + increment.mul_f64(0.75);
    let max_share =
        if moves_to_go == 1 { MAX_SHARE } else { MAX_SHARE.min(0.2 + 0.6 / moves_to_go as f64 * 4.0) };
    let ceiling = usable.mul_f64(max_share);
    let soft = base.mul_f64(0.6).min(ceiling);
    let hard = (base * 3).min(ceiling).max(soft);
    Some(TimeLimits { soft, hard })
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
        assert_eq!(allocate(&clock, ms(10)), Some(TimeLimits { soft: ms(990), hard: ms(990) }));
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
    fn no_clock_no_limits() {
        assert_eq!(allocate(&Clock::default(), ms(10)), None);
    }

    #[test]
    fn sudden_death_spends_a_small_share() {
        let clock = Clock { time: Some(ms(10_000)), increment: ms(100), ..Clock::default() };
        let limits = allocate(&clock, ms(10)).expect("limits");
        assert!(limits.soft > ms(100) && limits.soft < ms(500), "{limits:?}");
        assert!(limits.hard < ms(2_000), "{limits:?}");
    }
}
