//! A point: one fully resolved configuration of an experiment, every default
//! written out (SPEC §4). Its canonical JSON is what the key hashes.

use lb_core::{RunLength, SlottedConfig, SystemConfig};
use serde::{Deserialize, Serialize};

/// Which run lengths a point was expanded with. `quick` points (from
/// `lb run --quick`) carry the word in their configuration, so their keys
/// differ from every full point's and the two never mix in the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    Full,
    Quick,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Full => "full",
            Profile::Quick => "quick",
        }
    }
}

/// The model a point runs. Only the slotted LED model exists today (SPEC §1);
/// the continuous-time and SPN models of SPEC §2–3 will be further variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    Slotted,
}

/// One fully resolved point (SPEC §4): what lb-core runs, plus the master seed,
/// the engine's model version and the profile. The key is the SHA-256 of its
/// canonical JSON ([`crate::key`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Point {
    pub model: Model,
    /// `lb_core::MODEL_VERSION` when the point was expanded.
    pub model_version: u32,
    pub profile: Profile,
    /// The manifest's master seed (`run.seed`).
    pub seed: u64,
    pub config: SlottedConfig,
}

/// The system part of a point (SPEC §4): everything that shapes the arrival and
/// service processes — model, model version, profile, master seed, the laws
/// A_m and S_n, and the run length. Arrival and service streams are seeded from
/// its hash, so every policy at a point (and every `granularity` or `count_own`
/// setting, which change how jobs are placed but not when they arrive or how
/// much service is offered) sees the same A_m(t) and S_n(t).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemPart<'a> {
    pub part: &'static str,
    pub model: Model,
    pub model_version: u32,
    pub profile: Profile,
    pub seed: u64,
    pub system: &'a SystemConfig,
    pub run: &'a RunLength,
}

impl Point {
    /// The system part, for the arrival and service seed.
    pub fn system_part(&self) -> SystemPart<'_> {
        SystemPart {
            part: "system",
            model: self.model,
            model_version: self.model_version,
            profile: self.profile,
            seed: self.seed,
            system: &self.config.system,
            run: &self.config.run,
        }
    }

    /// The policy's display name ("L-JSQ-Push", "Power-of-2", …).
    pub fn policy_name(&self) -> String {
        self.config.policy.name()
    }
}
