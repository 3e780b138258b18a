//! `lb coverage MANIFEST --metric M --reference R …`: the coverage of lb's
//! intervals, printed (lb-pipeline's `coverage` measures it).

use crate::Command;
use crate::outputs::Format;
use lb_manifest::Profile;
use lb_model::precision::{MetricName, PrecisionRule};
use lb_pipeline::compute::RunOptions;
use lb_pipeline::coverage::{Certificate, Spec, certify, certify_all};
use lb_store::cache::Cache;
use std::process::ExitCode;

type Res = Result<ExitCode, Box<dyn std::error::Error>>;

pub(crate) fn coverage(cache: &Cache, c: &Command) -> Res {
    let Command::Coverage {
        manifest,
        certificate,
        again,
        scratch,
        metric,
        reference,
        macros,
        per,
        procedures,
        rel,
        min,
        step,
        max,
        level,
        threads,
        force,
        format,
    } = c
    else {
        unreachable!("dispatched on Coverage")
    };
    if let Some(path) = certificate {
        let c = Certificate::read(path)?;
        let o = RunOptions {
            threads: *threads,
            force: *force,
            shard: None,
            args: std::env::args().collect(),
            manifests: vec![],
        };
        let progress = crate::progress::for_stderr();
        let recs = certify_all(
            cache,
            &Cache::new(scratch),
            &c,
            &o,
            *again,
            progress.as_ref(),
        )?;
        drop(progress);
        let all: Vec<_> = recs.iter().flat_map(|r| r.coverages.clone()).collect();
        let cpu: f64 = recs.iter().map(|r| r.cpu_seconds).sum();
        eprintln!(
            "{} entries, {} coverages, {:.0} CPU seconds of replications",
            recs.len(),
            all.len(),
            cpu
        );
        match format {
            Format::Json => println!("{}", serde_json::to_string_pretty(&recs)?),
            Format::Csv => print!("{}", lb_coverage::csv(&all)?),
            Format::Md => print!("{}", lb_coverage::markdown(&all)),
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (Some(manifest), Some(metric), Some(reference)) = (manifest, metric, reference) else {
        unreachable!("clap requires them without --certificate")
    };
    if !(*level > 0.0 && *level < 1.0) {
        return Err(format!("--level must be in (0, 1), got {level}").into());
    }
    if *per < 2 || *macros == 0 {
        return Err("--per needs at least 2 replications and --macros at least 1".into());
    }
    // The precision rule of --rel, --min, --step and --max, which both the
    // sequential rule and the two-stage procedure aim at.
    let rule = PrecisionRule {
        metric: MetricName(metric.clone()),
        rel_half_width: *rel,
        level: *level,
        min: *min,
        max: *max,
        step: *step,
        procedure: lb_model::precision::Procedure::Pilot,
        control: None,
        also: Vec::new(),
        settled_first: false,
        control_only: false,
    };
    let procedures = lb_pipeline::coverage::procedures(procedures, *per, &rule)?;
    let e = lb_manifest::load(manifest, Profile::Full)?;
    let spec = Spec {
        metric: metric.clone(),
        reference: reference.clone(),
        procedures,
        macros: *macros,
        level: *level,
        strict: None,
    };
    let o = RunOptions {
        threads: *threads,
        force: *force,
        shard: None,
        args: std::env::args().collect(),
        manifests: vec![manifest.clone()],
    };
    let progress = crate::progress::for_stderr();
    // Its replications go to the scratch cache, not to the results
    // directory (a thousand macro-replications of a point are records no
    // experiment reads).
    let _ = cache;
    let done = certify(&Cache::new(scratch), &e, &spec, &o, progress.as_ref())?;
    drop(progress);
    eprintln!(
        "{} record(s) computed in {:.1}s",
        done.computed,
        done.wall.as_secs_f64()
    );
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&done.coverages)?),
        Format::Csv => print!("{}", lb_coverage::csv(&done.coverages)?),
        Format::Md => print!("{}", lb_coverage::markdown(&done.coverages)),
    }
    Ok(ExitCode::SUCCESS)
}
