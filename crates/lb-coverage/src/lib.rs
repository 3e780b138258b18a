//! # lb-coverage — whether lb's intervals hold their level
//!
//! At a point
//! whose exact answer is known, the whole interval procedure is repeated on
//! independent macro-replications — macro-replication m reads replications
//! m·k … (m + 1)·k − 1 of the point, which lb seeds independently and
//! computes deterministically — and the coverage is the fraction of them
//! whose interval contains the exact value, reported with its own
//! Clopper–Pearson interval.
//!
//! A macro-replication that lb would refuse to read — a replication judged
//! unstable, or runs that have not settled ([`lb_model::settle`]) — is
//! counted apart ("not settled"), as the audit counts it: such an interval
//! is never printed as a bare number, so it cannot mislead. Coverage is over
//! the macro-replications lb would print.
//!
//! The interval kinds: Student-t over k replications; batch means within
//! one run (`batch_means` of lb-analysis's `stats`, when the run's trace is the
//! metric's own time series); Wilson over k replications' pooled events,
//! with the effective-trials correction ([`lb_analysis::stats::estimate`]); and
//! the interval at which the precision rule stops (sequential: the rule
//! looks at min, min + step, … replications and stops when the relative
//! half-width is met).

use lb_analysis::metric::Metric;
use lb_analysis::results::PointResult;
use lb_analysis::stats::{MetricKind, batch_means_at, estimate};
use lb_model::Summary;
use lb_model::precision::{
    Decision, Outcome, PrecisionRule, RuleControl, decide, decide_paired, interval,
};
use lb_model::settle::Settling;
pub use lb_stats::proportion::{clopper_pearson, clopper_pearson_real};
use serde::{Deserialize, Serialize};

/// An interval procedure whose coverage is measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Procedure {
    /// Student-t over `per` replications.
    StudentT {
        /// Replications a macro-replication reads.
        per: usize,
    },
    /// Batch means within one replication's run.
    BatchMeans,
    /// Batch means read on the independence test's own batches (16–64),
    /// as lb read them before the certificate (lb-analysis's `stats::INTERVAL_BATCHES`).
    BatchMeansTestBatches,
    /// Wilson on the events of `per` replications (a proportion).
    Wilson {
        /// Replications a macro-replication reads.
        per: usize,
    },
    /// Wilson as lb computed it before the certificate: the design effect
    /// held at 1 or more ([`lb_analysis::stats::effective_trials_floored`]).
    WilsonFloored {
        /// Replications a macro-replication reads.
        per: usize,
    },
    /// Clopper–Pearson on the events of `per` replications (a proportion),
    /// on the effective trials of [`lb_analysis::stats::estimate`].
    ClopperPearson {
        /// Replications a macro-replication reads.
        per: usize,
    },
    /// The interval at which the precision rule stops, on up to `max`
    /// replications.
    PrecisionStopped {
        /// The rule, as a manifest states it.
        rule: PrecisionRule,
    },
    /// Stein's two-stage procedure on the precision rule's target: the
    /// first `min` replications give the variance s₀² and the mean m₀, the
    /// run takes n = ⌈(t·s₀/(r·|m₀|))²⌉ replications (rounded up to a look
    /// of the rule, at most `max`), and the interval is the n replications'
    /// mean ± t_{min−1}·s₀/√n — exact for normal data, as the mean of n
    /// is independent of s₀ (Stein 1945). The sequential rule's looks are
    /// not, which is what makes it under-cover. With `stein` false, the
    /// same n but the Student-t interval of the n replications — what lb's
    /// tables print at a point whatever rule chose its replications.
    ///
    /// With `chosen_by`, n is chosen on that metric's first stage (the rule's
    /// own), and the certified metric is another column at the point, as the
    /// tables' other columns are: Stein's interval of it reads its own
    /// first-stage s₀, still exact for normal data — the sample mean vector
    /// of the first stage is independent of its sample covariance matrix, so
    /// given that matrix (which fixes n) the mean of n is N(μ, σ²/n) and
    /// independent of s₀.
    TwoStage {
        /// The rule whose first stage chooses n.
        rule: PrecisionRule,
        /// Stein's interval (true) or Student-t on the same n (false).
        stein: bool,
        /// The metric whose first stage chooses n, where it is not the
        /// certified one.
        chosen_by: Option<String>,
    },
    /// A control variate (Lavenberg and Welch) on `per` pairs: β = 1, or
    /// fitted by least squares ([`lb_analysis::stats::control_variate`]).
    ControlVariate {
        /// Pairs a macro-replication reads.
        per: usize,
        /// β fitted by least squares (true) or 1 (false).
        fitted: bool,
    },
    /// A candidate, measured and not adopted: Willink's skewness-adjusted
    /// interval ([`lb_stats::skew::willink`]) over `per` replications, the
    /// skewness of a replication mean read off their batch means
    /// ([`lb_stats::skew::replication_skewness`]).
    SkewT {
        /// Replications a macro-replication reads.
        per: usize,
    },
    /// A candidate: the precision rule's replications (its pilot chooses
    /// n as for [`Procedure::PrecisionStopped`]) read with Willink's
    /// interval.
    SkewPrecision {
        /// The rule whose pilot chooses n.
        rule: PrecisionRule,
    },
}

/// A procedure as a certificate entry or `lb coverage --procedures` names
/// it: the one place its word is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcedureWord {
    /// `t`: Student-t over `per` replications.
    T,
    /// `t-skew`: Willink's skew-adjusted Student-t.
    TSkew,
    /// `bm`: batch means within one run.
    Bm,
    /// `bm-test-batches`: batch means on the independence test's batches.
    BmTestBatches,
    /// `wilson`.
    Wilson,
    /// `wilson-floored`: Wilson with the design effect held at 1 or more.
    WilsonFloored,
    /// `cp`: Clopper–Pearson.
    Cp,
    /// `cv-one`: a control variate with β = 1.
    CvOne,
    /// `cv-fitted`: a control variate with β fitted.
    CvFitted,
    /// `precision`: the interval at which the precision rule stops.
    Precision,
    /// `precision-skew`: the precision rule's replications read with
    /// Willink's interval.
    PrecisionSkew,
    /// `two-stage`: Stein's two-stage procedure.
    TwoStage,
    /// `two-stage-t`: Stein's n read with Student-t.
    TwoStageT,
    /// `sequential`: the precision rule, sequential.
    Sequential,
    /// `stein`: the precision rule, Stein's.
    Stein,
}

impl ProcedureWord {
    /// Every word, as written.
    pub const ALL: [(&'static str, ProcedureWord); 15] = [
        ("t", ProcedureWord::T),
        ("t-skew", ProcedureWord::TSkew),
        ("bm", ProcedureWord::Bm),
        ("bm-test-batches", ProcedureWord::BmTestBatches),
        ("wilson", ProcedureWord::Wilson),
        ("wilson-floored", ProcedureWord::WilsonFloored),
        ("cp", ProcedureWord::Cp),
        ("cv-one", ProcedureWord::CvOne),
        ("cv-fitted", ProcedureWord::CvFitted),
        ("precision", ProcedureWord::Precision),
        ("precision-skew", ProcedureWord::PrecisionSkew),
        ("two-stage", ProcedureWord::TwoStage),
        ("two-stage-t", ProcedureWord::TwoStageT),
        ("sequential", ProcedureWord::Sequential),
        ("stein", ProcedureWord::Stein),
    ];

    /// As written.
    pub fn word(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, w)| *w == self)
            .map_or("?", |(s, _)| s)
    }
}

impl std::str::FromStr for ProcedureWord {
    type Err = String;
    fn from_str(s: &str) -> Result<ProcedureWord, String> {
        Self::ALL
            .iter()
            .find(|(w, _)| *w == s)
            .map(|(_, p)| *p)
            .ok_or_else(|| format!("unknown \"{s}\""))
    }
}

/// A procedure's family, as a coverage entry records it (its word is the
/// certificate's `kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Student-t over replications.
    StudentT,
    /// Batch means within one run.
    BatchMeans,
    /// Batch means on the independence test's batches (before the certificate).
    BatchMeansTestBatches,
    /// Wilson on pooled events.
    Wilson,
    /// Wilson with the design effect held at 1 or more (before the certificate).
    WilsonFloored,
    /// Clopper–Pearson on pooled events.
    ClopperPearson,
    /// The interval at which a precision rule stops.
    PrecisionRule,
    /// Stein's two-stage interval (a candidate).
    TwoStageStein,
    /// Stein's n read with Student-t (a candidate).
    TwoStageT,
    /// A control variate with β = 1.
    ControlBetaOne,
    /// A control variate with β fitted.
    ControlFitted,
    /// Willink's skew-adjusted Student-t (a candidate).
    SkewT,
    /// A precision rule's replications read with Willink's interval (a candidate).
    SkewPrecision,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 13] = [
        Kind::StudentT,
        Kind::BatchMeans,
        Kind::BatchMeansTestBatches,
        Kind::Wilson,
        Kind::WilsonFloored,
        Kind::ClopperPearson,
        Kind::PrecisionRule,
        Kind::TwoStageStein,
        Kind::TwoStageT,
        Kind::ControlBetaOne,
        Kind::ControlFitted,
        Kind::SkewT,
        Kind::SkewPrecision,
    ];

    /// In words, as the certificate prints it and its records store it.
    pub fn word(self) -> &'static str {
        match self {
            Kind::StudentT => "Student-t",
            Kind::BatchMeans => "batch means",
            Kind::BatchMeansTestBatches => "batch means, 16–64 batches",
            Kind::Wilson => "Wilson",
            Kind::WilsonFloored => "Wilson, design effect ≥ 1 (before)",
            Kind::ClopperPearson => "Clopper–Pearson",
            Kind::PrecisionRule => "precision rule",
            Kind::TwoStageStein => "two-stage precision rule",
            Kind::TwoStageT => "two-stage n, Student-t",
            Kind::ControlBetaOne => "control variate, β = 1",
            Kind::ControlFitted => "control variate, β fitted",
            Kind::SkewT => "Student-t, skew-adjusted",
            Kind::SkewPrecision => "precision rule, skew-adjusted",
        }
    }

    /// A candidate: a correction measured beside what lb prints and not
    /// adopted (the two-stage procedures, the skewness adjustment).
    /// Candidates are kept out of the counts.
    pub fn is_candidate(self) -> bool {
        self.is_two_stage() || self.skew_of().is_some()
    }

    /// Stein's two-stage procedure, or its n read with Student-t.
    pub fn is_two_stage(self) -> bool {
        matches!(self, Kind::TwoStageStein | Kind::TwoStageT)
    }

    /// Batch means within one run (the settling diagnostic), on either
    /// batching.
    pub fn is_batch_means(self) -> bool {
        matches!(self, Kind::BatchMeans | Kind::BatchMeansTestBatches)
    }

    /// For a kind that is itself a before (a form lb computed by default
    /// before the certificate, kept as an option at most), the kind that
    /// replaced it.
    pub fn after(self) -> Option<Kind> {
        match self {
            Kind::BatchMeansTestBatches => Some(Kind::BatchMeans),
            Kind::WilsonFloored => Some(Kind::Wilson),
            // β = 1 is an option since the fitted β became the default.
            Kind::ControlBetaOne => Some(Kind::ControlFitted),
            _ => None,
        }
    }

    /// The printed kind a skew-adjusted candidate would replace.
    pub fn skew_of(self) -> Option<Kind> {
        match self {
            Kind::SkewT => Some(Kind::StudentT),
            Kind::SkewPrecision => Some(Kind::PrecisionRule),
            _ => None,
        }
    }
}

/// A coverage record stores a kind as its word ([`Kind::word`]).
impl Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.word())
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Kind, D::Error> {
        let w = String::deserialize(d)?;
        Kind::ALL
            .into_iter()
            .find(|k| k.word() == w)
            .ok_or_else(|| serde::de::Error::custom(format!("no procedure kind is called \"{w}\"")))
    }
}

/// The suffix of the skew-adjusted procedures' names.
const SKEW: &str = ", skew-adjusted";

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}

impl Procedure {
    /// Its kind, short (the certificate's figures group by it).
    pub fn kind(&self) -> Kind {
        match self {
            Procedure::StudentT { .. } => Kind::StudentT,
            Procedure::BatchMeans => Kind::BatchMeans,
            Procedure::BatchMeansTestBatches => Kind::BatchMeansTestBatches,
            Procedure::Wilson { .. } => Kind::Wilson,
            Procedure::WilsonFloored { .. } => Kind::WilsonFloored,
            Procedure::ClopperPearson { .. } => Kind::ClopperPearson,
            Procedure::PrecisionStopped { .. } => Kind::PrecisionRule,
            Procedure::TwoStage { stein: true, .. } => Kind::TwoStageStein,
            Procedure::TwoStage { stein: false, .. } => Kind::TwoStageT,
            Procedure::ControlVariate { fitted: false, .. } => Kind::ControlBetaOne,
            Procedure::ControlVariate { fitted: true, .. } => Kind::ControlFitted,
            Procedure::SkewT { .. } => Kind::SkewT,
            Procedure::SkewPrecision { .. } => Kind::SkewPrecision,
        }
    }

    /// Replications one macro-replication reads.
    pub fn per(&self) -> usize {
        match self {
            Procedure::StudentT { per }
            | Procedure::Wilson { per }
            | Procedure::WilsonFloored { per }
            | Procedure::ClopperPearson { per }
            | Procedure::ControlVariate { per, .. }
            | Procedure::SkewT { per } => *per,
            Procedure::BatchMeans | Procedure::BatchMeansTestBatches => 1,
            Procedure::PrecisionStopped { rule } | Procedure::SkewPrecision { rule } => {
                rule.most() as usize
            }
            Procedure::TwoStage { rule, .. } => rule.max as usize,
        }
    }

    /// In words.
    pub fn name(&self) -> String {
        match self {
            Procedure::StudentT { per } => format!("Student-t, {per} replications"),
            Procedure::BatchMeans => "batch means, one run".into(),
            Procedure::BatchMeansTestBatches => {
                "batch means, one run, on 16–64 batches (before)".into()
            }
            Procedure::Wilson { per } => format!("Wilson, {per} replications"),
            Procedure::WilsonFloored { per } => {
                format!("Wilson, {per} replications, design effect ≥ 1 (before)")
            }
            Procedure::ClopperPearson { per } => {
                format!("Clopper–Pearson, {per} replications")
            }
            Procedure::TwoStage {
                rule,
                stein,
                chosen_by,
            } => format!(
                "two-stage precision rule ±{}% (first stage {}, looks +{}, ≤ {}){}{}",
                100.0 * rule.rel_half_width,
                rule.min,
                rule.step,
                rule.max,
                match chosen_by {
                    Some(by) => format!(", n chosen on {by}"),
                    None => String::new(),
                },
                if *stein { "" } else { ", Student-t on its n" }
            ),
            Procedure::ControlVariate { per, fitted } => format!(
                "control variate, β {}, {per} pairs",
                if *fitted { "fitted" } else { "= 1" }
            ),
            Procedure::PrecisionStopped { rule } if rule.control.is_some() => format!(
                "{}, control {}",
                Procedure::PrecisionStopped {
                    rule: PrecisionRule {
                        control: None,
                        also: Vec::new(),
                        ..rule.clone()
                    }
                }
                .name(),
                rule.control.as_ref().map_or("", |c| c.mean.as_str())
            ),
            Procedure::PrecisionStopped { rule } => match rule.procedure {
                lb_model::precision::Procedure::Sequential => format!(
                    "precision rule ±{}% (replications {}, +{}, ≤ {})",
                    100.0 * rule.rel_half_width,
                    rule.min,
                    rule.step,
                    rule.max
                ),
                lb_model::precision::Procedure::Pilot => format!(
                    "precision rule ±{}% (pilot of {}, then {} + {}k, ≤ {})",
                    100.0 * rule.rel_half_width,
                    rule.min,
                    rule.min,
                    rule.step,
                    rule.max
                ),
                lb_model::precision::Procedure::Stein => format!(
                    "precision rule ±{}% (Stein: first stage {} of its own, then {} + {}k, ≤ {})",
                    100.0 * rule.rel_half_width,
                    rule.min,
                    rule.min,
                    rule.step,
                    rule.max
                ),
            },
            Procedure::SkewT { per } => format!("Student-t, {per} replications{SKEW}"),
            Procedure::SkewPrecision { rule } => format!(
                "{}{SKEW}",
                Procedure::PrecisionStopped { rule: rule.clone() }.name()
            ),
        }
    }
}

/// The coverage of one procedure at one point.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Coverage {
    /// The policy at the point.
    pub policy: String,
    /// The point's axis values, in words.
    pub at: String,
    /// The point's load (the bottleneck's, in a network): the x of the
    /// certificate's figure.
    pub load: f64,
    /// The metric certified.
    pub metric: String,
    /// The procedure in words ([`Procedure::name`]).
    pub procedure: String,
    /// [`Procedure::kind`].
    pub kind: Kind,
    /// The nominal level of the intervals.
    pub level: f64,
    /// The exact value the intervals are held to.
    pub exact: f64,
    /// Macro-replications lb would print (settled, stable).
    pub macros: usize,
    /// Of them, whose interval contains the exact value.
    pub covered: usize,
    /// Whose interval lies wholly above the exact value: a bound claim
    /// "metric ≥ exact" set at the truth is confirmed there (the audit's
    /// error, at rate about (1 − level)/2).
    pub above: usize,
    /// Whose interval lies wholly below it.
    pub below: usize,
    /// Macro-replications lb refuses to read (not settled, unstable).
    pub unsettled: usize,
    /// The 95% Clopper–Pearson interval of the coverage.
    pub coverage_interval: (f64, f64),
    /// Mean half-width of the printed intervals (0 when none was).
    pub mean_half_width: f64,
    /// Mean replications a macro-replication read (the precision rule stops
    /// early).
    pub mean_replications: f64,
    /// (macro-replications, of them covering) with the settling rule off:
    /// every macro-replication whose interval can be computed, settled or
    /// not. Beside `covered`/`macros` it shows whether leaving out what
    /// has not settled biases what lb prints. Absent in records written
    /// before it was counted.
    pub ungated: Option<(usize, usize)>,
    /// The same printed macro-replications read again at higher levels
    /// ([`read_levels`]): how often the wider interval covers, lies wholly
    /// above and wholly below. What a decision read at that level would
    /// refute, the same runs and n (the precision rule's n is its pilot's,
    /// at its own level). Empty in records written before it was counted,
    /// and for procedures whose level also chooses n (the two-stage ones).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_at: Vec<ReadAt>,
}

/// One procedure's printed macro-replications read at another level
/// ([`Coverage::read_at`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ReadAt {
    /// The level read at.
    pub level: f64,
    /// Macro-replications whose interval contains the exact value.
    pub covered: usize,
    /// Whose interval lies wholly above it.
    pub above: usize,
    /// Whose interval lies wholly below it.
    pub below: usize,
}

/// The levels the certificate reads its nominal-level macro-replications at
/// again, to calibrate a decision level: 1 − f·α for f = 0.9, 0.8, …, 0.4
/// of the nominal α = 1 − `level` (95%: 95.5%, 96%, …, 98%).
pub fn read_levels(level: f64) -> Vec<f64> {
    let alpha = 1.0 - level;
    [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]
        .iter()
        .map(|f| 1.0 - f * alpha)
        .collect()
}

impl Coverage {
    /// The rate at which the audit refutes a value claim of the exact value
    /// with no tolerance (its interval misses the truth), and the rate at
    /// which it confirms a bound set exactly at the truth, "metric > exact"
    /// or "metric < exact" (the worse side).
    pub fn audit_errors(&self) -> (f64, f64) {
        let n = self.macros.max(1) as f64;
        (
            (self.above + self.below) as f64 / n,
            self.above.max(self.below) as f64 / n,
        )
    }

    /// The fraction of printed macro-replications that cover (0 where none
    /// was printed).
    pub fn coverage(&self) -> f64 {
        if self.macros == 0 {
            f64::NAN
        } else {
            self.covered as f64 / self.macros as f64
        }
    }
}

/// A control's point, its replications paired with a macro-replication's,
/// and its exact mean.
type Paired<'a> = (&'a PointResult, &'a [Summary], f64);

/// One macro-replication's interval (lo, hi, n), read on the group's first
/// n replications, or None when it has none (undefined, the batch means
/// correlated, the rule undecided). Whether lb would print it — those n
/// replications settled — is the caller's [`settled`].
fn one(
    p: &Procedure,
    m: Metric,
    r: &PointResult,
    (group, control): (&[Summary], Option<Paired<'_>>),
    level: f64,
) -> Option<(f64, f64, usize)> {
    let point = r.point.as_ref()?;
    match p {
        Procedure::StudentT { .. } => {
            let xs: Option<Vec<f64>> = group.iter().map(|s| m.value(point, s)).collect();
            let iv = interval(&xs?, level);
            Some((
                iv.mean - iv.half_width,
                iv.mean + iv.half_width,
                group.len(),
            ))
        }
        Procedure::BatchMeans | Procedure::BatchMeansTestBatches => {
            let s = &group[0];
            let bm = batch_means_at(s.trace(), level);
            if !bm.independent {
                return None;
            }
            // The trace is the metric's own series ([`lb_model::Model::trace_metric`],
            // checked before anything runs); its batch means are read on a
            // grid of events or slots, so their mean is the estimate.
            let iv = if *p == Procedure::BatchMeansTestBatches {
                let (b, _, _) = lb_core::stability::merged_batch_means(s.trace());
                lb_model::precision::interval(&b, level)
            } else {
                bm.interval
            };
            Some((iv.mean - iv.half_width, iv.mean + iv.half_width, 1))
        }
        Procedure::Wilson { .. } => {
            let xs: Option<Vec<f64>> = group.iter().map(|s| m.value(point, s)).collect();
            let cs: Option<Vec<(u64, u64)>> = group.iter().map(|s| s.counts(m.name())).collect();
            let e = estimate(MetricKind::Proportion, &xs?, cs.as_deref(), None, level)?;
            Some((e.lo?, e.hi?, group.len()))
        }
        Procedure::WilsonFloored { .. } => {
            let xs: Option<Vec<f64>> = group.iter().map(|s| m.value(point, s)).collect();
            let cs: Option<Vec<(u64, u64)>> = group.iter().map(|s| s.counts(m.name())).collect();
            let (xs, cs) = (xs?, cs?);
            if cs.iter().all(|c| c.0 == 0) {
                // No events: the same one-sided bound as Wilson's.
                let e = estimate(MetricKind::Proportion, &xs, Some(&cs), None, level)?;
                return Some((e.lo?, e.hi?, group.len()));
            }
            let (p, n) = lb_analysis::stats::effective_trials_floored(&cs, level)?;
            let (lo, hi) =
                lb_analysis::stats::wilson(p * n, n, lb_analysis::stats::z_quantile(level));
            Some((lo, hi, group.len()))
        }
        Procedure::ClopperPearson { .. } => {
            let xs: Option<Vec<f64>> = group.iter().map(|s| m.value(point, s)).collect();
            let cs: Option<Vec<(u64, u64)>> = group.iter().map(|s| s.counts(m.name())).collect();
            xs?;
            // The effective trials of Wilson's interval, held to the exact
            // binomial (beta) quantiles instead.
            let (p, n) = lb_analysis::stats::effective_trials(&cs?, level)?;
            let (lo, hi) = clopper_pearson_real(p * n, n, level);
            Some((lo, hi, group.len()))
        }
        Procedure::TwoStage {
            rule,
            stein,
            chosen_by,
        } => two_stage(rule, *stein, chosen_by.as_deref(), m, point, group, level),
        Procedure::ControlVariate { fitted, .. } => {
            let (cr, cgroup, exact) = control?;
            if cgroup.len() != group.len() {
                return None;
            }
            let cpoint = cr.point.as_ref()?;
            let xs: Option<Vec<f64>> = group.iter().map(|s| m.value(point, s)).collect();
            let ys: Option<Vec<f64>> = cgroup.iter().map(|s| m.value(cpoint, s)).collect();
            let (est, hw, _) =
                lb_analysis::stats::control_variate(&xs?, &ys?, exact, level, *fitted)?;
            Some((est - hw, est + hw, group.len()))
        }
        Procedure::SkewT { .. } => {
            let xs: Option<Vec<f64>> = group.iter().map(|s| m.value(point, s)).collect();
            let (lo, hi) = skew_adjusted(&xs?, group, level)?;
            Some((lo, hi, group.len()))
        }
        Procedure::SkewPrecision { rule } => {
            let (_, _, n) = one(
                &Procedure::PrecisionStopped { rule: rule.clone() },
                m,
                r,
                (group, control),
                level,
            )?;
            let xs: Option<Vec<f64>> = group[..n].iter().map(|s| m.value(point, s)).collect();
            let (lo, hi) = skew_adjusted(&xs?, &group[..n], level)?;
            Some((lo, hi, n))
        }
        Procedure::PrecisionStopped { rule } => {
            let o = precision_outcome(rule, group, control)?;
            let n = o.replications as usize;
            let iv = o.interval?;
            Some((iv.mean - iv.half_width, iv.mean + iv.half_width, n))
        }
    }
}

/// Stein's two-stage procedure by hand (`two-stage`), or with a plain
/// Student-t interval on the n it chose (`two-stage-t`): the first `min`
/// replications choose n from the relative target of `rule` (on the metric
/// `chosen_by` names, else `m`), rounded up to one of the rule's looks.
fn two_stage(
    rule: &lb_model::precision::PrecisionRule,
    stein: bool,
    chosen_by: Option<&str>,
    m: Metric,
    point: &lb_model::Point,
    group: &[Summary],
    level: f64,
) -> Option<(f64, f64, usize)> {
    let n0 = (rule.min as usize).max(2);
    let first: Option<Vec<f64>> = group[..n0].iter().map(|s| m.value(point, s)).collect();
    let first = first?;
    let iv0 = lb_model::precision::interval(&first, level);
    let var0 = first.iter().map(|x| (x - iv0.mean).powi(2)).sum::<f64>() / (n0 - 1) as f64;
    let sd0 = var0.sqrt();
    // t_{n0−1} at the level: the first stage's half-width over s₀/√n0.
    let t = if sd0 > 0.0 {
        iv0.half_width * (n0 as f64).sqrt() / sd0
    } else {
        0.0
    };
    // n from the first stage of the metric the rule reads.
    let rule_iv = match chosen_by {
        None => iv0,
        Some(by) => {
            let by = Metric::parse(m.model, by)?;
            let xs: Option<Vec<f64>> = group[..n0].iter().map(|s| by.value(point, s)).collect();
            lb_model::precision::interval(&xs?, level)
        }
    };
    let want = if rule_iv.mean != 0.0 {
        (rule_iv.half_width * rule_iv.half_width * n0 as f64
            / (rule.rel_half_width * rule_iv.mean).powi(2))
        .ceil() as usize
    } else {
        rule.max as usize
    };
    // Up to a look of the rule (min, min + step, …), at most max.
    let looks = rule.checkpoints();
    let n = looks
        .iter()
        .map(|&k| k as usize)
        .find(|&k| k >= want)
        .unwrap_or(rule.max as usize)
        .min(group.len());
    let xs: Option<Vec<f64>> = group[..n].iter().map(|s| m.value(point, s)).collect();
    let xs = xs?;
    if !stein {
        let iv = lb_model::precision::interval(&xs, level);
        return Some((iv.mean - iv.half_width, iv.mean + iv.half_width, n));
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    let hw = t * sd0 / (n as f64).sqrt();
    Some((mean - hw, mean + hw, n))
}

/// What the precision rule `rule` decides on a macro-replication: its
/// replications 0..max in `group`, then the pilot procedure's own (the
/// group's last `min`; none for the others). A rule with a control decides
/// with the control's replications of the same indices, as a manifest's
/// rule with `control` does; None without them, or undecided.
fn precision_outcome(
    rule: &PrecisionRule,
    group: &[Summary],
    control: Option<Paired<'_>>,
) -> Option<Outcome> {
    let max = rule.max as usize;
    let decision = match (&rule.control, control) {
        (None, _) => decide(rule, &group[..max], &group[max..]),
        (Some(_), None) => return None,
        (Some(c), Some((_, cgroup, exact))) => {
            let rule = PrecisionRule {
                control: Some(RuleControl { exact, ..c.clone() }),
                also: Vec::new(),
                ..rule.clone()
            };
            let paired = lb_model::precision::Paired {
                summaries: &cgroup[..max],
                pilot: &cgroup[max..],
            };
            decide_paired(&rule, &group[..max], &group[max..], Some(paired))
        }
    };
    match decision {
        Decision::Done(o) => Some(o),
        Decision::Need { .. } => None,
    }
}

/// The interval of `p` on a macro-replication already read at its own
/// level (n replications), read again at `level`: the same n. Not for the
/// two-stage procedures, whose level also chooses n ([`coverage`] reads
/// them at their own level only).
fn reread(
    p: &Procedure,
    m: Metric,
    r: &PointResult,
    (group, control): (&[Summary], Option<Paired<'_>>),
    n: usize,
    level: f64,
) -> Option<(f64, f64)> {
    match p {
        Procedure::TwoStage { .. } => unreachable!("a two-stage procedure is not read again"),
        // The rule's n stands; its n replications' interval at the other
        // level (Stein's, on the first stage, for Stein's rule).
        Procedure::PrecisionStopped { rule } => {
            let point = r.point.as_ref()?;
            let xs: Option<Vec<f64>> = group[..n].iter().map(|s| m.value(point, s)).collect();
            let xs = xs?;
            // Paired with its control: the control-variate interval of the
            // same n pairs (Stein's form under Stein's rule).
            if let Some((cr, cgroup, exact)) = control
                && precision_outcome(rule, group, control).is_some_and(|o| o.paired)
            {
                let cpoint = cr.point.as_ref()?;
                let cs: Option<Vec<f64>> = cgroup[..n].iter().map(|s| m.value(cpoint, s)).collect();
                let (est, hw, _) = lb_model::precision::control_variate_of(
                    &xs,
                    &cs?,
                    exact,
                    rule.first_stage(),
                    level,
                    true,
                )?;
                return Some((est - hw, est + hw));
            }
            let iv = lb_model::precision::interval_of(&xs, rule.first_stage(), level);
            Some((iv.mean - iv.half_width, iv.mean + iv.half_width))
        }
        _ => one(p, m, r, (group, control), level).map(|(lo, hi, _)| (lo, hi)),
    }
}

/// Willink's interval of `xs`, the metric's values of the runs `group`,
/// whose traces are the metric's own series (checked before anything
/// runs): the skewness of a replication mean read off their batch means.
fn skew_adjusted(xs: &[f64], group: &[Summary], level: f64) -> Option<(f64, f64)> {
    let traces: Vec<&[f64]> = group.iter().map(|s| s.trace()).collect();
    let g = lb_stats::skew::replication_skewness(&traces)?;
    lb_stats::skew::willink(xs, g, level)
}

/// Whether lb would print an interval read on `ss`: every run stable and
/// the runs settled ([`Settling`]).
fn settled(ss: &[Summary]) -> bool {
    Settling::of(ss).settled() && ss.iter().all(|s| s.stable())
}

/// The coverage of `p` at the point `r` against its exact value `exact`,
/// over its first `macros` macro-replications (fewer if its replications
/// hold fewer whole ones).
pub fn coverage(
    p: &Procedure,
    m: Metric,
    r: &PointResult,
    exact: f64,
    (level, macros_wanted): (f64, usize),
    control: Option<(&PointResult, f64)>,
    read_levels: &[f64],
) -> Coverage {
    let sorted = |r: &PointResult| {
        let mut ss: Vec<Summary> = r.summaries.clone();
        ss.sort_by_key(|s| s.replication());
        ss
    };
    let ss = sorted(r);
    let cs = control.map(|(c, _)| sorted(c)).unwrap_or_default();
    let per = p.per().max(1);
    let (mut macros, mut covered, mut unsettled) = (0, 0, 0);
    let (mut above, mut below) = (0, 0);
    let (mut hw, mut reps) = (0.0, 0usize);
    let (mut all, mut all_covered) = (0usize, 0usize);
    // The two-stage procedures' level also chooses n: not read again.
    let read_levels = match p {
        Procedure::TwoStage { .. } => &[][..],
        _ => read_levels,
    };
    let mut read_at: Vec<ReadAt> = read_levels
        .iter()
        .map(|&level| ReadAt {
            level,
            covered: 0,
            above: 0,
            below: 0,
        })
        .collect();
    for (i, group) in ss.chunks_exact(per).take(macros_wanted).enumerate() {
        // The control's replications of the same indices (common random
        // numbers pair them).
        let paired = control.and_then(|(c, exact)| {
            let g = cs.get(i * per..(i + 1) * per)?;
            let aligned = g
                .iter()
                .zip(group)
                .all(|(a, b)| a.replication() == b.replication());
            aligned.then_some((c, g, exact))
        });
        let Some((lo, hi, n)) = one(p, m, r, (group, paired), level) else {
            unsettled += 1;
            continue;
        };
        all += 1;
        all_covered += usize::from(lo <= exact && exact <= hi);
        // A control variate reads the control's runs too (a precision rule
        // with one, the same n).
        let control_settled = match (p, paired) {
            (Procedure::ControlVariate { .. }, Some((_, g, _))) => settled(g),
            (Procedure::PrecisionStopped { rule }, Some((_, g, _))) if rule.control.is_some() => {
                settled(&g[..n])
            }
            _ => true,
        };
        if settled(&group[..n]) && control_settled {
            macros += 1;
            covered += usize::from(lo <= exact && exact <= hi);
            above += usize::from(lo > exact);
            below += usize::from(hi < exact);
            hw += (hi - lo) / 2.0;
            reps += n;
            for at in &mut read_at {
                // An interval read at the nominal level can be read at
                // another (none is computed that could not be).
                if let Some((lo, hi)) = reread(p, m, r, (group, paired), n, at.level) {
                    at.covered += usize::from(lo <= exact && exact <= hi);
                    at.above += usize::from(lo > exact);
                    at.below += usize::from(hi < exact);
                }
            }
        } else {
            unsettled += 1;
        }
    }
    Coverage {
        policy: r.label.clone(),
        load: r.point.as_ref().map_or(0.0, |p| p.config.load()),
        at: r
            .axes
            .iter()
            .map(|(a, v)| format!("{a}={v}"))
            .collect::<Vec<_>>()
            .join(" "),
        metric: m.name().to_string(),
        procedure: p.name(),
        kind: p.kind(),
        level,
        exact,
        macros,
        covered,
        above,
        below,
        unsettled,
        coverage_interval: clopper_pearson(covered, macros, 0.95),
        mean_half_width: if macros > 0 { hw / macros as f64 } else { 0.0 },
        mean_replications: if macros > 0 {
            reps as f64 / macros as f64
        } else {
            0.0
        },
        ungated: Some((all, all_covered)),
        read_at,
    }
}

/// The coverages as a Markdown table.
pub fn markdown(all: &[Coverage]) -> String {
    use std::fmt::Write as _;
    let mut s = String::from(
        "| policy | at | metric | procedure | level | exact | macro-replications | coverage (95% CP) | not \
         settled | mean half-width | mean replications | true value refuted | bound at the truth \
         confirmed |\n| --- | --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | \
         ---: | ---: |\n",
    );
    for c in all {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {}% | {} | {} | {:.1}% [{:.1}, {:.1}] | {} | {} | {:.1} | {:.1}% | \
             {:.1}% |",
            c.policy,
            c.at,
            c.metric,
            c.procedure,
            100.0 * c.level,
            lb_analysis::table::fmt_sig(c.exact, 5),
            c.macros,
            100.0 * c.coverage(),
            100.0 * c.coverage_interval.0,
            100.0 * c.coverage_interval.1,
            c.unsettled,
            lb_analysis::table::fmt_sig(c.mean_half_width, 3),
            c.mean_replications,
            100.0 * c.audit_errors().0,
            100.0 * c.audit_errors().1
        );
    }
    s
}

/// The coverages as CSV, one row per (point, procedure), numbers as numbers
/// (fractions, not percentages).
pub fn csv(all: &[Coverage]) -> polars::prelude::PolarsResult<String> {
    use polars::prelude::{Column, DataFrame};
    let text = |name: &str, f: &dyn Fn(&Coverage) -> String| {
        Column::new(name.into(), all.iter().map(f).collect::<Vec<String>>())
    };
    let num = |name: &str, f: &dyn Fn(&Coverage) -> f64| {
        Column::new(name.into(), all.iter().map(f).collect::<Vec<f64>>())
    };
    let count = |name: &str, f: &dyn Fn(&Coverage) -> u64| {
        Column::new(name.into(), all.iter().map(f).collect::<Vec<u64>>())
    };
    let df = DataFrame::new_infer_height(vec![
        text("policy", &|c| c.policy.clone()),
        text("at", &|c| c.at.clone()),
        num("load", &|c| c.load),
        text("metric", &|c| c.metric.clone()),
        text("procedure", &|c| c.procedure.clone()),
        num("level", &|c| c.level),
        num("exact", &|c| c.exact),
        count("macros", &|c| c.macros as u64),
        count("covered", &|c| c.covered as u64),
        num("coverage", &|c| c.coverage()),
        num("coverage_lo", &|c| c.coverage_interval.0),
        num("coverage_hi", &|c| c.coverage_interval.1),
        count("unsettled", &|c| c.unsettled as u64),
        num("mean_half_width", &|c| c.mean_half_width),
        num("mean_replications", &|c| c.mean_replications),
        num("true_value_refuted", &|c| c.audit_errors().0),
        num("bound_at_truth_confirmed", &|c| c.audit_errors().1),
    ])?;
    lb_analysis::table::csv(&df)
}

/// A figure of the certificate: coverage (%) against the point's load, one
/// series per name in `rows` (its coverages in load order), each with its
/// Clopper–Pearson interval, and the nominal 95% with the acceptance band
/// 93–97% drawn, on a y axis from `y_floor` to 100%. Coverage below the
/// axis is marked at its edge with its value.
pub fn figure(
    (name, title, caption): (&str, &str, &str),
    rows: &[(String, &Coverage)],
    y_floor: f64,
) -> lb_analysis::figure::Figure {
    use lb_analysis::figure::{Dot, FigureSpec, RefDrawn, RefShape, Series};
    use lb_analysis::stats::{Estimate, IntervalKind};
    let mut series: Vec<Series> = Vec::new();
    for (label, c) in rows {
        if c.macros == 0 {
            continue;
        }
        let dot = Dot {
            // The distance from capacity, on a log axis: heavy traffic down
            // to 1 − ρ = 0.001 spreads out as the heavy-traffic figures' ε does.
            x: 1.0 - c.load,
            est: Estimate {
                mean: 100.0 * c.coverage(),
                lo: Some(100.0 * c.coverage_interval.0),
                hi: Some(100.0 * c.coverage_interval.1),
                kind: IntervalKind::Wilson,
                n: c.macros,
                events: Some((c.covered as u64, c.macros as u64)),
            },
            stable: true,
            settled: true,
            key: String::new(),
        };
        match series.iter_mut().find(|s| &s.name == label) {
            Some(s) => s.dots.push(dot),
            None => series.push(Series {
                name: label.clone(),
                policy: label.clone(),
                variant: String::new(),
                dots: vec![dot],
            }),
        }
    }
    for s in &mut series {
        s.dots.sort_by(|a, b| a.x.total_cmp(&b.x));
    }
    let spec = FigureSpec {
        name: name.into(),
        title: title.into(),
        kind: lb_manifest::outputs::FigureKind::Lines,
        x: "load".into(),
        x_label: "1 − ρ, the distance from capacity (ρ the load; the bottleneck's in a network)"
            .into(),
        y: None,
        y_label: "Coverage (%), with its 95% Clopper–Pearson interval".into(),
        series: vec![],
        filter: vec![],
        policies: vec![],
        log_x: true,
        log_y: false,
        y_range: Some([y_floor, 100.0]),
        difference: None,
        references: vec![],
        paths: 0,
        caption: caption.into(),
        claim: None,
    };
    lb_analysis::figure::Figure {
        spec,
        series,
        references: vec![RefDrawn {
            label: "nominal 95% (band 93–97%)".into(),
            band: Some(2.0 / 95.0),
            shape: RefShape::Constant(95.0),
        }],
        paths: vec![],
    }
}

/// One entry of the certificate as the report reads it: its label, and its
/// coverages (None: no record at the entry's current key yet).
pub struct EntryView {
    /// The entry's label in the certificate.
    pub label: String,
    /// A setting shown failing, kept out of the verdict (the "before").
    pub before: bool,
    /// The manifest whose points it certifies.
    pub manifest: String,
    /// Its coverages, one per procedure and point.
    pub coverages: Option<Vec<Coverage>>,
    /// The replications its record read, and the CPU seconds they took.
    pub replications: usize,
    /// The CPU seconds they took.
    pub cpu_seconds: f64,
}

/// The CPU seconds a rerun of the certificate computes: every entry on one
/// manifest reads replications 0..macros·per of the same points (macro-
/// replication m reads m·per … (m + 1)·per − 1, its pilot included), so one
/// entry's are a prefix of another's, and the manifest counts once, at its
/// record that read the most. (Each record sums its own replications' times,
/// so the sum over entries would count shared replications once per entry.)
pub(crate) fn rerun_cpu_seconds(entries: &[EntryView]) -> f64 {
    let mut most: std::collections::BTreeMap<&str, (usize, f64)> = Default::default();
    for e in entries {
        let m = most.entry(e.manifest.as_str()).or_insert((0, 0.0));
        if e.replications > m.0 {
            *m = (e.replications, e.cpu_seconds);
        }
    }
    most.values().map(|m| m.1).sum()
}

/// Renders a figure into `dir/<name>.{svg,png}` (written only if changed).
fn render_into(
    dir: &std::path::Path,
    fig: &lb_analysis::figure::Figure,
) -> Result<Vec<std::path::PathBuf>, Box<dyn std::error::Error>> {
    let scratch = std::env::temp_dir().join(format!(
        "lb-fig-{}-coverage-{}",
        std::process::id(),
        fig.spec.name
    ));
    lb_analysis::figure::render(fig, &scratch)?;
    let mut files = Vec::new();
    for ext in ["svg", "png", "pdf"] {
        let from = scratch.with_extension(ext);
        let to = dir.join(&fig.spec.name).with_extension(ext);
        let body = std::fs::read(&from)?;
        std::fs::remove_file(&from)?;
        lb_analysis::files::write_if_changed(&to, &body)?;
        files.push(to);
    }
    Ok(files)
}

/// A precision rule's first look, in words (" with a first look at 4"):
/// two rules at one point differ by it.
fn first_look(c: &Coverage) -> String {
    // The words of the procedure's name after `marker`, up to the next comma.
    let after = |marker: &str| {
        c.procedure
            .split(marker)
            .nth(1)
            .and_then(|s| s.split(',').next())
    };
    if c.kind.is_two_stage() {
        let first = after("first stage ").map(|n| format!(", first stage {n}"));
        // n chosen on another metric: the certified one is a column the
        // rule did not read.
        let by = after(", n chosen on ").map(|m| format!(", n chosen on {m}"));
        return first.unwrap_or_default() + &by.unwrap_or_default();
    }
    if !matches!(c.kind, Kind::PrecisionRule | Kind::SkewPrecision) {
        return String::new();
    }
    if let Some(n) = after("pilot of ") {
        return format!(", pilot of {n}");
    }
    if let Some(n) = after("Stein: first stage ") {
        let n = n.split(' ').next().unwrap_or(n);
        return format!(", Stein, first stage {n}");
    }
    after("replications ")
        .map(|n| format!(", first look at {n}"))
        .unwrap_or_default()
}

/// How many replications a precision rule looks at first (its pilot, its
/// first stage, its first look), read from its name; None for the others.
fn first_size(c: &Coverage) -> Option<&str> {
    ["pilot of ", "first stage ", "replications "]
        .iter()
        .find_map(|m| c.procedure.split(m).nth(1))
        .and_then(|s| s.split([',', ' ']).next())
}

/// The certificate's paragraph on the skewness adjustment: where it was
/// measured, against the interval it would replace, and what the audit's
/// pooled error rate would be with it in place.
fn skew_paragraph(
    s: &mut String,
    rows: &[(String, &Coverage)],
    (level, strict): (f64, Option<f64>),
    printed: &dyn Fn(&Coverage) -> bool,
) {
    use std::fmt::Write as _;
    // The candidate measured at the same point, level and pilot as `c`.
    let twin = |c: &Coverage, l: &str| {
        rows.iter()
            .find(|(sl, sc)| {
                sc.kind.skew_of() == Some(c.kind)
                    && sl == l
                    && sc.metric == c.metric
                    && sc.at == c.at
                    && (sc.level - c.level).abs() < 1e-12
                    && first_look(sc) == first_look(c)
                    && sc.macros > 0
            })
            .map(|(_, sc)| *sc)
    };
    let pairs: Vec<(&Coverage, &Coverage)> = rows
        .iter()
        .filter(|(_, c)| (c.level - level).abs() < 1e-12 && printed(c))
        .filter_map(|(l, c)| twin(c, l).map(|t| (*c, t)))
        .collect();
    if pairs.is_empty() {
        return;
    }
    let range = |f: &dyn Fn(&(&Coverage, &Coverage)) -> f64| {
        let v: Vec<f64> = pairs.iter().map(|p| 100.0 * f(p)).collect();
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        format!("{lo:.1}–{hi:.1}%")
    };
    // The misses of the candidates (true) or of the intervals they would
    // replace.
    let tails = |candidate: bool| {
        let (b, a) = pairs
            .iter()
            .map(|&(c, t)| if candidate { t } else { c })
            .fold((0, 0), |(b, a), c| (b + c.below, a + c.above));
        (b, a)
    };
    let mut rates = Vec::new();
    for lv in std::iter::once(level).chain(strict) {
        let (mut missed, mut all) = (0usize, 0usize);
        for (l, c) in rows {
            if (c.level - lv).abs() > 1e-12 || c.macros == 0 || !printed(c) {
                continue;
            }
            let c = twin(c, l).unwrap_or(c);
            missed += c.above + c.below;
            all += c.macros;
        }
        if all > 0 {
            let (lo, hi) = clopper_pearson(missed, all, 0.95);
            rates.push(format!(
                "{:.2}% [{:.2}, {:.2}] of {all} at {}% (allowed: {:.1}%)",
                100.0 * missed as f64 / all as f64,
                100.0 * lo,
                100.0 * hi,
                100.0 * lv,
                100.0 * (1.0 - lv)
            ));
        }
    }
    let ((skew_below, skew_above), (t_below, t_above)) = (tails(true), tails(false));
    let within = pairs
        .iter()
        .filter(|(_, t)| within_band(t.covered, t.macros))
        .count();
    let _ = writeln!(
        s,
        "**A skewness adjustment, measured, not adopted** (kept out of the counts): a \
         queue's time average over a run is skewed to the right, so the Student-t interval \
         over a few replications misses mostly below the truth. Willink's interval for the \
         mean of an asymmetric distribution (as the Skart procedure of Tafazzoli, Steiger \
         and Wilson uses it), with the skewness of a replication mean read off the runs' own \
         batch means, was measured at {} points: it covers {} where the interval it would \
         replace covers {} ({within} of {} within 93–97%). Of its intervals, {} lie wholly \
         below the truth and {} wholly above (of those it would replace: {} and {}). With it in \
         place of those intervals, a true value claim would be refuted in {}. lb does not \
         print it yet: its intervals are asymmetric, so every table, figure and verdict \
         would change with it.\n",
        pairs.len(),
        range(&|p| p.1.coverage()),
        range(&|p| p.0.coverage()),
        pairs.len(),
        skew_below,
        skew_above,
        t_below,
        t_above,
        rates.join(", ")
    );
}

/// Where a coverage was measured, in words.
fn where_(c: &Coverage) -> String {
    if c.at.is_empty() {
        format!("load {:.3}", c.load)
    } else {
        c.at.replace('=', " = ")
    }
}

/// What lb prints an interval of and decides claims on: every procedure
/// but batch means within one run (which serve the settling diagnostic
/// only) and the candidates measured beside the adopted procedures
/// ([`Kind::is_candidate`]).
pub(crate) fn is_printed(c: &Coverage) -> bool {
    !c.kind.is_batch_means() && !c.kind.is_candidate()
}

/// Whether `c` is a "before": of an entry the certificate keeps to show a
/// failure, or the pre-certificate form of a procedure.
fn is_before(e: &EntryView, c: &Coverage) -> bool {
    e.before || c.kind.after().is_some()
}

/// The rows the audit's error rates at `level` are read on: the printed
/// procedures of every entry but the befores, at `level`, with
/// macro-replications lb would print.
pub fn decided_at(entries: &[EntryView], level: f64) -> Vec<&Coverage> {
    entries
        .iter()
        .flat_map(|e| {
            e.coverages
                .iter()
                .flatten()
                .filter(move |c| !is_before(e, c))
        })
        .filter(|c| (c.level - level).abs() < 1e-12 && c.macros > 0 && is_printed(c))
        .collect()
}

/// The certificate's calibration of `level` on `rows` (read again,
/// [`Coverage::read_at`]): the lowest level — `level` itself, then those
/// read again — at which a true value claim is refuted in at most
/// 1 − `level` of the pooled macro-replications, as (that level, its α
/// factor (1 − it)/(1 − level), the refutations, the macro-replications);
/// None if no level does it or no row carries the reading.
pub fn calibration(rows: &[&Coverage], level: f64) -> Option<(f64, f64, usize, usize)> {
    let (n, read) = read_again(rows, level);
    read.into_iter()
        .find(|(_, k)| *k as f64 <= (1.0 - level) * n as f64)
        .map(|(at, k)| (at, (1.0 - at) / (1.0 - level), k, n))
}

/// The rows of `rows` that carry the reading again, pooled: their
/// macro-replications, and the refutations of a true value claim at
/// `level` and at each level read again (empty when no row carries it).
fn read_again(rows: &[&Coverage], level: f64) -> (usize, Vec<(f64, usize)>) {
    let with: Vec<&Coverage> = rows
        .iter()
        .copied()
        .filter(|c| !c.read_at.is_empty())
        .collect();
    let n: usize = with.iter().map(|c| c.macros).sum();
    let Some(first) = with.first() else {
        return (0, Vec::new());
    };
    let base: usize = with.iter().map(|c| c.above + c.below).sum();
    let read = std::iter::once((level, base))
        .chain((0..first.read_at.len()).map(|i| {
            let k: usize = with
                .iter()
                .filter_map(|c| c.read_at.get(i))
                .map(|r| r.above + r.below)
                .sum();
            (first.read_at[i].level, k)
        }))
        .collect();
    (n, read)
}

/// k of n as a percentage with its 95% Clopper–Pearson interval, to
/// `digits` decimals: "93.2% [92.0, 94.3]".
fn rate_with_interval(k: usize, n: usize, digits: usize) -> String {
    let (lo, hi) = clopper_pearson(k, n, 0.95);
    format!(
        "{:.d$}% [{:.d$}, {:.d$}]",
        100.0 * k as f64 / n as f64,
        100.0 * lo,
        100.0 * hi,
        d = digits
    )
}

/// The acceptance band a nominal 95% interval's coverage is held to.
pub(crate) const BAND: (f64, f64) = (0.93, 0.97);

/// Whether x of n lies within [`BAND`] (as a fraction, ends included).
fn within_band(x: usize, n: usize) -> bool {
    n > 0 && (BAND.0..=BAND.1).contains(&(x as f64 / n as f64))
}

/// The probability that at least one of independent estimates, each of
/// `n_i` macro-replications of a procedure that truly covers `p`, falls
/// outside [`BAND`]: 1 − Π_i P(X_i/n_i ∈ BAND), X_i ~ Binomial(n_i, p),
/// summed exactly over the band's counts. How often the per-pair criterion
/// fails by chance alone.
pub(crate) fn band_missed_by_chance(ns: &[usize], p: f64) -> f64 {
    use statrs::distribution::{Binomial, Discrete};
    let inside: f64 = ns
        .iter()
        .map(|&n| {
            Binomial::new(p, n as u64).map_or(0.0, |b| {
                (0..=n)
                    .filter(|&x| within_band(x, n))
                    .map(|x| b.pmf(x as u64))
                    .sum::<f64>()
            })
        })
        .product();
    1.0 - inside
}

/// The per-pair criterion read against each estimate's sampling error: how
/// many of `rows` have a Clopper–Pearson interval at `conf` that meets
/// [`BAND`] (a coverage the band holds is not ruled out).
pub(crate) fn meets_band(rows: &[&Coverage], conf: f64) -> usize {
    rows.iter()
        .filter(|c| {
            let (lo, hi) = clopper_pearson(c.covered, c.macros, conf);
            lo <= BAND.1 && hi >= BAND.0
        })
        .count()
}

/// Whether `a` and `b` measure the same procedure at the same point, metric
/// and level (two entries doing so: a second measurement on other seeds).
fn same_point_and_procedure(a: &Coverage, b: &Coverage) -> bool {
    a.procedure == b.procedure
        && a.policy == b.policy
        && a.at == b.at
        && a.metric == b.metric
        && a.exact == b.exact
        && (a.level - b.level).abs() < 1e-12
}

/// The same procedure at the same point measured by another entry (on
/// seeds of its own), and the two together: ", measured again (LABEL):
/// x% [lo, hi]; together y% [lo, hi] of n" (empty if none did).
fn measured_again(c: &Coverage, label: &str, rows: &[&&(String, &Coverage)]) -> String {
    let again: Vec<&(String, &Coverage)> = rows
        .iter()
        .map(|r| **r)
        .filter(|(l, d)| l != label && same_point_and_procedure(c, d))
        .collect();
    if again.is_empty() {
        return String::new();
    }
    let pct = |k: usize, n: usize| rate_with_interval(k, n, 1);
    let each: Vec<String> = again
        .iter()
        .map(|(l, d)| format!("{l}: {}", pct(d.covered, d.macros)))
        .collect();
    let k = c.covered + again.iter().map(|(_, d)| d.covered).sum::<usize>();
    let n = c.macros + again.iter().map(|(_, d)| d.macros).sum::<usize>();
    format!(
        ", measured again on seeds of their own ({}), together {} of {n}",
        each.join("; "),
        pct(k, n)
    )
}

/// A level as a percentage with the digits it has (95.5, 99.91), not
/// rounded to one place (99.91% would print as 99.9%).
fn level_pct(level: f64) -> String {
    format!("{}%", (level * 1e5).round() / 1e3)
}

/// A level's printed macro-replications read again at higher levels
/// ([`Coverage::read_at`]): the pooled rate at which a true value claim
/// would be refuted at each, on the rows that carry the reading, and the
/// lowest level that keeps it within the level's α. `at` holds the level's
/// printed rows.
fn read_again_paragraph(s: &mut String, at: &[&Coverage], level: f64) {
    use std::fmt::Write as _;
    let (n, read) = read_again(at, level);
    if read.is_empty() {
        return;
    }
    let with = at.iter().filter(|c| !c.read_at.is_empty()).count();
    let rate = |k: usize| rate_with_interval(k, n, 2);
    let parts: Vec<String> = read
        .iter()
        .map(|(l, k)| format!("{}: {}", level_pct(*l), rate(*k)))
        .collect();
    let lowest = calibration(at, level).map(|c| c.0);
    let left_out = at.len() - with;
    use lb_manifest::calibration::{DecideAt, decision_level};
    let adopted = decision_level(level, DecideAt::Calibrated);
    let _ = writeln!(
        s,
        "\n**Read at a higher level than {}** (the decision level's calibration): the same \
         printed macro-replications, the same runs and n, read with wider intervals. A true \
         value claim would be refuted in {} of {n} macro-replications ({} procedure-and-point \
         pairs{}). {} {}",
        level_pct(level),
        parts.join("; "),
        with,
        if left_out > 0 {
            format!("; {left_out} more have records written before this reading and are left out")
        } else {
            String::new()
        },
        match lowest {
            Some(l) => format!(
                "Read at {}, the pooled rate is within the allowed {}.",
                level_pct(l),
                level_pct(1.0 - level)
            ),
            None => format!(
                "None of these levels brings the pooled rate within the allowed {}.",
                level_pct(1.0 - level)
            ),
        },
        if lowest.is_some_and(|l| (l - adopted).abs() < 1e-12) {
            format!(
                "The audit decides every claim of level {} at {} (a claim can ask for its \
                 stated level with `decide_at = \"nominal\"`); the audit prints its intervals \
                 at the level that decides.",
                level_pct(level),
                level_pct(adopted)
            )
        } else {
            format!(
                "The audit decides claims of level {} at {}, which is not this calibration: \
                 the records and lb's calibration disagree (lb-manifest's `CALIBRATION`).",
                level_pct(level),
                level_pct(adopted)
            )
        }
    );
}

/// A coverage with the label of its certificate entry.
type Row<'a> = (String, &'a Coverage);

/// The certificate's part of the report: `dir/report.md` (a section the
/// report page includes), its figures, and `dir/coverage.csv`. `rerun` is
/// the command that recomputes it.
pub fn write_report(
    dir: &std::path::Path,
    entries: &[EntryView],
    (level, strict, macros): (f64, Option<f64>, usize),
    rerun: &str,
) -> Result<Vec<std::path::PathBuf>, Box<dyn std::error::Error>> {
    use std::fmt::Write as _;
    std::fs::create_dir_all(dir)?;
    let mut files = Vec::new();
    let nominal = |c: &&Coverage| (c.level - level).abs() < 1e-12;
    let all_rows: Vec<(String, &Coverage, bool)> = entries
        .iter()
        .flat_map(|e| {
            e.coverages
                .iter()
                .flatten()
                .map(move |c| (e.label.clone(), c, is_before(e, c)))
        })
        .collect();
    let rows: Vec<(String, &Coverage)> = all_rows
        .iter()
        .filter(|r| !r.2)
        .map(|(l, c, _)| (l.clone(), *c))
        .collect();
    let befores: Vec<&(String, &Coverage, bool)> =
        all_rows.iter().filter(|r| r.2 && nominal(&r.1)).collect();
    let at_level: Vec<(String, &Coverage)> = all_rows
        .iter()
        .filter(|(_, c, _)| nominal(c))
        .map(|(l, c, _)| (l.clone(), *c))
        .collect();
    let decided_rows: Vec<&(String, &Coverage)> = rows.iter().filter(|(_, c)| nominal(c)).collect();
    let band = 100.0 * level;
    let figs = coverage_figures(&at_level);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## Coverage certificate — do lb's intervals hold their level?\n"
    );
    intro(&mut s, entries, (level, macros), rerun);
    // The verdict in numbers: first the intervals lb prints and decides
    // claims on, then batch means, which lb prints no interval of.
    let decided: Vec<&&(String, &Coverage)> = decided_rows
        .iter()
        .filter(|(_, c)| c.macros > 0 && is_printed(c))
        .collect();
    let inside = |c: &Coverage| within_band(c.covered, c.macros);
    let within = decided.iter().filter(|(_, c)| inside(c)).count();
    let diagnostic: Vec<&&(String, &Coverage)> = decided_rows
        .iter()
        .filter(|(_, c)| c.macros > 0 && c.kind.is_batch_means())
        .collect();
    let _ = writeln!(
        s,
        "**Of the intervals lb prints and decides claims on, {within} of {} procedure-and-point \
         pairs cover within 93–97%.**{}\n",
        decided.len(),
        {
            let out: Vec<String> = decided
                .iter()
                .filter(|(_, c)| !inside(c))
                .map(|(l, c)| {
                    format!(
                        "{}{} at {} ({l}): {:.1}% [{:.1}, {:.1}]{}",
                        c.kind,
                        first_look(c),
                        where_(c),
                        100.0 * c.coverage(),
                        100.0 * c.coverage_interval.0,
                        100.0 * c.coverage_interval.1,
                        measured_again(c, l, &decided)
                    )
                })
                .collect();
            if out.is_empty() {
                String::new()
            } else {
                format!(" Outside: {}.", out.join("; "))
            }
        }
    );
    sampling_error_paragraph(&mut s, &decided, level, macros);
    settling_bias_paragraph(&mut s, &decided);
    two_stage_paragraph(&mut s, &decided_rows);
    skew_paragraph(&mut s, &rows, (level, strict), &is_printed);
    if !diagnostic.is_empty() {
        let bm_within = diagnostic.iter().filter(|(_, c)| inside(c)).count();
        let worst = diagnostic
            .iter()
            .min_by(|a, b| a.1.coverage().total_cmp(&b.1.coverage()))
            .map(|(l, c)| format!("{:.1}% at {} ({l})", 100.0 * c.coverage(), where_(c)))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "**Batch means within one run**, which lb prints no interval of (they feed the settling \
             diagnostic `bm_ok` only): {bm_within} of {} pairs cover within 93–97%, the worst \
             {worst}. A run whose batch means would be read as an interval must be far longer \
             at heavy load; lb replicates instead, and the error rates below leave them out.\n",
            diagnostic.len()
        );
    }
    let _ = writeln!(
        s,
        "**Limit-claim gaps** are no interval of their own: a limit claim's gap at a point is the \
         interval of its metric there less the limit, a constant (the same half-width and level \
         as a value claim of that metric at that point, as lb's audit tests hold it), so its \
         coverage is that interval's above: Student-t or the control variate for the \
         heavy-traffic limits of ε·E[ΣQ]/ζ, the proportions' for a limit of a probability.\n"
    );
    error_rates(&mut s, entries, level, strict);
    s.push('\n');
    befores_paragraph(&mut s, &befores, &rows, level);
    for (name, title, floor, rs) in figs {
        if rs.is_empty() {
            continue;
        }
        let caption = figure_caption(level, macros, floor);
        let fig = figure((name, title, &caption), &rs, floor);
        files.extend(render_into(dir, &fig)?);
        let _ = writeln!(
            s,
            "### {title}\n\n![{title}](coverage/{name}.png)\n\n{caption}\n"
        );
    }
    let all: Vec<Coverage> = at_level.iter().map(|(_, c)| (*c).clone()).collect();
    let _ = writeln!(s, "### Every procedure at every point ({band}%)\n");
    s.push_str(&markdown(&all));
    s.push('\n');
    let p = dir.join("report.md");
    lb_analysis::files::write_if_changed(&p, s.as_bytes())?;
    files.push(p);
    Ok(files)
}

/// The certificate's opening: what it measures and how to recompute it, and
/// the entries not yet certified.
fn intro(s: &mut String, entries: &[EntryView], (level, macros): (f64, usize), rerun: &str) {
    use std::fmt::Write as _;
    let band = 100.0 * level;
    let cpu = rerun_cpu_seconds(entries);
    let _ = writeln!(
        s,
        "Every verdict rests on an interval. Here lb measures how often its nominal {band}% \
         intervals cover the exact value, at points whose exact answer is known in closed form \
         (manifests in `experiments/coverage/`, listed in `experiments/coverage/certificate.toml`). \
         Each procedure is repeated on {macros} independent macro-replications of the point — \
         the replications, the settling rule, batch means, the precision rule, the control \
         variate — and the coverage is the fraction whose interval contains the exact value, \
         with its own 95% Clopper–Pearson interval. A macro-replication whose runs lb judges \
         not settled is counted apart (\"not settled\"): lb never prints it as a bare number. The \
         records are in `results/coverage/`, keyed by the entry and its points' keys: `{rerun}` \
         computes the entries without one, and `{rerun} --again` recomputes every entry from \
         scratch ({:.0} CPU-minutes of replications, single thread).\n",
        cpu / 60.0
    );
    let missing: Vec<&EntryView> = entries.iter().filter(|e| e.coverages.is_none()).collect();
    if !missing.is_empty() {
        let _ = writeln!(
            s,
            "**Not yet certified** (no record at the entry's current key): {}.\n",
            missing
                .iter()
                .map(|e| format!("{} (`{}`)", e.label, e.manifest))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
}

/// A certificate figure: its file name, title, the floor of its y axis, and
/// its series.
type CoverageFigure<'a> = (&'static str, &'static str, f64, Vec<Row<'a>>);

/// The certificate's figures: for each, its file name, title, the floor of
/// its y axis, and its series (a name and a coverage per point).
fn coverage_figures<'a>(at_level: &[(String, &'a Coverage)]) -> [CoverageFigure<'a>; 6] {
    let series = |keep: &dyn Fn(&Coverage) -> bool, name: &dyn Fn(&str, &Coverage) -> String| {
        at_level
            .iter()
            .filter(|(_, c)| keep(c))
            .map(|(l, c)| (name(l, c), *c))
            .collect::<Vec<_>>()
    };
    [
        (
            "coverage-student-t",
            "Coverage of Student-t intervals over 5 replications (8 where the entry pairs 8 with a control)",
            80.0,
            series(&|c| c.kind == Kind::StudentT, &|l, _| l.to_string()),
        ),
        (
            "coverage-skew",
            "Coverage of the skew-adjusted candidate (Willink's interval), over 5 replications and on the precision rule's n",
            80.0,
            series(&|c| c.kind.skew_of().is_some(), &|l, c| {
                if c.kind == Kind::SkewT {
                    l.to_string()
                } else {
                    format!("precision rule{} — {l}", first_look(c))
                }
            }),
        ),
        (
            "coverage-batch-means",
            "Coverage of batch-means intervals within one run: on 8 batches, and before (16–64)",
            40.0,
            series(&|c| c.kind.is_batch_means(), &|l, c| {
                if c.kind == Kind::BatchMeans {
                    l.to_string()
                } else {
                    format!("{l}, before (16–64 batches)")
                }
            }),
        ),
        (
            "coverage-precision",
            "Coverage of the precision rule's intervals: with its pilot, with Stein's first stage, and sequential (before)",
            80.0,
            series(&|c| c.kind == Kind::PrecisionRule, &|l, c| {
                let look = first_look(c);
                let kind = if look.contains("first look") {
                    "sequential precision rule (before)"
                } else {
                    c.kind.word()
                };
                format!("{kind}{look} — {l}")
            }),
        ),
        (
            "coverage-two-stage",
            "Coverage of the two-stage corrections by hand: Stein's interval, and Student-t on the same n",
            80.0,
            series(&|c| c.kind.is_two_stage(), &|l, c| {
                format!("{}{} — {l}", c.kind, first_look(c))
            }),
        ),
        (
            "coverage-other",
            "Coverage of proportion and control-variate intervals",
            80.0,
            series(
                &|c| {
                    !c.kind.is_batch_means()
                        && !c.kind.is_two_stage()
                        && !matches!(
                            c.kind,
                            Kind::StudentT
                                | Kind::SkewT
                                | Kind::PrecisionRule
                                | Kind::SkewPrecision
                        )
                },
                &|l, c| {
                    let before = c.kind.after().is_some() && c.kind != Kind::WilsonFloored;
                    format!("{}{} — {l}", c.kind, if before { " (before)" } else { "" })
                },
            ),
        ),
    ]
}

/// A certificate figure's caption, `floor` its y axis's lowest percent.
fn figure_caption(level: f64, macros: usize, floor: f64) -> String {
    let band = 100.0 * level;
    format!(
        "Each point: the fraction of {macros} independent macro-replications whose {band}% \
         interval contains the point's exact value (a closed form), among those lb would \
         print (runs settled), with its 95% Clopper–Pearson interval. Shaded: the \
         acceptance band 93–97%. A point below {floor}% is marked at the lower edge with its \
         value."
    )
}

/// The per-pair criterion read against the estimates' own sampling error:
/// how often the band fails by chance, and which pairs' own intervals meet it.
fn sampling_error_paragraph(s: &mut String, decided: &[&&Row], level: f64, macros: usize) {
    use std::fmt::Write as _;
    if !decided.is_empty() {
        let rows: Vec<&Coverage> = decided.iter().map(|(_, c)| *c).collect();
        let m = rows.len();
        let ns: Vec<usize> = rows.iter().map(|c| c.macros).collect();
        let k: usize = rows.iter().map(|c| c.covered).sum();
        let n: usize = ns.iter().sum();
        let pooled = k as f64 / n as f64;
        let se = 100.0 * (level * (1.0 - level) / macros as f64).sqrt();
        let _ = writeln!(
            s,
            "**Read against their own sampling error.** An estimate from about {macros} \
             macro-replications has a standard error near {se:.1} points, so the band is a test \
             that fails by chance: if every one of these {m} procedures truly covered {}, at \
             least one estimate would fall outside {:.0}–{:.0}% with probability {:.1}%; if each \
             covered {:.1}% (the pooled coverage of all {n}), {:.0}%. Asked instead whether each \
             pair's own 95% Clopper–Pearson interval meets the band, {} of {m} do; at \
             {} each (Bonferroni over the {m}), {} of {m}.\n",
            level_pct(level),
            100.0 * BAND.0,
            100.0 * BAND.1,
            100.0 * band_missed_by_chance(&ns, level),
            100.0 * pooled,
            100.0 * band_missed_by_chance(&ns, pooled),
            meets_band(&rows, 0.95),
            level_pct(1.0 - 0.05 / m as f64),
            meets_band(&rows, 1.0 - 0.05 / m as f64),
        );
    }
}

/// Whether leaving out what has not settled biases what lb prints: the
/// same pairs with the settling rule off, where it left out the most.
fn settling_bias_paragraph(s: &mut String, decided: &[&&Row]) {
    use std::fmt::Write as _;
    let mut gated: Vec<(&String, &Coverage, usize, usize)> = decided
        .iter()
        .filter_map(|(l, c)| c.ungated.map(|(n, k)| (l, *c, n, k)))
        .filter(|(_, c, n, _)| c.unsettled > 0 && *n > 0)
        .collect();
    gated.sort_by_key(|g| std::cmp::Reverse(g.1.unsettled));
    if !gated.is_empty() {
        let pct = |k: usize, n: usize| 100.0 * k as f64 / n as f64;
        let _ = writeln!(
            s,
            "**Does leaving out what has not settled bias what lb prints?** With the settling \
             rule off, every macro-replication counted, where it leaves out the most: {}.\n",
            gated
                .iter()
                .take(4)
                .map(|(l, c, n, k)| format!(
                    "{}{} at {} ({l}): {:.1}% of {} printed, {:.1}% of all {n} ({} left out)",
                    c.kind,
                    first_look(c),
                    where_(c),
                    100.0 * c.coverage(),
                    c.macros,
                    pct(*k, *n),
                    c.unsettled
                ))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
}

/// The two-stage corrections measured by hand, kept out of the counts.
fn two_stage_paragraph(s: &mut String, decided_rows: &[&Row]) {
    use std::fmt::Write as _;
    let candidates: Vec<&&(String, &Coverage)> = decided_rows
        .iter()
        .filter(|(_, c)| c.macros > 0 && c.kind.is_two_stage())
        .collect();
    if !candidates.is_empty() {
        let mut by: Vec<(String, f64, f64)> = Vec::new();
        for (_, c) in &candidates {
            let name = format!("{}{}", c.kind, first_look(c));
            let v = 100.0 * c.coverage();
            match by.iter_mut().find(|b| b.0 == name) {
                Some(b) => {
                    b.1 = b.1.min(v);
                    b.2 = b.2.max(v);
                }
                None => by.push((name, v, v)),
            }
        }
        let _ = writeln!(
            s,
            "**Two-stage corrections measured by hand** (kept out of the counts): {}. In these the \
             first stage's replications choose how many run and are read again. The Student-t \
             interval of all of them is then too narrow, as the first stage's variance both sets \
             n and is part of the interval (least so where n is chosen on a metric whose \
             variance the certified one's does not follow). Stein's interval, which reads each \
             metric's own \
             first-stage variance, covers on the rule's metric and on a column the rule did not \
             read alike (n chosen on another metric). It is what a manifest's `procedure = \
             \"stein\"` prints, for every metric and every paired comparison at the point (the \
             LED figure experiments use it); the certificate's entry of that rule runs lb's \
             precision rule itself and measures the same coverages as the two-stage entry by \
             hand. With a control variate the first stage's pairs decide and the interval is \
             Stein's form of the control variate (the first stage's residual variance); its \
             entries, JSQ on two servers against the pooled queue, measure it beside the \
             pilot's rule (the heavy-traffic experiments use it). The default remains a pilot \
             on replications of its own (`procedure = \"pilot\"`): n depends on the pilot \
             alone, so every interval at the point — every metric, every paired comparison — \
             is an ordinary fixed-n interval. The sequential rule both \
             replace is kept as an option (`procedure = \"sequential\"`) and listed among the \
             befores.\n",
            by.iter()
                .map(|(n, lo, hi)| format!("{n}: {lo:.1}–{hi:.1}%"))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
}

/// The audit's error rates at the nominal (and strict) level: how often a
/// true value claim is refuted and a bound at the truth confirmed, then the
/// same runs read again at higher levels.
fn error_rates(s: &mut String, entries: &[EntryView], level: f64, strict: Option<f64>) {
    use std::fmt::Write as _;
    let mut read_again = Vec::new();
    for (lv, name) in std::iter::once((level, "nominal")).chain(strict.map(|s| (s, "strict"))) {
        let at = decided_at(entries, lv);
        if at.is_empty() {
            continue;
        }
        let worst_refuted = at
            .iter()
            .map(|c| (c.audit_errors().0, c))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let worst_confirmed = at
            .iter()
            .map(|c| (c.audit_errors().1, c))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let pooled_refuted: usize = at.iter().map(|c| c.above + c.below).sum();
        let pooled: usize = at.iter().map(|c| c.macros).sum();
        if let (Some((r, rc)), Some((b, bc))) = (worst_refuted, worst_confirmed) {
            let _ = writeln!(
                s,
                "- At the {name} level {}%: a true value claim (the exact value, no tolerance) \
                 is refuted in {:.2}% [{:.2}, {:.2}] of all {pooled} macro-replications \
                 (allowed: {:.1}%; in brackets its 95% Clopper–Pearson interval), at most \
                 {:.1}% at one point ({}, {}); a bound set exactly at the truth is confirmed in \
                 at most {:.1}% ({}, {}).",
                100.0 * lv,
                100.0 * pooled_refuted as f64 / pooled as f64,
                100.0 * clopper_pearson(pooled_refuted, pooled, 0.95).0,
                100.0 * clopper_pearson(pooled_refuted, pooled, 0.95).1,
                100.0 * (1.0 - lv),
                100.0 * r,
                rc.kind,
                where_(rc),
                100.0 * b,
                bc.kind,
                where_(bc)
            );
        }
        read_again.push((at, lv));
    }
    for (at, lv) in &read_again {
        read_again_paragraph(s, at, *lv);
    }
}

/// What the certificate changed: each measurement from before it beside
/// the same procedure's now.
fn befores_paragraph(
    s: &mut String,
    befores: &[&(String, &Coverage, bool)],
    rows: &[Row],
    level: f64,
) {
    use std::fmt::Write as _;
    let nominal = |c: &&Coverage| (c.level - level).abs() < 1e-12;
    if !befores.is_empty() {
        let _ = writeln!(
            s,
            "**What the certificate changed** (before → after; the befores are kept out of the \
             counts above):\n"
        );
        for (l, c, _) in befores {
            // The after: the same procedure kind (batch means for its
            // pre-certificate form) at the same load and metric, outside
            // the befores; for a before entry, prefer the entry of the same
            // point family (its label's first word), and for a precision
            // rule the one that looks first at as many replications. A
            // second measurement of a point by another entry is not an
            // after: the first is.
            let kind = c.kind.after().unwrap_or(c.kind);
            let family = l.split(',').next().unwrap_or(l);
            let after = rows
                .iter()
                .enumerate()
                .filter(|(i, (al, a))| {
                    nominal(a)
                        && a.kind == kind
                        && a.metric == c.metric
                        && (a.load - c.load).abs() < 1e-9
                        && !rows[..*i]
                            .iter()
                            .any(|(bl, b)| bl != al && same_point_and_procedure(a, b))
                })
                .map(|(_, r)| r)
                .max_by_key(|(al, a)| (al.starts_with(family), first_size(a) == first_size(c)));
            let pct = |c: &Coverage| {
                format!(
                    "{:.1}% [{:.1}, {:.1}]",
                    100.0 * c.coverage(),
                    100.0 * c.coverage_interval.0,
                    100.0 * c.coverage_interval.1
                )
            };
            let _ = writeln!(
                s,
                "- {l}, {}, {}: {}{}",
                c.procedure,
                where_(c),
                pct(c),
                after
                    .map(|(al, a)| format!(" → {} ({al}, {})", pct(a), a.procedure))
                    .unwrap_or_default()
            );
        }
        s.push('\n');
    }
}

#[cfg(test)]
mod tests {
    /// Every procedure word reads back as itself, and a word lb does not
    /// know is refused with it.
    #[test]
    fn procedure_words_read_back() {
        for (w, p) in super::ProcedureWord::ALL {
            assert_eq!(w.parse::<super::ProcedureWord>(), Ok(p));
            assert_eq!(p.word(), w);
        }
        assert_eq!(
            "bmm".parse::<super::ProcedureWord>(),
            Err("unknown \"bmm\"".to_string())
        );
    }

    /// A kind is stored as its word and read back from it; the words are
    /// distinct, and one lb does not know is refused.
    #[test]
    fn kinds_are_stored_as_their_words() {
        let mut words = Vec::new();
        for k in super::Kind::ALL {
            let json = serde_json::to_string(&k).unwrap();
            assert_eq!(json, format!("\"{}\"", k.word()));
            assert_eq!(serde_json::from_str::<super::Kind>(&json).unwrap(), k);
            words.push(k.word());
        }
        words.sort_unstable();
        words.dedup();
        assert_eq!(words.len(), super::Kind::ALL.len());
        assert!(serde_json::from_str::<super::Kind>("\"t-test\"").is_err());
    }

    use super::clopper_pearson;

    /// Clopper–Pearson against known values: 95 of 100 → [0.8872, 0.9836].
    #[test]
    fn clopper_pearson_matches_tables() {
        let (lo, hi) = clopper_pearson(95, 100, 0.95);
        assert!((lo - 0.8872).abs() < 5e-4, "{lo}");
        assert!((hi - 0.9836).abs() < 5e-4, "{hi}");
        assert_eq!(clopper_pearson(0, 10, 0.95).0, 0.0);
        assert_eq!(clopper_pearson(10, 10, 0.95).1, 1.0);
    }

    /// The chance that the band is missed: one estimate of 1,000 at a true
    /// 95% falls outside 93–97% with probability 0.30495% (the binomial
    /// sums P(X ≤ 929) + P(X ≥ 971)); thirty of them, 1 − (1 − that)³⁰.
    /// Entries on one manifest read prefixes of the same replications: a
    /// rerun computes them once, as the record that read the most states;
    /// other manifests add.
    #[test]
    fn a_rerun_counts_replications_that_entries_share_once() {
        use super::{EntryView, rerun_cpu_seconds};
        let view = |manifest: &str, replications, cpu_seconds| EntryView {
            label: "x".into(),
            before: false,
            manifest: manifest.into(),
            coverages: None,
            replications,
            cpu_seconds,
        };
        let entries = [
            view("a.toml", 60_000, 900.0),
            view("a.toml", 84_000, 1_300.0),
            view("a.toml", 60_000, 2_000.0),
            view("b.toml", 5_000, 20.0),
        ];
        assert_eq!(rerun_cpu_seconds(&entries), 1_320.0);
        assert_eq!(rerun_cpu_seconds(&[]), 0.0);
    }

    #[test]
    fn the_band_is_missed_by_chance_as_the_binomial_says() {
        use super::band_missed_by_chance;
        let one = band_missed_by_chance(&[1000], 0.95);
        assert!((one - 0.003_049_50).abs() < 1e-7, "{one}");
        let thirty = band_missed_by_chance(&[1000; 30], 0.95);
        assert!((thirty - 0.087_552_5).abs() < 1e-6, "{thirty}");
        let lower = band_missed_by_chance(&[1000; 30], 0.945);
        assert!((lower - 0.431_092_7).abs() < 1e-6, "{lower}");
    }

    /// The calibration is the lowest level read again whose pooled
    /// refutations are within α: pooled over rows, not per row.
    #[test]
    fn calibration_pools_the_rows_and_takes_the_lowest_level_within_alpha() {
        use super::{Coverage, ReadAt, calibration, read_levels};
        let row = |missed: &[usize]| Coverage {
            policy: "p".into(),
            at: "a".into(),
            load: 0.5,
            metric: "m".into(),
            procedure: "t".into(),
            kind: super::Kind::StudentT,
            level: 0.95,
            exact: 1.0,
            macros: 1000,
            covered: 1000 - missed[0],
            above: 0,
            below: missed[0],
            unsettled: 0,
            coverage_interval: (0.0, 1.0),
            mean_half_width: 1.0,
            mean_replications: 5.0,
            ungated: None,
            read_at: read_levels(0.95)
                .into_iter()
                .zip(&missed[1..])
                .map(|(level, &m)| ReadAt {
                    level,
                    covered: 1000 - m,
                    above: m / 2,
                    below: m - m / 2,
                })
                .collect(),
        };
        // 61 and 40 missed at 95%: 5.05% pooled; at 95.5% 56 + 46 = 5.1%
        // (a row may miss more: another row's draw), 96% 4.9%.
        let a = row(&[61, 56, 52, 45, 40, 35, 30]);
        let b = row(&[40, 46, 46, 40, 35, 30, 25]);
        let (at, f, k, n) = calibration(&[&a, &b], 0.95).unwrap();
        assert_eq!((k, n), (98, 2000));
        assert!(
            (at - 0.96).abs() < 1e-12 && (f - 0.8).abs() < 1e-9,
            "{at} {f}"
        );
        // Within α as printed: the level itself, factor 1.
        let e = row(&[50, 50, 40, 30, 20, 10, 5]);
        assert_eq!(calibration(&[&e], 0.95), Some((0.95, 1.0, 50, 1000)));
        // Nothing within α: none.
        let c = row(&[90; 7]);
        assert!(calibration(&[&c], 0.95).is_none());
        // No row read again: none.
        let mut d = row(&[10; 7]);
        d.read_at.clear();
        assert!(calibration(&[&d], 0.95).is_none());
    }
}
