//! Response-time histogram: exact below 4096 slots, then log-linear buckets
//! with 2048 sub-buckets per power of two (relative error < 2⁻¹¹), in the
//! manner of HdrHistogram. Memory is bounded whatever the run length.

const EXACT_BITS: u32 = 12;
const EXACT: u64 = 1 << EXACT_BITS;

/// Counts of response times (in slots, ≥ 1).
///
/// Recording a response time below 4096 slots only bumps its count; the total,
/// the exact sum and the maximum are read off the counts when asked for. Above
/// that, the log-linear bucket loses the value, so its sum and maximum are kept
/// aside, exactly.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    /// Counts of values below 4096 slots, exactly; a fixed-size array, so
    /// recording needs no bounds check.
    exact: Box<[u64; EXACT as usize]>,
    /// Counts of the log-linear buckets from 4096 slots on.
    counts: Vec<u64>,
    /// Jobs, sum and maximum of response times ≥ 4096 slots.
    big_total: u64,
    big_sum: u128,
    big_max: u64,
}

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram {
            exact: Box::new([0; EXACT as usize]),
            counts: Vec::new(),
            big_total: 0,
            big_sum: 0,
            big_max: 0,
        }
    }
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
    /// Records `count` jobs (possibly none) of response time `v`.
    #[inline]
    pub fn record(&mut self, v: u64, count: u64) {
        if v < EXACT {
            self.exact[v as usize] += count;
        } else if count > 0 {
            self.record_big(v, count);
        }
    }

    #[cold]
    fn record_big(&mut self, v: u64, count: u64) {
        let b = bucket(v) - EXACT as usize;
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += count;
        self.big_total += count;
        self.big_sum += v as u128 * count as u128;
        self.big_max = self.big_max.max(v);
    }

    /// Number of jobs recorded.
    pub fn count(&self) -> u64 {
        self.exact.iter().sum::<u64>() + self.big_total
    }

    /// Exact sum of the response times recorded.
    fn sum(&self) -> u128 {
        let exact: u128 = (0..EXACT as usize)
            .map(|v| v as u128 * self.exact[v] as u128)
            .sum();
        exact + self.big_sum
    }

    /// Exact mean (the sum is kept exactly).
    pub fn mean(&self) -> Option<f64> {
        let total = self.count();
        (total > 0).then(|| self.sum() as f64 / total as f64)
    }

    /// Exact maximum (0 when nothing was recorded).
    pub fn max(&self) -> u64 {
        if self.big_total > 0 {
            return self.big_max;
        }
        (0..EXACT as usize)
            .rev()
            .find(|&v| self.exact[v] > 0)
            .unwrap_or(0) as u64
    }

    /// The q-quantile (smallest v with P(X ≤ v) ≥ q), exact below 4096 slots.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        let total = self.count();
        if total == 0 {
            return None;
        }
        let max = self.max();
        let target = ((q * total as f64).ceil() as u64).clamp(1, total);
        let mut acc = 0;
        for (b, &c) in self.exact.iter().chain(&self.counts).enumerate() {
            acc += c;
            if acc >= target {
                return Some(bucket_low(b).min(max));
            }
        }
        Some(max)
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
        assert_eq!((h.count(), h.max()), (100, 100));
        h.record(10_000, 2);
        assert_eq!((h.count(), h.max()), (102, 10_000));
        assert_eq!(h.mean(), Some((5050.0 + 20_000.0) / 102.0));
    }
}
