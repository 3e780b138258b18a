//! The models lb runs, behind one interface.
//!
//! Each model is one module here that owns everything particular to it: its
//! manifest sections (`[system]`, `[sweep]`, `[[policy]]`, `[run]`,
//! `[quick]`, …), their validation, their expansion into points, its metric
//! list with labels and units, its named exact references, and the labels of
//! its policies. The shared code (the manifest's top level, keys, the cache,
//! runs, precision, figures and claims) calls the model only through the enums
//! below, each operation one `match` in this file:
//!
//! - [`Model`]: which model (the manifest's `experiment.model`), with its
//!   [`Model::metrics`] and [`Model::references`];
//! - [`ModelManifest`]: a parsed manifest of that model;
//! - [`PointConfig`]: what lb-core runs for one point;
//! - [`Summary`]: what one replication measured.
//!
//! Adding a model is a module here and one variant in each of the four enums
//! (ARCHITECTURE.md, "Adding a model").
//!
//! [`PointConfig`] and [`Summary`] are untagged in JSON: a slotted point
//! serialises exactly as it did before other models existed, so every key and
//! record stays byte-identical; the point's `model` field says which variant
//! it holds.

pub mod continuous;
pub mod length;
pub mod many;
pub mod slotted;
pub mod spn;

use crate::diag::{ManifestError, SpanIndex};
use crate::expand::Plan;
use crate::manifest::{ExperimentSpec, Loaded, PrecisionSpec};
use crate::outputs::{ClaimToml, FigureToml};
use crate::point::{Point, Profile};
use lb_core::Stability;
use lb_core::many::{ManyConfig, ManySummary};
use lb_core::slotted::{RunSummary, SlottedConfig};
use lb_core::spn::{SpnConfig, SpnSummary};
use serde::{Deserialize, Serialize};

type R = Result<(), ManifestError>;

/// The model a manifest and its points belong to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    /// The slotted multi-dispatcher LED model (SPEC §1; Zhou, Shroff and
    /// Wierman).
    Slotted,
    /// The many-server continuous-time model (SPEC §2).
    Many,
    /// Stochastic processing networks (SPEC §3; Dai and Lin).
    Spn,
}

/// One metric a model's tables, figures and claims can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricInfo {
    /// The column and manifest name (`mean_response`).
    pub name: &'static str,
    /// What an axis or a table header says, unit included.
    pub label: &'static str,
    /// Shown in the experiment's tables.
    pub table: bool,
    /// Defined by a replication's summary alone, so a precision target
    /// (`run.precision.metric`) may be set on it.
    pub precision: bool,
    /// Meaningful for a run that did not settle (a growth rate, a level at
    /// the end, the fraction of unstable runs): claims and figures read it on
    /// unstable points too, where steady-state metrics are not.
    pub transient: bool,
    /// What kind of number it is: how tables and figures give its interval.
    pub kind: MetricKind,
    /// Tables show it only in experiments that sweep one of these axes
    /// (empty: in every experiment). ε·E[ΣQ] and its ratio to ζ are
    /// heavy-traffic quantities: read along a load sweep they say nothing
    /// E[ΣQ] does not.
    pub only_with_axes: &'static [&'static str],
}

/// What kind of number a metric is, for its interval (lb-analysis).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// Any real number: mean ± Student-t half-width across replications.
    Real,
    /// A time-averaged fraction in [0, 1] with no event count behind it
    /// (the occupancy S_i): the Student-t interval, cut to [0, 1].
    Fraction,
    /// A proportion of counted events ([`Summary::counts`]): events over
    /// trials pooled across replications, with a Wilson interval (a
    /// Clopper–Pearson upper bound when no event was seen).
    Proportion,
}

/// A metric of `kind` (for the models' constant lists).
pub const fn metric(
    name: &'static str,
    label: &'static str,
    table: bool,
    precision: bool,
    kind: MetricKind,
) -> MetricInfo {
    MetricInfo::new(name, label, table, precision).of_kind(kind)
}

impl MetricInfo {
    /// A real-valued metric (for the models' constant lists).
    pub const fn new(
        name: &'static str,
        label: &'static str,
        table: bool,
        precision: bool,
    ) -> MetricInfo {
        MetricInfo {
            name,
            label,
            table,
            precision,
            kind: MetricKind::Real,
            transient: false,
            only_with_axes: &[],
        }
    }

    /// The same metric, shown in tables only when one of `axes` is swept.
    pub const fn only_with(mut self, axes: &'static [&'static str]) -> MetricInfo {
        self.only_with_axes = axes;
        self
    }

    /// Whether tables of an experiment sweeping `axes` show it.
    pub fn applies(&self, axes: &[String]) -> bool {
        self.table
            && (self.only_with_axes.is_empty()
                || self
                    .only_with_axes
                    .iter()
                    .any(|a| axes.iter().any(|x| x == a)))
    }

    /// The same metric, marked meaningful for runs that did not settle.
    pub const fn transient(mut self) -> MetricInfo {
        self.transient = true;
        self
    }

    /// The same metric, of another kind.
    pub const fn of_kind(mut self, kind: MetricKind) -> MetricInfo {
        self.kind = kind;
        self
    }
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

    /// The engine version of the model, part of each of its points' keys:
    /// a change to one engine recomputes its own results only.
    pub fn version(self) -> u32 {
        match self {
            Model::Slotted => lb_core::MODEL_VERSION,
            Model::Many => lb_core::many::MODEL_VERSION,
            Model::Spn => lb_core::spn::MODEL_VERSION,
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

/// A parsed manifest of one model. Each model's manifest carries the shared
/// sections (`[experiment]`, `[[figure]]`, `[[claim]]`) beside its own.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // one per loaded file
pub enum ModelManifest {
    Slotted(slotted::Manifest),
    Many(many::Manifest),
    Spn(spn::Manifest),
}

impl ModelManifest {
    /// Parses `text` strictly with `model`'s schema.
    pub(crate) fn parse(
        model: Model,
        text: &str,
        spans: &SpanIndex,
    ) -> Result<ModelManifest, ManifestError> {
        let err = |e: toml::de::Error| crate::manifest::serde_error(spans, &e);
        Ok(match model {
            Model::Slotted => ModelManifest::Slotted(toml::from_str(text).map_err(err)?),
            Model::Many => ModelManifest::Many(toml::from_str(text).map_err(err)?),
            Model::Spn => ModelManifest::Spn(toml::from_str(text).map_err(err)?),
        })
    }

    pub fn model(&self) -> Model {
        match self {
            ModelManifest::Slotted(_) => Model::Slotted,
            ModelManifest::Many(_) => Model::Many,
            ModelManifest::Spn(_) => Model::Spn,
        }
    }

    pub fn experiment(&self) -> &ExperimentSpec {
        match self {
            ModelManifest::Slotted(m) => &m.experiment,
            ModelManifest::Many(m) => &m.experiment,
            ModelManifest::Spn(m) => &m.experiment,
        }
    }

    pub fn figures(&self) -> &[FigureToml] {
        match self {
            ModelManifest::Slotted(m) => &m.figures,
            ModelManifest::Many(m) => &m.figures,
            ModelManifest::Spn(m) => &m.figures,
        }
    }

    pub fn claims(&self) -> &[ClaimToml] {
        match self {
            ModelManifest::Slotted(m) => &m.claims,
            ModelManifest::Many(m) => &m.claims,
            ModelManifest::Spn(m) => &m.claims,
        }
    }

    /// `run.replications` and `run.precision`, for the shared check.
    pub fn replications(&self) -> (Option<u32>, Option<&PrecisionSpec>) {
        match self {
            ModelManifest::Slotted(m) => (m.run.replications, m.run.precision.as_ref()),
            ModelManifest::Many(m) => (m.run.replications, m.run.precision.as_ref()),
            ModelManifest::Spn(m) => (m.run.replications, m.run.precision.as_ref()),
        }
    }

    /// The model's own static checks (everything but the shared sections).
    pub(crate) fn validate(&self, l: &Loaded) -> R {
        match self {
            ModelManifest::Slotted(m) => slotted::validate::validate(l, m),
            ModelManifest::Many(m) => many::validate(l, m),
            ModelManifest::Spn(m) => spn::validate(l, m),
        }
    }

    /// The sweep axes the manifest sets, in expansion order.
    pub fn axes(&self) -> Vec<&'static str> {
        match self {
            ModelManifest::Slotted(m) => m.sweep.present(),
            ModelManifest::Many(m) => m.sweep.present(),
            ModelManifest::Spn(m) => m.axes(),
        }
    }

    /// The number of points the manifest expands into, at most (sweep
    /// combinations × policies; saturating).
    pub fn points(&self) -> u64 {
        self.axes().iter().fold(self.labels().len() as u64, |n, a| {
            n.saturating_mul(self.axis_values(a).len() as u64)
        })
    }

    /// The values of sweep axis `axis` as plans and `where` tables write them
    /// ("0.9", "100", "true", "job"); empty for an axis the manifest does not
    /// sweep.
    pub fn axis_values(&self, axis: &str) -> Vec<String> {
        match self {
            ModelManifest::Slotted(m) => m.axis_values(axis),
            ModelManifest::Many(m) => m.axis_values(axis),
            ModelManifest::Spn(m) => m.axis_values(axis),
        }
    }

    /// The labels of the manifest's policies, in order.
    pub fn labels(&self) -> Vec<String> {
        match self {
            ModelManifest::Slotted(m) => (0..m.policies.len()).map(|i| m.label(i)).collect(),
            ModelManifest::Many(m) => (0..m.policies.len()).map(|i| m.label(i)).collect(),
            ModelManifest::Spn(m) => (0..m.policies.len()).map(|i| m.label(i)).collect(),
        }
    }

    /// Expands the manifest into its points.
    pub(crate) fn expand(&self, l: &Loaded, profile: Profile) -> Result<Plan, ManifestError> {
        match self {
            ModelManifest::Slotted(m) => slotted::expand::expand(l, m, profile),
            ModelManifest::Many(m) => many::expand(l, m, profile),
            ModelManifest::Spn(m) => spn::expand(l, m, profile),
        }
    }
}

/// What lb-core runs for a point. Untagged (see the module doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PointConfig {
    Slotted(SlottedConfig),
    Many(ManyConfig),
    Spn(SpnConfig),
}

impl PointConfig {
    /// The model of this configuration.
    pub fn model(&self) -> Model {
        match self {
            PointConfig::Slotted(_) => Model::Slotted,
            PointConfig::Many(_) => Model::Many,
            PointConfig::Spn(_) => Model::Spn,
        }
    }

    /// The system part of `point` (everything but the policy), whose hash
    /// seeds the arrival and service streams: common random numbers across
    /// the policies at a point.
    pub fn system_part<'a>(&'a self, point: &'a Point) -> SystemPart<'a> {
        match self {
            PointConfig::Slotted(c) => SystemPart::Slotted(slotted::system_part(point, c)),
            PointConfig::Many(c) => SystemPart::Many(many::system_part(point, c)),
            PointConfig::Spn(c) => SystemPart::Spn(spn::system_part(point, c)),
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
    pub fn run(&self, seeds: &lb_core::Seeds, r: u64) -> Summary {
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
            _ => None,
        }
    }

    /// The named exact reference `name` at `point` (replication `r`, for
    /// references that run on the replication's own random numbers), as a
    /// value of `metric` (the metric it is compared with: one reference may
    /// give S_i, jobs per server and response time alike), or why it does
    /// not apply. The slotted and network models' references are one number
    /// whatever the metric.
    pub fn reference(
        &self,
        name: &str,
        metric: &str,
        point: &Point,
        r: u64,
    ) -> Result<f64, String> {
        match self {
            PointConfig::Slotted(c) => slotted::metrics::reference(name, c, point, r),
            PointConfig::Many(c) => many::metrics::reference(name, metric, c),
            PointConfig::Spn(c) => spn::metrics::reference(name, c),
        }
    }

    /// Whether the named reference `name` is defined at `point` as a value
    /// of `metric` (Err: why not), without running anything: a reference
    /// that runs on a replication's random numbers (`pooled`) is checked,
    /// not computed.
    pub fn reference_applies(&self, name: &str, metric: &str, point: &Point) -> Result<(), String> {
        match self {
            PointConfig::Slotted(_) if name == "pooled" => Ok(()),
            _ => self.reference(name, metric, point, 0).map(|_| ()),
        }
    }

    /// The exact mean of `metric` at `point` given by the named reference
    /// `name` (a control variate's E[Y]), or why there is none.
    pub fn exact_mean(&self, metric: &str, name: &str, point: &Point) -> Result<f64, String> {
        match self {
            PointConfig::Slotted(c) => slotted::metrics::exact_mean(metric, name, c, point),
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
            other => other,
        }
    }

    /// What one replication is expected to cost ([`crate::limits`]).
    pub fn cost(&self) -> crate::limits::Cost {
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

/// A fixed parameter's value (see [`PointConfig::parameters`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    Number(f64),
    Flag(bool),
    Text(String),
}

impl Param {
    /// The name of a law or policy: its serde tag (`law`, `name`), else
    /// its JSON text.
    pub fn tag<T: Serialize>(t: &T) -> Param {
        let v = serde_json::to_value(t).unwrap_or_default();
        let tag = ["law", "name", "kind"]
            .iter()
            .find_map(|k| v.get(*k).and_then(|x| x.as_str()).map(str::to_string));
        Param::Text(tag.unwrap_or_else(|| match &v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        }))
    }

    /// One name for a list of laws: theirs if they agree, else "mixed".
    pub fn common<T: Serialize>(ts: &[T]) -> Param {
        let tags: Vec<Param> = ts.iter().map(Param::tag).collect();
        match tags.first() {
            Some(t) if tags.iter().all(|x| x == t) => t.clone(),
            Some(_) => Param::Text("mixed".into()),
            None => Param::Text(String::new()),
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
    pub model: Model,
    pub model_version: u32,
    pub profile: Profile,
    pub seed: u64,
}

impl SystemHead {
    /// The head of `point`'s system part.
    pub fn of(point: &Point) -> SystemHead {
        SystemHead {
            part: "system",
            model: point.model,
            model_version: point.model_version,
            profile: point.profile,
            seed: point.seed,
        }
    }
}

/// The system part of a point (see [`PointConfig::system_part`]). Untagged,
/// like the configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SystemPart<'a> {
    Slotted(slotted::SystemPart<'a>),
    Many(many::SystemPart<'a>),
    Spn(spn::SystemPart<'a>),
}

/// What one replication measured. Untagged (see the module doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Summary {
    Slotted(RunSummary),
    Many(ManySummary),
    Spn(SpnSummary),
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

    /// The stability verdict of the run (SPEC §1).
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
    /// more jobs completed than arrived); `lb cache verify` reports it.
    pub fn consistency(&self) -> Result<(), String> {
        match self {
            Summary::Slotted(s) => slotted::consistency::check(s),
            Summary::Many(s) => many::consistency::check(s),
            Summary::Spn(s) => spn::consistency::check(s),
        }
    }

    /// The (events, trials) behind a [`MetricKind::Proportion`] metric in
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
