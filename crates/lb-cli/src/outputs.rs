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

pub(crate) type Res = Result<ExitCode, Box<dyn std::error::Error>>;

/// Output formats of `lb table` and `lb audit`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Md,
    Json,
}

/// `lb table MANIFEST --format csv|md|json`.
pub(crate) fn table(
    cache: &Cache,
    manifest: &Path,
    format: Format,
    profile: Profile,
    long: bool,
) -> Res {
    existing(cache)?;
    let e = lb_manifest::load(manifest, profile)?;
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
pub(crate) fn columns() -> Res {
    println!("{}", lb_analysis::table::COLUMNS);
    Ok(ExitCode::SUCCESS)
}

/// `lb audit [MANIFEST…] [--format md|json|csv] [--out DIR]`: prints the
/// verdicts; with `--out`, writes the experiments' parts of DIR/audit.md and
/// reassembles it (the other experiments' sections are kept as they are).
pub(crate) fn audit(
    cache: &Cache,
    manifests: &[PathBuf],
    format: Format,
    profile: Profile,
    out: Option<&Path>,
) -> Res {
    existing(cache)?;
    let all = manifests.is_empty();
    let loaded = lb_manifest::load_all(&manifests_or_all(manifests)?, profile)?;
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
        let quick = if profile == Profile::Quick {
            " --quick"
        } else {
            ""
        };
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
pub(crate) fn mutants(
    cache: &Cache,
    manifests: &[PathBuf],
    format: Format,
    profile: Profile,
) -> Res {
    existing(cache)?;
    let loaded = lb_manifest::load_all(&manifests_or_all(manifests)?, profile)?;
    let all = lb_pipeline::audit::mutants(cache, &loaded);
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&all)?),
        Format::Csv => print!("{}", lb_audit::mutants::csv(&all)?),
        Format::Md => print!("{}", lb_audit::mutants::markdown(&all)),
    }
    let (verdict, failed) = lb_audit::mutants::verdict(&all);
    eprint!("{verdict}");
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `lb reproduce [MANIFEST…] [--fresh] [--quick]`. What it produces (the
/// runs, the directory written, the cost table, the verdicts) goes to
/// stdout; progress, the notes of --fresh and warnings to stderr, as cargo
/// and git do.
pub(crate) fn reproduce(
    cache: &Cache,
    manifests: &[PathBuf],
    (threads, profile, fresh, force, cost): (Option<usize>, Profile, bool, bool, bool),
    out: &Path,
) -> Res {
    let all = manifests.is_empty();
    let manifests = manifests_or_all(manifests)?;
    let loaded = lb_manifest::load_all(&manifests, profile)?;
    let fresh_cache;
    let cache = if fresh {
        let dir = lb_pipeline::reproduce::fresh_dir(cache);
        eprintln!("--fresh: recomputing everything into {}", dir.display());
        fresh_cache = Cache::new(&dir);
        let n = lb_pipeline::reproduce::seed_fresh(cache, &fresh_cache)?;
        if n > 0 {
            eprintln!(
                "--fresh: took the cache's {n} coverage record(s), which reproduce does not \
                 recompute (`just certify --again` does)"
            );
        }
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
    print!(
        "{}",
        lb_pipeline::reproduce::summary(cache, &loaded, &r, out, cost)
    );
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
pub(crate) fn export(cache: &Cache, manifests: &[PathBuf], out: &Path) -> Res {
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
