//! What a manifest expands into: a [`Plan`] of [`PlannedPoint`]s (a policy at
//! one combination of the sweep axes, with its replication rule) and the
//! message-budget calibrations some of them need. The models' expansions
//! build it (`crate::model`); the runner runs it.

use crate::experiment::PrecisionSpec;
use lb_model::key::Key;
use lb_model::point::{Point, Profile};
use lb_model::precision::PrecisionRule;
use lb_model::slotted::calibrate::Calibration;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

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

/// How many replications a point gets.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Replications {
    /// A fixed count.
    Fixed(u32),
    /// As many as a precision rule asks for.
    Precision(PrecisionRule),
}

impl Replications {
    /// `run.replications` or `run.precision` of a validated manifest (one of
    /// the two is set).
    pub(crate) fn from_run(
        replications: Option<u32>,
        precision: Option<&PrecisionSpec>,
    ) -> Replications {
        match (replications, precision) {
            (Some(n), _) => Replications::Fixed(n),
            (None, Some(p)) => Replications::Precision(p.rule()),
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

    /// The replication indices of its precision rule's pilot
    /// ([`PrecisionRule::pilot`]); none without a rule. A cache may hold
    /// the pilot records of a rule the manifest no longer states: these
    /// are the ones it runs.
    pub fn pilot(&self) -> std::ops::Range<u64> {
        match self {
            Replications::Fixed(_) => 0..0,
            Replications::Precision(p) => p.pilot(),
        }
    }

    /// Its precision rule's first stage ([`PrecisionRule::first_stage`]):
    /// Some under Stein's procedure.
    pub fn first_stage(&self) -> Option<usize> {
        match self {
            Replications::Fixed(_) => None,
            Replications::Precision(p) => p.first_stage(),
        }
    }
}

/// What a planned point runs: a point, or a point whose p̂ a calibration sets.
#[derive(Debug, Clone)]
pub enum Target {
    /// A point of its own.
    Fixed(Point),
    /// `template` has p̂ = 0 in place of the calibrated value.
    Calibrated {
        /// The calibration that sets its p̂.
        calibration: usize,
        /// The point, p̂ to be set.
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
    /// How many replications it runs.
    pub replications: Replications,
    /// What it runs.
    pub target: Target,
    /// Its keys once computed ([`PlannedPoint::keys`]).
    pub keys: KeyMemo,
}

/// A planned point's keys, computed once: its point's at each calibrated p̂
/// (a key hashes the canonical configuration, which a command otherwise
/// recomputes at every look at the plan). A key is a function of what it
/// hashes, so a copy of the point keeps them.
#[derive(Debug, Clone, Default)]
pub struct KeyMemo {
    point: std::sync::Arc<std::sync::Mutex<Vec<PointKey>>>,
}

/// A point's key at a calibrated p̂ (its bits; None: not calibrated).
type PointKey = (Option<u64>, Key);

impl KeyMemo {
    /// The key of `point`, this planned point's at p̂ = `p_hat` (None: not
    /// calibrated).
    pub fn point(&self, p_hat: Option<f64>, point: &Point) -> Key {
        let at = p_hat.map(f64::to_bits);
        let mut known = self.point.lock().unwrap();
        if let Some((_, k)) = known.iter().find(|(p, _)| *p == at) {
            return *k;
        }
        let k = point.key();
        known.push((at, k));
        k
    }
}

impl PlannedPoint {
    /// The point it runs: the point itself, or the calibration's template
    /// (p̂ = 0 in place of the calibrated value).
    pub fn point(&self) -> &Point {
        match &self.target {
            Target::Fixed(point)
            | Target::Calibrated {
                template: point, ..
            } => point,
        }
    }
}

/// A manifest expanded.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The manifest's file.
    pub file: PathBuf,
    /// The experiment's name.
    pub name: String,
    /// The profile it was expanded at.
    pub profile: Profile,
    /// The sweep axes present, in expansion order.
    pub axes: Vec<&'static str>,
    /// Its message-budget calibrations.
    pub calibrations: Vec<Calibration>,
    /// Its points.
    pub points: Vec<PlannedPoint>,
    /// Points run beyond their replication rule, by key: replications
    /// 0..n of each (`lb decide`'s ledger, [`crate::ledger`]; empty
    /// unless the experiment has one). A point has the larger of its
    /// rule's count and this.
    pub extended: BTreeMap<Key, u32>,
    /// References drawn per replication (the slotted model's `pooled`) that
    /// a claim or figure of the experiment reads, by the index of the
    /// planned point they are read at: the run computes them with the
    /// point's replications and the cache keeps them as records, so that
    /// reading them simulates nothing.
    pub drawn: BTreeMap<usize, BTreeSet<String>>,
    /// The keys of `calibrations`, by index, once computed
    /// ([`Plan::calibration_key`]).
    pub calibration_keys: CalibrationKeys,
}

/// The keys of a plan's calibrations, computed once each (a calibration is
/// not changed once planned; the list only grows).
#[derive(Debug, Clone, Default)]
pub struct CalibrationKeys(std::sync::Arc<std::sync::Mutex<Vec<Option<Key>>>>);

impl CalibrationKeys {
    /// `f` on the place of calibration `i`'s key, made where missing.
    fn slot<T>(&self, i: usize, f: impl FnOnce(&mut Option<Key>) -> T) -> T {
        let mut known = self.0.lock().unwrap();
        if known.len() <= i {
            known.resize(i + 1, None);
        }
        f(&mut known[i])
    }
}

impl Plan {
    /// The key of calibration `i`.
    pub fn calibration_key(&self, i: usize) -> Key {
        self.calibration_keys.slot(i, |slot| {
            *slot.get_or_insert_with(|| self.calibrations[i].key())
        })
    }

    /// Records the key of calibration `i`, computed where it was planned.
    pub(crate) fn know_calibration_key(&self, i: usize, key: Key) {
        self.calibration_keys.slot(i, |slot| *slot = Some(key));
    }

    /// Each calibration with its key.
    pub fn calibrations_keyed(&self) -> impl Iterator<Item = (&Calibration, Key)> {
        self.calibrations
            .iter()
            .enumerate()
            .map(|(i, c)| (c, self.calibration_key(i)))
    }

    /// An empty plan of the manifest `file`, experiment `name`: its points
    /// and calibrations still to add.
    pub fn empty(
        file: &std::path::Path,
        name: &str,
        profile: Profile,
        axes: &[&'static str],
    ) -> Plan {
        Plan {
            file: file.to_path_buf(),
            name: name.to_string(),
            profile,
            axes: axes.to_vec(),
            calibrations: Vec::new(),
            points: Vec::new(),
            extended: BTreeMap::new(),
            drawn: BTreeMap::new(),
            calibration_keys: CalibrationKeys::default(),
        }
    }

    /// The replications of the point `key` when its rule asks for `by_rule`:
    /// the ledger's count if that is larger.
    pub fn needed(&self, key: &Key, by_rule: u32) -> u32 {
        self.extended.get(key).map_or(by_rule, |&n| n.max(by_rule))
    }
}

/// The key of the point a rule's control variate reads, if it has one.
pub fn control_key(rule: &lb_model::precision::PrecisionRule) -> Option<lb_model::Key> {
    rule.control.as_ref().map(|c| {
        lb_model::Key::parse(&c.key).expect("a precision rule's control key is written by the plan")
    })
}
