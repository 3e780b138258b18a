//! `lb table`, `lb reproduce`, `lb audit` and `lb export`: arguments in,
//! lb-pipeline's results printed.

use crate::progress;
use lb_manifest::Profile;
use lb_pipeline::compute::RunOptions;
use lb_pipeline::table::Format as TableFormat;
use lb_pipeline::{existing, manifests_or_all};
use lb_store::cache::Cache;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub type Res = Result<ExitCode, Box<dyn std::error::Error>>;

/// Output formats of `lb table` and `lb audit`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Md,
    Json,
}

/// `lb table MANIFEST --format csv|md|json`.
pub fn table(cache: &Cache, manifest: &Path, format: Format, quick: bool, long: bool) -> Res {
    existing(cache)?;
    let e = lb_manifest::load(manifest, Profile::from_quick(quick))?;
    let format = match format {
        Format::Csv => TableFormat::Csv,
        Format::Md => TableFormat::Md,
        Format::Json => TableFormat::Json,
    };
    let (text, missing) = lb_pipeline::table::table(cache, &e, format, long)?;
    print!("{text}");
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
    println!("{}", lb_analysis::table::COLUMNS);
    Ok(ExitCode::SUCCESS)
}

/// `lb audit [MANIFEST…] [--format md|json|csv] [--out DIR]`: prints the
/// verdicts; with `--out`, writes the experiments' parts of DIR/audit.md and
/// reassembles it (the other experiments' sections are kept as they are).
pub fn audit(
    cache: &Cache,
    manifests: &[PathBuf],
    format: Format,
    quick: bool,
    out: Option<&Path>,
) -> Res {
    existing(cache)?;
    let all = manifests.is_empty();
    let loaded = lb_manifest::load_all(&manifests_or_all(manifests)?, Profile::from_quick(quick))?;
    let audited = lb_pipeline::audit::audit(cache, &loaded);
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&audited.json()?)?),
        Format::Csv => print!("{}", audited.csv()?),
        Format::Md => print!("{}", audited.markdown(&loaded)),
    }
    if let Some(out) = out {
        audited.write(&loaded, out, all)?;
        eprintln!("wrote {}", out.join("audit.md").display());
    }
    let gate = audited.gate();
    for l in &gate.lines {
        eprintln!("{l}");
    }
    // What to do about missing data: the experiments whose claims lack it.
    let lacking: Vec<String> = loaded
        .iter()
        .zip(&audited.claims)
        .filter(|(_, cs)| cs.iter().any(|c| !c.missing.is_empty()))
        .map(|(e, _)| e.plan.file.display().to_string())
        .collect();
    if !lacking.is_empty() {
        let quick = if quick { " --quick" } else { "" };
        eprintln!(
            "to compute what is missing: lb run{quick} {} (lb plan{quick} {} lists it)",
            lacking.join(" "),
            lacking.join(" ")
        );
    }
    Ok(if gate.fail {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `lb mutants [MANIFEST…]`: the audit's mutation check, printed.
pub fn mutants(cache: &Cache, manifests: &[PathBuf], format: Format, quick: bool) -> Res {
    existing(cache)?;
    let loaded = lb_manifest::load_all(&manifests_or_all(manifests)?, Profile::from_quick(quick))?;
    let all = lb_pipeline::audit::mutants(cache, &loaded);
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&all)?),
        Format::Csv => print!("{}", lb_analysis::audit::mutants::csv(&all)?),
        Format::Md => print!("{}", lb_analysis::audit::mutants::markdown(&all)),
    }
    let failing: Vec<_> = all.iter().filter(|m| !m.passes()).collect();
    let insensitive = all.iter().filter(|m| m.insensitive.is_some()).count();
    eprintln!(
        "{} claims: {} caught by every mutant, {insensitive} insensitive (with the reason), {} \
         not caught",
        all.len(),
        all.len() - insensitive - failing.len(),
        failing.len()
    );
    for m in &failing {
        eprintln!(
            "error: {} / {}: a mutant {:?} half-widths past the measurement was not caught",
            m.experiment,
            m.id,
            m.missed()
        );
    }
    Ok(if failing.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `lb reproduce [MANIFEST…] [--fresh] [--quick]`. What it produces (the
/// runs, the directory written, the cost table, the verdicts) goes to
/// stdout; progress, the notes of --fresh and warnings to stderr, as cargo
/// and git do.
pub fn reproduce(
    cache: &Cache,
    manifests: &[PathBuf],
    threads: Option<usize>,
    quick: bool,
    fresh: bool,
    force: bool,
    out: &Path,
) -> Res {
    let all = manifests.is_empty();
    let manifests = manifests_or_all(manifests)?;
    let loaded = lb_manifest::load_all(&manifests, Profile::from_quick(quick))?;
    let fresh_cache;
    let cache = if fresh {
        let dir = lb_pipeline::reproduce::fresh_dir(cache);
        eprintln!("--fresh: recomputing everything into {}", dir.display());
        fresh_cache = Cache::new(&dir);
        &fresh_cache
    } else {
        cache
    };
    let o = RunOptions {
        threads,
        force,
        shard: None,
        args: std::env::args().collect(),
        manifests,
    };
    let progress = progress::for_stderr();
    let r = lb_pipeline::reproduce::reproduce(cache, &loaded, &o, out, all, progress.as_ref())?;
    drop(progress);
    if fresh {
        eprintln!(
            "--fresh: `lb diff --against {0}` compares its verdicts with the cache's; `lb cache \
             adopt {0}` takes it in, rewriting only the records whose numbers changed",
            cache.root().display()
        );
    }
    println!(
        "runs: {} computed, {} cached, in {:.1}s",
        r.ran.report.computed,
        r.ran.report.reused,
        r.ran.wall.as_secs_f64()
    );
    let imprecise: usize = r.written.iter().map(|w| w.imprecise.len()).sum();
    let missing: usize = r.written.iter().map(|w| w.missing).sum();
    println!(
        "wrote {} ({} experiments, {} figures); {}{} not computed",
        out.display(),
        loaded.len(),
        r.written.iter().map(|w| w.figures.len()).sum::<usize>(),
        if r.targets > 0 {
            format!(
                "{imprecise} point(s) above their precision target (in the {} \
                 experiment(s) that set one), ",
                r.targets
            )
        } else {
            String::new()
        },
        missing
    );
    for p in &r.removed {
        println!(
            "removed {}: no manifest in experiments/ names this experiment any more",
            p.display()
        );
    }
    // What each experiment's records cost (their own single-thread times):
    // what a recompute from an empty cache runs, robustness combinations
    // and calibrations included, each key counted once.
    println!(
        "CPU-seconds of the records a recompute from an empty cache runs (each record's own \
         single-thread time; a point two experiments plan counted once, where it first appears):"
    );
    println!(
        "  {:<40} {:>16} {:>16} {:>14} {:>10}",
        "experiment", "own points", "robustness", "calibrations", "all"
    );
    let cell = |c: lb_pipeline::compute::Spent| {
        if c.records == 0 {
            "–".to_string()
        } else {
            format!("{:.1} ({})", c.seconds, c.records)
        }
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut total = lb_pipeline::compute::ExperimentCost::default();
    for e in &loaded {
        let c = lb_pipeline::compute::experiment_cost(cache, e, &mut seen);
        total.own += c.own;
        total.robustness += c.robustness;
        total.calibrations += c.calibrations;
        println!(
            "  {:<40} {:>16} {:>16} {:>14} {:>10.1}",
            e.plan.name,
            cell(c.own),
            cell(c.robustness),
            cell(c.calibrations),
            c.total().seconds
        );
    }
    println!(
        "  {:<40} {:>16} {:>16} {:>14} {:>10.1}",
        "all",
        cell(total.own),
        cell(total.robustness),
        cell(total.calibrations),
        total.total().seconds
    );
    for c in r.audited.claims.iter().flatten() {
        println!("  {:<12} {} / {}", c.verdict.word(), c.experiment, c.id);
    }
    for m in r.audited.maps.iter().flatten() {
        for c in &m.claims {
            println!(
                "  robustness {} / {} / {}: {}",
                m.experiment, m.name, c.id, c.decision.summary
            );
        }
    }
    // Verdicts are findings here; `lb audit` is the gate that fails on a
    // required claim that is not confirmed.
    for (c, why) in r.audited.required_not_confirmed() {
        eprintln!(
            "warning: required claim {}: {} / {} ({why}; lb audit will fail)",
            c.verdict.word(),
            c.experiment,
            c.id
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `lb export [MANIFEST…] --out FILE`.
pub fn export(cache: &Cache, manifests: &[PathBuf], out: &Path) -> Res {
    existing(cache)?;
    let manifests = manifests_or_all(manifests)?;
    let x = lb_pipeline::export::export(cache, &manifests, out)?;
    // What it produced, on stdout (its progress and notes go to stderr).
    println!(
        "wrote {}: {} rows ({} points) from {}{}",
        out.display(),
        x.rows,
        x.points,
        cache.root().display(),
        if x.damaged > 0 {
            format!(
                "; {} damaged record(s) left out (lb cache check)",
                x.damaged
            )
        } else {
            String::new()
        }
    );
    Ok(ExitCode::SUCCESS)
}
