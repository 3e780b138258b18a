//! Stability claims ("the policy is (un)stable here"): at every point, the
//! fraction of replications judged unstable. A point decides only when its
//! replications agree: all of them as claimed confirms, all of them
//! contrary refutes, and replications that disagree decide nothing (the
//! point is inconclusive, and says so): one unstable replication among
//! twenty is either a run that did not settle or a detector's false alarm,
//! and the audit cannot tell which.

use super::check::{Check, Verdict};
use super::points::{at_string, keys, selected};
use crate::results::PointResult;
use lb_runner::claim::Stability;
use lb_runner::outputs::Where;

/// The checks of a stability claim: one per point of each policy that has
/// replications.
pub(super) fn checks(c: &Stability, filter: &Where, results: &[PointResult]) -> Vec<Check> {
    let claimed = c.stable;
    let mut checks = Vec::new();
    for label in &c.policies {
        for r in selected(filter, results, label) {
            if r.summaries.is_empty() {
                continue;
            }
            checks.push(check_at(r, label, claimed));
        }
    }
    checks
}

/// The check at `r` of the claim that the policy is stable (`claimed`) or
/// unstable there.
fn check_at(r: &PointResult, label: &str, claimed: bool) -> Check {
    let n = r.summaries.len();
    let unstable = r.summaries.iter().filter(|s| !s.stable()).count();
    let frac = unstable as f64 / n as f64;
    // Unanimous replications decide; disagreeing ones do not.
    let as_claimed = if claimed { n - unstable } else { unstable };
    let verdict = if as_claimed == n {
        Verdict::Confirmed
    } else if as_claimed == 0 {
        Verdict::Refuted
    } else {
        Verdict::Inconclusive
    };
    let growth = r
        .summaries
        .iter()
        .map(|s| s.stability().growth)
        .fold(f64::NEG_INFINITY, f64::max);
    Check {
        at: at_string(r),
        axes: r.axes.clone(),
        reference: None,
        policy: label.to_string(),
        measured: frac,
        half_width: None,
        replications: n,
        threshold: format!(
            "claimed {}: every replication {}",
            if claimed { "stable" } else { "unstable" },
            if claimed { "stable" } else { "unstable" }
        ),
        verdict,
        note: Some(format!(
            "{}largest ΣQ growth over the second half: {:.0}%",
            if verdict == Verdict::Inconclusive {
                "the replications disagree, so the point decides nothing; "
            } else {
                ""
            },
            100.0 * growth
        )),
        keys: keys(&[r]),
        decision: None,
        unsettled: None,
        longer: None,
    }
}
