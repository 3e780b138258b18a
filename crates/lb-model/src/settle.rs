//! Whether a point's runs have settled: the rule that decides, replication
//! by replication, if a steady-state estimate may be read from them. A point that has not settled decides no claim; the audit says why,
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
//!   < 2/√k on the k batches left (merging stops once fewer than 16 would
//!   remain, so a run of 64 batches that stays correlated is judged on 8).
//!
//! A point has settled when its replications' stability reads clearly
//! ([`lb_core::stability::point_stability`]: stable, with no more flags of
//! the trend test than its false alarms allow, or unstable, most flagged and
//! growing at a steady rate; a point still rising, its growth slowing, is a
//! run that has not relaxed and has not settled) and no more of its
//! replications held to the rule fail it than chance allows a settled point:
//! at most [`allowed`]`(n)`, the count a settled point exceeds with
//! probability at most 5% were each replication to fail with probability
//! [`FALSE_FAIL`]. With up to 10 replications that is none; with 72, two;
//! with 444, five. (A rule that refused any failure would flag ever more
//! settled points as replications are added.) At an unstable point the
//! flagged replications are not held to the rule: whether a policy is
//! stable is the stability claims' to decide, and an unstable policy loses
//! an ordering whatever its warm-up. At a stable point every replication is,
//! the trend test's false alarms too.

use crate::Summary;
use lb_core::stability::{PointStability, merged_batch_means, mser};

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
    lb_core::stability::chance_allows(n, FALSE_FAIL)
}

/// How a point's replications fare under the rule.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Settling {
    /// Replications read.
    pub replications: usize,
    /// Of them, flagged by the trend test.
    pub unstable: usize,
    /// The point's stability, read on all of them.
    pub label: PointStability,
    /// The median share of growth its flagged replications keep through
    /// their runs ([`lb_core::stability::growth_kept`]).
    pub kept: Option<f64>,
    /// Replications held to the rule.
    pub held: usize,
    /// Stable ones whose MSER-5 cut reached half the window.
    pub capped: usize,
    /// Stable ones that fail the rule, either way.
    pub failed: usize,
    /// Stable ones whose batch means stay correlated after merging.
    pub correlated: usize,
    /// The largest |lag-1 autocorrelation| of the final batch means of a
    /// correlated replication, with its number of batches.
    pub worst_lag1: Option<(f64, usize)>,
    /// Replications flagged by the trend test or failing the rule, each
    /// counted once.
    pub unrelaxed: usize,
    /// The longest any replication, stable or not, asks its run to be, as a
    /// multiple of its length ([`length_factor`]); 1 when none asks for more.
    pub need: f64,
}

impl Settling {
    /// The rule applied to a point's replications.
    pub fn of(summaries: &[Summary]) -> Settling {
        let (label, flagged, kept) = crate::config::point_stability(summaries);
        let mut s = Settling {
            replications: summaries.len(),
            unstable: flagged,
            label,
            kept,
            need: 1.0,
            ..Settling::default()
        };
        for r in summaries {
            let t = r.trace();
            let capped = t.len() >= 8 && mser(t) >= t.len() / 2;
            let (b, lag1, independent) = merged_batch_means(t);
            let correlated = t.len() >= 8 && !independent;
            if capped {
                s.need = s.need.max(2.0);
            }
            if correlated {
                s.need = s.need.max(length_factor(lag1, b.len()));
            }
            let held = r.stable() || label == PointStability::Stable;
            s.unrelaxed += usize::from(!r.stable() || (held && (capped || correlated)));
            if !held {
                continue;
            }
            s.held += 1;
            s.capped += usize::from(capped);
            s.correlated += usize::from(correlated);
            s.failed += usize::from(capped || correlated);
            if correlated && s.worst_lag1.is_none_or(|(w, _)| lag1.abs() > w) {
                s.worst_lag1 = Some((lag1.abs(), b.len()));
            }
        }
        s
    }

    /// Whether the point is still rising: more replications flagged than
    /// the trend test's false alarms allow, but their growth slowing (or
    /// only a minority flagged): a run that has not relaxed.
    pub fn rising(&self) -> bool {
        self.label == PointStability::Rising
    }

    /// Whether at least half its replications have not relaxed (flagged by
    /// the trend test, or held to the rule and failing it): a share no
    /// number of further replications of the same length would bring
    /// within what chance allows a settled point ([`FALSE_FAIL`], and the
    /// trend test's false alarms, a few percent each).
    pub fn plainly_unsettled(&self) -> bool {
        self.replications > 0 && 2 * self.unrelaxed >= self.replications
    }

    /// Whether the point may decide a claim.
    pub fn settled(&self) -> bool {
        !self.rising() && !self.too_many()
    }

    /// Whether more stable replications fail than chance allows.
    fn too_many(&self) -> bool {
        self.failed > allowed(self.held)
    }

    /// Why it has not settled, in words; None when it has.
    pub fn why(&self) -> Option<String> {
        if self.settled() {
            return None;
        }
        let n = self.replications;
        let mut parts = Vec::new();
        if self.rising() {
            let kept = self
                .kept
                .map(|k| {
                    format!(
                        ", their growth slowing (the second half of the window keeps {:.0}% \
                         of the first half's rate; divergence keeps it all)",
                        100.0 * k
                    )
                })
                .unwrap_or_default();
            parts.push(format!(
                "ΣQ still rising in {} of {n} replications{kept}: a transient, not \
                 divergence",
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

    /// At least how many times longer the runs must be to settle (None when
    /// they have): the most any replication asks for, and at least 2. A
    /// lower bound: a run too short to have relaxed cannot show how slowly
    /// it relaxes (its batch means' correlation, and its transient, are read
    /// within its own window), so runs this long may still not settle.
    ///
    /// - MSER-5 at its cap: the transient is at least half the window, so at
    ///   least 2× (a lower bound);
    /// - batch means still correlated: [`length_factor`] of their lag-1
    ///   autocorrelation;
    /// - a point still rising: the same, read on every replication, the
    ///   flagged ones too (a queue that has not relaxed drifts, and its drift
    ///   is what the trend test saw). Longer runs then either settle it, or
    ///   show it diverging.
    pub fn longer(&self) -> Option<f64> {
        if self.settled() {
            return None;
        }
        Some(self.need.max(2.0))
    }

    /// The point's `settled` cell in a table or plan: "yes", "no: ≥×k" (runs
    /// at least k times as long are needed to settle it) or "no: rising, ≥×k"
    /// (ΣQ still rising, but slowing; runs at least k times as long are
    /// needed to settle it or show it diverging).
    pub fn cell(&self) -> String {
        match self.longer() {
            None => "yes".into(),
            Some(f) if self.rising() => format!("no: rising, ≥×{}", f.ceil()),
            Some(f) => format!("no: ≥×{}", f.ceil()),
        }
    }
}

pub use lb_stats::batch::{batch_lag1, length_factor};

#[cfg(test)]
mod tests {
    use super::{Settling, allowed, batch_lag1, length_factor};
    use crate::Summary;
    use lb_core::slotted::RunSummary;
    use lb_core::stability::Stability;
    use lb_stats::batch::batch_size_at;
    use rand::{Rng, SeedableRng};

    /// [`batch_lag1`] against an AR(1) series with φ = e^{−1/τ} (so its
    /// autocorrelation is e^{−h/τ}): the lag-1 autocorrelation of 4,096
    /// adjacent batch means of x·τ steps, within four standard errors
    /// ((1 − r²)/√n) and the estimator's bias ((1 + 3r)/n), plus the
    /// discretisation of τ = 200 steps (below 1/τ).
    #[test]
    fn batch_lag1_is_the_batch_correlation_of_an_ar1_series() {
        let tau = 200.0f64;
        let phi = (-1.0 / tau).exp();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let normal = |rng: &mut rand_chacha::ChaCha8Rng| {
            // Box–Muller: one standard normal.
            let (u, v): (f64, f64) = (1.0 - rng.random::<f64>(), rng.random());
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        };
        for x in [0.25, 1.0, 4.0] {
            let m = (x * tau) as usize;
            let n = 4096;
            let mut y = normal(&mut rng);
            let means: Vec<f64> = (0..n)
                .map(|_| {
                    let mut sum = 0.0;
                    for _ in 0..m {
                        y = phi * y + (1.0 - phi * phi).sqrt() * normal(&mut rng);
                        sum += y;
                    }
                    sum / m as f64
                })
                .collect();
            let r = lb_core::stability::autocorrelation_lag1(&means);
            let want = batch_lag1(x);
            let tol = 4.0 * (1.0 - want * want) / (n as f64).sqrt()
                + (1.0 + 3.0 * want) / n as f64
                + 1.0 / tau;
            assert!(
                (r - want).abs() < tol,
                "x = {x}: measured {r:.4}, formula {want:.4}, tolerance {tol:.4}"
            );
        }
    }

    /// The factor is r·√k/2 where r is small (lag-1 falling as 1/m), grows
    /// faster as r nears 1, is 1 when the test passes, and inverts exactly.
    #[test]
    fn the_length_factor_follows_the_batch_correlation() {
        for r in [0.05, 0.3, 0.7, 0.95] {
            assert!((batch_lag1(batch_size_at(r)) - r).abs() < 1e-9);
        }
        let small = length_factor(0.3, 64);
        assert!((small / (0.3 * 8.0 / 2.0) - 1.0).abs() < 0.1, "{small}");
        let near = length_factor(0.95, 8);
        assert!(near > 3.0 * (0.95 * 8f64.sqrt() / 2.0), "{near}");
        assert!(length_factor(0.95, 8) < length_factor(0.99, 8));
        assert_eq!(length_factor(0.99, 8), length_factor(1.0, 8));
        assert_eq!(length_factor(0.6, 8), 1.0);
        assert_eq!(length_factor(-0.1, 64), 1.0);
        assert_eq!(length_factor(-0.5, 64), 2.0);
    }

    fn run(trace: Vec<f64>, stable: bool) -> Summary {
        Summary::Slotted(RunSummary {
            mean_queue: vec![1.0],
            stability: Stability {
                stable,
                slope: 0.0,
                p_value: 1.0,
                growth: 0.0,
            },
            ..RunSummary::unfollowed((0, 6400, 0), (1.0, 1.0), trace)
        })
    }

    /// Settled replications say "yes"; a point still rising gets a length
    /// too, read on its flagged runs as well; one flagged run among three
    /// is the trend test's false alarm, and the point settles.
    #[test]
    fn every_unsettled_point_says_at_least_how_much_longer() {
        // Noise with lag-1 −0.05 (a multiplicative hash), so flat runs pass.
        let noise = |i: u64| ((((i * 2_654_435_761) & 0xffff_ffff) >> 3) % 13) as f64 - 6.0;
        let flat: Vec<f64> = (0..64u64).map(|i| 100.0 + noise(i)).collect();
        // Still rising the whole window: MSER-5 cuts half of it.
        let rising: Vec<f64> = (0..64u64).map(|i| 10.0 * i as f64 + noise(i)).collect();
        // Rising ever more slowly, as a queue relaxing toward its steady state.
        let slowing: Vec<f64> = (0..64u64)
            .map(|i| 1000.0 * (1.0 - (-(i as f64) / 40.0).exp()) + noise(i))
            .collect();
        let settled = Settling::of(&[run(flat.clone(), true), run(flat.clone(), true)]);
        assert_eq!(settled.cell(), "yes");
        assert_eq!((settled.longer(), settled.need), (None, 1.0));
        // One of two flagged: more than the false alarms allow, no majority.
        let disagree = Settling::of(&[run(flat.clone(), true), run(flat.clone(), false)]);
        assert!(disagree.rising());
        assert_eq!((disagree.need, disagree.longer()), (1.0, Some(2.0)));
        // One of three flagged: a false alarm, and the point reads stable.
        let alarm = Settling::of(&[
            run(flat.clone(), true),
            run(flat.clone(), true),
            run(flat.clone(), false),
        ]);
        assert_eq!(alarm.cell(), "yes");
        // Two of three flagged, growth slowing: rising, and the flagged runs,
        // MSER-5 at its cap, say how much longer.
        let slow = Settling::of(&[
            run(flat.clone(), true),
            run(slowing.clone(), false),
            run(slowing.clone(), false),
        ]);
        assert!(slow.rising(), "{slow:?}");
        assert_eq!(slow.need, 2.0);
        let k = slow.longer().expect("not settled");
        assert_eq!(slow.cell(), format!("no: rising, ≥×{}", k.ceil()));
        // Flagged and growing at a steady rate: divergence, which settles.
        let diverging = Settling::of(&[
            run(rising.clone(), false),
            run(rising.clone(), false),
            run(flat.clone(), true),
        ]);
        assert!(!diverging.rising() && diverging.settled(), "{diverging:?}");
        let capped = Settling::of(&[run(rising.clone(), true), run(rising.clone(), true)]);
        assert!(capped.cell().starts_with("no: ≥×"), "{}", capped.cell());
        // A run flagged and at MSER-5's cap is one run that has not relaxed,
        // not two: one of four is no majority.
        let one = Settling::of(&[
            run(rising, false),
            run(flat.clone(), true),
            run(flat.clone(), true),
            run(flat, true),
        ]);
        assert_eq!(one.unrelaxed, 1, "{one:?}");
        assert!(!one.plainly_unsettled());
    }

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
