//! The text of `lb plan` (a manifest's points, cached or missing) and of
//! `lb plan --why`.

use lb_manifest::plan::{Plan, Replications};
use lb_store::cache::{Cache, Read};
use lb_store::run::{calibration_line, status};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// `lb plan --why`: a line per missing point saying why it is missing.
pub fn render_why(cache: &Cache, plan: &Plan, cached: &lb_store::why::Cached) -> String {
    let mut s = String::new();
    let st = status(cache, plan);
    let mut seen = BTreeSet::new();
    for (pp, ps) in plan.points.iter().zip(&st) {
        let (Some(k), "missing") = (ps.key, ps.word()) else {
            continue;
        };
        if !seen.insert(k) {
            continue;
        }
        let lb_manifest::plan::Target::Fixed(point) = &pp.target else {
            continue;
        };
        let _ = writeln!(
            s,
            "  why {} ({}): {}",
            k.short(),
            pp.label,
            cached.why(point)
        );
    }
    s
}

/// The `lb plan` table of one manifest.
pub fn render_plan(cache: &Cache, plan: &Plan) -> String {
    let mut s = String::new();
    let st = status(cache, plan);
    let _ = writeln!(
        s,
        "experiment {} ({}), profile {}: {} points, {} calibrations, results in {}",
        plan.name,
        plan.file.display(),
        plan.profile.name(),
        plan.points.len(),
        plan.calibrations.len(),
        cache.root().display()
    );
    if !plan.calibrations.is_empty() {
        let _ = writeln!(s, "calibrations (message budgets):");
        for c in &plan.calibrations {
            let k = c.key();
            let what = match cache.read_calibration(&k) {
                Read::Valid(rec) => format!("cached   {}", calibration_line(c, &rec.result)),
                Read::Damaged(why) => format!("damaged  {} ({why})", c.describe()),
                Read::Missing => format!("missing  {}", c.describe()),
            };
            let _ = writeln!(s, "  {}  {what}", k.short());
        }
    }
    // Whether the cached replications of each point have settled (the
    // rule the audit decides by), and if not how much longer its runs
    // should be.
    let results = lb_analysis::collect(cache, plan);
    let mut header = vec![
        "key".to_string(),
        "status".into(),
        "reps".into(),
        "settled".into(),
        "policy".into(),
    ];
    header.extend(plan.axes.iter().map(|a| a.to_string()));
    let mut rows = vec![header];
    let mut unsettled = 0;
    for ((pp, ps), r) in plan.points.iter().zip(&st).zip(&results) {
        let key = match (&ps.key, &ps.calibration) {
            (Some(k), _) => k.short(),
            (None, Some((ck, _))) => format!("<cal {}>", &ck.short()[..6]),
            (None, None) => "?".into(),
        };
        let reps = match (&pp.replications, &ps.outcome) {
            (_, Some(o)) => {
                format!("{}/{} ({:?})", ps.present, o.replications, o.stop).to_lowercase()
            }
            (Replications::Precision(p), None) if ps.pilot_missing > 0 => format!(
                "{}/{}..{}, pilot {}/{}",
                ps.present,
                ps.needed.max(p.min),
                p.max,
                p.min - ps.pilot_missing,
                p.min
            ),
            (Replications::Precision(p), None) => {
                format!("{}/{}..{}", ps.present, ps.needed.max(p.min), p.max)
            }
            (Replications::Fixed(n), None) => format!("{}/{n}", ps.present),
        };
        let settling = lb_store::settle::Settling::of(&r.summaries);
        let settled = if r.summaries.is_empty() {
            "-".to_string()
        } else {
            unsettled += usize::from(!settling.settled());
            settling.cell()
        };
        let mut row = vec![key, ps.word().to_string(), reps, settled, pp.label.clone()];
        row.extend(pp.axes.iter().cloned());
        rows.push(row);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for r in &rows {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(x, w)| format!("{x:<w$}"))
            .collect();
        let _ = writeln!(s, "  {}", line.join("  ").trim_end());
    }
    if plan
        .points
        .iter()
        .any(|p| matches!(p.replications, Replications::Precision(_)))
    {
        let _ = writeln!(
            s,
            "  reps a/b..c: a present, b needed so far by the precision rule, at most c; \
             a/b (stop): the rule's decision; pilot p/q: the pilot's replications present \
             and needed (they choose b, and no interval reads them)"
        );
    }
    if unsettled > 0 {
        let _ = writeln!(
            s,
            "  settled no: ≥×k: the cached runs have not settled (MSER-5 at its cap, or batch \
             means still correlated) and decide no steady-state claim; runs at least k times \
             as long are needed to settle them. no: rising, ≥×k: ΣQ still rising but slowing (a \
             transient, not divergence), and runs at least k times as long are needed to settle \
             it or show it diverging \
             ({unsettled} point(s) in all; the audit says which claims they hold up)"
        );
    }
    totals(&mut s, cache, plan, &st);
    s
}

/// The plan's totals: its points by state, the replications to run, and
/// what they are estimated to cost against lb's soft limits.
fn totals(s: &mut String, cache: &Cache, plan: &Plan, st: &[lb_store::run::PointStatus]) {
    let count = |w: &str| st.iter().filter(|p| p.word() == w).count();
    let mut keys = BTreeSet::new();
    let to_run: u32 = st
        .iter()
        .filter(|p| p.key.is_none_or(|k| keys.insert(k)))
        .map(|p| p.missing())
        .sum();
    let _ = writeln!(
        s,
        "  {} cached, {} partial, {} missing, {} damaged, {} waiting for a calibration; \
         {to_run} replications to run{}",
        count("cached"),
        count("partial"),
        count("missing"),
        count("damaged"),
        count("needs-calibration"),
        if st.iter().any(|p| p.key.is_none()) {
            " (plus those of calibrated points)"
        } else {
            ""
        }
    );
    let e = lb_store::run::estimate(cache, plan, st);
    if e.runs > 0 {
        use lb_model::limits::{human_bytes, human_seconds};
        let basis = match e.measured {
            Some((n, r)) => format!(
                "from the model's cost constants, rescaled by {n} timed cached record(s) \
                 (measured/estimated = {r:.2})"
            ),
            None => "from the model's cost constants (no timed record of this plan yet)".into(),
        };
        let _ = writeln!(
            s,
            "  estimate: {} run(s), {} of CPU time, at most {} per replication; {basis}",
            e.runs,
            human_seconds(e.cost.seconds),
            human_bytes(e.cost.bytes)
        );
        if e.worst.seconds > e.cost.seconds * 1.01 {
            let _ = writeln!(
                s,
                "  precision rules may add replications up to their max: {} of CPU time at most",
                human_seconds(e.worst.seconds)
            );
        }
        if let Some(why) = lb_model::limits::soft_limit(e.cost, 1) {
            let _ = writeln!(s, "  beyond a soft limit (lb run needs --force): {why}");
        }
    }
}
