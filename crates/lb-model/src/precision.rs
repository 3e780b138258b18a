//! Run length by precision (SPEC §4 "Confidence intervals"): how many
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
//!
//! Either rule is evaluated only at fixed checkpoints on replications 0..n
//! (and the pilot's), so the decision is a function of the (deterministic)
//! records alone: the same whatever the thread count or the order in which
//! replications finished.

use crate::config::{Summary, point_unstable};
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

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
}

impl Procedure {
    pub fn is_sequential(&self) -> bool {
        *self == Procedure::Sequential
    }
}

/// A resolved precision rule, every default written out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrecisionRule {
    pub metric: MetricName,
    pub rel_half_width: f64,
    /// Confidence level of the interval (0.95).
    pub level: f64,
    /// The pilot's size (and the fewest replications a point runs); for
    /// the sequential procedure, its first look.
    pub min: u32,
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
}

fn sequential() -> Procedure {
    Procedure::Sequential
}

impl PrecisionRule {
    /// Whether n replications of variance `var` give a Student-t half-width
    /// t_{n−1}·√(var/n), at the rule's level, within `target`: the pilot's
    /// test ([`pilot_replications`]).
    pub fn half_width_meets(&self, n: u32, var: f64, target: f64) -> bool {
        let t = StudentsT::new(0.0, 1.0, (n - 1).max(1) as f64).expect("n ≥ 2");
        t.inverse_cdf(0.5 + self.level / 2.0) * (var / n as f64).sqrt() <= target
    }

    /// The most replication records the rule can read: `max` of the point's
    /// own and, for the pilot procedure, `min` of the pilot's.
    pub fn most(&self) -> u32 {
        match self.procedure {
            Procedure::Pilot => self.max + self.min,
            Procedure::Sequential => self.max,
        }
    }

    /// The replication indices of its pilot: PILOT_BASE..PILOT_BASE + min,
    /// none for the sequential rule.
    pub fn pilot(&self) -> std::ops::Range<u64> {
        let n = match self.procedure {
            Procedure::Pilot => self.min as u64,
            Procedure::Sequential => 0,
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
    /// sharded run): the pilot, then the point's; or one per checkpoint.
    pub fn rounds(&self) -> usize {
        match self.procedure {
            Procedure::Pilot => 2,
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

/// A Student-t interval over replications.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interval {
    pub n: u32,
    pub mean: f64,
    pub half_width: f64,
    /// half_width / |mean| (None when the mean is 0).
    pub rel_half_width: Option<f64>,
}

/// The `level` Student-t interval of `values` (n ≥ 2).
pub fn interval(values: &[f64], level: f64) -> Interval {
    let n = values.len();
    assert!(n >= 2, "an interval needs two values");
    let mean = values.iter().sum::<f64>() / n as f64;
    let var = values.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64).expect("n ≥ 2");
    let q = t.inverse_cdf(0.5 + level / 2.0);
    let half_width = q * (var / n as f64).sqrt();
    Interval {
        n: n as u32,
        mean,
        half_width,
        rel_half_width: (mean != 0.0).then(|| half_width / mean.abs()),
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
    /// interval (SPEC §1 "Metrics of a run").
    Unstable,
    /// The metric was undefined in a replication (no measured jobs).
    Undefined,
}

/// The outcome of a precision rule at a point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    pub stop: Stop,
    pub replications: u32,
    pub interval: Option<Interval>,
}

/// What a precision rule needs next.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Replications 0..main and pilot replications 0..pilot (indices from
    /// [`PILOT_BASE`]) are needed before deciding.
    Need {
        main: u32,
        pilot: u32,
    },
    Done(Outcome),
}

/// Decides, given the summaries of replications 0..k and of pilot
/// replications 0..j (each in order; the sequential procedure reads no
/// pilot).
pub fn decide(rule: &PrecisionRule, summaries: &[Summary], pilot: &[Summary]) -> Decision {
    match rule.procedure {
        Procedure::Sequential => decide_sequential(rule, summaries),
        Procedure::Pilot => decide_pilot(rule, summaries, pilot),
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
    let upto = &summaries[..n as usize];
    let pilot = &pilot[..rule.min as usize];
    let done = |stop, interval| {
        Decision::Done(Outcome {
            stop,
            replications: n,
            interval,
        })
    };
    if point_unstable(pilot) || point_unstable(upto) {
        return done(Stop::Unstable, None);
    }
    let vals: Option<Vec<f64>> = upto.iter().map(|s| rule.metric.value(s)).collect();
    let Some(vals) = vals else {
        return done(Stop::Undefined, None);
    };
    let iv = interval(&vals, rule.level);
    let met = iv.rel_half_width.is_some_and(|r| r <= rule.rel_half_width);
    let stop = match (met, n >= rule.max) {
        (true, _) => Stop::Met,
        (false, true) => Stop::Cap,
        (false, false) => Stop::Short,
    };
    done(stop, Some(iv))
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
            });
        }
        let vals: Option<Vec<f64>> = upto.iter().map(|s| rule.metric.value(s)).collect();
        let Some(vals) = vals else {
            return Decision::Done(Outcome {
                stop: Stop::Undefined,
                replications: n,
                interval: None,
            });
        };
        let iv = interval(&vals, rule.level);
        let met = iv.rel_half_width.is_some_and(|r| r <= rule.rel_half_width);
        if met || n >= rule.max {
            return Decision::Done(Outcome {
                stop: if met { Stop::Met } else { Stop::Cap },
                replications: n,
                interval: Some(iv),
            });
        }
    }
    unreachable!("the last checkpoint is max")
}

#[cfg(test)]
mod tests {
    use super::*;

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
        };
        assert_eq!(r.checkpoints(), vec![3, 7, 10]);
    }

    #[test]
    fn interval_matches_a_hand_computation() {
        // mean 2, s² = 1, n = 3: t_{0.975, 2} = 4.302653
        let iv = interval(&[1.0, 2.0, 3.0], 0.95);
        assert!((iv.half_width - 4.302_652_729_911 / 3f64.sqrt()).abs() < 1e-9);
        assert_eq!(iv.mean, 2.0);
    }
}
