//! Run length by precision (SPEC §4 "Confidence intervals"): replications are
//! added in deterministic rounds until the relative half-width of the 95%
//! Student-t interval of the main metric meets a target, or a cap is reached.
//!
//! The rule is evaluated only at the checkpoints n = min, min + step, …, max,
//! on replications 0..n, so the decision is a function of the (deterministic)
//! records alone: the same whatever the thread count or the order in which
//! replications finished.

use crate::config::Summary;
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

/// A resolved precision rule, every default written out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrecisionRule {
    pub metric: MetricName,
    pub rel_half_width: f64,
    /// Confidence level of the interval (0.95).
    pub level: f64,
    pub min: u32,
    pub max: u32,
    pub step: u32,
}

impl PrecisionRule {
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
    /// Replications 0..n are needed before deciding.
    Need(u32),
    Done(Outcome),
}

/// Decides, given the summaries of replications 0..k (in order).
pub fn decide(rule: &PrecisionRule, summaries: &[Summary]) -> Decision {
    for n in rule.checkpoints() {
        if (summaries.len() as u32) < n {
            return Decision::Need(n);
        }
        let upto = &summaries[..n as usize];
        let bad = upto.iter().filter(|s| !s.stable()).count();
        // By majority, as lb_core::slotted::point_unstable.
        if 2 * bad > upto.len() {
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
