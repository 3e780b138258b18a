//! The text of `lb plan` (a manifest's points, cached or missing) and of
//! `lb plan --why`.

use lb_analysis::figure::FigureSpec;
use lb_audit::ClaimResult;
use lb_manifest::Experiment;
use lb_manifest::plan::{Plan, Replications};
use lb_model::Key;
use lb_store::cache::{Cache, Read};
use lb_store::run::{CountFrom, State, calibration_line, status};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// What reads each point, by key: the claims whose checks read it (a foil's,
/// a null's or a why check's under the claim's id) and the figures that
/// draw it, each as (experiment, "claim ID" or "figure NAME"). A point
/// nothing reads is drawn in no figure and decides no claim: only its
/// experiment's table shows it.
pub struct Readers(BTreeMap<Key, BTreeSet<(String, String)>>);

impl Readers {
    /// The readers of every point of `loaded`, from the audit of its claims
    /// (on the best evidence each reads) and its figures.
    pub fn of(cache: &Cache, loaded: &[Experiment]) -> Readers {
        // Each experiment's records read once, for its claims and figures.
        let all: Vec<Vec<lb_analysis::PointResult>> = loaded
            .iter()
            .map(|e| lb_analysis::collect(cache, &e.plan))
            .collect();
        let audited = crate::audit::audit_with(cache, loaded, &all);
        let mut by = BTreeMap::new();
        for ((e, claims), results) in loaded.iter().zip(&audited.claims).zip(&all) {
            for c in claims {
                claim_reads(
                    c,
                    &(e.name().to_string(), format!("claim {}", c.id)),
                    &mut by,
                );
            }
            // A precision rule's control variate is read by the rule.
            for pp in e.all_plans().flat_map(|p| &p.points) {
                if let Replications::Precision(rule) = &pp.replications
                    && let Some(k) = lb_manifest::plan::control_key(rule)
                {
                    by.entry(k).or_insert_with(BTreeSet::new).insert((
                        e.name().to_string(),
                        "the precision rule (its control variate)".to_string(),
                    ));
                }
            }
            for f in e.loaded.figures() {
                let spec = FigureSpec::from_toml(e.loaded.model(), f);
                for k in results
                    .iter()
                    .filter(|r| spec.selects(r))
                    .filter_map(|r| r.key)
                {
                    by.entry(k)
                        .or_insert_with(BTreeSet::new)
                        .insert((e.name().to_string(), format!("figure {}", f.name)));
                }
            }
        }
        Readers(by)
    }

    /// The readers of `key` in words, for a point of experiment
    /// `experiment` (another experiment's claim named with its experiment).
    fn words(&self, key: &Key, experiment: &str) -> String {
        let Some(rs) = self.0.get(key) else {
            return "nothing (table only)".into();
        };
        rs.iter()
            .map(|(e, r)| {
                if e == experiment {
                    r.clone()
                } else {
                    format!("{r} ({e})")
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn reads(&self, key: &Key) -> bool {
        self.0.contains_key(key)
    }
}

/// Every key a claim's checks read, with its foil's, nulls' and why
/// checks', under `reader`.
fn claim_reads(
    c: &ClaimResult,
    reader: &(String, String),
    by: &mut BTreeMap<Key, BTreeSet<(String, String)>>,
) {
    for k in c.checks.iter().flat_map(|k| &k.keys) {
        if let Some(key) = Key::parse(k) {
            by.entry(key).or_default().insert(reader.clone());
        }
    }
    for x in c
        .foil
        .iter()
        .map(|f| &**f)
        .chain(&c.nulls)
        .chain(&c.why_checks)
    {
        claim_reads(x, reader, by);
    }
}

/// `lb plan --why`: a line per missing point saying why it is missing.
pub fn render_why(cache: &Cache, plan: &Plan, cached: &lb_store::why::Cached) -> String {
    let mut s = String::new();
    let st = status(cache, plan);
    let mut seen = BTreeSet::new();
    for (pp, ps) in plan.points.iter().zip(&st) {
        let (Some(k), State::Missing) = (ps.key, ps.state()) else {
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

/// The `lb plan` table of one manifest: each point with what sets its
/// replication count (`n from`) and what reads it (`read by`). A plan of a
/// robustness map's combination reads `map` for its count: the map's
/// claims read its points.
pub fn render_plan(cache: &Cache, plan: &Plan, readers: &Readers, map: bool) -> String {
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
        for (c, k) in plan.calibrations_keyed() {
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
    header.extend(["n from".to_string(), "read by".into()]);
    let mut rows = vec![header];
    let mut unsettled = 0;
    let (mut by_reason, mut unread) = (BTreeMap::<&str, u32>::new(), 0);
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
        let settling = lb_model::settle::Settling::of(&r.summaries);
        let settled = if r.summaries.is_empty() {
            "-".to_string()
        } else {
            unsettled += usize::from(!settling.settled());
            settling.cell()
        };
        let mut row = vec![key, ps.word().to_string(), reps, settled, pp.label.clone()];
        row.extend(pp.axes.iter().cloned());
        let from = match ps.count_from(&pp.replications) {
            _ if map => "map",
            CountFrom::Fixed => "fixed",
            CountFrom::Precision => "precision",
            CountFrom::Decide => "lb decide",
            CountFrom::Control => "control",
        };
        *by_reason.entry(from).or_insert(0) += ps.needed;
        let read_by = match ps.key {
            Some(k) if map && !readers.reads(&k) => "the map's claims".to_string(),
            Some(k) => {
                if !readers.reads(&k) {
                    unread += ps.needed;
                }
                readers.words(&k, &plan.name)
            }
            None => "-".into(),
        };
        row.extend([from.to_string(), read_by]);
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
    let legend = if map {
        ""
    } else {
        "what sets a point's replications: `fixed`, the manifest's run.replications; \
         `precision`, its precision rule on the figure's metric (a control variate's point that \
         no figure draws: its first stage, `(control)`); `lb decide`, more for the claims it left \
         inconclusive (experiments/decide/); `control`, a control variate's, more for the points \
         it controls; `map`, a robustness map's combination. "
    };
    let _ = writeln!(
        s,
        "  n from: {legend}Replications by it: {}{}",
        by_reason
            .iter()
            .map(|(r, n)| format!("{r} {n}"))
            .collect::<Vec<_>>()
            .join(", "),
        if unread > 0 {
            format!("; {unread} of them at points no claim or figure reads")
        } else {
            String::new()
        }
    );
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
    let count = |w: State| st.iter().filter(|p| p.state() == w).count();
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
        count(State::Cached),
        count(State::Partial),
        count(State::Missing),
        count(State::Damaged),
        count(State::NeedsCalibration),
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
