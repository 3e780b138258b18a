//! The subcommands; `lb table`, `lb reproduce` and `lb audit` live in
//! [`crate::outputs`].

use crate::progress;
use crate::{CacheAction, Cli, Command};
use lb_manifest::Profile;
use lb_pipeline::compute::RunOptions;
use lb_pipeline::existing;
use lb_pipeline::run_text::{point_names, report};
use lb_store::cache::Cache;
use lb_store::{maintain, verify};
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
        Command::Show { key, full } => {
            print!("{}", lb_pipeline::show::show(&cache, key, *full)?);
            Ok(ExitCode::SUCCESS)
        }
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
        print!("{}", lb_pipeline::plan_text::render_plan(cache, plan));
        if let Some(cached) = &cached {
            print!(
                "{}",
                lb_pipeline::plan_text::render_why(cache, plan, cached)
            );
        }
    }
    let threads = lb_pipeline::compute::pool(threads)?.current_num_threads();
    if let Some(why) = lb_pipeline::compute::check_budget(cache, &plans, threads, force, 1)? {
        eprintln!("warning: {why} (--force)");
    }
    Ok(ExitCode::SUCCESS)
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
    print!(
        "{}",
        report(
            &ran.report,
            ran.wall,
            ran.threads,
            &point_names(cache, &plans)
        )
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
        lb_pipeline::show::find_key(cache, p)?;
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
