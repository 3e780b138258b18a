//! Auditing a claim: the dispatcher that reads a claim's points by its kind
//! (one `match` on its [`lb_runner::claim::Check`], an arm per kind, each
//! handing its own keys to its module: [`super::ordering`], [`super::value`],
//! [`super::trend`], [`super::limit`], [`super::stability`]), the verdict of
//! the claim from the verdicts of its points, the checks of its `why` (each
//! audited as a claim of its own), and the points it lacks.

use super::check::{Check, ClaimResult, Verdict};
use super::points::selected;
use super::rule::rule;
use super::{limit, ordering, stability, trend, value};
use crate::metric::Metric;
use crate::results::PointResult;
use lb_runner::claim::{Check as ClaimCheck, Claim};
use lb_runner::outputs::where_matches;

/// Audits one claim against the results of its experiment.
pub fn audit_claim(experiment: &str, c: &Claim, results: &[PointResult]) -> ClaimResult {
    let level = c.level;
    let m = |name: &str| Metric::validated(crate::results::model(results), name);
    let metric = c.check.metric().map(m);
    let f = &c.filter;
    let checks = match &c.check {
        ClaimCheck::Ordering(k) => ordering::checks(k, f, m(&k.metric), results, level),
        ClaimCheck::Value(k) => value::value_checks(k, f, m(&k.metric), results, level),
        ClaimCheck::Stability(k) => stability::checks(k, f, results),
        ClaimCheck::Bound(k) => value::bound_checks(k, f, m(&k.metric), results, level),
        ClaimCheck::Trend(k) => trend::checks(k, f, m(&k.metric), results, level),
        ClaimCheck::Limit(k) => limit::checks(k, f, m(&k.metric), results, level),
    };
    let verdict = overall(&checks);
    let rule = rule(&c.check, metric);
    ClaimResult {
        experiment: experiment.to_string(),
        id: c.id.clone(),
        statement: c.statement.clone(),
        source: c.source.clone(),
        kind: c.check.kind(),
        required: c.required,
        level,
        verdict,
        metric: metric.map(|m| m.name().to_string()),
        metric_label: metric.map(|m| m.label().to_string()),
        rule,
        checks,
        why: c.why.clone(),
        why_checks: why_checks(experiment, c, results),
        missing: gaps(c, results),
    }
}

/// A claim's verdict from its points': refuted if one is, confirmed if all
/// are, inconclusive otherwise (and with no point).
fn overall(checks: &[Check]) -> Verdict {
    if checks.is_empty() {
        Verdict::Inconclusive
    } else if checks.iter().any(|c| c.verdict == Verdict::Refuted) {
        Verdict::Refuted
    } else if checks.iter().all(|c| c.verdict == Verdict::Confirmed) {
        Verdict::Confirmed
    } else {
        Verdict::Inconclusive
    }
}

/// The checks of a claim's `why`, each audited as a claim of its own.
fn why_checks(experiment: &str, c: &Claim, results: &[PointResult]) -> Vec<ClaimResult> {
    c.why_checks
        .iter()
        .enumerate()
        .map(|(i, w)| audit_claim(experiment, &w.as_claim(c, i), results))
        .collect()
}

/// The points a claim reads — its policies (or every policy), within its
/// `where` — that lack replications or hold damaged records; and, when the
/// claim reads no point at all, a line saying so.
pub fn gaps(c: &Claim, results: &[PointResult]) -> Vec<String> {
    let labels = c.check.labels();
    let read: Vec<&PointResult> = if labels.is_empty() {
        results
            .iter()
            .filter(|r| where_matches(&c.filter, |a| r.axis(a)))
            .collect()
    } else {
        labels
            .iter()
            .flat_map(|l| selected(&c.filter, results, l))
            .collect()
    };
    if read.is_empty() {
        return vec!["no point of the plan matches the claim".into()];
    }
    read.iter().filter_map(|r| r.gap()).collect()
}

/// Audits every claim of an experiment (with the checks of their `why`s).
pub fn audit_experiment(
    experiment: &str,
    claims: &[Claim],
    results: &[PointResult],
) -> Vec<ClaimResult> {
    claims
        .iter()
        .map(|c| audit_claim(experiment, c, results))
        .collect()
}
