//! The audit (SPEC §5, issue 5): every `[[claim]]` of a manifest held against
//! the cached records, point by point, with a verdict — confirmed, refuted, or
//! inconclusive when the interval straddles the threshold.
//!
//! Ordering claims use the *paired* difference across replications: the
//! engine gives every policy at a point the same arrivals and service (SPEC
//! §4), so replication r of two policies is a matched pair and the interval
//! is that of the difference, not two overlapping intervals.

use crate::metric::Metric;
use crate::results::PointResult;
use crate::stats::interval;
use lb_runner::Point;
use lb_runner::Summary;
use lb_runner::outputs::{ClaimKind, ClaimToml, Reference, where_matches};
use serde::Serialize;
use std::fmt::Write as _;

/// A claim's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Confirmed,
    Refuted,
    Inconclusive,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Confirmed => "confirmed",
            Verdict::Refuted => "refuted",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// The check at one point (or one pair of points for an ordering).
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// The point's axis values, "load=0.9 count_own=true" (JSON: `at` is
    /// the object of `axes`).
    #[serde(skip)]
    pub at: String,
    /// The same as (axis, value) pairs; in JSON an object with numbers as
    /// numbers, `{"load": 0.9, "count_own": true}`.
    #[serde(rename = "at", serialize_with = "typed_axes")]
    pub axes: Vec<(String, String)>,
    pub policy: String,
    /// The measured quantity: the metric, a paired difference, or the fraction
    /// of unstable replications.
    pub measured: f64,
    /// Half-width of its interval at the claim's level (None: no interval).
    pub half_width: Option<f64>,
    pub replications: usize,
    /// What the measurement is held against, in words.
    pub threshold: String,
    /// The reference at this point (value and bound claims).
    pub reference: Option<f64>,
    pub verdict: Verdict,
    pub note: Option<String>,
    /// The keys of the records read.
    pub keys: Vec<String>,
}

/// A sweep value as JSON: a number or a boolean where it reads as one.
pub fn typed_value(v: &str) -> serde_json::Value {
    if let Ok(i) = v.parse::<i64>() {
        return i.into();
    }
    if let Some(x) = v.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
        return serde_json::Value::Number(x);
    }
    match v {
        "true" => true.into(),
        "false" => false.into(),
        _ => v.into(),
    }
}

fn typed_axes<S: serde::Serializer>(axes: &[(String, String)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(axes.len()))?;
    for (a, v) in axes {
        m.serialize_entry(a, &typed_value(v))?;
    }
    m.end()
}

/// The verdicts as CSV, one row per claim: its deciding point, what was
/// measured there and against what.
pub fn csv(claims: &[&ClaimResult]) -> polars::prelude::PolarsResult<String> {
    use polars::prelude::{Column, DataFrame};
    let d: Vec<Option<&Check>> = claims.iter().map(|c| c.deciding()).collect();
    let s = |f: &dyn Fn(&ClaimResult) -> String| -> Vec<String> {
        claims.iter().map(|c| f(c)).collect()
    };
    let cols = vec![
        Column::new("experiment".into(), s(&|c| c.experiment.clone())),
        Column::new("id".into(), s(&|c| c.id.clone())),
        Column::new("verdict".into(), s(&|c| c.verdict.word().to_string())),
        Column::new(
            "required".into(),
            claims.iter().map(|c| c.required).collect::<Vec<_>>(),
        ),
        Column::new(
            "kind".into(),
            s(&|c| format!("{:?}", c.kind).to_lowercase()),
        ),
        Column::new(
            "metric".into(),
            claims.iter().map(|c| c.metric.clone()).collect::<Vec<_>>(),
        ),
        Column::new(
            "policy".into(),
            d.iter()
                .map(|k| k.map(|k| k.policy.clone()))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "at".into(),
            d.iter()
                .map(|k| k.map(|k| k.at.clone()))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "measured".into(),
            d.iter().map(|k| k.map(|k| k.measured)).collect::<Vec<_>>(),
        ),
        Column::new(
            "half_width".into(),
            d.iter()
                .map(|k| k.and_then(|k| k.half_width))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "reference".into(),
            d.iter()
                .map(|k| k.and_then(|k| k.reference))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "threshold".into(),
            d.iter()
                .map(|k| k.map(|k| k.threshold.clone()))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "replications".into(),
            d.iter()
                .map(|k| k.map(|k| k.replications as u64))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "level".into(),
            claims.iter().map(|c| c.level).collect::<Vec<_>>(),
        ),
        Column::new(
            "points".into(),
            claims
                .iter()
                .map(|c| c.checks.len() as u64)
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "missing".into(),
            claims
                .iter()
                .map(|c| c.missing.len() as u64)
                .collect::<Vec<_>>(),
        ),
        Column::new("statement".into(), s(&|c| c.statement.clone())),
    ];
    crate::table::csv(&DataFrame::new_infer_height(cols)?)
}

/// A claim and its verdict.
#[derive(Debug, Clone, Serialize)]
pub struct ClaimResult {
    pub experiment: String,
    pub id: String,
    pub statement: String,
    pub source: String,
    pub kind: ClaimKind,
    pub required: bool,
    pub level: f64,
    pub verdict: Verdict,
    /// The metric read and its label (unit included), if any.
    pub metric: Option<String>,
    pub metric_label: Option<String>,
    /// What the points are held to, in words (the same at every point).
    pub rule: String,
    pub checks: Vec<Check>,
    /// Why the claim fails here, from the manifest.
    pub why: Option<String>,
    /// The checks of the `why`, audited.
    pub why_checks: Vec<ClaimResult>,
    /// Points the claim reads that lack replications or hold damaged
    /// records, in words. A required claim with any fails `lb audit`: a
    /// gate cannot pass on missing data.
    pub missing: Vec<String>,
}

impl ClaimResult {
    /// The check that decides the verdict: the first refuted, else the first
    /// inconclusive, else the first.
    pub fn deciding(&self) -> Option<&Check> {
        self.checks
            .iter()
            .find(|c| c.verdict == Verdict::Refuted)
            .or_else(|| {
                self.checks
                    .iter()
                    .find(|c| c.verdict == Verdict::Inconclusive)
            })
            .or_else(|| self.checks.first())
    }
}

/// A point's (axis, value) pairs.
type Axes = Vec<(String, String)>;

fn at_string(r: &PointResult) -> String {
    axes_string(&r.axes)
}

/// (axis, value) pairs as "load=0.9 count_own=true".
fn axes_string(axes: &[(String, String)]) -> String {
    axes.iter()
        .map(|(a, v)| format!("{a}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether two points of an experiment sit at the same axis values (an axis
/// that does not apply to one of them aside: [`lb_runner::plan::same_axes`]).
fn same_point(a: &PointResult, b: &PointResult) -> bool {
    lb_runner::plan::same_axes(
        a.axes.iter().map(|x| x.1.as_str()),
        b.axes.iter().map(|x| x.1.as_str()),
    )
}

fn selected<'a>(c: &ClaimToml, results: &'a [PointResult], label: &str) -> Vec<&'a PointResult> {
    results
        .iter()
        .filter(|r| r.label == label)
        .filter(|r| where_matches(&c.filter, |a| r.axis(a)))
        .collect()
}

/// A named or numeric reference at one point and replication (named ones
/// are the model's: [`lb_runner::Model::references`]).
fn reference(reference: &Reference, metric: &str, point: &Point, r: u64) -> Result<f64, String> {
    match reference {
        Reference::Number(x) => Ok(*x),
        Reference::Named(n) => point.reference(n, metric, r),
    }
}

fn values(m: Metric, point: &Point, ss: &[Summary]) -> Vec<(u64, f64)> {
    ss.iter()
        .filter_map(|s| m.value(point, s).map(|v| (s.replication(), v)))
        .collect()
}

/// Verdict of an interval [lo, hi] against "≥ 0" (confirmed when lo > 0 for
/// strict orderings, lo ≥ 0 for bounds).
fn sign_verdict(mean: f64, hw: Option<f64>, strict: bool) -> Verdict {
    let h = hw.unwrap_or(f64::INFINITY);
    let (lo, hi) = (mean - h, mean + h);
    if lo > 0.0 || (!strict && lo >= 0.0) {
        Verdict::Confirmed
    } else if hi < 0.0 {
        Verdict::Refuted
    } else {
        Verdict::Inconclusive
    }
}

fn stats(xs: &[f64], level: f64) -> (f64, Option<f64>) {
    if xs.len() >= 2 {
        let iv = interval(xs, level);
        (iv.mean, Some(iv.half_width))
    } else {
        (xs.first().copied().unwrap_or(f64::NAN), None)
    }
}

fn point_stable(r: &PointResult) -> bool {
    !crate::results::point_unstable(&r.summaries)
}

fn keys(rs: &[&PointResult]) -> Vec<String> {
    rs.iter()
        .filter_map(|r| r.key.as_ref().map(|k| k.hex()))
        .collect()
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
    up: bool,
    level: f64,
    label: &str,
) -> Option<Check> {
    let (pa, pb) = (a.point.as_ref()?, b.point.as_ref()?);
    let va = values(m, pa, &a.summaries);
    let vb = values(m, pb, &b.summaries);
    // Replication r of each point: independent streams (the system differs),
    // paired by index only to form differences.
    let diffs: Vec<f64> = va
        .iter()
        .filter_map(|(r, x)| vb.iter().find(|(rb, _)| rb == r).map(|(_, y)| y - x))
        .collect();
    if diffs.is_empty() {
        return None;
    }
    let stable = m.transient() || (point_stable(a) && point_stable(b));
    let est = |r: &PointResult, p: &Point| {
        let xs: Vec<f64> = values(m, p, &r.summaries).iter().map(|v| v.1).collect();
        let cs: Option<Vec<(u64, u64)>> = r.summaries.iter().map(|s| s.counts(m.name())).collect();
        crate::stats::estimate(m.kind(), &xs, cs.as_deref(), level)
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
            let (mean, hw) = stats(&diffs, level);
            let verdict = if stable {
                sign_verdict(if up { mean } else { -mean }, hw, true)
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
    Some(Check {
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
    })
}

/// A check at `r` that nothing decides (a reference undefined there), with
/// the reason as its note.
fn undecided(r: &PointResult, label: &str, replications: usize, why: String) -> Check {
    Check {
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
    }
}

/// The points of `label` a claim reads, as series that agree on every axis
/// but `along`, each in increasing order of it.
fn series<'a>(
    c: &ClaimToml,
    results: &'a [PointResult],
    label: &str,
    along: &str,
) -> Vec<Vec<&'a PointResult>> {
    let mut pts: Vec<(&PointResult, f64)> = selected(c, results, label)
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

/// One point of a limit claim: the axis value, the gap metric − reference
/// (paired per replication, as a value claim), its half-width, the mean
/// reference and the tolerance there.
struct Gap {
    x: f64,
    gap: f64,
    /// The interval of the gap (not always symmetric: proportions).
    lo: f64,
    hi: f64,
    hw: f64,
    reference: f64,
    tol: f64,
    metric: f64,
    n: usize,
}

/// A limit claim on one series (`tail`: the points nearest the limit, the
/// nearest last). Confirmed when the nearest point is within tolerance of
/// the reference and the last step does not move significantly away from
/// it; refuted when the nearest point is outside the tolerance and the gap
/// has grown significantly over the tail (moving away from the reference);
/// otherwise inconclusive — in particular "still approaching". The note
/// gives the gaps along the tail, the rate of approach (slope of log|gap|
/// against log of the axis, on the points whose gap is significantly
/// non-zero) and, when approaching, where by extrapolation the gap would
/// come within the tolerance.
fn limit_check(
    c: &ClaimToml,
    m: Metric,
    tail: &[&PointResult],
    along: &str,
    to_zero: bool,
    level: f64,
    label: &str,
) -> Option<Check> {
    let refv = c.expected.as_ref().expect("validated");
    let mut gaps = Vec::new();
    let mut stable = true;
    for r in tail {
        let p = r.point.as_ref()?;
        let vals = values(m, p, &r.summaries);
        if vals.is_empty() {
            return None;
        }
        let refs: Vec<f64> = match vals
            .iter()
            .map(|(rep, _)| reference(refv, m.name(), p, *rep))
            .collect::<Result<_, _>>()
        {
            Ok(v) => v,
            Err(e) => {
                return Some(Check {
                    keys: keys(tail),
                    ..undecided(r, label, vals.len(), e)
                });
            }
        };
        stable &= m.transient() || point_stable(r);
        let diffs: Vec<f64> = vals.iter().zip(&refs).map(|((_, x), e)| x - e).collect();
        let reference = refs.iter().sum::<f64>() / refs.len() as f64;
        // A proportion of counted events is held to its own pooled interval
        // (Wilson; Clopper–Pearson when none was seen), as in tables: rare
        // events make per-replication intervals overconfident (all zeros
        // give a width of 0).
        let xs: Vec<f64> = vals.iter().map(|v| v.1).collect();
        let counts: Option<Vec<(u64, u64)>> =
            r.summaries.iter().map(|s| s.counts(m.name())).collect();
        let pooled = (m.kind() == lb_model::MetricKind::Proportion)
            .then(|| crate::stats::estimate(m.kind(), &xs, counts.as_deref(), level))
            .flatten()
            .and_then(|e| Some((e.mean, e.lo?, e.hi?)));
        let (gap, lo, hi) = match pooled {
            Some((mean, lo, hi)) => (mean - reference, lo - reference, hi - reference),
            // A proportion without a pooled interval decides nothing.
            None if m.kind() == lb_model::MetricKind::Proportion => {
                let gap = stats(&diffs, level).0;
                (gap, f64::NEG_INFINITY, f64::INFINITY)
            }
            None => {
                let (gap, hw) = stats(&diffs, level);
                let hw = hw.unwrap_or(f64::INFINITY);
                (gap, gap - hw, gap + hw)
            }
        };
        gaps.push(Gap {
            x: r.axis(along)?.parse().ok()?,
            gap,
            lo,
            hi,
            hw: (hi - lo) / 2.0,
            reference,
            tol: c.tolerance.unwrap_or(0.0) * reference.abs() + c.abs_tolerance.unwrap_or(0.0),
            metric: gap + reference,
            n: diffs.len(),
        });
    }
    let near = gaps.last()?;
    let first = gaps.first()?;
    let asymmetric =
        |g: &Gap| ((g.hi - g.gap) - (g.gap - g.lo)).abs() > 1e-9 * g.hw.max(f64::MIN_POSITIVE);
    // A gap whose interval excludes 0.
    let nonzero = |g: &Gap| g.lo > 0.0 || g.hi < 0.0;
    // Distances |gap| to the reference (only the distance counts: a gap that
    // crosses the reference moves away only if it lands further from it); a
    // move between independent points is significant when it exceeds their
    // combined half-width.
    let moved = |a: &Gap, b: &Gap| {
        let change = b.gap.abs() - a.gap.abs();
        let h = (a.hw * a.hw + b.hw * b.hw).sqrt();
        if change + h < 0.0 {
            -1 // significantly closer
        } else if change - h > 0.0 {
            1 // significantly further
        } else {
            0
        }
    };
    let last_step = if gaps.len() >= 2 {
        moved(&gaps[gaps.len() - 2], near)
    } else {
        0
    };
    // A tolerance of 0: the interval of the gap must cover 0.
    let (within, outside) = if near.tol == 0.0 {
        let covers = near.lo <= 0.0 && near.hi >= 0.0;
        (covers, !covers)
    } else {
        (
            near.lo >= -near.tol && near.hi <= near.tol,
            near.hi < -near.tol || near.lo > near.tol,
        )
    };
    let away = moved(first, near) == 1;
    // The rate of approach between the tail's ends, |gap| ∝ x^rate toward
    // zero (x^−rate toward infinity), and its half-width by the delta
    // method (the relative half-width of each |gap|); only where both gaps
    // are significantly non-zero.
    let end_rate = (nonzero(first) && nonzero(near) && first.x > 0.0).then(|| {
        let span = (near.x / first.x).ln().abs();
        let rate = (first.gap.abs() / near.gap.abs()).ln() / span;
        let hw = ((first.hw / first.gap).powi(2) + (near.hw / near.gap).powi(2)).sqrt() / span;
        (rate, hw)
    });
    let too_slow = match (c.min_rate, end_rate) {
        (Some(min), Some((rate, hw))) => rate + hw < min,
        _ => false,
    };
    let verdict = if !stable || !near.hw.is_finite() || gaps.len() < 2 {
        Verdict::Inconclusive
    } else if within && last_step != 1 {
        Verdict::Confirmed
    } else if outside && (away || too_slow) {
        Verdict::Refuted
    } else {
        Verdict::Inconclusive
    };
    // Rate of approach: least squares of ln|gap| on ln x over the points
    // whose gap is significantly non-zero.
    let pts: Vec<(f64, f64)> = gaps
        .iter()
        .filter(|g| nonzero(g) && g.gap != 0.0 && g.x > 0.0)
        .map(|g| (g.x.ln(), g.gap.abs().ln()))
        .collect();
    let rate = (pts.len() >= 2).then(|| {
        let n = pts.len() as f64;
        let (mx, my) = (
            pts.iter().map(|p| p.0).sum::<f64>() / n,
            pts.iter().map(|p| p.1).sum::<f64>() / n,
        );
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let b = sxy / sxx;
        (b, my - b * mx)
    });
    let trail = gaps
        .iter()
        .map(|g| {
            // An asymmetric interval (a proportion's) as its ends.
            if asymmetric(g) {
                format!("{} [{}, {}]", num(g.gap, 3), num(g.lo, 2), num(g.hi, 2))
            } else {
                format!("{} ± {}", num(g.gap, 3), num(g.hw, 2))
            }
        })
        .collect::<Vec<_>>()
        .join(" → ");
    let xs = gaps
        .iter()
        .map(|g| sig5(g.x))
        .collect::<Vec<_>>()
        .join(", ");
    let mut note = format!("gap (metric − reference) {trail} at {along} = {xs}");
    if let Some((b, a)) = rate {
        // ln|gap| = a + b ln x; approaching when it shrinks toward the limit.
        let r = if to_zero { b } else { -b };
        note += &format!(
            "; |gap| ∝ {along}^{{{}{}}}",
            if to_zero { "" } else { "−" },
            num(r, 2)
        );
        if let Some((er, eh)) = end_rate {
            note += &format!(
                " (between the ends {} ± {}{})",
                num(er, 2),
                num(eh, 2),
                c.min_rate
                    .map(|m| format!(", against the slowest counted {}", sig5(m)))
                    .unwrap_or_default()
            );
        }
        let x_star = ((near.tol.ln() - a) / b).exp();
        let beyond = if to_zero {
            x_star < near.x
        } else {
            x_star > near.x
        };
        if r > 0.0 && near.tol > 0.0 && !within && beyond {
            note += &format!(
                "; within the tolerance by extrapolation at {along} ≈ {}",
                num(x_star, 2)
            );
        } else if r <= 0.0 {
            note += " (not approaching)";
        }
    }
    if gaps.len() < 2 {
        note = format!("one point read (`where` leaves no other): a limit needs two; {note}");
    } else if !stable {
        note = format!("unstable: no steady state to compare; {note}");
    } else if verdict == Verdict::Inconclusive && outside && last_step == -1 {
        note = format!("still approaching; {note}");
    }
    let r = tail.last()?;
    Some(Check {
        at: at_string(r),
        axes: r.axes.clone(),
        policy: label.to_string(),
        measured: near.metric,
        // An asymmetric interval (a proportion's) is not a half-width: the
        // note gives its ends.
        half_width: Some(near.hw).filter(|h| h.is_finite() && !asymmetric(near)),
        replications: near.n,
        threshold: format!(
            "→ {} as {along} → {} (last {} points)",
            with_tolerance(near.reference, c),
            if to_zero { "0" } else { "∞" },
            gaps.len()
        ),
        reference: Some(near.reference),
        verdict,
        note: Some(note),
        keys: keys(tail),
    })
}

/// A control-variate estimate of a metric at one point, beside the direct
/// one.
struct ControlEstimate {
    control: String,
    mean_name: String,
    exact: f64,
    estimate: f64,
    half_width: f64,
    beta: f64,
    fitted: bool,
    direct: (f64, f64),
    /// The β = 1 form's half-width, when β is fitted (and the fitted
    /// form's when β = 1): both widths, stated.
    other_half_width: Option<f64>,
    pairs: usize,
}

impl ControlEstimate {
    fn describe(&self, m: Metric) -> String {
        let ratio = self.direct.1 / self.half_width;
        format!(
            "control variate {} ({} = {}, β {} {}): {} = {} ± {} on {} pairs, against {} ± {} \
             directly (interval {}){}",
            self.control,
            self.mean_name,
            sig5(self.exact),
            if self.fitted { "fitted" } else { "=" },
            num(self.beta, 3),
            m.name(),
            num(self.estimate, 4),
            num(self.half_width, 2),
            self.pairs,
            num(self.direct.0, 4),
            num(self.direct.1, 2),
            if ratio >= 1.0 {
                format!("{}× narrower", num(ratio, 2))
            } else {
                format!("{}× wider", num(1.0 / ratio, 2))
            },
            self.other_half_width
                .map(|h| format!(
                    "; with β {}: ± {}",
                    if self.fitted { "= 1" } else { "fitted" },
                    num(h, 2)
                ))
                .unwrap_or_default()
        )
    }
}

/// The control variate `k` for the metric `m` at the point `r` (values
/// `vals` by replication): the control policy's point at the same axis
/// values, its replications paired by index (common random numbers), its
/// exact mean. Err (in words) when it cannot be used here: no control point
/// or replications, or a control that has not settled (its exact mean is a
/// steady-state mean: an unsettled control would bias the estimate).
fn control_estimate(
    k: &lb_runner::outputs::ControlToml,
    m: Metric,
    r: &PointResult,
    vals: &[(u64, f64)],
    results: &[PointResult],
    level: f64,
) -> Result<ControlEstimate, String> {
    let partner = results
        .iter()
        .find(|w| w.label == k.policy && same_point(w, r));
    let Some(w) = partner else {
        return Err(format!(
            "control {}: no point here; direct estimate",
            k.policy
        ));
    };
    let Some(wp) = &w.point else {
        return Err(format!(
            "control {}: not computed; direct estimate",
            k.policy
        ));
    };
    if !point_stable(w) {
        return Err(format!(
            "control {} has not settled here (its exact mean is a steady state's); direct \
             estimate",
            k.policy
        ));
    }
    let exact = wp
        .config
        .exact_mean(m.name(), &k.mean)
        .map_err(|e| format!("control {}: {e}; direct estimate", k.policy))?;
    let ys = values(m, wp, &w.summaries);
    let (xs, ys): (Vec<f64>, Vec<f64>) = vals
        .iter()
        .filter_map(|(rep, x)| ys.iter().find(|(ry, _)| ry == rep).map(|(_, y)| (*x, *y)))
        .unzip();
    let fitted = k.beta.as_deref() == Some("fitted");
    let est = crate::stats::control_variate(&xs, &ys, exact, level, fitted).ok_or_else(|| {
        format!(
            "control {}: {} paired replications are too few; direct estimate",
            k.policy,
            xs.len()
        )
    })?;
    let other = crate::stats::control_variate(&xs, &ys, exact, level, !fitted).map(|e| e.1);
    let direct = stats(&xs, level);
    Ok(ControlEstimate {
        control: k.policy.clone(),
        mean_name: k.mean.clone(),
        exact,
        estimate: est.0,
        half_width: est.1,
        beta: est.2,
        fitted,
        direct: (direct.0, direct.1.unwrap_or(f64::INFINITY)),
        other_half_width: other,
        pairs: xs.len(),
    })
}

/// Audits one claim against the results of its experiment.
pub fn audit_claim(experiment: &str, c: &ClaimToml, results: &[PointResult]) -> ClaimResult {
    let level = c.level.unwrap_or(0.95);
    let metric = c
        .metric
        .as_deref()
        .map(|m| Metric::validated(crate::results::model(results), m));
    let mut checks = Vec::new();
    match c.kind {
        ClaimKind::Ordering => {
            let (better, worse) = (c.better.as_deref().unwrap(), c.worse.as_deref().unwrap());
            let m = metric.unwrap();
            for b in selected(c, results, better) {
                // The partner at the same axis values.
                let Some(w) = selected(c, results, worse)
                    .into_iter()
                    .find(|w| same_point(w, b))
                else {
                    checks.push(Check {
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
                    });
                    continue;
                };
                let (Some(pb), Some(pw)) = (&b.point, &w.point) else {
                    continue;
                };
                let vb = values(m, pb, &b.summaries);
                let vw = values(m, pw, &w.summaries);
                // Matched pairs: replication r of each policy shares arrivals and service.
                let diffs: Vec<f64> = vb
                    .iter()
                    .filter_map(|(r, x)| vw.iter().find(|(rw, _)| rw == r).map(|(_, y)| y - x))
                    .collect();
                if diffs.is_empty() {
                    continue;
                }
                let (mean, hw) = stats(&diffs, level);
                let (sb, sw) = if m.transient() {
                    (true, true)
                } else {
                    (point_stable(b), point_stable(w))
                };
                let (verdict, note) = match (sb, sw) {
                    (true, true) => (sign_verdict(mean, hw, true), None),
                    (true, false) => (
                        Verdict::Confirmed,
                        Some(format!("{worse} is unstable here")),
                    ),
                    (false, true) => (Verdict::Refuted, Some(format!("{better} is unstable here"))),
                    (false, false) => (Verdict::Inconclusive, Some("both unstable".to_string())),
                };
                checks.push(Check {
                    at: at_string(b),
                    axes: b.axes.clone(),
                    policy: format!("{worse} − {better}"),
                    measured: mean,
                    half_width: hw,
                    replications: diffs.len(),
                    threshold: format!("paired difference of {} > 0", m.name()),
                    reference: None,
                    verdict,
                    note,
                    keys: keys(&[b, w]),
                });
            }
        }
        ClaimKind::Value | ClaimKind::Bound => {
            let m = metric.unwrap();
            for label in &c.policies {
                for r in selected(c, results, label) {
                    let Some(p) = &r.point else { continue };
                    let vals = values(m, p, &r.summaries);
                    if vals.is_empty() {
                        continue;
                    }
                    let refv = c.expected.as_ref().or(c.bound.as_ref()).expect("validated");
                    let refs: Result<Vec<f64>, String> = vals
                        .iter()
                        .map(|(rep, _)| reference(refv, m.name(), p, *rep))
                        .collect();
                    let refs = match refs {
                        Ok(v) => v,
                        Err(e) => {
                            checks.push(undecided(r, label, vals.len(), e));
                            continue;
                        }
                    };
                    let xs: Vec<f64> = vals.iter().map(|v| v.1).collect();
                    // The control variate's estimate of the metric, if any.
                    let cv = c
                        .control
                        .as_ref()
                        .map(|k| control_estimate(k, m, r, &vals, results, level));
                    // A transient metric (a growth rate, a level at the end) is
                    // read on unstable points too.
                    let stable = point_stable(r) || m.transient();
                    // The reference's mean over the replications (constant but
                    // for `pooled`): the expected value, or the bound.
                    let mean_ref = refs.iter().sum::<f64>() / refs.len() as f64;
                    let mut check = if c.kind == ClaimKind::Value {
                        // Paired per replication: a reference drawn on the same
                        // streams (`pooled`) keeps its pairing; a constant one
                        // leaves the metric's own interval.
                        let expected = mean_ref;
                        let diffs: Vec<f64> = xs.iter().zip(&refs).map(|(x, e)| x - e).collect();
                        let (dmean, hw) = match &cv {
                            Some(Ok(e)) => (e.estimate - expected, Some(e.half_width)),
                            _ => stats(&diffs, level),
                        };
                        let mean = dmean + expected;
                        let tol = c.tolerance.unwrap_or(0.0) * expected.abs()
                            + c.abs_tolerance.unwrap_or(0.0);
                        let h = hw.unwrap_or(f64::INFINITY);
                        let verdict = if !stable || !hw.is_some_and(f64::is_finite) {
                            Verdict::Inconclusive
                        } else if tol == 0.0 {
                            if dmean.abs() <= h {
                                Verdict::Confirmed
                            } else {
                                Verdict::Refuted
                            }
                        } else if dmean - h >= -tol && dmean + h <= tol {
                            Verdict::Confirmed
                        } else if dmean + h < -tol || dmean - h > tol {
                            Verdict::Refuted
                        } else {
                            Verdict::Inconclusive
                        };
                        let threshold = if tol == 0.0 {
                            format!("= {} (interval must cover it)", sig5(expected))
                        } else {
                            with_tolerance(expected, c)
                        };
                        Check {
                            at: at_string(r),
                            axes: r.axes.clone(),
                            policy: label.clone(),
                            measured: mean,
                            half_width: hw,
                            replications: xs.len(),
                            threshold,
                            reference: Some(expected),
                            verdict,
                            note: if !stable {
                                Some("unstable: no steady state to compare".into())
                            } else if hw.is_none() {
                                Some("one replication: no interval".into())
                            } else {
                                None
                            },
                            keys: keys(&[r]),
                        }
                    } else {
                        // Bound: the paired margin metric − bound (≥ side) per replication.
                        let ge = c.side.as_deref() == Some("ge");
                        let margins: Vec<f64> = xs
                            .iter()
                            .zip(&refs)
                            .map(|(x, b)| if ge { x - b } else { b - x })
                            .collect();
                        let bound = mean_ref;
                        let (mean, hw) = match &cv {
                            Some(Ok(e)) => {
                                let margin = if ge {
                                    e.estimate - bound
                                } else {
                                    bound - e.estimate
                                };
                                (margin, Some(e.half_width))
                            }
                            _ => stats(&margins, level),
                        };
                        // Measured: the paired margin (on the claimed side when
                        // > 0) with its own interval; the metric's mean is in
                        // the note.
                        Check {
                            at: at_string(r),
                            axes: r.axes.clone(),
                            reference: Some(bound),
                            policy: label.clone(),
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
                                match refv {
                                    Reference::Named(n) => format!("{n} ({})", sig5(bound)),
                                    Reference::Number(x) => x.to_string(),
                                }
                            ),
                            verdict: if stable {
                                sign_verdict(mean, hw, false)
                            } else {
                                Verdict::Inconclusive
                            },
                            note: Some(if stable {
                                format!(
                                    "{} = {} against the bound {}",
                                    m.name(),
                                    sig5(xs.iter().sum::<f64>() / xs.len() as f64),
                                    sig5(bound)
                                )
                            } else {
                                "unstable: no steady state to compare".into()
                            }),
                            keys: keys(&[r]),
                        }
                    };
                    match cv {
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
                    checks.push(check);
                }
            }
        }
        ClaimKind::Trend => {
            let m = metric.unwrap();
            let along = c.along.as_deref().unwrap();
            let up = c.direction.as_deref() == Some("increasing");
            for label in &c.policies {
                for rs in series(c, results, label, along) {
                    for w in rs.windows(2) {
                        checks.extend(trend_step(m, w[0], w[1], along, up, level, label));
                    }
                }
            }
        }
        ClaimKind::Limit => {
            let m = metric.unwrap();
            let along = c.along.as_deref().unwrap();
            let to_zero = c.toward.as_deref() != Some("infinity");
            let last = c.last.unwrap_or(3) as usize;
            for label in &c.policies {
                for mut rs in series(c, results, label, along) {
                    // Nearest the limit last.
                    if to_zero {
                        rs.reverse();
                    }
                    let tail = &rs[rs.len().saturating_sub(last)..];
                    checks.extend(limit_check(c, m, tail, along, to_zero, level, label));
                }
            }
        }
        ClaimKind::Stability => {
            let claimed = c.stable.unwrap();
            for label in &c.policies {
                for r in selected(c, results, label) {
                    if r.summaries.is_empty() {
                        continue;
                    }
                    let n = r.summaries.len();
                    let unstable = r.summaries.iter().filter(|s| !s.stable()).count();
                    let frac = unstable as f64 / n as f64;
                    // The point's verdict is the majority's (lb_core::slotted::point_unstable);
                    // a unanimous contrary verdict refutes.
                    let majority_unstable = 2 * unstable > n;
                    let verdict = if claimed != majority_unstable {
                        Verdict::Confirmed
                    } else if (claimed && unstable == n) || (!claimed && unstable == 0) {
                        Verdict::Refuted
                    } else {
                        Verdict::Inconclusive
                    };
                    let growth = r
                        .summaries
                        .iter()
                        .map(|s| s.stability().growth)
                        .fold(f64::NEG_INFINITY, f64::max);
                    checks.push(Check {
                        at: at_string(r),
                        axes: r.axes.clone(),
                        reference: None,
                        policy: label.clone(),
                        measured: frac,
                        half_width: None,
                        replications: n,
                        threshold: format!(
                            "claimed {}: fraction of unstable replications {} ½",
                            if claimed { "stable" } else { "unstable" },
                            if claimed { "≤" } else { ">" }
                        ),
                        verdict,
                        note: Some(format!(
                            "largest ΣQ growth over the second half: {:.0}%",
                            100.0 * growth
                        )),
                        keys: keys(&[r]),
                    });
                }
            }
        }
    }
    let verdict = if checks.is_empty() {
        Verdict::Inconclusive
    } else if checks.iter().any(|c| c.verdict == Verdict::Refuted) {
        Verdict::Refuted
    } else if checks.iter().all(|c| c.verdict == Verdict::Confirmed) {
        Verdict::Confirmed
    } else {
        Verdict::Inconclusive
    };
    let rule = rule(c, metric);
    ClaimResult {
        experiment: experiment.to_string(),
        id: c.id.clone(),
        statement: c.statement.clone(),
        source: c.source.clone(),
        kind: c.kind,
        required: c.required,
        level,
        verdict,
        metric: metric.map(|m| m.name().to_string()),
        metric_label: metric.map(|m| m.label().to_string()),
        rule,
        checks,
        why: c.why.clone(),
        why_checks: c
            .why_check
            .iter()
            .enumerate()
            .map(|(i, w)| audit_claim(experiment, &w.as_claim(c, i), results))
            .collect(),
        missing: gaps(c, results),
    }
}

/// The points a claim reads — its policies (or every policy), within its
/// `where` — that lack replications or hold damaged records; and, when the
/// claim reads no point at all, a line saying so.
pub fn gaps(c: &ClaimToml, results: &[PointResult]) -> Vec<String> {
    let mut labels: Vec<&str> = c.policies.iter().map(String::as_str).collect();
    labels.extend(c.better.as_deref());
    labels.extend(c.worse.as_deref());
    let read: Vec<&PointResult> = if labels.is_empty() {
        results
            .iter()
            .filter(|r| where_matches(&c.filter, |a| r.axis(a)))
            .collect()
    } else {
        labels
            .iter()
            .flat_map(|l| selected(c, results, l))
            .collect()
    };
    if read.is_empty() {
        return vec!["no point of the plan matches the claim".into()];
    }
    read.iter().filter_map(|r| r.gap()).collect()
}

/// A reference with a claim's tolerance, as a threshold: "1 ± 10%",
/// "0 ± 0.005", "2 ± (0.1 + 5%)" (the reference alone without one).
fn with_tolerance(reference: f64, c: &ClaimToml) -> String {
    match (c.tolerance.unwrap_or(0.0), c.abs_tolerance.unwrap_or(0.0)) {
        (0.0, 0.0) => sig5(reference),
        (r, 0.0) => format!("{} ± {}%", sig5(reference), 100.0 * r),
        (0.0, a) => format!("{} ± {}", sig5(reference), sig5(a)),
        (r, a) => format!("{} ± ({} + {}%)", sig5(reference), sig5(a), 100.0 * r),
    }
}

/// A claim's tolerance in the words of its rule: "±10%", "±0.005",
/// "±(0.1 + 5% of it)"; None without one.
fn tolerance_words(c: &ClaimToml) -> Option<String> {
    let pct = |t: f64| crate::ticks::format_tick(100.0 * t, None);
    match (c.tolerance.unwrap_or(0.0), c.abs_tolerance.unwrap_or(0.0)) {
        (0.0, 0.0) => None,
        (t, 0.0) => Some(format!("±{}%", pct(t))),
        (0.0, a) => Some(format!("±{}", sig5(a))),
        (t, a) => Some(format!("±({} + {}% of it)", sig5(a), pct(t))),
    }
}

/// What a claim holds its points to, in words.
fn rule(c: &ClaimToml, metric: Option<Metric>) -> String {
    let label = metric.map(|m| lower_first(m.label())).unwrap_or_default();
    let reference = |r: &Reference| match r {
        Reference::Number(x) => sig5(*x),
        Reference::Named(n) => format!("`{n}` computed at each point"),
    };
    match c.kind {
        ClaimKind::Ordering => format!(
            "{label}: the paired difference {} − {} across replications (common random \
             numbers) is > 0",
            c.worse.as_deref().unwrap_or("?"),
            c.better.as_deref().unwrap_or("?")
        ),
        ClaimKind::Value => {
            let e = c.expected.as_ref().map(reference).unwrap_or_default();
            match tolerance_words(c) {
                None => format!("{label} equals {e} (the interval covers it)"),
                Some(t) => format!("{label} equals {e} within {t} (the whole interval inside)"),
            }
        }
        ClaimKind::Bound => format!(
            "{label} {} {} (the paired margin's interval on the claimed side)",
            if c.side.as_deref() == Some("ge") {
                "≥"
            } else {
                "≤"
            },
            c.bound.as_ref().map(reference).unwrap_or_default()
        ),
        ClaimKind::Trend => format!(
            "{label} is {} in {}: the change between neighbouring points (other axes \
             fixed) has its interval on the claimed side at every pair",
            c.direction.as_deref().unwrap_or("?"),
            c.along.as_deref().unwrap_or("?")
        ),
        ClaimKind::Limit => format!(
            "{label} tends to {} as {} → {}: at the point nearest the limit the interval \
             lies within {}, and the gap has not grown significantly over the last {} points",
            c.expected.as_ref().map(reference).unwrap_or_default(),
            c.along.as_deref().unwrap_or("?"),
            if c.toward.as_deref() == Some("infinity") {
                "∞"
            } else {
                "0"
            },
            tolerance_words(c).unwrap_or_else(|| "the interval of the gap (covering it)".into()),
            c.last.unwrap_or(3)
        ),
        ClaimKind::Stability => format!(
            "the point is {} when {} of its replications are judged unstable",
            if c.stable == Some(false) {
                "unstable, as claimed,"
            } else {
                "stable, as claimed,"
            },
            if c.stable == Some(false) {
                "more than half"
            } else {
                "at most half"
            }
        ),
    }
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        // Keep a capital that starts a symbol or an acronym (E[ΣQ], P(…), S_2).
        Some(f) if c.clone().next().is_some_and(|n| n.is_lowercase()) => {
            f.to_lowercase().chain(c).collect()
        }
        _ => s.to_string(),
    }
}

/// Audits every claim of an experiment (with the checks of their `why`s).
pub fn audit_experiment(
    experiment: &str,
    claims: &[ClaimToml],
    results: &[PointResult],
) -> Vec<ClaimResult> {
    claims
        .iter()
        .map(|c| audit_claim(experiment, c, results))
        .collect()
}

/// A reference value: 5 significant digits, no trailing zeros ("1", "63.284").
fn sig5(x: f64) -> String {
    let s = crate::table::fmt_sig(x, 5);
    let s = if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    s.replacen('-', "−", 1)
}

fn num(x: f64, sig: usize) -> String {
    crate::table::fmt_sig(x, sig).replacen('-', "−", 1)
}

/// "mean ± half-width", or the value alone.
fn measured(c: &Check) -> String {
    if c.measured.is_nan() {
        return "—".into();
    }
    match c.half_width {
        Some(h) => format!("{} ± {}", num(c.measured, 4), num(h, 2)),
        None => num(c.measured, 4),
    }
}

/// The number of unstable replications of a stability check.
fn unstable_count(k: &Check) -> usize {
    (k.measured * k.replications as f64).round() as usize
}

/// A check's axis values as a reader reads them: "load = 0.9, count_own = true".
fn at_words(k: &Check) -> String {
    lb_runner::plan::axes_words(k.axes.iter().map(|(a, v)| (a.as_str(), v.as_str())))
}

fn md(s: &str) -> String {
    crate::markup::to_markdown(s).replace('|', "\\|")
}

/// One check in words, every number labelled: what was measured, its
/// value and interval, where, and against what.
pub fn describe(c: &ClaimResult, k: &Check) -> String {
    let label = c
        .metric_label
        .as_deref()
        .map(lower_first)
        .unwrap_or_default();
    let at = at_words(k);
    let at = if at.is_empty() {
        String::new()
    } else {
        format!(" at {at}")
    };
    match c.kind {
        ClaimKind::Ordering => format!("{label}: {} = {}{at}", k.policy, measured(k)),
        ClaimKind::Value => format!(
            "{label} of {} = {}{at}; expected {}",
            k.policy,
            measured(k),
            k.threshold
                .trim_start_matches("= ")
                .trim_end_matches(" (interval must cover it)")
        ),
        ClaimKind::Bound => format!(
            "{label} of {}: margin over the bound {} = {}{at}",
            k.policy,
            k.reference.map(sig5).unwrap_or_default(),
            measured(k)
        ),
        ClaimKind::Trend => format!("{label} of {}: change {}{at}", k.policy, measured(k)),
        ClaimKind::Limit => format!(
            "{label} of {} = {}{at}; limit {}",
            k.policy,
            measured(k),
            k.reference.map(sig5).unwrap_or_default()
        ),
        ClaimKind::Stability => format!(
            "{}: {} of {} replications unstable{at}",
            k.policy,
            unstable_count(k),
            k.replications
        ),
    }
}

/// A claim's row in the summaries (also kept in `<experiment>/claims.json`,
/// from which the report pages are assembled).
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct ClaimRow {
    pub id: String,
    pub verdict: String,
    pub required: bool,
    pub statement: String,
    /// The deciding check in words ("no points computed" when none).
    pub deciding: String,
    /// Points confirmed of points read.
    pub confirmed: usize,
    pub points: usize,
    pub why: Option<String>,
    /// The verdicts of the checks of the why.
    pub why_checks: Vec<(String, String)>,
}

/// The claims of one experiment, as `<experiment>/claims.json`.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct ExperimentClaims {
    pub experiment: String,
    pub title: String,
    pub claims: Vec<ClaimRow>,
}

impl ExperimentClaims {
    pub fn new(experiment: &str, title: &str, claims: &[ClaimResult]) -> ExperimentClaims {
        ExperimentClaims {
            experiment: experiment.to_string(),
            title: title.to_string(),
            claims: claims.iter().map(row).collect(),
        }
    }

    /// (confirmed, refuted, inconclusive) among claims that are the
    /// papers' (`required: false`) or lb's own (`required: true`).
    pub fn counts(&self, required: bool) -> (usize, usize, usize) {
        let n = |v: &str| {
            self.claims
                .iter()
                .filter(|c| c.required == required && c.verdict == v)
                .count()
        };
        (n("confirmed"), n("refuted"), n("inconclusive"))
    }
}

fn row(c: &ClaimResult) -> ClaimRow {
    ClaimRow {
        id: c.id.clone(),
        verdict: c.verdict.word().to_string(),
        required: c.required,
        statement: c.statement.clone(),
        deciding: c
            .deciding()
            .map(|k| describe(c, k))
            .unwrap_or_else(|| "no points computed".into()),
        confirmed: c
            .checks
            .iter()
            .filter(|k| k.verdict == Verdict::Confirmed)
            .count(),
        points: c.checks.len(),
        why: c.why.clone(),
        why_checks: c
            .why_checks
            .iter()
            .map(|w| (w.statement.clone(), w.verdict.word().to_string()))
            .collect(),
    }
}

/// The anchor of a claim's section in the audit.
pub fn anchor(experiment: &str, id: &str) -> String {
    format!("{experiment}--{id}")
}

/// The verdict as printed: bold, with "(required)" for lb's own checks.
pub fn verdict_cell(verdict: &str, required: bool) -> String {
    format!("**{verdict}**{}", if required { " (required)" } else { "" })
}

/// The audit's sections of one experiment (its part of `audit.md`).
pub fn fragment(experiment: &str, title: &str, claims: &[ClaimResult]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "<a id=\"{experiment}\"></a>\n");
    let _ = writeln!(s, "## {experiment} — {}\n", md(title));
    if claims.is_empty() {
        s.push_str("No claims.\n\n");
    }
    for c in claims {
        section(&mut s, c, 3);
    }
    s
}

fn section(s: &mut String, c: &ClaimResult, depth: usize) {
    let h = "#".repeat(depth);
    let _ = writeln!(s, "<a id=\"{}\"></a>\n", anchor(&c.experiment, &c.id));
    let _ = writeln!(
        s,
        "{h} {} — {}{}\n",
        c.id,
        c.verdict.word(),
        if c.required { " (required)" } else { "" }
    );
    let _ = writeln!(s, "> {}\n", md(&c.statement));
    let ok = c
        .checks
        .iter()
        .filter(|k| k.verdict == Verdict::Confirmed)
        .count();
    let refuted = c
        .checks
        .iter()
        .filter(|k| k.verdict == Verdict::Refuted)
        .count();
    let _ = writeln!(s, "- Source: {}", md(&c.source));
    let _ = writeln!(
        s,
        "- Holds when: {}; {}% intervals",
        md(&c.rule),
        crate::ticks::format_tick(100.0 * c.level, None)
    );
    let _ = writeln!(
        s,
        "- Points: {ok} of {} confirmed, {refuted} refuted, {} inconclusive",
        c.checks.len(),
        c.checks.len() - ok - refuted
    );
    if let Some(d) = c.deciding() {
        let _ = writeln!(s, "- Deciding point: {}", md(&describe(c, d)));
    }
    match (&c.why, c.verdict) {
        (Some(w), Verdict::Confirmed) => {
            let _ = writeln!(
                s,
                "- Why (from the manifest; the claim is confirmed, so it may be stale): {}",
                md(w)
            );
        }
        (Some(w), _) => {
            let _ = writeln!(s, "- Why (from the manifest): {}", md(w));
        }
        (None, Verdict::Refuted | Verdict::Inconclusive) if !c.required => {
            let _ = writeln!(s, "- Why: the manifest gives no explanation.");
        }
        _ => {}
    }
    if !c.missing.is_empty() {
        let _ = writeln!(
            s,
            "- **Missing data** ({} point(s); `lb run` computes them):",
            c.missing.len()
        );
        for m in &c.missing {
            let _ = writeln!(s, "  - {}", md(m));
        }
    }
    for w in &c.why_checks {
        let _ = writeln!(
            s,
            "  - Check of the why: {} — **{}**{}",
            md(&w.statement),
            w.verdict.word(),
            w.deciding()
                .map(|d| format!(" ({})", md(&describe(w, d))))
                .unwrap_or_default()
        );
    }
    s.push('\n');
    if c.checks.is_empty() {
        s.push_str("No points computed.\n\n");
        return;
    }
    // One row per point, one column per axis; the measured column says what
    // it measures.
    let axes: Vec<String> = c.checks[0].axes.iter().map(|(a, _)| a.clone()).collect();
    let policies: Vec<&str> = {
        let mut v: Vec<&str> = c.checks.iter().map(|k| k.policy.as_str()).collect();
        v.dedup();
        v
    };
    let policy_col = c.kind != ClaimKind::Ordering && policies.len() > 1;
    let label = c.metric_label.as_deref().map(md).unwrap_or_default();
    let measured_head = match c.kind {
        ClaimKind::Ordering => format!("{}: {label}", policies.join(" / ")),
        ClaimKind::Bound if !policy_col => {
            format!("margin of {} over the bound: {label}", policies.join(", "))
        }
        ClaimKind::Bound => format!("margin over the bound: {label}"),
        ClaimKind::Value if !policy_col => {
            format!("{label} of {}", policies.join(", "))
        }
        ClaimKind::Value => label.clone(),
        ClaimKind::Trend => format!("change between neighbours: {label}"),
        ClaimKind::Limit => format!("{label} nearest the limit"),
        ClaimKind::Stability => "unstable replications".into(),
    };
    let reference_head = match c.kind {
        ClaimKind::Value => Some("expected"),
        ClaimKind::Limit => Some("limit"),
        ClaimKind::Bound => Some("bound"),
        _ => None,
    };
    let notes = c.checks.iter().any(|k| k.note.is_some());
    let mut head: Vec<String> = axes.clone();
    if policy_col {
        head.push("policy".into());
    }
    head.push(measured_head);
    if c.kind != ClaimKind::Stability {
        head.push("replications".into());
    }
    if let Some(r) = reference_head {
        head.push(r.into());
    }
    head.push("verdict".into());
    if notes {
        head.push("note".into());
    }
    head.push("key".into());
    let _ = writeln!(s, "| {} |", head.join(" | "));
    let _ = writeln!(s, "|{}", " --- |".repeat(head.len()));
    for k in &c.checks {
        let mut cells: Vec<String> = k.axes.iter().map(|(_, v)| v.clone()).collect();
        if policy_col {
            cells.push(k.policy.clone());
        }
        cells.push(match c.kind {
            ClaimKind::Stability => format!("{} of {}", unstable_count(k), k.replications),
            _ => measured(k),
        });
        if c.kind != ClaimKind::Stability {
            cells.push(k.replications.to_string());
        }
        if reference_head.is_some() {
            cells.push(match (c.kind, k.reference) {
                (ClaimKind::Value | ClaimKind::Limit, Some(_)) => k
                    .threshold
                    .trim_start_matches("= ")
                    .trim_end_matches(" (interval must cover it)")
                    .trim_start_matches("→ ")
                    .to_string(),
                (_, Some(r)) => sig5(r),
                _ => "—".into(),
            });
        }
        cells.push(k.verdict.word().to_string());
        if notes {
            cells.push(md(k.note.as_deref().unwrap_or("")));
        }
        cells.push(
            k.keys
                .iter()
                .map(|h| format!("`{}`", &h[..12]))
                .collect::<Vec<_>>()
                .join(", "),
        );
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    s.push('\n');
}

/// The audit page: the intro, a summary table of every claim, then each
/// experiment's sections (`fragments`, in order).
pub fn page(experiments: &[(ExperimentClaims, String)]) -> String {
    let mut s = String::from("# Audit of the claims\n\n");
    s.push_str(
        "Generated by `lb reproduce` (or `lb audit --out`) from the manifests and the cached \
         records; do not edit by hand. A claim is *confirmed* when its interval lies on the \
         claimed side of the threshold at every point it reads, *refuted* when at some point \
         it lies wholly on the other side, *inconclusive* otherwise (an interval straddles the \
         threshold, or a run did not settle). Orderings use paired differences across \
         replications (common random numbers). *Required* claims are what lb itself \
         guarantees (exact theory); a paper's claim is audited, not required: its verdict is \
         the finding. A refuted or inconclusive claim carries the manifest's explanation \
         (*why*), with the verdicts of the checks of that explanation where it has them.\n\n",
    );
    let all: Vec<&ClaimRow> = experiments.iter().flat_map(|(e, _)| &e.claims).collect();
    let n = |v: &str, req: bool| {
        all.iter()
            .filter(|c| c.verdict == v && c.required == req)
            .count()
    };
    let papers = all.iter().filter(|c| !c.required).count();
    let _ = writeln!(
        s,
        "{papers} claims of papers: {} confirmed, {} refuted, {} inconclusive. {} checks lb \
         guarantees (required): {} confirmed, {} refuted, {} inconclusive.\n",
        n("confirmed", false),
        n("refuted", false),
        n("inconclusive", false),
        all.len() - papers,
        n("confirmed", true),
        n("refuted", true),
        n("inconclusive", true)
    );
    s.push_str("## Summary\n\n");
    s.push_str("| verdict | claim | experiment | at the deciding point |\n");
    s.push_str("| --- | --- | --- | --- |\n");
    for (e, _) in experiments {
        for c in &e.claims {
            let _ = writeln!(
                s,
                "| {} | [{}](#{}) | [{}](#{}) | {} |",
                verdict_cell(&c.verdict, c.required),
                c.id,
                anchor(&e.experiment, &c.id),
                e.experiment,
                e.experiment,
                md(&c.deciding)
            );
        }
    }
    s.push('\n');
    for (_, f) in experiments {
        s.push_str(f);
    }
    s
}

/// The audit as the terminal prints it: the counts and the summary table.
pub fn terminal(experiments: &[(ExperimentClaims, String)]) -> String {
    let p = page(experiments);
    // From the counts (after the intro) to the first section.
    let start = p
        .find(" claims of papers:")
        .map_or(0, |i| p[..i].rfind('\n').map_or(0, |j| j + 1));
    let end = p.find("\n<a id=").unwrap_or(p.len());
    p[start..end].trim_end().to_string() + "\n"
}
