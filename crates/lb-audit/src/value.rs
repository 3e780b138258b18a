//! Value and bound claims: a metric held, point by point, to a reference (a
//! number, or one the model computes at each point: [`lb_manifest::Model::references`]),
//! as equal to it within a tolerance or on one side of it. Paired per
//! replication with the reference, and sharpened by a control variate where
//! the claim names one ([`super::control`]).

use super::check::{Decision, PointCheck, Verdict};
use super::control::{ControlEstimate, control_estimate};
use super::points::{
    Scope, at_string, keys, point_stable, reference, selected, stats, undecided, values,
};
use super::words::{sig5, with_tolerance};
use lb_analysis::metric::Metric;
use lb_analysis::results::PointResult;
use lb_manifest::claim::{Bound, Control, Side, Value};
use lb_manifest::outputs::Reference;

/// The checks of a value claim: one per point of each policy.
pub(super) fn value_checks(c: &Value, s: Scope) -> Vec<PointCheck> {
    let held = Held {
        policies: &c.policies,
        reference: &c.expected,
        control: c.control.as_ref(),
    };
    held.checks(s, |at| value_check(c, at, s.shift))
}

/// The checks of a bound claim: one per point of each policy.
pub(super) fn bound_checks(c: &Bound, s: Scope) -> Vec<PointCheck> {
    let held = Held {
        policies: &c.policies,
        reference: &c.bound,
        control: c.control.as_ref(),
    };
    held.checks(s, |at| bound_check(c, s.metric, at, s.shift))
}

/// What a value and a bound claim share: the metric of `policies` within
/// the scope's `where`, held point by point to a reference, estimated with a
/// control variate if the claim names one.
struct Held<'a> {
    policies: &'a [String],
    reference: &'a Reference,
    control: Option<&'a Control>,
}

impl Held<'_> {
    /// One check per point of each policy that has replications, `judge`
    /// deciding it from the point's reading.
    fn checks(&self, s: Scope, judge: impl Fn(&Reading) -> PointCheck) -> Vec<PointCheck> {
        let mut checks = Vec::new();
        for label in self.policies {
            for r in selected(s.filter, s.results, label) {
                checks.extend(self.check_at(s, r, label, &judge));
            }
        }
        checks
    }

    /// The check at `r`; None when the point has no replications yet.
    fn check_at(
        &self,
        s: Scope,
        r: &PointResult,
        label: &str,
        judge: &impl Fn(&Reading) -> PointCheck,
    ) -> Option<PointCheck> {
        let (m, results, level) = (s.metric, s.results, s.level);
        let p = r.point.as_ref()?;
        let vals = values(m, p, &r.summaries);
        if vals.is_empty() {
            return None;
        }
        let refs: Result<Vec<f64>, String> = vals
            .iter()
            .map(|(rep, _)| reference(self.reference, m.name(), r, *rep))
            .collect();
        let refs = match refs {
            Ok(v) => v,
            Err(e) => return Some(undecided(r, label, vals.len(), e)),
        };
        let xs: Vec<f64> = vals.iter().map(|v| v.1).collect();
        let cv = self
            .control
            .map(|k| control_estimate(k, m, r, &vals, results, level));
        // A transient metric (a growth rate, a level at the end) is
        // read on unstable points too.
        let stable = point_stable(r) || m.transient();
        let mean_ref = refs.iter().sum::<f64>() / refs.len() as f64;
        let at = Reading {
            r,
            label,
            xs,
            refs,
            mean_ref,
            cv,
            stable,
            level,
        };
        let mut check = judge(&at);
        match at.cv {
            Some(Ok(e)) => {
                let note = e.describe(m);
                check.note = Some(match check.note {
                    Some(n) => format!("{n}; {note}"),
                    None => note,
                });
            }
            Some(Err(e)) => {
                check.note = Some(match check.note {
                    Some(n) => format!("{n}; {e}"),
                    None => e,
                });
            }
            None => {}
        }
        Some(check)
    }
}

/// One point of a value or bound claim, read: its replications' values, the
/// reference at each, and the control variate's estimate if any.
struct Reading<'a> {
    r: &'a PointResult,
    label: &'a str,
    xs: Vec<f64>,
    refs: Vec<f64>,
    /// The reference's mean over the replications (constant but for
    /// `pooled`): the expected value, or the bound.
    mean_ref: f64,
    /// The control variate's estimate of the metric, if any.
    cv: Option<Result<ControlEstimate, String>>,
    stable: bool,
    level: f64,
}

/// A value claim at one point: the interval of metric − expected within the
/// tolerance (or covering 0 without one); `shift` moves the expected value
/// away from the measurement (the audit's mutants).
fn value_check(c: &Value, at: &Reading, shift: f64) -> PointCheck {
    let (r, label, xs, refs, stable, level) =
        (at.r, at.label, &at.xs, &at.refs, at.stable, at.level);
    // Paired per replication: a reference drawn on the same
    // streams (`pooled`) keeps its pairing; a constant one
    // leaves the metric's own interval.
    let expected = at.mean_ref;
    let diffs: Vec<f64> = xs.iter().zip(refs).map(|(x, e)| x - e).collect();
    let (dmean, hw) = match &at.cv {
        Some(Ok(e)) => (e.estimate - expected, Some(e.half_width)),
        _ => stats(&diffs, r.first_stage, level),
    };
    let mean = dmean + expected;
    let tol = c.tolerance.around(expected);
    let decided = stable && hw.is_some_and(f64::is_finite);
    let decision = Decision::Within {
        deviation: dmean,
        half_width: hw.unwrap_or(f64::INFINITY),
        tolerance: tol,
        scale: expected,
    }
    .shifted(shift);
    // A policy with no steady state has no finite value to equal.
    let verdict = if decided {
        decision.verdict()
    } else if !stable {
        Verdict::Refuted
    } else {
        Verdict::Inconclusive
    };
    let threshold = if tol == 0.0 {
        format!("= {} (interval must cover it)", sig5(expected))
    } else {
        with_tolerance(expected, &c.tolerance)
    };
    PointCheck {
        at: at_string(r),
        axes: r.axes.clone(),
        policy: label.to_string(),
        measured: mean,
        half_width: hw,
        replications: xs.len(),
        threshold,
        reference: Some(expected),
        verdict,
        note: if !stable {
            Some("unstable: no steady state, so no finite value to equal".into())
        } else if hw.is_none() {
            Some("one replication: no interval".into())
        } else {
            None
        },
        keys: keys(&[r]),
        decision: decided.then_some(decision),
        unsettled: None,
        longer: None,
        uninformative: None,
        exact_fails: false,
        rate: None,
        false_unstable: None,
    }
}

/// A bound claim at one point: the paired margin metric − bound (≥ side)
/// or bound − metric (≤ side) per replication, its interval above 0;
/// `shift` moves the bound toward the measurement (the audit's mutants).
fn bound_check(c: &Bound, m: Metric, at: &Reading, shift: f64) -> PointCheck {
    let (r, label, xs, refs, stable, level) =
        (at.r, at.label, &at.xs, &at.refs, at.stable, at.level);
    let ge = c.side == Side::Ge;
    let margins: Vec<f64> = xs
        .iter()
        .zip(refs)
        .map(|(x, b)| if ge { x - b } else { b - x })
        .collect();
    let bound = at.mean_ref;
    let (mean, hw) = match &at.cv {
        Some(Ok(e)) => {
            let margin = if ge {
                e.estimate - bound
            } else {
                bound - e.estimate
            };
            (margin, Some(e.half_width))
        }
        _ => stats(&margins, r.first_stage, level),
    };
    let metric_mean = xs.iter().sum::<f64>() / xs.len() as f64;
    let decision = Decision::Above {
        estimate: mean - shift,
        half_width: hw.unwrap_or(f64::INFINITY),
        strict: false,
        equivalence: 0.0,
        scale: bound,
    };
    // Measured: the paired margin (on the claimed side when
    // > 0) with its own interval; the metric's mean is in
    // the note.
    PointCheck {
        at: at_string(r),
        axes: r.axes.clone(),
        reference: Some(bound),
        policy: label.to_string(),
        measured: mean,
        half_width: hw,
        replications: xs.len(),
        threshold: format!(
            "margin {} > 0: {} {} {}",
            if ge {
                "metric − bound"
            } else {
                "bound − metric"
            },
            m.name(),
            if ge { "≥" } else { "≤" },
            match &c.bound {
                Reference::Named(n) => format!("{n} ({})", sig5(bound)),
                Reference::Number(x) => x.to_string(),
            }
        ),
        verdict: if stable {
            decision.verdict()
        } else {
            Verdict::Inconclusive
        },
        note: Some(if stable {
            // The replications' own mean may lie on the failing side while
            // the paired margin decides: say so where it is read.
            let other_side = if ge {
                metric_mean < bound
            } else {
                metric_mean > bound
            };
            format!(
                "{} = {} against the bound {}{}",
                m.name(),
                sig5(metric_mean),
                sig5(bound),
                if other_side {
                    " (this mean of the replications lies on the failing side of the bound; \
                     the verdict reads the paired margin's interval, beside)"
                } else {
                    ""
                }
            )
        } else {
            "unstable: no steady state to compare".into()
        }),
        keys: keys(&[r]),
        decision: stable.then_some(decision),
        unsettled: None,
        longer: None,
        uninformative: None,
        exact_fails: false,
        rate: None,
        false_unstable: None,
    }
}
