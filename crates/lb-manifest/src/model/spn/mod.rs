//! Stochastic processing networks (docs/MODEL.md §3; Dai and Lin, *Maximum Pressure
//! Policies in Stochastic Processing Networks*): `model = "spn"`.
//!
//! The network is written out in the manifest in Dai and Lin's general form —
//! buffers with Poisson arrivals, stations, and processing activities, each
//! using one station to serve one buffer at an exponential rate and routing
//! finished jobs to buffers with given probabilities — and run under
//! max-pressure, a static priority, own-buffer-first or FIFO
//! (`lb_core::spn`).
//!
//! ```toml
//! [network]
//! stations = 2
//! arrivals = [1.0, 0.0, 1.0, 0.0]   # λ_j of each buffer; its length is the number of buffers
//! load = 0.7                        # optional: the nominal load of the network as written
//! workload = [[0.1, 0.0, 0.6, 0.6]] # optional: per resource, the work a job in each buffer brings
//!
//! [[network.activity]]              # one per processing activity, numbered from 0
//! station = 0
//! buffer = 0
//! mean = 0.1                        # or rate = 10.0
//! routing = [{ buffer = 1, probability = 1.0 }]   # default: the job leaves
//!
//! [sweep]
//! load = [0.8, 0.9]                 # scales every λ_j by load / network.load
//!
//! [[policy]]
//! spec = "priority"                 # max-pressure, priority, own-buffer-first, FIFO
//! order = [[3, 0], [1, 2]]          # priority: per station, its activities, highest first
//! # own = [0, 1]                    # own-buffer-first: per station, its own buffer
//!
//! [run]
//! horizon = 1000.0                  # time simulated per replication
//! warmup = 100.0
//! path_points = 101                 # optional: points of the recorded sample path (default 64)
//! replications = 10                 # or precision = { … }
//! seed = 7
//! ```

use crate::diag::{ManifestError, SpanIndex};
use crate::model::continuous::{QuickSpec, RunSpec};
use crate::plan::{Plan, PlannedPoint, Target};
use lb_core::many::TimeRun;
use lb_core::spn::{Activity, Route, SpnConfig, SpnPolicy};
use lb_model::config::PointConfig;
use lb_model::model::Model;
use lb_model::model::Profile;
use lb_model::point::Point;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

type R = Result<(), ManifestError>;

model_manifest! {
    /// A network experiment.
    sweep: SweepSpec, policy: PolicySpec, run: RunSpec, quick: QuickSpec;
    /// `[network]`: stations, buffers, activities and arrivals.
    network: NetworkSpec,
}

/// `[network]`: the network in Dai and Lin's general form.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NetworkSpec {
    /// The number of stations.
    pub stations: u64,
    /// λ_j per buffer; the list's length is the number of buffers.
    pub arrivals: Vec<f64>,
    /// The nominal load of the network as written: for a multiclass network
    /// the largest station load (computed, and checked if given); for a
    /// parallel-server network the static planning problem's optimum, which
    /// the manifest must state for `sweep.load`.
    pub load: Option<f64>,
    /// Per resource, the expected work a job in each buffer still brings.
    #[serde(default)]
    pub workload: Vec<Vec<f64>>,
    #[serde(rename = "activity")]
    /// The activities.
    pub activities: Vec<ActivitySpec>,
}

/// `[[network.activity]]`.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActivitySpec {
    /// The station that serves it.
    pub station: u64,
    /// The buffer it serves.
    pub buffer: u64,
    /// μ_a; or give `mean` = 1/μ_a.
    pub rate: Option<f64>,
    /// Its mean service time.
    pub mean: Option<f64>,
    #[serde(default)]
    /// Where a job goes when served.
    pub routing: Vec<RouteSpec>,
}

/// One destination of a finished job.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    /// The buffer it joins.
    pub buffer: u64,
    /// With this probability.
    pub probability: f64,
}

/// `[sweep]` of the network model.
#[derive(Debug, Clone, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// Target loads: every λ_j is scaled by load / `network.load`.
    pub load: Option<Vec<f64>>,
}

/// `[[policy]]` of the network model.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicySpec {
    /// Display name; default: the policy's name from `spec`.
    pub label: Option<String>,
    /// max-pressure, priority, own-buffer-first or FIFO (case-insensitive).
    pub spec: String,
    /// priority: per station, all its activities, highest priority first.
    pub order: Option<Vec<Vec<u64>>>,
    /// own-buffer-first: per station, its own buffer.
    pub own: Option<Vec<u64>>,
}

/// The policy names of the network model.
pub(crate) const POLICY_NAMES: [&str; 4] = ["max-pressure", "priority", "own-buffer-first", "FIFO"];

/// A network policy as its `spec` names it (case aside): the one place the
/// word becomes the kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SpnKind {
    MaxPressure,
    Priority,
    OwnBufferFirst,
    Fifo,
}

impl std::str::FromStr for SpnKind {
    type Err = ();
    fn from_str(spec: &str) -> Result<SpnKind, ()> {
        // In POLICY_NAMES' order.
        let kinds = [
            SpnKind::MaxPressure,
            SpnKind::Priority,
            SpnKind::OwnBufferFirst,
            SpnKind::Fifo,
        ];
        crate::model::name_index(spec, &POLICY_NAMES)
            .map(|i| kinds[i])
            .ok_or(())
    }
}

impl Manifest {
    /// The label of policy `i`: its `label`, else its `spec`.
    pub fn label(&self, i: usize) -> String {
        let p = &self.policies[i];
        p.label
            .clone()
            .unwrap_or_else(|| crate::model::canonical_label(&p.spec, &POLICY_NAMES))
    }

    /// The sweep axes present.
    pub fn axes(&self) -> Vec<&'static str> {
        if self.sweep.load.is_some() {
            vec!["load"]
        } else {
            Vec::new()
        }
    }

    /// The values of a sweep axis, as the plan shows them.
    pub(crate) fn axis_values(&self, axis: &str) -> Vec<String> {
        match axis {
            "load" => self
                .sweep
                .load
                .iter()
                .flatten()
                .map(|x| lb_model::canonical::number_to_string(*x))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The network as written (arrival rates unscaled), with `policy`.
    fn network(&self, policy: SpnPolicy, run: TimeRun, arrivals: Vec<f64>) -> SpnConfig {
        let n = &self.network;
        SpnConfig {
            arrivals,
            stations: n.stations as usize,
            activities: n
                .activities
                .iter()
                .map(|a| Activity {
                    station: a.station as usize,
                    buffer: a.buffer as usize,
                    rate: a.rate.unwrap_or_else(|| 1.0 / a.mean.unwrap_or(1.0)),
                    routing: a
                        .routing
                        .iter()
                        .map(|r| Route {
                            buffer: r.buffer as usize,
                            probability: r.probability,
                        })
                        .collect(),
                })
                .collect(),
            workload: n.workload.clone(),
            policy,
            run,
            path_points: self
                .run
                .path_points
                .unwrap_or(lb_core::spn::DEFAULT_PATH_POINTS),
        }
    }

    /// Policy `i` resolved.
    fn policy(&self, i: usize) -> SpnPolicy {
        let p = &self.policies[i];
        let to = |v: &Vec<u64>| v.iter().map(|x| *x as usize).collect::<Vec<_>>();
        match p
            .spec
            .parse::<SpnKind>()
            .expect("validated: a policy of the model")
        {
            SpnKind::MaxPressure => SpnPolicy::MaxPressure,
            SpnKind::Priority => SpnPolicy::Priority {
                order: p.order.iter().flatten().map(to).collect(),
            },
            SpnKind::OwnBufferFirst => SpnPolicy::OwnBufferFirst {
                own: p.own.as_ref().map(to).unwrap_or_default(),
            },
            SpnKind::Fifo => SpnPolicy::Fifo,
        }
    }

    /// The nominal load of the network as written: stated, or the largest
    /// station load of a multiclass network.
    fn nominal_load(&self, probe: &SpnConfig) -> Option<f64> {
        self.network
            .load
            .or_else(|| probe.loads().map(|v| v.into_iter().fold(0.0, f64::max)))
    }
}

/// Maps an error of `SpnConfig::validate` ("activities\[2\].routing: …") to its
/// key path in the manifest.
fn located(l: &SpanIndex, e: &str, policy_at: &str) -> ManifestError {
    // lb-core's messages start with the field they are about
    // ("activities[3].station = 5 is not …", "policy.order[1] must …").
    let field: String = e
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']'))
        .collect();
    let field = field.trim_end_matches('.');
    let path = if let Some(rest) = field.strip_prefix("activities") {
        format!("network.activity{rest}")
    } else if field.starts_with("arrivals")
        || field.starts_with("workload")
        || field.starts_with("stations")
    {
        format!("network.{field}")
    } else if let Some(rest) = field.strip_prefix("policy.") {
        format!("{policy_at}.{rest}")
    } else if field.starts_with("policy") {
        policy_at.to_string()
    } else if field.starts_with("run") || field.starts_with("path_points") {
        "run.horizon".to_string()
    } else {
        "network".to_string()
    };
    l.error(&path, e.to_string())
}

/// The static checks of a network manifest.
pub fn validate(l: &SpanIndex, m: &Manifest) -> R {
    let n = &m.network;
    if n.stations == 0 || n.stations > 64 {
        return Err(l.error(
            "network.stations",
            format!("a network needs 1..=64 stations, got {}", n.stations),
        ));
    }
    if n.arrivals.is_empty() || n.arrivals.len() > 256 {
        return Err(l.error(
            "network.arrivals",
            format!(
                "one arrival rate per buffer, 1..=256 buffers, got {}",
                n.arrivals.len()
            ),
        ));
    }
    if n.activities.is_empty() || n.activities.len() > 256 {
        return Err(l.error(
            "network.activity",
            "a network needs 1..=256 [[network.activity]] tables",
        ));
    }
    for (i, a) in n.activities.iter().enumerate() {
        let at = |k: &str| format!("network.activity[{i}].{k}");
        match (a.rate, a.mean) {
            (Some(_), Some(_)) | (None, None) => {
                return Err(l.error(
                    &at("rate"),
                    "give exactly one of rate = μ_a and mean = 1/μ_a",
                ));
            }
            (Some(x), None) | (None, Some(x)) if !(x.is_finite() && x > 0.0 && x < 1e9) => {
                let k = if a.rate.is_some() { "rate" } else { "mean" };
                return Err(l.error(&at(k), format!("must be a number in (0, 10⁹), got {x}")));
            }
            _ => {}
        }
    }
    if let Some(x) = n.load
        && !(x.is_finite() && x > 0.0)
    {
        return Err(l.error("network.load", format!("a load > 0, got {x}")));
    }
    if let Some(v) = &m.sweep.load {
        if v.is_empty() {
            return Err(l.error("sweep.load", "a sweep axis needs at least one value"));
        }
        for (i, x) in v.iter().enumerate() {
            if !(x.is_finite() && *x > 0.0) {
                return Err(l.error(&format!("sweep.load[{i}]"), format!("a load > 0, got {x}")));
            }
            if v[..i].contains(x) {
                return Err(l.error(
                    &format!("sweep.load[{i}]"),
                    "repeats an earlier value of the axis",
                ));
            }
        }
    }
    // Policies: names, labels, their keys.
    if m.policies.is_empty() {
        return Err(l.error("policy", "at least one [[policy]] is needed"));
    }
    let mut labels = BTreeSet::new();
    for (i, p) in m.policies.iter().enumerate() {
        let at = |k: &str| format!("policy[{i}].{k}");
        crate::model::policy_spec(l, &at("spec"), "spn", &p.spec, &POLICY_NAMES)?;
        let lab = m.label(i);
        if !labels.insert(lab.clone()) {
            return Err(l.error(
                &at(if p.label.is_some() { "label" } else { "spec" }),
                format!("the label \"{lab}\" is used twice; give each policy a distinct `label`"),
            ));
        }
        let kind = p.spec.parse::<SpnKind>().ok();
        match (kind, &p.order, &p.own) {
            (Some(SpnKind::Priority), None, _) => {
                return Err(l.error(
                    &at("order"),
                    "priority needs `order`: per station, its activities from the highest \
                     priority down, e.g. order = [[3, 0], [1, 2]]",
                ));
            }
            (Some(SpnKind::OwnBufferFirst), _, None) => {
                return Err(l.error(
                    &at("own"),
                    "own-buffer-first needs `own`: per station, its own buffer, e.g. own = [0, 1]",
                ));
            }
            (k, Some(_), _) if k != Some(SpnKind::Priority) => {
                return Err(l.error(&at("order"), "`order` belongs to priority only"));
            }
            (k, _, Some(_)) if k != Some(SpnKind::OwnBufferFirst) => {
                return Err(l.error(&at("own"), "`own` belongs to own-buffer-first only"));
            }
            _ => {}
        }
    }
    // Run.
    let r = &m.run;
    crate::model::continuous::validate(l, m, r, &m.quick)?;
    if let Some(p) = r.path_points
        && !(2..=100_000).contains(&p)
    {
        return Err(l.error(
            "run.path_points",
            format!("the sample path needs 2..=100000 points, got {p}"),
        ));
    }
    // The network itself, as written, under each policy (a run length
    // that follows the load is read at its first value).
    let first_load = |a: &str| {
        (a == "load")
            .then(|| m.sweep.load.as_ref()?.first().copied())
            .flatten()
    };
    let (probe_run, _, _) =
        crate::model::continuous::resolve(r, &m.quick, Profile::Full, &first_load);
    for i in 0..m.policies.len() {
        let probe = m.network(m.policy(i), probe_run, n.arrivals.clone());
        probe
            .validate()
            .map_err(|e| located(l, &e, &format!("policy[{i}]")))?;
        if i == 0 {
            load_check(l, m, &probe)?;
        }
    }
    Ok(())
}

/// `network.load` against the multiclass network's station loads, and its
/// presence where `sweep.load` needs it.
fn load_check(l: &SpanIndex, m: &Manifest, probe: &SpnConfig) -> R {
    let computed = probe.loads().map(|v| v.into_iter().fold(0.0, f64::max));
    match (m.network.load, computed) {
        (Some(x), Some(c)) if (x - c).abs() > 1e-9 * c.max(1.0) => Err(l.error(
            "network.load",
            format!(
                "the network as written has station loads up to {c} (from the traffic \
                 equations), not {x}: correct network.load or leave it out"
            ),
        )),
        (None, None) if m.sweep.load.is_some() => Err(l.error(
            "network.load",
            "sweep.load scales the arrivals by load / network.load: a parallel-server network \
             needs network.load, the optimum of its static planning problem at the rates as \
             written",
        )),
        _ => Ok(()),
    }
}

/// Expands a validated network manifest into its points.
pub fn expand(l: &SpanIndex, m: &Manifest, profile: Profile) -> Result<Plan, ManifestError> {
    let axes = m.axes();
    let loads: Vec<Option<f64>> = match &m.sweep.load {
        Some(v) => v.iter().map(|x| Some(*x)).collect(),
        None => vec![None],
    };
    let mut plan = Plan::empty(l.file(), &m.experiment.name, profile, &axes);
    for (k, load) in loads.iter().enumerate() {
        // A run length may follow the load.
        let at_load = |a: &str| (a == "load").then_some(*load).flatten();
        let (run, replications, horizon_at) =
            crate::model::continuous::resolve(&m.run, &m.quick, profile, &at_load);
        for i in 0..m.policies.len() {
            let base = m.network(m.policy(i), run, m.network.arrivals.clone());
            let arrivals = match load {
                None => m.network.arrivals.clone(),
                Some(x) => {
                    let nominal = m.nominal_load(&base).expect("validated");
                    m.network.arrivals.iter().map(|a| a * x / nominal).collect()
                }
            };
            let config = m.network(m.policy(i), run, arrivals);
            let events = run.horizon * config.event_rate();
            if events > lb_model::limits::MAX_EVENTS {
                return Err(l.error(
                    horizon_at,
                    format!(
                        "a replication would take {events:e} events, beyond lb's limit of {:e} \
                         (see \"Limits\" in experiments/README.md)",
                        lb_model::limits::MAX_EVENTS
                    ),
                ));
            }
            config.validate().map_err(|e| {
                let at = if e.starts_with("run") {
                    horizon_at.to_string()
                } else if load.is_some() {
                    format!("sweep.load[{k}]")
                } else {
                    "network".to_string()
                };
                l.error(&at, format!("({}): {e}", m.label(i)))
            })?;
            plan.points.push(PlannedPoint {
                keys: Default::default(),
                label: m.label(i),
                axes: load
                    .iter()
                    .map(|x| lb_model::canonical::number_to_string(*x))
                    .collect(),
                replications: replications.clone(),
                target: Target::Fixed(Point {
                    model: Model::Spn,
                    model_version: Model::Spn.version(),
                    profile,
                    seed: m.run.seed,
                    config: PointConfig::Spn(config),
                }),
            });
        }
    }
    Ok(plan)
}

impl crate::model::sweep::Sweep for Manifest {
    fn axes(&self) -> Vec<&'static str> {
        Manifest::axes(self)
    }
    fn axis_values(&self, axis: &str) -> Vec<String> {
        Manifest::axis_values(self, axis)
    }
    fn policies(&self) -> usize {
        self.policies.len()
    }
}
