//! Ordering claims ("`better` beats `worse`"): at every point of `better`,
//! the *paired* difference `worse − better` across replications. The engine
//! gives every policy at a point the same arrivals and service (docs/MODEL.md §4), so
//! replication r of the two policies is a matched pair and the interval is
//! that of the difference, not two overlapping intervals.

use super::check::{Decision, PointCheck, Uninformative, Verdict, Why};
use super::points::{Scope, at_string, keys, point_stable, same_point, selected, stats, values};
use lb_analysis::metric::Metric;
use lb_analysis::results::{PointResult, paired_differences};
use lb_manifest::claim::Ordering;

/// The checks of an ordering claim: one per point of `better`, against its
/// partner of `worse` at the same axis values.
pub(super) fn checks(c: &Ordering, s: Scope) -> Vec<PointCheck> {
    let (filter, m, results) = (s.filter, s.metric, s.results);
    let (level, shift) = (s.level, s.shift);
    let (better, worse) = (c.better.as_str(), c.worse.as_str());
    let mut checks = Vec::new();
    for b in selected(filter, results, better) {
        // The partner at the same axis values.
        let Some(w) = selected(filter, results, worse)
            .into_iter()
            .find(|w| same_point(w, b))
        else {
            checks.push(PointCheck {
                at: at_string(b),
                axes: b.axes.clone(),
                policy: format!("{worse} − {better}"),
                measured: f64::NAN,
                half_width: None,
                replications: 0,
                threshold: String::new(),
                reference: None,
                verdict: Verdict::Inconclusive,
                note: Some(format!("no {worse} point at these axis values")),
                keys: keys(&[b]),
                decision: None,
                unsettled: None,
                longer: None,
                uninformative: None,
                exact_fails: false,
                rate: None,
                false_unstable: None,
            });
            continue;
        };
        checks.extend(paired(
            m,
            b,
            w,
            (better, worse),
            (c.equivalence, level, shift),
            c.overhead_ratio,
        ));
    }
    checks
}

/// The paired difference `worse − better` of `m` between the points `b` and
/// `w`, held above 0 (or the equivalence margin; `shift` moves the
/// threshold, for the audit's mutants); None when either has no
/// replications to pair yet. An unstable policy loses: `worse` unstable
/// confirms, `better` unstable refutes.
fn paired(
    m: Metric,
    b: &PointResult,
    w: &PointResult,
    (better, worse): (&str, &str),
    (equivalence, level, shift): (f64, f64, f64),
    overhead_ratio: Option<f64>,
) -> Option<PointCheck> {
    // Matched pairs: replication r of each policy shares arrivals and service.
    let diffs = paired_differences(m, b, w)?;
    let vb = values(m, b.point.as_ref()?, &b.summaries);
    if diffs.is_empty() {
        return None;
    }
    let (mean, hw) = stats(&diffs, lb_analysis::results::pair_first_stage(b, w), level);
    let (sb, sw) = if m.transient() {
        (true, true)
    } else {
        (point_stable(b), point_stable(w))
    };
    let scale = vb.iter().map(|v| v.1).sum::<f64>() / vb.len() as f64;
    let decision = Decision::Above {
        estimate: mean - shift,
        half_width: hw.unwrap_or(f64::INFINITY),
        strict: true,
        equivalence,
        scale,
    };
    // Where a side diverges the point is decided by stability, and no mean
    // is read: an unstable point's mean describes no steady state.
    let (verdict, note) = match (sb, sw) {
        (true, true) => (decision.verdict(), None),
        (true, false) => (
            Verdict::Confirmed,
            Some(format!(
                "{better} is stable where {worse} is not (decided by stability, not by means)"
            )),
        ),
        (false, true) => (
            Verdict::Refuted,
            Some(format!(
                "{worse} is stable where {better} is not (decided by stability, not by means)"
            )),
        ),
        (false, false) => (Verdict::Inconclusive, Some("both unstable".to_string())),
    };
    let negligible = super::points::NEGLIGIBLE * scale.abs();
    let overhead = overhead_ratio.and_then(|k| over_budget(b, w, (better, worse), k));
    let uninformative = overhead.or_else(|| {
        (sb && sw)
            .then(|| {
                let floor = super::points::at_floor(m, &[b, w], level)
                    .map(|u| Uninformative::new(Why::EverySideAtFloor, u));
                floor.or_else(|| {
                    let h = hw?;
                    (equivalence == 0.0 && (mean - h) >= -negligible && (mean + h) <= negligible)
                        .then(|| {
                            Uninformative::new(
                                Why::Negligible,
                                format!(
                                    "no effect a figure could show: the difference {} ± {} lies \
                                 within ±{:.0}% of {}",
                                    super::words::num(mean, 3),
                                    super::words::num(h, 2),
                                    100.0 * super::points::NEGLIGIBLE,
                                    super::words::num(scale, 4)
                                ),
                            )
                        })
                })
            })
            .flatten()
    });
    let (measured, half_width) = if sb && sw {
        (mean, hw)
    } else {
        (f64::NAN, None)
    };
    Some(PointCheck {
        at: at_string(b),
        axes: b.axes.clone(),
        policy: format!("{worse} − {better}"),
        measured,
        half_width,
        replications: diffs.len(),
        threshold: if equivalence > 0.0 {
            format!(
                "paired difference of {} > {} (the equivalence margin)",
                m.name(),
                super::words::sig5(equivalence)
            )
        } else {
            format!("paired difference of {} > 0", m.name())
        },
        reference: None,
        verdict,
        note,
        keys: keys(&[b, w]),
        decision: (sb && sw).then_some(decision),
        unsettled: None,
        longer: None,
        uninformative,
        exact_fails: false,
        rate: None,
        false_unstable: None,
    })
}

/// Where the statement compares at a message overhead and `better` sends
/// more than `ratio` times `worse`'s messages per arrival at this point (the
/// means of their replications): the point compares at another overhead and
/// decides nothing (docs/AUDITING.md, "Uninformative points").
fn over_budget(
    b: &PointResult,
    w: &PointResult,
    (better, worse): (&str, &str),
    ratio: f64,
) -> Option<Uninformative> {
    let mean = |r: &PointResult| {
        let p = r.point.as_ref()?;
        let xs: Vec<f64> = r
            .summaries
            .iter()
            .filter_map(|s| p.metric("messages_per_arrival", s))
            .collect();
        (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
    };
    let (mb, mw) = (mean(b)?, mean(w)?);
    (mb > ratio * mw).then(|| {
        Uninformative::new(
            Why::Overhead,
            format!(
                "not at the overhead its statement names: {better} sends {} messages per \
                 arrival, {worse} {} (more than {} times)",
                super::words::num(mb, 3),
                super::words::num(mw, 3),
                super::words::num(ratio, 3)
            ),
        )
    })
}
