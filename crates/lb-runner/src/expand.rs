//! Expansion of a manifest into points (SPEC §4), and what a plan holds. The
//! model's module does the expansion ([`crate::model::ModelManifest`]); the
//! types here are shared by every model.

use crate::diag::ManifestError;
use crate::manifest::{Loaded, PrecisionSpec};
use crate::model::slotted::calibrate::Calibration;
use crate::outputs::{ClaimToml, Reference, where_matches};
use crate::point::{Point, Profile};
use crate::precision::PrecisionRule;
use serde::Serialize;
use std::path::PathBuf;

/// Expands a validated manifest into its points, and checks that every
/// named reference of a claim is defined at every point the claim reads.
pub fn expand(l: &Loaded, profile: Profile) -> Result<Plan, ManifestError> {
    let plan = l.manifest.expand(l, profile)?;
    references_apply(l, &plan)?;
    Ok(plan)
}

/// Whether two rows' axis values (in the plan's axis order) name the same
/// combination: equal on every axis, one that does not apply to either of
/// them ("-", e.g. p_hat for JSQ) aside.
pub fn same_axes<'a>(
    a: impl IntoIterator<Item = &'a str>,
    b: impl IntoIterator<Item = &'a str>,
) -> bool {
    a.into_iter()
        .zip(b)
        .all(|(x, y)| x == y || x == "-" || y == "-")
}

/// The planned points of the policies a claim is about, within its `where`.
fn read_by<'a>(plan: &'a Plan, c: &'a ClaimToml) -> impl Iterator<Item = &'a PlannedPoint> {
    plan.points.iter().filter(move |p| {
        c.policies.contains(&p.label)
            && where_matches(&c.filter, |a: &str| {
                plan.axes
                    .iter()
                    .position(|x| *x == a)
                    .map(|j| p.axes[j].as_str())
            })
    })
}

fn planned_point(p: &PlannedPoint) -> &Point {
    match &p.target {
        Target::Fixed(point)
        | Target::Calibrated {
            template: point, ..
        } => point,
    }
}

/// (axis, value) pairs as a reader reads them, "load = 0.9, count_own =
/// true", leaving out axes that do not apply ("-").
pub fn axes_words<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    pairs
        .into_iter()
        .filter(|(_, v)| *v != "-")
        .map(|(a, v)| format!("{a} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The axis values of a planned point in words (" at load = 0.9, d = 2").
fn at_words(plan: &Plan, p: &PlannedPoint) -> String {
    let s = axes_words(plan.axes.iter().copied().zip(p.axes.iter().map(|v| &**v)));
    if s.is_empty() { s } else { format!(" at {s}") }
}

/// A claim's control variate: at every point the claim reads, the control
/// policy has a point at the same axis values, on the same random numbers
/// (the same system seeds), where `mean` is the exact mean of the claim's
/// metric.
fn control_applies(l: &Loaded, plan: &Plan, at: &str, c: &ClaimToml) -> Result<(), ManifestError> {
    let (Some(k), Some(metric)) = (&c.control, &c.metric) else {
        return Ok(());
    };
    for p in read_by(plan, c) {
        let point = planned_point(p);
        let partner = plan.points.iter().find(|q| {
            q.label == k.policy
                && same_axes(q.axes.iter().map(|x| &**x), p.axes.iter().map(|x| &**x))
        });
        let fail = |msg: String| {
            Err(l.error(
                &format!("{at}.control"),
                format!(
                    "the control {} for {}{}: {msg}",
                    k.policy,
                    p.label,
                    at_words(plan, p)
                ),
            ))
        };
        let Some(q) = partner else {
            return fail("it has no point at these axis values".into());
        };
        let control = planned_point(q);
        if control.seeds().system != point.seeds().system {
            return fail(
                "it does not run on the same arrivals and service (its system differs, e.g. \
                 its own dispatchers), so it cannot serve as a control"
                    .into(),
            );
        }
        if let Err(e) = control.config.exact_mean(metric, &k.mean, control) {
            return fail(e);
        }
    }
    Ok(())
}

/// A claim's named reference (`expected`, `bound`) must be defined at each
/// point the claim reads: one that is not (`wr_sum_q` for JSQ,
/// `pod_mean_field` with several dispatchers) is a mistake in the manifest,
/// found before anything runs rather than audited as "inconclusive".
fn references_apply(l: &Loaded, plan: &Plan) -> Result<(), ManifestError> {
    for (i, c) in l.claims().iter().enumerate() {
        let mut all = vec![(format!("claim[{i}]"), c.clone())];
        all.extend(
            c.why_check
                .iter()
                .enumerate()
                .map(|(j, w)| (format!("claim[{i}].why_check[{j}]"), w.as_claim(c, j))),
        );
        for (at, c) in &all {
            control_applies(l, plan, at, c)?;
            for (k, r) in [("expected", &c.expected), ("bound", &c.bound)] {
                let Some(Reference::Named(name)) = r else {
                    continue;
                };
                for p in read_by(plan, c) {
                    let point = planned_point(p);
                    let metric = c.metric.as_deref().unwrap_or_default();
                    if let Err(e) = point.config.reference_applies(name, metric, point) {
                        return Err(l.error(
                            &format!("{at}.{k}"),
                            format!(
                                "`{name}` does not apply to {}{}: {e}; name a reference that \
                                 does, or narrow the claim's `policies` or `where`",
                                p.label,
                                at_words(plan, p)
                            ),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// How many replications a point gets.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Replications {
    Fixed(u32),
    Precision(PrecisionRule),
}

impl Replications {
    /// `run.replications` or `run.precision` of a validated manifest (one of
    /// the two is set).
    pub fn from_run(replications: Option<u32>, precision: Option<&PrecisionSpec>) -> Replications {
        match (replications, precision) {
            (Some(n), _) => Replications::Fixed(n),
            (None, Some(p)) => Replications::Precision(PrecisionRule::from_spec(p)),
            (None, None) => unreachable!("validated: replications or precision"),
        }
    }

    /// The replications that are certainly needed.
    pub fn initial(&self) -> u32 {
        match self {
            Replications::Fixed(n) => *n,
            Replications::Precision(p) => p.min,
        }
    }
}

/// What a planned point runs: a point, or a point whose p̂ a calibration sets.
#[derive(Debug, Clone)]
pub enum Target {
    Fixed(Point),
    /// `template` has p̂ = 0 in place of the calibrated value.
    Calibrated {
        calibration: usize,
        template: Point,
    },
}

/// One row of a manifest's plan: a policy at one combination of the axes.
#[derive(Debug, Clone)]
pub struct PlannedPoint {
    /// The policy's label.
    pub label: String,
    /// The value of each of [`Plan::axes`] ("-" where the axis does not apply).
    pub axes: Vec<String>,
    pub replications: Replications,
    pub target: Target,
}

/// A manifest expanded.
#[derive(Debug, Clone)]
pub struct Plan {
    pub file: PathBuf,
    pub name: String,
    pub profile: Profile,
    /// The sweep axes present, in expansion order.
    pub axes: Vec<&'static str>,
    pub calibrations: Vec<Calibration>,
    pub points: Vec<PlannedPoint>,
}
