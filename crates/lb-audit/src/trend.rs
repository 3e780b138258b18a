//! Trend claims ("the metric rises (falls) along the axis"): every step
//! between neighbouring points of a series, other axes fixed, judged on the
//! interval of the change.

use super::check::{Decision, PointCheck, Verdict};
use super::points::{Scope, axes_string, keys, point_stable, series, stats, values};
use super::words::sig5;
use lb_analysis::metric::Metric;
use lb_analysis::results::{PointResult, paired_differences};
use lb_manifest::Point;
use lb_manifest::claim::{Direction, Trend};

/// The checks of a trend claim: one per step between neighbouring points of
/// each series of each policy.
pub(super) fn checks(c: &Trend, s: Scope) -> Vec<PointCheck> {
    let (filter, m, results) = (s.filter, s.metric, s.results);
    let (level, shift) = (s.level, s.shift);
    let along = c.along.as_str();
    let up = c.direction == Direction::Increasing;
    let held = Held {
        up,
        equivalence: c.equivalence,
        level,
        shift,
    };
    let mut checks = Vec::new();
    for label in &c.policies {
        for rs in series(filter, results, label, along) {
            for w in rs.windows(2) {
                checks.extend(trend_step(m, w[0], w[1], along, &held, label));
            }
        }
    }
    checks
}

/// What a trend holds each step to: its direction (`up`), its equivalence
/// margin, the level of its intervals, and the threshold's shift (the
/// audit's mutants).
struct Held {
    up: bool,
    equivalence: f64,
    level: f64,
    shift: f64,
}

/// One step of a trend claim: neighbouring points `a` → `b` along `along`,
/// the metric claimed to rise (`up`) or fall. A real metric is judged on the
/// interval of the difference; a proportion of counted events on its own
/// (pooled) interval at each point being apart — per-replication differences
/// of rare events decide nothing. None when either point has no value yet.
fn trend_step(
    m: Metric,
    a: &PointResult,
    b: &PointResult,
    along: &str,
    held: &Held,
    label: &str,
) -> Option<PointCheck> {
    let (up, level) = (held.up, held.level);
    let (pa, pb) = (a.point.as_ref()?, b.point.as_ref()?);
    let va = values(m, pa, &a.summaries);
    // Replication r of each point: independent streams (the system differs),
    // paired by index only to form differences.
    let diffs = paired_differences(m, a, b)?;
    if diffs.is_empty() {
        return None;
    }
    let stable = m.transient() || (point_stable(a) && point_stable(b));
    let est = |r: &PointResult, p: &Point| {
        let xs: Vec<f64> = values(m, p, &r.summaries).iter().map(|v| v.1).collect();
        let cs: Option<Vec<(u64, u64)>> = r.summaries.iter().map(|s| s.counts(m.name())).collect();
        lb_analysis::stats::estimate(m.kind(), &xs, cs.as_deref(), r.first_stage, level)
    };
    let apart = if m.kind() == lb_model::MetricKind::Proportion {
        match (est(a, pa), est(b, pb)) {
            (Some(ea), Some(eb)) => match (ea.lo, ea.hi, eb.lo, eb.hi) {
                (Some(la), Some(ha), Some(lb), Some(hb)) => Some((ea, eb, la, ha, lb, hb)),
                _ => None,
            },
            _ => None,
        }
    } else {
        None
    };
    let mut decision = None;
    let (mean, hw, verdict, note) = match apart {
        Some((ea, eb, la, ha, lb, hb)) => {
            let verdict = if !stable {
                Verdict::Inconclusive
            } else if (up && lb > ha) || (!up && hb < la) {
                Verdict::Confirmed
            } else if (up && hb < la) || (!up && lb > ha) {
                Verdict::Refuted
            } else {
                Verdict::Inconclusive
            };
            let note = format!(
                "{} [{}, {}] → {} [{}, {}] ({} intervals)",
                sig5(ea.mean),
                sig5(la),
                sig5(ha),
                sig5(eb.mean),
                sig5(lb),
                sig5(hb),
                eb.kind.word()
            );
            (eb.mean - ea.mean, None, verdict, Some(note))
        }
        None => {
            let (mean, hw) = stats(&diffs, lb_analysis::results::pair_first_stage(a, b), level);
            let before = va.iter().map(|v| v.1).sum::<f64>() / va.len() as f64;
            let d = Decision::Above {
                estimate: if up { mean } else { -mean } - held.shift,
                half_width: hw.unwrap_or(f64::INFINITY),
                strict: true,
                equivalence: held.equivalence,
                scale: before,
            };
            let verdict = if stable {
                decision = Some(d);
                d.verdict()
            } else {
                Verdict::Inconclusive
            };
            (mean, hw, verdict, None)
        }
    };
    let (xa, xb) = (a.axis(along).unwrap_or("?"), b.axis(along).unwrap_or("?"));
    let mut axes = b.axes.clone();
    for (ax, v) in axes.iter_mut() {
        if ax == along {
            *v = format!("{xa}→{xb}");
        }
    }
    Some(PointCheck {
        at: axes_string(&axes),
        axes,
        policy: label.to_string(),
        measured: mean,
        half_width: hw,
        replications: diffs.len(),
        threshold: format!(
            "{} change of {} from {along} = {xa} to {xb} > 0",
            if up { "the" } else { "minus the" },
            m.name()
        ),
        reference: None,
        verdict,
        note: if stable {
            note
        } else {
            Some("unstable: no steady state to compare".into())
        },
        keys: keys(&[a, b]),
        decision,
        unsettled: None,
        longer: None,
        uninformative: None,
        exact_fails: false,
        rate: None,
        false_unstable: None,
    })
}
