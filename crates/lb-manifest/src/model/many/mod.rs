//! The many-server continuous-time model (docs/MODEL.md §2): `model = "many"`. Parsed as strictly as the slotted ones (unknown
//! keys, wrong types and values outside their range are located errors), then
//! expanded into points holding an `lb_core::many::ManyConfig`.
//!
//! ```toml
//! [system]
//! servers = 1000         # N (or sweep.servers)
//! alpha = 0.3            # λ = 1 − N^(−α); or lambda = 0.9 (or either swept)
//! buffer = 4             # optional: b jobs per server at most; default unbounded
//!
//! [sweep]                # optional axes, in this order: servers, alpha, lambda
//! servers = [100, 1000]
//!
//! [[policy]]
//! spec = "Pod"           # JSQ, JIQ, I1F, Pod, Random, Graph
//! alpha = 0.3            # Pod: d = ⌈N^α ln N⌉; or d = 2 (default d = 2)
//! # graph = "ring" | "torus" | "clique" | { kind = "erdos_renyi", mean_degree = 10 }
//! #        | { kind = "erdos_renyi", degree_exponent = 0.5 }  (d̄ = N^β)
//! #        | { kind = "random_regular", degree = 3 }          (Graph only)
//!
//! [run]
//! horizon = 200.0        # time simulated per replication (mean service times)
//! warmup = 20.0
//! batches = 64           # optional
//! replications = 5       # or precision = { … } as in the slotted model
//! seed = 4
//!
//! [quick]                # optional: horizon, warmup, replications
//! ```

use crate::claim::Claim;
use crate::diag::{ManifestError, SpanIndex};
use crate::diag::{one_of, spelled_as_in};
use crate::model::continuous::{QuickSpec, RunSpec};
use crate::plan::{Plan, PlannedPoint, Replications, Target};
use lb_core::many::{GraphSpec, ManyConfig, ManyPolicy, PodD, TimeRun};
use lb_model::config::PointConfig;
use lb_model::many::metrics;
use lb_model::model::Model;
use lb_model::model::Profile;
use lb_model::point::Point;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

type R = Result<(), ManifestError>;

model_manifest! {
    /// A many-server experiment.
    sweep: ManySweepSpec, policy: ManyPolicySpec, run: RunSpec, quick: QuickSpec;
    /// `[system]`: N and the buffer.
    #[serde(default)]
    system: ManySystemSpec,
}

/// `[system]` of the many-server model.
#[derive(Debug, Clone, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManySystemSpec {
    /// N.
    pub servers: Option<u64>,
    /// λ, the arrival rate per server.
    pub lambda: Option<f64>,
    /// λ = 1 − N^(−α) (Liu and Ying's sub-Halfin-Whitt regime).
    pub alpha: Option<f64>,
    /// b: at most b jobs per server; default unbounded.
    pub buffer: Option<u32>,
}

/// `[sweep]` of the many-server model.
#[derive(Debug, Clone, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManySweepSpec {
    /// N, the number of servers.
    pub servers: Option<Vec<u64>>,
    /// α, with λ = 1 − N^(−α).
    pub alpha: Option<Vec<f64>>,
    /// λ, the arrival rate per server.
    pub lambda: Option<Vec<f64>>,
    /// Power-of-d's d, for Pod policies that set neither `d` nor `alpha`.
    pub d: Option<Vec<u64>>,
}

/// The sweep axes of the many-server model, in expansion order.
pub(crate) const MANY_AXES: [&str; 4] = ["servers", "alpha", "lambda", "d"];

impl ManySweepSpec {
    /// The sweep axes this manifest sets.
    pub fn present(&self) -> Vec<&'static str> {
        let set = [
            self.servers.is_some(),
            self.alpha.is_some(),
            self.lambda.is_some(),
            self.d.is_some(),
        ];
        MANY_AXES
            .iter()
            .zip(set)
            .filter(|(_, s)| *s)
            .map(|(a, _)| *a)
            .collect()
    }
}

/// A graph G_N (Mukherjee, Borst and van Leeuwaarden): a name, or a table with `kind` and its parameter.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum GraphToml {
    /// A graph by name ("clique", "ring", "torus").
    Name(String),
    /// A graph with parameters.
    Table(GraphTable),
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
/// A graph with parameters, `{ kind = "erdos_renyi", mean_degree = 20 }`.
pub struct GraphTable {
    /// "erdos_renyi", "random_regular", "clique", "ring", "torus" or
    /// "ring_periphery" (half the servers on a ring, each joined to one
    /// server of an Erdős–Rényi core of mean degree C^β).
    pub kind: String,
    /// Erdős–Rényi: the mean degree.
    pub mean_degree: Option<f64>,
    /// Erdős–Rényi with a mean degree growing with N: d̄ = N^β (capped at
    /// N − 1), Mukherjee, Borst and van Leeuwaarden's d(N) → ∞.
    pub degree_exponent: Option<f64>,
    /// Random regular: the degree.
    pub degree: Option<u64>,
}

const GRAPH_KINDS: [&str; 6] = [
    "clique",
    "erdos_renyi",
    "random_regular",
    "ring",
    "ring_periphery",
    "torus",
];

/// `[[policy]]` of the many-server model.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManyPolicySpec {
    /// Display name; default: the policy's name from `spec`.
    pub label: Option<String>,
    /// JSQ, JIQ, I1F, Pod, Random or Graph (case-insensitive).
    pub spec: String,
    /// Pod: a fixed d.
    pub d: Option<u64>,
    /// Pod: d = ⌈N^α ln N⌉, α a number or "load" (the point's own α of
    /// λ = 1 − N^(−α), as in Liu and Ying).
    pub alpha: Option<PodAlpha>,
    /// Pod with `alpha`: false for d = ⌈N^α⌉, without the ln N factor (just
    /// outside Liu and Ying's class; default true).
    pub ln_n: Option<bool>,
    /// Pod: true for the least d at which it is in Liu and Ying's class at
    /// each point (it misses every idle server with probability at most
    /// 1/√N at S_1 = λ + k ln N/√N, k = 1 + 1/(2(b − 1))): the class's
    /// boundary member. A point where no d is (λ + k ln N/√N ≥ 1) is not
    /// run for it.
    pub least_in_class: Option<bool>,
    /// Graph: G_N.
    pub graph: Option<GraphToml>,
}

/// Pod's α: a number, or the word "load" for the α of the point's load
/// (any other word is a located error).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum PodAlpha {
    /// α as a number.
    Number(f64),
    /// "load": the sweep's α.
    Word(String),
}

/// The policy names of the many-server model.
pub(crate) const MANY_POLICY_NAMES: [&str; 6] = ["JSQ", "JIQ", "I1F", "Pod", "Random", "Graph"];

/// A many-server policy as its `spec` names it (case aside): the one place
/// the word becomes the kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ManyKind {
    Jsq,
    Jiq,
    I1f,
    Pod,
    Random,
    Graph,
}

impl std::str::FromStr for ManyKind {
    type Err = ();
    fn from_str(spec: &str) -> Result<ManyKind, ()> {
        // In MANY_POLICY_NAMES' order.
        let kinds = [
            ManyKind::Jsq,
            ManyKind::Jiq,
            ManyKind::I1f,
            ManyKind::Pod,
            ManyKind::Random,
            ManyKind::Graph,
        ];
        crate::model::name_index(spec, &MANY_POLICY_NAMES)
            .map(|i| kinds[i])
            .ok_or(())
    }
}

impl ManyPolicySpec {
    /// Its kind, where its `spec` names one.
    pub(crate) fn kind(&self) -> Option<ManyKind> {
        self.spec.parse().ok()
    }
}

impl Manifest {
    /// The values of a sweep axis, as the plan shows them.
    pub(crate) fn axis_values(&self, axis: &str) -> Vec<String> {
        let f = |v: &Option<Vec<f64>>| -> Vec<String> {
            v.iter()
                .flatten()
                .map(|x| lb_model::canonical::number_to_string(*x))
                .collect()
        };
        match axis {
            "servers" => self
                .sweep
                .servers
                .iter()
                .flatten()
                .map(|n| lb_model::canonical::number_to_string(*n as f64))
                .collect(),
            "alpha" => f(&self.sweep.alpha),
            "lambda" => f(&self.sweep.lambda),
            "d" => self
                .sweep
                .d
                .iter()
                .flatten()
                .map(|d| d.to_string())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The label of policy `i`: its `label`, else its `spec`.
    pub fn label(&self, i: usize) -> String {
        let p = &self.policies[i];
        p.label
            .clone()
            .unwrap_or_else(|| crate::model::canonical_label(&p.spec, &MANY_POLICY_NAMES))
    }
}

/// The static checks of a many-server manifest, section by section: N, the
/// load, the buffer, the sweep axes, the policies, the run, and the named
/// references of its claims and figures.
pub fn validate(l: &SpanIndex, m: &Manifest, claims: &[Claim]) -> R {
    servers(l, &m.system, &m.sweep)?;
    load(l, &m.system, &m.sweep)?;
    buffer(l, &m.system)?;
    sweep(l, m)?;
    policies(l, m)?;
    run(l, m)?;
    references(l, m, claims)
}

/// N: set in `[system]` or swept, not both, and in `[system]` at least 1 and
/// within lb's limit (a swept N is checked with its axis).
fn servers(l: &SpanIndex, s: &ManySystemSpec, sw: &ManySweepSpec) -> R {
    match (s.servers, &sw.servers) {
        (Some(_), Some(_)) => Err(l.error(
            "sweep.servers",
            "servers is set in [system] too: keep one of system.servers and sweep.servers",
        )),
        (None, None) => Err(l.error(
            "system.servers",
            "required key `servers` is missing: set system.servers = N or sweep.servers = [N, …]",
        )),
        (Some(0), None) => Err(l.error("system.servers", "N must be ≥ 1, got 0")),
        (Some(n), None) if n > lb_model::limits::MAX_MANY_SERVERS => Err(l.error(
            "system.servers",
            format!(
                "N = {n} is beyond lb's limit of {} (see \"Limits\" in \
                 experiments/README.md)",
                lb_model::limits::MAX_MANY_SERVERS
            ),
        )),
        _ => Ok(()),
    }
}

/// The load: exactly one of `lambda` and `alpha` (λ = 1 − N^(−α), Liu and
/// Ying's sub-Halfin-Whitt regime), in `[system]` or swept; a `[system]`
/// value in range (a swept one is checked with its axis).
fn load(l: &SpanIndex, s: &ManySystemSpec, sw: &ManySweepSpec) -> R {
    let given: Vec<&str> = [
        ("system.lambda", s.lambda.is_some()),
        ("system.alpha", s.alpha.is_some()),
        ("sweep.lambda", sw.lambda.is_some()),
        ("sweep.alpha", sw.alpha.is_some()),
    ]
    .into_iter()
    .filter(|(_, b)| *b)
    .map(|(k, _)| k)
    .collect();
    match given.len() {
        0 => {
            return Err(l.error(
                "system.lambda",
                "the load is missing: set exactly one of system.lambda, system.alpha \
                 (λ = 1 − N^(−α)), sweep.lambda or sweep.alpha",
            ));
        }
        1 => {}
        _ => {
            return Err(l.error(
                given[1],
                format!(
                    "the load is set twice ({}): keep exactly one of lambda and alpha, \
                     in [system] or [sweep]",
                    given.join(", ")
                ),
            ));
        }
    }
    if let Some(x) = s.lambda {
        lambda_value(l, "system.lambda", x, s.buffer.is_none())?;
    }
    if let Some(x) = s.alpha {
        alpha_value(l, "system.alpha", x)?;
    }
    Ok(())
}

/// A value of λ at key `at`: a number > 0, and below 1 when the buffer is
/// `unbounded`.
fn lambda_value(l: &SpanIndex, at: &str, x: f64, unbounded: bool) -> R {
    if !(x.is_finite() && x > 0.0) || (unbounded && x >= 1.0) {
        let need = if unbounded {
            "0 < λ < 1 (an unbounded buffer needs λ < 1; set system.buffer to allow λ ≥ 1)"
        } else {
            "λ > 0"
        };
        return Err(l.error(at, format!("{need}, got {x}")));
    }
    Ok(())
}

/// A value of α (λ = 1 − N^(−α)) at key `at`: a number > 0.
fn alpha_value(l: &SpanIndex, at: &str, x: f64) -> R {
    if !(x.is_finite() && x > 0.0) {
        return Err(l.error(
            at,
            format!("α must be a number > 0 (λ = 1 − N^(−α)), got {x}"),
        ));
    }
    Ok(())
}

/// b: at least 1 job per server when given (left out, it is unbounded).
fn buffer(l: &SpanIndex, s: &ManySystemSpec) -> R {
    if s.buffer == Some(0) {
        return Err(l.error(
            "system.buffer",
            "b must be ≥ 1 (or left out for an unbounded buffer)",
        ));
    }
    Ok(())
}

/// `[sweep]`: each axis set is non-empty, without repeats, and its values
/// in range; `sweep.d` needs a Pod policy that takes it.
fn sweep(l: &SpanIndex, m: &Manifest) -> R {
    let sw = &m.sweep;
    let unbounded = m.system.buffer.is_none();
    if let Some(v) = &sw.servers {
        distinct(l, "sweep.servers", v, swept_servers)?;
    }
    if let Some(v) = &sw.alpha {
        distinct(l, "sweep.alpha", v, alpha_value)?;
    }
    if let Some(v) = &sw.lambda {
        distinct(l, "sweep.lambda", v, |l, at, x| {
            lambda_value(l, at, x, unbounded)
        })?;
    }
    if let Some(v) = &sw.d {
        sweep_d(l, m, v)?;
    }
    Ok(())
}

/// A sweep axis at key `at`: at least one value, each passing `check` and
/// none repeating an earlier one.
fn distinct<T: PartialEq + Copy>(
    l: &SpanIndex,
    at: &str,
    v: &[T],
    check: impl Fn(&SpanIndex, &str, T) -> R,
) -> R {
    if v.is_empty() {
        return Err(l.error(at, "a sweep axis needs at least one value"));
    }
    for (i, x) in v.iter().enumerate() {
        check(l, &format!("{at}[{i}]"), *x)?;
        if v[..i].contains(x) {
            return Err(l.error(
                &format!("{at}[{i}]"),
                "repeats an earlier value of the axis",
            ));
        }
    }
    Ok(())
}

/// A value of `sweep.servers` at key `at`: N in 1..=lb's limit.
fn swept_servers(l: &SpanIndex, at: &str, n: u64) -> R {
    if n == 0 || n > lb_model::limits::MAX_MANY_SERVERS {
        Err(l.error(
            at,
            format!(
                "N must lie in 1..={} (lb's limit; see \"Limits\" in \
                 experiments/README.md), got {n}",
                lb_model::limits::MAX_MANY_SERVERS
            ),
        ))
    } else {
        Ok(())
    }
}

/// `sweep.d` (values `v`): each d ≥ 1, and some Pod policy that sets neither
/// `d` nor `alpha` to take it.
fn sweep_d(l: &SpanIndex, m: &Manifest, v: &[u64]) -> R {
    distinct(l, "sweep.d", v, |l, at, d| {
        if d == 0 {
            Err(l.error(at, "Power-of-d's d must be ≥ 1, got 0"))
        } else {
            Ok(())
        }
    })?;
    let takes =
        |p: &ManyPolicySpec| p.kind() == Some(ManyKind::Pod) && p.d.is_none() && p.alpha.is_none();
    if !m.policies.iter().any(takes) {
        return Err(l.error(
            "sweep.d",
            "sweep.d applies to Pod policies that set neither `d` nor `alpha`, and no \
             policy here is one: add such a Pod or drop the axis",
        ));
    }
    Ok(())
}

/// `[[policy]]`: at least one; each a known policy with a label of its own,
/// Pod's keys on Pod only and Graph's on Graph only.
fn policies(l: &SpanIndex, m: &Manifest) -> R {
    if m.policies.is_empty() {
        return Err(l.error("policy", "at least one [[policy]] is needed"));
    }
    let mut labels = BTreeSet::new();
    for (i, p) in m.policies.iter().enumerate() {
        let at = |k: &str| format!("policy[{i}].{k}");
        crate::model::policy_spec(l, &at("spec"), "many", &p.spec, &MANY_POLICY_NAMES)?;
        let kind = p.kind();
        let lab = m.label(i);
        if !labels.insert(lab.clone()) {
            return Err(l.error(
                &at("label"),
                format!("label \"{lab}\" is used by another policy; labels must be unique"),
            ));
        }
        if kind == Some(ManyKind::Pod) {
            pod_keys(l, m, i, p)?;
        } else {
            no_pod_keys(l, i, p)?;
        }
        graph_key(l, i, p, kind == Some(ManyKind::Graph))?;
    }
    Ok(())
}

/// Policy `i`, not a Pod: it sets neither `d` nor `alpha`.
fn no_pod_keys(l: &SpanIndex, i: usize, p: &ManyPolicySpec) -> R {
    for (k, set) in [
        ("d", p.d.is_some()),
        ("alpha", p.alpha.is_some()),
        ("ln_n", p.ln_n.is_some()),
        ("least_in_class", p.least_in_class.is_some()),
    ] {
        if set {
            return Err(l.error(
                &format!("policy[{i}].{k}"),
                format!("`{k}` belongs to Pod only, not to {}", p.spec.trim()),
            ));
        }
    }
    Ok(())
}

/// Pod's d, policy `i`: a fixed `d` ≥ 1 or d = ⌈N^α ln N⌉ with `alpha` a
/// number > 0 or "load" (the α of the point's λ = 1 − N^(−α), as in Liu and
/// Ying, which the load must then be given by), not both.
fn pod_keys(l: &SpanIndex, m: &Manifest, i: usize, p: &ManyPolicySpec) -> R {
    let at = |k: &str| format!("policy[{i}].{k}");
    if p.d.is_some() && p.alpha.is_some() {
        return Err(l.error(
            &at("alpha"),
            "Pod takes `d` (fixed) or `alpha` (d = ⌈N^α ln N⌉), not both",
        ));
    }
    if p.d == Some(0) {
        return Err(l.error(&at("d"), "d must be ≥ 1"));
    }
    if p.least_in_class == Some(true) {
        if p.d.is_some() || p.alpha.is_some() {
            return Err(l.error(
                &at("least_in_class"),
                "least_in_class sets d itself (the least d in Liu and Ying's class at each \
                 point): give it without `d` and `alpha`",
            ));
        }
        if m.system.buffer.is_none_or(|b| b < 2) {
            return Err(l.error(
                &at("least_in_class"),
                "Liu and Ying's class is defined for a buffer b ≥ 2 (k = 1 + 1/(2(b − 1))): \
                 set system.buffer",
            ));
        }
    }
    if p.ln_n.is_some() && p.alpha.is_none() {
        return Err(l.error(
            &at("ln_n"),
            "`ln_n` says whether d = ⌈N^α ln N⌉ or ⌈N^α⌉: give `alpha` with it",
        ));
    }
    if let Some(PodAlpha::Number(a)) = p.alpha
        && !(a.is_finite() && a > 0.0)
    {
        return Err(l.error(&at("alpha"), format!("α must be a number > 0, got {a}")));
    }
    if let Some(PodAlpha::Word(w)) = &p.alpha
        && w != "load"
    {
        return Err(l.error(
            &at("alpha"),
            format!("α must be a number > 0, or \"load\" for the α of λ = 1 − N^(−α); got \"{w}\""),
        ));
    }
    if matches!(p.alpha, Some(PodAlpha::Word(_)))
        && m.system.alpha.is_none()
        && m.sweep.alpha.is_none()
    {
        return Err(l.error(
            &at("alpha"),
            "alpha = \"load\" takes the α of λ = 1 − N^(−α), and the load here is not \
             given by α: set system.alpha or sweep.alpha, or give Pod a number",
        ));
    }
    Ok(())
}

/// The `graph` of policy `i`: required of Graph (`is_graph`) and a valid
/// graph there (checked at no N yet), and on no other policy.
fn graph_key(l: &SpanIndex, i: usize, p: &ManyPolicySpec, is_graph: bool) -> R {
    let at = format!("policy[{i}].graph");
    match (is_graph, &p.graph) {
        (true, None) => Err(l.error(
            &at,
            format!(
                "Graph needs `graph`: one of {} (erdos_renyi and random_regular as \
                 {{ kind = …, mean_degree = … }} / {{ kind = …, degree = … }})",
                GRAPH_KINDS.join(", ")
            ),
        )),
        (false, Some(_)) => Err(l.error(
            &at,
            format!("`graph` belongs to Graph only, not to {}", p.spec.trim()),
        )),
        (true, Some(g)) => graph_spec(l, &at, g, None).map(|_| ()),
        _ => Ok(()),
    }
}

/// `[run]` and `[quick]`: the continuous-time models' checks, and no
/// `path_points` (a network's key).
fn run(l: &SpanIndex, m: &Manifest) -> R {
    if m.run.path_points.is_some() {
        return Err(l.error(
            "run.path_points",
            "`path_points` belongs to the network model (model = \"spn\")",
        ));
    }
    crate::model::continuous::validate(l, m, &m.run, &m.quick)
}

/// Each named reference of a claim (its `why` checks included) or figure
/// against the metric it is compared with and the system: a reference that
/// does not define the metric (`mm1` for `shw_excess`), needs a buffer the
/// system lacks or the reverse, or (`pod_mean_field`) is claimed of a policy
/// other than Pod, is a located error. Unknown names and metrics are left to
/// the shared checks, which list the valid ones.
fn references(l: &SpanIndex, m: &Manifest, claims: &[Claim]) -> R {
    use crate::outputs::Reference;
    let check = |at: &str, r: &Reference, metric: Option<&str>| -> R {
        let Reference::Named(name) = r else {
            return Ok(());
        };
        if !metrics::REFERENCES.contains(&name.as_str()) {
            return Ok(());
        }
        if let Some(me) = metric
            && Model::Many.metric(me).is_some()
        {
            metrics::defines(name, me).map_err(|e| l.error(at, e))?;
        }
        metrics::needs(name, m.system.buffer).map_err(|e| l.error(at, e))
    };
    let pod = |label: &str| {
        (0..m.policies.len())
            .any(|i| m.label(i) == label && m.policies[i].kind() == Some(ManyKind::Pod))
    };
    for (i, c) in claims.iter().enumerate() {
        for (at, _, c) in c.all_checks(i) {
            let Some((k, r)) = c.reference() else {
                continue;
            };
            check(&format!("{at}.{k}"), r, c.metric())?;
            if matches!(r, Reference::Named(n) if n == "pod_mean_field") {
                for (j, p) in c.policies().iter().enumerate() {
                    if !pod(p) {
                        return Err(l.error(
                            &format!("{at}.policies[{j}]"),
                            format!(
                                "pod_mean_field is Power-of-d's mean field, and \"{p}\" is \
                                 not a Pod policy"
                            ),
                        ));
                    }
                }
            }
        }
    }
    for (i, f) in m.figures.iter().enumerate() {
        for (j, r) in f.references.iter().enumerate() {
            check(
                &format!("figure[{i}].reference[{j}].value"),
                &r.value,
                f.y.as_deref(),
            )?;
        }
    }
    Ok(())
}

/// A mean degree that grows with the `size` servers it spans, size^β, at
/// most size − 1 (every other server).
fn grown_mean_degree(size: usize, beta: f64) -> f64 {
    (size as f64).powf(beta).min(size as f64 - 1.0)
}

/// The graph of a `graph` key, at N = `servers` (None when only validating:
/// a degree growing with N is then checked but not resolved).
fn graph_spec(
    l: &SpanIndex,
    at: &str,
    g: &GraphToml,
    servers: Option<usize>,
) -> Result<GraphSpec, ManifestError> {
    let (kind, mean_degree, exponent, degree) = match g {
        GraphToml::Name(k) => (k.as_str(), None, None, None),
        GraphToml::Table(t) => (t.kind.as_str(), t.mean_degree, t.degree_exponent, t.degree),
    };
    one_of(
        l,
        at,
        "graph kind",
        spelled_as_in(kind, &GRAPH_KINDS),
        &GRAPH_KINDS,
    )?;
    let kind = kind.trim().to_ascii_lowercase();
    let extra = |k: &str| {
        l.error(
            &format!("{at}.{k}"),
            format!("`{k}` does not belong to a {kind} graph"),
        )
    };
    Ok(match kind.as_str() {
        "ring_periphery" => {
            if degree.is_some() {
                return Err(extra("degree"));
            }
            if mean_degree.is_some() {
                return Err(extra("mean_degree"));
            }
            let Some(beta) = exponent.filter(|b| *b > 0.0 && *b <= 1.0) else {
                return Err(l.error(
                    &format!("{at}.degree_exponent"),
                    "a ring_periphery graph's core has mean degree C^β among its C = N − ⌊N/2⌋ \
                     servers, 0 < β ≤ 1: { kind = \"ring_periphery\", degree_exponent = 0.5 }",
                ));
            };
            let core_mean_degree = servers.map_or(1.0, |n| grown_mean_degree(n - n / 2, beta));
            GraphSpec::RingPeriphery { core_mean_degree }
        }
        "erdos_renyi" => {
            if degree.is_some() {
                return Err(extra("degree"));
            }
            let d = match (mean_degree, exponent) {
                (Some(d), None) => d,
                (None, Some(beta)) => {
                    if !(beta > 0.0 && beta <= 1.0) {
                        return Err(l.error(
                            &format!("{at}.degree_exponent"),
                            format!("the mean degree is N^β with 0 < β ≤ 1, got β = {beta}"),
                        ));
                    }
                    servers.map_or(1.0, |n| grown_mean_degree(n, beta))
                }
                (Some(_), Some(_)) => {
                    return Err(l.error(
                        &format!("{at}.degree_exponent"),
                        "give mean_degree (fixed) or degree_exponent (d̄ = N^β), not both",
                    ));
                }
                (None, None) => {
                    return Err(l.error(
                        at,
                        "an erdos_renyi graph needs mean_degree = d̄ or degree_exponent = β (d̄ = N^β): { kind = \"erdos_renyi\", mean_degree = 10 }",
                    ));
                }
            };
            GraphSpec::ErdosRenyi { mean_degree: d }
        }
        "random_regular" => {
            if mean_degree.is_some() {
                return Err(extra("mean_degree"));
            }
            if exponent.is_some() {
                return Err(extra("degree_exponent"));
            }
            let Some(d) = degree else {
                return Err(l.error(
                    at,
                    "a random_regular graph needs degree: { kind = \"random_regular\", degree = d }",
                ));
            };
            if d == 0 {
                return Err(l.error(
                    &format!("{at}.degree"),
                    "a random_regular graph needs degree ≥ 1 (degree 0 leaves every server \
                     without neighbours: that is Random routing)",
                ));
            }
            if let Some(n) = servers
                && d as usize >= n
            {
                return Err(l.error(
                    &format!("{at}.degree"),
                    format!("degree {d} needs more than N = {n} servers (at most N − 1)"),
                ));
            }
            GraphSpec::RandomRegular { degree: d as usize }
        }
        _ => {
            if mean_degree.is_some() {
                return Err(extra("mean_degree"));
            }
            if exponent.is_some() {
                return Err(extra("degree_exponent"));
            }
            if degree.is_some() {
                return Err(extra("degree"));
            }
            match kind.as_str() {
                "clique" => GraphSpec::Clique,
                "ring" => GraphSpec::Ring,
                _ => GraphSpec::Torus,
            }
        }
    })
}

/// Expands a validated many-server manifest into its points: every
/// combination of the sweep's values (the last axis varying fastest), and at
/// each every policy.
pub fn expand(l: &SpanIndex, m: &Manifest, profile: Profile) -> Result<Plan, ManifestError> {
    let axes = m.sweep.present();
    let lists: Vec<Vec<f64>> = axes.iter().map(|a| sweep_values(m, a)).collect();
    let mut plan = Plan::empty(l.file(), &m.experiment.name, profile, &axes);
    let total: usize = lists.iter().map(Vec::len).product();
    for mut c in 0..total {
        let mut combo = vec![0.0; axes.len()];
        for (j, vals) in lists.iter().enumerate().rev() {
            combo[j] = vals[c % vals.len()];
            c /= vals.len();
        }
        let at = Combination::new(m, profile, &axes, combo);
        for i in 0..m.policies.len() {
            // The class's least member exists only inside its hypothesis.
            if m.policies[i].least_in_class == Some(true)
                && lb_model::many::metrics::least_class_d(at.servers, at.lambda, m.system.buffer)
                    .is_none()
            {
                continue;
            }
            plan.points.push(point(l, m, profile, &at, i)?);
        }
    }
    Ok(plan)
}

/// The values of sweep axis `a` as numbers.
fn sweep_values(m: &Manifest, a: &str) -> Vec<f64> {
    match a {
        "servers" => m
            .sweep
            .servers
            .iter()
            .flatten()
            .map(|&n| n as f64)
            .collect(),
        "alpha" => m.sweep.alpha.clone().unwrap_or_default(),
        "d" => m.sweep.d.iter().flatten().map(|&d| d as f64).collect(),
        _ => m.sweep.lambda.clone().unwrap_or_default(),
    }
}

/// One combination of the sweep axes' values, with what the points of every
/// policy at it share: the run length (which may follow an axis), N and λ,
/// and the keys that set them (for errors).
struct Combination<'a> {
    axes: &'a [&'static str],
    values: Vec<f64>,
    /// The values as the plan shows them.
    shown: Vec<String>,
    run: TimeRun,
    replications: Replications,
    horizon_at: &'static str,
    servers: usize,
    /// The α of λ = 1 − N^(−α), when the load is given by α.
    load_alpha: Option<f64>,
    lambda: f64,
    load_at: &'static str,
}

impl<'a> Combination<'a> {
    /// The combination `values` of `axes`, resolved for `profile`.
    fn new(m: &Manifest, profile: Profile, axes: &'a [&'static str], values: Vec<f64>) -> Self {
        let get = |a: &str| axes.iter().position(|x| *x == a).map(|j| values[j]);
        // A run length may follow a sweep axis.
        let (run, replications, horizon_at) =
            crate::model::continuous::resolve(&m.run, &m.quick, profile, &get);
        let servers = get("servers")
            .map(|n| n as usize)
            .or(m.system.servers.map(|n| n as usize))
            .expect("validated");
        let load_alpha = get("alpha").or(m.system.alpha);
        let (lambda, load_at) = match (get("lambda"), get("alpha"), m.system.lambda) {
            (Some(x), _, _) => (x, "sweep.lambda"),
            (_, Some(a), _) => (1.0 - (servers as f64).powf(-a), "sweep.alpha"),
            (_, _, Some(x)) => (x, "system.lambda"),
            _ => (
                1.0 - (servers as f64).powf(-m.system.alpha.expect("validated")),
                "system.alpha",
            ),
        };
        let shown = values
            .iter()
            .map(|x| lb_model::canonical::number_to_string(*x))
            .collect();
        Combination {
            axes,
            values,
            shown,
            run,
            replications,
            horizon_at,
            servers,
            load_alpha,
            lambda,
            load_at,
        }
    }

    /// The value of sweep axis `a`, if the manifest sweeps it.
    fn get(&self, a: &str) -> Option<f64> {
        self.axes
            .iter()
            .position(|x| *x == a)
            .map(|j| self.values[j])
    }
}

/// The point of policy `i` at combination `at`, checked: a scaled Pod's d at
/// most N, a replication's events within lb's limit, and the configuration's
/// own checks, located at the key that set the value at fault.
fn point(
    l: &SpanIndex,
    m: &Manifest,
    profile: Profile,
    at: &Combination,
    i: usize,
) -> Result<PlannedPoint, ManifestError> {
    let policy = policy(l, m, at, i)?;
    let config = ManyConfig {
        servers: at.servers,
        lambda: at.lambda,
        buffer: m.system.buffer,
        policy,
        run: at.run,
    };
    scaled_d_within_n(l, at, i, policy)?;
    events_within_limit(l, at)?;
    if let Err(e) = config.validate() {
        return Err(l.error(
            &config_error_path(m, at, i, &e),
            format!(
                "at N = {}, λ = {} ({}): {e}",
                at.servers,
                at.lambda,
                m.label(i)
            ),
        ));
    }
    Ok(PlannedPoint {
        keys: Default::default(),
        label: m.label(i),
        axes: at.shown.clone(),
        replications: at.replications.clone(),
        target: Target::Fixed(Point {
            model: Model::Many,
            model_version: Model::Many.version(),
            profile,
            seed: m.run.seed,
            config: PointConfig::Many(config),
        }),
    })
}

/// The policy of `[[policy]]` `i` at combination `at`: Pod's d fixed (its
/// own `d`, else the swept d, else 2) or scaled, d = ⌈N^α ln N⌉ (its own α,
/// or the load's); Graph's graph drawn for the combination's N.
fn policy(
    l: &SpanIndex,
    m: &Manifest,
    at: &Combination,
    i: usize,
) -> Result<ManyPolicy, ManifestError> {
    let p = &m.policies[i];
    Ok(match p.kind().expect("validated: a policy of the model") {
        ManyKind::Jsq => ManyPolicy::Jsq,
        ManyKind::Jiq => ManyPolicy::Jiq,
        ManyKind::I1f => ManyPolicy::I1f,
        ManyKind::Random => ManyPolicy::Random,
        ManyKind::Pod if p.least_in_class == Some(true) => ManyPolicy::Pod {
            d: PodD::Fixed {
                d: lb_model::many::metrics::least_class_d(at.servers, at.lambda, m.system.buffer)
                    .expect("points outside the class's hypothesis are not planned"),
            },
        },
        ManyKind::Pod => ManyPolicy::Pod {
            d: match (&p.alpha, p.d, at.get("d")) {
                (Some(a), _, _) => {
                    let alpha = match a {
                        PodAlpha::Number(alpha) => *alpha,
                        PodAlpha::Word(_) => at.load_alpha.expect("validated"),
                    };
                    if p.ln_n == Some(false) {
                        PodD::Power { alpha }
                    } else {
                        PodD::Scaled { alpha }
                    }
                }
                (None, Some(d), _) => PodD::Fixed { d: d as usize },
                (None, None, Some(d)) => PodD::Fixed { d: d as usize },
                (None, None, None) => PodD::Fixed { d: 2 },
            },
        },
        ManyKind::Graph => ManyPolicy::Graph {
            graph: graph_spec(
                l,
                &format!("policy[{i}].graph"),
                p.graph.as_ref().expect("validated"),
                Some(at.servers),
            )?,
        },
    })
}

/// A scaled Pod (policy `i`): d = ⌈N^α ln N⌉ at most N, never silently
/// capped.
fn scaled_d_within_n(l: &SpanIndex, at: &Combination, i: usize, policy: ManyPolicy) -> R {
    if let ManyPolicy::Pod {
        d: PodD::Scaled { alpha },
    } = policy
    {
        let servers = at.servers;
        let d = (servers as f64).powf(alpha) * (servers as f64).ln();
        if d.ceil() > servers as f64 {
            return Err(l.error(
                &format!("policy[{i}].alpha"),
                format!(
                    "d = ⌈N^α ln N⌉ = {} exceeds N = {servers} at α = {alpha}: choose a \
                     smaller α (d is never silently capped at N)",
                    d.ceil()
                ),
            ));
        }
    }
    Ok(())
}

/// The events of one replication at `at` (the uniformised chain's
/// (1 + λ)N a unit of time) within lb's limit.
fn events_within_limit(l: &SpanIndex, at: &Combination) -> R {
    let (servers, lambda) = (at.servers, at.lambda);
    let events = at.run.horizon * (1.0 + lambda) * servers as f64;
    if events > lb_model::limits::MAX_EVENTS {
        return Err(l.error(
            at.horizon_at,
            format!(
                "a replication at N = {servers}, λ = {lambda} would take {events:e} \
                 events, beyond lb's limit of {:e} (see \"Limits\" in \
                 experiments/README.md)",
                lb_model::limits::MAX_EVENTS
            ),
        ));
    }
    Ok(())
}

/// The key that set what the configuration's own check `e` of policy `i`
/// at `at` rejects: Pod's d (swept, or the policy's own), the horizon, the
/// load, the graph, or N.
fn config_error_path(
    m: &Manifest,
    at: &Combination,
    i: usize,
    e: &lb_core::many::ConfigError,
) -> String {
    use lb_core::many::ConfigField;
    let p = &m.policies[i];
    let swept_d = p.alpha.is_none() && p.d.is_none() && at.get("d").is_some();
    match e.field {
        ConfigField::PodD if swept_d => {
            let d = at.get("d").expect("swept");
            let j = m.sweep.d.iter().flatten().position(|&x| x as f64 == d);
            format!("sweep.d[{}]", j.expect("a value of the axis"))
        }
        ConfigField::PodD => format!(
            "policy[{i}].{}",
            if p.alpha.is_some() { "alpha" } else { "d" }
        ),
        ConfigField::Run => at.horizon_at.to_string(),
        ConfigField::Lambda => at.load_at.to_string(),
        ConfigField::Graph => format!("policy[{i}].graph"),
        ConfigField::Buffer => "system.buffer".to_string(),
        ConfigField::Servers if at.get("servers").is_some() => "sweep.servers".to_string(),
        ConfigField::Servers => "system.servers".to_string(),
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
