//! A point: one fully resolved configuration of an experiment, every default
//! written out (SPEC §4). Its canonical JSON is what the key hashes.

use lb_core::many::{ManyConfig, ManySummary, TimeRun};
use lb_core::slotted::{RunLength, RunSummary, SlottedConfig, SystemConfig};
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

/// The model a point runs: the slotted LED model (SPEC §1) or the
/// many-server continuous-time model (SPEC §2). The SPN model of SPEC §3 will
/// be a further variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    Slotted,
    Many,
}

impl Model {
    pub fn name(self) -> &'static str {
        match self {
            Model::Slotted => "slotted",
            Model::Many => "many",
        }
    }
}

/// What lb-core runs for a point. Untagged, so that a slotted point's JSON
/// (and hence its key and records) is exactly what it was before the many
/// model existed; the `model` field of [`Point`] says which variant it holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PointConfig {
    Slotted(SlottedConfig),
    Many(ManyConfig),
}

/// What one replication measured: a [`RunSummary`] (slotted) or a
/// [`ManySummary`]. Untagged for the same reason as [`PointConfig`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Summary {
    Slotted(RunSummary),
    Many(ManySummary),
}

impl Summary {
    /// The replication index r.
    pub fn replication(&self) -> u64 {
        match self {
            Summary::Slotted(s) => s.replication,
            Summary::Many(s) => s.replication,
        }
    }
    pub fn slotted(&self) -> Option<&RunSummary> {
        match self {
            Summary::Slotted(s) => Some(s),
            Summary::Many(_) => None,
        }
    }
    pub fn many(&self) -> Option<&ManySummary> {
        match self {
            Summary::Many(s) => Some(s),
            Summary::Slotted(_) => None,
        }
    }
    /// Whether the run's queues settled (SPEC §1 stability verdict).
    pub fn stable(&self) -> bool {
        match self {
            Summary::Slotted(s) => s.stability.stable,
            Summary::Many(s) => s.stability.stable,
        }
    }
    /// The stability verdict of the run.
    pub fn stability(&self) -> &lb_core::Stability {
        match self {
            Summary::Slotted(s) => &s.stability,
            Summary::Many(s) => &s.stability,
        }
    }
    /// Batch means of the run's queue content (ΣQ, or jobs per server).
    pub fn trace(&self) -> &[f64] {
        match self {
            Summary::Slotted(s) => &s.trace,
            Summary::Many(s) => &s.trace,
        }
    }
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
    pub config: PointConfig,
}

/// The system part of a point (SPEC §4): everything that shapes the arrival and
/// service processes — model, model version, profile, master seed, the laws
/// A_m and S_n, and the run length. Arrival and service streams are seeded from
/// its hash, so every policy at a point (and every `granularity` or `count_own`
/// setting, which change how jobs are placed but not when they arrive or how
/// much service is offered) sees the same A_m(t) and S_n(t).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SystemPart<'a> {
    Slotted(SlottedSystemPart<'a>),
    Many(ManySystemPart<'a>),
}

/// The system part of a slotted point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlottedSystemPart<'a> {
    pub part: &'static str,
    pub model: Model,
    pub model_version: u32,
    pub profile: Profile,
    pub seed: u64,
    pub system: &'a SystemConfig,
    pub run: &'a RunLength,
}

/// The system part of a many-server point (SPEC §2): N, λ, the buffer and the
/// run length — everything but the policy. Every policy at a point reads the
/// same event sequence (which events are arrivals, which server a potential
/// departure hits, where a task arrives).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ManySystemPart<'a> {
    pub part: &'static str,
    pub model: Model,
    pub model_version: u32,
    pub profile: Profile,
    pub seed: u64,
    pub servers: usize,
    pub lambda: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer: Option<u32>,
    pub run: &'a TimeRun,
}

impl Point {
    /// The system part, for the arrival and service seed.
    pub fn system_part(&self) -> SystemPart<'_> {
        match &self.config {
            PointConfig::Slotted(c) => SystemPart::Slotted(SlottedSystemPart {
                part: "system",
                model: self.model,
                model_version: self.model_version,
                profile: self.profile,
                seed: self.seed,
                system: &c.system,
                run: &c.run,
            }),
            PointConfig::Many(c) => SystemPart::Many(ManySystemPart {
                part: "system",
                model: self.model,
                model_version: self.model_version,
                profile: self.profile,
                seed: self.seed,
                servers: c.servers,
                lambda: c.lambda,
                buffer: c.buffer,
                run: &c.run,
            }),
        }
    }

    /// The slotted configuration, if this is a slotted point.
    pub fn slotted(&self) -> Option<&SlottedConfig> {
        match &self.config {
            PointConfig::Slotted(c) => Some(c),
            PointConfig::Many(_) => None,
        }
    }

    /// The slotted configuration, mutably.
    pub fn slotted_mut(&mut self) -> Option<&mut SlottedConfig> {
        match &mut self.config {
            PointConfig::Slotted(c) => Some(c),
            PointConfig::Many(_) => None,
        }
    }

    /// The many-server configuration, if this is a many-server point.
    pub fn many(&self) -> Option<&ManyConfig> {
        match &self.config {
            PointConfig::Many(c) => Some(c),
            PointConfig::Slotted(_) => None,
        }
    }

    /// The policy's display name ("L-JSQ-Push", "Power-of-2", "JIQ", …).
    pub fn policy_name(&self) -> String {
        match &self.config {
            PointConfig::Slotted(c) => c.policy.name(),
            PointConfig::Many(c) => many_policy_name(&c.policy),
        }
    }

    /// The policy's p̂ (LED policies of the slotted model only).
    pub fn p_hat(&self) -> Option<f64> {
        self.slotted().and_then(|c| c.policy.p_hat())
    }

    /// Sets an LED policy's p̂ (calibrations; slotted points only).
    pub fn with_p_hat(mut self, p: f64) -> Point {
        if let Some(c) = self.slotted_mut() {
            c.policy = c.policy.with_p_hat(p);
        }
        self
    }

    /// Runs replication `r`: `lb_core::run` or `lb_core::many::run_many`.
    pub fn run(&self, r: u64) -> Summary {
        let seeds = self.seeds();
        match &self.config {
            PointConfig::Slotted(c) => Summary::Slotted(lb_core::slotted::run(c, &seeds, r)),
            PointConfig::Many(c) => Summary::Many(lb_core::many::run_many(c, &seeds, r)),
        }
    }
}

/// A many-server policy's display name.
pub fn many_policy_name(p: &lb_core::many::ManyPolicy) -> String {
    use lb_core::many::{GraphSpec, ManyPolicy, PodD};
    match p {
        ManyPolicy::Jsq => "JSQ".into(),
        ManyPolicy::Jiq => "JIQ".into(),
        ManyPolicy::I1f => "I1F".into(),
        ManyPolicy::Random => "Random".into(),
        ManyPolicy::Pod {
            d: PodD::Fixed { d },
        } => format!("Pod({d})"),
        ManyPolicy::Pod {
            d: PodD::Scaled { alpha },
        } => format!("Pod(N^{alpha} ln N)"),
        ManyPolicy::Graph { graph } => match graph {
            GraphSpec::Clique => "Graph(clique)".into(),
            GraphSpec::ErdosRenyi { mean_degree } => format!("Graph(ER, d̄ = {mean_degree})"),
            GraphSpec::RandomRegular { degree } => format!("Graph({degree}-regular)"),
            GraphSpec::Ring => "Graph(ring)".into(),
            GraphSpec::Torus => "Graph(torus)".into(),
        },
    }
}
