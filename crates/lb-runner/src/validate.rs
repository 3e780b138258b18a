//! The manifest's static checks: everything that does not depend on the
//! sweep (which [`crate::expand`] checks per point). Each error names the key
//! path and what is allowed.

use crate::diag::{ManifestError, did_you_mean};
use crate::manifest::{
    AXES, Loaded, POLICY_NAMES, PolicyKind, PrecisionSpec, Split, SweepSpec, UpdateKind,
};
use crate::outputs::{ClaimKind, METRICS, REFERENCES, Reference};
use crate::point::Model;
use std::collections::BTreeSet;

type R = Result<(), ManifestError>;

/// Runs every static check of a parsed manifest.
pub fn validate(l: &Loaded) -> R {
    experiment(l)?;
    if l.many().is_some() {
        crate::many_manifest::validate(l)?;
        figures(l)?;
        return claims(l);
    }
    system(l)?;
    sweep(l)?;
    policies(l)?;
    run(l)?;
    figures(l)?;
    claims(l)
}

fn is_prob(p: f64) -> bool {
    (0.0..=1.0).contains(&p)
}

fn experiment(l: &Loaded) -> R {
    let e = l.experiment();
    if e.name.is_empty()
        || !e
            .name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    {
        return Err(l.error(
            "experiment.name",
            format!(
                "\"{}\" is not allowed: use lower-case letters, digits, '-' and '_' only \
                 (it names output files)",
                e.name
            ),
        ));
    }
    if e.title.trim().is_empty() {
        return Err(l.error("experiment.title", "must not be empty"));
    }
    Ok(())
}

fn system(l: &Loaded) -> R {
    let m = l.slotted();
    let s = &m.system;
    let sw = &m.sweep;
    match (s.dispatchers, &sw.dispatchers) {
        (Some(_), Some(_)) => {
            return Err(l.error(
                "sweep.dispatchers",
                "M is given both in [system] and as a sweep axis; keep one",
            ));
        }
        (None, None) => {
            return Err(l.error(
                "system.dispatchers",
                "required: the number of dispatchers M ≥ 1 (or a `sweep.dispatchers` axis)",
            ));
        }
        (Some(0), _) => return Err(l.error("system.dispatchers", "M must be ≥ 1, got 0")),
        _ => {}
    }
    servers(l)?;

    // Exactly one of load, epsilon, epsilon_frac, in [system] or [sweep].
    let given: Vec<&str> = [
        ("system.load", s.load.is_some()),
        ("system.epsilon", s.epsilon.is_some()),
        ("system.epsilon_frac", s.epsilon_frac.is_some()),
        ("sweep.load", sw.load.is_some()),
        ("sweep.epsilon", sw.epsilon.is_some()),
        ("sweep.epsilon_frac", sw.epsilon_frac.is_some()),
    ]
    .into_iter()
    .filter_map(|(k, b)| b.then_some(k))
    .collect();
    match given.len() {
        0 => {
            return Err(l.error(
                "system.load",
                "required: exactly one of load (ρ = λ_Σ/μ_Σ), epsilon (ε = μ_Σ − λ_Σ) or \
                 epsilon_frac (ε/μ_Σ), in [system] or as a [sweep] axis",
            ));
        }
        1 => {}
        _ => {
            return Err(l.error(
                given[1],
                format!(
                    "the load is given more than once ({}); keep exactly one of load, \
                     epsilon, epsilon_frac",
                    given.join(", ")
                ),
            ));
        }
    }
    if let Some(x) = s.load {
        load_value(l, "system.load", x)?;
    }
    if let Some(x) = s.epsilon {
        epsilon_value(l, "system.epsilon", x)?;
    }
    if let Some(x) = s.epsilon_frac {
        epsilon_frac_value(l, "system.epsilon_frac", x)?;
    }
    if s.granularity.is_some() && sw.granularity.is_some() {
        return Err(l.error(
            "sweep.granularity",
            "granularity is given both in [system] and as a sweep axis; keep one",
        ));
    }
    if s.count_own.is_some() && sw.count_own.is_some() {
        return Err(l.error(
            "sweep.count_own",
            "count_own is given both in [system] and as a sweep axis; keep one",
        ));
    }
    if let Split::Weights(w) = &s.split {
        if w.is_empty() {
            return Err(l.error("system.split.weights", "needs one weight per dispatcher"));
        }
        for (i, x) in w.iter().enumerate() {
            if !(x.is_finite() && *x >= 0.0) {
                return Err(l.error(
                    &format!("system.split.weights[{i}]"),
                    format!("a weight must be a finite number ≥ 0, got {x}"),
                ));
            }
        }
        if w.iter().sum::<f64>() <= 0.0 {
            return Err(l.error("system.split.weights", "the weights must not all be 0"));
        }
    }
    Ok(())
}

/// ρ must be a positive number, below 1 unless `allow_unstable`.
pub fn load_value(l: &Loaded, path: &str, x: f64) -> R {
    if !(x.is_finite() && x > 0.0) {
        return Err(l.error(path, format!("a load must be a number > 0, got {x}")));
    }
    if x >= 1.0 && !l.slotted().system.allow_unstable {
        return Err(l.error(
            path,
            format!(
                "load {x} ≥ 1 is unstable: use a load in (0, 1), or set \
                 `allow_unstable = true` in [system] to run it anyway"
            ),
        ));
    }
    Ok(())
}

fn epsilon_value(l: &Loaded, path: &str, x: f64) -> R {
    if !x.is_finite() {
        return Err(l.error(path, format!("ε must be a finite number, got {x}")));
    }
    if x <= 0.0 && !l.slotted().system.allow_unstable {
        return Err(l.error(
            path,
            format!(
                "ε = {x} ≤ 0 means load ≥ 1, which is unstable: use ε > 0, or set \
                 `allow_unstable = true` in [system]"
            ),
        ));
    }
    Ok(())
}

fn epsilon_frac_value(l: &Loaded, path: &str, x: f64) -> R {
    if !(x.is_finite() && x < 1.0) {
        return Err(l.error(
            path,
            format!("epsilon_frac = ε/μ_Σ must be below 1 (load > 0), got {x}"),
        ));
    }
    if x <= 0.0 && !l.slotted().system.allow_unstable {
        return Err(l.error(
            path,
            format!(
                "epsilon_frac = {x} ≤ 0 means load ≥ 1, which is unstable: use a value in \
                 (0, 1), or set `allow_unstable = true` in [system]"
            ),
        ));
    }
    Ok(())
}

fn servers(l: &Loaded) -> R {
    let s = &l.slotted().system;
    let sv = &s.servers;
    let swept = l.slotted().sweep.servers_count.is_some();
    let max = s.service.max_mean();
    let rate_ok = |path: &str, r: f64| -> R {
        if !(r.is_finite() && r >= 0.0) {
            return Err(l.error(
                path,
                format!("a service rate must be a finite number ≥ 0, got {r}"),
            ));
        }
        if let Some(mx) = max
            && r > mx
        {
            return Err(l.error(
                path,
                format!("this service law needs a rate in [0, {mx}], got {r}"),
            ));
        }
        Ok(())
    };
    let forms = [
        sv.classes.is_some(),
        sv.rates.is_some(),
        sv.rate.is_some(),
        sv.uniform.is_some(),
    ];
    let one_of = "give exactly one of: classes = [{ count, rate }, …]; rates = [μ_1, …]; \
                  count = N with rate = μ; count = N with uniform = [a, b]";
    if forms.iter().filter(|b| **b).count() != 1 {
        return Err(l.error("system.servers", one_of));
    }
    if let Some(classes) = &sv.classes {
        if sv.count.is_some() {
            return Err(l.error(
                "system.servers.count",
                format!("not with classes; {one_of}"),
            ));
        }
        if classes.is_empty() {
            return Err(l.error("system.servers.classes", "needs at least one class"));
        }
        for (i, c) in classes.iter().enumerate() {
            if c.count == 0 {
                return Err(l.error(
                    &format!("system.servers.classes[{i}].count"),
                    "a class needs count ≥ 1",
                ));
            }
            rate_ok(&format!("system.servers.classes[{i}].rate"), c.rate)?;
        }
    }
    if let Some(rates) = &sv.rates {
        if sv.count.is_some() {
            return Err(l.error("system.servers.count", format!("not with rates; {one_of}")));
        }
        if rates.is_empty() {
            return Err(l.error("system.servers.rates", "needs at least one server"));
        }
        for (i, r) in rates.iter().enumerate() {
            rate_ok(&format!("system.servers.rates[{i}]"), *r)?;
        }
    }
    if sv.rate.is_some() || sv.uniform.is_some() {
        match (sv.count, swept) {
            (Some(_), true) => {
                return Err(l.error(
                    "sweep.servers_count",
                    "N is given both as system.servers.count and as a sweep axis; keep one",
                ));
            }
            (None, false) => {
                return Err(l.error(
                    "system.servers.count",
                    "required with `rate` or `uniform`: the number of servers N ≥ 1 \
                     (or a `sweep.servers_count` axis)",
                ));
            }
            (Some(0), _) => {
                return Err(l.error("system.servers.count", "N must be ≥ 1, got 0"));
            }
            _ => {}
        }
    } else if swept {
        return Err(l.error(
            "sweep.servers_count",
            "applies only to servers given as `count` with `rate` or `uniform`",
        ));
    }
    if let Some(r) = sv.rate {
        rate_ok("system.servers.rate", r)?;
    }
    if let Some([a, b]) = sv.uniform {
        rate_ok("system.servers.uniform[0]", a)?;
        rate_ok("system.servers.uniform[1]", b)?;
        if a > b {
            return Err(l.error(
                "system.servers.uniform",
                format!("[a, b] needs a ≤ b, got [{a}, {b}]"),
            ));
        }
    }
    Ok(())
}

fn sweep(l: &Loaded) -> R {
    let sw = &l.slotted().sweep;
    fn nonempty<T: PartialEq + std::fmt::Debug>(l: &Loaded, axis: &str, v: &Option<Vec<T>>) -> R {
        let Some(v) = v else { return Ok(()) };
        let path = format!("sweep.{axis}");
        if v.is_empty() {
            return Err(l.error(
                &path,
                "an empty sweep axis gives no points: list at least one value, or remove the axis",
            ));
        }
        for (i, x) in v.iter().enumerate() {
            if v[..i].contains(x) {
                return Err(l.error(
                    &format!("{path}[{i}]"),
                    format!("the value {x:?} is listed twice"),
                ));
            }
        }
        Ok(())
    }
    nonempty(l, "load", &sw.load)?;
    nonempty(l, "epsilon", &sw.epsilon)?;
    nonempty(l, "epsilon_frac", &sw.epsilon_frac)?;
    nonempty(l, "dispatchers", &sw.dispatchers)?;
    nonempty(l, "servers_count", &sw.servers_count)?;
    nonempty(l, "granularity", &sw.granularity)?;
    nonempty(l, "count_own", &sw.count_own)?;
    nonempty(l, "p_hat", &sw.p_hat)?;
    nonempty(l, "d", &sw.d)?;
    for (i, x) in sw.load.iter().flatten().enumerate() {
        load_value(l, &format!("sweep.load[{i}]"), *x)?;
    }
    for (i, x) in sw.epsilon.iter().flatten().enumerate() {
        epsilon_value(l, &format!("sweep.epsilon[{i}]"), *x)?;
    }
    for (i, x) in sw.epsilon_frac.iter().flatten().enumerate() {
        epsilon_frac_value(l, &format!("sweep.epsilon_frac[{i}]"), *x)?;
    }
    for (i, x) in sw.dispatchers.iter().flatten().enumerate() {
        if *x == 0 {
            return Err(l.error(&format!("sweep.dispatchers[{i}]"), "M must be ≥ 1, got 0"));
        }
    }
    for (i, x) in sw.servers_count.iter().flatten().enumerate() {
        if *x == 0 {
            return Err(l.error(&format!("sweep.servers_count[{i}]"), "N must be ≥ 1, got 0"));
        }
    }
    for (i, x) in sw.p_hat.iter().flatten().enumerate() {
        if !is_prob(*x) {
            return Err(l.error(
                &format!("sweep.p_hat[{i}]"),
                format!("p̂ is a probability: it must lie in [0, 1], got {x}"),
            ));
        }
    }
    for (i, x) in sw.d.iter().flatten().enumerate() {
        if *x == 0 {
            return Err(l.error(&format!("sweep.d[{i}]"), "d must be ≥ 1, got 0"));
        }
    }
    Ok(())
}

/// Whether `sweep.p_hat` applies to policy `i`: LED, with neither its own
/// p_hat nor a budget.
pub fn p_hat_axis_applies(l: &Loaded, i: usize) -> bool {
    let p = &l.slotted().policies[i];
    l.slotted().sweep.p_hat.is_some()
        && PolicyKind::parse(&p.spec).is_some_and(|k| k.is_led())
        && p.p_hat.is_none()
        && p.budget.is_none()
}

/// Whether `sweep.d` applies to policy `i`: it has a `d` and sets none itself.
pub fn d_axis_applies(l: &Loaded, i: usize) -> bool {
    let p = &l.slotted().policies[i];
    l.slotted().sweep.d.is_some()
        && PolicyKind::parse(&p.spec)
            .is_some_and(|k| k.has_d() && !matches!(k, PolicyKind::Pod(Some(_))))
        && p.d.is_none()
}

/// The label of policy `i`: its `label`, else its name.
pub fn label(l: &Loaded, i: usize) -> String {
    let p = &l.slotted().policies[i];
    p.label.clone().unwrap_or_else(|| p.spec.trim().to_string())
}

fn policies(l: &Loaded) -> R {
    let ps = &l.slotted().policies;
    if ps.is_empty() {
        return Err(l.error("policy", "at least one [[policy]] is needed"));
    }
    let mut labels = BTreeSet::new();
    for (i, p) in ps.iter().enumerate() {
        let at = |k: &str| format!("policy[{i}].{k}");
        let Some(kind) = PolicyKind::parse(&p.spec) else {
            let names: Vec<&str> = POLICY_NAMES.to_vec();
            let hint = did_you_mean(&p.spec, &names)
                .map(|s| format!("did you mean \"{s}\"? "))
                .unwrap_or_default();
            return Err(l.error(
                &at("spec"),
                format!(
                    "unknown policy \"{}\"; {hint}valid names: {}",
                    p.spec,
                    POLICY_NAMES.join(", ")
                ),
            ));
        };
        let lab = label(l, i);
        if !labels.insert(lab.clone()) {
            return Err(l.error(
                &at(if p.label.is_some() { "label" } else { "spec" }),
                format!("the label \"{lab}\" is used twice; give each policy a distinct `label`"),
            ));
        }
        let name = p.spec.trim();
        let push = matches!(kind, PolicyKind::Led(_, UpdateKind::Push));
        if let Some(d) = p.d {
            if !kind.has_d() {
                return Err(l.error(
                    &at("d"),
                    format!("{name} has no d (only Power-of-d, L-Pod-* and *-Push do)"),
                ));
            }
            if d == 0 {
                return Err(l.error(&at("d"), "d must be ≥ 1, got 0"));
            }
            if let PolicyKind::Pod(Some(k)) = kind
                && k != d
            {
                return Err(l.error(
                    &at("d"),
                    format!("the name {name} already fixes d = {k}; remove d or use \"Pod\""),
                ));
            }
        }
        if let Some(d) = p.push_d {
            if !push {
                return Err(l.error(
                    &at("push_d"),
                    format!("{name} has no Push update; push_d applies to *-Push policies"),
                ));
            }
            if d == 0 {
                return Err(l.error(&at("push_d"), "push_d must be ≥ 1, got 0"));
            }
            if !matches!(
                kind,
                PolicyKind::Led(crate::manifest::DispatchKind::LPod, _)
            ) && p.d.is_some()
            {
                return Err(l.error(
                    &at("push_d"),
                    format!("for {name}, d already is the Push sample size; give one of d, push_d"),
                ));
            }
        }
        if p.push_when.is_some() && !push {
            return Err(l.error(
                &at("push_when"),
                format!("{name} has no Push update; push_when applies to *-Push policies"),
            ));
        }
        if p.tie_break.is_some() && !kind.has_tie_break() {
            return Err(l.error(
                &at("tie_break"),
                format!("{name} breaks no ties; tie_break applies to JSQ, Power-of-d and LED"),
            ));
        }
        if let Some(x) = p.p_hat {
            if !kind.is_led() {
                return Err(l.error(
                    &at("p_hat"),
                    format!("{name} has no update probability; p_hat applies to LED policies"),
                ));
            }
            if !is_prob(x) {
                return Err(l.error(
                    &at("p_hat"),
                    format!("p̂ is a probability: it must lie in [0, 1], got {x}"),
                ));
            }
        }
        if let Some(m) = p.dispatchers
            && m == 0
        {
            return Err(l.error(&at("dispatchers"), "M must be ≥ 1, got 0"));
        }
        if let Some(b) = &p.budget {
            if !kind.is_led() {
                return Err(l.error(
                    &at("budget"),
                    format!("{name} has no p̂ to calibrate; a budget applies to LED policies"),
                ));
            }
            if p.p_hat.is_some() {
                return Err(l.error(
                    &at("budget"),
                    "a budget calibrates p̂: remove `p_hat` or the budget",
                ));
            }
            match (&b.same_as, b.messages_per_arrival) {
                (Some(other), None) => {
                    let j = (0..ps.len()).find(|&j| label(l, j) == *other);
                    match j {
                        None => {
                            let all: Vec<String> = (0..ps.len()).map(|j| label(l, j)).collect();
                            return Err(l.error(
                                &at("budget.same_as"),
                                format!(
                                    "no policy is labelled \"{other}\"; labels: {}",
                                    all.join(", ")
                                ),
                            ));
                        }
                        Some(j) if j == i || ps[j].budget.is_some() => {
                            return Err(l.error(
                                &at("budget.same_as"),
                                format!(
                                    "\"{other}\" has a budget itself; name a policy with a \
                                     fixed configuration"
                                ),
                            ));
                        }
                        _ => {}
                    }
                }
                (None, Some(x)) => {
                    if !(x.is_finite() && x > 0.0) {
                        return Err(l.error(
                            &at("budget.messages_per_arrival"),
                            format!("must be a number > 0, got {x}"),
                        ));
                    }
                }
                _ => {
                    return Err(l.error(
                        &at("budget"),
                        "give exactly one of same_as = \"<policy label>\" or \
                         messages_per_arrival = <number>",
                    ));
                }
            }
        }
        if kind.is_led() && p.p_hat.is_none() && p.budget.is_none() && !p_hat_axis_applies(l, i) {
            return Err(l.error(
                &at("p_hat"),
                format!(
                    "{name} needs an update probability: p_hat in [0, 1], a `budget`, or a \
                     `sweep.p_hat` axis"
                ),
            ));
        }
    }
    let sw = &l.slotted().sweep;
    if sw.p_hat.is_some() && !(0..ps.len()).any(|i| p_hat_axis_applies(l, i)) {
        return Err(l.error(
            "sweep.p_hat",
            "applies to no policy (only LED policies without their own p_hat or budget)",
        ));
    }
    if sw.d.is_some() && !(0..ps.len()).any(|i| d_axis_applies(l, i)) {
        return Err(l.error(
            "sweep.d",
            "applies to no policy (only Pod, L-Pod-* and *-Push policies without their own d)",
        ));
    }
    Ok(())
}

/// `run.replications` or `run.precision`, exactly one, in range, and a
/// precision metric that the model's summaries define — for both models.
pub(crate) fn replications(
    l: &Loaded,
    replications: Option<u32>,
    precision: Option<&PrecisionSpec>,
    model: Model,
) -> R {
    match (replications, precision) {
        (Some(_), Some(_)) | (None, None) => Err(l.error(
            "run.replications",
            "give exactly one of replications = K or precision = { rel_half_width, min, max }",
        )),
        (Some(0), None) => Err(l.error("run.replications", "must be ≥ 1, got 0")),
        (Some(_), None) => Ok(()),
        (None, Some(p)) => {
            if !p.metric.applies_to(model) {
                return Err(l.error(
                    "run.precision.metric",
                    format!(
                        "`{}` is not a metric of the {} model; it has {}",
                        serde_json::to_value(p.metric)
                            .ok()
                            .and_then(|v| v.as_str().map(str::to_string))
                            .unwrap_or_default(),
                        model.name(),
                        match model {
                            Model::Slotted => {
                                "mean_response, little_response, mean_sum_q, messages_per_arrival, imbalance"
                            }
                            Model::Many => "mean_response, mean_jobs, p_to_busy",
                        }
                    ),
                ));
            }
            if !(p.rel_half_width > 0.0 && p.rel_half_width < 1.0) {
                return Err(l.error(
                    "run.precision.rel_half_width",
                    format!("must lie in (0, 1), got {}", p.rel_half_width),
                ));
            }
            if p.min < 2 {
                return Err(l.error(
                    "run.precision.min",
                    format!("an interval needs at least 2 replications, got {}", p.min),
                ));
            }
            if p.max < p.min {
                return Err(l.error(
                    "run.precision.max",
                    format!("max ({}) must be ≥ min ({})", p.max, p.min),
                ));
            }
            if p.step == Some(0) {
                return Err(l.error("run.precision.step", "must be ≥ 1, got 0"));
            }
            Ok(())
        }
    }
}

fn run(l: &Loaded) -> R {
    let r = &l.slotted().run;
    if r.slots <= r.warmup {
        return Err(l.error(
            "run.slots",
            format!(
                "slots ({}) must exceed warmup ({}): slots counts the warm-up too",
                r.slots, r.warmup
            ),
        ));
    }
    if let Some(b) = r.batches
        && (b < 6 || b as u64 > r.slots - r.warmup)
    {
        return Err(l.error(
            "run.batches",
            format!(
                "batches must lie in 6..={} (the measured slots), got {b}",
                r.slots - r.warmup
            ),
        ));
    }
    replications(l, r.replications, r.precision.as_ref(), Model::Slotted)?;
    let q = &l.slotted().quick;
    if q.replications == Some(0) {
        return Err(l.error("quick.replications", "must be ≥ 1, got 0"));
    }
    if let (Some(s), Some(w)) = (q.slots, q.warmup)
        && s <= w
    {
        return Err(l.error(
            "quick.slots",
            format!("slots ({s}) must exceed warmup ({w})"),
        ));
    }
    let c = &l.slotted().calibration;
    if let (Some(s), Some(w)) = (c.slots, c.warmup)
        && s <= w
    {
        return Err(l.error(
            "calibration.slots",
            format!("slots ({s}) must exceed warmup ({w})"),
        ));
    }
    if c.replications == Some(0) {
        return Err(l.error("calibration.replications", "must be ≥ 1, got 0"));
    }
    if let Some(n) = c.iterations
        && !(1..=60).contains(&n)
    {
        return Err(l.error(
            "calibration.iterations",
            format!("must lie in 1..=60, got {n}"),
        ));
    }
    if let Some(t) = c.rel_tol
        && !(t > 0.0 && t < 1.0)
    {
        return Err(l.error(
            "calibration.rel_tol",
            format!("must lie in (0, 1), got {t}"),
        ));
    }
    Ok(())
}

impl SweepSpec {
    /// The sweep axes this manifest sets.
    pub fn present(&self) -> Vec<&'static str> {
        let set = [
            self.load.is_some(),
            self.epsilon.is_some(),
            self.epsilon_frac.is_some(),
            self.dispatchers.is_some(),
            self.servers_count.is_some(),
            self.granularity.is_some(),
            self.count_own.is_some(),
            self.p_hat.is_some(),
            self.d.is_some(),
        ];
        AXES.iter()
            .zip(set)
            .filter(|(_, s)| *s)
            .map(|(a, _)| *a)
            .collect()
    }
}

fn one_of(l: &Loaded, at: &str, what: &str, v: &str, allowed: &[&str]) -> R {
    if allowed.contains(&v) {
        return Ok(());
    }
    let hint = did_you_mean(v, allowed)
        .map(|s| format!("; did you mean \"{s}\"?"))
        .unwrap_or_default();
    Err(l.error(
        at,
        format!(
            "unknown {what} \"{v}\"{hint} (allowed: {})",
            allowed.join(", ")
        ),
    ))
}

fn filter(l: &Loaded, at: &str, f: &crate::outputs::Where, axes: &[&str]) -> R {
    for k in f.keys() {
        one_of(l, &format!("{at}.{k}"), "sweep axis", k, axes)?;
    }
    Ok(())
}

/// The sweep axes a manifest sets, the labels of its policies and the metrics
/// its model's summaries have.
fn names(l: &Loaded) -> (Vec<&'static str>, Vec<String>, &'static [&'static str]) {
    match l.many() {
        Some(m) => (
            m.sweep.present(),
            (0..m.policies.len())
                .map(|i| crate::many_manifest::label(m, i))
                .collect(),
            &crate::outputs::MANY_METRICS,
        ),
        None => (
            l.slotted().sweep.present(),
            (0..l.slotted().policies.len())
                .map(|i| label(l, i))
                .collect(),
            &METRICS,
        ),
    }
}

/// `[[figure]]`: names, axes, metrics and policies must exist.
fn figures(l: &Loaded) -> R {
    let (axes, labels, metrics) = names(l);
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let mut names = BTreeSet::new();
    for (i, f) in l.figures().iter().enumerate() {
        let at = |k: &str| format!("figure[{i}].{k}");
        if f.name.is_empty()
            || !f
                .name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        {
            return Err(l.error(
                &at("name"),
                "use lower-case letters, digits, '-' and '_' (it names files)",
            ));
        }
        if !names.insert(f.name.as_str()) {
            return Err(l.error(
                &at("name"),
                format!("\"{}\" names another figure already", f.name),
            ));
        }
        one_of(l, &at("x"), "sweep axis", &f.x, &axes)?;
        one_of(l, &at("y"), "metric", &f.y, metrics)?;
        for (j, s) in f.series.iter().enumerate() {
            one_of(l, &format!("{}[{j}]", at("series")), "sweep axis", s, &axes)?;
        }
        filter(l, &at("where"), &f.filter, &axes)?;
        for (j, p) in f.policies.iter().enumerate() {
            one_of(
                l,
                &format!("{}[{j}]", at("policies")),
                "policy label",
                p,
                &labels,
            )?;
        }
        if f.caption.trim().is_empty() {
            return Err(l.error(
                &at("caption"),
                "a figure needs a caption naming its setting and assumptions",
            ));
        }
    }
    Ok(())
}

/// `[[claim]]` (SPEC §5): each kind has the keys it needs, and every name
/// it uses exists.
fn claims(l: &Loaded) -> R {
    let (axes, labels, metrics) = names(l);
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let mut ids = BTreeSet::new();
    for (i, c) in l.claims().iter().enumerate() {
        let at = |k: &str| format!("claim[{i}].{k}");
        let need = |k: &str, present: bool| -> R {
            if present {
                Ok(())
            } else {
                Err(l.error(
                    &at(k),
                    format!("a {:?} claim needs `{k}`", c.kind).to_lowercase(),
                ))
            }
        };
        if c.id.trim().is_empty() || !ids.insert(c.id.as_str()) {
            return Err(l.error(&at("id"), "needs a non-empty id, unique in the manifest"));
        }
        for (k, v) in [("statement", &c.statement), ("source", &c.source)] {
            if v.trim().is_empty() {
                return Err(l.error(&at(k), "must be a non-empty string"));
            }
        }
        if let Some(m) = &c.metric {
            one_of(l, &at("metric"), "metric", m, metrics)?;
        }
        filter(l, &at("where"), &c.filter, &axes)?;
        for (j, p) in c.policies.iter().enumerate() {
            one_of(
                l,
                &format!("{}[{j}]", at("policies")),
                "policy label",
                p,
                &labels,
            )?;
        }
        for (k, v) in [("better", &c.better), ("worse", &c.worse)] {
            if let Some(p) = v {
                one_of(l, &at(k), "policy label", p, &labels)?;
            }
        }
        for (k, r) in [("expected", &c.expected), ("bound", &c.bound)] {
            if let Some(Reference::Named(n)) = r {
                one_of(l, &at(k), "reference", n, &REFERENCES)?;
            }
        }
        if let Some(t) = c.tolerance
            && !(t >= 0.0 && t.is_finite())
        {
            return Err(l.error(
                &at("tolerance"),
                format!("a relative tolerance ≥ 0, got {t}"),
            ));
        }
        if let Some(lv) = c.level
            && !(lv > 0.0 && lv < 1.0)
        {
            return Err(l.error(
                &at("level"),
                format!("a confidence level in (0, 1), got {lv}"),
            ));
        }
        match c.kind {
            ClaimKind::Ordering => {
                need("metric", c.metric.is_some())?;
                need("better", c.better.is_some())?;
                need("worse", c.worse.is_some())?;
            }
            ClaimKind::Value => {
                need("metric", c.metric.is_some())?;
                need("policies", !c.policies.is_empty())?;
                need("expected", c.expected.is_some())?;
            }
            ClaimKind::Stability => {
                need("policies", !c.policies.is_empty())?;
                need("stable", c.stable.is_some())?;
            }
            ClaimKind::Bound => {
                need("metric", c.metric.is_some())?;
                need("policies", !c.policies.is_empty())?;
                need("bound", c.bound.is_some())?;
                match c.side.as_deref() {
                    Some("le" | "ge") => {}
                    _ => {
                        return Err(l.error(
                            &at("side"),
                            "a bound claim needs side = \"le\" (metric ≤ bound) or \"ge\"",
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}
