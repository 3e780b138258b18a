//! The sections every manifest shares, whatever its model: `[experiment]`
//! (what the experiment is, where it comes from, which model reads the rest)
//! and the precision rule of `run.precision`.

use lb_model::model::Model;
use lb_model::precision::{MetricName, PrecisionRule, Procedure};
use serde::{Deserialize, Serialize};

/// `[experiment]`: what the experiment is and where it comes from.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    /// Unique name, used for output file names: `[a-z0-9-_]+`.
    pub name: String,
    pub title: String,
    /// The paper, figure and page the experiment reproduces.
    pub source: Option<String>,
    /// The paper its claims state or stand in for, by its authors ("Zhou,
    /// Shroff and Wierman"): the report counts verdicts per paper. A claim
    /// may name another with its own `paper`.
    pub paper: Option<String>,
    /// The model: one of [`Model::ALL`] (`"slotted"`, docs/MODEL.md §1; `"many"`,
    /// docs/MODEL.md §2). It decides which schema the rest of the file is read with.
    pub model: Model,
    /// The figures and tables this experiment feeds.
    #[serde(default)]
    pub feeds: Vec<String>,
    pub notes: Option<String>,
}

/// Target precision: the 95% Student-t interval of `metric` should have a
/// relative half-width of at most `rel_half_width`, on at most `max`
/// replications. By default `min` pilot replications on seeds of their own
/// choose how many the point runs, so its intervals keep their coverage;
/// `procedure = "stein"` reads the point's own first `min` instead (Stein's
/// two-stage intervals, no pilot); `procedure = "sequential"` adds `step` at
/// a time until the target is met.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PrecisionSpec {
    #[serde(default = "default_metric")]
    pub metric: MetricName,
    pub rel_half_width: f64,
    pub min: u32,
    pub max: u32,
    /// Replications added per round (default: `min`); with a pilot, the
    /// grid n = min + k·step that its choice is rounded up to.
    pub step: Option<u32>,
    /// `"pilot"` (the default): `min` replications on seeds of their own
    /// choose n, and the point's intervals read replications 0..n only.
    /// `"stein"`: the point's own replications 0..min are the first stage
    /// and choose n; every interval on 0..n is Stein's, X̄ ± t_{min−1}·s₀/√n
    /// with s₀ from the first stage (covers at its level; no pilot to pay).
    /// `"sequential"`: rounds of `step` until the target is met, whose
    /// interval under-covers (90.5–92.8% for a nominal 95%, measured).
    #[serde(default)]
    pub procedure: Procedure,
    /// A control variate the pilot or Stein's first stage decides with
    /// (slotted model, `min` ≥ 4, not sequential):
    /// `{ policy = "Pooled", mean = "pooled_exact" }` pairs each point with
    /// the control policy's point on its own system (common random numbers)
    /// and chooses n from the variance of the controlled estimate,
    /// Var(Y − β̂·C) with β̂ fitted, instead of Var(Y); under Stein's
    /// procedure the interval is Stein's form of the control variate (the
    /// first stage's residual variance). The control's own points keep the
    /// plain rule; where no figure draws them, it stops at its first stage,
    /// and they run the replications the points they control pair with.
    pub control: Option<PrecisionControl>,
    /// Stein's procedure: more metrics held to the same target, those of the
    /// experiment's other figures; n is the most any of them asks for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<MetricName>,
}

/// A precision rule's control variate: the policy label of the control
/// and the named exact mean of the rule's metric at its points.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PrecisionControl {
    /// The control's policy label (a `[[policy]]` of the manifest).
    pub policy: String,
    /// Its exact mean on the rule's metric: `pooled_exact`, `wr_sum_q`, …
    pub mean: String,
}

fn default_metric() -> MetricName {
    MetricName("mean_response".into())
}

impl PrecisionSpec {
    /// The rule, every default written out: a 95% interval, rounds of
    /// `step` (default `min`) replications.
    pub fn rule(&self) -> PrecisionRule {
        PrecisionRule {
            metric: self.metric.clone(),
            rel_half_width: self.rel_half_width,
            level: 0.95,
            min: self.min,
            max: self.max,
            step: self.step.unwrap_or(self.min),
            procedure: self.procedure,
            // Resolved per point by the model's expansion.
            control: None,
            also: self.also.clone(),
            // Every Stein rule: a second stage only where the first settled.
            settled_first: self.procedure == Procedure::Stein,
            control_only: false,
        }
    }
}

/// The longest name of an experiment, a figure or a robustness map: they
/// name files and directories (`robustness-<name>.keys.csv`, under
/// `paper-figures/<experiment>/`), which must fit every filesystem's limit
/// of 255 bytes a name with room to spare.
pub(crate) const MAX_NAME: usize = 64;

/// A name that names files: lower-case letters, digits, '-' and '_', at
/// most [`MAX_NAME`] characters; the error says which rule it breaks.
pub(crate) fn file_name(name: &str) -> Result<(), String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    {
        return Err(format!(
            "\"{name}\" is not allowed: use lower-case letters, digits, '-' and '_' only (it \
             names output files)"
        ));
    }
    if name.len() > MAX_NAME {
        return Err(format!(
            "{} characters is too long: a name has at most {MAX_NAME} (it names output files \
             and directories)",
            name.len()
        ));
    }
    Ok(())
}
