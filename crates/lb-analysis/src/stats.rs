//! Confidence intervals (docs/MODEL.md §4): Student-t across replications, batch
//! means within a run with a lag-1 autocorrelation check, and the MSER-5
//! warm-up rule; for proportions, Wilson intervals and Clopper–Pearson upper
//! bounds, which stay inside [0, 1].

pub use lb_model::MetricKind;
pub use lb_stats::control::{control_variate, control_variate_of};
pub use lb_stats::proportion::{clopper_pearson_upper_zero, wilson};
use lb_stats::student::t_quantile;
pub use lb_stats::student::z_quantile;
pub use lb_stats::student::{Interval, interval, interval_of, stein_interval};

/// The level of every interval lb prints.
pub const LEVEL: f64 = 0.95;

/// A batch-means interval for the time average of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchMeans {
    /// Batches after merging while correlated (the independence test).
    pub batches: usize,
    /// The interval, on the batches merged further to at most
    /// [`INTERVAL_BATCHES`].
    pub interval: Interval,
    /// Lag-1 autocorrelation of the final batch means of the test.
    pub lag1: f64,
    /// |lag-1| is below 2/√k (no evidence of correlation at about 5%), so the
    /// batches can be treated as independent.
    pub independent: bool,
}

/// The most batches the batch-means interval is read on. The independence
/// test passes batches whose lag-1 autocorrelation is below 2/√k — up to
/// 0.35 with 32 batches — and positively correlated batch means make a
/// Student-t interval too narrow by about √((1 + r)/(1 − r)). Merging to 8
/// batches (7 degrees of freedom, Schmeiser's "few large batches") is what
/// the coverage certificate measured to hold the level: on M/M/1 under
/// Random (N = 10, load-scaled runs, 200 macro-replications a load) the
/// interval on the test's own 16–32 batches covered 87–90% at loads 0.5,
/// 0.8 and 0.95, on 8 batches 93–94% (docs/MODEL.md, "Coverage").
pub(crate) const INTERVAL_BATCHES: usize = 8;

/// Lag-1 sample autocorrelation.
pub use lb_core::stability::autocorrelation_lag1 as lag1;

/// Batch means over `trace` (equal-sized batch means of one run), merged
/// while correlated ([`lb_core::stability::merged_batch_means`]) for the
/// independence test, then to at most [`INTERVAL_BATCHES`] for the
/// interval.
pub(crate) fn batch_means(trace: &[f64]) -> BatchMeans {
    batch_means_at(trace, LEVEL)
}

/// [`batch_means`] with its interval at `level`.
pub fn batch_means_at(trace: &[f64], level: f64) -> BatchMeans {
    let (b, r, independent) = lb_core::stability::merged_batch_means(trace);
    let mut few = b.clone();
    while few.len() > INTERVAL_BATCHES {
        few = few.chunks_exact(2).map(|c| (c[0] + c[1]) / 2.0).collect();
    }
    BatchMeans {
        batches: b.len(),
        interval: interval(&few, level),
        lag1: r,
        independent,
    }
}

pub use lb_stats::batch::{mser, mser5};

/// How an [`Estimate`]'s interval was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalKind {
    /// Mean ± Student-t half-width across replications.
    StudentT,
    /// Stein's two-stage interval: mean ± t_{n₀−1}·s₀/√n with s₀ from the
    /// first n₀ replications, those that chose n (Stein's precision rule).
    Stein,
    /// The Student-t interval cut to [0, 1] (a bounded fraction).
    Clipped,
    /// Wilson, on events pooled across replications.
    Wilson,
    /// No event seen: [0, one-sided Clopper–Pearson upper bound].
    UpperBound,
    /// A fraction that was exactly 0 in every replication, with no count of
    /// trials to bound it.
    NoneSeen,
    /// One replication: no interval.
    Single,
    /// A control-variate interval (Lavenberg and Welch, β fitted) on the
    /// replications paired with a control of exact mean: the estimate a
    /// precision rule with a control decides on.
    ControlVariate,
}

impl IntervalKind {
    /// The kind of a mean ± t interval on `n` replications: Stein's where a
    /// first stage shorter than n read its variance
    /// ([`lb_model::precision::interval_of`]), else Student-t.
    pub(crate) fn t_on(first: Option<usize>, n: usize) -> IntervalKind {
        if first.is_some_and(|f| f < n) {
            IntervalKind::Stein
        } else {
            IntervalKind::StudentT
        }
    }

    /// The word in tables and sidecars.
    pub fn word(self) -> &'static str {
        match self {
            IntervalKind::StudentT => "student-t",
            IntervalKind::Stein => "stein",
            IntervalKind::Clipped => "student-t-clipped",
            IntervalKind::Wilson => "wilson",
            IntervalKind::UpperBound => "upper-bound",
            IntervalKind::NoneSeen => "none-seen",
            IntervalKind::Single => "single",
            IntervalKind::ControlVariate => "control-variate",
        }
    }
}

/// A point estimate with its interval [lo, hi].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The point estimate.
    pub mean: f64,
    /// The interval's lower end (None: no interval).
    pub lo: Option<f64>,
    /// Its upper end.
    pub hi: Option<f64>,
    /// How the interval was made.
    pub kind: IntervalKind,
    /// Replications behind it.
    pub n: usize,
    /// Events and trials pooled across replications (proportions).
    pub events: Option<(u64, u64)>,
}

impl Estimate {
    /// The half-width of a symmetric interval (Student-t), else None.
    pub fn half_width(&self) -> Option<f64> {
        match self.kind {
            IntervalKind::StudentT | IntervalKind::Stein | IntervalKind::ControlVariate => {
                Some(self.hi? - self.mean)
            }
            _ => None,
        }
    }
}

/// The pooled proportion p̂ = Σx/Σn of per-replication (events, trials),
/// and the effective number of trials of [`estimate`]'s interval: Σn over
/// the design effect, times (z/t_{R−1})². None without trials.
///
/// The design effect is the estimated one, below 1 too: the (z/t_{R−1})²
/// factor already pays for estimating it from R replications, and holding
/// it at 1 or more as well (Korn and Graubard's truncation, which lb used
/// before) made the interval too wide wherever events are close to
/// independent — 97.5% coverage for a nominal 95% at a loss probability
/// of 3% in lb's coverage certificate. [`effective_trials_floored`] keeps
/// the truncated form for the certificate's before.
pub fn effective_trials(c: &[(u64, u64)], level: f64) -> Option<(f64, f64)> {
    effective_trials_with(c, level, false, None)
}

/// [`effective_trials`] with the design effect held at 1 or more.
pub fn effective_trials_floored(c: &[(u64, u64)], level: f64) -> Option<(f64, f64)> {
    effective_trials_with(c, level, true, None)
}

/// [`effective_trials`] with the design effect read on a first stage, as
/// Stein's interval reads its variance (`first` of the replications, when
/// fewer than all): the trials of every replication over the first stage's
/// design effect, times (z/t_{first−1})².
fn effective_trials_with(
    c: &[(u64, u64)],
    level: f64,
    floor: bool,
    first: Option<usize>,
) -> Option<(f64, f64)> {
    let x: u64 = c.iter().map(|c| c.0).sum();
    let trials: u64 = c.iter().map(|c| c.1).sum();
    if trials == 0 {
        return None;
    }
    let p = x as f64 / trials as f64;
    let z = z_quantile(level);
    // The replications the design effect is estimated on.
    let stage = &c[..first.filter(|&f| f >= 2).unwrap_or(c.len()).min(c.len())];
    let n = stage.len();
    let mean_trials = stage.iter().map(|c| c.1).sum::<u64>() as f64 / n as f64;
    let mut n_eff = trials as f64;
    if n >= 2 && mean_trials > 1.0 {
        let ps: Vec<f64> = stage
            .iter()
            .map(|&(x, t)| if t > 0 { x as f64 / t as f64 } else { p })
            .collect();
        let m = ps.iter().sum::<f64>() / n as f64;
        let var = ps.iter().map(|q| (q - m) * (q - m)).sum::<f64>() / (n - 1) as f64;
        let binomial = p * (1.0 - p) / mean_trials;
        let deff = if binomial > 0.0 && var > 0.0 {
            let d = var / binomial;
            if floor { d.max(1.0) } else { d }
        } else {
            1.0
        };
        let t = t_quantile(level, (n - 1) as f64);
        n_eff = trials as f64 / deff * (z / t).powi(2);
    }
    Some((p, n_eff))
}

/// The estimate of a metric of kind `kind` from its per-replication `values`
/// and, for proportions, the per-replication (events, trials).
///
/// A proportion pools the events of all replications, p̂ = Σx/Σn, with a
/// Wilson interval on the *effective* number of trials: events in one run are
/// not independent (a busy period sends many jobs to busy servers), so Σn is
/// divided by the design effect — the variance of the replications'
/// proportions over the binomial variance p̂(1 − p̂)/n̄, as estimated (it
/// may come out below 1; [`effective_trials`] says why it is not truncated)
/// — and, as the variance is estimated from R replications, multiplied by
/// (z/t_{R−1})² (Korn and Graubard 1998). With events that are in fact
/// independent this is Wilson's interval on Σn. When no event was seen the
/// estimate is 0 with the one-sided Clopper–Pearson upper bound on Σn trials
/// (no design effect can be estimated from zeros).
///
/// `first`: the first stage of a point whose precision rule is Stein's
/// ([`lb_model::precision::PrecisionRule::first_stage`]): the Student-t
/// interval is then Stein's ([`lb_model::precision::stein_interval`]) and
/// the design effect is read on the first stage too.
pub fn estimate(
    kind: MetricKind,
    values: &[f64],
    counts: Option<&[(u64, u64)]>,
    first: Option<usize>,
    level: f64,
) -> Option<Estimate> {
    if values.is_empty() {
        return None;
    }
    let n = values.len();
    if kind == MetricKind::Proportion
        && let Some(c) = counts
        && c.len() == n
    {
        let x: u64 = c.iter().map(|c| c.0).sum();
        let trials: u64 = c.iter().map(|c| c.1).sum();
        if trials == 0 {
            return None;
        }
        let events = Some((x, trials));
        if x == 0 {
            return Some(Estimate {
                mean: 0.0,
                lo: Some(0.0),
                hi: Some(clopper_pearson_upper_zero(trials as f64, level)),
                kind: IntervalKind::UpperBound,
                n,
                events,
            });
        }
        let (p, n_eff) = effective_trials_with(c, level, false, first)?;
        let z = z_quantile(level);
        let (lo, hi) = wilson(p * n_eff, n_eff, z);
        return Some(Estimate {
            mean: p,
            lo: Some(lo),
            hi: Some(hi),
            kind: IntervalKind::Wilson,
            n,
            events,
        });
    }
    let bounded = kind != MetricKind::Real;
    if bounded && values.iter().all(|v| *v == 0.0) {
        return Some(Estimate {
            mean: 0.0,
            lo: None,
            hi: None,
            kind: IntervalKind::NoneSeen,
            n,
            events: None,
        });
    }
    if n < 2 {
        return Some(Estimate {
            mean: values[0],
            lo: None,
            hi: None,
            kind: IntervalKind::Single,
            n,
            events: None,
        });
    }
    let iv = interval_of(values, first, level);
    let (lo, hi) = (iv.mean - iv.half_width, iv.mean + iv.half_width);
    if bounded && (lo < 0.0 || hi > 1.0) {
        return Some(Estimate {
            mean: iv.mean,
            lo: Some(lo.max(0.0)),
            hi: Some(hi.min(1.0)),
            kind: IntervalKind::Clipped,
            n,
            events: None,
        });
    }
    Some(Estimate {
        mean: iv.mean,
        lo: Some(lo),
        hi: Some(hi),
        kind: IntervalKind::t_on(first, n),
        n,
        events: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Wilson's interval against values computed by hand from
    /// (p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n), z = 1.959964.
    #[test]
    fn wilson_against_hand_computed_values() {
        let z = z_quantile(0.95);
        assert!(close(z, 1.959964, 1e-6), "{z}");
        // 5 of 20: centre 0.3187, half 0.1784.
        let (lo, hi) = wilson(5.0, 20.0, z);
        assert!(
            close(lo, 0.1119, 1e-4) && close(hi, 0.4687, 1e-4),
            "{lo} {hi}"
        );
        // 0 of 10: [0, z²/(n + z²)] = [0, 0.2775].
        let (lo, hi) = wilson(0.0, 10.0, z);
        assert!(
            close(lo, 0.0, 1e-12) && close(hi, 0.2775, 1e-4),
            "{lo} {hi}"
        );
        // 1 of 1000: [0.000177, 0.005643].
        let (lo, hi) = wilson(1.0, 1000.0, z);
        assert!(
            close(lo, 0.000177, 2e-6) && close(hi, 0.005643, 2e-6),
            "{lo} {hi}"
        );
        // 10 of 10: [0.7225, 1].
        let (lo, hi) = wilson(10.0, 10.0, z);
        assert!(close(lo, 0.7225, 1e-4) && hi == 1.0, "{lo} {hi}");
    }

    /// 1 − 0.05^{1/n}: 0.2589 for n = 10, 0.1391 for n = 20, ≈ 3/n for large n.
    #[test]
    fn clopper_pearson_upper_bound_when_nothing_is_seen() {
        assert!(close(clopper_pearson_upper_zero(10.0, 0.95), 0.2589, 1e-4));
        assert!(close(clopper_pearson_upper_zero(20.0, 0.95), 0.1391, 1e-4));
        let n = 6.0e6;
        assert!(close(clopper_pearson_upper_zero(n, 0.95) * n, 2.9957, 1e-3));
    }

    /// Under Stein's rule a proportion's design effect is read on the first
    /// stage (with t on its degrees of freedom), the trials on every
    /// replication: a first stage as long as the sample changes nothing, a
    /// first stage that spreads more than the rest widens the interval.
    #[test]
    fn a_proportions_design_effect_reads_the_first_stage() {
        let c = [
            (10, 1_000),
            (40, 1_000),
            (25, 1_000),
            (25, 1_000),
            (25, 1_000),
            (25, 1_000),
        ];
        let v: Vec<f64> = c.iter().map(|&(x, n)| x as f64 / n as f64).collect();
        let at = |first| estimate(MetricKind::Proportion, &v, Some(&c), first, 0.95).unwrap();
        assert_eq!(at(Some(6)), at(None));
        let (all, staged) = (at(None), at(Some(3)));
        assert_eq!((staged.kind, staged.mean), (IntervalKind::Wilson, all.mean));
        let width = |e: Estimate| e.hi.unwrap() - e.lo.unwrap();
        assert!(width(staged) > 1.5 * width(all), "{staged:?} {all:?}");
    }

    #[test]
    fn proportions_stay_inside_zero_one() {
        // sub-Halfin-Whitt, JSQ at N = 1000: 5 events in one replication of
        // five; the Student-t interval 2.5e-6 ± 7.1e-6 went below 0.
        let c = [
            (5, 393_000),
            (0, 393_000),
            (0, 393_000),
            (0, 393_000),
            (0, 393_000),
        ];
        let v: Vec<f64> = c.iter().map(|&(x, n)| x as f64 / n as f64).collect();
        let e = estimate(MetricKind::Proportion, &v, Some(&c), None, 0.95).unwrap();
        assert_eq!(e.kind, IntervalKind::Wilson);
        assert!(e.lo.unwrap() > 0.0 && e.lo.unwrap() < e.mean && e.hi.unwrap() > e.mean);
        // The design effect widens the interval beyond Wilson's on 1,965,000
        // independent trials.
        let (_, hi_iid) = wilson(5.0, 1_965_000.0, z_quantile(0.95));
        assert!(e.hi.unwrap() > hi_iid);
        // No event: 0 with the upper bound, not 0 ± 0.
        let c = [(0, 1_000_000), (0, 1_000_000)];
        let e = estimate(MetricKind::Proportion, &[0.0, 0.0], Some(&c), None, 0.95).unwrap();
        assert_eq!(e.kind, IntervalKind::UpperBound);
        assert!(close(e.hi.unwrap(), 1.4979e-6, 1e-9));
        // A fraction's Student-t interval is cut at 0.
        let e = estimate(MetricKind::Fraction, &[0.0, 0.0, 1e-4], None, None, 0.95).unwrap();
        assert_eq!(e.kind, IntervalKind::Clipped);
        assert_eq!(e.lo, Some(0.0));
        let e = estimate(MetricKind::Fraction, &[0.0, 0.0], None, None, 0.95).unwrap();
        assert_eq!(e.kind, IntervalKind::NoneSeen);
    }

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
