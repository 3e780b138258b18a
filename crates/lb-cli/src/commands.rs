//! The subcommands; `lb table`, `lb reproduce` and `lb audit` live in
//! [`crate::outputs`].

use crate::progress;
use crate::{CacheAction, Cli, Command};
use lb_manifest::Profile;
use lb_pipeline::compute::RunOptions;
use lb_pipeline::run_text::{point_names, report};
use lb_pipeline::store_text;
use lb_store::cache::Cache;
use std::path::PathBuf;
use std::process::ExitCode;

type Res = Result<ExitCode, Box<dyn std::error::Error>>;

pub(crate) fn dispatch(cli: &Cli) -> Res {
    let cache = Cache::new(&cli.results);
    let done = match &cli.command {
        Command::Plan {
            manifests,
            profile,
            force,
            threads,
            why,
        } => plan(&cache, manifests, *profile, (*force, *why), *threads),
        Command::Decide {
            manifests,
            threads,
            force,
            budget_cpu,
        } => crate::decide::decide(&cache, manifests, *threads, *force, *budget_cpu),
        Command::Run {
            manifests,
            threads,
            profile,
            force,
            shard,
            stage,
        } => run(
            &cache,
            manifests,
            *threads,
            *profile,
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
            profile,
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
                profile: *profile,
            },
            *submit,
        ),
        Command::Status { manifests, profile } => crate::slurm::status(&cache, manifests, *profile),
        Command::Show { key, full } => {
            print!("{}", lb_pipeline::show::show(&cache, key, *full)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::Cache { action } => cache_action(&cache, action),
        Command::Stamp {
            manifests,
            retime,
            records: r,
        } => with_progress(|p| {
            let key = r.key.as_deref();
            store_text::stamp(
                &cache, r.sample, r.seed, key, r.threads, manifests, *retime, p,
            )
        }),
        Command::Verify { records: r } => with_progress(|p| {
            let key = r.key.as_deref();
            store_text::verify(&cache, r.sample, r.seed, key, r.threads, p)
        }),
        Command::Table {
            manifest,
            format,
            profile,
            long,
            columns,
        } => match manifest {
            Some(m) if !*columns => crate::outputs::table(&cache, m, *format, *profile, *long),
            _ => crate::outputs::columns(),
        },
        Command::Reproduce {
            manifests,
            fresh,
            profile,
            threads,
            force,
            out,
            cost,
        } => crate::outputs::reproduce(
            &cache,
            manifests,
            (*threads, *profile, *fresh, *force, *cost),
            out,
        ),
        Command::Export { manifests, out } => crate::outputs::export(&cache, manifests, out),
        Command::Coverage { .. } => crate::coverage::coverage(&cache, &cli.command),
        Command::Diff {
            manifests,
            against,
            profile,
            report: Some(here),
        } => diff_reports(manifests, against, *profile, here),
        Command::Diff {
            manifests,
            against,
            profile,
            report: None,
        } => shown(lb_pipeline::diff::diff(
            &cache, against, manifests, *profile,
        )?),
        Command::Schema { out, check } => schema(out, *check),
        Command::Preference { rates, rules, at } => preference(rates, rules, at),
        Command::Quotes {
            paper,
            texts,
            manifests,
        } => quotes(paper, texts, manifests),
        Command::Check { manifests } => check(&cache, manifests),
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
            paper,
        } => said(lb_manifest::starter::new(
            name,
            model,
            policies,
            load,
            out,
            paper.as_deref(),
        )?),
        Command::Mutants { claims: c } => {
            crate::outputs::mutants(&cache, &c.manifests, c.format, c.profile)
        }
        Command::Audit { claims: c, out } => {
            crate::outputs::audit(&cache, &c.manifests, c.format, c.profile, out.as_deref())
        }
    };
    // What the store read is kept for the command; the process ends next, and
    // freeing every record one by one would only cost time.
    std::mem::forget(cache);
    done
}

/// `lb diff --report HERE --against THERE`: two reports as written.
fn diff_reports(
    manifests: &[PathBuf],
    against: &str,
    profile: Profile,
    here: &std::path::Path,
) -> Res {
    if !manifests.is_empty() || profile == Profile::Quick {
        return Err("--report compares two reports as written: no manifests or --quick".into());
    }
    for d in [here, std::path::Path::new(against)] {
        if !lb_pipeline::diff::is_report(d) {
            return Err(format!(
                "{} is not a report (no README.md and audit.md): give two `lb \
                 reproduce --out` directories",
                d.display()
            )
            .into());
        }
    }
    shown(lb_pipeline::diff::diff_reports(
        here,
        std::path::Path::new(against),
    )?)
}

/// `lb cache …`: the store's own commands.
fn cache_action(cache: &Cache, action: &CacheAction) -> Res {
    match action {
        CacheAction::Ls => shown(store_text::list(cache)?),
        CacheAction::Check => shown(store_text::check(cache)?),
        CacheAction::Lineage { strict } => shown(store_text::lineage(cache, *strict)?),
        CacheAction::Adopt { from } => shown(store_text::adopt(cache, from)?),
        CacheAction::Pack { check } => shown(store_text::pack(cache, *check)?),
        CacheAction::Gc {
            dry_run,
            unreferenced,
        } => shown(store_text::gc(cache, *dry_run, unreferenced)?),
    }
}

/// A command on the store run with a progress display, its text printed.
fn with_progress(f: impl FnOnce(&dyn lb_store::run::Progress) -> lb_pipeline::Said) -> Res {
    let progress = progress::for_stderr();
    let t = f(progress.as_ref());
    drop(progress);
    shown(t?)
}

/// A command's text printed: standard output, then standard error; it
/// fails as the text says.
fn shown(t: lb_pipeline::Text) -> Res {
    print!("{}", t.out);
    eprint!("{}", t.err);
    Ok(if t.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// A command's one line of what it wrote, printed.
fn said(line: String) -> Res {
    println!("{line}");
    Ok(ExitCode::SUCCESS)
}

/// `lb plan`: each plan's table, then the guard `lb run` applies before
/// anything runs — work beyond lb's soft limits is refused (an error, exit
/// non-zero) unless `force`, so that a plan that passes is one that runs.
fn plan(
    cache: &Cache,
    manifests: &[PathBuf],
    profile: Profile,
    (force, why): (bool, bool),
    threads: Option<usize>,
) -> Res {
    let loaded = lb_manifest::load_all(manifests, profile)?;
    let cached = why.then(|| lb_store::why::Cached::read(cache));
    let readers = lb_pipeline::plan_text::Readers::of(cache, &loaded);
    // Each manifest's own plan, then its maps' combinations.
    for (i, plan) in loaded.iter().flat_map(|e| e.all_plans().enumerate()) {
        print!(
            "{}",
            lb_pipeline::plan_text::render_plan(cache, plan, &readers, i > 0)
        );
        if let Some(cached) = &cached {
            print!(
                "{}",
                lb_pipeline::plan_text::render_why(cache, plan, cached)
            );
        }
    }
    let threads = lb_pipeline::compute::pool(threads)?.current_num_threads();
    let plans = lb_pipeline::compute::plans(&loaded);
    if let Some(why) = lb_pipeline::compute::check_budget(cache, &plans, threads, force, 1)? {
        eprintln!("warning: {why} (--force)");
    }
    Ok(ExitCode::SUCCESS)
}

fn run(
    cache: &Cache,
    manifests: &[PathBuf],
    threads: Option<usize>,
    profile: Profile,
    force: bool,
    shard: Option<&str>,
    stage: Option<u32>,
) -> Res {
    let shard = shard.map(lb_store::run::Shard::parse).transpose()?;
    if stage == Some(0) {
        return Err("--stage counts from 1 (the first stage computes the calibrations)".into());
    }
    let loaded = lb_manifest::load_all(manifests, profile)?;
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

/// `lb check`: the loader's rules, then the registry's, each failure
/// located; then, where the cache holds an experiment's records, the rule
/// that reads them (room for each claim's region in some figure).
fn check(cache: &Cache, manifests: &[PathBuf]) -> Res {
    let manifests = lb_pipeline::manifests_or_all(manifests)?;
    // The loader refuses at the first broken rule, located, with its fix.
    let loaded = lb_manifest::load_all(&manifests, Profile::Full)?;
    let mut failed = 0;
    for e in &loaded {
        let file = e.loaded.file();
        for (rule, f) in lb_manifest::rules::check_file(file)? {
            failed += 1;
            println!("{}: {}: [{rule}] {}", file.display(), f.field, f.message);
        }
    }
    let mut unread = Vec::new();
    for e in &loaded {
        let results = lb_analysis::collect(cache, &e.plan);
        if results.iter().all(|r| r.summaries.is_empty()) {
            unread.push(e.name().to_string());
            continue;
        }
        for why in lb_audit::room::squeezed(e, &results).1 {
            failed += 1;
            println!("{}: [claims-have-room] {why}", e.loaded.file().display());
        }
    }
    println!(
        "{} manifest(s): the loader's rules hold; {} rule(s) of the registry ({}) and \
         claims-have-room: {}",
        loaded.len(),
        lb_manifest::rules::RULES.len(),
        lb_manifest::rules::RULES
            .iter()
            .map(|r| r.name)
            .collect::<Vec<_>>()
            .join(", "),
        if failed == 0 {
            "all hold".to_string()
        } else {
            format!("{failed} failure(s) above")
        }
    );
    if !unread.is_empty() {
        println!(
            "not checked: no records: claims-have-room for {} (run them first)",
            unread.join(", ")
        );
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn quotes(paper: &str, texts: &[PathBuf], manifests: &[PathBuf]) -> Res {
    let manifests = lb_pipeline::manifests_or_all(manifests)?;
    let dir = lb_manifest::inventory::beside(&manifests)
        .ok_or("no manifests: name them, or run lb in the project")?;
    let inventories = lb_manifest::inventory::load_dir(&dir)?;
    let papers: Vec<&str> = inventories
        .iter()
        .map(|i| i.paper.authors.as_str())
        .collect();
    if !papers.contains(&paper) {
        return Err(format!(
            "--paper \"{paper}\": no inventory in {} has these authors; they are: {}",
            dir.display(),
            papers.join("; ")
        )
        .into());
    }
    let mut held = Vec::new();
    for t in texts {
        held.push(
            std::fs::read_to_string(t)
                .map_err(|e| format!("{}: cannot read the paper's text: {e}", t.display()))?,
        );
    }
    let all = lb_manifest::quotes::collect(&manifests, &dir, &papers)?;
    let n = all.iter().filter(|q| q.paper == paper).count();
    let missing = lb_manifest::quotes::check(&all, paper, &held);
    for m in &missing {
        eprintln!(
            "{}: {}: quote not in the text: \"{}\"\n  first part missing (normalised): {}\n  \
             the text nearest it (normalised): {}\n  fix: quote the text as it stands; \
             restore characters it lost in [brackets]",
            m.quote.file.display(),
            m.quote.place,
            m.quote.text,
            m.part,
            m.nearest
        );
    }
    println!(
        "{paper}: {} of {n} quotes stand in {}",
        n - missing.len(),
        texts
            .iter()
            .map(|t| t.display().to_string())
            .collect::<Vec<_>>()
            .join(" and ")
    );
    Ok(if missing.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn preference(rates: &[f64], rules: &[String], at: &[u64]) -> Res {
    use lb_core::slotted::TieBreak;
    use lb_core::slotted::preference::{self, Rule};
    if let Some(bad) = rates.iter().find(|r| !(r.is_finite() && **r > 0.0)) {
        return Err(format!("--rates: {bad} is not a rate; each μ_n must be above 0").into());
    }
    let rules: Vec<Rule> = if rules.is_empty() {
        vec![
            Rule::LJsq(TieBreak::Random),
            Rule::LJsq(TieBreak::Lowest),
            Rule::LJba,
            Rule::LPod(2, TieBreak::Random),
            Rule::LPod(2, TieBreak::Lowest),
            Rule::WeightedRandom,
            Rule::Random,
        ]
    } else {
        rules
            .iter()
            .map(|r| Rule::parse(r).map_err(|e| format!("--rule {e}")))
            .collect::<Result<_, _>>()?
    };
    let list = |xs: &[f64]| {
        xs.iter()
            .map(|x| format!("{x:.4}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mu_sum: f64 = rates.iter().sum();
    println!(
        "servers: μ = ({}), μ_Σ = {mu_sum:.4}, μ_min/μ_Σ = {:.4}, 1/N = {:.4}",
        list(rates),
        rates.iter().copied().fold(f64::INFINITY, f64::min) / mu_sum,
        1.0 / rates.len() as f64
    );
    if !at.is_empty() {
        if at.len() != rates.len() {
            return Err(format!(
                "--at has {} estimates and --rates {} servers; give one estimate per server",
                at.len(),
                rates.len()
            )
            .into());
        }
        for rule in rules {
            let p = preference::probabilities(rule, rates, at);
            let pref = preference::preference(&p, rates, at);
            println!(
                "{}: P = ({}); ∆ = ({}); tilted: {}; δ here = {:.4}",
                rule.name(),
                list(&p),
                list(&pref.delta),
                if pref.tilted { "yes" } else { "no" },
                pref.delta_min
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    if !(2..=7).contains(&rates.len()) {
        return Err(format!(
            "--rates: {} servers; the search over every state takes 2 to 7 (--at reads one state of any size)",
            rates.len()
        )
        .into());
    }
    println!(
        "| rule | states | tilted at every state | least δ | at estimates | least δ where some estimates differ |"
    );
    println!("| --- | ---: | --- | ---: | --- | ---: |");
    for rule in rules {
        let w = preference::worst(rule, rates);
        println!(
            "| {} | {} | {} | {:.4} | ({}) | {:.4} |",
            rule.name(),
            w.states,
            if w.all_tilted { "yes" } else { "no" },
            w.delta_min,
            w.at.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            w.untied_delta_min
        );
    }
    Ok(ExitCode::SUCCESS)
}
