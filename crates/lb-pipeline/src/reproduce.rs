//! `reproduce`: run the experiments (cache hits are free), then write each
//! one's tables, figures and sections of the report and the audit, and
//! reassemble the pages with the other experiments' sections as they are.

use crate::Error;
use crate::audit::{Audited, audit_with, page_names};
use crate::compute::{Ran, RunOptions, plans, run};
use lb_analysis::figure::FigureSpec;
use lb_analysis::report::{Experiment as Page, Written, assemble, write_experiment};
use lb_analysis::{PointResult, collect};
use lb_manifest::Experiment;
use lb_store::cache::Cache;
use lb_store::run::Progress;
use std::path::{Path, PathBuf};

/// What `reproduce` did.
pub struct Reproduced {
    pub ran: Ran,
    /// Each experiment's outputs, in order.
    pub written: Vec<Written>,
    pub audited: Audited,
    /// How many experiments set a precision target.
    pub targets: usize,
    /// Report folders of experiments no manifest names any more, removed
    /// (a reproduce of every manifest only).
    pub removed: Vec<PathBuf>,
}

/// A new results directory beside `cache`'s, for `--fresh`: everything is
/// recomputed there and the cache itself is left untouched.
pub fn fresh_dir(cache: &Cache) -> PathBuf {
    cache.root().with_file_name(format!(
        "{}-fresh-{}",
        cache
            .root()
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("results"),
        std::process::id()
    ))
}

/// Runs `loaded` (with its robustness combinations) into `cache`, then
/// writes their outputs under `out`; `all` says whether every manifest was
/// given (the report's pages then list exactly these experiments).
pub fn reproduce(
    cache: &Cache,
    loaded: &[Experiment],
    o: &RunOptions,
    out: &Path,
    all: bool,
    progress: &dyn Progress,
) -> Result<Reproduced, Error> {
    let ran = run(cache, &plans(loaded), o, progress)?;
    let results: Vec<Vec<PointResult>> = loaded.iter().map(|e| collect(cache, &e.plan)).collect();
    let audited = audit_with(cache, loaded, &results);
    let figures: Vec<Vec<FigureSpec>> = loaded
        .iter()
        .map(|e| {
            let l = &e.loaded;
            l.figures()
                .iter()
                .map(|f| FigureSpec::from_toml(l.model(), f))
                .collect()
        })
        .collect();
    let mut pages = Vec::new();
    for ((((x, rs), figs), cs), ms) in loaded
        .iter()
        .zip(&results)
        .zip(&figures)
        .zip(&audited.claims)
        .zip(&audited.maps)
    {
        let l = &x.loaded;
        let e = l.experiment();
        let (replications, precision) = l.manifest.replications();
        let cost = crate::compute::experiment_cost(cache, x, &mut Default::default());
        pages.push(Page {
            name: &e.name,
            title: &e.title,
            source: e.source.as_deref(),
            notes: e.notes.as_deref(),
            manifest: l.file(),
            results: rs,
            figures: figs,
            claims: cs,
            precision: precision.map(|p| p.rule()),
            replications,
            robustness: ms,
            robustness_cost: (cost.robustness.records, cost.robustness.seconds),
            calibration_cost: (cost.calibrations.records, cost.calibrations.seconds),
            prose: lb_manifest::prose::fields(l)
                .into_iter()
                .map(|(f, t)| (f, t.to_string()))
                .collect(),
        });
    }
    let mut written = Vec::new();
    for p in &pages {
        written.push(write_experiment(out, p)?);
    }
    if all {
        crate::coverage::write_section(cache, Path::new(crate::coverage::CERTIFICATE), out)?;
    }
    let removed = if all {
        remove_stale(out, loaded)?
    } else {
        Vec::new()
    };
    assemble(
        out,
        &page_names(all, loaded, out),
        true,
        &crate::audit::inventories(loaded),
    )?;
    // Points above a precision target exist only in experiments that set one.
    let targets = pages.iter().filter(|p| p.precision.is_some()).count();
    drop(pages);
    Ok(Reproduced {
        removed,
        ran,
        written,
        audited,
        targets,
    })
}

/// Removes the report folders (`out/<name>/` holding an experiment's
/// `claims.json`) of experiments no loaded manifest names: a manifest
/// removed from `experiments/` takes its outputs with it. Other folders
/// (the coverage certificate's) are left alone.
fn remove_stale(out: &Path, loaded: &[Experiment]) -> Result<Vec<PathBuf>, Error> {
    let names: std::collections::BTreeSet<&str> = loaded.iter().map(|e| e.name()).collect();
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(out) else {
        return Ok(removed);
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.join("claims.json").is_file() && !names.contains(name.as_str()) {
            std::fs::remove_dir_all(&p).map_err(|err| format!("{}: {err}", p.display()))?;
            removed.push(p);
        }
    }
    removed.sort();
    Ok(removed)
}
