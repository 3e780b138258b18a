//! Expansion of a slotted manifest into points (docs/MODEL.md §4): the cartesian
//! product of the sweep axes times the policies, each resolved into a
//! [`Point`] with every default written out. Per-point checks (d ≤ N at a
//! swept N, a Bernoulli arrival mean ≤ 1 at each load, …) fail here with
//! located errors.

// A new policy variant is matched everywhere by name: no wildcard arms.
#![warn(clippy::wildcard_enum_match_arm)]

use super::checks::{d_axis_applies, label, p_hat_axis_applies};
use super::{DispatchKind, PolicyKind, SpannedManifest, Split, UpdateKind};
use crate::diag::ManifestError;
use crate::plan::{Plan, PlannedPoint, Replications, Target, same_axes};
use lb_core::slotted::{
    Granularity, LedDispatch, LedUpdate, PolicyConfig, RunLength, SlottedConfig, SystemConfig,
    TieBreak, WarmupRule,
};
use lb_model::config::PointConfig;
use lb_model::key::{Key, sha256};
use lb_model::model::{Model, Profile};
use lb_model::point::Point;
use lb_model::slotted::calibrate::{Calibration, CalibrationTarget};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::BTreeMap;

/// The resolved run settings of a profile.
#[derive(Debug, Clone)]
struct Settings {
    run: RunLength,
    replications: Replications,
    pilot: RunLength,
    pilot_replications: u32,
    iterations: u32,
    rel_tol: f64,
}

/// The run settings of a profile at one combination of the axes (a run
/// length may follow a sweep axis).
fn settings(
    l: &SpannedManifest,
    profile: Profile,
    combo: &Combo,
) -> Result<Settings, ManifestError> {
    let m = l.m;
    let r = &m.run;
    let batches = r.batches.unwrap_or(64);
    let full_reps = Replications::from_run(r.replications, r.precision.as_ref());
    let c = &m.calibration;
    let x = |len: &crate::model::length::Length| {
        len.axis()
            .and_then(|a| combo.get(a).and_then(|(_, v)| v.number()))
    };
    let (slots, warmup) = (r.slots.at(x(&r.slots)), r.warmup.at(x(&r.warmup)));
    let pilot_slots = c.slots.unwrap_or(slots.min(20_000));
    let pilot_warmup = c.warmup.unwrap_or(pilot_slots / 10);
    let pilot_reps = c.replications.unwrap_or(2);
    let iterations = c.iterations.unwrap_or(12);
    let rel_tol = c.rel_tol.unwrap_or(0.01);
    let scale = |slots: u64, warmup: u64, q: Option<u64>| {
        let s = q.unwrap_or((slots / 20).max(slots.min(1_000)));
        (s, (warmup as u128 * s as u128 / slots as u128) as u64)
    };
    let s = match profile {
        Profile::Full => Settings {
            run: RunLength {
                slots,
                warmup,
                batches,
                warmup_rule: r.warmup_rule,
                advance: r.advance,
                preference: r.preference,
                estimation: r.estimation,
            },
            replications: full_reps,
            pilot: RunLength {
                slots: pilot_slots,
                warmup: pilot_warmup,
                batches,
                warmup_rule: WarmupRule::Fixed,
                advance: Default::default(),
                preference: false,
                estimation: false,
            },
            pilot_replications: pilot_reps,
            iterations,
            rel_tol,
        },
        Profile::Quick => {
            let q = &m.quick;
            let (slots, w) = scale(slots, warmup, q.slots);
            let warmup = q.warmup.unwrap_or(w);
            let reps = q.replications.unwrap_or(match full_reps {
                Replications::Fixed(n) => n.min(2),
                Replications::Precision(ref p) => p.min.min(2),
            });
            let (ps, pw) = scale(pilot_slots, pilot_warmup, q.pilot_slots);
            let window = |s: u64, w: u64| s.saturating_sub(w);
            if window(slots, warmup) < 6 || window(ps, pw) < 6 {
                return Err(l.error(
                    "quick.slots",
                    "the quick run lengths leave fewer than 6 measured slots; \
                     set [quick] slots and warmup",
                ));
            }
            Settings {
                run: RunLength {
                    slots,
                    warmup,
                    batches: batches.min(window(slots, warmup) as u32).max(6),
                    warmup_rule: r.warmup_rule,
                    advance: r.advance,
                    preference: r.preference,
                    estimation: r.estimation,
                },
                replications: Replications::Fixed(reps),
                pilot: RunLength {
                    slots: ps,
                    warmup: pw,
                    batches: batches.min(window(ps, pw) as u32).max(6),
                    warmup_rule: WarmupRule::Fixed,
                    advance: Default::default(),
                    preference: false,
                    estimation: false,
                },
                pilot_replications: 1,
                iterations: iterations.min(8),
                rel_tol,
            }
        }
    };
    if s.pilot.slots <= s.pilot.warmup || s.pilot.slots - s.pilot.warmup < s.pilot.batches as u64 {
        return Err(l.error(
            "calibration.slots",
            format!(
                "pilot runs of {} slots with {} warm-up leave too few measured slots for {} \
                 batches",
                s.pilot.slots, s.pilot.warmup, s.pilot.batches
            ),
        ));
    }
    Ok(s)
}

/// One value of a sweep axis.
#[derive(Debug, Clone, Copy, PartialEq)]
enum AxisValue {
    F(f64),
    U(u64),
    G(Granularity),
    B(bool),
}

impl AxisValue {
    /// A numeric axis's value, for a length or a p̂ that follows it.
    fn number(&self) -> Option<f64> {
        match self {
            AxisValue::F(x) => Some(*x),
            AxisValue::U(x) => Some(*x as f64),
            AxisValue::G(_) | AxisValue::B(_) => None,
        }
    }

    fn show(&self) -> String {
        match self {
            AxisValue::F(x) => lb_model::canonical::number_to_string(*x),
            AxisValue::U(x) => x.to_string(),
            AxisValue::G(Granularity::Batch) => "batch".into(),
            AxisValue::G(Granularity::Job) => "job".into(),
            AxisValue::B(b) => b.to_string(),
        }
    }
}

/// The axes present and their values, in expansion order.
fn axes(l: &SpannedManifest) -> Vec<(&'static str, Vec<AxisValue>)> {
    let sw = &l.m.sweep;
    let f = |v: &Option<Vec<f64>>| {
        v.as_ref()
            .map(|v| v.iter().map(|x| AxisValue::F(*x)).collect())
    };
    let u = |v: &Option<Vec<u64>>| {
        v.as_ref()
            .map(|v| v.iter().map(|x| AxisValue::U(*x)).collect())
    };
    let all: [(&'static str, Option<Vec<AxisValue>>); 9] = [
        ("load", f(&sw.load)),
        ("epsilon", f(&sw.epsilon)),
        ("epsilon_frac", f(&sw.epsilon_frac)),
        ("dispatchers", u(&sw.dispatchers)),
        ("servers_count", u(&sw.servers_count)),
        (
            "granularity",
            sw.granularity
                .as_ref()
                .map(|v| v.iter().map(|x| AxisValue::G(*x)).collect()),
        ),
        (
            "count_own",
            sw.count_own
                .as_ref()
                .map(|v| v.iter().map(|x| AxisValue::B(*x)).collect()),
        ),
        ("p_hat", f(&sw.p_hat)),
        ("d", u(&sw.d)),
    ];
    all.into_iter()
        .filter_map(|(n, v)| v.map(|v| (n, v)))
        .collect()
}

/// One combination of axis values: axis name → (index in its list, value).
type Combo = BTreeMap<&'static str, (usize, AxisValue)>;

/// Expands a validated manifest into its points.
pub fn expand(l: &SpannedManifest, profile: Profile) -> Result<Plan, ManifestError> {
    let axes = axes(l);
    let names: Vec<&'static str> = axes.iter().map(|(n, _)| *n).collect();
    let mut plan = Plan::empty(l.file(), &l.m.experiment.name, profile, &names);
    // Rows are (policy label, axis values as shown): a policy that an axis does
    // not apply to appears once per value of the other axes. Two rows may share
    // a key (Pod at d = 2 is Power-of-2); the run computes each key once.
    let mut seen: BTreeMap<(String, Vec<String>), ()> = BTreeMap::new();
    let mut calib_index: BTreeMap<Key, usize> = BTreeMap::new();
    let total: usize = axes.iter().map(|(_, v)| v.len()).product();
    for mut c in 0..total {
        let mut combo = Combo::new();
        for (name, vals) in axes.iter().rev() {
            combo.insert(name, (c % vals.len(), vals[c % vals.len()]));
            c /= vals.len();
        }
        let st = settings(l, profile, &combo)?;
        for i in 0..l.m.policies.len() {
            let point = resolve(l, &combo, i, profile, st.run)?;
            let shown: Vec<String> = names
                .iter()
                .map(|n| {
                    let applies = match *n {
                        "p_hat" => p_hat_axis_applies(l, i),
                        "d" => d_axis_applies(l, i),
                        _ => true,
                    };
                    if applies {
                        combo[n].1.show()
                    } else {
                        "-".into()
                    }
                })
                .collect();
            if seen.insert((label(l, i), shown.clone()), ()).is_some() {
                continue;
            }
            let target = match &l.m.policies[i].budget {
                None => Target::Fixed(point),
                Some(b) => {
                    let mut pilot = point.clone();
                    if let PointConfig::Slotted(c) = &mut pilot.config {
                        c.run = st.pilot;
                    }
                    let target = match (&b.same_as, b.messages_per_arrival) {
                        (Some(other), _) => {
                            let j = (0..l.m.policies.len())
                                .find(|&j| label(l, j) == *other)
                                .expect("validated");
                            CalibrationTarget::SameAs {
                                point: resolve(l, &combo, j, profile, st.pilot)?,
                            }
                        }
                        (None, Some(x)) => CalibrationTarget::MessagesPerArrival { value: x },
                        (None, None) => unreachable!("validated"),
                    };
                    let cal = Calibration::new(
                        pilot,
                        target,
                        st.pilot_replications,
                        st.iterations,
                        st.rel_tol,
                    );
                    let ck = cal.key();
                    let idx = *calib_index.entry(ck).or_insert_with(|| {
                        plan.calibrations.push(cal);
                        plan.calibrations.len() - 1
                    });
                    plan.know_calibration_key(idx, ck);
                    Target::Calibrated {
                        calibration: idx,
                        template: point,
                    }
                }
            };
            plan.points.push(PlannedPoint {
                keys: Default::default(),
                label: label(l, i),
                axes: shown,
                replications: st.replications.clone(),
                target,
            });
        }
    }
    if profile == Profile::Full
        && let Some(spec) = &l.m.run.precision
        && let Some(control) = &spec.control
    {
        with_precision_control(l, &mut plan, control)?;
    }
    Ok(plan)
}

/// Gives each point's precision rule its control variate: the control
/// policy's point at the same axis values on the point's own system
/// ([`crate::claim::Control::partner`], as claims pair), its key and exact
/// mean. The control's own points keep the plain rule.
fn with_precision_control(
    l: &SpannedManifest,
    plan: &mut Plan,
    spec: &crate::experiment::PrecisionControl,
) -> Result<(), ManifestError> {
    let at = "run.precision.control";
    let control = crate::claim::Control {
        policy: spec.policy.clone(),
        mean: spec.mean.clone(),
        beta: crate::claim::Beta::Fitted,
    };
    fn fixed(q: &PlannedPoint) -> Option<&Point> {
        match &q.target {
            Target::Fixed(p) => Some(p),
            Target::Calibrated { .. } => None,
        }
    }
    let mut resolved = Vec::with_capacity(plan.points.len());
    for pp in &plan.points {
        let Replications::Precision(rule) = &pp.replications else {
            resolved.push(None);
            continue;
        };
        let here = plan.points.iter().filter(|q| {
            same_axes(
                pp.axes.iter().map(String::as_str),
                q.axes.iter().map(String::as_str),
            )
        });
        let system = pp.point().seeds().system;
        let Some(partner) = control.partner(here, |q| q.label.as_str(), fixed, system) else {
            return Err(l.error(
                &format!("{at}.policy"),
                format!(
                    "no policy labelled \"{}\" at {} (the control must be a [[policy]] of this \
                     manifest)",
                    spec.policy,
                    crate::plan::axes_words(
                        plan.axes
                            .iter()
                            .copied()
                            .zip(pp.axes.iter().map(String::as_str))
                    )
                ),
            ));
        };
        let Some(cp) = fixed(partner) else {
            return Err(l.error(
                &format!("{at}.policy"),
                format!(
                    "the control \"{}\" has a calibrated p̂, so its key is not known before it \
                     runs; name a policy without a message budget",
                    partner.label
                ),
            ));
        };
        let control_key = partner.keys.point(None, cp);
        if control_key == pp.keys.point(None, pp.point()) || pp.label == partner.label {
            resolved.push(None);
            continue;
        }
        if cp.seeds().system != system {
            return Err(l.error(
                &format!("{at}.policy"),
                format!(
                    "{} runs on another system than {} (other arrivals and service), so their \
                     replications do not pair; give {} a control of its own dispatchers",
                    partner.label, pp.label, pp.label
                ),
            ));
        }
        let exact = cp
            .config
            .exact_mean(&rule.metric.0, &spec.mean)
            .map_err(|e| l.error(&format!("{at}.mean"), e))?;
        resolved.push(Some(lb_model::precision::RuleControl {
            key: control_key.hex(),
            mean: spec.mean.clone(),
            exact,
        }));
    }
    let controls: Vec<String> = resolved.iter().flatten().map(|c| c.key.clone()).collect();
    for (pp, c) in plan.points.iter_mut().zip(resolved) {
        if let (Replications::Precision(rule), Some(c)) = (&mut pp.replications, c) {
            rule.control = Some(c);
        }
    }
    // A control point that no figure draws is read at the rule's precision
    // by nothing but the points it controls, which ask for the replications
    // their intervals pair with: its own rule stops at its first stage.
    let drawn = |label: &str| {
        l.m.figures
            .iter()
            .any(|f| f.policies.is_empty() || f.policies.iter().any(|p| p == label))
    };
    for pp in &mut plan.points {
        let key = match &pp.target {
            Target::Fixed(p) => pp.keys.point(None, p).hex(),
            Target::Calibrated { .. } => continue,
        };
        if let Replications::Precision(rule) = &mut pp.replications
            && rule.procedure == lb_model::precision::Procedure::Stein
            && rule.control.is_none()
            && controls.contains(&key)
            && !drawn(&pp.label)
        {
            rule.control_only = true;
        }
    }
    Ok(())
}

/// Where the load of a combination comes from: (path, how λ_Σ follows from μ_Σ).
fn load_source(l: &SpannedManifest, combo: &Combo) -> (String, LoadRule) {
    let s = &l.m.system;
    if let Some(x) = s.load {
        return ("system.load".into(), LoadRule::Load(x));
    }
    if let Some(x) = s.epsilon {
        return ("system.epsilon".into(), LoadRule::Epsilon(x));
    }
    if let Some(x) = s.epsilon_frac {
        return ("system.epsilon_frac".into(), LoadRule::Load(1.0 - x));
    }
    for (axis, mk) in [
        ("load", LoadRule::Load as fn(f64) -> LoadRule),
        ("epsilon", LoadRule::Epsilon),
        ("epsilon_frac", |x| LoadRule::Load(1.0 - x)),
    ] {
        if let Some((i, AxisValue::F(x))) = combo.get(axis) {
            return (format!("sweep.{axis}[{i}]"), mk(*x));
        }
    }
    unreachable!("validated: exactly one load source")
}

#[derive(Debug, Clone, Copy)]
enum LoadRule {
    Load(f64),
    Epsilon(f64),
}

/// The service rates μ_n, and the key path that gave N.
fn service_rates(l: &SpannedManifest, combo: &Combo) -> Vec<f64> {
    let sv = &l.m.system.servers;
    if let Some(classes) = &sv.classes {
        return classes
            .iter()
            .flat_map(|c| std::iter::repeat_n(c.rate, c.count as usize))
            .collect();
    }
    if let Some(rates) = &sv.rates {
        return rates.clone();
    }
    let n = match combo.get("servers_count") {
        Some((_, AxisValue::U(n))) => *n,
        _ => sv.count.expect("validated"),
    } as usize;
    if let Some(r) = sv.rate {
        return vec![r; n];
    }
    let [a, b] = sv.uniform.expect("validated: one server form");
    uniform_rates(l.m.run.seed, a, b, n)
}

/// N rates i.i.d. uniform on [a, b], drawn once from the master seed with a
/// ChaCha8 stream keyed by (seed, a, b): a larger N extends a smaller one.
pub fn uniform_rates(seed: u64, a: f64, b: f64, n: usize) -> Vec<f64> {
    #[derive(Serialize)]
    struct Draw {
        draw: &'static str,
        seed: u64,
        a: f64,
        b: f64,
    }
    let k = Key::of(&Draw {
        draw: "server_rates_uniform",
        seed,
        a,
        b,
    })
    .expect("finite");
    let mut rng = ChaCha8Rng::from_seed(sha256(&k.0));
    (0..n)
        .map(|_| {
            let u = (rng.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0);
            a + (b - a) * u
        })
        .collect()
}

/// Resolves policy `i` at a combination into a point with run length `run`.
fn resolve(
    l: &SpannedManifest,
    combo: &Combo,
    i: usize,
    profile: Profile,
    run: RunLength,
) -> Result<Point, ManifestError> {
    let m = l.m;
    let s = &m.system;
    let p = &m.policies[i];
    let system = system_at(l, combo, i, &run)?;
    let policy = policy_at(l, combo, i, system.service.len())?;
    let granularity = match (p.granularity, combo.get("granularity")) {
        (Some(g), _) => g,
        (None, Some((_, AxisValue::G(g)))) => *g,
        _ => s.granularity.unwrap_or_default(),
    };
    let count_own = match combo.get("count_own") {
        Some((_, AxisValue::B(b))) => *b,
        _ => s.count_own.unwrap_or(true),
    };
    // The law's spelling: a setting the policy does not read takes one value,
    // so that its points at both values share one record.
    let config = SlottedConfig {
        system,
        policy,
        granularity,
        count_own,
        run,
    }
    .canonical();
    config.validate().map_err(|e| {
        l.error(
            &format!("policy[{i}].spec"),
            format!("the resolved point is invalid: {e}"),
        )
    })?;
    Ok(Point {
        model: Model::Slotted,
        model_version: Model::Slotted.version(),
        profile,
        seed: m.run.seed,
        config: PointConfig::Slotted(config),
    })
}

/// The system at `combo` for policy `i` (whose own `dispatchers` wins over
/// the axis and `[system]`): the servers' laws S_n from their rates, and
/// the dispatchers' arrival laws A_m from λ_Σ split by their weights.
fn system_at(
    l: &SpannedManifest,
    combo: &Combo,
    i: usize,
    run: &RunLength,
) -> Result<SystemConfig, ManifestError> {
    let s = &l.m.system;
    let p = &l.m.policies[i];

    // M: the policy's override, else the axis, else [system].
    let (m_path, dispatchers) = match (p.dispatchers, combo.get("dispatchers")) {
        (Some(x), _) => (format!("policy[{i}].dispatchers"), x),
        (None, Some((k, AxisValue::U(x)))) => (format!("sweep.dispatchers[{k}]"), *x),
        _ => (
            "system.dispatchers".into(),
            s.dispatchers.expect("validated"),
        ),
    };
    let rates = service_rates(l, combo);
    let service = rates
        .iter()
        .enumerate()
        .map(|(k, r)| {
            s.service
                .with_mean(*r)
                .map_err(|e| l.error("system.servers", format!("server {k}: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mu_sum: f64 = rates.iter().sum();
    if mu_sum <= 0.0 {
        return Err(l.error(
            "system.servers",
            "the total service rate μ_Σ is 0: at least one server needs a rate > 0",
        ));
    }
    let (load_path, rule) = load_source(l, combo);
    let lambda = match rule {
        LoadRule::Load(rho) => rho * mu_sum,
        LoadRule::Epsilon(eps) => mu_sum - eps,
    };
    if lambda <= 0.0 {
        return Err(l.error(
            &load_path,
            format!("gives λ_Σ = {lambda} ≤ 0 with μ_Σ = {mu_sum}; ε must be below μ_Σ"),
        ));
    }
    let per_dispatcher = lambda / dispatchers as f64;
    if per_dispatcher > lb_model::limits::MAX_JOBS_PER_SLOT
        || lambda * run.slots as f64 > lb_model::limits::MAX_JOBS_PER_RUN
    {
        return Err(l.error(
            &load_path,
            format!(
                "gives λ_Σ = {lambda:e} jobs a slot ({per_dispatcher:e} per dispatcher, {:e} in \
                 a run of {} slots), beyond lb's limits of {:e} jobs a slot per dispatcher and \
                 {:e} jobs a run (see \"Limits\" in experiments/README.md)",
                lambda * run.slots as f64,
                run.slots,
                lb_model::limits::MAX_JOBS_PER_SLOT,
                lb_model::limits::MAX_JOBS_PER_RUN
            ),
        ));
    }
    let weights: Vec<f64> = match &s.split {
        Split::Equal => vec![1.0; dispatchers as usize],
        Split::Weights(w) => {
            if w.len() as u64 != dispatchers {
                return Err(l.error(
                    "system.split.weights",
                    format!(
                        "{} weights for M = {dispatchers} dispatchers (from {m_path}); give one \
                         weight per dispatcher",
                        w.len()
                    ),
                ));
            }
            w.clone()
        }
    };
    let wsum: f64 = weights.iter().sum();
    let arrivals = weights
        .iter()
        .map(|w| {
            let mean = lambda * w / wsum;
            s.arrivals.with_mean(mean).map_err(|e| {
                l.error(
                    &load_path,
                    format!(
                        "arrivals at this load: {e} (λ_Σ = {lambda} over M = {dispatchers} \
                         dispatchers); choose another arrival law, a lower load or more \
                         dispatchers"
                    ),
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SystemConfig { arrivals, service })
}

/// Policy `i` at `combo` on `n` servers: its parameters from the policy's
/// own keys, else the sweep's `d` and `p_hat` axes, else the defaults; d is
/// checked against N where it is resolved, located at the key that set it.
fn policy_at(
    l: &SpannedManifest,
    combo: &Combo,
    i: usize,
    n: usize,
) -> Result<PolicyConfig, ManifestError> {
    let p = &l.m.policies[i];
    let at = |k: &str| format!("policy[{i}].{k}");
    let kind = PolicyKind::parse(&p.spec).expect("validated");
    let tie_break = p.tie_break.unwrap_or(TieBreak::Random);
    let (d_path, d_axis) = match combo.get("d") {
        Some((k, AxisValue::U(x))) if d_axis_applies(l, i) => (format!("sweep.d[{k}]"), Some(*x)),
        _ => (at("d"), None),
    };
    let check_d = |path: &str, d: u64| {
        if d as usize > n {
            Err(l.error(
                path,
                format!("d = {d} exceeds N = {n} servers; d must lie in 1..={n}"),
            ))
        } else {
            Ok(d as usize)
        }
    };
    let p_hat = match (&p.p_hat, combo.get("p_hat")) {
        (Some(x), _) => x.at(x
            .axis()
            .and_then(|a| combo.get(a).and_then(|(_, v)| v.number()))),
        (None, Some((_, AxisValue::F(x)))) if p_hat_axis_applies(l, i) => *x,
        // A budget's p̂ is set by its calibration: 0 stands in until then.
        _ => 0.0,
    };
    Ok(match kind {
        PolicyKind::Jsq => PolicyConfig::Jsq { tie_break },
        PolicyKind::Pod(fixed) => {
            let d = p.d.or(fixed).or(d_axis).unwrap_or(2);
            let path = if p.d.is_none() && fixed.is_some() {
                at("spec")
            } else if p.d.is_none() && d_axis.is_some() {
                d_path.clone()
            } else {
                at("d")
            };
            PolicyConfig::Pod {
                d: check_d(&path, d)?,
                tie_break,
            }
        }
        PolicyKind::Jiq => PolicyConfig::Jiq,
        PolicyKind::JiqSpread => PolicyConfig::JiqSpread {
            revision: lb_core::slotted::JIQ_SPREAD_REVISION,
        },
        PolicyKind::Led(DispatchKind::Lsq, _) => {
            // LSQ: its d is the Push sample size, as for L-JSQ-Push.
            let (path, d) = match (p.push_d, p.d.or(d_axis)) {
                (Some(x), _) => (at("push_d"), x),
                (None, d) => (
                    if p.d.is_some() {
                        at("d")
                    } else {
                        d_path.clone()
                    },
                    d.unwrap_or(1),
                ),
            };
            PolicyConfig::Lsq {
                d: check_d(&path, d)?,
                p_hat,
                when: p.push_when.unwrap_or_default(),
                tie_break,
                revision: lb_core::slotted::LSQ_REVISION,
            }
        }
        PolicyKind::WeightedRandom => PolicyConfig::WeightedRandom,
        PolicyKind::Random => PolicyConfig::Random,
        PolicyKind::Pooled => PolicyConfig::Pooled,
        PolicyKind::Led(dk, uk) => {
            let pod = dk == DispatchKind::LPod;
            let d_here = p.d.or(d_axis);
            let d_here_path = if p.d.is_some() {
                at("d")
            } else {
                d_path.clone()
            };
            let dispatch = match dk {
                DispatchKind::LJsq => LedDispatch::LJsq,
                DispatchKind::LJba => LedDispatch::LJba,
                DispatchKind::LPod => LedDispatch::LPod {
                    d: check_d(&d_here_path, d_here.unwrap_or(2))?,
                },
                DispatchKind::Lsq => unreachable!("LSQ is resolved above"),
            };
            let update = match uk {
                UpdateKind::Pull => LedUpdate::Pull { p_hat },
                UpdateKind::Push => {
                    let (path, d) = if pod {
                        (at("push_d"), p.push_d.unwrap_or(1))
                    } else if let Some(x) = p.push_d {
                        (at("push_d"), x)
                    } else {
                        (d_here_path.clone(), d_here.unwrap_or(1))
                    };
                    LedUpdate::push(
                        check_d(&path, d)?,
                        p_hat,
                        p.push_when.unwrap_or_default(),
                        n,
                    )
                }
            };
            PolicyConfig::Led {
                dispatch,
                update,
                tie_break,
            }
        }
    })
}
