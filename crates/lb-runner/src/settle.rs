//! Whether a point's runs have settled: the rule that decides, replication
//! by replication, if a steady-state estimate may be read from them (issue
//! 21). A point that has not settled decides no claim; the audit says why,
//! the figures mark it, and `lb plan` says how much longer its runs must be.
//!
//! A replication of a point has settled when, over its measured window
//! (the batch means of its trace, warm-up already cut):
//!
//! - **the warm-up detector did not hit its cap**: MSER-5 (White 1997)
//!   would cut less than half the window. On a stationary series it reaches
//!   the cap rarely (below 0.3% of 64-batch AR(1) series with φ ≤ 0.6, by
//!   simulation), so reaching it says the initial transient is at least
//!   half the window;
//! - **its batch means pass the independence test** after merging
//!   ([`lb_core::stability::merged_batch_means`]): |lag-1 autocorrelation|
//!   < 2/√k with at least 16 batches left.
//!
//! A point has settled when its replications agree on stability (some
//! stable and some not is no steady state to read) and no more of its
//! stable replications fail the rule than chance allows a settled point:
//! at most [`allowed`]`(n)`, the count a settled point exceeds with
//! probability at most 5% were each replication to fail with probability
//! [`FALSE_FAIL`]. With up to 10 replications that is none; with 72, two;
//! with 444, five. (A rule that refused any failure would flag ever more
//! settled points as replications are added.) Replications judged unstable are not held to the rule:
//! whether a policy is stable is the stability claims' to decide, and an
//! unstable policy loses an ordering whatever its warm-up.

use lb_core::stability::{merged_batch_means, mser};
use lb_model::Summary;

/// The chance that a settled replication fails the rule anyway, as the
/// coverage certificate measured it on queues whose runs are long enough to
/// settle (a load-scaled warm-up of four relaxation times): MSER-5 reached
/// its cap in 1.3%, 2.1% and 1.8% of 8,000 runs each of an M/M/1 queue at
/// loads 0.5, 0.8 and 0.95 (32 batches), in 2.7% and 2.9% of 20,000 and
/// 10,000 Geo/Geo/1 runs at loads 0.9 and 0.98 (32 batches) and in 1.6% of
/// 4,000 at 0.9 with 64 batches; the batch means never stayed correlated.
/// Rounded up from the worst, 2.9%. (It was 0.005, calibrated on AR(1)
/// series, whose batch means are not skewed as a queue's are: with it, a
/// settled point of 10 replications was flagged unsettled about one time
/// in five.) With one replication none may fail; with 2 to 11, one; with
/// 72, five.
pub const FALSE_FAIL: f64 = 0.03;

/// The most of `n` settled replications that fail the rule by chance, at
/// 5%: the least c with P(Binomial(n, [`FALSE_FAIL`]) > c) ≤ 0.05.
pub fn allowed(n: usize) -> usize {
    let p = FALSE_FAIL;
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

/// How a point's replications fare under the rule.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Settling {
    /// Replications read.
    pub replications: usize,
    /// Of them, judged unstable.
    pub unstable: usize,
    /// Stable ones whose MSER-5 cut reached half the window.
    pub capped: usize,
    /// Stable ones that fail the rule, either way.
    pub failed: usize,
    /// Stable ones whose batch means stay correlated after merging.
    pub correlated: usize,
    /// The largest |lag-1 autocorrelation| of the final batch means of a
    /// correlated replication, with its number of batches.
    pub worst_lag1: Option<(f64, usize)>,
}

impl Settling {
    /// The rule applied to a point's replications.
    pub fn of(summaries: &[Summary]) -> Settling {
        let mut s = Settling {
            replications: summaries.len(),
            ..Settling::default()
        };
        for r in summaries {
            if !r.stable() {
                s.unstable += 1;
                continue;
            }
            let t = r.trace();
            let capped = t.len() >= 8 && mser(t) >= t.len() / 2;
            let (b, lag1, independent) = merged_batch_means(t);
            let correlated = t.len() >= 8 && !independent;
            s.capped += usize::from(capped);
            s.correlated += usize::from(correlated);
            s.failed += usize::from(capped || correlated);
            if correlated && s.worst_lag1.is_none_or(|(w, _)| lag1.abs() > w) {
                s.worst_lag1 = Some((lag1.abs(), b.len()));
            }
        }
        s
    }

    /// Whether the replications disagree on stability.
    pub fn mixed(&self) -> bool {
        self.unstable > 0 && self.unstable < self.replications
    }

    /// Whether the point may decide a claim.
    pub fn settled(&self) -> bool {
        !self.mixed() && !self.too_many()
    }

    /// Whether more stable replications fail than chance allows.
    fn too_many(&self) -> bool {
        self.failed > allowed(self.replications - self.unstable)
    }

    /// Why it has not settled, in words; None when it has.
    pub fn why(&self) -> Option<String> {
        if self.settled() {
            return None;
        }
        let n = self.replications;
        let mut parts = Vec::new();
        if self.mixed() {
            parts.push(format!(
                "{} of {n} replications unstable, the others not",
                self.unstable
            ));
        }
        if self.too_many() && self.capped > 0 {
            parts.push(format!(
                "MSER-5 would still cut half the measured window in {} of {n} replications",
                self.capped
            ));
        }
        if self.too_many() && self.correlated > 0 {
            let worst = self
                .worst_lag1
                .map(|(r, k)| format!(" (|lag-1| up to {r:.2} over {k} batches)"))
                .unwrap_or_default();
            parts.push(format!(
                "batch means still correlated in {} of {n} replications{worst}",
                self.correlated
            ));
        }
        Some(format!("not settled: {}", parts.join("; ")))
    }

    /// How many times longer the runs should be to settle, roughly, when a
    /// longer run can settle them (None for a stability disagreement, which
    /// is for more replications or a stability claim to resolve):
    ///
    /// - MSER-5 at its cap: the transient is at least half the window, so at
    ///   least 2× (a lower bound);
    /// - correlated batch means: the lag-1 autocorrelation of batch means of
    ///   size m falls about as 1/m once m exceeds the correlation time, so
    ///   |r| must shrink below 2/√k: × |r|·√k/2.
    pub fn longer(&self) -> Option<f64> {
        if self.settled() || !self.too_many() {
            return None;
        }
        let mut f: f64 = 1.0;
        if self.capped > 0 {
            f = f.max(2.0);
        }
        if let Some((r, k)) = self.worst_lag1 {
            f = f.max(r * (k as f64).sqrt() / 2.0).max(2.0);
        }
        Some(f)
    }
}

#[cfg(test)]
mod tests {
    use super::allowed;

    /// The failures chance allows grow with the replications: none up to
    /// 1, one up to 11, a few percent in hundreds.
    #[test]
    fn chance_allows_few_failures() {
        assert_eq!(allowed(1), 0);
        assert_eq!(allowed(2), 1);
        assert_eq!(allowed(4), 1);
        assert_eq!(allowed(10), 1);
        assert_eq!(allowed(20), 2);
        assert_eq!(allowed(72), 5);
        assert_eq!(allowed(444), 19);
    }
}
