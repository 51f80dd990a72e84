//! Small-sample statistics for the benchmarks: means with Student-t intervals, medians and
//! geometric means of ratios.

/// An estimate with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

impl Interval {
    fn exact(value: f64) -> Interval {
        Interval { mean: value, low: value, high: value }
    }
}

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom. Between the rows of
/// the table the next smaller `df` is used, which widens the interval slightly, never narrows it.
pub fn t_975(df: usize) -> f64 {
    const SMALL: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => SMALL[df - 1],
        31..=39 => SMALL[29],
        40..=59 => 2.021,
        60..=119 => 2.000,
        120..=999 => 1.980,
        _ => 1.960,
    }
}

pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.iter().sum::<f64>() / values.len() as f64
}

/// The sample standard deviation (0 for fewer than two values).
pub fn sample_sd(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return 0.0;
    }
    let m = mean(values);
    (values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (values.len() - 1) as f64).sqrt()
}

/// The mean and its 95% t-interval; one value has no spread to estimate, so its interval is
/// the value itself.
pub fn t_interval(values: &[f64]) -> Interval {
    let m = mean(values);
    if values.len() < 2 {
        return Interval::exact(m);
    }
    let half = t_975(values.len() - 1) * sample_sd(values) / (values.len() as f64).sqrt();
    Interval { mean: m, low: m - half, high: m + half }
}

pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    if sorted.is_empty() {
        return 0.0;
    }
    sorted.sort_by(|a, b| a.total_cmp(b));
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// The geometric mean of positive ratios and its 95% interval (a t-interval on the logarithms,
/// taken back). Ratios that are not positive are left out.
pub fn geometric_mean(ratios: &[f64]) -> Interval {
    let logs: Vec<f64> = ratios.iter().filter(|r| **r > 0.0).map(|r| r.ln()).collect();
    if logs.is_empty() {
        return Interval::exact(0.0);
    }
    let on_logs = t_interval(&logs);
    Interval { mean: on_logs.mean.exp(), low: on_logs.low.exp(), high: on_logs.high.exp() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_interval_of_a_known_sample() {
        // Mean 5, sd sqrt(2.5), n 5: half width 2.776 * sqrt(2.5 / 5).
        let interval = t_interval(&[3.0, 4.0, 5.0, 6.0, 7.0]);
        let half = 2.776 * (0.5f64).sqrt();
        assert!((interval.mean - 5.0).abs() < 1e-12);
        assert!((interval.low - (5.0 - half)).abs() < 1e-9 && (interval.high - (5.0 + half)).abs() < 1e-9);
        assert_eq!(t_interval(&[4.0]), Interval::exact(4.0));
    }

    #[test]
    fn small_samples_get_wider_intervals_than_the_normal_one() {
        assert!(t_975(2) > 4.0 && t_975(29) > 2.0 && t_975(35) >= t_975(40));
        assert_eq!(t_975(100_000), 1.96);
        for df in 1..200 {
            assert!(t_975(df) >= t_975(df + 1), "t must not grow with df ({df})");
        }
    }

    #[test]
    fn geometric_mean_and_median() {
        let g = geometric_mean(&[2.0, 1.5, 1.0]);
        assert!((g.mean - 3f64.powf(1.0 / 3.0)).abs() < 1e-12);
        assert!(g.low < g.mean && g.mean < g.high);
        assert_eq!(geometric_mean(&[1.7, 0.0]), Interval::exact(1.7));
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn the_interval_narrows_with_more_values() {
        let spread = [1.0, 1.2, 1.5, 1.1, 1.4, 1.3];
        let few = geometric_mean(&spread);
        let many: Vec<f64> = spread.iter().cycle().take(60).copied().collect();
        let narrow = geometric_mean(&many);
        assert!(narrow.high - narrow.low < (few.high - few.low) / 2.0);
    }
}
