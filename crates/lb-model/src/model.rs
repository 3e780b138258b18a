//! Which model a point belongs to, which engine version computed it and with
//! which run lengths ([`Profile`]): the identity every model's points and
//! system parts start with.

use serde::{Deserialize, Serialize};

/// The model a manifest and its points belong to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    /// The slotted multi-dispatcher LED model (docs/MODEL.md §1; Zhou, Shroff and
    /// Wierman).
    Slotted,
    /// The many-server continuous-time model (docs/MODEL.md §2).
    Many,
    /// Stochastic processing networks (docs/MODEL.md §3; Dai and Lin).
    Spn,
}

impl Model {
    /// Every model, in the order the docs list them.
    pub const ALL: [Model; 3] = [Model::Slotted, Model::Many, Model::Spn];

    /// The manifest's word for the model.
    pub fn name(self) -> &'static str {
        match self {
            Model::Slotted => "slotted",
            Model::Many => "many",
            Model::Spn => "spn",
        }
    }

    /// The model named `s`, if any.
    pub fn parse(s: &str) -> Option<Model> {
        Model::ALL.into_iter().find(|m| m.name() == s)
    }

    /// The engine version of the model, part of each of its points' keys:
    /// a change to one engine recomputes its own results only.
    pub fn version(self) -> u32 {
        match self {
            Model::Slotted => lb_core::MODEL_VERSION,
            Model::Many => lb_core::many::MODEL_VERSION,
            Model::Spn => lb_core::spn::MODEL_VERSION,
        }
    }

    /// The metric a run's trace (its batch means) is the time series of:
    /// ΣQ in the slotted model, jobs per server in the many-server one,
    /// jobs in the network (no per-replication metric of its own) in a
    /// stochastic processing network. Batch means apply to that metric only.
    pub fn trace_metric(self) -> Option<&'static str> {
        match self {
            Model::Slotted => Some("mean_sum_q"),
            Model::Many => Some("mean_jobs"),
            Model::Spn => Some("mean_total"),
        }
    }

    /// The unit of time of the model's runs, for axis labels.
    pub fn time_unit(self) -> &'static str {
        match self {
            Model::Slotted => "time slots",
            Model::Many => "mean service times",
            Model::Spn => "time units of the rates",
        }
    }
}

/// Which run lengths a point was expanded with. `quick` points (from
/// `lb run --quick`) carry the word in their configuration, so their keys
/// differ from every full point's and the two never mix in the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// The runs the manifest states.
    Full,
    /// Shortened runs, for `--quick`.
    Quick,
}

impl Profile {
    /// The profile as written.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Full => "full",
            Profile::Quick => "quick",
        }
    }
}

/// What every model's system part starts with: the point's model, engine
/// version, profile and master seed. Flattened into each model's part (keys
/// are canonical JSON, whose keys are sorted, so flattening changes no byte).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SystemHead {
    /// Always "system" (keeps these hashes apart from keys').
    pub part: &'static str,
    /// The point's model.
    pub model: Model,
    /// Its engine version.
    pub model_version: u32,
    /// Its profile.
    pub profile: Profile,
    /// The manifest's master seed.
    pub seed: u64,
}

impl SystemHead {
    /// The head of the system part of a point of `model` at engine version
    /// `model_version`, expanded with `profile` from master seed `seed`.
    pub fn new(model: Model, model_version: u32, profile: Profile, seed: u64) -> SystemHead {
        SystemHead {
            part: "system",
            model,
            model_version,
            profile,
            seed,
        }
    }
}
