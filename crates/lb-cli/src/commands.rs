//! The subcommands; `lb table`, `lb reproduce` and `lb audit` live in
//! [`crate::outputs`].

use crate::progress;
use crate::ran::{point_names, print_report};
use crate::{CacheAction, Cli, Command};
use lb_manifest::Profile;
use lb_manifest::plan::{Plan, Replications};
use lb_model::key::Key;
use lb_pipeline::compute::RunOptions;
use lb_pipeline::existing;
use lb_store::cache::{Cache, Read};
use lb_store::run::{calibration_line, status};
use lb_store::{maintain, verify};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

type Res = Result<ExitCode, Box<dyn std::error::Error>>;

pub fn dispatch(cli: &Cli) -> Res {
    let cache = Cache::new(&cli.results);
    match &cli.command {
        Command::Plan {
            manifests,
            quick,
            force,
            threads,
            why,
        } => plan(&cache, manifests, *quick, (*force, *why), *threads),
        Command::Decide {
            manifests,
            threads,
            force,
            budget_cpu,
        } => crate::decide::decide(&cache, manifests, *threads, *force, *budget_cpu),
        Command::Run {
            manifests,
            threads,
            quick,
            force,
            shard,
            stage,
        } => run(
            &cache,
            manifests,
            *threads,
            *quick,
            *force,
            shard.as_deref(),
            *stage,
        ),
        Command::Slurm {
            manifests,
            tasks,
            partition,
            time,
            cpus,
            out,
            quick,
            submit,
        } => crate::slurm::slurm(
            &cache,
            manifests,
            &lb_pipeline::slurm::Options {
                tasks: *tasks,
                partition: partition.clone(),
                time: time.clone(),
                cpus: *cpus,
                dir: out.clone(),
                quick: *quick,
            },
            *submit,
        ),
        Command::Status { manifests, quick } => crate::slurm::status(&cache, manifests, *quick),
        Command::Show { key, full } => show(&cache, key, *full),
        Command::Cache { action } => match action {
            CacheAction::Ls => cache_ls(&cache),
            CacheAction::Check => cache_check(&cache),
            CacheAction::Lineage { strict } => cache_lineage(&cache, *strict),
            CacheAction::Adopt { from } => cache_adopt(&cache, from),
            CacheAction::Gc {
                dry_run,
                unreferenced,
            } => cache_gc(&cache, *dry_run, unreferenced),
        },
        Command::Stamp {
            manifests,
            sample,
            seed,
            key,
            threads,
        } => stamp_cmd(&cache, *sample, *seed, key.as_deref(), *threads, manifests),
        Command::Verify {
            sample,
            seed,
            key,
            threads,
        } => verify_cmd(&cache, *sample, *seed, key.as_deref(), *threads),
        Command::Table {
            manifest,
            format,
            quick,
            long,
            columns,
        } => match manifest {
            Some(m) if !*columns => crate::outputs::table(&cache, m, *format, *quick, *long),
            _ => crate::outputs::columns(),
        },
        Command::Reproduce {
            manifests,
            fresh,
            quick,
            threads,
            force,
            out,
        } => crate::outputs::reproduce(&cache, manifests, *threads, *quick, *fresh, *force, out),
        Command::Export { manifests, out } => crate::outputs::export(&cache, manifests, out),
        Command::Coverage { .. } => crate::coverage::coverage(&cache, &cli.command),
        Command::Diff {
            manifests,
            against,
            quick,
            report: Some(here),
        } => {
            if !manifests.is_empty() || *quick {
                return Err(
                    "--report compares two reports as written: no manifests or --quick".into(),
                );
            }
            for d in [here.as_path(), std::path::Path::new(against)] {
                if !lb_pipeline::diff::is_report(d) {
                    return Err(format!(
                        "{} is not a report (no README.md and audit.md): give two `lb \
                         reproduce --out` directories",
                        d.display()
                    )
                    .into());
                }
            }
            diffed(lb_pipeline::diff::diff_reports(
                here,
                std::path::Path::new(against),
            )?)
        }
        Command::Diff {
            manifests,
            against,
            quick,
            report: None,
        } => diffed(lb_pipeline::diff::diff(&cache, against, manifests, *quick)?),
        Command::Schema { out, check } => schema(out, *check),
        Command::Archive {
            manifests,
            out,
            report,
        } => said(lb_pipeline::archive::archive(
            &cache, manifests, report, out,
        )?),
        Command::New {
            name,
            model,
            policies,
            load,
            out,
        } => said(lb_manifest::starter::new(name, model, policies, load, out)?),
        Command::Mutants {
            manifests,
            format,
            quick,
        } => crate::outputs::mutants(&cache, manifests, *format, *quick),
        Command::Audit {
            manifests,
            format,
            quick,
            out,
        } => crate::outputs::audit(&cache, manifests, *format, *quick, out.as_deref()),
    }
}

/// A command's one line of what it wrote, printed.
fn said(line: String) -> Res {
    println!("{line}");
    Ok(ExitCode::SUCCESS)
}

/// `lb diff`'s lines, printed; it fails when a required verdict moved.
fn diffed(d: lb_pipeline::diff::Diffed) -> Res {
    print!("{}", d.text);
    Ok(if d.required_moved {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `lb plan`: each plan's table, then the guard `lb run` applies before
/// anything runs — work beyond lb's soft limits is refused (an error, exit
/// non-zero) unless `force`, so that a plan that passes is one that runs.
fn plan(
    cache: &Cache,
    manifests: &[PathBuf],
    quick: bool,
    (force, why): (bool, bool),
    threads: Option<usize>,
) -> Res {
    let loaded = lb_manifest::load_all(manifests, Profile::from_quick(quick))?;
    let plans = lb_pipeline::compute::plans(&loaded);
    let cached = why.then(|| lb_store::why::Cached::read(cache));
    for plan in &plans {
        print!("{}", render_plan(cache, plan));
        if let Some(cached) = &cached {
            print!("{}", render_why(cache, plan, cached));
        }
    }
    let threads = lb_pipeline::compute::pool(threads)?.current_num_threads();
    if let Some(why) = lb_pipeline::compute::check_budget(cache, &plans, threads, force, 1)? {
        eprintln!("warning: {why} (--force)");
    }
    Ok(ExitCode::SUCCESS)
}

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
    let e = lb_store::run::estimate(cache, plan, &st);
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
    s
}

fn run(
    cache: &Cache,
    manifests: &[PathBuf],
    threads: Option<usize>,
    quick: bool,
    force: bool,
    shard: Option<&str>,
    stage: Option<u32>,
) -> Res {
    let shard = shard.map(lb_store::run::Shard::parse).transpose()?;
    if stage == Some(0) {
        return Err("--stage counts from 1 (the first stage computes the calibrations)".into());
    }
    let loaded = lb_manifest::load_all(manifests, Profile::from_quick(quick))?;
    let plans = lb_pipeline::compute::plans(&loaded);
    let o = RunOptions {
        threads,
        force,
        shard,
        args: std::env::args().collect(),
        manifests: manifests.to_vec(),
    };
    let progress = progress::for_stderr();
    let ran = lb_pipeline::compute::run(cache, &plans, &o, progress.as_ref())?;
    drop(progress);
    print_report(
        &ran.report,
        ran.wall,
        ran.threads,
        &point_names(cache, &plans),
    );
    match stage {
        Some(k) if k > 1 && !ran.report.waiting.is_empty() => Err(format!(
            "stage {k}: {} point(s) still lack the p̂ calibration the first stage computes \
             (listed above): a task of an earlier stage failed, and this stage cannot do their \
             work. Its log says why; resubmit (`lb slurm --submit` computes exactly what is \
             missing) or run the calibrations with `lb run`",
            ran.report.waiting.len()
        )
        .into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// Finds exactly one key by prefix.
fn find_key(cache: &Cache, prefix: &str) -> Result<Key, Box<dyn std::error::Error>> {
    if prefix.is_empty() || !prefix.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("\"{prefix}\" is not a key prefix (hex digits)").into());
    }
    let found = cache.find_prefix(prefix);
    match found.len() {
        0 => Err(format!(
            "no record with a key starting with {prefix} in {}: the keys are in a figure's \
             .keys.csv, a table's key column and `lb plan MANIFEST`; a point not yet computed \
             has none until `lb run MANIFEST`",
            cache.root().display()
        )
        .into()),
        1 => Ok(found[0]),
        n => Err(format!(
            "{n} keys start with {prefix}: {}; give more digits",
            found
                .iter()
                .take(8)
                .map(|k| k.short())
                .collect::<Vec<_>>()
                .join(", ")
        )
        .into()),
    }
}

fn pretty<T: serde::Serialize>(t: &T) -> String {
    serde_json::to_string_pretty(t).unwrap_or_else(|e| format!("<{e}>"))
}

/// `t` as pretty JSON, each list of more than [`LIST`] entries in one line
/// (unless `full`): the entry repeated ("10 × {…}"), or a list of numbers
/// as its count, range and first values. A configuration of 50 servers
/// reads in a screen instead of 279 lines.
fn summarised<T: serde::Serialize>(t: &T, full: bool) -> String {
    if full {
        return pretty(t);
    }
    match serde_json::to_value(t) {
        Ok(v) => pretty(&summarise(v)),
        Err(e) => format!("<{e}>"),
    }
}

/// Lists longer than this are summarised by [`summarised`].
const LIST: usize = 6;

fn summarise(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, summarise(v))).collect()),
        Value::Array(a) if a.len() > LIST => {
            let n = a.len();
            // Runs of equal entries ("50 × {…}").
            let mut runs: Vec<(usize, &Value)> = Vec::new();
            for x in &a {
                match runs.last_mut() {
                    Some((k, y)) if *y == x => *k += 1,
                    _ => runs.push((1, x)),
                }
            }
            let run = |(k, x): (usize, &Value)| format!("{k} × {}", compact(&summarise(x.clone())));
            if runs.len() == 1 {
                return Value::String(run(runs[0]));
            }
            let nums: Option<Vec<f64>> = a.iter().map(|x| x.as_f64()).collect();
            if let Some(xs) = nums {
                let (lo, hi) = xs
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
                        (l.min(*x), h.max(*x))
                    });
                let first: Vec<String> = a.iter().take(3).map(compact).collect();
                return Value::String(format!(
                    "{n} values in [{lo}, {hi}]: {}, … (lb show --full lists them)",
                    first.join(", ")
                ));
            }
            if runs.len() <= LIST {
                return Value::Array(runs.into_iter().map(|r| Value::String(run(r))).collect());
            }
            // Distinct entries: the first few and how many more.
            let mut kept: Vec<Value> = a.into_iter().take(3).map(summarise).collect();
            kept.push(Value::String(format!(
                "… {} more (lb show --full lists them)",
                n - 3
            )));
            Value::Array(kept)
        }
        Value::Array(a) => Value::Array(a.into_iter().map(summarise).collect()),
        other => other,
    }
}

fn compact(v: &serde_json::Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn opt(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.4}"))
}

fn show(cache: &Cache, prefix: &str, full: bool) -> Res {
    existing(cache)?;
    let key = find_key(cache, prefix)?;
    let dir = cache.key_dir(&key);
    if let Read::Valid(c) = cache.read_calibration(&key) {
        println!("calibration {key}");
        println!("{}", calibration_line(&c.calibration, &c.result));
        println!("\ncalibration:\n{}", summarised(&c.calibration, full));
        println!("\nprobes (p̂ → messages per arrival):");
        for p in &c.result.probes {
            println!("  {:.8} → {:.6}", p.p_hat, p.messages_per_arrival);
        }
        println!("\nprovenance:\n{}", pretty(&c.provenance));
        println!("\nrecompute and compare: lb verify --key {}", key.short());
        return Ok(ExitCode::SUCCESS);
    }
    let point = match cache.read_point(&key) {
        Read::Valid(p) => p.point,
        Read::Damaged(why) => {
            return Err(format!(
                "{}: damaged point record: {why}",
                cache.point_path(&key).display()
            )
            .into());
        }
        Read::Missing => return Err(format!("{}: no point.json", dir.display()).into()),
    };
    println!("point {key}");
    println!(
        "policy {}, profile {}",
        point.policy_name(),
        point.profile.name()
    );
    for line in point.config.describe() {
        println!("{line}");
    }
    println!("\nconfiguration:\n{}", summarised(&point, full));
    println!("\nreplications (p0, p1, …: a precision rule's pilot, read by the rule only):");
    // The model's metrics that a replication defines on its own.
    let columns: Vec<&str> = point
        .model
        .metrics()
        .iter()
        .filter(|m| m.precision)
        .map(|m| m.name)
        .collect();
    let width = |c: &str| c.chars().count().max(10);
    let mut head = format!("  {:>5}", "r");
    for c in &columns {
        head += &format!("  {c:>w$}", w = width(c));
    }
    println!("{head}  {:>6}", "stable");
    let mut provs = Vec::new();
    for r in cache.replication_files(&key) {
        match cache.read_replication(&key, r) {
            Read::Valid(rec) => {
                // A precision rule's pilot replications: p0, p1, …
                let name = if lb_model::precision::is_pilot(r) {
                    format!("p{}", r - lb_model::precision::PILOT_BASE)
                } else {
                    r.to_string()
                };
                let mut row = format!("  {name:>5}");
                for c in &columns {
                    let v = rec.summary.precision_value(c);
                    row += &format!("  {:>w$}", opt(v), w = width(c));
                }
                println!("{row}  {:>6}", rec.summary.stable());
                if let Some(path) = rec.summary.path()
                    && r == 0
                {
                    let shown: Vec<String> = path
                        .iter()
                        .map(|(t, z)| format!("{}:{z}", lb_model::canonical::number_to_string(*t)))
                        .collect();
                    println!("         sample path (time:jobs): {}", shown.join(" "));
                }
                provs.push((r, rec.provenance));
            }
            Read::Damaged(why) => println!("  {r:>5}  DAMAGED: {why}"),
            Read::Missing => {}
        }
    }
    for f in std::fs::read_dir(&dir)?.flatten() {
        let name = f.file_name().to_string_lossy().to_string();
        if name.starts_with("precision-")
            && name.ends_with(".json")
            && let Read::Valid(p) =
                lb_store::cache::read_record::<lb_store::cache::PrecisionRecord>(&f.path())
        {
            println!(
                "\nprecision rule {}:\n{}",
                pretty(&p.rule),
                pretty(&p.outcome)
            );
        }
    }
    if let Some((r, p)) = provs.first() {
        println!("\nprovenance (replication {r}):\n{}", pretty(p));
        let others: Vec<String> = provs
            .iter()
            .filter(|(_, q)| {
                q.git_commit != p.git_commit || q.host != p.host || q.lb_version != p.lb_version
            })
            .map(|(r, q)| {
                format!(
                    "  r{r}: lb {} commit {} host {}",
                    q.lb_version,
                    q.git_commit.as_deref().unwrap_or("?"),
                    q.host
                )
            })
            .collect();
        if !others.is_empty() {
            println!("replications computed elsewhere:\n{}", others.join("\n"));
        }
        println!("\nrecompute and compare: lb verify --key {}", key.short());
        println!("computed by: {}", p.command.join(" "));
    } else {
        println!("  (none yet)");
    }
    Ok(ExitCode::SUCCESS)
}

fn human(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1}M", bytes as f64 / (1 << 20) as f64)
    } else {
        format!("{:.1}K", bytes as f64 / 1024.0)
    }
}

/// A command that only reads the cache needs one to read: a directory.
fn cache_ls(cache: &Cache) -> Res {
    existing(cache)?;
    let entries = maintain::list(cache);
    println!(
        "{:<12}  {:<11}  {:<6}  {:>5}  {:>8}  {:>7}  what",
        "key", "kind", "profile", "reps", "problems", "size"
    );
    for e in &entries {
        println!(
            "{:<12}  {:<11}  {:<7} {:>5}  {:>8}  {:>7}  {}",
            e.key.short(),
            e.kind,
            e.profile,
            e.replications,
            e.problems,
            human(e.bytes),
            e.what
        );
    }
    println!(
        "{} keys, {} replication records, {} problem files in {}",
        entries.len(),
        entries.iter().map(|e| e.replications as u64).sum::<u64>(),
        entries.iter().map(|e| e.problems as u64).sum::<u64>(),
        cache.root().display()
    );
    Ok(ExitCode::SUCCESS)
}

fn cache_check(cache: &Cache) -> Res {
    existing(cache)?;
    let checks = maintain::check_all(cache);
    let (mut bad, mut left) = (0, 0);
    for c in &checks {
        if let Some(why) = &c.problem {
            if c.leftover {
                left += 1;
                println!("LEFTOVER {}: {why}", c.path.display());
            } else {
                bad += 1;
                println!("BAD {}: {why}", c.path.display());
            }
        }
    }
    println!(
        "{} files checked: {} valid records, {bad} damaged, {left} leftovers",
        checks.len(),
        checks.len() - bad - left,
    );
    if bad + left > 0 {
        println!("`lb run` recomputes damaged records; `lb cache gc` removes leftovers");
    }
    Ok(if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn cache_gc(cache: &Cache, dry_run: bool, unreferenced: &[PathBuf]) -> Res {
    let keep = if unreferenced.is_empty() {
        None
    } else {
        Some(lb_pipeline::compute::referenced(cache, unreferenced)?)
    };
    let g = maintain::gc(cache, keep.as_ref(), dry_run)?;
    for (p, why) in &g.removed {
        println!(
            "{} {}: {why}",
            if dry_run { "would remove" } else { "removed" },
            p.display()
        );
    }
    println!(
        "{} {} item(s)",
        if dry_run { "would remove" } else { "removed" },
        g.removed.len()
    );
    Ok(ExitCode::SUCCESS)
}

fn verify_cmd(
    cache: &Cache,
    sample: Option<usize>,
    seed: u64,
    prefix: Option<&str>,
    threads: Option<usize>,
) -> Res {
    existing(cache)?;
    if let Some(p) = prefix {
        // The same rule as `lb show`: a hex prefix of exactly one key.
        find_key(cache, p)?;
    }
    if sample == Some(0) {
        return Err("--sample 0 verifies nothing: give a sample size ≥ 1, or leave it out".into());
    }
    let mut items = verify::items(cache, prefix);
    if let Some(k) = sample {
        items = verify::sample(items, k, seed);
    } else if prefix.is_none() && items.len() > 100 {
        // The whole cache: say what it costs before it starts.
        let cpu: f64 = cache
            .keys()
            .iter()
            .flat_map(|(k, _)| lb_store::maintain::provenances(cache, k))
            .map(|(_, p)| p.wall_seconds)
            .sum();
        eprintln!(
            "verifying all {} records: about {:.0} CPU-seconds, as long as computing them took \
             (their provenance), spread over the threads; `lb verify --sample K` checks K of \
             them, `--key PREFIX` one point",
            items.len(),
            cpu
        );
    }
    if items.is_empty() {
        return Err(format!(
            "nothing to verify: {} holds no record{}",
            cache.root().display(),
            prefix
                .map(|p| format!(" under key {p}"))
                .unwrap_or_default()
        )
        .into());
    }
    let progress = progress::for_stderr();
    let verdicts = lb_pipeline::compute::pool(threads)?
        .install(|| verify::verify(cache, &items, progress.as_ref()));
    let bad: Vec<_> = verdicts.iter().filter(|v| v.problem.is_some()).collect();
    for v in &bad {
        println!(
            "MISMATCH {}: {}",
            v.path.display(),
            v.problem.as_deref().unwrap_or("")
        );
    }
    println!(
        "{} record(s) recomputed: {} identical, {} not",
        verdicts.len(),
        verdicts.len() - bad.len(),
        bad.len()
    );
    Ok(if bad.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `lb stamp`: re-verify, at this clean commit, the records that
/// lead to no commit of the history, and stamp those that recompute bit for
/// bit.
fn stamp_cmd(
    cache: &Cache,
    sample: Option<usize>,
    seed: u64,
    prefix: Option<&str>,
    threads: Option<usize>,
    manifests: &[PathBuf],
) -> Res {
    use std::collections::BTreeMap;
    existing(cache)?;
    let repo = std::env::current_dir()?;
    let at = lb_store::provenance::Verification::at_clean_commit(&repo)?;
    // The manifests that plan each key, by path, with their text's hash.
    let paths = lb_pipeline::manifests::manifests_or_all(manifests)?;
    let mut planned: BTreeMap<lb_manifest::Key, BTreeMap<String, String>> = BTreeMap::new();
    for m in &paths {
        let sha = lb_store::provenance::sha256_hex(&std::fs::read(m)?);
        for profile in [lb_manifest::Profile::Full, lb_manifest::Profile::Quick] {
            let e = lb_manifest::load(m, profile)?;
            for plan in std::iter::once(&e.plan).chain(e.variant_plans()) {
                for st in lb_store::run::status(cache, plan) {
                    let keys = st.key.into_iter().chain(st.calibration.map(|c| c.0));
                    for k in keys {
                        planned
                            .entry(k)
                            .or_default()
                            .insert(m.display().to_string(), sha.clone());
                    }
                }
            }
        }
    }
    let mut items = verify::items(cache, prefix);
    if let Some(k) = sample {
        items = verify::sample(items, k, seed);
    }
    let known = std::sync::Mutex::new(BTreeMap::<String, bool>::new());
    let in_history = |c: &str| {
        if let Some(b) = known.lock().expect("not poisoned").get(c) {
            return *b;
        }
        let b = lb_store::provenance::in_history(&repo, c).unwrap_or(false);
        known.lock().expect("not poisoned").insert(c.to_string(), b);
        b
    };
    let progress = progress::for_stderr();
    let done = lb_pipeline::compute::pool(threads)?
        .install(|| verify::stamp(cache, &items, &planned, &at, &in_history, progress.as_ref()));
    let count = |f: &dyn Fn(&verify::Stamped) -> bool| done.iter().filter(|(_, s)| f(s)).count();
    for (item, s) in &done {
        match s {
            verify::Stamped::Problem(why) => println!("NOT STAMPED {item:?}: {why}"),
            verify::Stamped::Unplanned => {
                println!(
                    "NOT STAMPED {item:?}: no manifest of {} plans its key",
                    paths.len()
                )
            }
            _ => {}
        }
    }
    let problems = count(&|s| matches!(s, verify::Stamped::Problem(_)));
    let unplanned = count(&|s| *s == verify::Stamped::Unplanned);
    println!(
        "{} record(s): {} stamped at {} (recomputed bit for bit), {} already leading to a \
         commit, {} planned by no manifest, {} not identical or unreadable",
        done.len(),
        count(&|s| *s == verify::Stamped::Stamped),
        &at.commit[..at.commit.len().min(10)],
        count(&|s| *s == verify::Stamped::Leads),
        unplanned,
        problems
    );
    Ok(if problems == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `lb cache adopt DIR`: the records of a recompute taken into the cache,
/// only what changed rewritten.
fn cache_adopt(cache: &Cache, from: &std::path::Path) -> Res {
    let source = Cache::new(from);
    existing(&source)?;
    let a = maintain::adopt(cache, &source)?;
    println!(
        "{} into {}: {} record(s) kept as they are, {} replaced, {} new (kept: the same \
         numbers, file and provenance unchanged; replaced: numbers that differ, or a damaged \
         record)",
        from.display(),
        cache.root().display(),
        a.kept,
        a.replaced.len(),
        a.new
    );
    for p in &a.replaced {
        println!("  replaced {}", p.display());
    }
    for (p, why) in &a.skipped {
        eprintln!("  skipped {}: {why}", p.display());
    }
    if !a.skipped.is_empty() {
        eprintln!(
            "{} file(s) of {} are not valid records and were left out; `lb --results {} \
             cache check` lists them",
            a.skipped.len(),
            from.display(),
            from.display()
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// `lb cache lineage`: where the records came from; with `strict`, a
/// failure listing every record that leads to no commit of the history.
fn cache_lineage(cache: &Cache, strict: bool) -> Res {
    existing(cache)?;
    let repo = std::env::current_dir()?;
    let l = maintain::lineage(cache, &repo);
    let pct = |n: usize| 100.0 * n as f64 / l.records.max(1) as f64;
    println!(
        "{} records (replications, calibrations, precision outcomes) in {}:",
        l.records,
        cache.root().display()
    );
    println!(
        "  {:>6} ({:.1}%) computed from a clean tree at a commit in HEAD's history",
        l.clean_in_history,
        pct(l.clean_in_history)
    );
    println!(
        "  {:>6} ({:.1}%) computed from a modified tree (tracked files or manifests)",
        l.dirty,
        pct(l.dirty)
    );
    println!(
        "  {:>6} ({:.1}%) naming a commit not in HEAD's history",
        l.not_in_history,
        pct(l.not_in_history)
    );
    println!(
        "  {:>6} ({:.1}%) naming no commit",
        l.no_commit,
        pct(l.no_commit)
    );
    println!(
        "  {:>6} ({:.1}%) carrying their manifests' hashes",
        l.with_manifest_hash,
        pct(l.with_manifest_hash)
    );
    println!(
        "  {:>6} ({:.1}%) re-verified bit for bit at a clean commit in HEAD's history (lb stamp)",
        l.verified_in_history,
        pct(l.verified_in_history)
    );
    println!(
        "  {:>6} ({:.1}%) leading to no commit of the history with their manifests' hashes",
        l.nowhere.len(),
        pct(l.nowhere.len())
    );
    if !strict || l.nowhere.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    for (path, why) in l.nowhere.iter().take(20) {
        eprintln!("  {}: {why}", path.display());
    }
    if l.nowhere.len() > 20 {
        eprintln!("  … and {} more", l.nowhere.len() - 20);
    }
    Err(format!(
        "{} record(s) lead to no commit of HEAD's history with their manifests' hashes: commit \
         the manifests and code, then run `lb stamp` from the clean tree (or recompute \
         them from it)",
        l.nowhere.len()
    )
    .into())
}

/// `lb schema`: write (or with `check`, compare) the manifests' JSON Schemas.
fn schema(out: &std::path::Path, check: bool) -> Res {
    let mut stale = Vec::new();
    for (file, model, text) in lb_manifest::schema::schemas() {
        let p = out.join(file);
        if check {
            if std::fs::read_to_string(&p).ok().as_deref() != Some(text.as_str()) {
                stale.push(p.display().to_string());
            }
            continue;
        }
        std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
        lb_analysis::files::write_if_changed(&p, text.as_bytes())?;
        println!("{} ({model} manifests)", p.display());
    }
    if stale.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    Err(format!(
        "{} differ from the manifest types: run `lb schema` and commit them",
        stale.join(", ")
    )
    .into())
}
