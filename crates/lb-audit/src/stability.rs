//! Stability claims ("the policy is (un)stable here"): at every point, the
//! label its replications give together
//! ([`lb_core::stability::point_stability`]). Stable: no more replications
//! flagged by the trend test than its false alarms allow (so more
//! replications only make the label surer). Unstable: most flagged, and
//! their ΣQ growing at a steady rate through the run (divergence, which
//! survives a longer run). Rising: flagged, but the growth slowing — a run
//! that has not relaxed, which decides nothing until longer runs settle it
//! or show it diverging.

use super::check::{PointCheck, Verdict};
use super::points::{at_string, keys, selected};
use lb_analysis::results::PointResult;
use lb_core::stability::PointStability;
use lb_manifest::claim::Stability;
use lb_manifest::outputs::Where;

/// The checks of a stability claim: one per point of each policy that has
/// replications.
pub(super) fn checks(c: &Stability, filter: &Where, results: &[PointResult]) -> Vec<PointCheck> {
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
fn check_at(r: &PointResult, label: &str, claimed: bool) -> PointCheck {
    let n = r.summaries.len();
    let (read, unstable, kept) = lb_model::config::point_stability(&r.summaries);
    let frac = unstable as f64 / n as f64;
    let verdict = match (read, claimed) {
        (PointStability::Stable, true) | (PointStability::Unstable, false) => Verdict::Confirmed,
        (PointStability::Stable, false) | (PointStability::Unstable, true) => Verdict::Refuted,
        (PointStability::Rising, _) => Verdict::Inconclusive,
    };
    let growth = r
        .summaries
        .iter()
        .map(|s| s.stability().growth)
        .fold(f64::NEG_INFINITY, f64::max);
    PointCheck {
        at: at_string(r),
        axes: r.axes.clone(),
        reference: None,
        policy: label.to_string(),
        measured: frac,
        half_width: None,
        replications: n,
        threshold: format!(
            "claimed {}: {}",
            if claimed { "stable" } else { "unstable" },
            if claimed {
                format!(
                    "at most {} of {n} replications flagged (the trend test's false alarms)",
                    lb_core::stability::alarms_allowed(n)
                )
            } else {
                format!(
                    "most replications flagged, ΣQ growing at a steady rate (the second half \
                     keeping ≥ {:.0}% of the first half's)",
                    100.0 * lb_core::stability::GROWTH_KEPT
                )
            }
        ),
        verdict,
        note: Some(format!(
            "{}largest ΣQ growth over the second half: {:.0}%{}",
            if read == PointStability::Rising {
                "ΣQ still rising, but slowing: a run that has not relaxed, not divergence, so \
                 the point decides nothing until longer runs settle it; "
            } else {
                ""
            },
            100.0 * growth,
            kept.map(|k| format!(
                "; the flagged runs' second half keeps {:.0}% of the first half's growth rate",
                100.0 * k
            ))
            .unwrap_or_default()
        )),
        keys: keys(&[r]),
        decision: None,
        unsettled: None,
        longer: None,
        uninformative: None,
        exact_fails: false,
        rate: None,
        false_unstable: (read == PointStability::Unstable && !claimed)
            .then(|| lb_core::stability::false_unstable(n)),
    }
}
