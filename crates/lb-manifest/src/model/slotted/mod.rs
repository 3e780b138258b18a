//! The slotted LED model (docs/MODEL.md §1; Zhou, Shroff and Wierman):
//! `model = "slotted"`. Its manifest sections (`[system]`, `[sweep]`,
//! `[[policy]]`, `[run]`, `[quick]`, `[calibration]`) are defined here,
//! checked in [`validate`], expanded into points in [`expand`] (with
//! message-budget calibrations, lb-model's `slotted::calibrate`), and
//! measured by lb-model's `slotted::metrics`.

// A new policy variant is matched everywhere by name: no wildcard arms.
#![warn(clippy::wildcard_enum_match_arm)]

pub mod checks;
pub mod expansion;
pub mod robustness;

use crate::diag::{ManifestError, SpanIndex, did_you_mean};
use lb_core::slotted::{Granularity, PushWhen, TieBreak};
pub use robustness::RobustnessToml;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// What the slotted model's checks and expansion read: its own manifest and
/// the spans of the text it was parsed from (for located errors).
#[derive(Clone, Copy)]
pub struct SpannedManifest<'a> {
    /// The manifest.
    pub m: &'a Manifest,
    /// Where its keys stand in the file.
    pub spans: &'a SpanIndex,
}

impl SpannedManifest<'_> {
    /// A located error at key path `path`.
    pub fn error(&self, path: &str, message: impl Into<String>) -> ManifestError {
        self.spans.error(path, message)
    }
    /// The manifest's file.
    pub fn file(&self) -> &Path {
        self.spans.file()
    }
}

model_manifest! {
    /// One slotted experiment (docs/MODEL.md §4).
    sweep: SweepSpec, policy: PolicySpec, run: RunSpec, quick: QuickSpec;
    /// `[system]`: dispatchers, servers, arrival and service laws.
    system: SystemSpec,
    /// `[calibration]`: how message budgets are calibrated.
    #[serde(default)]
    calibration: CalibrationSpec,
    /// Claim robustness maps: settings the paper leaves unstated, varied
    /// under some of the claims ([`robustness`]).
    #[serde(default, rename = "robustness")]
    robustness: Vec<RobustnessToml>,
}

/// A law family for arrivals or service; the mean is set by the load (arrivals)
/// or by each server's rate (service).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "family")]
pub enum LawFamily {
    /// Poisson.
    Poisson,
    /// Bernoulli (at most one a slot).
    Bernoulli,
    /// Geometric.
    Geometric,
    /// Deterministic.
    Deterministic,
    /// Binomial with n trials.
    Binomial {
        /// The trials.
        n: u64,
    },
}

const LAW_FAMILIES: &str = "\"poisson\", \"bernoulli\", \"geometric\", \"deterministic\" or \
                            { family = \"binomial\", n = K }";

impl LawFamily {
    /// The law of this family with mean `mean` (docs/MODEL.md §1 "Laws").
    pub fn with_mean(&self, mean: f64) -> Result<lb_core::slotted::Law, String> {
        use lb_core::slotted::Law;
        if !(mean.is_finite() && mean >= 0.0) {
            return Err(format!("a mean must be a finite number ≥ 0, got {mean}"));
        }
        let law = match *self {
            LawFamily::Poisson => Law::Poisson { mean },
            LawFamily::Geometric => Law::Geometric { mean },
            LawFamily::Bernoulli => {
                if mean > 1.0 {
                    return Err(format!(
                        "a bernoulli law needs a mean in [0, 1], got {mean}"
                    ));
                }
                Law::Bernoulli { p: mean }
            }
            LawFamily::Binomial { n } => {
                if mean > n as f64 {
                    return Err(format!(
                        "a binomial law with n = {n} needs a mean in [0, {n}], got {mean}"
                    ));
                }
                Law::Binomial {
                    n,
                    p: mean / n as f64,
                }
            }
            LawFamily::Deterministic => {
                if mean.fract() != 0.0 {
                    return Err(format!(
                        "a deterministic law needs a whole mean, got {mean}"
                    ));
                }
                Law::Deterministic { k: mean as u64 }
            }
        };
        law.validate()?;
        Ok(law)
    }

    /// Whether means above 1 are impossible.
    pub(crate) fn max_mean(&self) -> Option<f64> {
        match self {
            LawFamily::Bernoulli => Some(1.0),
            LawFamily::Binomial { n } => Some(*n as f64),
            LawFamily::Poisson | LawFamily::Geometric | LawFamily::Deterministic => None,
        }
    }
}

impl<'de> Deserialize<'de> for LawFamily {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LawFamily;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a law family: {LAW_FAMILIES}")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<LawFamily, E> {
                Ok(match s {
                    "poisson" => LawFamily::Poisson,
                    "bernoulli" => LawFamily::Bernoulli,
                    "geometric" => LawFamily::Geometric,
                    "deterministic" => LawFamily::Deterministic,
                    "binomial" => {
                        return Err(E::custom(
                            "a binomial law needs its n: write { family = \"binomial\", n = K }",
                        ));
                    }
                    other => {
                        let hint = did_you_mean(
                            other,
                            &[
                                "poisson",
                                "bernoulli",
                                "geometric",
                                "deterministic",
                                "binomial",
                            ],
                        )
                        .map(|s| format!(" (did you mean \"{s}\"?)"))
                        .unwrap_or_default();
                        return Err(E::custom(format!(
                            "unknown law family \"{other}\"{hint}; allowed: {LAW_FAMILIES}"
                        )));
                    }
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<LawFamily, A::Error> {
                #[derive(Deserialize, schemars::JsonSchema)]
                #[serde(deny_unknown_fields)]
                struct T {
                    family: String,
                    n: Option<u64>,
                }
                let t = T::deserialize(de::value::MapAccessDeserializer::new(map))?;
                match (t.family.as_str(), t.n) {
                    ("binomial", Some(n)) if n >= 1 => Ok(LawFamily::Binomial { n }),
                    ("binomial", _) => Err(de::Error::custom("binomial needs n ≥ 1")),
                    (f, None) => self.visit_str(f),
                    (f, Some(_)) => Err(de::Error::custom(format!(
                        "`n` belongs to the binomial family only, not \"{f}\""
                    ))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// How the total arrival rate is split over dispatchers (docs/MODEL.md §1, step 1).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    /// The same share to every dispatcher.
    Equal,
    /// Shares in proportion to these weights.
    Weights(Vec<f64>),
}

impl<'de> Deserialize<'de> for Split {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Split;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"equal\" or { weights = [w_1, …, w_M] }")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Split, E> {
                if s == "equal" {
                    Ok(Split::Equal)
                } else {
                    Err(E::custom(format!(
                        "unknown split \"{s}\"; allowed: \"equal\" or {{ weights = [w_1, …, w_M] }}"
                    )))
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Split, A::Error> {
                #[derive(Deserialize, schemars::JsonSchema)]
                #[serde(deny_unknown_fields)]
                struct T {
                    weights: Vec<f64>,
                }
                let t = T::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Split::Weights(t.weights))
            }
        }
        d.deserialize_any(V)
    }
}

/// The servers: exactly one of the forms below (docs/MODEL.md §1 "Laws").
#[derive(Debug, Clone, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServersSpec {
    /// `classes = [{ count = 50, rate = 0.2 }, …]`
    pub classes: Option<Vec<ClassSpec>>,
    /// `rates = [0.2, 0.5, …]`, one per server.
    pub rates: Option<Vec<f64>>,
    /// `count = N` with `rate` (homogeneous) or `uniform` (drawn once).
    pub count: Option<u64>,
    /// One rate for every server.
    pub rate: Option<f64>,
    /// `uniform = [a, b]`: rates drawn i.i.d. uniform on [a, b] from the master
    /// seed; the drawn rates are written into each point.
    pub uniform: Option<[f64; 2]>,
}

#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
/// A class of identical servers.
pub struct ClassSpec {
    /// Its servers.
    pub count: u64,
    /// Their service rate.
    pub rate: f64,
}

/// `[system]` (docs/MODEL.md §1).
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SystemSpec {
    /// M (or the `dispatchers` sweep axis).
    pub dispatchers: Option<u64>,
    /// The servers.
    pub servers: ServersSpec,
    /// The family of S_n(t); each server's mean is its rate.
    pub service: LawFamily,
    /// The family of A_m(t); the total mean is set by the load.
    #[serde(default = "default_arrivals")]
    pub arrivals: LawFamily,
    #[serde(default = "default_split")]
    /// How arrivals split over dispatchers.
    pub split: Split,
    /// ρ = λ_Σ/μ_Σ. Exactly one of load, epsilon, epsilon_frac (here or swept).
    pub load: Option<f64>,
    /// ε = μ_Σ − λ_Σ, absolute.
    pub epsilon: Option<f64>,
    /// ε as a fraction of μ_Σ: λ_Σ = (1 − epsilon_frac)·μ_Σ.
    pub epsilon_frac: Option<f64>,
    /// `batch` (default) or `job`.
    pub granularity: Option<Granularity>,
    /// Whether a dispatcher adds the jobs it sends to its own estimates.
    pub count_own: Option<bool>,
    /// Allows load ≥ 1 (ε ≤ 0): the run is then expected to be unstable.
    #[serde(default)]
    pub allow_unstable: bool,
}

fn default_arrivals() -> LawFamily {
    LawFamily::Poisson
}
fn default_split() -> Split {
    Split::Equal
}

/// `[sweep]`: each axis a non-empty list; the points are the cartesian product
/// (in this field order) times the policies.
#[derive(Debug, Clone, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// The load ρ = λ_Σ/μ_Σ.
    pub load: Option<Vec<f64>>,
    /// ε = μ_Σ − λ_Σ.
    pub epsilon: Option<Vec<f64>>,
    /// ε as a fraction of μ_Σ.
    pub epsilon_frac: Option<Vec<f64>>,
    /// M, the number of dispatchers.
    pub dispatchers: Option<Vec<u64>>,
    /// N, the number of servers.
    pub servers_count: Option<Vec<u64>>,
    /// The granularity of dispatch.
    pub granularity: Option<Vec<Granularity>>,
    /// Whether a dispatcher counts its own jobs.
    pub count_own: Option<Vec<bool>>,
    /// LED policies' p̂.
    pub p_hat: Option<Vec<f64>>,
    /// The sample size d.
    pub d: Option<Vec<u64>>,
}

/// The sweep axes, in expansion order.
pub(crate) const AXES: [&str; 9] = [
    "load",
    "epsilon",
    "epsilon_frac",
    "dispatchers",
    "servers_count",
    "granularity",
    "count_own",
    "p_hat",
    "d",
];

/// A message budget for an LED policy (docs/MODEL.md §1 "Policies"): p̂ is calibrated
/// by bisection so that the policy's messages per arrival meet the target.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BudgetSpec {
    /// The label of another policy of this manifest, measured at the same point.
    pub same_as: Option<String>,
    /// The target messages per arrival.
    pub messages_per_arrival: Option<f64>,
}

/// `[[policy]]` (docs/MODEL.md §1 "Policies").
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicySpec {
    /// Display name and reference for `budget.same_as`; default: the policy's
    /// name from `spec`. Unique within the manifest.
    pub label: Option<String>,
    /// The policy: see [`POLICY_NAMES`].
    pub spec: String,
    /// Pod and L-Pod: the dispatch sample size (default 2); other Push
    /// policies: the Push sample size (default 1).
    pub d: Option<u64>,
    /// Push update's sample size (default 1); for L-Pod-Push, where `d` is the
    /// dispatch's.
    pub push_d: Option<u64>,
    /// LED policies: the update probability p̂, a number or one that follows
    /// a sweep axis ([`PHat`]).
    pub p_hat: Option<PHat>,
    /// Push updates: `always` or with probability p̂ (default).
    pub push_when: Option<PushWhen>,
    /// How ties break: `random`, `lowest` or `shared`.
    pub tie_break: Option<TieBreak>,
    /// A message budget p̂ is calibrated to.
    pub budget: Option<BudgetSpec>,
    /// Overrides M for this policy (e.g. "JSQ with one dispatcher" in the
    /// heavy-traffic experiment). Its system then differs, and so do its
    /// arrival streams: it is not paired with the other policies.
    pub dispatchers: Option<u64>,
    /// Overrides `system.granularity` for this policy: how it places a
    /// dispatcher's jobs of a slot ("batch": all on one server; "job": one
    /// decision per job). Arrivals and service are those of the other
    /// policies, so it stays paired with them.
    pub granularity: Option<Granularity>,
}

/// An LED policy's update probability p̂: a number in [0, 1], or one that
/// follows a numeric sweep axis, `{ scale = c, of = "epsilon_frac", power =
/// 1, max = 1 }`: c·x^power at each point's x, clamped to [min, max] (a p̂
/// that shrinks with ε, for the nulls of `credits = "refresh"`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PHat {
    /// A probability.
    Fixed(f64),
    /// A probability that follows a sweep axis.
    Scaled(crate::model::length::Scaled),
}

impl PHat {
    /// p̂ where the axis it follows has value `x` (ignored when fixed).
    pub fn at(&self, x: Option<f64>) -> f64 {
        match self {
            PHat::Fixed(p) => *p,
            PHat::Scaled(s) => s.value(x.expect("validated: a numeric axis")),
        }
    }

    /// The axis it follows, if any.
    pub fn axis(&self) -> Option<&str> {
        match self {
            PHat::Fixed(_) => None,
            PHat::Scaled(s) => Some(&s.of),
        }
    }
}

/// A number, or a table read strictly as a scaled form (its own errors name
/// the key).
impl<'de> Deserialize<'de> for PHat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PHat, D::Error> {
        Ok(
            match crate::model::length::number_or_scaled(
                d,
                "a probability, or one that follows a sweep axis: \
                 { scale = c, of = \"epsilon_frac\", power = 1, max = 1 }",
            )? {
                Ok(p) => PHat::Fixed(p),
                Err(s) => PHat::Scaled(s),
            },
        )
    }
}

impl schemars::JsonSchema for PHat {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PHat".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let scaled = g.subschema_for::<crate::model::length::Scaled>();
        schemars::json_schema!({
            "description": "A probability, or one that follows a sweep axis: \
                { scale = c, of = \"epsilon_frac\", power = 1, max = 1 }",
            "anyOf": [{ "type": "number", "minimum": 0, "maximum": 1 }, scaled]
        })
    }
}

/// The policy names `spec` accepts (case-insensitive).
pub(crate) const POLICY_NAMES: [&str; 17] = [
    "JSQ",
    "Power-of-d",
    "Power-of-2 (any k: Power-of-k)",
    "Pod",
    "JIQ",
    "WR",
    "Random",
    "L-JSQ-Push",
    "L-JSQ-Pull",
    "L-JBA-Push",
    "L-JBA-Pull",
    "L-Pod-Push",
    "L-Pod-Pull",
    "Weighted-Random",
    "LSQ",
    "JIQ-Spread",
    "Pooled",
];

/// A policy family parsed from `spec`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyKind {
    /// Join the shortest queue.
    Jsq,
    /// Power-of-d; `Some(k)` when the name fixed d ("Power-of-2").
    Pod(Option<u64>),
    /// Join the idle queue.
    Jiq,
    /// Weighted random.
    WeightedRandom,
    /// Uniform random.
    Random,
    /// An LED policy: its dispatch and its update.
    Led(DispatchKind, UpdateKind),
    /// JIQ with batch spreading (the LSQ line's JIQ).
    JiqSpread,
    /// The resource-pooled single queue of Lemma 1 (a reference system).
    Pooled,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
/// An LED policy's dispatching rule.
pub enum DispatchKind {
    /// L-JSQ.
    LJsq,
    /// L-JBA.
    LJba,
    /// L-Pod.
    LPod,
    /// LSQ: L-JSQ with destination sync (with Push only: "LSQ" parses as
    /// `Led(Lsq, Push)`, so that every Push key applies).
    Lsq,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
/// An LED policy's update rule.
pub enum UpdateKind {
    /// Push.
    Push,
    /// Pull.
    Pull,
}

impl PolicyKind {
    /// Parses a policy name; `None` if unknown.
    pub fn parse(name: &str) -> Option<PolicyKind> {
        let n = name.trim().to_ascii_lowercase();
        Some(match n.as_str() {
            "jsq" => PolicyKind::Jsq,
            "pod" | "power-of-d" => PolicyKind::Pod(None),
            "jiq" => PolicyKind::Jiq,
            "wr" | "weighted-random" => PolicyKind::WeightedRandom,
            "random" => PolicyKind::Random,
            "lsq" => PolicyKind::Led(DispatchKind::Lsq, UpdateKind::Push),
            "jiq-spread" => PolicyKind::JiqSpread,
            "pooled" => PolicyKind::Pooled,
            _ => {
                if let Some(k) = n.strip_prefix("power-of-") {
                    return k.parse().ok().map(|k| PolicyKind::Pod(Some(k)));
                }
                let rest = n.strip_prefix("l-")?;
                let (d, u) = rest.split_once('-')?;
                let d = match d {
                    "jsq" => DispatchKind::LJsq,
                    "jba" => DispatchKind::LJba,
                    "pod" => DispatchKind::LPod,
                    _ => return None,
                };
                let u = match u {
                    "push" => UpdateKind::Push,
                    "pull" => UpdateKind::Pull,
                    _ => return None,
                };
                PolicyKind::Led(d, u)
            }
        })
    }

    pub(crate) fn is_led(&self) -> bool {
        matches!(self, PolicyKind::Led(..))
    }

    /// Whether the policy has a `d` (in the sense of [`PolicySpec::d`]).
    pub(crate) fn has_d(&self) -> bool {
        matches!(
            self,
            PolicyKind::Pod(_)
                | PolicyKind::Led(DispatchKind::LPod, _)
                | PolicyKind::Led(_, UpdateKind::Push)
        )
    }

    /// The engine's [`Traits`](lb_core::slotted::Traits) of this family,
    /// read on a representative configuration: a policy declares them once,
    /// in lb-core's `PolicyConfig::traits`.
    pub(crate) fn traits(&self) -> lb_core::slotted::Traits {
        use lb_core::slotted::{LedDispatch, LedUpdate, PolicyConfig, PushWhen, TieBreak};
        let tie_break = TieBreak::Random;
        let update = |u: &UpdateKind| match u {
            UpdateKind::Push => LedUpdate::Push {
                d: 1,
                p_hat: 1.0,
                when: PushWhen::Arrivals,
                revision: 0,
            },
            UpdateKind::Pull => LedUpdate::Pull { p_hat: 1.0 },
        };
        let config = match self {
            PolicyKind::Jsq => PolicyConfig::Jsq { tie_break },
            PolicyKind::Pod(_) => PolicyConfig::Pod { d: 2, tie_break },
            PolicyKind::Jiq => PolicyConfig::Jiq,
            PolicyKind::WeightedRandom => PolicyConfig::WeightedRandom,
            PolicyKind::Random => PolicyConfig::Random,
            PolicyKind::JiqSpread => PolicyConfig::JiqSpread { revision: 0 },
            PolicyKind::Pooled => PolicyConfig::Pooled,
            PolicyKind::Led(DispatchKind::Lsq, _) => PolicyConfig::Lsq {
                d: 1,
                p_hat: 1.0,
                when: PushWhen::Arrivals,
                tie_break,
                revision: 0,
            },
            PolicyKind::Led(d, u) => PolicyConfig::Led {
                dispatch: match d {
                    DispatchKind::LJsq => LedDispatch::LJsq,
                    DispatchKind::LJba => LedDispatch::LJba,
                    DispatchKind::LPod | DispatchKind::Lsq => LedDispatch::LPod { d: 2 },
                },
                update: update(u),
                tie_break,
            },
        };
        config.traits()
    }

    /// Whether the policy reads `tie_break` ([`PolicyKind::traits`]): JSQ,
    /// Power-of-d and the LED policies that take a least estimate (L-JSQ,
    /// L-Pod, LSQ). L-JBA does not (Zhou, Shroff and Wierman, Example 2: a
    /// server at or below the mean estimate, drawn with probability ∝ μ_n),
    /// so a `tie_break` on it would only give the same process another key
    /// and other seeds.
    pub(crate) fn has_tie_break(&self) -> bool {
        self.traits().tie_break.is_some()
    }
}

run_sections! {
    /// `[run]`: run length, warm-up, replications and the master seed (docs/MODEL.md §4).
    run {
        /// Slots per replication, warm-up included: a number, or a length that
        /// follows a sweep axis ([`crate::model::length::Length`]).
        slots: crate::model::length::Length,
        /// Warm-up slots discarded: exactly these (`warmup_rule = "fixed"`), or at
        /// least these, then as many as MSER-5 asks for (`"mser5"`).
        warmup: crate::model::length::Length,
        /// `"fixed"` (default) or `"mser5"` (docs/MODEL.md §4).
        #[serde(default)]
        warmup_rule: lb_core::slotted::WarmupRule,
        /// `"slot"` (default) or `"blocks"`: weighted random advanced in blocks of
        /// slots, exact at block boundaries, its time averages by conditional
        /// expectation; for runs toward heavy traffic (docs/MODEL.md §4).
        #[serde(default)]
        advance: lb_core::slotted::Advance,
        /// Read each dispatcher's dispatching preference at the estimate
        /// states the run visits (Zhou, Shroff and Wierman, Definitions 4–6;
        /// docs/AUDITING.md, "Dispatching preference"): the metrics
        /// `tilt_delta`, `tilt_delta_untied` and `all_tied_share`. `batch`
        /// granularity only.
        #[serde(default)]
        preference: bool,
        /// Read each dispatcher's estimation error |Q_n − Q̃_mn| at the states
        /// the run visits (Zhou, Shroff and Wierman, Lemma 3): the metrics
        /// `estimation_error` (averaged over dispatchers and servers) and
        /// `estimation_error_max` (the largest pair's). LED policies and
        /// `batch` granularity only.
        #[serde(default)]
        estimation: bool,
    }
    /// `[quick]`: what `lb run --quick` uses instead of `[run]`.
    quick {
        /// Slots per replication.
        slots: Option<u64>,
        /// Warm-up slots.
        warmup: Option<u64>,
        /// Pilot slots of message-budget calibrations.
        pilot_slots: Option<u64>,
    }
}

/// `[calibration]`: pilot runs of the message-budget bisection.
#[derive(Debug, Clone, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CalibrationSpec {
    /// Slots per replication.
    pub slots: Option<u64>,
    /// Warm-up slots.
    pub warmup: Option<u64>,
    /// Replications.
    pub replications: Option<u32>,
    /// Bisection iterations.
    pub iterations: Option<u32>,
    /// Relative tolerance of the budget met.
    pub rel_tol: Option<f64>,
}

impl Manifest {
    /// The values of a sweep axis, as the plan shows them.
    pub(crate) fn axis_values(&self, axis: &str) -> Vec<String> {
        let sw = &self.sweep;
        let f = |v: &Option<Vec<f64>>| -> Vec<String> {
            v.iter()
                .flatten()
                .map(|x| lb_model::canonical::number_to_string(*x))
                .collect()
        };
        let u = |v: &Option<Vec<u64>>| -> Vec<String> {
            v.iter().flatten().map(|x| x.to_string()).collect()
        };
        match axis {
            "load" => f(&sw.load),
            "epsilon" => f(&sw.epsilon),
            "epsilon_frac" => f(&sw.epsilon_frac),
            "p_hat" => f(&sw.p_hat),
            "dispatchers" => u(&sw.dispatchers),
            "servers_count" => u(&sw.servers_count),
            "d" => u(&sw.d),
            "granularity" => sw
                .granularity
                .iter()
                .flatten()
                .map(|g| match g {
                    Granularity::Batch => "batch".to_string(),
                    Granularity::Job => "job".to_string(),
                })
                .collect(),
            "count_own" => sw
                .count_own
                .iter()
                .flatten()
                .map(|b| b.to_string())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The label of policy `i`: its `label`, else its `spec`.
    pub fn label(&self, i: usize) -> String {
        let p = &self.policies[i];
        p.label
            .clone()
            .unwrap_or_else(|| crate::model::canonical_label(&p.spec, &POLICY_NAMES))
    }
}

impl crate::model::sweep::Sweep for Manifest {
    fn axes(&self) -> Vec<&'static str> {
        self.sweep.present()
    }
    fn axis_values(&self, axis: &str) -> Vec<String> {
        Manifest::axis_values(self, axis)
    }
    fn policies(&self) -> usize {
        self.policies.len()
    }
}

/// A law family: a name, or `{ family = "binomial", n = K }`.
impl schemars::JsonSchema for LawFamily {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LawFamily".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A law family: \"poisson\", \"bernoulli\", \"geometric\", \
                \"deterministic\" or { family = \"binomial\", n = K }",
            "anyOf": [
                { "enum": ["poisson", "bernoulli", "geometric", "deterministic"] },
                {
                    "type": "object",
                    "properties": {
                        "family": { "const": "binomial" },
                        "n": { "type": "integer", "minimum": 1 }
                    },
                    "required": ["family", "n"],
                    "additionalProperties": false
                }
            ]
        })
    }
}

/// `"equal"` or `{ weights = [w_1, …, w_M] }`.
impl schemars::JsonSchema for Split {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Split".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "How the arrivals split between dispatchers: \"equal\" or \
                { weights = [w_1, …, w_M] }",
            "anyOf": [
                { "const": "equal" },
                {
                    "type": "object",
                    "properties": {
                        "weights": { "type": "array", "items": { "type": "number" } }
                    },
                    "required": ["weights"],
                    "additionalProperties": false
                }
            ]
        })
    }
}

/// The slotted model's own static checks ([`checks::validate`]), and the
/// rule that an ordering claim compares its two policies at one dispatch
/// granularity.
pub fn validate(
    spans: &SpanIndex,
    m: &Manifest,
    claims: &[crate::claim::Claim],
) -> Result<(), ManifestError> {
    checks::validate(&SpannedManifest { m, spans })?;
    one_granularity(spans, m, claims)?;
    count_own_mapped(spans, m, claims)
}

/// Where a map of the manifest varies `count_own` (whether a dispatcher
/// counts the jobs it sends: Definition 1 leaves it open, and every LED
/// policy's estimates depend on it), every claim that reads an LED policy is
/// named by such a map: a verdict one reading decides is then said to be
/// lb's reading's, whichever claim it is (docs/AUDITING.md, "One count").
fn count_own_mapped(
    spans: &SpanIndex,
    m: &Manifest,
    claims: &[crate::claim::Claim],
) -> Result<(), ManifestError> {
    let over: Vec<&robustness::RobustnessToml> = m
        .robustness
        .iter()
        .filter(|r| r.count_own.is_some())
        .collect();
    let Some(first) = over.first() else {
        return Ok(());
    };
    let led = |label: &str| {
        (0..m.policies.len())
            .find(|&i| m.label(i) == label)
            .is_some_and(|i| PolicyKind::parse(&m.policies[i].spec).is_some_and(|k| k.is_led()))
    };
    for (i, c) in claims.iter().enumerate() {
        let reads = c.check.labels().iter().any(|p| led(p));
        if reads && !over.iter().any(|r| r.claims.contains(&c.id)) {
            return Err(spans.error(
                &format!("claim[{i}].id"),
                format!(
                    "claim \"{}\" reads an LED policy, whose estimates depend on count_own, \
                     and the map \"{}\" varies count_own for other claims: name \"{}\" in a \
                     [[robustness]] map over count_own, so that a verdict that one reading \
                     decides says so",
                    c.id, first.name, c.id
                ),
            ));
        }
    }
    Ok(())
}

/// An ordering claim (not a check it carries, which may show the other
/// side) compares two policies that dispatch at one granularity: a policy
/// that splits a slot's batch over servers against one that cannot compares
/// the granularities, not the policies.
fn one_granularity(
    spans: &SpanIndex,
    m: &Manifest,
    claims: &[crate::claim::Claim],
) -> Result<(), ManifestError> {
    let of = |label: &str| {
        (0..m.policies.len())
            .find(|&i| m.label(i) == label)
            .map(|i| {
                m.policies[i]
                    .granularity
                    .or(m.system.granularity)
                    .unwrap_or_default()
            })
    };
    let word = |g: lb_core::slotted::config::Granularity| match g {
        lb_core::slotted::config::Granularity::Batch => "batch",
        lb_core::slotted::config::Granularity::Job => "job",
    };
    for (i, c) in claims.iter().enumerate() {
        if let crate::claim::Check::Ordering(o) = &c.check
            && let (Some(b), Some(w)) = (of(&o.better), of(&o.worse))
            && b != w
        {
            return Err(spans.error(
                &format!("claim[{i}].worse"),
                format!(
                    "\"{}\" dispatches at granularity {} and \"{}\" at {}: an ordering \
                     compares two policies at one granularity; compare with the policy at \
                     {}, and show the other in a why check ([[claim.why_check]])",
                    o.better,
                    word(b),
                    o.worse,
                    word(w),
                    word(b)
                ),
            ));
        }
    }
    Ok(())
}

/// The checks of the robustness maps ([`robustness::validate`]).
pub(crate) fn validate_robustness(
    spans: &SpanIndex,
    m: &Manifest,
    older_revision: bool,
) -> Result<(), ManifestError> {
    robustness::validate(spans, m, older_revision)
}

/// The manifest's points ([`expansion::expand`]).
pub fn expand(
    spans: &SpanIndex,
    m: &Manifest,
    profile: lb_model::model::Profile,
) -> Result<crate::plan::Plan, ManifestError> {
    expansion::expand(&SpannedManifest { m, spans }, profile)
}

/// Every combination of every robustness map ([`robustness::variants`]).
pub fn variants(
    spans: &SpanIndex,
    m: &Manifest,
    claims: &[crate::claim::Claim],
    profile: lb_model::model::Profile,
) -> Result<Vec<crate::robustness::Variant>, ManifestError> {
    robustness::variants(spans, m, claims, profile)
}
