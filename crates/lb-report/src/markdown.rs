//! The audit as Markdown: each experiment's sections (its part of
//! `audit.md`: per claim the rule, the deciding point, the `why`, and a table
//! of every point read), the audit page that assembles them under a summary
//! table, and the terminal's excerpt of it.

use crate::cells::{anchor, verdict_cell};
use crate::headline;
use lb_audit::sig5;
use lb_audit::{ClaimResult, Verdict};
use lb_audit::{ClaimRow, ExperimentClaims};
use lb_audit::{describe, measured, percent, rate_of, unstable_count};
use lb_draw::markup::cell as md;
use lb_manifest::claim::{ClaimKind, Origin};
use lb_manifest::inventory::Inventory;
use std::fmt::Write as _;

/// The audit's sections of one experiment (its part of `audit.md`).
pub fn fragment(experiment: &str, title: &str, claims: &[ClaimResult]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "<a id=\"{experiment}\"></a>\n");
    let _ = writeln!(s, "## {experiment} — {}\n", md(title));
    if claims.is_empty() {
        s.push_str("No claims.\n\n");
    }
    for c in claims {
        section(&mut s, c, 3);
    }
    s
}

/// One claim's section: its heading, the facts in a list, then a table of
/// the points it read.
fn section(s: &mut String, c: &ClaimResult, depth: usize) {
    section_head(s, c, depth);
    s.push('\n');
    if c.checks.is_empty() {
        s.push_str("No points computed.\n\n");
        return;
    }
    checks_table(s, c);
    s.push('\n');
}

/// A claim's heading (with its anchor), its statement, and the list: source,
/// rule, counts, deciding point, why, missing data, the checks of the why.
fn section_head(s: &mut String, c: &ClaimResult, depth: usize) {
    let h = "#".repeat(depth);
    let _ = writeln!(s, "<a id=\"{}\"></a>\n", anchor(&c.experiment, &c.id));
    let _ = writeln!(
        s,
        "{h} {} — {}{}\n",
        c.id,
        lb_audit::verdict_words(c.verdict.word(), c.untested.is_some(), c.no_point()),
        if c.required { " (required)" } else { "" }
    );
    let _ = writeln!(s, "> {}\n", md(&c.statement));
    let ok = c
        .checks
        .iter()
        .filter(|k| k.verdict == Verdict::Confirmed)
        .count();
    let refuted = c
        .checks
        .iter()
        .filter(|k| k.verdict == Verdict::Refuted)
        .count();
    let _ = writeln!(s, "- Source: {}", md(&c.source));
    let _ = writeln!(
        s,
        "- Who claimed it: {}",
        match (c.origin, &c.stands_for) {
            (Origin::Paper, _) => format!(
                "the paper's own statement ({})",
                md(c.paper.as_deref().unwrap_or("?"))
            ),
            (Origin::StandIn, Some(t)) if !t.contains(' ') => format!(
                "our stand-in (a setting, size or tolerance we chose) for the paper's statement \
                 [`{t}`](#{})",
                anchor(
                    t.split_once('/').map_or(c.experiment.as_str(), |x| x.0),
                    t.rsplit('/').next().unwrap_or(t)
                )
            ),
            (Origin::StandIn, t) => format!(
                "our stand-in (a setting, size or tolerance we chose) for {}: {}",
                md(c.paper.as_deref().unwrap_or("?")),
                md(t.as_deref().unwrap_or("?"))
            ),
            (Origin::Check, _) => "lb's own check, not a paper's statement".into(),
            (Origin::Ours, _) => {
                "a conjecture of ours: neither a paper's statement nor exact theory".into()
            }
        }
    );
    if let Some(r) = &c.reading {
        let _ = writeln!(
            s,
            "- Decided at this reading (the paper's setting where its text states one; lb's \
             choice, said so, where it leaves one open): {}",
            md(r)
        );
    }
    if !c.as_run.is_empty() {
        let _ = writeln!(
            s,
            "- Its policies as run (every setting, read from the records it reads, a range where \
             its points differ): {}",
            md(&c.as_run.join("; "))
        );
    }
    let _ = writeln!(
        s,
        "- Holds when: {}; {} intervals{}",
        md(&c.rule),
        percent(c.level),
        level_note(c)
    );
    // Where some points decide nothing, how the informative ones read: the
    // verdict reads those.
    let informative_words = if c.informative.0 < c.checks.len() {
        let count = |v: Verdict| {
            c.checks
                .iter()
                .filter(|k| k.uninformative.is_none() && k.verdict == v)
                .count()
        };
        format!(
            " (of the {} informative: {} confirmed, {} refuted, {} inconclusive)",
            c.informative.0,
            count(Verdict::Confirmed),
            count(Verdict::Refuted),
            count(Verdict::Inconclusive)
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "- Points: {ok} of {} confirmed, {refuted} refuted, {} inconclusive{informative_words}",
        c.checks.len(),
        c.checks.len() - ok - refuted
    );
    if let Some((inside, read)) = c.inside {
        let _ = writeln!(
            s,
            "- Inside the theorem's hypothesis: {inside} of its {read} points (the others decide \
             nothing)"
        );
    }
    let (informative, read) = c.informative;
    if informative < read {
        let _ = writeln!(
            s,
            "- Informative points: {informative} of {read}; the others decide nothing (the \
             table says why: at the metric's floor, or a null or the foil holds there too)"
        );
    }
    if let Some(d) = c.deciding() {
        let _ = writeln!(
            s,
            "- Deciding point (the hardest informative one): {}",
            md(&describe(c, d))
        );
    }
    if !c.except.is_empty() {
        let _ = writeln!(
            s,
            "- **Holds except at**: {} (the paper's statement holds at most of its range and \
             fails there)",
            md(&c.except.join("; "))
        );
    }
    for n in &c.nulls {
        let _ = writeln!(s, "- Null: {}", carried(n, c));
    }
    if let Some(m) = &c.margin {
        let _ = writeln!(
            s,
            "- Margin: {} — how far the threshold could move before the verdict changed",
            md(m)
        );
    }
    if let Some(f) = &c.foil {
        // The foil's verdict said as what it means for the claim: its check
        // holding there is the property holding where it should fail.
        let meaning = match f.verdict {
            Verdict::Confirmed | Verdict::Partly => {
                "the same check **holds there too** (where it should fail)"
            }
            Verdict::Refuted | Verdict::NoPracticalDifference => {
                "the same check **fails there**, as it should"
            }
            Verdict::Inconclusive if shown(f, c).is_some_and(|d| d.exact_fails) => {
                "the same check is undecided there on its runs, and **fails there** on its exact \
                 value (a formula of the model that lb's required checks hold the engine to), as \
                 it should"
            }
            Verdict::Inconclusive => "the same check **is undecided there**",
        };
        let _ = writeln!(
            s,
            "- Foil: {} — {meaning}{}",
            md(&f.statement),
            shown(f, c)
                .map(|d| format!(" ({}{})", md(&describe(f, d)), rate_of(d)))
                .unwrap_or_default()
        );
    }
    if let Some(u) = &c.untested {
        let _ = writeln!(
            s,
            "- **{}**: {}; not counted as a reproduction",
            if c.no_point() {
                "Confirmed at no point that could decide it"
            } else {
                "Confirmed, but does not discriminate"
            },
            md(u)
        );
    }
    if let Some(t) = &c.to_decide {
        let _ = writeln!(s, "- What would decide it: {}", md(t));
    }
    match (&c.why, c.verdict) {
        (Some(w), Verdict::Confirmed) => {
            let _ = writeln!(
                s,
                "- Why (from the manifest; the claim is confirmed, so it may be stale): {}",
                md(w)
            );
        }
        (Some(w), _) => {
            let _ = writeln!(s, "- Why (from the manifest): {}", md(w));
        }
        (None, Verdict::Refuted | Verdict::Inconclusive) if !c.required => {
            let _ = writeln!(s, "- Why: the manifest gives no explanation.");
        }
        _ => {}
    }
    if !c.missing.is_empty() {
        let _ = writeln!(
            s,
            "- **Missing data** ({} point(s); `lb run` computes them):",
            c.missing.len()
        );
        for m in &c.missing {
            let _ = writeln!(s, "  - {}", md(m));
        }
    }
    for w in &c.why_checks {
        let _ = writeln!(s, "  - Check of the why: {}", carried(w, w));
    }
}

/// A check a claim carries (its foil, a check of its `why`) in a line: what
/// it says, its verdict, and its deciding point.
fn carried(c: &ClaimResult, of: &ClaimResult) -> String {
    format!(
        "{} — **{}**{}",
        md(&c.statement),
        c.verdict.word(),
        shown(c, of)
            .map(|d| format!(" ({}{})", md(&describe(c, d)), rate_of(d)))
            .unwrap_or_default()
    )
}

/// The point of a foil or null (`c`) to show beside the claim `of`: its
/// point at the claim's deciding point where it has one (matched on the axes
/// it does not change) and its verdict there is its own, so that the line
/// speaks of where the claim is decided; else its own deciding point.
fn shown<'a>(c: &'a ClaimResult, of: &ClaimResult) -> Option<&'a lb_audit::PointCheck> {
    // The point shown says what the verdict beside it says: a foil that
    // fails is shown where it fails, one that holds where it holds.
    let agrees = |x: &lb_audit::PointCheck| match c.verdict {
        Verdict::Refuted | Verdict::NoPracticalDifference => {
            matches!(x.verdict, Verdict::Refuted | Verdict::NoPracticalDifference)
        }
        Verdict::Confirmed | Verdict::Partly => x.verdict == Verdict::Confirmed,
        Verdict::Inconclusive => x.verdict == Verdict::Inconclusive,
    };
    let at = of.deciding().and_then(|k| {
        let moved = lb_audit::moved_axes(&of.checks, &c.checks, k.axes.iter().map(|(n, _)| n));
        c.checks
            .iter()
            .find(|x| lb_audit::same_at(x, k, &moved))
            .filter(|x| agrees(x))
    });
    at.or_else(|| c.deciding())
}

/// The table of a claim's points: one row per point, one column per axis.
fn checks_table(s: &mut String, c: &ClaimResult) {
    // One row per point, one column per axis; the measured column says what
    // it measures.
    let axes: Vec<String> = c.checks[0].axes.iter().map(|(a, _)| a.clone()).collect();
    let policies: Vec<&str> = {
        let mut v: Vec<&str> = c.checks.iter().map(|k| k.policy.as_str()).collect();
        v.dedup();
        v
    };
    // A column of policies where a claim reads several (an ordering's pair
    // is in the measured column's head).
    let policy_col = match c.kind {
        ClaimKind::Ordering => false,
        ClaimKind::Value
        | ClaimKind::Stability
        | ClaimKind::Bound
        | ClaimKind::Trend
        | ClaimKind::Limit => policies.len() > 1,
    };
    // A stability check counts unstable replications: its measured column
    // says how many of how many.
    let counts = match c.kind {
        ClaimKind::Stability => true,
        ClaimKind::Ordering
        | ClaimKind::Value
        | ClaimKind::Bound
        | ClaimKind::Trend
        | ClaimKind::Limit => false,
    };
    let label = c.metric_label.as_deref().map(md).unwrap_or_default();
    let measured_head = match c.kind {
        ClaimKind::Ordering => format!("{}: {label}", policies.join(" / ")),
        ClaimKind::Bound if !policy_col => {
            format!("margin of {} over the bound: {label}", policies.join(", "))
        }
        ClaimKind::Bound => format!("margin over the bound: {label}"),
        ClaimKind::Value if !policy_col => {
            format!("{label} of {}", policies.join(", "))
        }
        ClaimKind::Value => label.clone(),
        ClaimKind::Trend => format!("change between neighbours: {label}"),
        ClaimKind::Limit => format!("{label} nearest the limit"),
        ClaimKind::Stability => "unstable replications".into(),
    };
    // The column of references: its head, and whether a cell gives the
    // reference with its tolerance, as the threshold says it (else the
    // number alone).
    let reference_col = match c.kind {
        ClaimKind::Value => Some(("expected", true)),
        ClaimKind::Limit => Some(("limit", true)),
        ClaimKind::Bound => Some(("bound", false)),
        ClaimKind::Ordering | ClaimKind::Stability | ClaimKind::Trend => None,
    };
    let notes = c
        .checks
        .iter()
        .any(|k| k.note.is_some() || k.unsettled.is_some() || k.uninformative.is_some());
    let mut head: Vec<String> = axes.clone();
    if policy_col {
        head.push("policy".into());
    }
    head.push(if counts {
        measured_head
    } else {
        format!("{measured_head} (± {} half-width)", percent(c.level))
    });
    if !counts {
        head.push("replications".into());
    }
    if let Some((r, _)) = reference_col {
        head.push(r.into());
    }
    head.push("verdict".into());
    if notes {
        head.push("note".into());
    }
    head.push("key".into());
    let _ = writeln!(s, "| {} |", head.join(" | "));
    let _ = writeln!(s, "|{}", " --- |".repeat(head.len()));
    for k in &c.checks {
        let mut cells: Vec<String> = k.axes.iter().map(|(_, v)| v.clone()).collect();
        if policy_col {
            cells.push(k.policy.clone());
        }
        cells.push(if counts {
            format!("{} of {}", unstable_count(k), k.replications)
        } else {
            measured(k)
        });
        if !counts {
            cells.push(k.replications.to_string());
        }
        if let Some((_, with_tolerance)) = reference_col {
            cells.push(match k.reference {
                Some(_) if with_tolerance => k
                    .threshold
                    .trim_start_matches("= ")
                    .trim_end_matches(" (interval must cover it)")
                    .trim_start_matches("→ ")
                    .to_string(),
                Some(r) => sig5(r),
                None => "—".into(),
            });
        }
        cells.push(k.verdict.word().to_string());
        if notes {
            let mut note = match (&k.unsettled, &k.note) {
                (Some(u), Some(n)) => format!("{u}; {n}"),
                (Some(u), None) => u.clone(),
                (None, n) => n.clone().unwrap_or_default(),
            };
            if let Some(u) = &k.uninformative {
                if !note.is_empty() {
                    note.push_str("; ");
                }
                note.push_str(&format!("uninformative: {u}"));
            }
            cells.push(md(&note));
        }
        cells.push(
            k.keys
                .iter()
                .map(|h| format!("`{}`", &h[..12]))
                .collect::<Vec<_>>()
                .join(", "),
        );
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
}

/// The audit page: the intro, a summary table of every claim, then each
/// experiment's sections (`fragments`, in order).
pub(crate) fn page(
    experiments: &[(ExperimentClaims, String)],
    inventories: &[Inventory],
) -> String {
    let mut s = String::from("# Audit of the claims\n\n");
    s.push_str(
        "Generated by `lb reproduce` (or `lb audit --out`) from the manifests and the cached \
         records; do not edit by hand. A claim is *confirmed* when its interval lies on the \
         claimed side of the threshold at every informative point it reads, *refuted* when at \
         some informative point it lies wholly on the other side (a paper's statement: at as \
         many as it holds at, or more; fewer, and it holds except at those points), \
         *inconclusive* otherwise (an interval straddles the threshold, or a run did not \
         settle). A point that could not tell the claim from its denial is uninformative and \
         decides nothing (at the metric's floor, an effect within ±1% of the mean, a null or \
         the foil holding there too, outside a theorem's hypothesis): each claim's table says \
         which. Orderings use paired differences across \
         replications (common random numbers). *Required* claims are what lb itself \
         guarantees (exact theory); a paper's claim is audited, not required: its verdict is \
         the finding. A refuted or inconclusive claim carries the manifest's explanation \
         (*why*), with the verdicts of the checks of that explanation where it has them.\n\n",
    );
    let exps: Vec<&ExperimentClaims> = experiments.iter().map(|(e, _)| e).collect();
    let _ = writeln!(s, "{}\n", headline::counts_line(&exps, inventories));
    // Only where some claim is a paper's (or stands for one): lb's own
    // checks and our conjectures name no paper.
    let papers = headline::per_paper(&exps, "", inventories);
    if !papers.trim().is_empty() {
        let _ = writeln!(s, "### Per paper\n\n{papers}");
    }
    s.push_str("## Summary\n\n");
    s.push_str("| verdict | who claimed it | claim | experiment | at the deciding point |\n");
    s.push_str("| --- | --- | --- | --- | --- |\n");
    for (e, _) in experiments {
        for c in &e.claims {
            let _ = writeln!(
                s,
                "| {} | {} | [{}](#{}) | [{}](#{}) | {} |",
                row_verdict(c),
                origin_words(c),
                c.id,
                anchor(&e.experiment, &c.id),
                e.experiment,
                e.experiment,
                md(&c.deciding)
            );
        }
    }
    s.push('\n');
    for (_, f) in experiments {
        s.push_str(f);
    }
    s
}

/// A summary row's verdict: bold, "(required)" for lb's guarantees, a
/// confirmation that does not discriminate said so, and one whose status is
/// "at lb's reading only" ([`crate::inventory::Status::of`], as the first
/// screen counts it) said so too.
fn row_verdict(c: &ClaimRow) -> String {
    let words = lb_audit::verdict_words(
        &verdict_cell(c.verdict.word(), c.required),
        c.untested.is_some(),
        c.no_point(),
    );
    match crate::inventory::Status::of(c) {
        crate::inventory::Status::AtOneReading => format!("{words}, at lb's reading only"),
        crate::inventory::Status::AtConflictingReadings => {
            format!("{words}, only at conflicting readings")
        }
        _ => words,
    }
}

/// Who claimed it, in a table cell: "paper (Zhou, …)", "stand-in for
/// `id`", "lb's check".
fn origin_words(c: &ClaimRow) -> String {
    match c.origin {
        Origin::Paper => format!("the paper ({})", md(c.paper.as_deref().unwrap_or("?"))),
        Origin::StandIn => match &c.stands_for {
            Some(t) if !t.contains(' ') => format!("stand-in for `{t}`"),
            _ => format!("stand-in ({})", md(c.paper.as_deref().unwrap_or("?"))),
        },
        Origin::Ours => "our conjecture".into(),
        Origin::Check => "lb's check".into(),
    }
}

/// The audit as the terminal prints it: the counts and the summary table.
pub fn terminal(experiments: &[(ExperimentClaims, String)], inventories: &[Inventory]) -> String {
    let p = page(experiments, inventories);
    // From the counts (after the intro) to the first section.
    let start = p
        .find(" statements of the papers:")
        .map_or(0, |i| p[..i].rfind('\n').map_or(0, |j| j + 1));
    let end = p.find("\n<a id=").unwrap_or(p.len());
    p[start..end].trim_end().to_string() + "\n"
}

/// Why a claim's intervals are not at the level its manifest states: the
/// coverage certificate's calibration, a further look's alpha spending, or
/// both (empty when they are at it).
fn level_note(c: &ClaimResult) -> String {
    use lb_manifest::calibration::{DecideAt, decision_level};
    let decided = decision_level(c.stated_level, c.decide_at);
    let mut why = Vec::new();
    if c.decide_at == DecideAt::Calibrated && decided != c.stated_level {
        // The calibration is the certificate's for the intervals it
        // measured; a control variate's it measured only on its own small
        // systems (docs/AUDITING.md, "Chance of a wrong verdict").
        let nominal = if c.controlled {
            "; read on control-variate intervals, whose coverage the certificate measured only \
             on its own small systems, so the level is nominal here"
        } else {
            ""
        };
        why.push(format!(
            "{} as lb's coverage certificate calibrates it{nominal}",
            percent(decided)
        ));
    }
    if (c.level - decided).abs() > 1e-12 {
        why.push("then spent over the further looks its decide ledger lists".into());
    }
    if why.is_empty() {
        return String::new();
    }
    format!(
        " (its stated {}: {})",
        percent(c.stated_level),
        why.join(", ")
    )
}
