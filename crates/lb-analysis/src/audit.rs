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
use lb_runner::outputs::{ClaimKind, ClaimToml, Reference, where_values};
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
    /// The point's axis values, "load=0.9 count_own=true".
    pub at: String,
    pub policy: String,
    /// The measured quantity: the metric, a paired difference, or the fraction
    /// of unstable replications.
    pub measured: f64,
    /// Half-width of its interval at the claim's level (None: no interval).
    pub half_width: Option<f64>,
    pub replications: usize,
    /// What the measurement is held against, in words.
    pub threshold: String,
    pub verdict: Verdict,
    pub note: Option<String>,
    /// The keys of the records read.
    pub keys: Vec<String>,
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
    pub checks: Vec<Check>,
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

fn at_string(r: &PointResult) -> String {
    r.axes
        .iter()
        .map(|(a, v)| format!("{a}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn selected<'a>(c: &ClaimToml, results: &'a [PointResult], label: &str) -> Vec<&'a PointResult> {
    results
        .iter()
        .filter(|r| r.label == label)
        .filter(|r| {
            c.filter.iter().all(|(a, v)| {
                let vs = where_values(v);
                r.axis(a).is_some_and(|x| vs.iter().any(|w| w == x))
            })
        })
        .collect()
}

/// A named or numeric reference at one point and replication (named ones
/// are the model's: [`lb_runner::Model::references`]).
fn reference(reference: &Reference, point: &Point, r: u64) -> Result<f64, String> {
    match reference {
        Reference::Number(x) => Ok(*x),
        Reference::Named(n) => point.config.reference(n, point, r),
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
                // The partner at the same axis values; an axis that does not apply
                // to one of the two ("-", e.g. p_hat for JSQ) is not compared.
                let same = |w: &&PointResult| {
                    w.axes
                        .iter()
                        .zip(&b.axes)
                        .all(|((_, x), (_, y))| x == y || x == "-" || y == "-")
                };
                let Some(w) = selected(c, results, worse).into_iter().find(same) else {
                    checks.push(Check {
                        at: at_string(b),
                        policy: format!("{worse} − {better}"),
                        measured: f64::NAN,
                        half_width: None,
                        replications: 0,
                        threshold: String::new(),
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
                    policy: format!("{worse} − {better}"),
                    measured: mean,
                    half_width: hw,
                    replications: diffs.len(),
                    threshold: format!("paired difference of {} > 0", m.name()),
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
                        .map(|(rep, _)| reference(refv, p, *rep))
                        .collect();
                    let refs = match refs {
                        Ok(v) => v,
                        Err(e) => {
                            checks.push(Check {
                                at: at_string(r),
                                policy: label.clone(),
                                measured: f64::NAN,
                                half_width: None,
                                replications: vals.len(),
                                threshold: String::new(),
                                verdict: Verdict::Inconclusive,
                                note: Some(e),
                                keys: keys(&[r]),
                            });
                            continue;
                        }
                    };
                    let xs: Vec<f64> = vals.iter().map(|v| v.1).collect();
                    // A transient metric (a growth rate, a level at the end) is
                    // read on unstable points too.
                    let stable = point_stable(r) || m.transient();
                    let check = if c.kind == ClaimKind::Value {
                        // Paired per replication: a reference drawn on the same
                        // streams (`pooled`) keeps its pairing; a constant one
                        // leaves the metric's own interval.
                        let expected = refs.iter().sum::<f64>() / refs.len() as f64;
                        let diffs: Vec<f64> = xs.iter().zip(&refs).map(|(x, e)| x - e).collect();
                        let (dmean, hw) = stats(&diffs, level);
                        let mean = dmean + expected;
                        let tol = c.tolerance.unwrap_or(0.0) * expected.abs();
                        let h = hw.unwrap_or(f64::INFINITY);
                        let verdict = if !stable || hw.is_none() {
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
                            format!(
                                "= {} (interval must cover it)",
                                crate::table::fmt_sig(expected, 5)
                            )
                        } else {
                            format!(
                                "{} ± {}%",
                                crate::table::fmt_sig(expected, 5),
                                100.0 * c.tolerance.unwrap_or(0.0)
                            )
                        };
                        Check {
                            at: at_string(r),
                            policy: label.clone(),
                            measured: mean,
                            half_width: hw,
                            replications: xs.len(),
                            threshold,
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
                        let (mean, hw) = stats(&margins, level);
                        let bound = refs.iter().sum::<f64>() / refs.len() as f64;
                        Check {
                            at: at_string(r),
                            policy: label.clone(),
                            measured: xs.iter().sum::<f64>() / xs.len() as f64,
                            half_width: hw,
                            replications: xs.len(),
                            threshold: format!(
                                "{} {} {}",
                                m.name(),
                                if ge { "≥" } else { "≤" },
                                match refv {
                                    Reference::Named(n) =>
                                        format!("{n} ({})", crate::table::fmt_sig(bound, 5)),
                                    Reference::Number(x) => x.to_string(),
                                }
                            ),
                            verdict: if stable {
                                sign_verdict(mean, hw, false)
                            } else {
                                Verdict::Inconclusive
                            },
                            note: (!stable).then(|| "unstable: no steady state to compare".into()),
                            keys: keys(&[r]),
                        }
                    };
                    checks.push(check);
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
    ClaimResult {
        experiment: experiment.to_string(),
        id: c.id.clone(),
        statement: c.statement.clone(),
        source: c.source.clone(),
        kind: c.kind,
        required: c.required,
        level,
        verdict,
        checks,
    }
}

fn measured(c: &Check) -> String {
    if c.measured.is_nan() {
        return "—".into();
    }
    match c.half_width {
        Some(h) => format!(
            "{} ± {}",
            crate::table::fmt_sig(c.measured, 4),
            crate::table::fmt_sig(h, 2)
        ),
        None => crate::table::fmt_sig(c.measured, 4),
    }
}

/// The audit report in Markdown: one row per claim, then every check.
pub fn markdown(claims: &[ClaimResult]) -> String {
    let mut s = String::from("# Audit of the claims\n\n");
    s.push_str(
        "Generated by `lb audit` from the manifests and the cached records; do not edit by \
         hand. A claim is *confirmed* when its interval lies on the claimed side of the \
         threshold at every point it reads, *refuted* when at some point it lies wholly on \
         the other side, *inconclusive* otherwise (an interval straddles the threshold, or a \
         run did not settle). Orderings use paired differences across replications (common \
         random numbers). `required` claims are what lb itself guarantees; a paper's claim is \
         audited, not required: its verdict is the finding.\n\n",
    );
    let count = |v: Verdict| claims.iter().filter(|c| c.verdict == v).count();
    let _ = writeln!(
        s,
        "{} claims: {} confirmed, {} refuted, {} inconclusive.\n",
        claims.len(),
        count(Verdict::Confirmed),
        count(Verdict::Refuted),
        count(Verdict::Inconclusive)
    );
    s.push_str("| verdict | experiment | claim | statement | source | measured (deciding point) | threshold | points |\n");
    s.push_str("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for c in claims {
        let d = c.deciding();
        let ok = c
            .checks
            .iter()
            .filter(|k| k.verdict == Verdict::Confirmed)
            .count();
        let _ = writeln!(
            s,
            "| **{}**{} | {} | {} | {} | {} | {} | {} | {}/{} confirmed |",
            c.verdict.word(),
            if c.required { " (required)" } else { "" },
            c.experiment,
            c.id,
            c.statement.replace('|', "\\|"),
            c.source.replace('|', "\\|"),
            d.map(|d| format!("{}: {} at {}", d.policy, measured(d), d.at))
                .unwrap_or_else(|| "no points computed".into()),
            d.map(|d| d.threshold.clone()).unwrap_or_default(),
            ok,
            c.checks.len()
        );
    }
    s.push_str("\n## Every check\n");
    for c in claims {
        let _ = writeln!(
            s,
            "\n### {} / {} — {}\n",
            c.experiment,
            c.id,
            c.verdict.word()
        );
        let _ = writeln!(
            s,
            "{} ({}; {:.1}% intervals)\n",
            c.statement,
            c.source,
            100.0 * c.level
        );
        s.push_str("| at | policy | measured | n | threshold | verdict | note | key |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for k in &c.checks {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                k.at,
                k.policy,
                measured(k),
                k.replications,
                k.threshold,
                k.verdict.word(),
                k.note.clone().unwrap_or_default(),
                k.keys
                    .iter()
                    .map(|h| h[..12].to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    s
}
