//! Writes an experiment's outputs under `paper-figures/<experiment>/` and
//! assembles the report pages `paper-figures/README.md` and `audit.md`.
//! Everything written is a function of the cached
//! records and the manifests: no timestamps, no host names, so a warm
//! `lb reproduce` leaves every file byte-identical.
//!
//! Each experiment's part of the pages is kept beside its outputs
//! (`report.md`, `audit.md`, `claims.json`), and the pages are assembled from
//! those parts. So a command on one experiment rewrites that experiment's
//! parts only, and the pages change only where its section does.

use crate::cells::{anchor, verdict_cell};
use lb_analysis::figure::{Figure, FigureSpec, render};
pub use lb_analysis::files::write_if_changed;
use lb_analysis::metric::Metric;
use lb_analysis::results::PointResult;
use lb_analysis::stats::{LEVEL, interval};
use lb_analysis::table::{csv, json, markdown, point_summaries, replications_frame, summary_frame};
use lb_audit::{ClaimResult, ExperimentClaims, Verdict, describe};
use lb_draw::markup::{cell as md, to_markdown};
use lb_manifest::claim::Origin;
use lb_model::precision::PrecisionRule;
use lb_model::precision::stein_interval;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What the report needs of one experiment.
pub struct Experiment<'a> {
    /// Its name, the manifest's `[experiment] name`.
    pub name: &'a str,
    /// Its title.
    pub title: &'a str,
    /// The paper and place it reproduces, as the manifest cites it.
    pub source: Option<&'a str>,
    /// The manifest's notes, as written.
    pub notes: Option<&'a str>,
    /// The manifest, relative to the repository root.
    pub manifest: &'a Path,
    /// Its points read from the cache.
    pub results: &'a [PointResult],
    /// Its figures, as the manifest declares them.
    pub figures: &'a [FigureSpec],
    /// Its claims, audited.
    pub claims: &'a [ClaimResult],
    /// Its precision target, if it sets one.
    pub precision: Option<PrecisionRule>,
    /// Replications per point when it sets a number instead.
    pub replications: Option<u32>,
    /// Its claim robustness maps, audited.
    pub robustness: &'a [lb_audit::robustness::MapResult],
    /// What a recompute runs beside its own points, as (records, CPU-seconds
    /// on one thread, their provenance's own times): the points of its
    /// robustness maps' combinations other than its own, and its
    /// message-budget calibrations.
    pub robustness_cost: (u64, f64),
    /// As `robustness_cost`, for its message-budget calibrations.
    pub calibration_cost: (u64, f64),
    /// Its prose fields that may quote measured values, as written, with
    /// their paths (`lb_manifest::prose::fields`): their quotes' records are
    /// listed in `quotes.csv`.
    pub prose: Vec<(String, String)>,
}

/// A point whose interval misses the experiment's precision target.
#[derive(Debug, Clone, PartialEq)]
pub struct Imprecise {
    /// The series' label.
    pub policy: String,
    /// The point's axes in words.
    pub at: String,
    /// Its interval's half-width relative to its mean.
    pub rel_half_width: f64,
    /// The replications it has.
    pub replications: usize,
    /// The replications its own variance asks for (the fewest n on the
    /// rule's grid whose half-width t_{n−1}·s/√n meets the target, as the
    /// pilot rule computes it), and their CPU beyond those run, at the
    /// point's mean CPU a replication. None when the mean is 0 or the
    /// variance undefined, or the rule stopped at the first stage.
    pub needs: Option<(u32, f64)>,
    /// Its rule stopped at the first stage: at least half its runs have not
    /// relaxed ([`PrecisionRule::stops_unsettled`]).
    pub unsettled: bool,
}

/// The replications the sample `vals` asks for under `rule` (the pilot
/// rule's computation on the sample's mean and standard deviation: the
/// fewest n, from the sample's length up in the rule's steps and past its
/// `max` if need be, whose t_{n−1}·s/√n meets the target at the rule's
/// level); None if the target is 0 or the variance undefined.
fn replications_needed(vals: &[f64], rule: &PrecisionRule) -> Option<u32> {
    let n0 = vals.len() as f64;
    let mean = vals.iter().sum::<f64>() / n0;
    let var = vals.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n0 - 1.0);
    let target = rule.rel_half_width * mean.abs();
    if target == 0.0 || !var.is_finite() {
        return None;
    }
    first_meeting(rule, vals.len(), var, target, |n| {
        rule.half_width_meets(n, var, target)
    })
}

/// The replications Stein's interval needs to meet the rule's target, from
/// `vals.len()` on along its grid: its half-width t_{f−1}·s₀/√n on the
/// first stage's s₀ (the first `f` values) against the target at the mean
/// of all; None when the target is 0 or the variance undefined.
fn stein_needed(vals: &[f64], f: usize, rule: &PrecisionRule) -> Option<u32> {
    let first = interval(&vals[..f], LEVEL);
    let mean = vals.iter().sum::<f64>() / vals.len() as f64;
    let target = rule.rel_half_width * mean.abs();
    if target == 0.0 || !first.half_width.is_finite() {
        return None;
    }
    // Stein's half-width at n is the first stage's at f times √(f/n).
    let want = ((first.half_width / target).powi(2) * f as f64).ceil();
    let step = rule.step.max(1) as f64;
    let have = (rule.min as f64).max(vals.len() as f64);
    let k = ((want - have) / step).ceil().max(0.0);
    Some((have + k * step).min(u32::MAX as f64) as u32)
}

/// The pairs a control-variate interval (β fitted) needs to meet the rule's
/// target, from `have` on along its grid, for residual variance `var` and
/// estimate `mean` ([`PrecisionRule::controlled_half_width`]; under Stein's
/// rule, with a first stage of `first` pairs,
/// [`PrecisionRule::stein_controlled_half_width`]); None when the target is
/// 0 or the variance undefined.
fn controlled_needed(
    rule: &PrecisionRule,
    first: Option<u32>,
    var: f64,
    mean: f64,
    have: usize,
) -> Option<u32> {
    let target = rule.rel_half_width * mean;
    if target == 0.0 || !var.is_finite() {
        return None;
    }
    first_meeting(rule, have.max(4), var, target, |n| {
        let hw = match first {
            Some(f) => rule.stein_controlled_half_width(f, n, var),
            None => rule.controlled_half_width(n, var),
        };
        hw <= target
    })
}

/// The fewest n from `have` (and the rule's `min`) up in the rule's steps,
/// past its `max` if need be, for which `meets(n)`: far enough for any
/// reachable target, z²·var/target² with z < 3.
fn first_meeting(
    rule: &PrecisionRule,
    have: usize,
    var: f64,
    target: f64,
    meets: impl Fn(u32) -> bool,
) -> Option<u32> {
    let step = rule.step.max(1);
    let mut n = rule.min.max(have as u32);
    let bound = (9.0 * var / (target * target)).ceil().min(1e9) as u32 + step;
    while n <= bound.max(rule.max) {
        if meets(n) {
            return Some(n);
        }
        n = n.saturating_add(step);
    }
    None
}

/// What was written for one experiment.
pub struct Written {
    /// The files written (those whose content changed among them).
    pub files: Vec<PathBuf>,
    /// The figures drawn.
    pub figures: Vec<Figure>,
    /// Points that miss the precision target (only if the experiment sets one).
    pub imprecise: Vec<Imprecise>,
    /// Points not yet in the cache.
    pub missing: usize,
}

/// The points whose interval on the precision metric is wider than the
/// target (relative half-width), with their replications. A point its rule
/// paired with a control variate ([`lb_analysis::paired`]) is held to its
/// control-variate interval (β fitted), as its rule decided, and what it
/// needs follows the pairs' residual variance.
pub fn imprecise(results: &[PointResult], rule: &PrecisionRule) -> Vec<Imprecise> {
    let mut out = Vec::new();
    for r in results {
        let Some(point) = &r.point else { continue };
        if lb_analysis::results::point_unstable(&r.summaries) {
            continue;
        }
        // Another point's control variate at its first stage: its rule stops
        // there (`control_only`), its precision being the controlled points'.
        let controls = results.iter().any(|o| {
            o.control
                .as_ref()
                .is_some_and(|c| Some(c.point.key()) == r.key)
        });
        if controls && r.first_stage == Some(r.summaries.len()) {
            continue;
        }
        let vals: Vec<f64> = r
            .summaries
            .iter()
            .filter_map(|s| point.metric(&rule.metric.0, s))
            .collect();
        if vals.len() < 2 {
            continue;
        }
        let metric = lb_analysis::metric::Metric::validated(point.config.model(), &rule.metric.0);
        let (rel, needs) = match lb_analysis::paired::controlled(metric, r) {
            Some(c) => {
                let (ys, cs): (Vec<f64>, Vec<f64>) = c.pairs.iter().copied().unzip();
                // Under Stein's rule the first stage's residual variance.
                let f = r.first_stage.filter(|&f| f < ys.len()).unwrap_or(ys.len());
                let var = lb_model::precision::residual_variance(&ys[..f], &cs[..f]);
                let mean = c.estimate.mean.abs();
                let hw = c.estimate.half_width().unwrap_or(f64::INFINITY);
                let first = r.first_stage.map(|f| f as u32);
                (
                    hw / mean,
                    controlled_needed(rule, first, var, mean, c.pairs.len()),
                )
            }
            None => match r.first_stage.filter(|&f| f < vals.len()) {
                Some(f) => {
                    let iv = stein_interval(&vals, f, LEVEL);
                    (iv.half_width / iv.mean.abs(), stein_needed(&vals, f, rule))
                }
                None => {
                    let iv = interval(&vals, LEVEL);
                    (
                        iv.half_width / iv.mean.abs(),
                        replications_needed(&vals, rule),
                    )
                }
            },
        };
        let first = r.first_stage.unwrap_or(0).min(r.summaries.len());
        let unsettled = first > 0 && rule.stops_unsettled(&r.summaries[..first]);
        let needs = needs.filter(|_| !unsettled);
        if rel.is_nan() || rel > rule.rel_half_width {
            out.push(Imprecise {
                unsettled,
                policy: r.label.clone(),
                at: r
                    .axes
                    .iter()
                    .map(|(a, v)| format!("{a} = {v}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                rel_half_width: rel,
                replications: vals.len(),
                needs: needs.map(|n| {
                    let per = r.seconds.iter().sum::<f64>() / r.seconds.len().max(1) as f64;
                    (n, per * n.saturating_sub(vals.len() as u32) as f64)
                }),
            });
        }
    }
    out
}

/// Writes tables, figures and the experiment's parts of the report pages
/// under `out/<name>/`.
pub fn write_experiment(
    out: &Path,
    exp: &Experiment,
) -> Result<Written, Box<dyn std::error::Error>> {
    let dir = out.join(exp.name);
    std::fs::create_dir_all(&dir)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
    let mut files = Vec::new();
    let axes = lb_analysis::results::axis_names(exp.results);
    let metrics = Metric::table_metrics_for(lb_analysis::results::model(exp.results), &axes);
    let long = replications_frame(exp.name, exp.results, &metrics)?;
    let sums = point_summaries(exp.results, &long, &metrics)?;
    let summary = summary_frame(exp.results, &sums, &metrics)?;
    let tidy = lb_analysis::tidy::experiment_frame(exp.name, exp.results, &sums, &metrics)?;
    for (file, body) in [
        ("replications.csv", csv(&long)?.into_bytes()),
        ("table.csv", csv(&summary)?.into_bytes()),
        ("table.md", markdown(&summary)?.into_bytes()),
        ("table.json", json(&summary)?.into_bytes()),
        ("long.csv", csv(&tidy)?.into_bytes()),
        ("long.parquet", lb_analysis::tidy::parquet(&tidy)?),
    ] {
        let p = dir.join(file);
        write_if_changed(&p, &body)?;
        files.push(p);
    }
    let mut figures = Vec::new();
    for spec in exp.figures {
        let fig = Figure::new(spec, exp.results);
        // Render into a scratch stem, then move only changed files into place.
        let scratch = std::env::temp_dir().join(format!(
            "lb-fig-{}-{}-{}",
            std::process::id(),
            exp.name,
            spec.name
        ));
        render(&fig, &scratch)?;
        for ext in ["svg", "png", "pdf"] {
            let from = scratch.with_extension(ext);
            let to = dir.join(&spec.name).with_extension(ext);
            let body = std::fs::read(&from)?;
            std::fs::remove_file(&from)?;
            write_if_changed(&to, &body)?;
            files.push(to);
        }
        // Sidecar: the keys of every plotted point, for `lb show`.
        let p = dir.join(format!("{}.keys.csv", spec.name));
        write_if_changed(&p, keys_csv(&fig).as_bytes())?;
        files.push(p);
        figures.push(fig);
    }
    for m in exp.robustness {
        files.extend(lb_audit::robustness::write_figure(&dir, m)?);
    }
    let p = dir.join("quotes.csv");
    write_if_changed(&p, quotes_csv(&exp.prose, exp.results).as_bytes())?;
    files.push(p);
    let missing = exp.results.iter().filter(|r| !r.complete()).count();
    let imprecise = exp
        .precision
        .as_ref()
        .map(|p| imprecise(exp.results, p))
        .unwrap_or_default();
    let w = Written {
        files,
        figures,
        imprecise,
        missing,
    };
    let claims = lb_audit::robustness::with_maps(
        ExperimentClaims::new(exp.name, exp.title, exp.claims),
        exp.robustness,
    );
    for (file, body) in [
        ("report.md", section(exp, &w)),
        (
            "audit.md",
            crate::markdown::fragment(exp.name, exp.title, exp.claims)
                + &lb_audit::robustness::markdown(exp.robustness, None),
        ),
        ("claims.json", claims_json(&claims)),
    ] {
        let p = dir.join(file);
        write_if_changed(&p, body.as_bytes())?;
    }
    Ok(w)
}

/// `<experiment>/claims.json`.
pub fn claims_json(c: &ExperimentClaims) -> String {
    serde_json::to_string_pretty(c).expect("JSON") + "\n"
}

/// The sidecar of a figure: every plotted point with its interval and key.
pub(crate) fn keys_csv(fig: &Figure) -> String {
    let mut keys = String::from("series,x,mean,lo,hi,interval,stable,key\n");
    let opt = |v: Option<f64>| v.map(|h| h.to_string()).unwrap_or_default();
    let quoted = |name: &str| format!("\"{}\"", name.replace('"', "\"\""));
    for ser in &fig.series {
        for d in &ser.dots {
            let (lo, hi, kind) = (opt(d.est.lo), opt(d.est.hi), d.est.kind.word());
            let row = [
                d.x.to_string(),
                d.est.mean.to_string(),
                lo,
                hi,
                kind.to_string(),
            ];
            let _ = writeln!(
                keys,
                "{},{},{},{}",
                quoted(&ser.name),
                row.join(","),
                d.stable,
                d.key
            );
        }
    }
    // A path figure: a row per series, naming the point its paths are of
    // (no x or interval: the paths are drawn against time).
    for ps in &fig.paths {
        let _ = writeln!(
            keys,
            "{},,,,,path,{},{}",
            quoted(&ps.name),
            ps.stable,
            ps.key
        );
    }
    keys
}

/// The sidecar of the quotes in an experiment's prose: each quote, where
/// it is written, the value the report prints and the keys of the records
/// it read (`lb show KEY`), space-separated.
pub(crate) fn quotes_csv(prose: &[(String, String)], results: &[PointResult]) -> String {
    let mut out = String::from("field,quote,value,keys\n");
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    for (field, text) in prose {
        for t in lb_analysis::prose::expand(text, results).1 {
            let _ = writeln!(
                out,
                "{},{},{},{}",
                field,
                q(&t.quote),
                q(&t.value),
                t.keys.join(" ")
            );
        }
    }
    out
}

/// Who makes a figure's claim line, from the origins of the experiment's
/// claims (so that a caption never calls a conjecture of ours the paper's).
fn claim_label(claims: &[&ClaimResult]) -> &'static str {
    let has = |o: Origin| claims.iter().any(|c| c.origin == o);
    if has(Origin::Paper) {
        "The paper claims"
    } else if has(Origin::StandIn) {
        "The paper claims (audited here through our stand-ins)"
    } else if has(Origin::Ours) {
        "We conjecture"
    } else {
        "lb checks"
    }
}

/// The verdicts of the claims behind a figure's claim line, from the audit:
/// " Audited: `id` (the paper's) **confirmed**, …".
fn verdicts_line(experiment: &str, claims: &[&ClaimResult]) -> String {
    let parts: Vec<String> = claims
        .iter()
        .filter(|c| !c.required && c.origin != Origin::Check)
        .map(|c| {
            let whose = match c.origin {
                Origin::Paper => "the paper's",
                Origin::StandIn => "our stand-in",
                Origin::Ours => "ours",
                Origin::Check => "lb's check",
            };
            let v = lb_audit::verdict_words(c.verdict.word(), c.untested.is_some(), c.no_point());
            format!(
                "[`{}`](audit.md#{}) ({whose}) **{v}**",
                c.id,
                anchor(experiment, &c.id)
            )
        })
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" Audited: {}.", parts.join(", "))
    }
}

/// The experiment's section of the report page.
pub fn section(exp: &Experiment, w: &Written) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "<a id=\"{}\"></a>\n", exp.name);
    let _ = writeln!(s, "## {} — {}\n", exp.name, md(exp.title));
    if let Some(src) = exp.source {
        let _ = writeln!(
            s,
            "Source: {}. Manifest: `{}`.\n",
            md(src),
            exp.manifest.display()
        );
    }
    let quoted = |t: &str| to_markdown(lb_analysis::prose::expanded(t, exp.results).trim());
    if let Some(n) = exp.notes {
        let _ = writeln!(s, "{}\n", quoted(n));
    }
    for f in &w.figures {
        let spec = &f.spec;
        let _ = writeln!(s, "### {}\n", md(&spec.title));
        let _ = writeln!(
            s,
            "![{}]({}/{}.svg)\n",
            lb_draw::markup::plain(&spec.title).replace(['[', ']'], ""),
            exp.name,
            spec.name
        );
        let _ = writeln!(
            s,
            "Files: [SVG]({0}/{1}.svg), [PNG]({0}/{1}.png), [PDF]({0}/{1}.pdf) (vector, \
             its text searchable, for LaTeX).\n",
            exp.name, spec.name
        );
        let bars = lb_analysis::figure::bars_note(f, &spec.caption)
            .map(|b| format!(" {b}"))
            .unwrap_or_default();
        let _ = writeln!(s, "{}{bars}\n", quoted(&spec.caption));
        if let Some(claim) = &spec.claim {
            // The claims on the figure's metric and its stability claims
            // (every figure marks what is unstable), where some read the
            // metric; else all of the experiment's (a figure of paths).
            let on_y_metric = |c: &ClaimResult| {
                spec.y
                    .is_some_and(|y| c.metric.as_deref() == Some(y.name()))
            };
            let some_on_y = exp.claims.iter().any(on_y_metric);
            let claims: Vec<&ClaimResult> = exp
                .claims
                .iter()
                .filter(|c| {
                    !some_on_y
                        || on_y_metric(c)
                        || c.kind == lb_manifest::claim::ClaimKind::Stability
                })
                .collect();
            let _ = writeln!(
                s,
                "*{}:* {}{}\n",
                claim_label(&claims),
                quoted(claim),
                verdicts_line(exp.name, &claims)
            );
        }
    }
    verdicts_table(&mut s, exp);
    s.push_str(&lb_audit::robustness::markdown(
        exp.robustness,
        Some(Path::new(exp.name)),
    ));
    let _ = writeln!(
        s,
        "Table: [`{0}/table.md`]({0}/table.md) ([CSV]({0}/table.csv), [JSON]({0}/table.json), \
         [per replication]({0}/replications.csv)); tidy, a row per (point, metric): \
         [Parquet]({0}/long.parquet), [CSV]({0}/long.csv).\n",
        exp.name
    );
    // Each key once (two labels may plan the same point).
    let mut seen = std::collections::BTreeSet::new();
    let (records, cpu) = exp
        .results
        .iter()
        .filter(|r| r.key.as_ref().is_some_and(|k| seen.insert(*k)))
        .fold((0, 0.0), |(n, t), r| {
            (
                n + r.seconds.len() + r.pilot.0,
                t + r.seconds.iter().sum::<f64>() + r.pilot.1,
            )
        });
    if records > 0 {
        let beside = |(n, t): (u64, f64), what: &str| {
            (n > 0).then(|| {
                format!(
                    "{what}: {n} records, {} CPU-seconds",
                    lb_analysis::table::fmt_sig(t, 3)
                )
            })
        };
        let besides: Vec<String> = [
            beside(
                exp.robustness_cost,
                "its robustness maps' other combinations",
            ),
            beside(exp.calibration_cost, "its message-budget calibrations"),
        ]
        .into_iter()
        .flatten()
        .collect();
        let _ = writeln!(
            s,
            "Cost: {records} replication records, {} CPU-seconds on one thread (the sum of \
             their own times, as their provenance states: what a recompute from an empty cache \
             takes; precision pilots included){}.\n",
            lb_analysis::table::fmt_sig(cpu, 3),
            if besides.is_empty() {
                String::new()
            } else {
                format!("; beside them, {}", besides.join("; "))
            }
        );
    }
    if w.missing > 0 {
        let _ = writeln!(
            s,
            "**{} point(s) not yet computed** (`lb run {}`).\n",
            w.missing,
            exp.manifest.display()
        );
    }
    precision_part(&mut s, exp, w, cpu);
    s
}

/// An experiment's verdicts as a table: each claim, what was measured at its
/// deciding point, and why one did not reproduce.
fn verdicts_table(s: &mut String, exp: &Experiment) {
    if !exp.claims.is_empty() {
        let _ = writeln!(
            s,
            "**Verdicts** on the claims ([audit](audit.md#{})):\n",
            exp.name
        );
        s.push_str("| verdict | the claim | what we measured | why |\n");
        s.push_str("| --- | --- | --- | --- |\n");
        for c in exp.claims {
            let ok = c
                .checks
                .iter()
                .filter(|k| k.verdict == lb_audit::Verdict::Confirmed)
                .count();
            let deciding = c.deciding().map(|k| describe(c, k)).unwrap_or_else(|| {
                if c.checks.is_empty() {
                    "no points computed".into()
                } else {
                    "no informative point".into()
                }
            });
            let why = match (&c.why, c.verdict) {
                (None, lb_audit::Verdict::Confirmed) if c.untested.is_some() => {
                    md(c.untested.as_deref().unwrap_or_default())
                }
                (Some(w), _) => {
                    let mut t = md(w);
                    for wc in &c.why_checks {
                        let _ = write!(
                            t,
                            " *Check:* {} — **{}**.",
                            md(&wc.statement),
                            wc.verdict.word()
                        );
                    }
                    t
                }
                (None, lb_audit::Verdict::Confirmed) => String::new(),
                (None, _) if c.required => String::new(),
                (None, _) => match &c.to_decide {
                    Some(t) => format!("undecided; what would decide it: {}", md(t)),
                    None => "not given in the manifest".into(),
                },
            };
            let _ = writeln!(
                s,
                "| [{}](audit.md#{}) | {} | {} ({ok} of {} points confirmed) | {} |",
                lb_audit::verdict_words(
                    &verdict_cell(c.verdict.word(), c.required),
                    c.untested.is_some(),
                    c.no_point()
                ),
                anchor(exp.name, &c.id),
                md(&c.statement),
                md(&deciding),
                c.checks.len(),
                why
            );
        }
        s.push('\n');
    }
}

/// What an experiment's precision rule achieved (the points above their
/// target, what meeting it would cost), or its fixed replications; `cpu` is
/// what the experiment's records cost.
fn precision_part(s: &mut String, exp: &Experiment, w: &Written, cpu: f64) {
    match (&exp.precision, exp.replications) {
        (Some(p), _) => {
            let target = lb_draw::ticks::format_tick(100.0 * p.rel_half_width, None);
            if let Some(c) = exp.results.iter().find_map(|r| r.control.as_ref()) {
                let _ = writeln!(
                    s,
                    "Precision is read with a control variate: where a point's pilot finds that \
                     the control ({}, exact mean `{}`) on its own arrivals and service at least \
                     halves its interval, the point is paired with it, its replications are \
                     chosen on the variance the control leaves, and its interval in the table, \
                     the figures and the quotes is the control-variate interval (β fitted; the \
                     table's column `control` names the paired points). The others, and the \
                     control's own points, are read directly; the control's own points, which \
                     no figure draws, run their first stage and the replications the points \
                     they control pair with.\n",
                    c.point.policy_name(),
                    c.mean
                );
            }
            if w.imprecise.is_empty() {
                let _ = writeln!(
                    s,
                    "Precision: every stable point met the target (95% half-width ≤ {target}% \
                     of the mean of `{}`).\n",
                    p.metric.0
                );
            } else {
                let _ = writeln!(
                    s,
                    "Precision: the target is a 95% half-width ≤ {target}% of the mean of `{}`, \
                     with at most {} replications. Points above it:\n",
                    p.metric.0, p.max
                );
                let mut more = 0.0;
                for i in &w.imprecise {
                    let needs = match i.needs {
                        Some((n, cpu)) => {
                            more += cpu;
                            format!(
                                "; its own variance asks for {n}{} (about {} CPU-seconds more)",
                                if n > p.max {
                                    ", beyond the rule's maximum"
                                } else {
                                    ""
                                },
                                lb_analysis::table::fmt_sig(cpu, 2)
                            )
                        }
                        None if i.unsettled => "; the rule stopped at its first stage: at \
                                                least half its runs have not relaxed, and \
                                                longer runs, not more of them, would settle it"
                            .into(),
                        None => String::new(),
                    };
                    let _ = writeln!(
                        s,
                        "- {} at {}: {}% with {} replications{needs}",
                        i.policy,
                        i.at,
                        lb_analysis::table::fmt_sig(100.0 * i.rel_half_width, 3),
                        i.replications
                    );
                }
                if more > 0.0 {
                    let _ = writeln!(
                        s,
                        "\nThe stated precision at every point would take about {} CPU-seconds \
                         more, {}% of what the experiment cost (each point's replications from \
                         its own variance, at its own CPU a replication; {}).",
                        lb_analysis::table::fmt_sig(more, 2),
                        lb_analysis::table::fmt_sig(100.0 * more / cpu.max(f64::MIN_POSITIVE), 2),
                        match p.procedure {
                            lb_model::precision::Procedure::Stein => {
                                "run as a larger first stage, whose variance Stein's intervals \
                                 then read"
                            }
                            _ => {
                                "run as a larger pilot, so that the count does not depend on \
                                 the replications it reads"
                            }
                        },
                    );
                }
                s.push('\n');
            }
        }
        (None, Some(k)) => {
            let _ = writeln!(
                s,
                "Replications: {k} per point (the manifest sets no precision target).\n"
            );
        }
        (None, None) => {}
    }
}

/// The report page: the intro, the verdict summary of every experiment
/// (linked to the audit), then each experiment's section (`sections`, in
/// order), the coverage certificate's section (`coverage`, Markdown), the
/// glossary and the references.
pub fn page(
    experiments: &[(ExperimentClaims, String)],
    coverage: &str,
    inventories: &[lb_manifest::inventory::Inventory],
    answers: &str,
    references: &str,
) -> String {
    let mut s = String::new();
    s.push_str("# lb — reproduced figures and tables\n\n");
    s.push_str(
        &"Generated by `lb reproduce` from the manifests in `experiments/` and the records in \
         `results/`; do not edit by hand. Every point of a figure or table is a mean over \
         independent replications with its 95% interval (Student-t; Wilson for proportions, \
         which stay inside [0, 1]); a point whose replications are judged unstable is marked \
         in the *unstable* band above the plot, never plotted as a number, and a point whose \
         runs have not settled is drawn with a dashed ring: it decides no claim. Each figure has a \
         `.keys.csv` sidecar naming the record behind every point (`lb show KEY`). The \
         [audit](audit.md) holds every claim against the records, at the level its manifest \
         sets, printed beside each of its intervals: figures draw 95% intervals, while a claim \
         stated at 95% is decided at LEVEL95 (the level at which lb's coverage certificate \
         measured its intervals to cover 95%) and a claim looked at again is decided at a \
         higher one, so a figure's interval and a verdict's may differ slightly.\n\n"
            .replace("LEVEL95", &lb_manifest::calibration::stated_95_in_words()),
    );
    s.push_str("## What was audited, and how it came out\n\n");
    let exps: Vec<&ExperimentClaims> = experiments.iter().map(|(e, _)| e).collect();
    let _ = writeln!(s, "{}", crate::headline::at_a_glance(&exps, inventories));
    let _ = writeln!(
        s,
        "{}\n\nBelow: each paper lb holds, main paper first, with its results by the paper's \
         own names, one status each and the claim that sets it; then the papers lb checks \
         against but does not hold. A *statement* is the paper's own; a *stand-in* is our \
         reading of one; a *foil* or a *null* is a policy or setting where the property should \
         fail; a point is *informative* when it could tell the claim from its denial. A \
         statement *reproduced* holds at every informative point, its nulls and foil failing \
         there (a null that takes away only part of the credit failing, or holding with an \
         effect wholly below the claim's); one that *holds, does not discriminate* holds, but so does a null or its foil, \
         or nothing could have failed it; one that *no point could decide* has no informative \
         point (every point at a floor, an exact formula, or outside the theorem's \
         hypothesis); one that *holds at a rate threshold of ours* is a limit (or its absence) \
         decided by how fast its gap closes against a slowest rate of approach lb chose or \
         derived from the proof: no finite run reaches a limit and the statement states no \
         rate, so another threshold could decide it otherwise; one that *holds by a \
         stability test of ours* is a stability verdict read by lb's test of each run (a \
         trend test at a false-alarm rate of lb's and a rule for divergence), which a finite \
         run can pass without the theorem's \"stable\" being shown; one \
         *reproduced at lb's reading only* holds at every informative point at \
         lb's value of a setting the text leaves open, and fails at another value a \
         robustness map tries, or at a value the held text lost and lb restored; one \
         *reproduced only at conflicting readings* holds in full only at values of a \
         setting the text leaves open at which another of the paper's results fails or holds \
         only in part, no value letting both hold in full. These \
         are statements' statuses; the experiments' sections and the audit give each claim's \
         own verdict (confirmed, refuted, inconclusive), which a status reads with these \
         rules. The findings that qualify these verdicts (settings the text leaves open, what lb cannot \
         reach) follow the tables; *How to read this report* says more; each verdict links to \
         its section of the audit.\n",
        crate::headline::counts_line(&exps, inventories)
    );
    // Each paper's results first, by the paper's own names; then the
    // findings that qualify them; the comparison with the previous report
    // and the objections after those.
    let (first, rest) = match answers.find("\n### ") {
        Some(i) if answers.starts_with("### Findings") => answers.split_at(i + 1),
        _ => ("", answers),
    };
    s.push_str("### Each paper's results\n\n");
    s.push_str(&crate::headline::per_paper(&exps, "audit.md", inventories));
    s.push('\n');
    if !first.trim().is_empty() {
        s.push_str(first.trim_end());
        s.push_str("\n\n");
    }
    // How to read the tables; the comparison with the previous report and
    // the objections and answers come after the experiments.
    s.push_str(&how_to_read(&exps));
    // The table counts the headline's claims again, by experiment and
    // verdict: one sum, said in words and in its last row.
    let by_origin = |o: Origin| exps.iter().map(|e| e.tally(o).total()).sum::<usize>();
    let (np, ns, nc, no) = (
        by_origin(Origin::Paper),
        by_origin(Origin::StandIn),
        by_origin(Origin::Check),
        by_origin(Origin::Ours),
    );
    let _ = writeln!(
        s,
        "The table counts the same {} claims ({np} paper claims + {ns} stand-ins + {nc} checks + \
         {no} conjectures) by experiment and verdict; its last row adds them up. \
         *Inconclusive* there is the headline's *undecided*, and a claim that holds but does \
         not discriminate, or that no point could decide, is counted in its own column, not \
         among the confirmed.\n",
        np + ns + nc + no
    );
    s.push_str(
        "| experiment | claims | confirmed | confirmed except at some points | does not \
         discriminate, or no point could decide | refuted | inconclusive |\n",
    );
    s.push_str("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    let mut sum = [0usize; 6];
    for (e, _) in experiments {
        let t = |o: Origin| e.tally(o);
        let (mut all, req) = (t(Origin::Paper), e.claims.iter().any(|c| c.required));
        all.add(&t(Origin::StandIn));
        all.add(&t(Origin::Check));
        all.add(&t(Origin::Ours));
        let (c, pt, u, r, i) = (
            all.reproduced
                + all.at_one_reading
                + all.at_conflicting
                + all.at_rate_ours
                + all.by_stability_test,
            all.partly,
            all.untested + all.no_point,
            all.refuted,
            all.inconclusive + all.no_difference,
        );
        let n = e.claims.len();
        let link = |k: usize| {
            if k == 0 {
                "0".to_string()
            } else {
                format!("[{k}](audit.md#{})", e.experiment)
            }
        };
        let own = if req {
            " (with lb's required checks)"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "| [{0}](#{0}) — {1}{own} | {n} | {2} | {3} | {4} | {5} | {6} |",
            e.experiment,
            md(&e.title),
            link(c),
            link(pt),
            link(u),
            link(r),
            link(i)
        );
        for (t, k) in sum.iter_mut().zip([n, c, pt, u, r, i]) {
            *t += k;
        }
    }
    let _ = writeln!(
        s,
        "| **all** | **{}** | **{}** | **{}** | **{}** | **{}** | **{}** |",
        sum[0], sum[1], sum[2], sum[3], sum[4], sum[5]
    );
    s.push('\n');
    for (_, sec) in experiments {
        s.push_str(sec);
    }
    if !rest.trim().is_empty() {
        s.push_str("## How these verdicts were contested\n\n");
        s.push_str(rest.trim_end());
        s.push_str("\n\n");
    }
    s.push_str(coverage);
    s.push_str(GLOSSARY);
    s.push_str(&run_words());
    s.push_str(references);
    s
}

/// "How to read this report": what a verdict rests on, in five short
/// points, and one statement of a paper followed from its words to its
/// verdict, drawn from the audit (a paper's statement confirmed with a
/// margin and a foil that fails; the first in the report's order).
fn how_to_read(exps: &[&ExperimentClaims]) -> String {
    let mut s = String::from("### How to read this report\n\n");
    let levels = format!(
        "**Levels.** Figures draw 95% intervals. A verdict stated at 95% is decided at {}: \
         the level at which lb's coverage certificate measured its intervals to cover 95%, so \
         a verdict read on a point's intervals is wrong no more often than it says. A limit \
         confirmed through its rate is bounded where its decision holds between the ends of \
         its steps' intervals too (wrong only if one of two intervals misses), an \
         \"unstable\" through the trend test's measured false alarms; a rate only the delta \
         method decides, a verdict read on control-variate intervals (the certificate measured \
         them short of where the heavy-traffic limits are decided) and a stability test's \
         \"stable\" carry no bound (docs/AUDITING.md, \"Chance of a wrong verdict\").",
        lb_manifest::calibration::stated_95_in_words()
    );
    for point in [
        "**Who claims it.** A *statement* is a paper's own, quoted and decided at the setting \
         its text states or implies (its *reading*, with the sentence that implies it); what \
         the text leaves open is mapped apart, in robustness maps. A *stand-in* is ours for a \
         statement; a *check* holds an engine to exact theory; a *conjecture* is ours alone.",
        levels.as_str(),
        "**Settled.** A point whose runs have not settled (drawn with a dashed ring) decides \
         nothing; the audit says how much longer its runs must be.",
        "**Margin.** How far a claim's threshold could move before its verdict changed, in \
         half-widths of its interval: a verdict one half-width from its threshold is a close \
         call.",
        "**Range.** A paper's statement is decided over the whole range its paper shows (every \
         load of its figure), never a window of ours: *reproduced* where it holds at every \
         informative point, *reproduced except at …* where it holds at most of them and fails \
         at the points named (with the effect there), *not reproduced* where it fails at half \
         of them or more.",
        "**Informative points.** A point decides nothing when every side sits within 5% of the \
         metric's floor (a job that never waits); when an upper bound or a limit to 0 has its \
         subject within 5% of the floor (an excess or a probability of 0), whatever its nulls \
         do, since any policy on the floor meets it; when an ordering's difference is within 1% \
         of the better policy's mean; when a null or the foil holds there too (with an effect \
         outside that 1%), is undecided or was not run (a null that takes away only part of \
         what the claim credits and changes both policies, `heavy_delay`'s, is read by size: \
         the point still informs where the null's effect lies wholly below the claim's, the \
         part it takes away being what makes the difference; `herd` has no null of its own, \
         only the information nulls it carries); when it lies outside the theorem's \
         hypothesis; when its runs have not \
         settled; when the metric is 0 in every replication and nothing beside it (a null, the \
         foil) is not; or when the metric is an exact formula of the model there. The deciding \
         point shown is the hardest informative one.",
    ] {
        let _ = writeln!(s, "- {point}");
    }
    // The null rules, from the credits themselves.
    let rules: Vec<String> = lb_manifest::claim::Credit::ALL
        .iter()
        .map(|c| {
            let labels = c.null_labels();
            match (c.own_null(), labels.is_empty(), c.carries()) {
                // No null of its own: only those of the credit it carries.
                (None, true, Some(carried)) => format!(
                    "`{}`: none of its own, those of `{}`",
                    c.name(),
                    carried.name()
                ),
                (_, true, _) => format!(
                    "`{}`: its own policies' counterparts, using no {}",
                    c.name(),
                    c.outside()
                ),
                _ => format!(
                    "`{}`: {}, using no {}",
                    c.name(),
                    labels.join(" and "),
                    c.outside()
                ),
            }
        })
        .collect();
    let _ = writeln!(
        s,
        "- **Nulls and foil.** A claim that credits its property to something (`credits`) is \
         held, at its own points, to nulls in its subject's place, each just outside what it \
         credits ({}). Its foil is a policy or setting where the property should fail. A \
         confirmation counts only at the points where they fail; where none does, it holds but \
         *does not discriminate*.",
        rules.join("; ")
    );
    s.push('\n');
    let pick = exps.iter().find_map(|e| {
        e.claims
            .iter()
            .filter(|c| {
                c.origin == Origin::Paper
                    && c.verdict == Verdict::Confirmed
                    && c.untested.is_none()
                    && c.reading.is_some()
                    && c.foil.as_deref().is_some_and(|f| f.ends_with(": refuted"))
            })
            .find(|c| c.margin.is_some())
            .map(|c| (e, c))
    });
    if let Some((e, c)) = pick {
        let foil = c.foil.as_deref().unwrap_or_default();
        let foil = foil.strip_suffix(": refuted").unwrap_or(foil);
        let _ = writeln!(
            s,
            "*A worked example*, [`{id}`](audit.md#{a}) of {exp}. The paper says: {st}. lb \
             decides it where the paper's text puts it: {reading}. At the deciding point, \
             {dec}; margin {margin}. Its foil: {foil}. The foil is **refuted**, so the \
             claim discriminates; had the foil held too, it would be listed as holding but not \
             discriminating. Its status, {status}, also says {why}.\n",
            id = c.id,
            status = crate::inventory::Status::of(c).words(),
            why = match crate::inventory::Status::of(c) {
                crate::inventory::Status::AtRateOurs => {
                    "that a rate threshold of lb's, not the paper's, decides it"
                }
                crate::inventory::Status::ByStabilityTest => "that lb's stability test decides it",
                crate::inventory::Status::AtOneReading => {
                    "that lb's reading of a setting the text leaves open or lost decides it"
                }
                crate::inventory::Status::AtConflictingReadings => {
                    "that it holds in full only at a value of a setting the text leaves open at \
                     which another of the paper's claims does not"
                }
                _ => "nothing more",
            },
            a = anchor(&e.experiment, &c.id),
            exp = e.experiment,
            st = md(&c.statement),
            reading = md(c.reading.as_deref().unwrap_or_default()),
            dec = md(&c.deciding),
            margin = md(c.margin.as_deref().unwrap_or_default()),
            foil = md(foil),
        );
    }
    s
}

/// The words a reader of the report meets, said once.
const GLOSSARY: &str = "## Glossary\n\n\
- **JSQ**: join the shortest queue, on exact queue lengths. **JIQ**: join an idle queue if \
the dispatcher knows one, else a random queue. **I1F**: idle-one-first (an idle server, else \
one with one job, else random). **Pod(d)**, **Power-of-d**: the shortest of d servers sampled at \
random. **WR**: weighted random, a server chosen with probability proportional to its rate; \
**Random**: uniformly.\n\
- **LED** (local-estimation-driven, Zhou, Shroff and Wierman): each dispatcher keeps its own, \
stale estimates of the queue lengths and dispatches on them. **L-JSQ**: the shortest estimated \
queue; **L-JBA**: a server chosen among those whose estimate is below the average, by rate; \
**L-Pod**: the shortest estimate among d sampled. **Push(d, p̂)**: a dispatcher that had \
arrivals, with probability p̂, samples d servers and learns their queues; **Pull(p̂)**: a server \
that served jobs tells one dispatcher its queue — always if it is now empty, else with \
probability p̂; **p̂**: the update probability. **count_own**: whether a dispatcher adds the jobs it sends to its own estimates (as the \
LSQ line of work does) or leaves estimates unchanged until updated (the literal Definition 1). \
**LSQ** (Loosely-Shortest-Queue, as Zhou, Shroff and Wierman name the framework of \
Vargaftik, Keslassy and Orda; also the simulator of Goren, Vargaftik and Moses): L-JSQ with \
count_own = true; with \
*destination sync*, a dispatcher also learns the queue of each server it just sent jobs to.\n\
- **ε, epsilon_frac, ζ, zeta_ratio**: heavy traffic with λ_Σ = μ_Σ − ε, ε given as a fraction of \
μ_Σ; ζ = (σ²_Σ + ν²_Σ)/2 is the lower limit of ε·E[ΣQ]; zeta_ratio = ε·E[ΣQ]/ζ tends to 1 under a \
heavy-traffic optimal policy.\n\
- **Stochastic processing networks**: a **virtual station** is a set of buffers whose combined \
load can exceed 1 under a priority even when every station's does not; **own buffer first** \
serves a station's dedicated buffer before the shared one; **first-buffer-first** (and \
*buffer 0 first*) serves the buffer earliest on the route first, a static priority; \
**max-pressure** serves the \
activity with the largest pressure (Dai and Lin).\n\
- **Claim words**: a *statement* is the paper's own; a *stand-in* is ours for one; a *check* is \
lb's own exact theory; a *conjecture of ours* is neither. The **deciding point** is the point \
whose check decides the verdict (the first refuted, else the first inconclusive, else the \
tightest confirmed). A **paired difference** or **paired margin** is taken replication by \
replication between runs that share arrivals and service. The **margin** is how far a claim's \
threshold could move before its verdict changed.\n";

/// The glossary's entry on stability and settling, its numbers read from
/// the rules' constants (`lb_core::stability`, `lb_model::settle`), so the
/// report states the rule the audit applies.
fn run_words() -> String {
    use lb_core::stability::{TREND_GROWTH, TREND_P};
    use lb_model::settle::{FALSE_FAIL, allowed};
    let pct = |x: f64| lb_draw::ticks::format_tick(100.0 * x, None);
    format!(
        "- **Runs**: a replication is judged **unstable** when ΣQ (the jobs in the system) \
         keeps growing over the second half of its run: the OLS slope of its batch means there \
         is positive with a one-sided p-value below {} and the growth over that half is more \
         than {}% of its mean; a point is unstable when more than half of its replications \
         are, and it is then never drawn or read as a number. A point has **settled** when its \
         replications agree on stability and, in all but the replications chance allows, \
         MSER-5 cuts less than half of the measured window (`mser_cut` < 0.5 in the tables) and \
         the batch means, merged pairwise while their lag-1 autocorrelation r is significant, \
         end with |r| < 2/√k on k batches (`bm_ok`). Chance allows a settled replication to \
         fail one of these with probability {}% (measured by the coverage certificate), so \
         {} of 10 replications, {} of 20 and {} of 72 may; a point that has not settled is \
         drawn with a dashed ring, quoted with its diagnosis, and decides no claim.\n\n",
        TREND_P,
        pct(TREND_GROWTH),
        pct(FALSE_FAIL),
        allowed(10),
        allowed(20),
        allowed(72),
    )
}

/// Reads the parts of the experiments `names` under `out` and assembles
/// `README.md` (when `report`), `audit.md` and, with `inventories`,
/// `inventory.md` from them. An experiment without parts is left out.
pub fn assemble(
    out: &Path,
    names: &[String],
    report: bool,
    inventories: &[lb_manifest::inventory::Inventory],
) -> Result<(), Box<dyn std::error::Error>> {
    let mut claims = Vec::new();
    let mut dirs = Vec::new();
    for n in names {
        let dir = out.join(n);
        let Ok(text) = std::fs::read_to_string(dir.join("claims.json")) else {
            continue;
        };
        let c: ExperimentClaims = serde_json::from_str(&text)
            .map_err(|e| format!("{}: {e}", dir.join("claims.json").display()))?;
        claims.push(c);
        dirs.push(dir);
    }
    // Claims of one paper that hold only at readings no one setting gives
    // are marked before any page counts their statuses.
    crate::headline::mark_conflicts(&mut claims);
    let part = |dir: &Path, name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    let reports: Vec<(ExperimentClaims, String)> = if report {
        claims
            .iter()
            .zip(&dirs)
            .map(|(c, d)| (c.clone(), part(d, "report.md")))
            .collect()
    } else {
        Vec::new()
    };
    let audits: Vec<(ExperimentClaims, String)> = claims
        .into_iter()
        .zip(&dirs)
        .map(|(c, d)| (c, part(d, "audit.md")))
        .collect();
    if report {
        // The coverage certificate's section, when `lb reproduce` wrote one.
        let coverage =
            std::fs::read_to_string(out.join("coverage").join("report.md")).unwrap_or_default();
        // The objections a referee raised and lb's answers, beside the
        // inventories (`experiments/inventory/answers.md`), when written.
        let answers = inventories
            .first()
            .and_then(|i| i.file.parent())
            .and_then(|d| std::fs::read_to_string(d.join("answers.md")).ok())
            .unwrap_or_default();
        // The bibliography: experiments/references.bib, beside the
        // inventories' folder, when there is one.
        let references = match inventories
            .first()
            .and_then(|i| i.file.parent()?.parent())
            .map(|d| d.join(lb_manifest::references::FILE))
            .filter(|p| p.is_file())
        {
            Some(p) => lb_manifest::references::References::load(&p)?.markdown(),
            None => String::new(),
        };
        write_if_changed(
            &out.join("README.md"),
            page(&reports, &coverage, inventories, &answers, &references).as_bytes(),
        )?;
    }
    write_if_changed(
        &out.join("audit.md"),
        crate::markdown::page(&audits, inventories).as_bytes(),
    )?;
    if !inventories.is_empty() {
        let exps: Vec<&ExperimentClaims> = audits.iter().map(|(e, _)| e).collect();
        write_if_changed(
            &out.join("inventory.md"),
            crate::inventory::page(inventories, &exps, "audit.md").as_bytes(),
        )?;
    }
    Ok(())
}

/// The experiments with parts under `out` (the subdirectories holding a
/// `claims.json`), by name.
pub fn experiments_in(out: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(out)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("claims.json").is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    v.sort();
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use lb_model::precision::{MetricName, Procedure};

    /// The replications a sample asks for are the fewest n on its grid with
    /// t_{n−1}·s/√n ≤ target: a sample of mean 10 and standard deviation 1
    /// (±1 alternating, with its mean) against ±5% needs t_{n−1}/√n ≤ 0.5,
    /// first true at n = 18 (t_17 = 2.110); from 8 in steps of 4, 20; past
    /// `max` when the sample is wide.
    #[test]
    fn replications_needed_follow_the_t_half_width() {
        let rule = |min, max, step| PrecisionRule {
            metric: MetricName("mean_sum_q".into()),
            rel_half_width: 0.05,
            level: 0.95,
            min,
            max,
            step,
            procedure: Procedure::Pilot,
            control: None,
            also: Vec::new(),
            settled_first: false,
            control_only: false,
        };
        // Nine values, mean 10, sample standard deviation exactly 1.
        let k = 1.0;
        let mut vals: Vec<f64> = (0..8)
            .map(|i| 10.0 + if i % 2 == 0 { k } else { -k })
            .collect();
        vals.push(10.0);
        let sd = (vals.iter().map(|x| (x - 10.0f64).powi(2)).sum::<f64>() / 8.0).sqrt();
        assert!((sd - 1.0).abs() < 1e-12);
        assert_eq!(replications_needed(&vals, &rule(2, 640, 1)), Some(18));
        assert_eq!(replications_needed(&vals, &rule(8, 640, 4)), Some(21));
        assert_eq!(replications_needed(&vals, &rule(8, 12, 4)), Some(21));
        let wide: Vec<f64> = vals.iter().map(|x| 10.0 + 10.0 * (x - 10.0)).collect();
        assert!(replications_needed(&wide, &rule(8, 640, 4)).unwrap() > 640);
        assert_eq!(
            replications_needed(&[0.0, 0.0, 0.0], &rule(2, 640, 1)),
            None
        );
    }
}
