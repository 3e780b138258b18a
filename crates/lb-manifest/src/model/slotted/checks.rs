//! The slotted model's static checks: everything that does not depend on the
//! sweep (which [`super::expansion`] checks per point). Each error names the key
//! path and what is allowed.

// A new policy variant is matched everywhere by name: no wildcard arms.
#![warn(clippy::wildcard_enum_match_arm)]

use super::{AXES, POLICY_NAMES, PolicyKind, SpannedManifest, Split, SweepSpec, UpdateKind};
use crate::diag::{ManifestError, did_you_mean};
use std::collections::BTreeSet;

type R = Result<(), ManifestError>;

/// Runs the slotted model's checks of a parsed manifest.
pub fn validate(l: &SpannedManifest) -> R {
    system(l)?;
    sweep(l)?;
    policies(l)?;
    run(l)?;
    limits(l)
}

fn is_prob(p: f64) -> bool {
    (0.0..=1.0).contains(&p)
}

fn system(l: &SpannedManifest) -> R {
    let m = l.m;
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
pub(crate) fn load_value(l: &SpannedManifest, path: &str, x: f64) -> R {
    if !(x.is_finite() && x > 0.0) {
        return Err(l.error(path, format!("a load must be a number > 0, got {x}")));
    }
    if x >= 1.0 && !l.m.system.allow_unstable {
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

fn epsilon_value(l: &SpannedManifest, path: &str, x: f64) -> R {
    if !x.is_finite() {
        return Err(l.error(path, format!("ε must be a finite number, got {x}")));
    }
    if x <= 0.0 && !l.m.system.allow_unstable {
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

fn epsilon_frac_value(l: &SpannedManifest, path: &str, x: f64) -> R {
    if !(x.is_finite() && x < 1.0) {
        return Err(l.error(
            path,
            format!("epsilon_frac = ε/μ_Σ must be below 1 (load > 0), got {x}"),
        ));
    }
    if x <= 0.0 && !l.m.system.allow_unstable {
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

fn servers(l: &SpannedManifest) -> R {
    let s = &l.m.system;
    let sv = &s.servers;
    let swept = l.m.sweep.servers_count.is_some();
    let max = s.service.max_mean();
    let rate_ok = |path: &str, r: f64| -> R {
        if !(r.is_finite() && r >= 0.0) {
            return Err(l.error(
                path,
                format!("a service rate must be a finite number ≥ 0, got {r}"),
            ));
        }
        if r > lb_model::limits::MAX_JOBS_PER_SLOT {
            return Err(l.error(
                path,
                format!(
                    "a service rate of {r:e} jobs a slot is beyond lb's limit of {:e} (see \
                     \"Limits\" in experiments/README.md)",
                    lb_model::limits::MAX_JOBS_PER_SLOT
                ),
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

fn sweep(l: &SpannedManifest) -> R {
    let sw = &l.m.sweep;
    fn nonempty<T: PartialEq + std::fmt::Debug>(
        l: &SpannedManifest,
        axis: &str,
        v: &Option<Vec<T>>,
    ) -> R {
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
pub(crate) fn p_hat_axis_applies(l: &SpannedManifest, i: usize) -> bool {
    let p = &l.m.policies[i];
    l.m.sweep.p_hat.is_some()
        && PolicyKind::parse(&p.spec).is_some_and(|k| k.is_led())
        && p.p_hat.is_none()
        && p.budget.is_none()
}

/// Whether `sweep.d` applies to policy `i`: it has a `d` and sets none itself.
pub(crate) fn d_axis_applies(l: &SpannedManifest, i: usize) -> bool {
    let p = &l.m.policies[i];
    l.m.sweep.d.is_some()
        && PolicyKind::parse(&p.spec)
            .is_some_and(|k| k.has_d() && !matches!(k, PolicyKind::Pod(Some(_))))
        && p.d.is_none()
}

/// The label of policy `i`: its `label`, else its name as the list of
/// names spells it (the manifest's own rule: [`super::Manifest::label`]).
pub fn label(l: &SpannedManifest, i: usize) -> String {
    l.m.label(i)
}

/// `[[policy]]`: at least one; each a known policy with a label of its own
/// and only the keys its kind has, each in range; then the sweep axes of
/// policy keys (`sweep.p_hat`, `sweep.d`) must apply to some policy.
fn policies(l: &SpannedManifest) -> R {
    let ps = &l.m.policies;
    if ps.is_empty() {
        return Err(l.error("policy", "at least one [[policy]] is needed"));
    }
    let mut labels = BTreeSet::new();
    for (i, p) in ps.iter().enumerate() {
        let kind = policy_kind(l, i)?;
        let lab = label(l, i);
        if !labels.insert(lab.clone()) {
            return Err(l.error(
                &policy_key(i, if p.label.is_some() { "label" } else { "spec" }),
                format!("the label \"{lab}\" is used twice; give each policy a distinct `label`"),
            ));
        }
        d_key(l, i, kind)?;
        push_keys(l, i, kind)?;
        tie_break_and_p_hat(l, i, kind)?;
        own_system_keys(l, i)?;
        if let Some(b) = &p.budget {
            budget(l, i, kind, b)?;
        }
        update_probability(l, i, kind)?;
    }
    policy_axes_apply(l)
}

/// The key path of key `k` of policy `i`.
fn policy_key(i: usize, k: &str) -> String {
    format!("policy[{i}].{k}")
}

/// The kind of policy `i`, from its `spec`: one of [`POLICY_NAMES`], or an
/// error suggesting the nearest.
fn policy_kind(l: &SpannedManifest, i: usize) -> Result<PolicyKind, ManifestError> {
    let p = &l.m.policies[i];
    PolicyKind::parse(&p.spec).ok_or_else(|| {
        let names: Vec<&str> = POLICY_NAMES.to_vec();
        let hint = crate::model::bridge("slotted", &p.spec)
            .map(|b| format!("{b}; "))
            .or_else(|| did_you_mean(&p.spec, &names).map(|s| format!("did you mean \"{s}\"? ")))
            .unwrap_or_default();
        l.error(
            &policy_key(i, "spec"),
            format!(
                "unknown policy \"{}\"; {hint}valid names: {}",
                p.spec,
                POLICY_NAMES.join(", ")
            ),
        )
    })
}

/// Policy `i`'s `d`: only of a kind that has one (Power-of-d, L-Pod-* and
/// *-Push), at least 1, and not other than the d its name fixes
/// ("Power-of-2").
fn d_key(l: &SpannedManifest, i: usize, kind: PolicyKind) -> R {
    let p = &l.m.policies[i];
    let name = p.spec.trim();
    if let Some(d) = p.d {
        if !kind.has_d() {
            return Err(l.error(
                &policy_key(i, "d"),
                format!("{name} has no d (only Power-of-d, L-Pod-* and *-Push do)"),
            ));
        }
        if d == 0 {
            return Err(l.error(&policy_key(i, "d"), "d must be ≥ 1, got 0"));
        }
        if let PolicyKind::Pod(Some(k)) = kind
            && k != d
        {
            return Err(l.error(
                &policy_key(i, "d"),
                format!("the name {name} already fixes d = {k}; remove d or use \"Pod\""),
            ));
        }
    }
    Ok(())
}

/// Policy `i`'s Push keys, of *-Push policies only: `push_d` at least 1 (and
/// not beside `d`, which is the Push sample size but for L-Pod-Push), and
/// `push_when`.
fn push_keys(l: &SpannedManifest, i: usize, kind: PolicyKind) -> R {
    let p = &l.m.policies[i];
    let name = p.spec.trim();
    let push = matches!(kind, PolicyKind::Led(_, UpdateKind::Push));
    if let Some(d) = p.push_d {
        if !push {
            return Err(l.error(
                &policy_key(i, "push_d"),
                format!("{name} has no Push update; push_d applies to *-Push policies"),
            ));
        }
        if d == 0 {
            return Err(l.error(&policy_key(i, "push_d"), "push_d must be ≥ 1, got 0"));
        }
        if !matches!(kind, PolicyKind::Led(super::DispatchKind::LPod, _)) && p.d.is_some() {
            return Err(l.error(
                &policy_key(i, "push_d"),
                format!("for {name}, d already is the Push sample size; give one of d, push_d"),
            ));
        }
    }
    if p.push_when.is_some() && !push {
        return Err(l.error(
            &policy_key(i, "push_when"),
            format!("{name} has no Push update; push_when applies to *-Push policies"),
        ));
    }
    Ok(())
}

/// Policy `i`'s `tie_break`, of a kind that breaks ties (JSQ, Power-of-d and
/// LED), and `p_hat`, of an LED policy and a probability.
fn tie_break_and_p_hat(l: &SpannedManifest, i: usize, kind: PolicyKind) -> R {
    let p = &l.m.policies[i];
    let name = p.spec.trim();
    if p.tie_break == Some(lb_core::slotted::TieBreak::Shared) && !kind.traits().shared_ties {
        return Err(l.error(
            &policy_key(i, "tie_break"),
            format!(
                "{name} reads its own estimates or samples, so its dispatchers have no one \
                 snapshot to agree on; tie_break = \"shared\" applies to JSQ only: use \
                 \"random\" or \"lowest\""
            ),
        ));
    }
    if p.tie_break.is_some() && !kind.has_tie_break() {
        return Err(l.error(
            &policy_key(i, "tie_break"),
            format!(
                "{name} breaks no ties; tie_break applies to {} (L-JBA draws among the \
                 servers at or below its mean estimate): remove it",
                super::POLICY_NAMES
                    .iter()
                    .filter(|n| PolicyKind::parse(n).is_some_and(|k| k.has_tie_break()))
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    if let Some(x) = &p.p_hat {
        if !kind.is_led() {
            return Err(l.error(
                &policy_key(i, "p_hat"),
                format!("{name} has no update probability; p_hat applies to LED policies"),
            ));
        }
        match x {
            super::PHat::Fixed(x) if !is_prob(*x) => {
                return Err(l.error(
                    &policy_key(i, "p_hat"),
                    format!("p̂ is a probability: it must lie in [0, 1], got {x}"),
                ));
            }
            super::PHat::Fixed(_) => {}
            super::PHat::Scaled(s) => {
                if let Err((f, e)) = s.check() {
                    return Err(l.error(&policy_key(i, &format!("p_hat.{f}")), e));
                }
                let values = l.m.axis_values(&s.of);
                let xs: Vec<f64> = values.iter().filter_map(|v| v.parse().ok()).collect();
                if xs.is_empty() || xs.len() != values.len() {
                    return Err(l.error(
                        &policy_key(i, "p_hat.of"),
                        format!(
                            "a scaled p̂ follows a numeric sweep axis of this manifest; `{}` \
                             is not one",
                            s.of
                        ),
                    ));
                }
                if let Some(bad) = xs.iter().find(|&&v| !is_prob(s.value(v))) {
                    return Err(l.error(
                        &policy_key(i, "p_hat"),
                        format!(
                            "p̂ is a probability: at {} = {bad} this one is {}; give it max = 1 \
                             or a smaller scale",
                            s.of,
                            s.value(*bad)
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Policy `i`'s own system keys: no `granularity` where the manifest sweeps
/// it (the policy's would ignore the axis), and `dispatchers` at least 1.
fn own_system_keys(l: &SpannedManifest, i: usize) -> R {
    let p = &l.m.policies[i];
    if p.granularity.is_some() && l.m.sweep.granularity.is_some() {
        return Err(l.error(
            &policy_key(i, "granularity"),
            "the manifest sweeps granularity (sweep.granularity), which a policy's own \
             granularity would ignore; remove one of the two",
        ));
    }
    if let Some(m) = p.dispatchers
        && m == 0
    {
        return Err(l.error(&policy_key(i, "dispatchers"), "M must be ≥ 1, got 0"));
    }
    Ok(())
}

/// Policy `i`'s `budget` `b`, which calibrates p̂: of an LED policy without
/// its own `p_hat`, and exactly one of `same_as`, another policy's label
/// that has no budget itself, and `messages_per_arrival` > 0.
fn budget(l: &SpannedManifest, i: usize, kind: PolicyKind, b: &super::BudgetSpec) -> R {
    let ps = &l.m.policies;
    let p = &ps[i];
    if !kind.is_led() {
        return Err(l.error(
            &policy_key(i, "budget"),
            format!(
                "{} has no p̂ to calibrate; a budget applies to LED policies",
                p.spec.trim()
            ),
        ));
    }
    if p.p_hat.is_some() {
        return Err(l.error(
            &policy_key(i, "budget"),
            "a budget calibrates p̂: remove `p_hat` or the budget",
        ));
    }
    match (&b.same_as, b.messages_per_arrival) {
        (Some(other), None) => match (0..ps.len()).find(|&j| label(l, j) == *other) {
            None => {
                let all: Vec<String> = (0..ps.len()).map(|j| label(l, j)).collect();
                Err(l.error(
                    &policy_key(i, "budget.same_as"),
                    format!(
                        "no policy is labelled \"{other}\"; labels: {}",
                        all.join(", ")
                    ),
                ))
            }
            Some(j) if j == i || ps[j].budget.is_some() => Err(l.error(
                &policy_key(i, "budget.same_as"),
                format!(
                    "\"{other}\" has a budget itself; name a policy with a fixed configuration"
                ),
            )),
            _ => Ok(()),
        },
        (None, Some(x)) => {
            if !(x.is_finite() && x > 0.0) {
                return Err(l.error(
                    &policy_key(i, "budget.messages_per_arrival"),
                    format!("must be a number > 0, got {x}"),
                ));
            }
            Ok(())
        }
        _ => Err(l.error(
            &policy_key(i, "budget"),
            "give exactly one of same_as = \"<policy label>\" or \
             messages_per_arrival = <number>",
        )),
    }
}

/// An LED policy `i` needs an update probability: its own `p_hat`, a
/// `budget` that calibrates it, or a `sweep.p_hat` axis that applies to it.
fn update_probability(l: &SpannedManifest, i: usize, kind: PolicyKind) -> R {
    let p = &l.m.policies[i];
    if kind.is_led() && p.p_hat.is_none() && p.budget.is_none() && !p_hat_axis_applies(l, i) {
        return Err(l.error(
            &policy_key(i, "p_hat"),
            format!(
                "{} needs an update probability: p_hat in [0, 1], a `budget`, or a \
                 `sweep.p_hat` axis",
                p.spec.trim()
            ),
        ));
    }
    Ok(())
}

/// `sweep.p_hat` and `sweep.d` each apply to some policy (one without its
/// own value, of a kind that has the key).
fn policy_axes_apply(l: &SpannedManifest) -> R {
    let (ps, sw) = (&l.m.policies, &l.m.sweep);
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

/// The run lengths at every value of the axes they follow: (where, as a
/// located phrase, slots, warm-up).
pub(crate) fn run_lengths(l: &SpannedManifest) -> Result<Vec<(String, u64, u64)>, ManifestError> {
    let r = &l.m.run;
    let keys = [("slots", r.slots.scaled()), ("warmup", r.warmup.scaled())];
    Ok(crate::model::length::samples(l.spans, l.m, keys)?
        .into_iter()
        .map(|(at, xs, xw)| (at, r.slots.at(xs), r.warmup.at(xw)))
        .collect())
}

fn run(l: &SpannedManifest) -> R {
    let r = &l.m.run;
    for (at, slots, warmup) in run_lengths(l)? {
        if slots <= warmup {
            return Err(l.error(
                "run.slots",
                format!(
                    "slots ({slots}) must exceed warmup ({warmup}){at}: slots counts the warm-up \
                     too"
                ),
            ));
        }
        if let Some(b) = r.batches
            && (b < 6 || b as u64 > slots - warmup)
        {
            return Err(l.error(
                "run.batches",
                format!(
                    "batches must lie in 6..={} (the measured slots{at}), got {b}",
                    slots - warmup
                ),
            ));
        }
    }
    let q = &l.m.quick;
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
    let c = &l.m.calibration;
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

/// The hard limits of [`lb_model::limits`] on every size a slotted manifest can
/// set, checked before anything is allocated.
fn limits(l: &SpannedManifest) -> R {
    use lb_model::limits::*;
    let m = l.m;
    let over = |path: &str, what: &str, v: u64, max: u64| -> R {
        if v > max {
            Err(l.error(
                path,
                format!(
                    "{what} = {v} is beyond lb's limit of {max} (see \"Limits\" in \
                     experiments/README.md)"
                ),
            ))
        } else {
            Ok(())
        }
    };
    // N, whichever form gives it; the largest one the sweep reaches.
    let sv = &m.system.servers;
    let mut n_max = 0u64;
    if let Some(classes) = &sv.classes {
        let mut total = 0u64;
        for (i, c) in classes.iter().enumerate() {
            total = total.saturating_add(c.count);
            over(
                &format!("system.servers.classes[{i}].count"),
                "the servers so far",
                total,
                MAX_SLOTTED_SERVERS,
            )?;
        }
        n_max = total;
    }
    if let Some(rates) = &sv.rates {
        n_max = rates.len() as u64;
        over("system.servers.rates", "N", n_max, MAX_SLOTTED_SERVERS)?;
    }
    if let Some(n) = sv.count {
        over("system.servers.count", "N", n, MAX_SLOTTED_SERVERS)?;
        n_max = n;
    }
    for (i, n) in m.sweep.servers_count.iter().flatten().enumerate() {
        over(
            &format!("sweep.servers_count[{i}]"),
            "N",
            *n,
            MAX_SLOTTED_SERVERS,
        )?;
        n_max = n_max.max(*n);
    }
    // M, here, swept or per policy.
    let mut dispatchers: Vec<(String, u64)> = Vec::new();
    if let Some(x) = m.system.dispatchers {
        dispatchers.push(("system.dispatchers".into(), x));
    }
    for (i, x) in m.sweep.dispatchers.iter().flatten().enumerate() {
        dispatchers.push((format!("sweep.dispatchers[{i}]"), *x));
    }
    for (i, p) in m.policies.iter().enumerate() {
        if let Some(x) = p.dispatchers {
            dispatchers.push((format!("policy[{i}].dispatchers"), x));
        }
    }
    for (path, x) in &dispatchers {
        over(path, "M", *x, MAX_DISPATCHERS)?;
        let mn = x.saturating_mul(n_max);
        if mn > MAX_ESTIMATES {
            return Err(l.error(
                path,
                format!(
                    "M × N = {x} × {n_max} = {mn} estimates Q̃_mn is beyond lb's limit of \
                     {MAX_ESTIMATES} (see \"Limits\" in experiments/README.md)"
                ),
            ));
        }
    }
    for (path, law) in [
        ("system.service", &m.system.service),
        ("system.arrivals", &m.system.arrivals),
    ] {
        if let super::LawFamily::Binomial { n } = law
            && *n as f64 > lb_core::slotted::law::MAX_LAW_MEAN
        {
            return Err(l.error(
                path,
                format!(
                    "a binomial n of {n} is beyond the samplers' range (n ≤ {:e})",
                    lb_core::slotted::law::MAX_LAW_MEAN
                ),
            ));
        }
    }
    // Every point holds its N service laws and M arrival laws: bound the
    // plan as a whole, not only each size.
    let m_max = dispatchers.iter().map(|(_, x)| *x).max().unwrap_or(1);
    let per_plan = crate::model::sweep::points(l.m).saturating_mul(n_max.saturating_add(m_max));
    if per_plan > MAX_PLAN_LAWS {
        return Err(l.error(
            "sweep",
            format!(
                "{} points × (N + M) = {per_plan} laws to hold in the plan, beyond lb's limit \
                 of {MAX_PLAN_LAWS} (see \"Limits\" in experiments/README.md): fewer points, \
                 or split the sweep over several manifests",
                crate::model::sweep::points(l.m)
            ),
        ));
    }
    // Run lengths, batches, replications.
    let r = &m.run;
    for (_, slots, _) in run_lengths(l)? {
        over("run.slots", "slots", slots, MAX_SLOTS)?;
    }
    if let Some(b) = r.batches {
        over("run.batches", "batches", b as u64, MAX_BATCHES)?;
    }
    let q = &m.quick;
    if let Some(s) = q.slots {
        over("quick.slots", "slots", s, MAX_SLOTS)?;
    }
    if let Some(s) = q.pilot_slots {
        over("quick.pilot_slots", "slots", s, MAX_SLOTS)?;
    }
    if let Some(n) = q.replications {
        over(
            "quick.replications",
            "replications",
            n as u64,
            MAX_REPLICATIONS,
        )?;
    }
    let c = &m.calibration;
    if let Some(s) = c.slots {
        over("calibration.slots", "slots", s, MAX_SLOTS)?;
    }
    if let Some(n) = c.replications {
        over(
            "calibration.replications",
            "replications",
            n as u64,
            MAX_REPLICATIONS,
        )?;
    }
    Ok(())
}
