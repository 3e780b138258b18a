//! Run length by precision (docs/MODEL.md §4 "Intervals"): how many
//! replications a point runs so that the 95% Student-t interval of its main
//! metric meets a relative half-width target, by one of two procedures.
//!
//! - [`Procedure::Pilot`] (the default): `min` pilot replications, on seeds of
//!   their own (replication indices from [`PILOT_BASE`]), estimate the
//!   variance; the point then runs the n fresh replications 0..n that the
//!   pilot says meet the target, at most `max`. n depends on the pilot alone,
//!   so replications 0..n are an ordinary sample of fixed size: the Student-t
//!   interval every table, figure and claim reads on them has its nominal
//!   coverage, for every metric of the point and for paired comparisons
//!   between points. The price is the pilot's replications, which no interval
//!   reads, and a target met only as well as the pilot estimated the
//!   variance (a point that misses it says so: [`Stop::Short`]).
//! - [`Procedure::Sequential`]: replications are added in rounds until the
//!   interval meets the target or `max` is reached. Stopping when the
//!   interval first looks narrow enough favours samples whose variance came
//!   out low, so the interval it stops at under-covers: lb's coverage
//!   certificate measured 90.5–92.8% for a nominal 95% with a first look at 4
//!   (docs/MODEL.md, "Coverage"). Kept as an option for manifests that want
//!   the target met at every point.
//! - [`Procedure::Stein`]: Stein's two-stage procedure (Stein 1945). The
//!   point's own replications 0..min are the first stage; their variance
//!   s₀² alone chooses n, the fewest on the grid with n ≥ (t_{min−1}·s₀/h)²
//!   for the target half-width h, and every interval read on replications
//!   0..n is Stein's, X̄_n ± t_{min−1}·s₀/√n, each column on its own
//!   first-stage s₀ ([`stein_interval`]). For normal replications and a
//!   target fixed in advance, (X̄_n − μ)·√n/s₀ is Student-t on min − 1
//!   degrees of freedom whatever n the first stage chose, for every column
//!   and for paired differences (X̄ is independent of the first stage's
//!   covariances); lb's target is relative to the first stage's mean, so n
//!   also leans on it, and the coverage certificate measured the rule as
//!   shipped instead: 93.5–95.4% for a nominal 95% (docs/MODEL.md,
//!   "Coverage"). Where n = min it is the ordinary Student-t interval. No
//!   pilot: the first stage is part of the sample. With a control variate
//!   ([`RuleControl`]) the first stage's pairs decide, and the interval is
//!   Stein's form of the control variate ([`stein_control_variate`]),
//!   measured where the control pairs (JSQ on two servers against the
//!   pooled queue): 93.7–96.1%.
//!
//! Either rule is evaluated only at fixed checkpoints on replications 0..n
//! (and the pilot's), so the decision is a function of the (deterministic)
//! records alone: the same whatever the thread count or the order in which
//! replications finished.

use crate::config::{Summary, point_unstable};
use crate::settle::Settling;
pub use lb_stats::control::{
    control_variate, control_variate_of, residual_variance, stein_control_variate,
};
use lb_stats::student::t_quantile;
pub use lb_stats::student::{Interval, interval, interval_of, stein_interval};
use serde::{Deserialize, Serialize};

/// The metric a precision target is on: the name of one of its model's
/// metrics that a replication's summary defines on its own
/// ([`crate::metric::MetricInfo::precision`]). Checked against the model when
/// the manifest is validated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct MetricName(pub String);

impl MetricName {
    /// The metric's value in one replication (None if undefined, e.g. no
    /// jobs, or if the model has no such precision metric).
    pub fn value(&self, s: &Summary) -> Option<f64> {
        s.precision_value(&self.0)
    }
}

/// The replication index of a pilot's first replication: pilot replication
/// i is replication `PILOT_BASE + i` of its point, so its seeds are its own
/// and no interval, which reads replications 0..n, reads it. Above
/// [`crate::limits::MAX_REPLICATIONS`], so the two never meet.
pub const PILOT_BASE: u64 = 1_000_000;

/// Whether replication index `r` is a pilot's.
pub fn is_pilot(r: u64) -> bool {
    r >= PILOT_BASE
}

/// How a precision rule chooses the number of replications (module docs).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Procedure {
    /// `min` pilot replications on their own seeds choose n; the point runs
    /// replications 0..n, whose interval covers at its level.
    #[default]
    Pilot,
    /// Replications added `step` at a time until the target is met: meets it
    /// everywhere, but the interval it stops at under-covers.
    Sequential,
    /// Stein's two-stage procedure: replications 0..min choose n, and
    /// every interval on 0..n is Stein's ([`stein_interval`]).
    Stein,
}

impl Procedure {
    /// Whether it is the sequential procedure.
    pub fn is_sequential(&self) -> bool {
        *self == Procedure::Sequential
    }
}

/// A resolved precision rule, every default written out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrecisionRule {
    /// The metric whose interval it sizes.
    pub metric: MetricName,
    /// The target half-width, relative to the mean.
    pub rel_half_width: f64,
    /// Confidence level of the interval (0.95).
    pub level: f64,
    /// The pilot's size (and the fewest replications a point runs); for
    /// the sequential procedure, its first look.
    pub min: u32,
    /// The most replications a point runs.
    pub max: u32,
    /// Sequential: replications added per round. Pilot: n is rounded up to
    /// min + a multiple of step.
    pub step: u32,
    /// Absent in records written before the pilot existed, which were all
    /// sequential (and their record paths, a hash of the rule, unchanged).
    #[serde(
        default = "sequential",
        skip_serializing_if = "Procedure::is_sequential"
    )]
    pub procedure: Procedure,
    /// A control variate the pilot (or Stein's first stage) decides with
    /// ([`RuleControl`]);
    /// absent (and out of the record path's hash) without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control: Option<RuleControl>,
    /// Stein's procedure: more metrics held to the same relative target (the
    /// other figures'); n is the most any asks for. Absent (and out of the
    /// record path's hash) without them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<MetricName>,
    /// Stein's procedure: a first stage at least half of whose runs have
    /// not relaxed ([`Settling::plainly_unsettled`]) is all the point runs
    /// ([`Stop::Unsettled`]). Its runs decide no claim, and more of the same
    /// length would not settle them, so a second stage would buy precision
    /// nothing reads. Absent (false,
    /// and out of the record path's hash) in rules written before it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub settled_first: bool,
    /// Stein's procedure at a point that is other points' control variate
    /// ([`RuleControl`]) and that no figure or claim reads on its own: its
    /// own interval stops at the first stage ([`Stop::Control`]), and the
    /// points it controls ask for the replications their intervals pair
    /// with. Absent (false, and out of the record path's hash) elsewhere.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub control_only: bool,
}

/// A control variate for a precision rule (Lavenberg and Welch): another
/// point whose replications pair with this one's by index (common random
/// numbers: the same arrivals and service), and its exact mean E\[C\] on the
/// rule's metric. With it, the pilot chooses n from the variance of the
/// controlled estimate, Var(Y − β̂·C) with β̂ fitted on the pilot's pairs,
/// and the point's interval is the control-variate interval of its n pairs
/// ([`control_variate`], β fitted): where the control follows the point
/// closely (the resource-pooled queue in heavy traffic) that is a fraction
/// of the replications the direct interval needs. The control point's
/// replications 0..n and its pilot are then needed too; the runner asks
/// for them with the point's. Under Stein's procedure the first stage's
/// pairs decide instead ([`stein_controlled`]) and the interval is
/// [`stein_control_variate`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleControl {
    /// The control point's key (hex).
    pub key: String,
    /// The name of its exact mean (`pooled_exact`, `wr_sum_q`, …): what
    /// tables and figures pair other metrics with.
    pub mean: String,
    /// Its exact mean on the rule's metric.
    pub exact: f64,
}

fn sequential() -> Procedure {
    Procedure::Sequential
}

impl PrecisionRule {
    /// Whether the rule stops at `first`, a Stein first stage whose runs
    /// have plainly not settled ([`settled_first`](Self::settled_first),
    /// [`Settling::plainly_unsettled`]).
    pub fn stops_unsettled(&self, first: &[Summary]) -> bool {
        self.settled_first
            && self.procedure == Procedure::Stein
            && Settling::of(first).plainly_unsettled()
    }

    /// Whether n replications of variance `var` give a Student-t half-width
    /// t_{n−1}·√(var/n), at the rule's level, within `target`: the pilot's
    /// test ([`pilot_replications`]).
    pub fn half_width_meets(&self, n: u32, var: f64, target: f64) -> bool {
        t_quantile(self.level, (n - 1).max(1) as f64) * (var / n as f64).sqrt() <= target
    }

    /// The expected half-width of the control-variate interval (β fitted)
    /// of n pairs whose residual variance is `var`:
    /// t_{n−2}·√(var·(n − 2)/(n(n − 3))), where (n − 2)/(n(n − 3)) =
    /// E[1/n + (C̄ − E\[C\])²/S_CC] for normal pairs, the estimated β's share.
    /// Infinite below 4 pairs.
    pub fn controlled_half_width(&self, n: u32, var: f64) -> f64 {
        // Stein's with the whole sample as its first stage.
        self.stein_controlled_half_width(n, n, var)
    }

    /// The expected half-width of Stein's control-variate interval
    /// ([`stein_control_variate`]) of n pairs whose first `first` left
    /// residual variance `var`: t_{first−2}·√(var·(n − 2)/(n(n − 3))), the
    /// root's factor as in [`controlled_half_width`](Self::controlled_half_width).
    /// Infinite below 4 pairs.
    pub fn stein_controlled_half_width(&self, first: u32, n: u32, var: f64) -> f64 {
        if n < 4 || first < 3 {
            return f64::INFINITY;
        }
        let nf = n as f64;
        t_quantile(self.level, (first - 2) as f64) * (var * (nf - 2.0) / (nf * (nf - 3.0))).sqrt()
    }

    /// The most replication records the rule can read: `max` of the point's
    /// own and, for the pilot procedure, `min` of the pilot's.
    pub fn most(&self) -> u32 {
        match self.procedure {
            Procedure::Pilot => self.max + self.min,
            Procedure::Sequential | Procedure::Stein => self.max,
        }
    }

    /// The first stage every interval of the point reads its variance on
    /// (Stein's procedure: replications 0..min), None for the others.
    pub fn first_stage(&self) -> Option<usize> {
        (self.procedure == Procedure::Stein).then_some(self.min as usize)
    }

    /// The replication indices of its pilot: PILOT_BASE..PILOT_BASE + min,
    /// none for the sequential rule.
    pub fn pilot(&self) -> std::ops::Range<u64> {
        let n = match self.procedure {
            Procedure::Pilot => self.min as u64,
            Procedure::Sequential | Procedure::Stein => 0,
        };
        PILOT_BASE..PILOT_BASE + n
    }

    /// What it asks for before any replication exists: (replications 0..main,
    /// pilot replications 0..pilot).
    pub fn first_need(&self) -> (u32, u32) {
        match decide(self, &[], &[]) {
            Decision::Need { main, pilot } => (main, pilot),
            Decision::Done(_) => unreachable!("every rule needs replications (min ≥ 2)"),
        }
    }

    /// How many rounds of replications it can take (one per stage of a
    /// sharded run): the pilot (or Stein's first stage), then the point's;
    /// or one per checkpoint.
    pub fn rounds(&self) -> usize {
        match self.procedure {
            Procedure::Pilot | Procedure::Stein => 2,
            Procedure::Sequential => self.checkpoints().len(),
        }
    }

    /// The checkpoints min, min + step, …, max.
    pub fn checkpoints(&self) -> Vec<u32> {
        let mut v = Vec::new();
        let mut n = self.min;
        loop {
            v.push(n.min(self.max));
            if n >= self.max {
                break v;
            }
            n = n.saturating_add(self.step);
        }
    }
}

/// Why replications stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// The target was met.
    Met,
    /// Pilot procedure: the pilot's variance put n below `max`, but the
    /// interval on replications 0..n came out wider than the target (the
    /// pilot underestimated the variance). The interval is valid at its
    /// width; running more would make it sequential again.
    Short,
    /// `max` replications ran without meeting it.
    Cap,
    /// A replication was unstable: more replications cannot give a steady-state
    /// interval (docs/MODEL.md §1 "Metrics of a run").
    Unstable,
    /// The metric was undefined in a replication (no measured jobs).
    Undefined,
    /// Stein's procedure with [`PrecisionRule::settled_first`]: at least
    /// half the first stage's runs have not relaxed, and it missed the target; the point
    /// stops there, its interval at the first stage's width.
    Unsettled,
    /// Stein's procedure with [`PrecisionRule::control_only`]: the point is
    /// other points' control variate, its own interval read by nothing at
    /// the rule's precision; it stops at the first stage, which missed the
    /// target.
    Control,
}

/// The outcome of a precision rule at a point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    /// Why it stopped.
    pub stop: Stop,
    /// The replications it settled on.
    pub replications: u32,
    /// The interval there, where it has one.
    pub interval: Option<Interval>,
    /// A rule with a control ([`RuleControl`]) whose pilot (or first stage) found the control
    /// worth pairing with: n was chosen, and the interval is, on the
    /// control-variate estimate. Absent (false) otherwise, and in records
    /// written before controls existed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paired: bool,
}

/// What a precision rule needs next.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Replications 0..main and pilot replications 0..pilot (indices from
    /// [`PILOT_BASE`]) are needed before deciding.
    Need {
        /// Replications 0..main.
        main: u32,
        /// Pilot replications 0..pilot.
        pilot: u32,
    },
    /// The rule is decided.
    Done(Outcome),
}

/// Decides, given the summaries of replications 0..k and of pilot
/// replications 0..j (each in order; the sequential procedure reads no
/// pilot).
pub fn decide(rule: &PrecisionRule, summaries: &[Summary], pilot: &[Summary]) -> Decision {
    decide_paired(rule, summaries, pilot, None)
}

/// The control point's records a rule with a [`RuleControl`] reads: its
/// replications 0..k and pilot replications 0..j, in order.
#[derive(Debug, Clone, Copy)]
pub struct Paired<'a> {
    /// Its replications 0..k.
    pub summaries: &'a [Summary],
    /// Its pilot replications 0..j.
    pub pilot: &'a [Summary],
}

/// [`decide`], for a rule with a control: `control` holds the control
/// point's records (None reads as none present). A rule without a control
/// ignores it.
pub fn decide_paired(
    rule: &PrecisionRule,
    summaries: &[Summary],
    pilot: &[Summary],
    control: Option<Paired>,
) -> Decision {
    match (rule.procedure, &rule.control) {
        (Procedure::Sequential, _) => decide_sequential(rule, summaries),
        (Procedure::Stein, None) => decide_stein(rule, summaries),
        (Procedure::Stein, Some(c)) => decide_stein_controlled(
            rule,
            c.exact,
            summaries,
            control.map_or(&[], |p| p.summaries),
        ),
        (Procedure::Pilot, None) => decide_pilot(rule, summaries, pilot),
        (Procedure::Pilot, Some(c)) => {
            let none = Paired {
                summaries: &[],
                pilot: &[],
            };
            decide_controlled(rule, c.exact, summaries, pilot, control.unwrap_or(none))
        }
    }
}

/// The replications the pilot `pilot` (its first `min`) asks for: the
/// fewest n ≥ min, on the grid min + k·step and at most max, whose Student-t
/// half-width t_{n−1}·s₀/√n meets the target r·|m₀| with the pilot's mean m₀
/// and standard deviation s₀. `min` when the pilot is mostly unstable or
/// its metric undefined (the point then reports that, on `min` replications).
pub fn pilot_replications(rule: &PrecisionRule, pilot: &[Summary]) -> u32 {
    let pilot = &pilot[..rule.min as usize];
    let vals: Option<Vec<f64>> = pilot.iter().map(|s| rule.metric.value(s)).collect();
    let (Some(vals), false) = (vals, point_unstable(pilot)) else {
        return rule.min;
    };
    let n0 = vals.len() as f64;
    let mean = vals.iter().sum::<f64>() / n0;
    if mean == 0.0 {
        return rule.max;
    }
    let var = vals.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n0 - 1.0);
    let target = rule.rel_half_width * mean.abs();
    rule.checkpoints()
        .into_iter()
        .find(|&n| rule.half_width_meets(n, var, target))
        .unwrap_or(rule.max)
}

/// How the pilot (or Stein's) procedure ends on n replications whose
/// interval is `iv`:
/// met, or short of the target below `max`, or capped at it.
fn stop_at(rule: &PrecisionRule, iv: &Interval, n: u32) -> Stop {
    let met = iv.rel_half_width.is_some_and(|r| r <= rule.rel_half_width);
    match (met, n >= rule.max) {
        (true, _) => Stop::Met,
        (false, true) => Stop::Cap,
        (false, false) => Stop::Short,
    }
}

fn decide_pilot(rule: &PrecisionRule, summaries: &[Summary], pilot: &[Summary]) -> Decision {
    if (pilot.len() as u32) < rule.min {
        return Decision::Need {
            main: 0,
            pilot: rule.min,
        };
    }
    let n = pilot_replications(rule, pilot);
    if (summaries.len() as u32) < n {
        return Decision::Need {
            main: n,
            pilot: rule.min,
        };
    }
    conclude(
        rule,
        &summaries[..n as usize],
        &pilot[..rule.min as usize],
        |v| interval(v, rule.level),
    )
}

/// How a rule that chose n on `chooser` (its pilot, or Stein's first
/// stage) ends on replications 0..n, `upto`: unstable if either is, the
/// metric undefined if it is in one of them, else `read`'s interval of
/// their values, met, short or capped ([`stop_at`]).
fn conclude(
    rule: &PrecisionRule,
    upto: &[Summary],
    chooser: &[Summary],
    read: impl Fn(&[f64]) -> Interval,
) -> Decision {
    let done = |stop, interval| {
        Decision::Done(Outcome {
            stop,
            replications: upto.len() as u32,
            interval,
            paired: false,
        })
    };
    if point_unstable(chooser) || point_unstable(upto) {
        return done(Stop::Unstable, None);
    }
    let vals: Option<Vec<f64>> = upto.iter().map(|s| rule.metric.value(s)).collect();
    let Some(vals) = vals else {
        return done(Stop::Undefined, None);
    };
    let iv = read(&vals);
    done(stop_at(rule, &iv, upto.len() as u32), Some(iv))
}

/// The values of `rule`'s metric in `ys` and `cs` pairwise, if defined in
/// every one.
fn pairs(rule: &PrecisionRule, ys: &[Summary], cs: &[Summary]) -> Option<(Vec<f64>, Vec<f64>)> {
    ys.iter()
        .zip(cs)
        .map(|(y, c)| Some((rule.metric.value(y)?, rule.metric.value(c)?)))
        .collect::<Option<Vec<_>>>()
        .map(|v| v.into_iter().unzip())
}

/// How much narrower a control must make the pilot's interval to be paired
/// with: at most half the direct half-width. The pilot's β̂ and residual
/// variance rest on a few pairs; a control that does not halve the interval
/// there (for a pilot of 8, a squared correlation below about 0.8) gained
/// nothing reliable on the heavy-traffic sweep's weighted-random points,
/// whose intervals it widened by up to 1.7× where the pilot chose it with
/// the bar at 1.
pub(crate) const PAIR_GAIN: f64 = 0.5;

/// What a controlled pilot chooses: Some(n), the fewest n on the grid whose
/// expected control-variate half-width ([`PrecisionRule::controlled_half_width`],
/// s_e² the residual variance of the pilot's pairs about their least-squares
/// line) meets the target r·|m₀|, m₀ the pilot's controlled mean — when the
/// control is worth pairing with: its expected half-width at the pilot's
/// size at most [`PAIR_GAIN`] times the direct one's, t_{n−1}·s₀/√n.
/// None when it is not, or when
/// the pilot or its control is mostly unstable or the metric undefined:
/// the plain rule then decides ([`pilot_replications`]). The choice rests
/// on the pilots alone, seeds of their own, so the n replications and their
/// interval are an ordinary fixed-size sample either way.
pub fn controlled_pilot(
    rule: &PrecisionRule,
    exact: f64,
    pilot: &[Summary],
    control: &[Summary],
) -> Option<u32> {
    let (mean, _, var) = worth_pairing(rule, exact, pilot, control)?;
    let target = rule.rel_half_width * mean.abs();
    Some(
        rule.checkpoints()
            .into_iter()
            .find(|&n| rule.controlled_half_width(n, var) <= target)
            .unwrap_or(rule.max),
    )
}

/// The first `min` pairs of `ys` and its control `cs`, when the control is
/// worth pairing with ([`controlled_pilot`]'s test): their control-variate
/// estimate (β fitted), its half-width and their residual variance.
fn worth_pairing(
    rule: &PrecisionRule,
    exact: f64,
    ys: &[Summary],
    cs: &[Summary],
) -> Option<(f64, f64, f64)> {
    let (ys, cs) = (&ys[..rule.min as usize], &cs[..rule.min as usize]);
    if point_unstable(ys) || point_unstable(cs) {
        return None;
    }
    let (ys, cs) = pairs(rule, ys, cs)?;
    let (mean, half_width, _) = control_variate(&ys, &cs, exact, rule.level, true)?;
    let var = residual_variance(&ys, &cs);
    let direct = interval(&ys, rule.level).half_width;
    (mean != 0.0 && rule.controlled_half_width(rule.min, var) <= PAIR_GAIN * direct)
        .then_some((mean, half_width, var))
}

/// The pilot procedure with a control ([`RuleControl`]): both points'
/// pilots decide whether to pair and n ([`controlled_pilot`]); paired, the
/// interval is the control-variate interval (β fitted) of pairs 0..n, else
/// the plain rule's.
fn decide_controlled(
    rule: &PrecisionRule,
    exact: f64,
    summaries: &[Summary],
    pilot: &[Summary],
    control: Paired,
) -> Decision {
    let min = rule.min as usize;
    if pilot.len() < min || control.pilot.len() < min {
        return Decision::Need {
            main: 0,
            pilot: rule.min,
        };
    }
    let Some(n) = controlled_pilot(rule, exact, pilot, control.pilot) else {
        return decide_pilot(rule, summaries, pilot);
    };
    if summaries.len() < n as usize || control.summaries.len() < n as usize {
        return Decision::Need {
            main: n,
            pilot: rule.min,
        };
    }
    let n = n as usize;
    conclude_paired(
        rule,
        exact,
        (&summaries[..n], &control.summaries[..n]),
        &pilot[..min],
        None,
    )
}

/// How a rule paired with its control ends on pairs 0..n, (`upto`, `cs`),
/// chosen on `chooser` (the pilot, or Stein's first stage): unstable if
/// either is, the metric undefined if it is in a pair, else the control-
/// variate interval (β fitted; Stein's form with a `first` stage) — or, with
/// the control mostly unstable here, which has no steady-state mean to pair
/// against, the point's own interval as without a control.
fn conclude_paired(
    rule: &PrecisionRule,
    exact: f64,
    (upto, cs): (&[Summary], &[Summary]),
    chooser: &[Summary],
    first: Option<usize>,
) -> Decision {
    let n = upto.len() as u32;
    let done = |stop, interval, paired| {
        Decision::Done(Outcome {
            stop,
            replications: n,
            interval,
            paired,
        })
    };
    if point_unstable(chooser) || point_unstable(upto) {
        return done(Stop::Unstable, None, false);
    }
    let Some((ys, xs)) = pairs(rule, upto, cs) else {
        return done(Stop::Undefined, None, false);
    };
    let controlled = (!point_unstable(cs))
        .then(|| control_variate_of(&ys, &xs, exact, first, rule.level, true))
        .flatten()
        .map(|(mean, half_width, _)| Interval {
            n,
            mean,
            half_width,
            rel_half_width: (mean != 0.0).then(|| half_width / mean.abs()),
        });
    let paired = controlled.is_some();
    let iv = controlled.unwrap_or_else(|| interval_of(&ys, first, rule.level));
    done(stop_at(rule, &iv, n), Some(iv), paired)
}

/// The replications Stein's procedure asks for, given its first stage
/// `first` (replications 0..min of the point): the fewest n ≥ min on the
/// grid min + k·step, at most max, with n ≥ (t_{min−1}·s₀/h)², h = r·|m₀|
/// the target at the first stage's mean m₀ and s₀ its standard deviation
/// (so Stein's half-width t_{min−1}·s₀/√n meets h). `min` when the first
/// stage is mostly unstable or its metric undefined (the point then
/// reports that); `max` when its mean is 0.
pub fn stein_replications(rule: &PrecisionRule, first: &[Summary]) -> u32 {
    let first = &first[..rule.min as usize];
    if point_unstable(first) || rule.stops_unsettled(first) {
        return rule.min;
    }
    std::iter::once(&rule.metric)
        .chain(&rule.also)
        .map(|m| stein_for(rule, m, first))
        .max()
        .unwrap_or(rule.min)
}

/// The n Stein's procedure chooses for metric `m` on the first stage
/// `first` (`min` when it is undefined there, or its first stage shows no
/// variance: the target is met).
fn stein_for(rule: &PrecisionRule, m: &MetricName, first: &[Summary]) -> u32 {
    match first
        .iter()
        .map(|s| m.value(s))
        .collect::<Option<Vec<f64>>>()
    {
        Some(vals) => stein_n(rule, &vals),
        None => rule.min,
    }
}

/// The n Stein's procedure chooses on a first stage of values `vals`.
fn stein_n(rule: &PrecisionRule, vals: &[f64]) -> u32 {
    let iv = interval(vals, rule.level);
    if iv.half_width == 0.0 {
        return rule.min;
    }
    if iv.mean == 0.0 {
        return rule.max;
    }
    let target = rule.rel_half_width * iv.mean.abs();
    // Stein's half-width at n is the first stage's at min times √(min/n).
    let want = (iv.half_width / target).powi(2) * rule.min as f64;
    rule.checkpoints()
        .into_iter()
        .find(|&n| n as f64 >= want)
        .unwrap_or(rule.max)
}

/// What Stein's procedure with a control chooses on its first stage, the
/// pairs 0..min of the point and its control: Some(n) when the control is
/// worth pairing with (the same test as [`controlled_pilot`], on these
/// pairs): `min` if the first stage's own control-variate interval meets
/// the target r·|m₀|, m₀ its estimate; else the fewest n on the grid whose
/// expected Stein half-width t_{min−2}·s_e₀·√((n − 2)/(n(n − 3))) meets it
/// (s_e₀² the first stage's residual variance; the root's factor is the
/// expected E[1/n + (C̄ − E\[C\])²/S_CC] of [`PrecisionRule::controlled_half_width`]).
/// None where the plain procedure decides.
pub fn stein_controlled(
    rule: &PrecisionRule,
    exact: f64,
    first: &[Summary],
    control: &[Summary],
) -> Option<u32> {
    let (mean, half_width, var) = worth_pairing(rule, exact, first, control)?;
    let target = rule.rel_half_width * mean.abs();
    if half_width <= target {
        return Some(rule.min);
    }
    Some(
        rule.checkpoints()
            .into_iter()
            .filter(|&n| n > rule.min)
            .find(|&n| rule.stein_controlled_half_width(rule.min, n, var) <= target)
            .unwrap_or(rule.max),
    )
}

/// Stein's procedure with a control ([`RuleControl`]): the first stage's
/// pairs decide whether to pair and n ([`stein_controlled`]); paired, the
/// interval is Stein's control-variate interval of pairs 0..n
/// ([`stein_control_variate`], β fitted), else the plain procedure's.
fn decide_stein_controlled(
    rule: &PrecisionRule,
    exact: f64,
    summaries: &[Summary],
    control: &[Summary],
) -> Decision {
    let min = rule.min as usize;
    if summaries.len() < min || control.len() < min {
        return Decision::Need {
            main: rule.min,
            pilot: 0,
        };
    }
    if rule.stops_unsettled(&summaries[..min]) {
        return decide_stein(rule, summaries);
    }
    let Some(n) = stein_controlled(rule, exact, summaries, control) else {
        return decide_stein(rule, summaries);
    };
    if summaries.len() < n as usize || control.len() < n as usize {
        return Decision::Need { main: n, pilot: 0 };
    }
    let n = n as usize;
    conclude_paired(
        rule,
        exact,
        (&summaries[..n], &control[..n]),
        &summaries[..min],
        Some(min),
    )
}

fn decide_stein(rule: &PrecisionRule, summaries: &[Summary]) -> Decision {
    if (summaries.len() as u32) < rule.min {
        return Decision::Need {
            main: rule.min,
            pilot: 0,
        };
    }
    let n = if rule.control_only {
        rule.min
    } else {
        stein_replications(rule, summaries)
    };
    if (summaries.len() as u32) < n {
        return Decision::Need { main: n, pilot: 0 };
    }
    let first = rule.min as usize;
    match conclude(rule, &summaries[..n as usize], &summaries[..first], |v| {
        stein_interval(v, first, rule.level)
    }) {
        Decision::Done(o) if rule.control_only && matches!(o.stop, Stop::Short | Stop::Cap) => {
            Decision::Done(Outcome {
                stop: Stop::Control,
                ..o
            })
        }
        Decision::Done(o) if o.stop == Stop::Short && rule.stops_unsettled(&summaries[..first]) => {
            Decision::Done(Outcome {
                stop: Stop::Unsettled,
                ..o
            })
        }
        d => d,
    }
}

fn decide_sequential(rule: &PrecisionRule, summaries: &[Summary]) -> Decision {
    for n in rule.checkpoints() {
        if (summaries.len() as u32) < n {
            return Decision::Need { main: n, pilot: 0 };
        }
        let upto = &summaries[..n as usize];
        if point_unstable(upto) {
            return Decision::Done(Outcome {
                stop: Stop::Unstable,
                replications: n,
                interval: None,
                paired: false,
            });
        }
        let vals: Option<Vec<f64>> = upto.iter().map(|s| rule.metric.value(s)).collect();
        let Some(vals) = vals else {
            return Decision::Done(Outcome {
                stop: Stop::Undefined,
                replications: n,
                interval: None,
                paired: false,
            });
        };
        let iv = interval(&vals, rule.level);
        let met = iv.rel_half_width.is_some_and(|r| r <= rule.rel_half_width);
        if met || n >= rule.max {
            return Decision::Done(Outcome {
                stop: if met { Stop::Met } else { Stop::Cap },
                replications: n,
                interval: Some(iv),
                paired: false,
            });
        }
    }
    unreachable!("the last checkpoint is max")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stable slotted replication whose measured window is `trace`.
    fn run(trace: Vec<f64>) -> Summary {
        use lb_core::slotted::{RunSummary, Stability};
        Summary::Slotted(RunSummary {
            mean_queue: vec![1.0],
            stability: Stability {
                stable: true,
                slope: 0.0,
                p_value: 1.0,
                growth: 0.0,
            },
            ..RunSummary::unfollowed((0, 6400, 0), (1.0, 1.0), trace)
        })
    }

    /// Stein's rule on `mean_sum_q` at relative target `target`: a first
    /// stage of 4, at most 64, a second stage only where the first settled.
    fn stein_rule(target: f64) -> PrecisionRule {
        PrecisionRule {
            metric: MetricName("mean_sum_q".into()),
            rel_half_width: target,
            level: 0.95,
            min: 4,
            max: 64,
            step: 4,
            procedure: Procedure::Stein,
            control: None,
            also: Vec::new(),
            settled_first: true,
            control_only: false,
        }
    }

    /// Half a first stage that has not relaxed stops Stein's rule there; a
    /// single failing run of four (a chance a settled point runs) does not,
    /// nor does any without the rule's `settled_first`.
    #[test]
    fn a_plainly_unsettled_first_stage_is_all_the_point_runs() {
        let noise = |i: u64| ((((i * 2_654_435_761) & 0xffff_ffff) >> 3) % 13) as f64 - 6.0;
        let flat = |k: u64| -> Vec<f64> {
            (0..64u64)
                .map(|i| 100.0 + 30.0 * noise(i + 7 * k))
                .collect()
        };
        let rising: Vec<f64> = (0..64u64).map(|i| 10.0 * i as f64 + noise(i)).collect();
        let mut rule = stein_rule(0.0001);
        // Each run's mean differs, so the first stage misses the target.
        let at = |k: u64, trace: Vec<f64>| {
            let mut s = run(trace);
            if let Summary::Slotted(r) = &mut s {
                r.mean_sum_q = 100.0 + k as f64;
            }
            s
        };
        let half: Vec<Summary> = (0..4u64)
            .map(|k| at(k, if k < 2 { rising.clone() } else { flat(k) }))
            .collect();
        assert!(Settling::of(&half).plainly_unsettled());
        assert_eq!(stein_replications(&rule, &half), 4);
        let Decision::Done(o) = decide(&rule, &half, &[]) else {
            panic!("Stein's rule asked for more on an unsettled first stage")
        };
        assert_eq!((o.stop, o.replications), (Stop::Unsettled, 4));
        let one: Vec<Summary> = (0..4u64)
            .map(|k| at(k, if k < 1 { rising.clone() } else { flat(k) }))
            .collect();
        assert!(!Settling::of(&one).plainly_unsettled());
        assert!(stein_replications(&rule, &one) > 4);
        rule.settled_first = false;
        assert!(stein_replications(&rule, &half) > 4);
    }

    /// A control variate's point that nothing reads on its own stops at its
    /// first stage, though its variance asks for more; the same rule without
    /// `control_only` asks for them.
    #[test]
    fn a_control_only_point_stops_at_its_first_stage() {
        let noise = |i: u64| ((((i * 2_654_435_761) & 0xffff_ffff) >> 3) % 13) as f64 - 6.0;
        let first: Vec<Summary> = (0..4u64)
            .map(|k| {
                let mut s = run((0..64u64).map(|i| 100.0 + noise(i + 7 * k)).collect());
                if let Summary::Slotted(r) = &mut s {
                    r.mean_sum_q = 100.0 + 10.0 * k as f64;
                }
                s
            })
            .collect();
        let mut rule = stein_rule(0.01);
        let Decision::Need { main, .. } = decide(&rule, &first, &[]) else {
            panic!("a first stage 10% wide met a 1% target")
        };
        assert!(main > 4);
        rule.control_only = true;
        let Decision::Done(o) = decide(&rule, &first, &[]) else {
            panic!("a control-only point asked for more than its first stage")
        };
        assert_eq!((o.stop, o.replications), (Stop::Control, 4));
    }

    #[test]
    fn checkpoints_end_at_max() {
        let r = PrecisionRule {
            metric: MetricName("mean_sum_q".into()),
            rel_half_width: 0.1,
            level: 0.95,
            min: 3,
            max: 10,
            step: 4,
            procedure: Procedure::Sequential,
            control: None,
            also: Vec::new(),
            settled_first: false,
            control_only: false,
        };
        assert_eq!(r.checkpoints(), vec![3, 7, 10]);
    }

    #[test]
    fn steins_n_meets_the_target_and_reads_no_variance_as_met() {
        let r = PrecisionRule {
            metric: MetricName("mean_sum_q".into()),
            rel_half_width: 0.05,
            level: 0.95,
            min: 4,
            max: 20,
            step: 4,
            procedure: Procedure::Stein,
            control: None,
            also: Vec::new(),
            settled_first: false,
            control_only: false,
        };
        // Identically 0 (a metric that never occurred): the target is met.
        assert_eq!(stein_n(&r, &[0.0; 4]), 4);
        // Mean 0 with variance: no relative target can be met.
        assert_eq!(stein_n(&r, &[-1.0, 1.0, -1.0, 1.0]), 20);
        // Around 10 the target is 0.5, and n ≥ 4·(h₀/0.5)² for the first
        // stage's half-width h₀ = t₃·s₀/2, rounded up to the grid 4, 8, …:
        // s₀ = 1.15, h₀ = 1.84, n ≥ 54, capped at 20;
        assert_eq!(stein_n(&r, &[9.0, 11.0, 9.0, 11.0]), 20);
        // s₀ = 0.58, h₀ = 0.92, n ≥ 13.5: 16;
        assert_eq!(stein_n(&r, &[9.5, 10.5, 9.5, 10.5]), 16);
        // s₀ = 0.12, h₀ = 0.18, n ≥ 0.5: the first stage.
        assert_eq!(stein_n(&r, &[9.9, 10.1, 9.9, 10.1]), 4);
    }

    #[test]
    fn interval_matches_a_hand_computation() {
        // mean 2, s² = 1, n = 3: t_{0.975, 2} = 4.302653
        let iv = interval(&[1.0, 2.0, 3.0], 0.95);
        assert!((iv.half_width - 4.302_652_729_911 / 3f64.sqrt()).abs() < 1e-9);
        assert_eq!(iv.mean, 2.0);
    }

    #[test]
    fn steins_interval_reads_the_first_stages_variance() {
        // First stage [1, 2, 3]: s₀ = 1, t_{0.975, 2} = 4.302653; then 7 more.
        let xs = [1.0, 2.0, 3.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0];
        let iv = stein_interval(&xs, 3, 0.95);
        assert_eq!(iv.n, 10);
        assert!((iv.mean - 7.6).abs() < 1e-12);
        assert!((iv.half_width - 4.302_652_729_911 / 10f64.sqrt()).abs() < 1e-9);
        // With n = the first stage it is the Student-t interval.
        assert_eq!(stein_interval(&xs[..3], 3, 0.95), interval(&xs[..3], 0.95));
        assert_eq!(interval_of(&xs, None, 0.95), interval(&xs, 0.95));
        assert_eq!(interval_of(&xs, Some(3), 0.95), iv);
    }

    #[test]
    fn control_variates_match_a_hand_computation() {
        // X = Y + 1 + small noise; E[Y] = 10 exactly, the sample mean of Y is 11.
        let ys = [9.0, 13.0, 10.0, 12.0, 11.0];
        let noise = [0.01, -0.01, 0.02, -0.02, 0.0];
        let xs: Vec<f64> = ys.iter().zip(noise).map(|(y, e)| y + 1.0 + e).collect();
        // β = 1: E[Y] + mean(X − Y) = 10 + 1; the interval of the differences.
        let (est, hw, beta) = control_variate(&xs, &ys, 10.0, 0.95, false).unwrap();
        assert!((est - 11.0).abs() < 1e-12 && beta == 1.0);
        let d: Vec<f64> = xs.iter().zip(&ys).map(|(x, y)| x - y).collect();
        assert!((hw - interval(&d, 0.95).half_width).abs() < 1e-12);
        // Fitted: β̂ = Sxy/Syy, mean(X) − β̂(mean(Y) − 10), n − 2 degrees of freedom.
        let (est, hw_f, beta) = control_variate(&xs, &ys, 10.0, 0.95, true).unwrap();
        let (mx, my) = (xs.iter().sum::<f64>() / 5.0, 11.0);
        let syy: f64 = ys.iter().map(|y| (y - my).powi(2)).sum();
        let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
        assert!((beta - sxy / syy).abs() < 1e-12);
        assert!((est - (mx - beta * (my - 10.0))).abs() < 1e-12);
        // Both far narrower than X's own interval (X varies by ±2).
        let direct = interval(&xs, 0.95).half_width;
        assert!(
            hw < direct / 20.0 && hw_f < direct / 20.0,
            "{hw} {hw_f} {direct}"
        );
        assert!(control_variate(&xs[..2], &ys[..2], 10.0, 0.95, true).is_none());
    }

    #[test]
    fn steins_control_variate_reads_the_first_stages_residuals() {
        // Y = 2 + 3C + e; the first 4 pairs' residuals alone set the width.
        let cs = [1.0, 2.0, 3.0, 4.0, 1.5, 2.5, 3.5, 0.5, 4.5, 2.0];
        let e = [0.1, -0.2, 0.15, -0.05, 0.3, -0.3, 0.0, 0.2, -0.1, 0.05];
        let ys: Vec<f64> = cs.iter().zip(e).map(|(c, e)| 2.0 + 3.0 * c + e).collect();
        let exact = 2.5;
        // With n = the first stage it is the ordinary interval.
        assert_eq!(
            stein_control_variate(&ys[..4], &cs[..4], exact, 4, 0.95, true),
            control_variate(&ys[..4], &cs[..4], exact, 0.95, true)
        );
        let (est, hw, beta) = stein_control_variate(&ys, &cs, exact, 4, 0.95, true).unwrap();
        // The estimate and β̂ are the full sample's.
        let (est_all, hw_all, beta_all) = control_variate(&ys, &cs, exact, 0.95, true).unwrap();
        assert_eq!((est, beta), (est_all, beta_all));
        // The width: t_{0.975, 2} = 4.302653 on the first stage's residual
        // variance, times the full sample's √(1/n + (C̄ − E[C])²/S_CC).
        let s2 = residual_variance(&ys[..4], &cs[..4]);
        let mc = cs.iter().sum::<f64>() / 10.0;
        let scc: f64 = cs.iter().map(|c| (c - mc).powi(2)).sum();
        let want = 4.302_652_729_911 * (s2 * (0.1 + (mc - exact).powi(2) / scc)).sqrt();
        assert!((hw - want).abs() < 1e-9, "{hw} against {want}");
        assert!(hw != hw_all);
        // β = 1: Stein's interval of the differences.
        let d: Vec<f64> = ys.iter().zip(&cs).map(|(y, c)| y - c).collect();
        let (est1, hw1, _) = stein_control_variate(&ys, &cs, exact, 4, 0.95, false).unwrap();
        let iv = stein_interval(&d, 4, 0.95);
        assert_eq!((est1, hw1), (exact + iv.mean, iv.half_width));
        assert_eq!(
            control_variate_of(&ys, &cs, exact, Some(4), 0.95, true),
            Some((est, hw, beta))
        );
        assert!(stein_control_variate(&ys, &cs, exact, 2, 0.95, true).is_none());
    }
}
