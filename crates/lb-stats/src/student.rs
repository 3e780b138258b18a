//! Student-t and normal quantiles, and the intervals lb reads on a point's
//! replications: Student-t, and Stein's two-stage interval (Stein 1945).

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// The two-sided Student-t quantile of `level` with `df` degrees of
/// freedom: t_{df} at 0.5 + level/2 (2.776 at 95% and 4).
pub fn t_quantile(level: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df)
        .expect("df > 0")
        .inverse_cdf(0.5 + level / 2.0)
}

/// P(T > t) for T Student-t with `df` degrees of freedom: a one-sided
/// p-value.
pub fn t_upper_tail(t: f64, df: f64) -> f64 {
    1.0 - StudentsT::new(0.0, 1.0, df).expect("df > 0").cdf(t)
}

/// The two-sided normal quantile of `level` (1.96 at 95%).
pub fn z_quantile(level: f64) -> f64 {
    Normal::new(0.0, 1.0)
        .expect("standard normal")
        .inverse_cdf(0.5 + level / 2.0)
}

/// A Student-t interval over replications.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interval {
    /// Replications read.
    pub n: u32,
    /// Their mean.
    pub mean: f64,
    /// The interval's half-width.
    pub half_width: f64,
    /// half_width / |mean| (None when the mean is 0).
    pub rel_half_width: Option<f64>,
}

/// The `level` Student-t interval of `values` (n ≥ 2).
pub fn interval(values: &[f64], level: f64) -> Interval {
    let n = values.len();
    assert!(n >= 2, "an interval needs two values");
    let mean = values.iter().sum::<f64>() / n as f64;
    let var = values.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    let q = t_quantile(level, (n - 1) as f64);
    let half_width = q * (var / n as f64).sqrt();
    Interval {
        n: n as u32,
        mean,
        half_width,
        rel_half_width: (mean != 0.0).then(|| half_width / mean.abs()),
    }
}

/// Stein's two-stage interval (Stein 1945) of `values`, replications 0..n
/// of a point whose first `first` chose n: the mean of all n, half-width
/// t_{first−1}·s₀/√n with s₀ the standard deviation of the first `first`.
/// For normal replications (X̄_n − μ)·√n/s₀ is Student-t on first − 1
/// degrees of freedom whatever n the first stage's variance chose (module
/// docs: what a relative target changes, and the coverage measured); with
/// n = first it is [`interval`].
pub fn stein_interval(values: &[f64], first: usize, level: f64) -> Interval {
    let n = values.len();
    if first >= n {
        return interval(values, level);
    }
    assert!(first >= 2, "a first stage needs two values");
    let iv0 = interval(&values[..first], level);
    let sd0 = iv0.half_width * (first as f64).sqrt() / t_quantile(level, (first - 1) as f64);
    let mean = values.iter().sum::<f64>() / n as f64;
    let half_width = t_quantile(level, (first - 1) as f64) * sd0 / (n as f64).sqrt();
    Interval {
        n: n as u32,
        mean,
        half_width,
        rel_half_width: (mean != 0.0).then(|| half_width / mean.abs()),
    }
}

/// The interval every table reads on a point's replications `values`:
/// Stein's when its precision rule has a first stage
/// (a precision rule's first stage), else the Student-t [`interval`].
pub fn interval_of(values: &[f64], first: Option<usize>, level: f64) -> Interval {
    match first {
        Some(f) => stein_interval(values, f, level),
        None => interval(values, level),
    }
}
