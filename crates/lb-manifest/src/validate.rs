//! The checks every manifest gets, whatever its model: `[experiment]`, the
//! replication rule, `[[figure]]` and `[[claim]]`. The model's own sections
//! are checked by its module ([`crate::model`]). Each error names the key path
//! and what is allowed.
//!
//! Validation is also where a claim is typed: each `[[claim]]` table (and
//! each check of its `why`), written flat, becomes a [`Claim`] whose
//! [`Check`] has exactly the keys of its kind. A key of another kind is a
//! located error naming the kind's keys.

use crate::calibration::{DecideAt, decision_level};
use crate::claim::{
    Beta, Bound, Check, CheckToml, Claim, ClaimKind, ClaimToml, Control, ControlToml,
    DEFAULT_LEVEL, Direction, Limit, Ordering, Origin, RateSource, Side, Stability, StandsFor,
    Tolerance, Toward, Trend, Value, WhyCheck, WhyCheckToml,
};
use crate::diag::{ManifestError, one_of};
use crate::manifest::{Loaded, Parsed};
use crate::outputs::{FigureKind, Reference};
use lb_model::limits::MAX_REPLICATIONS;
use lb_model::model::Profile;
use lb_model::precision::Procedure;
use std::collections::BTreeSet;

type R = Result<(), ManifestError>;

/// Runs every static check of a parsed manifest, and types its claims.
pub(crate) fn validate(l: Parsed) -> Result<Loaded, ManifestError> {
    // The claims are typed first, for the model's checks and the figures'
    // that read them; an error in a claim is reported in its turn, after
    // theirs (the claims before it are typed, and checked with them).
    let (claims, claim_error) = claims(&l);
    experiment(&l)?;
    points(&l)?;
    l.manifest.validate(&l.spans, &claims, l.older_revision)?;
    replications(&l)?;
    figures(&l, &claims)?;
    if let Some(e) = claim_error {
        return Err(e);
    }
    prose(&l)?;
    // The checks that depend on the sweep run at expansion; the full profile
    // is expanded by whoever loads the manifest, so expand the quick one here
    // too, or a bad `[quick]` would pass `lb plan` and fail `lb run --quick`.
    l.manifest.expand(&l.spans, Profile::Quick)?;
    l.manifest.validate_robustness(&l.spans, l.older_revision)?;
    Ok(Loaded::new(l, claims))
}

fn experiment(l: &Parsed) -> R {
    let e = l.experiment();
    crate::experiment::file_name(&e.name).map_err(|why| l.error("experiment.name", why))?;
    if e.title.trim().is_empty() {
        return Err(l.error("experiment.title", "must not be empty"));
    }
    Ok(())
}

/// `run.replications` or `run.precision`, exactly one, in range, and a
/// precision metric that the model's summaries define — for both models.
fn replications(l: &Parsed) -> R {
    let (replications, precision) = l.manifest.replications();
    let model = l.model();
    match (replications, precision) {
        (Some(_), Some(_)) | (None, None) => Err(l.error(
            "run.replications",
            "give exactly one of replications = K or precision = { rel_half_width, min, max }",
        )),
        (Some(0), None) => Err(l.error("run.replications", "must be ≥ 1, got 0")),
        (Some(n), None) if n as u64 > MAX_REPLICATIONS => Err(l.error(
            "run.replications",
            format!(
                "{n} replications is beyond lb's limit of {MAX_REPLICATIONS} a point (see \
                 \"Limits\" in experiments/README.md)"
            ),
        )),
        (Some(_), None) => Ok(()),
        (None, Some(p)) => {
            let fields = std::iter::once(("run.precision.metric", &p.metric))
                .chain(p.also.iter().map(|m| ("run.precision.also", m)));
            for (field, m) in fields {
                if !model.metric(&m.0).is_some_and(|m| m.precision) {
                    let allowed: Vec<&str> = model
                        .metrics()
                        .iter()
                        .filter(|m| m.precision)
                        .map(|m| m.name)
                        .collect();
                    return Err(l.error(
                        field,
                        format!(
                            "`{}` is not a precision metric of the {} model; it has {}",
                            m.0,
                            model.name(),
                            allowed.join(", ")
                        ),
                    ));
                }
            }
            if !p.also.is_empty() && p.procedure != Procedure::Stein {
                return Err(l.error(
                    "run.precision.also",
                    "more metrics are held to the target under Stein's procedure only: add \
                     procedure = \"stein\", or remove `also`",
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
            if p.max as u64 > MAX_REPLICATIONS {
                return Err(l.error(
                    "run.precision.max",
                    format!(
                        "{} replications is beyond lb's limit of {MAX_REPLICATIONS} a point \
                         (see \"Limits\" in experiments/README.md)",
                        p.max
                    ),
                ));
            }
            if p.max < p.min {
                return Err(l.error(
                    "run.precision.max",
                    format!("max ({}) must be ≥ min ({})", p.max, p.min),
                ));
            }
            if p.step.is_some_and(|s| s as u64 > MAX_REPLICATIONS) {
                return Err(l.error(
                    "run.precision.step",
                    format!(
                        "must be at most {MAX_REPLICATIONS}, got {}",
                        p.step.unwrap_or(0)
                    ),
                ));
            }
            if p.step == Some(0) {
                return Err(l.error("run.precision.step", "must be ≥ 1, got 0"));
            }
            if p.control.is_some() {
                if model != lb_model::model::Model::Slotted {
                    return Err(l.error(
                        "run.precision.control",
                        format!(
                            "control variates need an exact mean, which only the slotted model \
                             has; the {} model's precision rule takes none",
                            model.name()
                        ),
                    ));
                }
                if p.procedure.is_sequential() {
                    return Err(l.error(
                        "run.precision.control",
                        "a control variate decides with the pilot or Stein's first stage: drop \
                         procedure = \"sequential\"",
                    ));
                }
                if p.min < 4 {
                    let stage = if p.procedure == Procedure::Stein {
                        "Stein's first stage"
                    } else {
                        "the pilot"
                    };
                    return Err(l.error(
                        "run.precision.min",
                        format!(
                            "with a control, {stage} fits β on its pairs and needs at least 4 \
                             of them, got {}",
                            p.min
                        ),
                    ));
                }
            }
            Ok(())
        }
    }
}

/// A `where` table: every key a sweep axis; every value one of its values,
/// or a range of a numeric axis that holds at least one of them (a value
/// the sweep does not hold would select nothing, silently).
fn filter(l: &Parsed, at: &str, f: &crate::outputs::Where, axes: &[&str]) -> R {
    use crate::outputs::WhereTest;
    for (k, v) in f {
        let path = format!("{at}.{k}");
        one_of(l, &path, "sweep axis", k, axes)?;
        let allowed = l.manifest.axis_values(k);
        let test = WhereTest::parse(v).map_err(|e| l.error(&path, e))?;
        match &test {
            WhereTest::OneOf(vs) => {
                for w in vs {
                    if !allowed.contains(w) {
                        return Err(l.error(
                            &path,
                            format!(
                                "{w} is not a value of the sweep axis `{k}` (its values: {}); it \
                                 would select no point",
                                allowed.join(", ")
                            ),
                        ));
                    }
                }
            }
            WhereTest::Range { .. } => {
                if allowed.iter().any(|a| a.parse::<f64>().is_err()) {
                    return Err(l.error(
                        &path,
                        format!(
                            "a range needs a numeric axis; `{k}` has the values {}: list the \
                             ones wanted instead",
                            allowed.join(", ")
                        ),
                    ));
                }
                if !allowed.iter().any(|a| test.matches(a)) {
                    return Err(l.error(
                        &path,
                        format!(
                            "the range selects none of the sweep axis `{k}`'s values ({})",
                            allowed.join(", ")
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Quotes of measured values in prose ([`crate::prose`]): each parses, names
/// a policy of the manifest and a metric of its model, and its `where` is a
/// valid one (which points it selects is checked once the sweep is
/// expanded, [`crate::checks::quotes_select`]).
fn prose(l: &Parsed) -> R {
    let (axes, labels, metrics) = names(l);
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    for (at, text) in crate::prose::fields(l) {
        for q in crate::prose::quotes(text).map_err(|e| l.error(&at, e))? {
            let located = |mut e: ManifestError| {
                e.message = format!("the quote {{{{{}}}}}: {}", q.text, e.message);
                e.field = at.clone();
                e
            };
            one_of(l, &at, "policy label", &q.policy, &labels).map_err(located)?;
            let mut quotable = metrics.clone();
            quotable.push(crate::prose::CPU);
            one_of(l, &at, "metric", &q.metric, &quotable).map_err(located)?;
            filter(l, &at, &q.filter, &axes).map_err(located)?;
        }
    }
    Ok(())
}

/// The sweep axes a manifest sets, the labels of its policies and the names
/// of its model's metrics.
fn names(l: &Parsed) -> (Vec<&'static str>, Vec<String>, Vec<&'static str>) {
    let metrics = l.model().metrics().iter().map(|m| m.name).collect();
    (l.axes(), l.labels(), metrics)
}

/// At most [`MAX_POINTS`](lb_model::limits::MAX_POINTS) points, checked before
/// the sweep is expanded.
fn points(l: &Parsed) -> R {
    let n = l.manifest.points();
    if n > lb_model::limits::MAX_POINTS {
        return Err(l.error(
            "sweep",
            format!(
                "the sweep gives {n} points (its axes' lengths multiplied, times the \
                 policies), beyond lb's limit of {} (see \"Limits\" in experiments/README.md): \
                 split the experiment into several manifests",
                lb_model::limits::MAX_POINTS
            ),
        ));
    }
    Ok(())
}

/// `[[figure]]`: names, axes, metrics and policies must exist, and a figure
/// draws the reference of every claim it shows.
fn figures(l: &Parsed, claims: &[Claim]) -> R {
    let (axes, labels, metrics) = names(l);
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let mut names = BTreeSet::new();
    for (i, f) in l.figures().iter().enumerate() {
        let at = |k: &str| format!("figure[{i}].{k}");
        crate::experiment::file_name(&f.name).map_err(|why| l.error(&at("name"), why))?;
        if !names.insert(f.name.as_str()) {
            return Err(l.error(
                &at("name"),
                format!("\"{}\" names another figure already", f.name),
            ));
        }
        match f.kind {
            FigureKind::Lines => {
                let Some(x) = &f.x else {
                    return Err(l.error(
                        &at("x"),
                        format!("a figure needs `x`, a sweep axis ({})", axes.join(", ")),
                    ));
                };
                one_of(l, &at("x"), "sweep axis", x, &axes)?;
                let Some(y) = &f.y else {
                    return Err(l.error(
                        &at("y"),
                        format!("a figure needs `y`, a metric ({})", metrics.join(", ")),
                    ));
                };
                one_of(l, &at("y"), "metric", y, &metrics)?;
                if let Some(d) = &f.difference {
                    let labels = l.labels();
                    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
                    one_of(
                        l,
                        &format!("{}.better", at("difference")),
                        "policy",
                        &d.better,
                        &labels,
                    )?;
                    one_of(
                        l,
                        &format!("{}.worse", at("difference")),
                        "policy",
                        &d.worse,
                        &labels,
                    )?;
                    if d.better == d.worse {
                        return Err(l.error(
                            &at("difference"),
                            "a difference needs two policies: better and worse are the same",
                        ));
                    }
                    if f.log_y {
                        return Err(l.error(
                            &at("log_y"),
                            "a difference can be negative: it needs a linear y axis",
                        ));
                    }
                }
                if f.paths.is_some() {
                    return Err(l.error(&at("paths"), "only a kind = \"path\" figure draws paths"));
                }
            }
            FigureKind::Path => {
                for (k, v) in [("x", &f.x), ("y", &f.y)] {
                    if v.is_some() {
                        return Err(l.error(
                            &at(k),
                            "a kind = \"path\" figure draws sample paths against time: \
                             leave out `x` and `y` (name the quantity with `y_label`)",
                        ));
                    }
                }
                if f.paths == Some(0) {
                    return Err(l.error(&at("paths"), "must be ≥ 1, got 0"));
                }
                if !f.references.is_empty() || f.zeta_line {
                    return Err(l.error(
                        &at("reference"),
                        "reference curves belong to kind = \"lines\" figures",
                    ));
                }
            }
        }
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
        for (k, v) in [("y_label", &f.y_label), ("y_unit", &f.y_unit)] {
            if v.as_deref().is_some_and(|t| t.trim().is_empty()) {
                return Err(l.error(&at(k), "must not be empty (leave it out for the default)"));
            }
        }
        figure_references(l, i, f, &labels)?;
        if let Some([lo, hi]) = f.y_range {
            if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                return Err(l.error(
                    &at("y_range"),
                    format!("[lo, hi], finite with lo < hi, got [{lo}, {hi}]"),
                ));
            }
            if f.log_y && lo <= 0.0 {
                return Err(l.error(
                    &at("y_range"),
                    format!("a log axis needs lo > 0, got [{lo}, {hi}]"),
                ));
            }
        }
        if f.caption.trim().is_empty() {
            return Err(l.error(
                &at("caption"),
                "a figure needs a caption naming its setting and assumptions",
            ));
        }
        shows_its_claims_references(l, i, claims)?;
    }
    Ok(())
}

/// A figure's `[[figure.reference]]` tables: a named reference of the model
/// or a finite number, a band ≥ 0, `at` only for a number, known policies.
fn figure_references(l: &Parsed, i: usize, f: &crate::outputs::FigureToml, labels: &[&str]) -> R {
    for (j, r) in f.references.iter().enumerate() {
        let at = |k: &str| format!("figure[{i}].reference[{j}].{k}");
        match &r.value {
            Reference::Named(n) => one_of(l, &at("value"), "reference", n, l.model().references())?,
            Reference::Number(x) if !x.is_finite() => {
                return Err(l.error(&at("value"), "must be a finite number or a name"));
            }
            Reference::Number(_) => {}
        }
        if let Some(b) = r.band
            && !(b >= 0.0 && b.is_finite())
        {
            return Err(l.error(&at("band"), format!("a relative width ≥ 0, got {b}")));
        }
        if let Some(x) = r.at {
            if !x.is_finite() {
                return Err(l.error(&at("at"), format!("must be a finite x, got {x}")));
            }
            if matches!(r.value, Reference::Named(_)) {
                return Err(l.error(
                    &at("at"),
                    "`at` places a number at one x; a named reference is computed at \
                     every point shown",
                ));
            }
        }
        for (k, p) in r.policies.iter().enumerate() {
            one_of(
                l,
                &format!("{}[{k}]", at("policies")),
                "policy label",
                p,
                labels,
            )?;
        }
    }
    Ok(())
}

/// A figure shows a `value` or `bound` claim when it plots the claim's
/// metric for one of its policies; it must then draw the claim's reference
/// (`expected` or `bound`) as a `[[figure.reference]]` (or `zeta_line` for
/// ζ), so that a reader sees what the claim holds the points to.
fn shows_its_claims_references(l: &Parsed, i: usize, claims: &[Claim]) -> R {
    let f = &l.figures()[i];
    let Some(y) = &f.y else { return Ok(()) };
    let shown = |p: &String| f.policies.is_empty() || f.policies.contains(p);
    for c in claims {
        let (metric, policies, want) = match &c.check {
            Check::Value(v) => (&v.metric, &v.policies, &v.expected),
            Check::Bound(b) => (&b.metric, &b.policies, &b.bound),
            Check::Ordering(_) | Check::Stability(_) | Check::Trend(_) | Check::Limit(_) => {
                continue;
            }
        };
        if metric != y || !policies.iter().any(shown) {
            continue;
        }
        let drawn = f.references.iter().any(|r| &r.value == want)
            || (f.zeta_line && *want == Reference::Named("zeta".into()));
        if !drawn {
            let v = match want {
                Reference::Number(x) => x.to_string(),
                Reference::Named(n) => format!("\"{n}\""),
            };
            return Err(l.error(
                &format!("figure[{i}]"),
                format!(
                    "it shows claim `{}` ({} of {}) but draws no reference for its {v}: \
                     add [[figure.reference]] with value = {v}",
                    c.id,
                    y,
                    policies.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// `[[claim]]` (docs/MODEL.md §5), typed: each kind has the keys it needs and no
/// other kind's, and every name it uses exists; so do the checks of its
/// `why`. The claims typed before the first error, and that error.
fn claims(l: &Parsed) -> (Vec<Claim>, Option<ManifestError>) {
    let mut out = Vec::new();
    let refs = match crate::references::References::beside(l.spans.file()) {
        Ok(r) => r,
        Err(e) => return (out, Some(e)),
    };
    for (i, c) in l.manifest.claim_tables().iter().enumerate() {
        match claim(l, i, c, &out, refs.as_ref()) {
            Ok(c) => out.push(c),
            Err(e) => return (out, Some(e)),
        }
    }
    let e = no_claim_restates_a_foil(l, &out)
        .and_then(|()| tests_in_this_manifest(l, &out))
        .and_then(|()| ranges_foils_and_nulls(l, &out))
        .and_then(|()| one_rate_of_ours(l, &out))
        .err();
    (out, e)
}

/// A limit lb reads at a slowest rate of its own (`rate_from = "ours: …"`)
/// is read at one rate, whichever claim reads it: two claims of a manifest
/// that read the same metric toward the same limit along the same axis
/// share their `min_rate`, so that no claim's threshold is chosen apart
/// from the others' (docs/AUDITING.md, "Limits").
fn one_rate_of_ours(l: &Parsed, claims: &[Claim]) -> R {
    if l.older_revision {
        return Ok(());
    }
    let mut seen: Vec<(String, f64, &str)> = Vec::new();
    for (i, c) in claims.iter().enumerate() {
        let Check::Limit(k) = &c.check else { continue };
        let (Some(rate), Some(RateSource::Ours(_))) = (k.min_rate, &k.rate_from) else {
            continue;
        };
        let limit = format!(
            "{} → {} as {} → {}",
            k.metric,
            match &k.expected {
                Reference::Number(x) => x.to_string(),
                Reference::Named(n) => n.clone(),
            },
            k.along,
            match k.toward {
                crate::claim::Toward::Zero => "0",
                crate::claim::Toward::Infinity => "∞",
            }
        );
        match seen.iter().find(|(x, _, _)| *x == limit) {
            Some((_, r, other)) if *r != rate => {
                return Err(l.error(
                    &format!("claim[{i}].min_rate"),
                    format!(
                        "{rate}: claim \"{other}\" reads the same limit ({limit}) at a slowest \
                         rate of ours, {r}: a rate lb chooses is one rate for the limit, \
                         whichever claim reads it; write min_rate = {r} (or change both, \
                         saying why in rate_from)"
                    ),
                ));
            }
            Some(_) => {}
            None => seen.push((limit, rate, &c.id)),
        }
    }
    Ok(())
}

/// The rules that keep a verdict from following a choice
/// (docs/AUDITING.md, "Verdicts decided by rules"):
///
/// - a paper's statement is decided over the range its paper shows: its
///   `where` does not narrow an axis a figure of the manifest plots (the
///   audit says where in that range it holds and where it fails);
/// - a foil is read at exactly the claim's points (the same `where`; a foil
///   that changes a setting never moves off the claim's range), and is not
///   the claim itself;
/// - a claim that credits its property (`credits`) is held to the nulls of
///   that credit, which the manifest must run.
fn ranges_foils_and_nulls(l: &Parsed, claims: &[Claim]) -> R {
    // Manifests of older revisions (`lb diff --against`) predate these rules.
    if l.older_revision {
        return Ok(());
    }
    let labels = l.labels();
    for (i, c) in claims.iter().enumerate() {
        let at = format!("claim[{i}]");
        if c.origin == Origin::Paper {
            for f in l.figures() {
                let Some(x) = f.x.as_deref() else { continue };
                let Some(sel) = c.filter.get(x) else { continue };
                let all = l.manifest.axis_values(x);
                let test = crate::outputs::WhereTest::parse(sel).ok();
                let kept = all
                    .iter()
                    .filter(|v| test.as_ref().is_some_and(|t| t.matches(v)))
                    .count();
                if all.len() > 1 && kept < all.len() {
                    return Err(l.error(
                        &format!("{at}.where.{x}"),
                        format!(
                            "a paper's statement is decided over the range its paper shows: \
                             figure `{}` plots {x} at {} values and this `where` keeps \
                             {kept}. Remove `where.{x}`: the audit reads every value and says \
                             where the statement holds and where it fails (\"reproduced \
                             except at …\"); a narrower reading is a stand-in (origin = \
                             \"stand-in\")",
                            f.name,
                            all.len()
                        ),
                    ));
                }
            }
        }
        if let crate::model::ModelManifest::Slotted(m) = &l.manifest
            && let Some(open) = crate::model::slotted::robustness::foil_reading(m, c)
        {
            return Err(l.error(
                &format!("{at}.foil"),
                format!(
                    "the foil changes only {open}, which the paper leaves open: that is \
                     another reading of the claim, not a policy or setting outside what it \
                     credits. Remove the foil and vary {open} in a [[robustness]] map that \
                     names \"{}\" (a setting the manifest sweeps costs no runs there: the \
                     map re-reads the claim at its other values); what the claim credits is \
                     tested by the nulls of its `credits`",
                    c.id
                ),
            ));
        }
        if let Some(f) = &c.foil {
            // The values of `axis` a check reads under `w`: a limit reads
            // only its `last` values nearest the limit along its axis.
            let read = |w: &crate::outputs::Where, check: &Check, axis: &str| -> Vec<String> {
                let all = l.manifest.axis_values(axis);
                let mut v: Vec<String> = match w.get(axis).map(crate::outputs::WhereTest::parse) {
                    Some(Ok(t)) => all.into_iter().filter(|v| t.matches(v)).collect(),
                    _ => all,
                };
                if let Check::Limit(k) = check
                    && k.along == axis
                {
                    let num = |s: &String| s.parse::<f64>().unwrap_or(f64::NAN);
                    v.sort_by(|a, b| num(a).total_cmp(&num(b)));
                    let n = (k.last as usize).min(v.len());
                    v = match k.toward {
                        crate::claim::Toward::Zero => v[..n].to_vec(),
                        crate::claim::Toward::Infinity => v[v.len() - n..].to_vec(),
                    };
                }
                v
            };
            let claim_reads = |axis: &str| read(&c.filter, &c.check, axis);
            let foil_reads = |axis: &str| read(&f.filter, &f.check, axis);
            // A foil changes one thing: the policy, read at the claim's own
            // points, or the setting, with (some of) the claim's own policies.
            let same_policies = {
                let claim = c.check.labels();
                f.check.labels().iter().all(|x| claim.contains(x))
            };
            let along = match &c.check {
                Check::Limit(k) => Some(&k.along),
                _ => None,
            };
            let outside = f
                .filter
                .keys()
                .chain(c.filter.keys())
                .chain(along)
                .filter(|_| !same_policies)
                .find(|a| {
                    let claim = claim_reads(a);
                    foil_reads(a).iter().any(|v| !claim.contains(v))
                });
            if let Some(a) = outside {
                return Err(l.error(
                    &format!("{at}.foil.where"),
                    format!(
                        "a foil that changes the policy is read at the claim's points: its \
                         `where.{a}` selects values the claim does not read ({}, against the \
                         claim's {}). Give it the claim's `where` (a foil elsewhere says nothing \
                         about the claim's points)",
                        foil_reads(a).join(", "),
                        claim_reads(a).join(", ")
                    ),
                ));
            }
            // A foil with the claim's policies reads them where the claim
            // does: on an axis the claim reads at several values (its range),
            // the foil's values are among them. Elsewhere on that range it
            // would be another part of the claim, not a setting outside it.
            if same_policies
                && let Some(a) = f.filter.keys().find(|a| {
                    let claim = claim_reads(a);
                    claim.len() > 1 && foil_reads(a).iter().any(|v| !claim.contains(v))
                })
            {
                return Err(l.error(
                    &format!("{at}.foil.where"),
                    format!(
                        "a foil is read at the claim's points: the claim reads `{a}` over \
                         its range ({}), and this foil's `where.{a}` reads it elsewhere ({}). \
                         Read the foil at the claim's values of `{a}`, with another policy in \
                         the subject's place, or say what the claim credits (`credits`), whose \
                         nulls are read at its points; what happens elsewhere on the range is \
                         a claim of its own",
                        claim_reads(a).join(", "),
                        foil_reads(a).join(", ")
                    ),
                ));
            }
            // A foil that changes a setting changes one, so that its failing
            // says what that setting does: two at once cannot tell which. (A
            // foil with a check of its own, a sharper reference at one point,
            // is no setting foil.)
            if same_policies && f.check == c.check {
                let mut keys: Vec<&String> = f.filter.keys().chain(c.filter.keys()).collect();
                keys.sort();
                keys.dedup();
                let changed: Vec<&String> = keys
                    .into_iter()
                    .filter(|a| {
                        let (mut x, mut y) = (claim_reads(a), foil_reads(a));
                        x.sort();
                        y.sort();
                        x != y
                    })
                    .collect();
                if changed.len() > 1 {
                    return Err(l.error(
                        &format!("{at}.foil.where"),
                        format!(
                            "a foil that changes a setting changes one, so that its failing says \
                             what that setting does; this one changes {}: keep the claim's values \
                             of all but one",
                            changed
                                .iter()
                                .map(|a| format!("`{a}`"))
                                .collect::<Vec<_>>()
                                .join(" and ")
                        ),
                    ));
                }
            }
            if f.check == c.check && f.filter == c.filter {
                return Err(l.error(
                    &format!("{at}.foil"),
                    "the foil is the claim itself (the same check at the same points): a foil \
                     changes the policy, graph, size or setting that the claim credits",
                ));
            }
        }
        if let Some(h) = &c.hypothesis {
            let known = lb_model::many::metrics::HYPOTHESES;
            if l.model() != lb_model::model::Model::Many || !known.contains(&h.as_str()) {
                return Err(l.error(
                    &format!("{at}.hypothesis"),
                    format!(
                        "no hypothesis \"{h}\" for the {} model; the many-server model has: {}",
                        l.model().name(),
                        known.join(", ")
                    ),
                ));
            }
        }
        if c.also_credits.is_some() && c.credits.is_none() {
            return Err(l.error(
                &format!("{at}.also_credits"),
                "also_credits names a second credit: give the first in credits",
            ));
        }
        for credit in c.held_credits() {
            if !credit.applies_to(c.check.kind()) {
                return Err(l.error(
                    &format!("{at}.credits"),
                    format!(
                        "credits = \"{}\" does not apply to {} claim (docs/AUDITING.md, \
                         \"Nulls\", lists what each credit applies to)",
                        credit.name(),
                        c.check.kind().a()
                    ),
                ));
            }
            // Its nulls coincide with the subject at the largest N: only the
            // rate of approach tells a parameter that grows from one frozen.
            if credit == crate::claim::Credit::Growth {
                let by_rate = match &c.check {
                    Check::Limit(m) => {
                        m.min_rate.is_some()
                            && m.tolerance.relative == 0.0
                            && m.tolerance.absolute == 0.0
                    }
                    // An ordering's null is its better policy frozen.
                    _ => true,
                };
                if !by_rate {
                    return Err(l.error(
                        &format!("{at}.credits"),
                        "a limit credited to growth is decided by its rate: its nulls, frozen \
                         at the largest N, coincide with the subject there, so give it a \
                         min_rate and abs_tolerance = 0",
                    ));
                }
            }
            // Its nulls approach the limit too, more slowly: a rate tells them.
            if credit == crate::claim::Credit::Refresh
                && !matches!(&c.check, Check::Limit(m) if m.min_rate.is_some())
            {
                return Err(l.error(
                    &format!("{at}.credits"),
                    "a limit credited to a refresh bounded away from 0 is held to its policies \
                     with p̂ ∝ ε, which may approach the limit too, more slowly: give it a \
                     min_rate",
                ));
            }
            let nulls = c.null_policies();
            let missing: Vec<&(String, Option<String>)> = nulls
                .iter()
                .filter(|(n, _)| !labels.iter().any(|l| l == n))
                .collect();
            if !missing.is_empty() {
                // What to add, by the credit whose counterpart it is.
                let add = |(m, of): &(String, Option<String>)| match (credit, of) {
                    (crate::claim::Credit::Threshold, Some(p)) => format!(
                        "[[policy]] label = \"{m}\" (the policy {p} with its parameter just \
                         below the threshold the claim credits)"
                    ),
                    (crate::claim::Credit::Refresh, Some(p)) => format!(
                        "[[policy]] label = \"{m}\" (the policy {p} with p̂ in proportion to \
                         ε: p_hat = {{ scale = c, of = \"epsilon_frac\", power = 1 }})"
                    ),
                    (crate::claim::Credit::Growth, Some(p)) => format!(
                        "[[policy]] label = \"{m}\" (the policy {p} with its growing parameter \
                         fixed at its value at the largest N the claim reads)"
                    ),
                    (crate::claim::Credit::Delay, Some(p)) => format!(
                        "[[policy]] label = \"{m}\" (the policy {p} with fresh estimates: \
                         a Push of d = N at p̂ = 1 every slot, push_when = \"always\", or a Pull \
                         at p̂ = 1)"
                    ),
                    (crate::claim::Credit::HeavyDelay, Some(p)) => format!(
                        "[[policy]] label = \"{m}\" (the policy {p} updated at every chance: \
                         p_hat = 1.0, the same d)"
                    ),
                    _ => format!("[[policy]] spec = \"{m}\""),
                };
                let nulls: Vec<&str> = nulls.iter().map(|(n, _)| n.as_str()).collect();
                return Err(l.error(
                    &format!("{at}.credits"),
                    format!(
                        "a claim that credits {} is held to its nulls ({}) at its own \
                         points; this manifest does not run {}: add {}",
                        credit.name(),
                        nulls.join(" and "),
                        missing
                            .iter()
                            .map(|(m, _)| m.as_str())
                            .collect::<Vec<_>>()
                            .join(" or "),
                        missing
                            .iter()
                            .map(|m| add(m))
                            .collect::<Vec<_>>()
                            .join(" and ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Who claimed `claim[i]` (`c`): its origin, its paper, and for a stand-in
/// what it stands for — each needed where it applies and refused elsewhere.
fn origin(
    l: &Parsed,
    at: &str,
    c: &ClaimToml,
) -> Result<(Origin, Option<String>, Option<StandsFor>), ManifestError> {
    let origin = match (c.origin, c.required) {
        (Some(Origin::Check) | None, true) => Origin::Check,
        (Some(o), true) => {
            return Err(l.error(
                &format!("{at}.origin"),
                format!(
                    "a required claim is lb's own check (what lb guarantees), not \
                     \"{}\": write origin = \"check\", or drop `required` to audit \
                     a paper's statement",
                    o.name()
                ),
            ));
        }
        (Some(o), false) => o,
        (None, false) => {
            return Err(l.error(
                &format!("{at}.origin"),
                "say who claimed it: origin = \"paper\" (the paper's own statement, \
                 quoted in `statement`, `source` saying where), \"stand-in\" (our \
                 operationalisation of one: a finite N or ε, a tolerance or setting we \
                 chose; name what it tests with `tests` or `stands_for`), \"check\" (lb's \
                 own check: exact theory, a closed form, a fluid rate) or \"ours\" (a \
                 conjecture of ours, neither a paper's statement nor exact theory)",
            ));
        }
    };
    let paper = c
        .paper
        .clone()
        .or_else(|| l.manifest.experiment().paper.clone());
    for (k, v) in [
        ("paper", &c.paper),
        ("tests", &c.tests),
        ("stands_for", &c.stands_for),
        ("reading", &c.reading),
    ] {
        if v.as_deref().is_some_and(|v| v.trim().is_empty()) {
            return Err(l.error(&format!("{at}.{k}"), "must not be empty"));
        }
    }
    if matches!(origin, Origin::Paper | Origin::StandIn) && paper.is_none() {
        return Err(l.error(
            &format!("{at}.paper"),
            format!(
                "a {} claim needs the paper it comes from: paper = \"<authors>\" here \
                 or in [experiment]",
                origin.name()
            ),
        ));
    }
    match (origin, &c.reading) {
        (Origin::Paper, None) if !l.older_revision => {
            return Err(l.error(
                &format!("{at}.reading"),
                "a paper's statement is decided at the setting its paper states or implies: \
                 reading = \"<that setting> (<where>: \\\"<the sentence that implies it>\\\")\"; \
                 what the text leaves open goes to a [[robustness]] map",
            ));
        }
        (Origin::Paper, Some(_)) | (_, None) => {}
        (o, Some(_)) => {
            return Err(l.error(
                &format!("{at}.reading"),
                format!(
                    "only a paper's statement (origin = \"paper\") has the paper's reading; \
                     this claim's origin is \"{}\": remove `reading`",
                    o.name()
                ),
            ));
        }
    }
    let stands_for = match (origin, &c.tests, &c.stands_for) {
        (Origin::StandIn, Some(t), _) => Some(StandsFor::Claim(t.clone())),
        (Origin::StandIn, None, Some(q)) => Some(StandsFor::Quote(q.clone())),
        (Origin::StandIn, None, None) => {
            return Err(l.error(
                &format!("{at}.tests"),
                "a stand-in names the paper's statement it tests: tests = \"<claim id>\" \
                 (or \"<experiment>/<claim id>\"), or stands_for = \"<the statement, \
                 quoted, with where it is>\"",
            ));
        }
        (_, Some(_), _) | (_, _, Some(_)) => {
            let k = if c.tests.is_some() {
                "tests"
            } else {
                "stands_for"
            };
            return Err(l.error(
                &format!("{at}.{k}"),
                format!(
                    "only a stand-in names what it stands for; this claim's origin is \
                     \"{}\"",
                    origin.name()
                ),
            ));
        }
        _ => None,
    };
    Ok((origin, paper, stands_for))
}

/// No claim reads what another claim's foil reads, at the same points: it
/// would be that foil, whose line reports it already (failing, as a foil
/// should, or holding, and then the claim does not discriminate), and its
/// own verdict would count the same records twice, once each way.
/// (Manifests of older revisions, read by `lb diff --against`, predate the
/// rule.)
fn no_claim_restates_a_foil(l: &Parsed, claims: &[Claim]) -> R {
    if l.older_revision {
        return Ok(());
    }
    for (i, c) in claims.iter().enumerate().filter(|(_, c)| !c.required) {
        if let Some(d) = claims.iter().find(|d| {
            d.id != c.id
                && d.foil
                    .as_ref()
                    .is_some_and(|f| f.check == c.check && f.filter == c.filter)
        }) {
            return Err(l.error(
                &format!("claim[{i}]"),
                format!(
                    "this claim reads what the foil of \"{}\" reads, at the same points: the \
                     foil's line already reports it, and a verdict of its own would count the \
                     same records twice, once each way; remove it, or read something the \
                     foil does not",
                    d.id
                ),
            ));
        }
    }
    Ok(())
}

/// Every `tests` naming a claim of this manifest names one, and one that is
/// a paper's statement (`experiment/id` is checked with every manifest:
/// [`crate::load::load_all`]).
fn tests_in_this_manifest(l: &Parsed, claims: &[Claim]) -> R {
    for (i, c) in claims.iter().enumerate() {
        let Some(StandsFor::Claim(t)) = &c.stands_for else {
            continue;
        };
        if t.contains('/') {
            continue;
        }
        match claims.iter().find(|d| &d.id == t) {
            // A stand-in that reads what its statement's claim reads, at
            // the same points, decides nothing that claim does not: it would
            // be counted twice.
            Some(d) if d.origin == Origin::Paper && d.check == c.check && d.filter == c.filter => {
                return Err(l.error(
                    &format!("claim[{i}].tests"),
                    format!(
                        "this stand-in reads what \"{t}\" reads, at the same points: it restates \
                         the statement's claim and would count it twice; read something the \
                         claim does not (another setting, points, tolerance or rule), or \
                         remove it"
                    ),
                ));
            }
            Some(d) if d.origin == Origin::Paper => {}
            Some(d) => {
                return Err(l.error(
                    &format!("claim[{i}].tests"),
                    format!(
                        "\"{t}\" is a {} claim, not a paper's statement: a stand-in tests a \
                         claim with origin = \"paper\" (or quote the statement with \
                         stands_for)",
                        d.origin.name()
                    ),
                ));
            }
            None => {
                return Err(l.error(
                    &format!("claim[{i}].tests"),
                    format!(
                        "no claim of this manifest has id \"{t}\"; its ids: {}",
                        claims
                            .iter()
                            .map(|d| d.id.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// A claim's (or why-check's) levels from its `level` and `decide_at`: the
/// level it decides at, the level it states (default [`DEFAULT_LEVEL`]), and
/// the rule between them.
fn levels(level: Option<f64>, at: Option<DecideAt>) -> (f64, f64, DecideAt) {
    let stated = level.unwrap_or(DEFAULT_LEVEL);
    let at = at.unwrap_or_default();
    (decision_level(stated, at), stated, at)
}

/// `claim[i]`, checked and typed; `before` are the claims before it.
fn claim(
    l: &Parsed,
    i: usize,
    c: &ClaimToml,
    before: &[Claim],
    refs: Option<&crate::references::References>,
) -> Result<Claim, ManifestError> {
    let at = format!("claim[{i}]");
    if c.id.trim().is_empty() || c.id.contains('/') || before.iter().any(|b| b.id == c.id) {
        return Err(l.error(
            &format!("{at}.id"),
            "needs a non-empty id without '/', unique in the manifest",
        ));
    }
    for (k, v) in [("statement", &c.statement), ("source", &c.source)] {
        if v.trim().is_empty() {
            return Err(l.error(&format!("{at}.{k}"), "must be a non-empty string"));
        }
    }
    if c.why.as_deref().is_some_and(|w| w.trim().is_empty()) {
        return Err(l.error(&format!("{at}.why"), "must not be empty"));
    }
    let (origin, paper, stands_for) = origin(l, &at, c)?;
    // Works are cited by key (experiments/references.bib) and written out.
    let old = l.older_revision;
    let needs_key = !old && matches!(origin, Origin::Paper | Origin::StandIn);
    let source = crate::references::cited(refs, &c.source, needs_key)
        .map_err(|why| l.error(&format!("{at}.source"), why))?;
    if let (Some(r), Some(p), false) = (refs, &paper, old) {
        for name in p.split(';') {
            r.named(name.trim())
                .map_err(|why| l.error(&format!("{at}.paper"), why))?;
        }
    }
    let stands_for = match stands_for {
        Some(StandsFor::Quote(q)) => Some(StandsFor::Quote(
            crate::references::cited(refs, &q, false)
                .map_err(|why| l.error(&format!("{at}.stands_for"), why))?,
        )),
        s => s,
    };
    let keys = c.check();
    let mut check = typed(l, &at, &keys)?;
    rate_source(l, &at, &mut check, keys.rate_from.as_deref(), None, refs)?;
    // A check the claim carries reads the claim's rate source at its rate.
    let carried_here = |at: String, w: &WhyCheckToml| -> Result<WhyCheck, ManifestError> {
        let mut k = carried(l, &at, w)?;
        rate_source(
            l,
            &at,
            &mut k.check,
            w.rate_from.as_deref(),
            Some(&check),
            refs,
        )?;
        Ok(k)
    };
    let mut why_checks = Vec::new();
    for (j, w) in c.why_check.iter().enumerate() {
        why_checks.push(carried_here(format!("{at}.why_check[{j}]"), w)?);
    }
    foil_or_reason(l, &at, c, origin)?;
    let foil = match &c.foil {
        Some(f) => {
            let mut w = carried_here(format!("{at}.foil"), f)?;
            inherit_control(&mut w.check, &check);
            Some(w)
        }
        None => None,
    };
    let (level, stated_level, decide_at) = levels(keys.level, keys.decide_at);
    Ok(Claim {
        id: c.id.clone(),
        statement: c.statement.clone(),
        source,
        required: c.required,
        origin,
        paper,
        stands_for,
        reading: c.reading.clone(),
        filter: keys.filter,
        level,
        stated_level,
        decide_at,
        why: c.why.clone(),
        why_checks,
        foil,
        no_foil: c.no_foil.clone(),
        credits: c.credits,
        also_credits: c.also_credits,
        hypothesis: c.hypothesis.clone(),
        reads: c.reads.clone(),
        check,
    })
}

/// A foil is the claim's own check where the property should fail: it
/// reads the claim's control variate unless it names its own, so that the
/// two are held to intervals of one procedure.
fn inherit_control(foil: &mut Check, claim: &Check) {
    let (mine, theirs) = match (foil, claim) {
        (Check::Value(f), Check::Value(c)) => (&mut f.control, &c.control),
        (Check::Bound(f), Check::Bound(c)) => (&mut f.control, &c.control),
        (Check::Limit(f), Check::Limit(c)) => (&mut f.control, &c.control),
        _ => return,
    };
    if mine.is_none() {
        mine.clone_from(theirs);
    }
}

/// A limit's `rate_from`, read into its check: required with `min_rate`
/// (but in a check a claim carries at the claim's own rate, which reads the
/// claim's source), refused without it. `"@<key>, …"` cites the paper the
/// rate is from; `"ours: …"` says why we chose it.
fn rate_source(
    l: &Parsed,
    at: &str,
    check: &mut Check,
    written: Option<&str>,
    claim: Option<&Check>,
    refs: Option<&crate::references::References>,
) -> R {
    let key = format!("{at}.rate_from");
    let Check::Limit(c) = check else {
        return match written {
            Some(_) => Err(l.error(&key, "only a `limit` with `min_rate` has a rate to source")),
            None => Ok(()),
        };
    };
    let Some(rate) = c.min_rate else {
        return match written {
            Some(_) => Err(l.error(
                &key,
                "names where `min_rate` comes from, and the check has none: remove it, or \
                 give min_rate",
            )),
            None => Ok(()),
        };
    };
    let source = match written.map(str::trim) {
        Some(w) => match w.strip_prefix("ours:") {
            Some(why) if !why.trim().is_empty() => RateSource::Ours(why.trim().to_string()),
            Some(_) => return Err(l.error(&key, "say after \"ours:\" why this rate")),
            None if w.starts_with('@') => RateSource::Paper(
                crate::references::cited(refs, w, true).map_err(|why| l.error(&key, why))?,
            ),
            None => {
                return Err(l.error(
                    &key,
                    "either \"@<key>, <where>: <how the rate follows>\" (the paper's \
                     statement or proof gives it) or \"ours: <why this rate>\"",
                ));
            }
        },
        None => match claim {
            Some(Check::Limit(k)) if k.min_rate == Some(rate) => match &k.rate_from {
                Some(s) => s.clone(),
                None => return Ok(()),
            },
            _ if l.older_revision => return Ok(()),
            _ => {
                return Err(l.error(
                    &key,
                    format!(
                        "min_rate = {rate} decides the limit: say where it comes from, \
                         rate_from = \"@<key>, <where>: <how the rate follows>\" if the \
                         paper's statement or proof gives it, or \"ours: <why this rate>\""
                    ),
                ));
            }
        },
    };
    c.rate_from = Some(source);
    Ok(())
}

/// A check a claim carries (`[[claim.why_check]]`, `[claim.foil]`) at key
/// path `at`, checked and typed.
fn carried(l: &Parsed, at: &str, w: &WhyCheckToml) -> Result<WhyCheck, ManifestError> {
    if w.says.trim().is_empty() {
        return Err(l.error(&format!("{at}.says"), "say in words what the check shows"));
    }
    let keys = w.check();
    let (level, stated_level, decide_at) = levels(keys.level, keys.decide_at);
    Ok(WhyCheck {
        says: w.says.clone(),
        check: typed(l, at, &keys)?,
        filter: keys.filter,
        level,
        stated_level,
        decide_at,
    })
}

/// A paper's statement and a stand-in name a foil (the same check where the
/// property should fail) or say why none can fail (`no_foil`); not both,
/// and the foil is a check of the claim's own kind.
fn foil_or_reason(l: &Parsed, at: &str, c: &ClaimToml, origin: Origin) -> R {
    if let Some(f) = &c.foil
        && f.kind != c.kind
    {
        return Err(l.error(
            &format!("{at}.foil.kind"),
            format!(
                "a foil is the claim's own check where the property should fail: kind = \
                 \"{}\", not \"{}\"",
                c.kind.name(),
                f.kind.name()
            ),
        ));
    }
    if c.no_foil.as_deref().is_some_and(|n| n.trim().is_empty()) {
        return Err(l.error(&format!("{at}.no_foil"), "must not be empty"));
    }
    let old = l.older_revision;
    match (&c.foil, &c.no_foil) {
        (Some(_), Some(_)) => Err(l.error(
            &format!("{at}.no_foil"),
            "the claim names a foil: remove `no_foil` (or the foil, if no setting could fail \
             the claim)",
        )),
        // A claim that credits its property is held to the nulls of that
        // credit: they are what could fail it.
        (None, None)
            if matches!(origin, Origin::Paper | Origin::StandIn) && c.credits.is_none() && !old =>
        {
            Err(l.error(
                &format!("{at}.foil"),
                format!(
                    "a {} claim's confirmation counts only if something could have failed it: \
                     name a foil, [claim.foil] with says = \"<the policy, graph, size or setting \
                     where the property should fail, and why>\" and the claim's keys at that \
                     foil; or, if no setting could fail it (a floor every policy meets), say \
                     why in no_foil = \"…\"; or say what it credits (`credits`), whose nulls \
                 could fail it",
                    origin.name()
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// The check of a claim (or of a check of a `why`) at key path `at`, from
/// its keys as written: the names and numbers it writes, whatever its kind,
/// then its control variate, then no key of another kind, and last the
/// check of its kind from the keys that kind needs.
fn typed(l: &Parsed, at: &str, c: &CheckToml) -> Result<Check, ManifestError> {
    let (axes, labels, metrics) = names(l);
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let table = at;
    let at = |k: &str| format!("{table}.{k}");
    names_written(l, &at, c, &axes, &labels, &metrics)?;
    numbers_written(l, &at, c)?;
    let control = match &c.control {
        Some(k) => Some(control(l, &at, c, k, &labels)?),
        None => None,
    };
    no_keys_of_other_kinds(l, table, c.kind)?;
    let k = Keys { l, at: &at, c };
    match c.kind {
        ClaimKind::Ordering => ordering(&k),
        ClaimKind::Value => value(&k, control),
        ClaimKind::Stability => stability(&k),
        ClaimKind::Trend | ClaimKind::Limit => along_an_axis(&k, &axes, control),
        ClaimKind::Bound => bound(&k, control),
    }
}

/// The names a check writes, whatever its kind: its metric, its `where`,
/// its policies, `better` and `worse` (two different policies) and its
/// named references must exist.
fn names_written(
    l: &Parsed,
    at: &dyn Fn(&str) -> String,
    c: &CheckToml,
    axes: &[&str],
    labels: &[&str],
    metrics: &[&str],
) -> R {
    if let Some(m) = &c.metric {
        one_of(l, &at("metric"), "metric", m, metrics)?;
    }
    filter(l, &at("where"), &c.filter, axes)?;
    for (j, p) in c.policies.iter().flatten().enumerate() {
        one_of(
            l,
            &format!("{}[{j}]", at("policies")),
            "policy label",
            p,
            labels,
        )?;
    }
    for (k, v) in [("better", &c.better), ("worse", &c.worse)] {
        if let Some(p) = v {
            one_of(l, &at(k), "policy label", p, labels)?;
        }
    }
    for (k, r) in [("expected", &c.expected), ("bound", &c.bound)] {
        match r {
            Some(Reference::Named(n)) => one_of(l, &at(k), "reference", n, l.model().references())?,
            Some(Reference::Number(x)) if !x.is_finite() => {
                return Err(l.error(&at(k), format!("must be a finite number, got {x}")));
            }
            _ => {}
        }
    }
    if let (Some(b), Some(w)) = (&c.better, &c.worse)
        && b == w
    {
        return Err(l.error(
            &at("worse"),
            format!(
                "an ordering compares two different policies; better and worse are both \
                 \"{b}\""
            ),
        ));
    }
    Ok(())
}

/// The numbers a check writes, whatever its kind: tolerances ≥ 0, a level
/// in (0, 1), and no relative tolerance of an expected 0.
fn numbers_written(l: &Parsed, at: &dyn Fn(&str) -> String, c: &CheckToml) -> R {
    if let Some(t) = c.tolerance
        && !(t >= 0.0 && t.is_finite())
    {
        return Err(l.error(
            &at("tolerance"),
            format!("a relative tolerance ≥ 0, got {t}"),
        ));
    }
    if let Some(t) = c.abs_tolerance
        && !(t >= 0.0 && t.is_finite())
    {
        return Err(l.error(
            &at("abs_tolerance"),
            format!("an absolute tolerance ≥ 0 (in the metric's unit), got {t}"),
        ));
    }
    if let Some(e) = c.equivalence
        && !(e >= 0.0 && e.is_finite())
    {
        return Err(l.error(
            &at("equivalence"),
            format!(
                "an equivalence margin ≥ 0 in the metric's unit (a difference within ± it \
                 is no practical difference), got {e}"
            ),
        ));
    }
    if let Some(r) = c.overhead_ratio
        && !(r >= 1.0 && r.is_finite())
    {
        return Err(l.error(
            &at("overhead_ratio"),
            format!(
                "the most the better policy's messages per arrival may be, as a multiple of \
                 the worse's: a number ≥ 1 (1.25 for a similar overhead, 1 for the same or \
                 smaller), got {r}"
            ),
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
    // A relative tolerance of a reference 0 is 0: it would silently ask the
    // interval to cover 0.
    if c.expected == Some(Reference::Number(0.0))
        && c.tolerance.is_some_and(|t| t > 0.0)
        && c.abs_tolerance.is_none()
    {
        return Err(l.error(
            &at("tolerance"),
            "a relative tolerance of an expected 0 is 0: give abs_tolerance (in the metric's \
             unit) instead",
        ));
    }
    Ok(())
}

/// Keys of another kind of claim in the table at `table` are a mistake,
/// not a no-op: the first as written is an error naming the kinds it
/// belongs to and the keys of `kind`.
fn no_keys_of_other_kinds(l: &Parsed, table: &str, kind: ClaimKind) -> R {
    let of_a_kind = |k: &str| ClaimKind::ALL.iter().any(|kind| kind.keys().contains(&k));
    for path in l.keys_of(table) {
        let key = path.rsplit('.').next().unwrap_or(path);
        if !of_a_kind(key) || kind.keys().contains(&key) {
            continue;
        }
        let owners: Vec<&str> = ClaimKind::ALL
            .iter()
            .filter(|k| k.keys().contains(&key))
            .map(|k| k.name())
            .collect();
        return Err(l.error(
            path,
            format!(
                "`{key}` belongs to {} claims, not to {} claim (whose own keys are {}); \
                 remove it",
                and_list(&owners),
                kind.a(),
                kind.keys().join(", ")
            ),
        ));
    }
    Ok(())
}

/// The keys of a check as written (`c`, at key paths `at`), read for its
/// kind: a key the kind needs and the check lacks is a located error.
struct Keys<'a> {
    l: &'a Parsed,
    at: &'a dyn Fn(&str) -> String,
    c: &'a CheckToml,
}

impl Keys<'_> {
    /// The error of a missing key `k`.
    fn need(&self, k: &str) -> ManifestError {
        self.l.error(
            &(self.at)(k),
            format!("{} claim needs `{k}`", self.c.kind.a()),
        )
    }

    /// `metric`.
    fn metric(&self) -> Result<String, ManifestError> {
        self.c.metric.clone().ok_or_else(|| self.need("metric"))
    }

    /// `policies`, at least one.
    fn policies(&self) -> Result<Vec<String>, ManifestError> {
        self.c
            .policies
            .clone()
            .filter(|p| !p.is_empty())
            .ok_or_else(|| self.need("policies"))
    }

    /// `tolerance` and `abs_tolerance`, 0 when left out.
    fn tolerance(&self) -> Tolerance {
        Tolerance {
            relative: self.c.tolerance.unwrap_or(0.0),
            absolute: self.c.abs_tolerance.unwrap_or(0.0),
        }
    }
}

/// An ordering claim: `metric`, the policy `better` and the one it beats,
/// `worse`.
fn ordering(k: &Keys) -> Result<Check, ManifestError> {
    let metric = k.metric()?;
    let better = k.c.better.clone().ok_or_else(|| k.need("better"))?;
    let worse = k.c.worse.clone().ok_or_else(|| k.need("worse"))?;
    Ok(Check::Ordering(Ordering {
        metric,
        better,
        worse,
        equivalence: k.c.equivalence.unwrap_or(0.0),
        overhead_ratio: k.c.overhead_ratio,
    }))
}

/// A value claim: `metric` of `policies` against `expected`, within the
/// tolerances, estimated with the `control` variate if it has one.
fn value(k: &Keys, control: Option<Control>) -> Result<Check, ManifestError> {
    let metric = k.metric()?;
    let policies = k.policies()?;
    let expected = k.c.expected.clone().ok_or_else(|| k.need("expected"))?;
    Ok(Check::Value(Value {
        metric,
        policies,
        expected,
        tolerance: k.tolerance(),
        control,
    }))
}

/// A stability claim: `policies` and the verdict claimed, `stable`.
fn stability(k: &Keys) -> Result<Check, ManifestError> {
    let policies = k.policies()?;
    let stable = k.c.stable.ok_or_else(|| k.need("stable"))?;
    Ok(Check::Stability(Stability { policies, stable }))
}

/// A trend or limit claim: `metric` of `policies` along `along`, a numeric
/// sweep axis (of `axes`) with at least two values; then the keys of its
/// kind ([`trend`], [`limit`]).
fn along_an_axis(
    k: &Keys,
    axes: &[&str],
    control: Option<Control>,
) -> Result<Check, ManifestError> {
    let (l, at, kind) = (k.l, k.at, k.c.kind);
    let metric = k.metric()?;
    let policies = k.policies()?;
    let along = k.c.along.clone().ok_or_else(|| k.need("along"))?;
    one_of(l, &at("along"), "sweep axis", &along, axes)?;
    let values = l.manifest.axis_values(&along);
    if values.len() < 2 || values.iter().any(|v| v.parse::<f64>().is_err()) {
        return Err(l.error(
            &at("along"),
            format!(
                "a {} needs a numeric sweep axis with at least two values; \
                 `{along}` has {}",
                kind.name(),
                values.join(", ")
            ),
        ));
    }
    Ok(if kind == ClaimKind::Limit {
        let (toward, expected, last) = limit(l, at, k.c, &along, values.len())?;
        Check::Limit(Limit {
            metric,
            policies,
            along,
            toward,
            expected,
            tolerance: k.tolerance(),
            last,
            min_rate: k.c.min_rate,
            // Read with the references where the claim is (`rate_source`).
            rate_from: None,
            // A limit with a slowest rate is decided by its rate where its nearest
            // point lies outside the tolerance, unless it says otherwise: one rule
            // for statements and stand-ins.
            rate_decides: k.c.rate_decides.unwrap_or(k.c.min_rate.is_some()),
            approaches: k.c.approaches.unwrap_or(true),
            control,
        })
    } else {
        Check::Trend(Trend {
            metric,
            policies,
            along,
            direction: trend(l, at, k.c)?,
            equivalence: k.c.equivalence.unwrap_or(0.0),
        })
    })
}

/// A bound claim: `metric` of `policies` on the `side` ("le" or "ge") of
/// `bound`, estimated with the `control` variate if it has one.
fn bound(k: &Keys, control: Option<Control>) -> Result<Check, ManifestError> {
    let metric = k.metric()?;
    let policies = k.policies()?;
    let bound = k.c.bound.clone().ok_or_else(|| k.need("bound"))?;
    let side = match k.c.side.as_deref() {
        Some("le") => Side::Le,
        Some("ge") => Side::Ge,
        _ => {
            return Err(k.l.error(
                &(k.at)("side"),
                "a bound claim needs side = \"le\" (metric ≤ bound) or \"ge\"",
            ));
        }
    };
    Ok(Check::Bound(Bound {
        metric,
        policies,
        bound,
        side,
        control,
    }))
}

/// "a", "a and b", "a, b and c".
fn and_list(xs: &[&str]) -> String {
    match xs {
        [] => String::new(),
        [x] => x.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// A claim's control variate (`control`, at `at("control")`): of a value,
/// bound or limit claim, another policy of the experiment, a named exact mean, and
/// how β is chosen.
fn control(
    l: &Parsed,
    at: &dyn Fn(&str) -> String,
    c: &CheckToml,
    k: &ControlToml,
    labels: &[&str],
) -> Result<Control, ManifestError> {
    for r in [&c.expected, &c.bound] {
        if let Some(Reference::Named(name)) = r
            && l.model().per_replication(name)
        {
            return Err(l.error(
                &at("control"),
                format!(
                    "the {name} reference is drawn per replication and is already paired with \
                     the metric: a control variate would drop that pairing; remove `control`"
                ),
            ));
        }
    }
    if !c.kind.keys().contains(&"control") {
        return Err(l.error(
            &at("control"),
            "a control variate estimates the metric of a value, bound or limit claim; remove it",
        ));
    }
    one_of(l, &at("control.policy"), "policy label", &k.policy, labels)?;
    if c.policies.iter().flatten().any(|p| *p == k.policy) {
        return Err(l.error(
            &at("control.policy"),
            format!(
                "`{}` is a policy the claim is about; the control is another policy of \
                 the experiment",
                k.policy
            ),
        ));
    }
    one_of(
        l,
        &at("control.mean"),
        "reference",
        &k.mean,
        l.model().references(),
    )?;
    let beta = match k.beta.as_deref() {
        Some("one") => Beta::One,
        None | Some("fitted") => Beta::Fitted,
        Some(_) => {
            return Err(l.error(
                &at("control.beta"),
                "\"fitted\" (least-squares β, the default) or \"one\" (E[Y] + mean(X − Y))",
            ));
        }
    };
    Ok(Control {
        policy: k.policy.clone(),
        mean: k.mean.clone(),
        beta,
    })
}

/// The keys of a `limit` claim beyond a trend's: the limit `expected`, where
/// the axis `along` goes (`toward`), and how many points nearest the limit
/// are read (`last`, of the axis's `n` values).
fn limit(
    l: &Parsed,
    at: &dyn Fn(&str) -> String,
    c: &CheckToml,
    along: &str,
    n: usize,
) -> Result<(Toward, Reference, u32), ManifestError> {
    let Some(expected) = c.expected.clone() else {
        return Err(l.error(
            &at("expected"),
            "a limit claim needs `expected`: the limit, a number or a named reference",
        ));
    };
    let toward = match c.toward.as_deref() {
        Some("zero") => Toward::Zero,
        Some("infinity") => Toward::Infinity,
        _ => {
            return Err(l.error(
                &at("toward"),
                format!(
                    "a limit claim needs toward = \"zero\" or \"infinity\": where `{along}` goes"
                ),
            ));
        }
    };
    let last = c.last.unwrap_or(Limit::DEFAULT_LAST);
    if let Some(k) = c.last
        && !(2..=n as u32).contains(&k)
    {
        return Err(l.error(
            &at("last"),
            format!(
                "the number of points nearest the limit that are read: 2 to {n} (the axis's \
                 values), got {k}"
            ),
        ));
    }
    // The rate of approach is read on a log scale of the axis.
    if let Some(v) = l
        .manifest
        .axis_values(along)
        .iter()
        .find(|v| v.parse::<f64>().is_ok_and(|x| x <= 0.0))
    {
        return Err(l.error(
            &at("along"),
            format!("a limit is read on a log scale of its axis; `{along}` has the value {v} ≤ 0"),
        ));
    }
    if let Some(r) = c.min_rate
        && !(r > 0.0 && r.is_finite())
    {
        return Err(l.error(
            &at("min_rate"),
            format!("the slowest rate of approach counted as one: a number > 0, got {r}"),
        ));
    }
    if c.approaches == Some(false) && (c.min_rate.is_none() || c.rate_decides == Some(false)) {
        return Err(l.error(
            &at("approaches"),
            "a metric that does not tend to its limit is told from one that does by the rate \
             of its gap: give min_rate = <the slowest rate of approach counted as one> (and \
             leave rate_decides at its default)",
        ));
    }
    if c.rate_decides == Some(true) && c.min_rate.is_none() {
        return Err(l.error(
            &at("rate_decides"),
            "the rate decides against `min_rate`: give min_rate = <the slowest rate of \
             approach counted as one>",
        ));
    }
    Ok((toward, expected, last))
}

/// The key of a `trend` claim beyond its axis: which way it moves.
fn trend(
    l: &Parsed,
    at: &dyn Fn(&str) -> String,
    c: &CheckToml,
) -> Result<Direction, ManifestError> {
    match c.direction.as_deref() {
        Some("increasing") => Ok(Direction::Increasing),
        Some("decreasing") => Ok(Direction::Decreasing),
        _ => Err(l.error(
            &at("direction"),
            "a trend claim needs direction = \"increasing\" or \"decreasing\"",
        )),
    }
}
