//! `lb table`, `lb reproduce` and `lb audit`: what lb-analysis makes of the
//! cache (issues 4 and 5).

use crate::progress;
use lb_analysis::audit::{ClaimResult, Verdict, audit_claim, markdown as audit_markdown};
use lb_analysis::figure::FigureSpec;
use lb_analysis::metric::Metric;
use lb_analysis::report::{Experiment, report_page, write_experiment, write_if_changed};
use lb_analysis::table::{COLUMNS, csv, json, markdown, replications_frame, summary_frame};
use lb_analysis::{PointResult, collect};
use lb_runner::cache::Cache;
use lb_runner::expand::Plan;
use lb_runner::manifest::Loaded;
use lb_runner::provenance::Context;
use lb_runner::run::run_plans;
use lb_runner::{Profile, expand, load};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

type Res = Result<ExitCode, Box<dyn std::error::Error>>;

/// Output formats of `lb table` and `lb audit`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Md,
    Json,
}

/// The manifests named, or every `experiments/*.toml` in name order.
pub fn manifests_or_all(given: &[PathBuf]) -> Result<Vec<PathBuf>, Box<dyn std::error::Error>> {
    if !given.is_empty() {
        return Ok(given.to_vec());
    }
    let dir = Path::new("experiments");
    let mut all: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| {
            format!(
                "cannot list {}: {e} (run lb from the repository root, or name the manifests)",
                dir.display()
            )
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    all.sort();
    if all.is_empty() {
        return Err(format!("no manifests in {}", dir.display()).into());
    }
    Ok(all)
}

fn loaded(
    manifests: &[PathBuf],
    profile: Profile,
) -> Result<Vec<(Loaded, Plan)>, Box<dyn std::error::Error>> {
    manifests
        .iter()
        .map(|m| {
            let l = load(m)?;
            let p = expand(&l, profile)?;
            Ok((l, p))
        })
        .collect()
}

fn profile(quick: bool) -> Profile {
    if quick { Profile::Quick } else { Profile::Full }
}

/// `lb table MANIFEST --format csv|md|json`.
pub fn table(cache: &Cache, manifest: &Path, format: Format, quick: bool, long: bool) -> Res {
    let (l, plan) = loaded(&[manifest.to_path_buf()], profile(quick))?.remove(0);
    let results = collect(cache, &plan);
    let metrics = Metric::table_metrics(l.model());
    let frame = replications_frame(&l.experiment().name, &results, &metrics)?;
    let frame = if long {
        frame
    } else {
        summary_frame(&results, &frame, &metrics)?
    };
    let text = match format {
        Format::Csv => csv(&frame)?,
        Format::Md => markdown(&frame)?,
        Format::Json => json(&frame)?,
    };
    print!("{text}");
    let missing = results.iter().filter(|r| !r.complete()).count();
    if missing > 0 {
        eprintln!(
            "note: {missing} point(s) are not (fully) computed yet: lb run {}",
            manifest.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The column documentation, for `lb table --columns`.
pub fn columns() -> Res {
    println!("{COLUMNS}");
    Ok(ExitCode::SUCCESS)
}

fn audit_all(loaded: &[(Loaded, Plan)], results: &[Vec<PointResult>]) -> Vec<ClaimResult> {
    let mut out = Vec::new();
    for ((l, _), rs) in loaded.iter().zip(results) {
        for c in l.claims() {
            out.push(audit_claim(&l.experiment().name, c, rs));
        }
    }
    out
}

fn required_refuted(claims: &[ClaimResult]) -> Vec<&ClaimResult> {
    claims
        .iter()
        .filter(|c| c.required && c.verdict == Verdict::Refuted)
        .collect()
}

/// `lb audit [MANIFEST…] [--format md|json]`.
pub fn audit(cache: &Cache, manifests: &[PathBuf], format: Format, quick: bool, out: &Path) -> Res {
    let manifests = manifests_or_all(manifests)?;
    let loaded = loaded(&manifests, profile(quick))?;
    let results: Vec<Vec<PointResult>> = loaded.iter().map(|(_, p)| collect(cache, p)).collect();
    let claims = audit_all(&loaded, &results);
    let md = audit_markdown(&claims);
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&claims)?),
        _ => print!("{}", md.split("\n## Every check").next().unwrap_or(&md)),
    }
    write_if_changed(&out.join("audit.md"), md.as_bytes())?;
    eprintln!("wrote {}", out.join("audit.md").display());
    finish(&claims)
}

fn finish(claims: &[ClaimResult]) -> Res {
    let bad = required_refuted(claims);
    if bad.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        for c in bad {
            eprintln!(
                "error: required claim refuted: {} / {}: {}",
                c.experiment, c.id, c.statement
            );
        }
        Ok(ExitCode::FAILURE)
    }
}

/// `lb reproduce [--fresh] [--quick]`: run every manifest (cache hits are
/// free), then write every table, figure, the report and the audit.
pub fn reproduce(
    cache: &Cache,
    manifests: &[PathBuf],
    threads: Option<usize>,
    quick: bool,
    fresh: bool,
    force: bool,
    out: &Path,
) -> Res {
    let manifests = manifests_or_all(manifests)?;
    let loaded = loaded(&manifests, profile(quick))?;
    // --fresh recomputes everything into a new results directory beside the
    // cache, leaving the cache itself untouched, then compares the two.
    let fresh_dir;
    let cache = if fresh {
        fresh_dir = cache.root().with_file_name(format!(
            "{}-fresh-{}",
            cache
                .root()
                .file_name()
                .and_then(|s| s.to_str())
                .unwrap_or("results"),
            std::process::id()
        ));
        eprintln!(
            "--fresh: recomputing everything into {}",
            fresh_dir.display()
        );
        &Cache::new(&fresh_dir)
    } else {
        cache
    };
    let pool = crate::commands::pool(threads)?;
    let ctx = Context::capture(pool.current_num_threads(), std::env::args().collect());
    let progress = progress::for_stderr();
    let plans: Vec<Plan> = loaded.iter().map(|(_, p)| p.clone()).collect();
    crate::commands::check_budget(cache, &plans, pool.current_num_threads(), force)?;
    let t0 = std::time::Instant::now();
    let report = pool.install(|| run_plans(cache, &plans, &ctx, progress.as_ref()))?;
    drop(progress);
    eprintln!(
        "runs: {} computed, {} cached, in {:.1}s",
        report.computed,
        report.reused,
        t0.elapsed().as_secs_f64()
    );
    let results: Vec<Vec<PointResult>> = plans.iter().map(|p| collect(cache, p)).collect();
    let figures: Vec<Vec<FigureSpec>> = loaded
        .iter()
        .map(|(l, _)| {
            l.figures()
                .iter()
                .map(|f| FigureSpec::from_toml(l.model(), f))
                .collect()
        })
        .collect();
    let mut exps = Vec::new();
    for (((l, _), rs), figs) in loaded.iter().zip(&results).zip(&figures) {
        let e = l.experiment();
        exps.push(Experiment {
            name: &e.name,
            title: &e.title,
            source: e.source.as_deref(),
            notes: e.notes.as_deref(),
            manifest: l.file(),
            results: rs,
            figures: figs,
        });
    }
    let mut written = Vec::new();
    for e in &exps {
        written.push(write_experiment(out, e)?);
    }
    let pairs: Vec<(&Experiment, &_)> = exps.iter().zip(&written).collect();
    write_if_changed(&out.join("README.md"), report_page(&pairs).as_bytes())?;
    let claims = audit_all(&loaded, &results);
    write_if_changed(&out.join("audit.md"), audit_markdown(&claims).as_bytes())?;
    let imprecise: usize = written.iter().map(|w| w.imprecise.len()).sum();
    let missing: usize = written.iter().map(|w| w.missing).sum();
    eprintln!(
        "wrote {} ({} experiments, {} figures); {} point(s) above the 5% half-width target, {} not computed",
        out.display(),
        exps.len(),
        written.iter().map(|w| w.figures.len()).sum::<usize>(),
        imprecise,
        missing
    );
    for c in &claims {
        eprintln!("  {:<12} {} / {}", c.verdict.word(), c.experiment, c.id);
    }
    // Verdicts are findings here; `lb audit` is the gate that fails on a
    // refuted required claim.
    for c in required_refuted(&claims) {
        eprintln!(
            "warning: required claim refuted: {} / {} (lb audit will fail)",
            c.experiment, c.id
        );
    }
    Ok(ExitCode::SUCCESS)
}
