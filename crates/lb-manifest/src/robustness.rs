//! Claim robustness maps, the part every model shares: a [`Variant`] (one
//! combination of a map's settings, expanded), and [`restrict`], which cuts a
//! variant's plan down to what the map's claims read. Which settings a model
//! can vary, and how a combination is written into its manifest, is the
//! model's own (the slotted model's: `crate::model::slotted::robustness`).

use crate::claim::Claim;
use crate::outputs::where_matches;
use crate::plan::{Plan, PlannedPoint, Target};
use lb_model::key::Key;
use std::collections::BTreeMap;

/// The part of `plan` that `claims` read: their policies at the points their
/// `where` selects, and the calibrations those points need (re-indexed).
pub fn restrict(plan: &Plan, claims: &[&Claim]) -> Plan {
    let wanted = |pp: &PlannedPoint| {
        claims.iter().any(|c| {
            c.check.labels().contains(&pp.label.as_str())
                && where_matches(&c.filter, |a| {
                    plan.axes
                        .iter()
                        .position(|x| *x == a)
                        .map(|i| pp.axes[i].as_str())
                })
        })
    };
    let mut out = Plan {
        file: plan.file.clone(),
        name: plan.name.clone(),
        profile: plan.profile,
        axes: plan.axes.clone(),
        calibrations: Vec::new(),
        points: Vec::new(),
        extended: plan.extended.clone(),
        // A variant's per-replication references are drawn as it is read.
        drawn: BTreeMap::new(),
        calibration_keys: Default::default(),
    };
    // The control points that kept points' precision rules read are kept
    // too: their replications pair with the kept points'.
    let controls: Vec<Key> = plan
        .points
        .iter()
        .filter(|pp| wanted(pp))
        .filter_map(|pp| match &pp.replications {
            crate::plan::Replications::Precision(rule) => crate::plan::control_key(rule),
            crate::plan::Replications::Fixed(_) => None,
        })
        .collect();
    let control = |pp: &PlannedPoint| match &pp.target {
        Target::Fixed(p) => controls.contains(&p.key()),
        Target::Calibrated { .. } => false,
    };
    let mut index: BTreeMap<usize, usize> = BTreeMap::new();
    for pp in plan.points.iter().filter(|pp| wanted(pp) || control(pp)) {
        let mut pp = pp.clone();
        if let Target::Calibrated { calibration, .. } = &mut pp.target {
            let c = *calibration;
            *calibration = *index.entry(c).or_insert_with(|| {
                out.calibrations.push(plan.calibrations[c].clone());
                out.calibrations.len() - 1
            });
        }
        out.points.push(pp);
    }
    out
}

/// What a plan's points are, for comparing two plans: each point's key, or
/// its template's key and its calibration's.
pub fn fingerprint(plan: &Plan) -> Vec<(String, Key, Option<Key>)> {
    plan.points
        .iter()
        .map(|pp| match &pp.target {
            Target::Fixed(p) => (pp.label.clone(), p.key(), None),
            Target::Calibrated {
                calibration,
                template,
            } => (
                pp.label.clone(),
                template.key(),
                Some(plan.calibration_key(*calibration)),
            ),
        })
        .collect()
}

/// `c` read at another value of the swept settings it pins: each `(axis,
/// value)` of `pins` replaces its `where` entry for that axis. A map that
/// varies a setting the manifest sweeps re-reads its claims so, on points
/// the experiment runs already.
pub fn repinned(c: &Claim, pins: &[(String, String)]) -> Claim {
    let mut c = c.clone();
    for (axis, value) in pins {
        c.filter
            .insert(axis.clone(), toml::Value::String(value.clone()));
    }
    c
}

/// One combination of a map, expanded.
#[derive(Debug, Clone)]
pub struct Variant {
    /// The map's index in the manifest's `[[robustness]]` tables.
    pub map: usize,
    /// (setting, value as shown) for each setting the map varies.
    pub values: Vec<(String, String)>,
    /// (axis, value) for each setting of the map that the manifest sweeps:
    /// its claims are read with their `where` pinned there
    /// ([`repinned`]).
    pub pins: Vec<(String, String)>,
    /// The combination plans exactly the experiment's own points (its
    /// settings are the manifest's own).
    pub base: bool,
    /// The points the map's claims read at this combination.
    pub plan: Plan,
}

impl Variant {
    /// "tie_break=lowest count_own=false".
    pub fn describe(&self) -> String {
        self.values
            .iter()
            .map(|(s, v)| format!("{s}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}
