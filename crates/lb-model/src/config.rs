//! What a point runs and what a replication measured, behind one interface:
//! [`PointConfig`] (what lb-core runs for one point), [`SystemPart`] (what
//! seeds its common random numbers) and [`Summary`] (one replication). Each
//! operation is one `match` over the models, with no wildcard arm: a new
//! model is a compile error in every operation until it has its arm.
//!
//! [`PointConfig`] and [`Summary`] are untagged in JSON: a slotted point
//! serialises exactly as it did before other models existed, so every key and
//! record stays byte-identical; the point's `model` field says which variant
//! it holds.

use crate::limits::Cost;
use crate::metric::{MetricInfo, Param};
use crate::model::{Model, SystemHead};
use crate::{many, slotted, spn};
use lb_core::many::{ManyConfig, ManySummary};
use lb_core::slotted::{RunSummary, SlottedConfig};
use lb_core::spn::{SpnConfig, SpnSummary};
use lb_core::{Seeds, Stability};
use serde::{Deserialize, Serialize};

/// A model's metrics and references (each model's `metrics` module lists
/// them).
impl Model {
    /// The model's metrics, in table order.
    pub fn metrics(self) -> &'static [MetricInfo] {
        match self {
            Model::Slotted => &slotted::metrics::METRICS,
            Model::Many => &many::metrics::METRICS,
            Model::Spn => &spn::metrics::METRICS,
        }
    }

    /// The metric named `name`, if the model has it.
    pub fn metric(self, name: &str) -> Option<&'static MetricInfo> {
        self.metrics().iter().find(|m| m.name == name)
    }

    /// The named exact references a claim of this model can hold a metric to.
    pub fn references(self) -> &'static [&'static str] {
        match self {
            Model::Slotted => &slotted::metrics::REFERENCES,
            Model::Many => &many::metrics::REFERENCES,
            Model::Spn => &spn::metrics::REFERENCES,
        }
    }

    /// Whether the named reference `name` is drawn per replication, on the
    /// replication's own random numbers (the slotted model's pooled queue):
    /// it is then already paired with the metric it is compared with.
    pub fn per_replication(self, name: &str) -> bool {
        let names: &[&str] = match self {
            Model::Slotted => &slotted::metrics::PER_REPLICATION,
            Model::Many => &many::metrics::PER_REPLICATION,
            Model::Spn => &spn::metrics::PER_REPLICATION,
        };
        names.contains(&name)
    }
}

/// What lb-core runs for a point. Untagged (see the module doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PointConfig {
    /// A point of the slotted model (Zhou, Shroff and Wierman).
    Slotted(SlottedConfig),
    /// A point of the many-server model (Liu and Ying; graph topologies).
    Many(ManyConfig),
    /// A point of the stochastic processing network model (Dai and Lin).
    Spn(SpnConfig),
}

impl PointConfig {
    /// Its load ρ: λ_Σ/μ_Σ in slots, λ per server in the many-server
    /// model, the bottleneck station's in a network.
    pub fn load(&self) -> f64 {
        match self {
            PointConfig::Slotted(c) => c.system.load(),
            PointConfig::Many(c) => c.lambda,
            PointConfig::Spn(c) => crate::spn::metrics::bottleneck_load(c),
        }
    }

    /// The model of this configuration.
    pub fn model(&self) -> Model {
        match self {
            PointConfig::Slotted(_) => Model::Slotted,
            PointConfig::Many(_) => Model::Many,
            PointConfig::Spn(_) => Model::Spn,
        }
    }

    /// The system part of a point with head `head` (everything but the
    /// policy), whose hash seeds the arrival and service streams: common
    /// random numbers across the policies at a point.
    pub fn system_part(&self, head: SystemHead) -> SystemPart<'_> {
        match self {
            PointConfig::Slotted(c) => SystemPart::Slotted(slotted::system_part(head, c)),
            PointConfig::Many(c) => SystemPart::Many(many::system_part(head, c)),
            PointConfig::Spn(c) => SystemPart::Spn(spn::system_part(head, c)),
        }
    }

    /// The policy's display name ("L-JSQ-Push", "Power-of-2", "JIQ", …).
    pub fn policy_name(&self) -> String {
        match self {
            PointConfig::Slotted(c) => c.policy.name(),
            PointConfig::Many(c) => many::policy_name(&c.policy),
            PointConfig::Spn(c) => spn::policy_name(&c.policy),
        }
    }

    /// Runs replication `r` with `seeds`.
    pub fn run(&self, seeds: &Seeds, r: u64) -> Summary {
        match self {
            PointConfig::Slotted(c) => Summary::Slotted(lb_core::slotted::run(c, seeds, r)),
            PointConfig::Many(c) => Summary::Many(lb_core::many::run_many(c, seeds, r)),
            PointConfig::Spn(c) => Summary::Spn(lb_core::spn::run_spn(c, seeds, r)),
        }
    }

    /// Metric `name` of one replication (None where undefined, or when the
    /// summary is of another model).
    pub fn metric(&self, name: &str, s: &Summary) -> Option<f64> {
        match (self, s) {
            (PointConfig::Slotted(c), Summary::Slotted(s)) => slotted::metrics::value(name, c, s),
            (PointConfig::Many(c), Summary::Many(s)) => many::metrics::value(name, c, s),
            (PointConfig::Spn(c), Summary::Spn(s)) => spn::metrics::value(name, c, s),
            (PointConfig::Slotted(_), Summary::Many(_) | Summary::Spn(_))
            | (PointConfig::Many(_), Summary::Slotted(_) | Summary::Spn(_))
            | (PointConfig::Spn(_), Summary::Slotted(_) | Summary::Many(_)) => None,
        }
    }

    /// The named exact reference `name` at a point whose seeds `seeds` gives
    /// (replication `r`, for references that run on the replication's own
    /// random numbers: `seeds` is called only for those), as a
    /// value of `metric` (the metric it is compared with: one reference may
    /// give S_i, jobs per server and response time alike), or why it does
    /// not apply. The network model's references are one number whatever
    /// the metric; the slotted model's too, but ζ, which is 1 as a value of
    /// ε·E\[ΣQ\]/ζ.
    pub fn reference(
        &self,
        name: &str,
        metric: &str,
        seeds: &dyn Fn() -> Seeds,
        r: u64,
    ) -> Result<f64, String> {
        match self {
            PointConfig::Slotted(c) => slotted::metrics::reference(name, metric, c, seeds, r),
            PointConfig::Many(c) => many::metrics::reference(name, metric, c),
            PointConfig::Spn(c) => spn::metrics::reference(name, metric, c),
        }
    }

    /// Whether the named reference `name` is defined as a value of `metric`
    /// (Err: why not), without running anything: a reference that runs on a
    /// replication's random numbers (`pooled`) is checked, not computed.
    pub fn reference_applies(&self, name: &str, metric: &str) -> Result<(), String> {
        match self {
            PointConfig::Slotted(c) => slotted::metrics::reference_applies(name, c),
            PointConfig::Many(c) => many::metrics::reference(name, metric, c).map(|_| ()),
            PointConfig::Spn(c) => spn::metrics::reference(name, metric, c).map(|_| ()),
        }
    }

    /// Whether the point lies inside theorem `name`'s hypothesis: None where
    /// it does, Some(why not) where it does not, Err where the model has no
    /// such hypothesis (docs/AUDITING.md, "Hypotheses").
    pub fn hypothesis(&self, name: &str) -> Result<Option<String>, String> {
        match self {
            PointConfig::Many(c) => many::metrics::hypothesis(name, c),
            PointConfig::Slotted(_) | PointConfig::Spn(_) => Err(format!(
                "no hypothesis \"{name}\" in this model; the many-server model has: {}",
                many::metrics::HYPOTHESES.join(", ")
            )),
        }
    }

    /// The floor of `metric` at this point: the least value any policy
    /// could give it (for a mean response time, the response of a job that
    /// never waits: the fastest server's mean service time), or None where
    /// the model states none. A point where every side of a comparison sits
    /// at its floor cannot tell policies apart (docs/AUDITING.md,
    /// "Uninformative points").
    pub fn floor(&self, metric: &str) -> Option<f64> {
        match self {
            PointConfig::Slotted(c) => slotted::metrics::floor(metric, c),
            PointConfig::Many(c) => many::metrics::floor(metric, c),
            PointConfig::Spn(_) => None,
        }
    }

    /// The value of `metric` that the model's sampling arithmetic gives at
    /// the mean state of the run `s`, where the metric is such a function of
    /// the state (docs/AUDITING.md, "Uninformative points"): a claim whose
    /// subject equals it within its interval follows from the mean state,
    /// which flow balance fixes, and the policy's parameters. None elsewhere.
    pub fn at_mean_state(&self, metric: &str, s: &Summary) -> Option<f64> {
        match (self, s) {
            (PointConfig::Many(c), Summary::Many(s)) => many::metrics::at_mean_state(metric, c, s),
            _ => None,
        }
    }

    /// The value of `metric` at this point by the named reference `name`,
    /// where that reference is exact (an exact mean, or a cost the policy's
    /// rules fix): what makes a claim about the metric an accounting
    /// consequence of the formula. None elsewhere.
    pub fn exact_value(&self, metric: &str, name: &str) -> Option<f64> {
        match self {
            PointConfig::Slotted(c) => slotted::metrics::exact_value(metric, name, c),
            PointConfig::Many(_) | PointConfig::Spn(_) => None,
        }
    }

    /// The exact mean of `metric` given by the named reference `name` (a
    /// control variate's E\[Y\]), or why there is none.
    pub fn exact_mean(&self, metric: &str, name: &str) -> Result<f64, String> {
        match self {
            PointConfig::Slotted(c) => slotted::metrics::exact_mean(metric, name, c),
            PointConfig::Many(_) | PointConfig::Spn(_) => Err(format!(
                "control variates need an exact mean; `{name}` is not one in this model"
            )),
        }
    }

    /// The policy's p̂, where the model has one (LED policies of the slotted
    /// model): the parameter a message-budget calibration sets.
    pub fn p_hat(&self) -> Option<f64> {
        match self {
            PointConfig::Slotted(c) => c.policy.p_hat(),
            PointConfig::Many(_) | PointConfig::Spn(_) => None,
        }
    }

    /// The configuration with p̂ set, where the model has one.
    pub fn with_p_hat(self, p: f64) -> PointConfig {
        match self {
            PointConfig::Slotted(mut c) => {
                c.policy = c.policy.with_p_hat(p);
                PointConfig::Slotted(c)
            }
            other @ (PointConfig::Many(_) | PointConfig::Spn(_)) => other,
        }
    }

    /// What one replication is expected to cost ([`crate::limits`]).
    pub fn cost(&self) -> Cost {
        match self {
            PointConfig::Slotted(c) => slotted::cost::cost(c),
            PointConfig::Many(c) => many::cost::cost(c),
            PointConfig::Spn(c) => spn::cost::cost(c),
        }
    }

    /// The point's fixed parameters, named as in the papers' notation
    /// (`dispatchers` M, `servers` N, `lambda`, `load` ρ, …): the columns a
    /// tidy table carries beside the sweep axes.
    pub fn parameters(&self) -> Vec<(&'static str, Param)> {
        match self {
            PointConfig::Slotted(c) => slotted::metrics::parameters(c),
            PointConfig::Many(c) => many::metrics::parameters(c),
            PointConfig::Spn(c) => spn::metrics::parameters(c),
        }
    }

    /// Lines describing the configuration, for `lb show`.
    pub fn describe(&self) -> Vec<String> {
        match self {
            PointConfig::Slotted(c) => slotted::metrics::describe(c),
            PointConfig::Many(c) => many::metrics::describe(c),
            PointConfig::Spn(c) => spn::metrics::describe(c),
        }
    }
}

/// The system part of a point (see [`PointConfig::system_part`]). Untagged,
/// like the configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SystemPart<'a> {
    /// The slotted model's.
    Slotted(slotted::SystemPart<'a>),
    /// The many-server model's.
    Many(many::SystemPart<'a>),
    /// The network model's.
    Spn(spn::SystemPart<'a>),
}

/// What one replication measured. Untagged (see the module doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Summary {
    /// A run of the slotted model.
    Slotted(RunSummary),
    /// A run of the many-server model.
    Many(ManySummary),
    /// A run of the network model.
    Spn(SpnSummary),
}

impl Summary {
    /// A summary of a point of `model`, parsed as that model's own type; the
    /// untagged form (tried when that fails) reads each type in turn.
    pub fn from_json_for(model: Model, text: &str) -> serde_json::Result<Summary> {
        let own = match model {
            Model::Slotted => serde_json::from_str(text).map(Summary::Slotted),
            Model::Many => serde_json::from_str(text).map(Summary::Many),
            Model::Spn => serde_json::from_str(text).map(Summary::Spn),
        };
        own.or_else(|_| serde_json::from_str(text))
    }
}

/// Whether the replications show divergence (as
/// `lb_core::slotted::point_unstable`, for either model's summaries): a
/// point that has no steady state.
pub fn point_unstable(summaries: &[Summary]) -> bool {
    point_stability(summaries).0 == lb_core::stability::PointStability::Unstable
}

/// A point's stability read on its replications: the label, the flagged
/// count and the median share of growth the flagged ones keep
/// ([`lb_core::stability::point_stability`]).
pub fn point_stability(
    summaries: &[Summary],
) -> (lb_core::stability::PointStability, usize, Option<f64>) {
    lb_core::stability::point_stability(summaries.iter().map(|s| (s.stable(), s.trace())))
}

impl Summary {
    /// The replication index r.
    pub fn replication(&self) -> u64 {
        match self {
            Summary::Slotted(s) => s.replication,
            Summary::Many(s) => s.replication,
            Summary::Spn(s) => s.replication,
        }
    }

    /// The stability verdict of the run (docs/MODEL.md §1).
    pub fn stability(&self) -> &Stability {
        match self {
            Summary::Slotted(s) => &s.stability,
            Summary::Many(s) => &s.stability,
            Summary::Spn(s) => &s.stability,
        }
    }

    /// Whether the run's queues settled.
    pub fn stable(&self) -> bool {
        self.stability().stable
    }

    /// Batch means of the run's queue content (ΣQ, or jobs per server).
    pub fn trace(&self) -> &[f64] {
        match self {
            Summary::Slotted(s) => &s.trace,
            Summary::Many(s) => &s.trace,
            Summary::Spn(s) => &s.trace,
        }
    }

    /// The run's sample path, as (time, value) pairs over the whole horizon
    /// warm-up included, where the model records one (the network model:
    /// total jobs against time); None for models that record none. Figures
    /// of kind "path" draw it.
    pub fn path(&self) -> Option<Vec<(f64, f64)>> {
        match self {
            Summary::Slotted(_) | Summary::Many(_) => None,
            Summary::Spn(s) => Some(
                s.path_times
                    .iter()
                    .zip(&s.path)
                    .map(|(t, z)| (*t, *z as f64))
                    .collect(),
            ),
        }
    }

    /// Why the summary cannot be a correct run's, beyond its checksum (e.g.
    /// more jobs completed than arrived); `lb cache check` reports it.
    pub fn consistency(&self) -> Result<(), String> {
        match self {
            Summary::Slotted(s) => slotted::consistency::check(s),
            Summary::Many(s) => many::consistency::check(s),
            Summary::Spn(s) => spn::consistency::check(s),
        }
    }

    /// The (events, trials) behind a [`crate::metric::MetricKind::Proportion`] metric in
    /// this replication (the metric is events / trials); None for other
    /// metrics, or when the summary is of another model.
    pub fn counts(&self, name: &str) -> Option<(u64, u64)> {
        match self {
            Summary::Slotted(s) => slotted::metrics::counts(name, s),
            Summary::Many(s) => many::metrics::counts(name, s),
            Summary::Spn(s) => spn::metrics::counts(name, s),
        }
    }

    /// A precision metric's value ([`MetricInfo::precision`]).
    pub fn precision_value(&self, name: &str) -> Option<f64> {
        match self {
            Summary::Slotted(s) => slotted::metrics::precision_value(name, s),
            Summary::Many(s) => many::metrics::precision_value(name, s),
            Summary::Spn(s) => spn::metrics::precision_value(name, s),
        }
    }
}
