//! `lb table`, `lb reproduce` and `lb audit`: what lb-analysis makes of the
//! cache (issues 4 and 5).

use crate::progress;
use lb_analysis::audit::{ClaimResult, ExperimentClaims, Verdict, audit_experiment};
use lb_analysis::figure::FigureSpec;
use lb_analysis::metric::Metric;
use lb_analysis::report::{
    Experiment, assemble, claims_json, experiments_in, write_experiment, write_if_changed,
};
use lb_analysis::robustness::{MapResult, audit_maps};
use lb_analysis::table::{
    COLUMNS, csv, json, markdown, point_summaries, replications_frame, summary_frame,
};
use lb_analysis::{PointResult, collect};
use lb_runner::cache::Cache;
use lb_runner::expand::Plan;
use lb_runner::manifest::Loaded;
use lb_runner::precision::PrecisionRule;
use lb_runner::provenance::Context;
use lb_runner::robustness::Variant;
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
    let out: Vec<(Loaded, Plan)> = manifests
        .iter()
        .map(|m| {
            let l = load(m)?;
            let p = expand(&l, profile)?;
            Ok::<_, Box<dyn std::error::Error>>((l, p))
        })
        .collect::<Result<_, _>>()?;
    // An experiment's name names its outputs: two manifests with one name
    // would overwrite each other's.
    for (i, (a, _)) in out.iter().enumerate() {
        if let Some((b, _)) = out[..i]
            .iter()
            .find(|(b, _)| b.experiment().name == a.experiment().name)
        {
            return Err(a
                .error(
                    "experiment.name",
                    format!(
                        "\"{}\" is also the name of {}: experiment names must be unique (they \
                         name the outputs)",
                        a.experiment().name,
                        b.file().display()
                    ),
                )
                .into());
        }
    }
    Ok(out)
}

fn profile(quick: bool) -> Profile {
    if quick { Profile::Quick } else { Profile::Full }
}

/// The combinations of each manifest's robustness maps.
fn variants_of(
    loaded: &[(Loaded, Plan)],
    profile: Profile,
) -> Result<Vec<Vec<Variant>>, Box<dyn std::error::Error>> {
    Ok(loaded
        .iter()
        .map(|(l, _)| lb_runner::robustness::variants(l, profile))
        .collect::<Result<_, _>>()?)
}

/// Each manifest's robustness maps, audited on the records in `cache`.
fn maps_of(
    cache: &Cache,
    loaded: &[(Loaded, Plan)],
    variants: &[Vec<Variant>],
) -> Vec<Vec<MapResult>> {
    loaded
        .iter()
        .zip(variants)
        .map(|((l, _), vs)| {
            let rs: Vec<Vec<PointResult>> = vs.iter().map(|v| collect(cache, &v.plan)).collect();
            audit_maps(l, vs, &rs)
        })
        .collect()
}

/// The claims as JSON, each with the robustness maps it is in.
fn claims_with_maps(
    claims: &[Vec<ClaimResult>],
    maps: &[Vec<MapResult>],
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    for (cs, ms) in claims.iter().zip(maps) {
        for c in cs {
            let mut v = serde_json::to_value(c)?;
            let m = lb_analysis::robustness::claim_json(ms, &c.id);
            if let (Some(o), false) = (v.as_object_mut(), m.is_empty()) {
                o.insert("robustness".into(), serde_json::Value::Array(m));
            }
            out.push(v);
        }
    }
    Ok(serde_json::Value::Array(out))
}

/// The claims as CSV with a last column, `robustness`: the summary of each
/// map the claim is in ("map: the claim holds if and only if …").
fn csv_with_maps(
    claims: &[Vec<ClaimResult>],
    maps: &[Vec<MapResult>],
) -> Result<String, Box<dyn std::error::Error>> {
    let flat: Vec<&ClaimResult> = claims.iter().flatten().collect();
    let lines: Vec<String> = claims
        .iter()
        .zip(maps)
        .flat_map(|(cs, ms)| {
            cs.iter()
                .map(|c| lb_analysis::robustness::claim_line(ms, &c.id))
        })
        .collect();
    let text = lb_analysis::audit::csv(&flat)?;
    let records = csv_records(&text);
    if records.len() != flat.len() + 1 {
        return Err("the audit CSV has an unexpected shape".into());
    }
    let quote = |s: &str| {
        if s.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let mut out = String::new();
    for (i, r) in records.iter().enumerate() {
        out.push_str(r);
        out.push(',');
        out.push_str(&if i == 0 {
            "robustness".to_string()
        } else {
            quote(&lines[i - 1])
        });
        out.push('\n');
    }
    Ok(out)
}

/// The records of CSV text, each without its line end (a quoted field may
/// hold line ends).
fn csv_records(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, ch) in text.char_indices() {
        match ch {
            '"' => quoted = !quoted,
            '\n' if !quoted => {
                out.push(text[start..i].trim_end_matches('\r'));
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// `lb table MANIFEST --format csv|md|json`.
pub fn table(cache: &Cache, manifest: &Path, format: Format, quick: bool, long: bool) -> Res {
    crate::commands::existing(cache)?;
    let (l, plan) = loaded(&[manifest.to_path_buf()], profile(quick))?.remove(0);
    let results = collect(cache, &plan);
    let axes: Vec<String> = plan.axes.iter().map(|a| a.to_string()).collect();
    let metrics = Metric::table_metrics_for(l.model(), &axes);
    let frame = replications_frame(&l.experiment().name, &results, &metrics)?;
    let frame = if long {
        frame
    } else {
        let sums = point_summaries(&results, &frame, &metrics)?;
        summary_frame(&results, &sums, &metrics)?
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

fn audit_all(loaded: &[(Loaded, Plan)], results: &[Vec<PointResult>]) -> Vec<Vec<ClaimResult>> {
    loaded
        .iter()
        .zip(results)
        .map(|((l, _), rs)| audit_experiment(&l.experiment().name, l.claims(), rs))
        .collect()
}

fn required_refuted(claims: &[Vec<ClaimResult>]) -> Vec<&ClaimResult> {
    claims
        .iter()
        .flatten()
        .filter(|c| c.required && c.verdict == Verdict::Refuted)
        .collect()
}

/// The experiments whose parts make up the report pages under `out`: every
/// manifest's when all were given (so a removed experiment drops out),
/// else the ones already there plus those just written.
fn page_names(all: bool, loaded: &[(Loaded, Plan)], out: &Path) -> Vec<String> {
    if all {
        let mut v: Vec<String> = loaded
            .iter()
            .map(|(l, _)| l.experiment().name.clone())
            .collect();
        v.sort();
        v
    } else {
        experiments_in(out)
    }
}

/// `lb audit [MANIFEST…] [--format md|json] [--out DIR]`: prints the
/// verdicts; with `--out`, writes the experiments' parts of DIR/audit.md and
/// reassembles it (the other experiments' sections are kept as they are).
pub fn audit(
    cache: &Cache,
    manifests: &[PathBuf],
    format: Format,
    quick: bool,
    out: Option<&Path>,
) -> Res {
    crate::commands::existing(cache)?;
    let all = manifests.is_empty();
    let manifests = manifests_or_all(manifests)?;
    let loaded = loaded(&manifests, profile(quick))?;
    let results: Vec<Vec<PointResult>> = loaded.iter().map(|(_, p)| collect(cache, p)).collect();
    let claims = audit_all(&loaded, &results);
    let maps = maps_of(cache, &loaded, &variants_of(&loaded, profile(quick))?);
    let parts: Vec<(ExperimentClaims, String)> = loaded
        .iter()
        .zip(&claims)
        .zip(&maps)
        .map(|(((l, _), cs), ms)| {
            let e = l.experiment();
            (
                ExperimentClaims::new(&e.name, &e.title, cs),
                lb_analysis::audit::fragment(&e.name, &e.title, cs)
                    + &lb_analysis::robustness::markdown(ms, None),
            )
        })
        .collect();
    match format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&claims_with_maps(&claims, &maps)?)?
        ),
        Format::Csv => print!("{}", csv_with_maps(&claims, &maps)?),
        Format::Md => {
            print!("{}", lb_analysis::audit::terminal(&parts));
            for ms in maps.iter().filter(|ms| !ms.is_empty()) {
                println!(
                    "\n{}",
                    lb_analysis::robustness::markdown(ms, None).trim_end()
                );
            }
        }
    }
    if let Some(out) = out {
        for (c, frag) in &parts {
            let dir = out.join(&c.experiment);
            write_if_changed(&dir.join("audit.md"), frag.as_bytes())?;
            write_if_changed(&dir.join("claims.json"), claims_json(c).as_bytes())?;
        }
        assemble(out, &page_names(all, &loaded, out), false)?;
        eprintln!("wrote {}", out.join("audit.md").display());
    }
    finish(&claims)
}

/// The audit's exit code: non-zero when a required claim is refuted, or
/// lacks any of the points or replications it reads (a gate does not pass on
/// missing data). Every gap is said on stderr, required or not.
fn finish(claims: &[Vec<ClaimResult>]) -> Res {
    let mut fail = false;
    for c in claims.iter().flatten() {
        for m in &c.missing {
            eprintln!(
                "{}: {} / {}: missing data: {m}",
                if c.required { "error" } else { "warning" },
                c.experiment,
                c.id
            );
        }
        fail |= c.required && !c.missing.is_empty();
    }
    for c in required_refuted(claims) {
        eprintln!(
            "error: required claim refuted: {} / {}: {}",
            c.experiment, c.id, c.statement
        );
        fail = true;
    }
    Ok(if fail {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `lb reproduce [MANIFEST…] [--fresh] [--quick]`: run the manifests (cache
/// hits are free), then write their tables and figures and their sections of
/// the report and the audit; the pages are reassembled with the other
/// experiments' sections as they are.
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
    let ctx = Context::capture(pool.current_num_threads(), std::env::args().collect())
        .for_manifests(&manifests);
    let progress = progress::for_stderr();
    let variants = variants_of(&loaded, profile(quick))?;
    // The experiments' plans, then their robustness combinations (those
    // that are not the manifest's own, whose points are the experiment's).
    let plans: Vec<Plan> = loaded
        .iter()
        .map(|(_, p)| p.clone())
        .chain(
            variants
                .iter()
                .flatten()
                .filter(|v| !v.base)
                .map(|v| v.plan.clone()),
        )
        .collect();
    crate::commands::check_budget(cache, &plans, pool.current_num_threads(), force, 1)?;
    let t0 = std::time::Instant::now();
    let report = pool.install(|| run_plans(cache, &plans, &ctx, progress.as_ref()))?;
    drop(progress);
    eprintln!(
        "runs: {} computed, {} cached, in {:.1}s",
        report.computed,
        report.reused,
        t0.elapsed().as_secs_f64()
    );
    let results: Vec<Vec<PointResult>> = loaded.iter().map(|(_, p)| collect(cache, p)).collect();
    let maps = maps_of(cache, &loaded, &variants);
    let figures: Vec<Vec<FigureSpec>> = loaded
        .iter()
        .map(|(l, _)| {
            l.figures()
                .iter()
                .map(|f| FigureSpec::from_toml(l.model(), f))
                .collect()
        })
        .collect();
    let claims = audit_all(&loaded, &results);
    let mut exps = Vec::new();
    for (((((l, _), rs), figs), cs), ms) in loaded
        .iter()
        .zip(&results)
        .zip(&figures)
        .zip(&claims)
        .zip(&maps)
    {
        let e = l.experiment();
        let (replications, precision) = l.manifest.replications();
        exps.push(Experiment {
            name: &e.name,
            title: &e.title,
            source: e.source.as_deref(),
            notes: e.notes.as_deref(),
            manifest: l.file(),
            results: rs,
            figures: figs,
            claims: cs,
            precision: precision.map(PrecisionRule::from_spec),
            replications,
            robustness: ms,
        });
    }
    let mut written = Vec::new();
    for e in &exps {
        written.push(write_experiment(out, e)?);
    }
    assemble(out, &page_names(all, &loaded, out), true)?;
    let imprecise: usize = written.iter().map(|w| w.imprecise.len()).sum();
    let missing: usize = written.iter().map(|w| w.missing).sum();
    // Points above a precision target exist only in experiments that set one.
    let targets = exps.iter().filter(|e| e.precision.is_some()).count();
    eprintln!(
        "wrote {} ({} experiments, {} figures); {}{} not computed",
        out.display(),
        exps.len(),
        written.iter().map(|w| w.figures.len()).sum::<usize>(),
        if targets > 0 {
            format!(
                "{imprecise} point(s) above their precision target (in the {targets} \
                 experiment(s) that set one), "
            )
        } else {
            String::new()
        },
        missing
    );
    for c in claims.iter().flatten() {
        eprintln!("  {:<12} {} / {}", c.verdict.word(), c.experiment, c.id);
    }
    for m in maps.iter().flatten() {
        for c in &m.claims {
            eprintln!(
                "  robustness {} / {} / {}: {}",
                m.experiment, m.name, c.id, c.decision.summary
            );
        }
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

/// `lb export [MANIFEST…] --out FILE`: the whole cache as one tidy Parquet
/// file (lb-analysis's `tidy::cache_frame`), keys mapped to the experiments
/// whose full or quick profiles plan them.
pub fn export(cache: &Cache, manifests: &[PathBuf], out: &Path) -> Res {
    crate::commands::existing(cache)?;
    let manifests = manifests_or_all(manifests)?;
    let mut experiments: std::collections::BTreeMap<lb_runner::Key, Vec<String>> =
        Default::default();
    for p in [Profile::Full, Profile::Quick] {
        for (l, plan) in loaded(&manifests, p)? {
            for st in lb_runner::run::status(cache, &plan) {
                if let Some(k) = st.key {
                    let names = experiments.entry(k).or_default();
                    if !names.contains(&l.experiment().name) {
                        names.push(l.experiment().name.clone());
                    }
                }
            }
        }
    }
    let (frame, damaged) = lb_analysis::tidy::cache_frame(cache, &experiments)?;
    lb_analysis::tidy::write_parquet(&frame, out)?;
    let keys = frame.column("key")?.n_unique()?;
    eprintln!(
        "wrote {}: {} rows ({} points) from {}{}",
        out.display(),
        frame.height(),
        keys,
        cache.root().display(),
        if damaged > 0 {
            format!("; {damaged} damaged record(s) left out (lb cache verify)")
        } else {
            String::new()
        }
    );
    Ok(ExitCode::SUCCESS)
}
