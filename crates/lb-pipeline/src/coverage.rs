//! `lb coverage`: measured coverage of lb's intervals at points whose exact
//! answer is known (issue 22; [`lb_analysis::coverage`]). The experiment's
//! points are run with as many replications as the macro-replications need
//! (the replications beyond the manifest's are lb's usual ones, seeded by
//! their index, so they are cached and reused like any other), then every
//! procedure is applied to every macro-replication and held to the exact
//! value, a named reference of the model at the point.

use crate::Error;
use crate::compute::{RunOptions, run};
use lb_analysis::coverage::{Coverage, Procedure, coverage};
use lb_analysis::{Metric, collect};
use lb_runner::Experiment;
use lb_runner::cache::Cache;
use lb_runner::plan::Target;
use lb_runner::run::Progress;

/// What to certify: the metric, the exact reference it is held to, the
/// procedures, and how many macro-replications each.
pub struct Spec {
    pub metric: String,
    pub reference: String,
    pub procedures: Vec<Procedure>,
    pub macros: usize,
    pub level: f64,
}

/// What `certify` found, and the work it took.
pub struct Certified {
    pub coverages: Vec<Coverage>,
    /// Records computed for it (0 when the cache held them all).
    pub computed: usize,
    /// Wall time of the runs.
    pub wall: std::time::Duration,
}

/// Runs the experiment's points with the replications `spec` needs, then
/// measures each procedure's coverage at each point.
pub fn certify(
    cache: &Cache,
    e: &Experiment,
    spec: &Spec,
    o: &RunOptions,
    progress: &dyn Progress,
) -> Result<Certified, Error> {
    let model = e.loaded.model();
    let metric = Metric::parse(model, &spec.metric).ok_or_else(|| {
        format!(
            "{} has no metric \"{}\" (lb table prints the metrics a model has)",
            model.name(),
            spec.metric
        )
    })?;
    if spec.procedures.contains(&Procedure::BatchMeans)
        && lb_analysis::coverage::trace_metric(model) != Some(spec.metric.as_str())
    {
        return Err(format!(
            "batch means read a run's trace, which in the {} model is the series of {}: \
             not of {}; drop bm from --procedures",
            model.name(),
            lb_analysis::coverage::trace_metric(model).unwrap_or("no per-replication metric"),
            spec.metric
        )
        .into());
    }
    let per = spec
        .procedures
        .iter()
        .map(Procedure::per)
        .max()
        .unwrap_or(1);
    let needed = u32::try_from(spec.macros * per)
        .ok()
        .filter(|n| u64::from(*n) <= lb_model::limits::MAX_REPLICATIONS)
        .ok_or_else(|| {
            format!(
                "{} macro-replications of {per} replications are beyond lb's {} replications a \
                 point",
                spec.macros,
                lb_model::limits::MAX_REPLICATIONS
            )
        })?;
    let mut plan = e.plan.clone();
    for pp in &plan.points {
        let Target::Fixed(point) = &pp.target else {
            return Err(format!(
                "{}: {} is calibrated; coverage needs points whose exact answer is known, \
                 without calibration",
                plan.name, pp.label
            )
            .into());
        };
        // The exact value must exist at every point before anything runs.
        point
            .reference(&spec.reference, &spec.metric, 0)
            .map_err(|why| format!("{}: {}: {why}", plan.name, pp.label))?;
    }
    let keys: Vec<_> = plan.points.iter().map(|pp| pp.point().key()).collect();
    for k in keys {
        plan.extended.insert(k, needed);
    }
    let ran = run(cache, std::slice::from_ref(&plan), o, progress)?;
    let results = collect(cache, &plan);
    let mut coverages = Vec::new();
    for r in &results {
        let Some(point) = &r.point else { continue };
        let exact = point.reference(&spec.reference, &spec.metric, 0)?;
        for p in &spec.procedures {
            coverages.push(coverage(p, metric, r, exact, (spec.level, spec.macros)));
        }
    }
    Ok(Certified {
        coverages,
        computed: ran.report.computed as usize,
        wall: ran.wall,
    })
}
