//! Reading a claim's points: the points it selects (by policy and `where`),
//! their values by replication, named references, intervals, and the
//! verdict of a sign — what every kind of claim reads its points with.

use super::check::{PointCheck, Verdict};
use lb_analysis::metric::Metric;
use lb_analysis::results::PointResult;
use lb_manifest::outputs::{Reference, Where, where_matches};
use lb_manifest::{Point, Summary};

/// What a claim of any kind is read with: the points its `where` selects
/// from `results`, the metric, the confidence level, and `shift`, which
/// moves the claim's threshold toward the measurement (the audit's mutants;
/// 0 for the audit itself).
#[derive(Clone, Copy)]
pub(super) struct Scope<'a> {
    pub filter: &'a Where,
    pub metric: Metric,
    pub results: &'a [PointResult],
    pub level: f64,
    pub shift: f64,
}

/// A point's (axis, value) pairs.
pub(super) type Axes = Vec<(String, String)>;

pub(super) fn at_string(r: &PointResult) -> String {
    axes_string(&r.axes)
}

/// (axis, value) pairs as "load=0.9 count_own=true".
pub(super) fn axes_string(axes: &[(String, String)]) -> String {
    axes.iter()
        .map(|(a, v)| format!("{a}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether two points of an experiment sit at the same axis values (an axis
/// that does not apply to one of them aside: [`lb_manifest::plan::same_axes`]).
pub(super) fn same_point(a: &PointResult, b: &PointResult) -> bool {
    lb_manifest::plan::same_axes(
        a.axes.iter().map(|x| x.1.as_str()),
        b.axes.iter().map(|x| x.1.as_str()),
    )
}

/// The points of `label` within a claim's `where` (`filter`).
pub(super) fn selected<'a>(
    filter: &Where,
    results: &'a [PointResult],
    label: &str,
) -> Vec<&'a PointResult> {
    results
        .iter()
        .filter(|r| r.label == label)
        .filter(|r| where_matches(filter, |a| r.axis(a)))
        .collect()
}

/// A named or numeric reference at one point and replication (named ones
/// are the model's: [`lb_manifest::Model::references`]).
pub(super) fn reference(
    reference: &Reference,
    metric: &str,
    at: &PointResult,
    r: u64,
) -> Result<f64, String> {
    match reference {
        Reference::Number(x) => Ok(*x),
        Reference::Named(n) => at.reference(n, metric, r),
    }
}

pub(super) fn values(m: Metric, point: &Point, ss: &[Summary]) -> Vec<(u64, f64)> {
    ss.iter()
        .filter_map(|s| m.value(point, s).map(|v| (s.replication(), v)))
        .collect()
}

/// The mean of `xs` and its interval's half-width (Stein's on a first stage
/// `first`, where the point's precision rule has one).
pub(super) fn stats(xs: &[f64], first: Option<usize>, level: f64) -> (f64, Option<f64>) {
    if xs.len() >= 2 {
        let iv = lb_analysis::stats::interval_of(xs, first, level);
        (iv.mean, Some(iv.half_width))
    } else {
        (xs.first().copied().unwrap_or(f64::NAN), None)
    }
}

/// The largest effect no figure could show, as a fraction of the compared
/// mean: an ordering's point whose paired difference lies wholly within
/// ± it decides nothing (docs/AUDITING.md, "Uninformative points").
pub(crate) const NEGLIGIBLE: f64 = 0.01;

/// How near its floor a side's interval must lie, as a fraction of the
/// floor, for a point to be uninformative (docs/AUDITING.md,
/// "Uninformative points").
pub(crate) const FLOOR_DELTA: f64 = 0.05;

/// Why a point cannot tell policies apart on metric `m`, if it cannot:
/// every side's interval (at `level`) lies within [`FLOOR_DELTA`] of the
/// metric's floor at that point ([`lb_model::config::PointConfig::floor`]):
/// no policy waits measurably there, so no ordering is decided. None where
/// a side lies above, or the metric has no floor.
pub(super) fn at_floor(m: Metric, sides: &[&PointResult], level: f64) -> Option<String> {
    let mut read = Vec::new();
    let mut floor = f64::NAN;
    for r in sides {
        let p = r.point.as_ref()?;
        let f = p.config.floor(m.name())?;
        let xs: Vec<f64> = values(m, p, &r.summaries)
            .into_iter()
            .map(|v| v.1)
            .collect();
        let (mean, hw) = stats(&xs, r.first_stage, level);
        let within = (mean + hw?).partial_cmp(&(f * (1.0 + FLOOR_DELTA)));
        if !matches!(
            within,
            Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
        ) {
            return None;
        }
        floor = f;
        read.push(format!(
            "{} {} ± {}",
            r.label,
            super::words::num(mean, 4),
            super::words::num(hw?, 2)
        ));
    }
    Some(format!(
        "every side within {:.0}% of the floor {} ({}): {}",
        100.0 * FLOOR_DELTA,
        super::words::num(floor, 4),
        match m.name() {
            "mean_response" => "no job waits measurably",
            _ => "the least any policy can give there",
        },
        read.join(", ")
    ))
}

pub(super) fn point_stable(r: &PointResult) -> bool {
    !lb_analysis::results::point_unstable(&r.summaries)
}

pub(super) fn keys(rs: &[&PointResult]) -> Vec<String> {
    rs.iter()
        .filter_map(|r| r.key.as_ref().map(|k| k.hex()))
        .collect()
}

/// A check at `r` that nothing decides (a reference undefined there), with
/// the reason as its note.
pub(super) fn undecided(
    r: &PointResult,
    label: &str,
    replications: usize,
    why: String,
) -> PointCheck {
    PointCheck {
        at: at_string(r),
        axes: r.axes.clone(),
        policy: label.to_string(),
        measured: f64::NAN,
        half_width: None,
        replications,
        threshold: String::new(),
        reference: None,
        verdict: Verdict::Inconclusive,
        note: Some(why),
        keys: keys(&[r]),
        decision: None,
        unsettled: None,
        longer: None,
        uninformative: None,
        exact_fails: false,
        rate: None,
        false_unstable: None,
    }
}

/// The points of `label` a claim reads (within `filter`), as series that
/// agree on every axis but `along`, each in increasing order of it.
pub(super) fn series<'a>(
    filter: &Where,
    results: &'a [PointResult],
    label: &str,
    along: &str,
) -> Vec<Vec<&'a PointResult>> {
    let mut pts: Vec<(&PointResult, f64)> = selected(filter, results, label)
        .into_iter()
        .filter_map(|r| Some((r, r.axis(along)?.parse::<f64>().ok()?)))
        .collect();
    pts.sort_by(|a, b| a.1.total_cmp(&b.1));
    let rest =
        |r: &PointResult| -> Axes { r.axes.iter().filter(|(a, _)| a != along).cloned().collect() };
    let mut series: Vec<(Axes, Vec<&PointResult>)> = Vec::new();
    for (r, _) in pts {
        let k = rest(r);
        match series.iter_mut().find(|(s, _)| *s == k) {
            Some((_, v)) => v.push(r),
            None => series.push((k, vec![r])),
        }
    }
    series.into_iter().map(|(_, v)| v).collect()
}
