//! Confidence intervals (SPEC §4): Student-t across replications, batch
//! means within a run with a lag-1 autocorrelation check, and the MSER-5
//! warm-up rule.

pub use lb_runner::precision::{Interval, interval};

/// The level of every interval lb prints.
pub const LEVEL: f64 = 0.95;

/// A batch-means interval for the time average of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchMeans {
    /// Batches after merging.
    pub batches: usize,
    pub interval: Interval,
    /// Lag-1 autocorrelation of the final batch means.
    pub lag1: f64,
    /// |lag-1| is below 2/√k (no evidence of correlation at about 5%), so the
    /// batches can be treated as independent.
    pub independent: bool,
}

/// Lag-1 sample autocorrelation.
pub fn lag1(xs: &[f64]) -> f64 {
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

/// Batch means over `trace` (equal-sized batch means of one run): batches
/// are merged pairwise while their lag-1 autocorrelation is significant and
/// at least 8 remain (the usual procedure, e.g. Law & Kelton §9.5.3).
pub fn batch_means(trace: &[f64]) -> BatchMeans {
    let mut b: Vec<f64> = trace.to_vec();
    loop {
        let k = b.len();
        let r = lag1(&b);
        let independent = r.abs() < 2.0 / (k as f64).sqrt();
        if independent || k < 16 {
            return BatchMeans {
                batches: k,
                interval: interval(&b, LEVEL),
                lag1: r,
                independent,
            };
        }
        b = b
            .chunks(2)
            .filter(|c| c.len() == 2)
            .map(|c| (c[0] + c[1]) / 2.0)
            .collect();
    }
}

pub use lb_core::stability::mser;

/// MSER-5 proper on raw observations: batches of 5, then [`mser`]; the
/// truncation is returned in observations.
pub fn mser5(raw: &[f64]) -> usize {
    let batches: Vec<f64> = raw
        .chunks_exact(5)
        .map(|c| c.iter().sum::<f64>() / 5.0)
        .collect();
    5 * mser(&batches)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mser5_cuts_an_initial_transient() {
        // 200 observations decaying from 100 to the level 10, then 800 at 10 ± 1.
        let raw: Vec<f64> = (0..1000)
            .map(|i| {
                let noise = ((i * 7919 % 13) as f64 - 6.0) / 6.0;
                10.0 + noise
                    + if i < 200 {
                        90.0 * (1.0 - i as f64 / 200.0)
                    } else {
                        0.0
                    }
            })
            .collect();
        let d = mser5(&raw);
        assert!((150..=300).contains(&d), "truncation {d}");
        let flat: Vec<f64> = raw[300..].to_vec();
        assert!(mser5(&flat) < 100);
    }

    #[test]
    fn batch_means_merge_correlated_batches() {
        // A slowly drifting sine is strongly autocorrelated at lag 1.
        let trace: Vec<f64> = (0..64).map(|i| (i as f64 / 6.0).sin()).collect();
        let bm = batch_means(&trace);
        assert!(bm.batches < 64);
        let iid: Vec<f64> = (0..64).map(|i| ((i * 7919 % 17) as f64) - 8.0).collect();
        let bm = batch_means(&iid);
        assert_eq!(bm.batches, 64);
        assert!(bm.independent);
    }
}
