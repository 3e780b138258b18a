//! `reproduce`: run the experiments (cache hits are free), then write each
//! one's tables, figures and sections of the report and the audit, and
//! reassemble the pages with the other experiments' sections as they are.

use crate::Error;
use crate::audit::{Audited, audit_with, page_names};
use crate::compute::{Ran, RunOptions, plans, run};
use lb_analysis::figure::FigureSpec;
use lb_analysis::{PointResult, collect};
use lb_manifest::Experiment;
use lb_report::{Experiment as Page, Written, assemble, write_experiment};
use lb_store::cache::Cache;
use lb_store::run::Progress;
use std::path::{Path, PathBuf};

/// What `reproduce` did.
pub struct Reproduced {
    /// The runs of the missing work.
    pub ran: Ran,
    /// Each experiment's outputs, in order.
    pub written: Vec<Written>,
    /// The audit of every claim.
    pub audited: Audited,
    /// How many experiments set a precision target.
    pub targets: usize,
    /// Report folders of experiments no manifest names any more, removed
    /// (a reproduce of every manifest only).
    pub removed: Vec<PathBuf>,
    /// The packs this run rewrote, each with how many new records it took.
    pub repacked: Vec<(PathBuf, usize)>,
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

/// Prepares [`fresh_dir`] for `--fresh`: it takes the cache's coverage
/// records, which no reproduce recomputes (`lb coverage --certificate …
/// --again` does), so that the coverage section it draws is the cache's.
/// Returns how many it took.
pub fn seed_fresh(cache: &Cache, fresh: &Cache) -> std::io::Result<usize> {
    let (from, to) = (cache.root().join("coverage"), fresh.root().join("coverage"));
    if !from.is_dir() {
        return Ok(0);
    }
    crate::archive::copy_tree(&from, &to)?;
    Ok(std::fs::read_dir(&to)?.count())
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
    // One state of the store, read once per file: what this command or
    // another process writes is seen where this command writes, locks or
    // packs (each forgets the snapshot's stamps), so a record found missing
    // is looked at again under its lock.
    let snapshot = cache.snapshot();
    let cache = &snapshot;
    let ran = run(cache, &plans(loaded), o, progress)?;
    // The cache it leaves is packed: what this run and any shard wrote loose
    // is folded into the packs before anything reads it.
    let mut repacked = Vec::new();
    if !lb_store::packing::loose_records(cache).is_empty() {
        progress.log("packing the loose records (lb cache pack)");
        for p in lb_store::packing::pack_all(cache)? {
            if p.rewritten {
                repacked.push((cache.pack_path(&p.bucket), p.packed));
            }
            for (path, why) in &p.left {
                progress.log(&format!("warning: left loose {}: {why}", path.display()));
            }
            if let Some(why) = &p.refused {
                progress.log(&format!(
                    "warning: not packed {}: {why}",
                    cache.pack_path(&p.bucket).display()
                ));
            }
        }
    }
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
        repacked,
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

/// What `lb reproduce` says on standard output: the runs, what it wrote,
/// the cost table (each experiment's records' own CPU time) where something
/// was computed or `cost` asks for it, and each claim's verdict.
pub fn summary(
    cache: &Cache,
    loaded: &[Experiment],
    r: &Reproduced,
    out: &Path,
    cost: bool,
) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    say!(
        text,
        "runs: {} computed, {} cached, in {:.1}s",
        r.ran.report.computed,
        r.ran.report.reused,
        r.ran.wall.as_secs_f64()
    );
    let imprecise: usize = r.written.iter().map(|w| w.imprecise.len()).sum();
    let missing: usize = r.written.iter().map(|w| w.missing).sum();
    say!(
        text,
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
    if !r.repacked.is_empty() {
        say!(text, "{}", repacked_line(cache, &r.repacked));
    }
    for p in &r.removed {
        say!(
            text,
            "removed {}: no manifest in experiments/ names this experiment any more",
            p.display()
        );
    }
    // What each experiment's records cost (their own single-thread times):
    // what a recompute from an empty cache runs, robustness combinations
    // and calibrations included, each key counted once.
    if cost || r.ran.report.computed > 0 {
        cost_table(&mut text, cache, loaded);
    }
    for c in r.audited.claims.iter().flatten() {
        say!(
            text,
            "  {:<12} {} / {}",
            c.verdict.word(),
            c.experiment,
            c.id
        );
    }
    for m in r.audited.maps.iter().flatten() {
        for c in &m.claims {
            say!(
                text,
                "  robustness {} / {} / {}: {}",
                m.experiment,
                m.name,
                c.id,
                c.decision.summary
            );
        }
    }
    text
}

/// The cost table: per experiment, the CPU-seconds of its own points by
/// what sets their count (the manifest's fixed count, the precision rule,
/// `lb decide` for its claims), its robustness combinations and its
/// calibrations.
fn cost_table(text: &mut String, cache: &Cache, loaded: &[Experiment]) {
    use std::fmt::Write as _;
    say!(
        text,
        "CPU-seconds of the records a recompute from an empty cache runs (each record's own \
         single-thread time; a point two experiments plan counted once, where it first appears), \
         by what asks for them: a count the manifest fixes, the precision rule on the figure's \
         metric, lb decide for the claims, the robustness maps, the message-budget calibrations:"
    );
    let row = |text: &mut String, name: &str, cells: [String; 5], all: f64| {
        say!(
            text,
            "  {:<36} {:>14} {:>14} {:>14} {:>14} {:>12} {:>9.1}",
            name,
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4],
            all
        );
    };
    say!(
        text,
        "  {:<36} {:>14} {:>14} {:>14} {:>14} {:>12} {:>9}",
        "experiment",
        "fixed count",
        "precision",
        "lb decide",
        "robustness",
        "calibrations",
        "all"
    );
    let cell = |c: crate::compute::Spent| {
        if c.records == 0 {
            "–".to_string()
        } else {
            format!("{:.1} ({})", c.seconds, c.records)
        }
    };
    let cells = |c: &crate::compute::ExperimentCost| {
        [
            cell(c.fixed),
            cell(c.precision),
            cell(c.decide),
            cell(c.robustness),
            cell(c.calibrations),
        ]
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut total = crate::compute::ExperimentCost::default();
    for e in loaded {
        let c = crate::compute::experiment_cost(cache, e, &mut seen);
        total += c;
        row(text, &e.plan.name, cells(&c), c.total().seconds);
    }
    row(text, "all", cells(&total), total.total().seconds);
}

/// What a run changed in the cache's packs, and how to leave a committed
/// cache as it was.
fn repacked_line(cache: &Cache, repacked: &[(PathBuf, usize)]) -> String {
    let records: usize = repacked.iter().map(|(_, n)| n).sum();
    let mut shown: Vec<String> = repacked
        .iter()
        .take(4)
        .map(|(p, _)| p.display().to_string())
        .collect();
    if repacked.len() > 4 {
        shown.push(format!("and {} more", repacked.len() - 4));
    }
    format!(
        "packed {records} new record(s) into {} pack(s) of {} ({}): a pack holds the records \
         of the keys that share its prefix, so new records rewrite packs that other \
         experiments' records are in too (theirs are kept bit for bit). {}",
        repacked.len(),
        cache.root().display(),
        shown.join(", "),
        crate::store_text::restore_hint(cache)
    )
}
