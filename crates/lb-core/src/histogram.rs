//! Response-time histogram: exact below 4096 slots, then log-linear buckets
//! with 2048 sub-buckets per power of two (relative error < 2⁻¹¹), in the
//! manner of HdrHistogram. Memory is bounded whatever the run length.

use serde::{Deserialize, Serialize};

const EXACT_BITS: u32 = 12;
const EXACT: u64 = 1 << EXACT_BITS;

/// Counts of response times (in slots, ≥ 1).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    sum: u128,
    max: u64,
}

#[inline]
fn bucket(v: u64) -> usize {
    if v < EXACT {
        v as usize
    } else {
        let e = 63 - v.leading_zeros() - (EXACT_BITS - 1);
        // e ≥ 1 here; each octave above holds EXACT/2 sub-buckets.
        (EXACT + (e as u64 - 1) * (EXACT / 2) + ((v >> e) - EXACT / 2)) as usize
    }
}

/// The smallest value that falls in bucket `b` (inverse of [`bucket`]).
fn bucket_low(b: usize) -> u64 {
    let b = b as u64;
    if b < EXACT {
        b
    } else {
        let e = (b - EXACT) / (EXACT / 2) + 1;
        let m = (b - EXACT) % (EXACT / 2) + EXACT / 2;
        m << e
    }
}

impl Histogram {
    /// Records `count` jobs of response time `v`.
    #[inline]
    pub fn record(&mut self, v: u64, count: u64) {
        let b = bucket(v);
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += count;
        self.total += count;
        self.sum += v as u128 * count as u128;
        self.max = self.max.max(v);
    }

    /// Number of jobs recorded.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// Exact mean (the sum is kept exactly).
    pub fn mean(&self) -> Option<f64> {
        (self.total > 0).then(|| self.sum as f64 / self.total as f64)
    }

    /// Exact maximum.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The q-quantile (smallest v with P(X ≤ v) ≥ q), exact below 4096 slots.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.total == 0 {
            return None;
        }
        let target = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut acc = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            acc += c;
            if acc >= target {
                return Some(bucket_low(b).min(self.max));
            }
        }
        Some(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotone_and_invertible() {
        let mut last = 0;
        for v in 1..200_000u64 {
            let b = bucket(v);
            assert!(b >= last);
            last = b;
            let lo = bucket_low(b);
            assert!(lo <= v && bucket(lo) == b, "v {v} b {b} lo {lo}");
            assert!((v - lo) as f64 / v as f64 <= 1.0 / 2048.0);
        }
    }

    #[test]
    fn quantiles_are_exact_for_small_values() {
        let mut h = Histogram::default();
        for v in 1..=100 {
            h.record(v, 1);
        }
        assert_eq!(h.quantile(0.5), Some(50));
        assert_eq!(h.quantile(0.9), Some(90));
        assert_eq!(h.quantile(0.99), Some(99));
        assert_eq!(h.quantile(1.0), Some(100));
        assert_eq!(h.mean(), Some(50.5));
    }
}
