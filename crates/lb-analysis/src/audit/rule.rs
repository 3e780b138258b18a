//! What a claim holds its points to, in words (the "Holds when" of the
//! audit page), one sentence per kind of claim.

use super::words::{lower_first, sig5, tolerance_words};
use crate::metric::Metric;
use lb_runner::claim::{ClaimKind, ClaimToml};
use lb_runner::outputs::Reference;

/// What a claim holds its points to, in words.
pub(super) fn rule(c: &ClaimToml, metric: Option<Metric>) -> String {
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
