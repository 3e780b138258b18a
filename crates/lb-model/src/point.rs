//! A point: one fully resolved configuration of an experiment, every default
//! written out (docs/MODEL.md §4). Its canonical JSON is what the key hashes.

use crate::config::{PointConfig, Summary, SystemPart};
pub use crate::model::Profile;
use crate::model::{Model, SystemHead};
use serde::{Deserialize, Serialize};

/// One fully resolved point (docs/MODEL.md §4): what lb-core runs, plus the master seed,
/// the engine's model version and the profile. The key is the SHA-256 of its
/// canonical JSON ([`crate::key`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// Its model.
    pub model: Model,
    /// The model's engine version when the point was expanded
    /// ([`Model::version`]).
    pub model_version: u32,
    /// Full or quick.
    pub profile: Profile,
    /// The manifest's master seed (`run.seed`).
    pub seed: u64,
    /// The resolved configuration, the model's own.
    pub config: PointConfig,
}

impl Point {
    /// The system part, for the arrival and service seed.
    pub fn system_part(&self) -> SystemPart<'_> {
        self.config.system_part(self.head())
    }

    /// The head of the point's system part: model, engine version, profile
    /// and master seed.
    pub fn head(&self) -> SystemHead {
        SystemHead::new(self.model, self.model_version, self.profile, self.seed)
    }

    /// The policy's display name ("L-JSQ-Push", "Power-of-2", "JIQ", …).
    pub fn policy_name(&self) -> String {
        self.config.policy_name()
    }

    /// The policy's p̂, where the model has one (LED policies of the slotted
    /// model); message-budget calibrations set it.
    pub fn p_hat(&self) -> Option<f64> {
        self.config.p_hat()
    }

    /// The point with p̂ set (calibrations).
    pub fn with_p_hat(mut self, p: f64) -> Point {
        self.config = self.config.with_p_hat(p);
        self
    }

    /// Runs replication `r` on the point's own seeds.
    pub fn run(&self, r: u64) -> Summary {
        self.config.run(&self.seeds(), r)
    }

    /// Metric `name` of one of this point's replications.
    pub fn metric(&self, name: &str, s: &Summary) -> Option<f64> {
        self.config.metric(name, s)
    }

    /// The named exact reference `name` at this point as a value of `metric`
    /// (replication `r`, for references that run on the replication's own
    /// random numbers), or why it does not apply
    /// ([`PointConfig::reference`]).
    pub fn reference(&self, name: &str, metric: &str, r: u64) -> Result<f64, String> {
        self.config.reference(name, metric, &|| self.seeds(), r)
    }
}
