//! Expansion of a manifest into points (SPEC §4), and what a plan holds. The
//! model's module does the expansion ([`crate::model::ModelManifest`]); the
//! types here are shared by every model.

use crate::diag::ManifestError;
use crate::manifest::{Loaded, PrecisionSpec};
use crate::model::slotted::calibrate::Calibration;
use crate::point::{Point, Profile};
use crate::precision::PrecisionRule;
use serde::Serialize;
use std::path::PathBuf;

/// Expands a validated manifest into its points.
pub fn expand(l: &Loaded, profile: Profile) -> Result<Plan, ManifestError> {
    l.manifest.expand(l, profile)
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
