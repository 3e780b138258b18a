//! Stability claims ("the policy is (un)stable here"): at every point, the
//! fraction of replications judged unstable, the point's verdict being the
//! majority's.

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
    Check {
        at: at_string(r),
        axes: r.axes.clone(),
        reference: None,
        policy: label.to_string(),
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
    }
}
