//! The checks of a manifest's claims that need its points: every named
//! reference a claim holds a metric to is defined at every point the claim
//! reads, and every control variate has a partner on the same random numbers
//! with an exact mean. A mistake in a claim is then a located error before
//! anything runs, not an "inconclusive" verdict.

use crate::claim::{Check, Claim};
use crate::diag::{ManifestError, SpanIndex};
use crate::outputs::{Reference, Where, where_matches};
use crate::plan::{Plan, PlannedPoint, axes_words, same_axes};

/// The planned points of the policies a check is about, within `filter`.
fn read_by<'a>(
    plan: &'a Plan,
    filter: &'a Where,
    c: &'a Check,
) -> impl Iterator<Item = &'a PlannedPoint> {
    plan.points
        .iter()
        .filter(move |p| reads(plan, filter, c, p))
}

/// Whether a check reads the planned point `p`: one of its policies,
/// within `filter`.
fn reads(plan: &Plan, filter: &Where, c: &Check, p: &PlannedPoint) -> bool {
    c.policies().contains(&p.label) && within(plan, filter, p)
}

/// Whether the planned point `p` passes `filter`, read on the plan's axes.
fn within(plan: &Plan, filter: &Where, p: &PlannedPoint) -> bool {
    where_matches(filter, |a: &str| {
        plan.axes
            .iter()
            .position(|x| *x == a)
            .map(|j| p.axes[j].as_str())
    })
}

/// The axis values of a planned point in words (" at load = 0.9, d = 2").
fn at_words(plan: &Plan, p: &PlannedPoint) -> String {
    let s = axes_words(plan.axes.iter().copied().zip(p.axes.iter().map(|v| &**v)));
    if s.is_empty() { s } else { format!(" at {s}") }
}

/// A claim's control variate: at every point the claim reads, the control
/// policy has a point at the same axis values, on the same random numbers
/// (the same system seeds), where `mean` is the exact mean of the claim's
/// metric.
fn control_applies(
    l: &SpanIndex,
    plan: &Plan,
    at: &str,
    filter: &Where,
    c: &Check,
) -> Result<(), ManifestError> {
    let (Some(k), Some(metric)) = (c.control(), c.metric()) else {
        return Ok(());
    };
    for p in read_by(plan, filter, c) {
        let point = p.point();
        let here = plan
            .points
            .iter()
            .filter(|q| same_axes(q.axes.iter().map(|x| &**x), p.axes.iter().map(|x| &**x)));
        let partner = k.partner(
            here,
            |q| &q.label,
            |q| Some(q.point()),
            point.seeds().system,
        );
        let fail = |msg: String| {
            Err(l.error(
                &format!("{at}.control"),
                format!(
                    "the control {} for {}{}: {msg}",
                    k.policy,
                    p.label,
                    at_words(plan, p)
                ),
            ))
        };
        let Some(q) = partner else {
            return fail("it has no point at these axis values".into());
        };
        let control = q.point();
        if control.seeds().system != point.seeds().system {
            return fail(
                "it does not run on the same arrivals and service (its system differs, e.g. \
                 its own dispatchers), and no point of its policy here does; give the \
                 experiment one with the same system (e.g. the same `dispatchers`)"
                    .into(),
            );
        }
        if let Err(e) = control.config.exact_mean(metric, &k.mean) {
            return fail(e);
        }
    }
    Ok(())
}

/// A claim's named reference (`expected`, `bound`) must be defined at each
/// point the claim reads: one that is not (`wr_sum_q` for JSQ,
/// `pod_mean_field` with several dispatchers) is a mistake in the manifest,
/// found before anything runs rather than audited as "inconclusive".
pub(crate) fn references_apply(
    l: &SpanIndex,
    claims: &[Claim],
    plan: &Plan,
) -> Result<(), ManifestError> {
    for (i, c) in claims.iter().enumerate() {
        for (at, filter, c) in c.all_checks(i) {
            control_applies(l, plan, &at, filter, c)?;
            let Some((k, Reference::Named(name))) = c.reference() else {
                continue;
            };
            let metric = c.metric().unwrap_or_default();
            for p in read_by(plan, filter, c) {
                let point = p.point();
                if let Err(e) = point.config.reference_applies(name, metric) {
                    return Err(l.error(
                        &format!("{at}.{k}"),
                        format!(
                            "`{name}` does not apply to {}{}: {e}; name a reference that \
                             does, or narrow the claim's `policies` or `where`",
                            p.label,
                            at_words(plan, p)
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// No ordering — a claim's, its foil's or a why-check's — compares a
/// policy with itself in law at every point it reads
/// ([`lb_core::slotted::config::SlottedConfig::same_in_law`]: the same dispatch on exact
/// estimates, or one dispatcher's shared ties): no run could tell its two
/// sides apart, so it would find "no difference" by construction, a foil
/// that cannot fail the way the claim's subject could. Points whose p̂ a
/// calibration sets are not compared.
pub(crate) fn orderings_differ(
    l: &SpanIndex,
    claims: &[Claim],
    plan: &Plan,
) -> Result<(), ManifestError> {
    for (i, c) in claims.iter().enumerate() {
        for (at, filter, check) in c.all_checks(i) {
            let Check::Ordering(o) = check else { continue };
            let mut pairs = 0;
            let mut one = 0;
            for p in plan
                .points
                .iter()
                .filter(|p| p.label == o.better && within(plan, filter, p))
            {
                let Some(q) = plan.points.iter().find(|q| {
                    q.label == o.worse
                        && same_axes(q.axes.iter().map(|x| &**x), p.axes.iter().map(|x| &**x))
                }) else {
                    continue;
                };
                let (crate::plan::Target::Fixed(a), crate::plan::Target::Fixed(b)) =
                    (&p.target, &q.target)
                else {
                    continue;
                };
                let (lb_model::PointConfig::Slotted(x), lb_model::PointConfig::Slotted(y)) =
                    (&a.config, &b.config)
                else {
                    continue;
                };
                pairs += 1;
                one += usize::from(x.same_in_law(y));
            }
            if pairs > 0 && one == pairs {
                return Err(l.error(
                    &at,
                    format!(
                        "`{}` and `{}` are one policy in law at every point this ordering reads \
                         (the same dispatch on estimates that are exact at every dispatch — a \
                         Push of every server every slot, or a Pull that reports every \
                         completion to a lone dispatcher counting its own jobs — or JSQ whose \
                         shared ties have no other dispatcher to share them): no run can tell \
                         them apart, so the ordering finds no difference by construction. \
                         Compare policies that differ in what the claim credits (for a foil, \
                         one where the property could hold and should not), or, where none \
                         can, give `no_foil` its reason",
                        o.better, o.worse
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Marks, in `plan.drawn`, the references drawn per replication that the
/// claims (foils and why-checks included) and figures read, at the points
/// they read them: a claim at the points its policies and `where` select, a
/// figure's reference curve at the points of its `policies` (every point
/// without them).
pub(crate) fn mark_drawn(
    plan: &mut Plan,
    claims: &[Claim],
    figures: &[crate::outputs::FigureToml],
) {
    let Some(model) = plan.points.first().map(|p| p.point().model) else {
        return;
    };
    let mut drawn: Vec<(usize, String)> = Vec::new();
    for (i, c) in claims.iter().enumerate() {
        for (_, filter, c) in c.all_checks(i) {
            if let Some((_, Reference::Named(name))) = c.reference()
                && model.per_replication(name)
            {
                for (j, p) in plan.points.iter().enumerate() {
                    if reads(plan, filter, c, p) {
                        drawn.push((j, name.clone()));
                    }
                }
            }
        }
    }
    for rc in figures.iter().flat_map(|f| &f.references) {
        if let Reference::Named(name) = &rc.value
            && model.per_replication(name)
        {
            for (j, p) in plan.points.iter().enumerate() {
                if rc.policies.is_empty() || rc.policies.contains(&p.label) {
                    drawn.push((j, name.clone()));
                }
            }
        }
    }
    for (j, name) in drawn {
        plan.drawn.entry(j).or_default().insert(name);
    }
}

/// Every quote of a measured value in prose ([`crate::prose`]) selects the
/// points its form reads: exactly one, or at least one for a `range`. Run on
/// the full plan (a quick run holds fewer points, and its report says a
/// quote's point was not run).
pub(crate) fn quotes_select(l: &crate::manifest::Parsed, plan: &Plan) -> Result<(), ManifestError> {
    for (at, text) in crate::prose::fields(l) {
        let Ok(quotes) = crate::prose::quotes(text) else {
            continue; // validation reported it
        };
        for q in quotes {
            let chosen: Vec<&PlannedPoint> = plan
                .points
                .iter()
                .filter(|p| p.label == q.policy && within(plan, &q.filter, p))
                .collect();
            let wrong = match (q.form.single(), chosen.len()) {
                (_, 0) => Some("selects no point of the plan".to_string()),
                (true, n) if n > 1 => Some(format!(
                    "selects {n} points ({}); a quote of one value needs exactly one: add the \
                     axes that tell them apart to its `where`, or write `range`",
                    chosen
                        .iter()
                        .take(3)
                        .map(|p| at_words(plan, p).trim_start_matches(" at ").to_string())
                        .collect::<Vec<_>>()
                        .join("; ")
                )),
                _ => None,
            };
            if let Some(w) = wrong {
                return Err(l.error(&at, format!("the quote {{{{{}}}}} {w}", q.text)));
            }
        }
    }
    Ok(())
}
