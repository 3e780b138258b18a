//! Intervals for a proportion: Wilson's score interval, Clopper–Pearson's
//! exact interval, and its one-sided bound when no event was seen.

use statrs::distribution::{Beta, ContinuousCDF};

/// The Wilson score interval of `x` events in `n` trials at normal quantile
/// `z` (Wilson 1927): always inside [0, 1], and honest near 0 and 1 where
/// the Wald interval p̂ ± z·√(p̂(1 − p̂)/n) is not. `x` and `n` may be
/// effective (non-integer) counts.
pub fn wilson(x: f64, n: f64, z: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let p = (x / n).clamp(0.0, 1.0);
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The one-sided Clopper–Pearson upper bound on a proportion when no event
/// was seen in `n` trials, at confidence `level`: the p with (1 − p)ⁿ =
/// 1 − level, i.e. 1 − (1 − level)^{1/n} (≈ 3/n at 95%, the "rule of three").
pub fn clopper_pearson_upper_zero(n: f64, level: f64) -> f64 {
    -((1.0 - level).ln() / n).exp_m1()
}

/// The two-sided `conf` Clopper–Pearson interval of x successes in n.
pub fn clopper_pearson(x: usize, n: usize, conf: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    clopper_pearson_real(x as f64, n as f64, conf)
}

/// The two-sided `conf` Clopper–Pearson interval of x events in n trials,
/// both real (effective counts): the beta quantiles with real parameters.
pub fn clopper_pearson_real(x: f64, n: f64, conf: f64) -> (f64, f64) {
    let a = (1.0 - conf) / 2.0;
    let lo = if x <= 0.0 {
        0.0
    } else {
        Beta::new(x, n - x + 1.0)
            .map(|b| b.inverse_cdf(a))
            .unwrap_or(0.0)
    };
    let hi = if x >= n {
        1.0
    } else {
        Beta::new(x + 1.0, n - x)
            .map(|b| b.inverse_cdf(1.0 - a))
            .unwrap_or(1.0)
    };
    (lo, hi)
}

/// P(X ≥ k) for X ~ Binomial(n, p), summed term by term.
pub fn binomial_tail(n: usize, p: f64, k: usize) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n {
        return 0.0;
    }
    // P(X = j) from j = 0 up, adding the terms from k on.
    let mut pj = (1.0 - p).powi(n as i32);
    let mut tail = 0.0;
    for j in 0..=n {
        if j >= k {
            tail += pj;
        }
        if j < n {
            pj *= (n - j) as f64 / (j + 1) as f64 * p / (1.0 - p);
        }
    }
    tail.min(1.0)
}

/// The most of `n` independent trials, each failing with probability `p`,
/// that fail by chance at 5%: the least c with P(Binomial(n, p) > c) ≤ 0.05.
/// What a point's replications may show of a rule they pass in truth: the
/// trend test's false alarms (`lb_core::stability::alarms_allowed`), the settle rule's
/// failures (`lb_model::settle::allowed`).
pub fn chance_allows(n: usize, p: f64) -> usize {
    // P(X = k), summed up from k = 0 until the tail is at most 5%.
    let mut pk = (1.0 - p).powi(n as i32);
    let mut cdf = pk;
    let mut c = 0;
    while 1.0 - cdf > 0.05 && c < n {
        pk *= (n - c) as f64 / (c + 1) as f64 * p / (1.0 - p);
        cdf += pk;
        c += 1;
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomial_tail_sums_the_law() {
        // P(X ≥ 3), X ~ Binomial(4, 0.02): 4·0.02³·0.98 + 0.02⁴.
        let exact = 4.0 * 0.02f64.powi(3) * 0.98 + 0.02f64.powi(4);
        assert!((binomial_tail(4, 0.02, 3) - exact).abs() < 1e-15);
        assert_eq!(binomial_tail(3, 0.5, 2), 0.5);
        assert_eq!(binomial_tail(5, 0.3, 0), 1.0);
        assert_eq!(binomial_tail(5, 0.3, 6), 0.0);
        // The count chance allows is where the tail first falls to 5%.
        for n in [1, 3, 18, 20, 100] {
            let c = chance_allows(n, 0.02);
            assert!(binomial_tail(n, 0.02, c + 1) <= 0.05, "n = {n}");
            if c > 0 {
                assert!(binomial_tail(n, 0.02, c) > 0.05, "n = {n}");
            }
        }
    }
}
