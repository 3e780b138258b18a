//! Batch means within one run: MSER's warm-up truncation (White 1997;
//! MSER-5 on batches of five), the lag-1 autocorrelation, and batches
//! merged while correlated.

/// MSER (White 1997) on a series of batch means: the truncation d ≤ n/2
/// minimising Σ_{i≥d}(x_i − x̄_d)² / (n − d)², the squared standard error of
/// the mean of what is kept. With batches of 5 observations this is MSER-5.
/// O(n) with suffix sums.
pub fn mser(xs: &[f64]) -> usize {
    let n = xs.len();
    if n < 2 {
        return 0;
    }
    let (mut s1, mut s2) = (0.0, 0.0);
    let mut suffix = vec![(0.0, 0.0); n + 1];
    for i in (0..n).rev() {
        s1 += xs[i];
        s2 += xs[i] * xs[i];
        suffix[i] = (s1, s2);
    }
    let mut best = (f64::INFINITY, 0);
    for (d, &(a, b)) in suffix.iter().enumerate().take(n / 2 + 1) {
        let k = (n - d) as f64;
        let ss = (b - a * a / k).max(0.0);
        let stat = ss / (k * k);
        if stat < best.0 {
            best = (stat, d);
        }
    }
    best.1
}

/// Lag-1 sample autocorrelation of a series (about its mean).
pub fn autocorrelation_lag1(xs: &[f64]) -> f64 {
    let n = xs.len();
    if n < 3 {
        return 0.0;
    }
    let m = xs.iter().sum::<f64>() / n as f64;
    let var: f64 = xs.iter().map(|x| (x - m) * (x - m)).sum();
    if var == 0.0 {
        return 0.0;
    }
    let cov: f64 = xs.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum();
    cov / var
}

/// Batch means of one run after merging: `trace`'s equal-sized batch means
/// are merged pairwise while their lag-1 autocorrelation r is significant
/// (|r| ≥ 2/√k, about 5%) and at least 16 remain (the usual procedure, e.g.
/// Law & Kelton §9.5.3). Returns the final batches, their r, and whether
/// they pass (|r| < 2/√k): if not, the run is too short for its batches to
/// be treated as independent.
pub fn merged_batch_means(trace: &[f64]) -> (Vec<f64>, f64, bool) {
    let mut b: Vec<f64> = trace.to_vec();
    loop {
        let k = b.len();
        let r = autocorrelation_lag1(&b);
        let independent = r.abs() < 2.0 / (k as f64).sqrt();
        if independent || k < 16 {
            return (b, r, independent);
        }
        b = b
            .chunks(2)
            .filter(|c| c.len() == 2)
            .map(|c| (c[0] + c[1]) / 2.0)
            .collect();
    }
}

/// MSER-5 proper on raw observations: batches of 5, then [`mser`]; the
/// truncation is returned in observations.
pub fn mser5(raw: &[f64]) -> usize {
    let batches: Vec<f64> = raw
        .chunks_exact(5)
        .map(|c| c.iter().sum::<f64>() / 5.0)
        .collect();
    5 * mser(&batches)
}

/// Lag-1 autocorrelation of adjacent means of batches of x·τ slots, for a
/// stationary series whose autocorrelation decays as e^{−h/τ} (an AR(1)
/// series; a queue's decays so once past its initial spread):
/// (1 − e^{−x})² / (2(x − 1 + e^{−x})). It falls from 1 (x → 0) as 1/(2x)
/// (x large).
pub fn batch_lag1(x: f64) -> f64 {
    let em1 = (-x).exp_m1(); // e^{−x} − 1
    em1 * em1 / (2.0 * (x + em1))
}

/// The x at which [`batch_lag1`] is `r` (0 < r < 1), by bisection on log x.
pub fn batch_size_at(r: f64) -> f64 {
    let (mut lo, mut hi) = (1e-6f64, 1e6f64);
    for _ in 0..200 {
        let mid = (lo * hi).sqrt();
        if batch_lag1(mid) > r {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo * hi).sqrt()
}

/// How many times longer a run must be for `k` batch means whose lag-1
/// autocorrelation is `r` to pass the independence test (|r| < 2/√k, the
/// same number of batches): their size must grow from x·τ to x*·τ, where
/// [`batch_lag1`] gives r at x and 2/√k at x*, so the factor is x*/x. Where
/// |r| is small this is r·√k/2 (the 1/m decay); near 1 it grows much faster.
/// An |r| of 0.99 or more is read as 0.99, so the factor is then a lower
/// bound. 1 when the test passes; 2 for a failing negative r, which no
/// exponential decay gives.
pub fn length_factor(r: f64, k: usize) -> f64 {
    let target = 2.0 / (k.max(1) as f64).sqrt();
    if r.abs() <= target || target >= 1.0 {
        return 1.0;
    }
    if r < 0.0 {
        // Failing on a negative r: no exponential decay gives one, so the
        // length says nothing more than "longer" (the caller's floor of 2).
        return 2.0;
    }
    let r = r.min(0.99);
    batch_size_at(target) / batch_size_at(r)
}
