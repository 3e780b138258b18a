//! Message budgets (docs/MODEL.md §1; Zhou, Shroff and Wierman Fig. 1: "LED policies
//! configured to have the same average message overhead as Power-of-2").
//!
//! The update probability p̂ of an LED policy is found by bisection on p̂ ∈
//! [0, 1] so that its messages per arrival meet a target: a number, or the
//! overhead of another policy at the same point. Each probe is a set of short
//! pilot runs. Every pilot run of a calibration uses the same seeds — the
//! point's system seed (so the same arrivals and service) and a policy seed
//! from the calibration's key — so the probes differ only through p̂, and the
//! result is a pure function of the [`Calibration`], cached like any result.

use crate::config::PointConfig;
use crate::key::Key;
use crate::point::Point;
use lb_core::slotted::SlottedConfig;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// What the overhead must match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CalibrationTarget {
    /// A number of messages per arrival.
    MessagesPerArrival {
        /// Messages per arrival.
        value: f64,
    },
    /// The overhead of another policy, measured by pilot runs of this point
    /// (with its own seeds, as a point of its own).
    SameAs {
        /// The other policy's point.
        point: Point,
    },
}

/// One calibration, fully resolved; its key is the hash of its canonical JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    /// Always "calibration" (keeps these keys apart from points').
    pub kind: String,
    /// The policy at the pilot run length, with p̂ = 0 standing in for the unknown.
    pub point: Point,
    /// What the overhead must match.
    pub target: CalibrationTarget,
    /// Pilot replications per probe; the overhead is their mean.
    pub pilot_replications: u32,
    /// Bisection steps after the end points.
    pub iterations: u32,
    /// A probe within rel_tol × target of the target stops the search.
    pub rel_tol: f64,
}

/// How a calibration ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CalibrationStatus {
    /// A probe came within the tolerance.
    Met,
    /// The iterations ran out; p̂ is the closest probe.
    Closest,
    /// Even p̂ = 1 stays below the target: the budget is out of reach, p̂ = 1.
    OutOfReach,
    /// Even p̂ = 0 exceeds the target (e.g. Pull's idle reports): p̂ = 0.
    AboveAtZero,
}

/// One probe of the bisection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Probe {
    /// The update probability p̂.
    pub p_hat: f64,
    /// Pilot messages per arrival at that p̂.
    pub messages_per_arrival: f64,
}

/// The result of a calibration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalibrationResult {
    /// The update probability p̂.
    pub p_hat: f64,
    /// Target messages per arrival.
    pub target: f64,
    /// Pilot messages per arrival at the chosen p̂.
    pub achieved: f64,
    /// Whether the target was met or is out of reach.
    pub status: CalibrationStatus,
    /// The bisection's probes, in order.
    pub probes: Vec<Probe>,
}

impl Calibration {
    /// A calibration of `point` (its p̂ set to 0, the unknown) toward `target`.
    pub fn new(
        point: Point,
        target: CalibrationTarget,
        pilot_replications: u32,
        iterations: u32,
        rel_tol: f64,
    ) -> Calibration {
        assert!(
            slotted(&point).is_some(),
            "message-budget calibration is for slotted points only (the manifest check refuses it for others)"
        );
        let point = point.with_p_hat(0.0);
        Calibration {
            kind: "calibration".into(),
            point,
            target,
            pilot_replications,
            iterations,
            rel_tol,
        }
    }

    /// Its key, the hash of its canonical JSON.
    pub fn key(&self) -> Key {
        Key::of(self).expect("finite numbers only")
    }

    /// A short description for logs.
    pub fn describe(&self) -> String {
        let t = match &self.target {
            CalibrationTarget::MessagesPerArrival { value } => format!("{value} msgs/arrival"),
            CalibrationTarget::SameAs { point } => format!("same as {}", point.policy_name()),
        };
        let c = slotted(&self.point).expect("calibrations are slotted");
        let g = match c.granularity {
            lb_core::slotted::Granularity::Batch => "batch",
            lb_core::slotted::Granularity::Job => "job",
        };
        format!(
            "p̂ of {} at load {:.4} ({g}, count_own {}) for {t}",
            self.point.policy_name(),
            c.system.load(),
            c.count_own,
        )
    }

    /// Runs the bisection. Pure: the same calibration gives the same bits.
    pub fn run(&self) -> CalibrationResult {
        let key = self.key();
        let target = match &self.target {
            CalibrationTarget::MessagesPerArrival { value } => *value,
            CalibrationTarget::SameAs { point } => {
                overhead(point, &point.key(), self.pilot_replications)
            }
        };
        let tol = self.rel_tol * target;
        let mut probes = Vec::new();
        let mut probe = |p: f64| {
            let pt = self.point.clone().with_p_hat(p);
            let f = overhead(&pt, &key, self.pilot_replications);
            probes.push(Probe {
                p_hat: p,
                messages_per_arrival: f,
            });
            f
        };
        let done = |p_hat, achieved, status, probes| CalibrationResult {
            p_hat,
            target,
            achieved,
            status,
            probes,
        };
        let f1 = probe(1.0);
        if (f1 - target).abs() <= tol {
            return done(1.0, f1, CalibrationStatus::Met, probes);
        }
        if f1 < target {
            return done(1.0, f1, CalibrationStatus::OutOfReach, probes);
        }
        let f0 = probe(0.0);
        if (f0 - target).abs() <= tol {
            return done(0.0, f0, CalibrationStatus::Met, probes);
        }
        if f0 > target {
            return done(0.0, f0, CalibrationStatus::AboveAtZero, probes);
        }
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..self.iterations {
            let mid = 0.5 * (lo + hi);
            let f = probe(mid);
            if (f - target).abs() <= tol {
                return done(mid, f, CalibrationStatus::Met, probes);
            }
            if f < target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let best = probes
            .iter()
            .min_by(|a, b| {
                let da = (a.messages_per_arrival - target).abs();
                let db = (b.messages_per_arrival - target).abs();
                da.total_cmp(&db).then(a.p_hat.total_cmp(&b.p_hat))
            })
            .expect("at least two probes")
            .clone();
        done(
            best.p_hat,
            best.messages_per_arrival,
            CalibrationStatus::Closest,
            probes,
        )
    }
}

/// Mean messages per arrival of `reps` pilot replications of `point`, with the
/// policy seed from `policy_key`.
fn overhead(point: &Point, policy_key: &Key, reps: u32) -> f64 {
    let seeds = point.seeds_with_policy_key(policy_key);
    let vals: Vec<f64> = (0..reps as u64)
        .into_par_iter()
        .map(|r| {
            let c = slotted(point).expect("calibrations are slotted");
            lb_core::slotted::run(c, &seeds, r)
                .messages_per_arrival
                .unwrap_or(0.0)
        })
        .collect();
    vals.iter().sum::<f64>() / vals.len() as f64
}

/// The slotted configuration of a calibration's point.
fn slotted(point: &Point) -> Option<&SlottedConfig> {
    match &point.config {
        PointConfig::Slotted(c) => Some(c),
        _ => None,
    }
}
