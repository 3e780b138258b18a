//! Computing what plans are missing: a thread pool, the soft limits on
//! estimated cost (refused before anything runs unless forced), and the runs
//! themselves into the cache.

use crate::Error;
use lb_manifest::Experiment;
use lb_manifest::plan::Plan;
use lb_model::Key;
use lb_model::limits::{Cost, soft_limit};
use lb_model::model::Profile;
use lb_store::cache::Cache;
use lb_store::provenance::Context;
use lb_store::run::{CountFrom, Progress, Report, Shard, estimate, run_plans_sharded, status};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A pool of `threads` (default: one per core), at most four per core.
pub fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, Error> {
    let n = threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    if n == 0 {
        return Err("--threads must be at least 1".into());
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let max = (4 * cores).max(8);
    if n > max {
        return Err(format!(
            "--threads {n} is more than lb allows on this machine ({max}: four per core, \
             {cores} core(s)); the runs are CPU-bound, so more threads than cores only add \
             memory and contention"
        )
        .into());
    }
    Ok(rayon::ThreadPoolBuilder::new().num_threads(n).build()?)
}

/// Refuses, before anything runs, work estimated beyond lb's soft limits
/// ([`lb_model::limits`]) unless `force`; with `force`, the limit passed is
/// returned as a warning. A shard (of `shards`) does its share of the work.
pub fn check_budget(
    cache: &Cache,
    plans: &[Plan],
    threads: usize,
    force: bool,
    shards: u32,
) -> Result<Option<String>, Error> {
    let mut total = Cost::default();
    for p in plans {
        total = total.and(estimate(cache, p, &status(cache, p)).cost);
    }
    // The pairs are spread evenly by key across shards.
    total.seconds /= shards.max(1) as f64;
    match soft_limit(total, threads) {
        Some(why) if !force => Err(why.into()),
        Some(why) => Ok(Some(why)),
        None => Ok(None),
    }
}

/// Every plan the experiments run, experiment by experiment: its own, then
/// the combinations of its robustness maps other than its own.
pub fn plans(experiments: &[Experiment]) -> Vec<Plan> {
    experiments
        .iter()
        .flat_map(|e| e.all_plans().cloned())
        .collect()
}

/// How `run` computes.
pub struct RunOptions {
    /// Worker threads (default: every core).
    pub threads: Option<usize>,
    /// Work beyond the soft limits is a warning, not an error.
    pub force: bool,
    /// Only this shard of the work.
    pub shard: Option<Shard>,
    /// The command line, for provenance.
    pub args: Vec<String>,
    /// The manifests, for provenance (whether they are modified in git).
    pub manifests: Vec<PathBuf>,
}

/// What `run` did.
pub struct Ran {
    /// What the runs computed, reused and found.
    pub report: Report,
    /// Wall time of the runs.
    pub wall: Duration,
    /// Worker threads used.
    pub threads: usize,
    /// The soft limit passed with `force`, if any (also logged to the
    /// progress before the runs).
    pub forced: Option<String>,
}

/// Runs `plans` into `cache`: the budget check, then every missing (point,
/// replication) pair (of this shard's share) on a pool.
pub fn run(
    cache: &Cache,
    plans: &[Plan],
    o: &RunOptions,
    progress: &dyn Progress,
) -> Result<Ran, Error> {
    let pool = pool(o.threads)?;
    let threads = pool.current_num_threads();
    let forced = check_budget(
        cache,
        plans,
        threads,
        o.force,
        o.shard.map_or(1, |s| s.count),
    )?;
    if let Some(why) = &forced {
        progress.log(&format!("warning (--force): {why}"));
    }
    let ctx = Context::capture(threads, o.args.clone()).for_manifests(&o.manifests);
    let t0 = Instant::now();
    let report = pool.install(|| run_plans_sharded(cache, plans, &ctx, progress, o.shard))?;
    Ok(Ran {
        report,
        wall: t0.elapsed(),
        threads,
        forced,
    })
}

/// Every key the manifests refer to, in both profiles (robustness
/// combinations included), with the points' calibrations resolved from the
/// cache: what `lb cache gc --unreferenced` keeps.
pub(crate) fn referenced(cache: &Cache, manifests: &[PathBuf]) -> Result<BTreeSet<Key>, Error> {
    let mut keep = BTreeSet::new();
    for p in [Profile::Full, Profile::Quick] {
        for plan in plans(&lb_manifest::load_all(manifests, p)?) {
            keep.extend(plan.calibrations_keyed().map(|(_, k)| k));
            keep.extend(status(cache, &plan).iter().filter_map(|s| s.key));
        }
    }
    Ok(keep)
}

/// Records and the CPU seconds they took: each record's own single-thread
/// wall time, from its provenance.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    /// Records.
    pub records: u64,
    /// Their CPU seconds, by their provenance.
    pub seconds: f64,
}

impl Spent {
    fn add(&mut self, seconds: f64) {
        self.records += 1;
        self.seconds += seconds;
    }
}

impl std::ops::AddAssign for Spent {
    fn add_assign(&mut self, o: Spent) {
        self.records += o.records;
        self.seconds += o.seconds;
    }
}

/// What a recompute of one experiment from an empty cache runs, read from
/// the cache whatever this run computed, by what asks for it (the reason
/// [`lb_store::run::CountFrom`] gives each point's count): its own
/// points' replications up to the count its manifest fixes (`fixed`) or
/// its precision rule chooses (`precision`, the pilots included, though no
/// interval reads them), the replications beyond that which `lb decide`
/// ran for its claims (`decide`), its robustness combinations' points that
/// are not its own, and the message-budget calibrations of both.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ExperimentCost {
    /// Replications a fixed count asks for.
    pub fixed: Spent,
    /// Replications a precision rule chose, its pilots included.
    pub precision: Spent,
    /// Replications `lb decide` added for claims.
    pub decide: Spent,
    /// Robustness combinations' points that are not its own.
    pub robustness: Spent,
    /// Message-budget calibrations.
    pub calibrations: Spent,
}

impl ExperimentCost {
    /// Its own points: fixed, precision and decide.
    pub fn own(&self) -> Spent {
        let mut t = self.fixed;
        t += self.precision;
        t += self.decide;
        t
    }

    /// Everything a recompute runs for it.
    pub fn total(&self) -> Spent {
        let mut t = self.own();
        t += self.robustness;
        t += self.calibrations;
        t
    }
}

impl std::ops::AddAssign for ExperimentCost {
    fn add_assign(&mut self, o: ExperimentCost) {
        self.fixed += o.fixed;
        self.precision += o.precision;
        self.decide += o.decide;
        self.robustness += o.robustness;
        self.calibrations += o.calibrations;
    }
}

/// [`ExperimentCost`] of `e`, counting only the keys not yet in `seen` (and
/// adding them to it): with one `seen` over several experiments, a point
/// or calibration two of them plan is counted once, where it first
/// appears, so the costs add up to what a recompute of them all runs.
pub fn experiment_cost(cache: &Cache, e: &Experiment, seen: &mut BTreeSet<Key>) -> ExperimentCost {
    let mut c = ExperimentCost::default();
    for (i, plan) in e.all_plans().enumerate() {
        replications_cost(cache, plan, seen, |from, seconds| {
            let spent = match (i, from) {
                (0, CountFrom::Fixed) => &mut c.fixed,
                (0, CountFrom::Precision) => &mut c.precision,
                (0, CountFrom::Decide) => &mut c.decide,
                // A control variate's replications pay for the precision of
                // the points it controls.
                (0, CountFrom::Control) => &mut c.precision,
                _ => &mut c.robustness,
            };
            spent.add(seconds);
        });
        for (_, k) in plan.calibrations_keyed() {
            if seen.insert(k)
                && let Some(rec) = cache.read_calibration(&k).valid()
            {
                c.calibrations.add(rec.provenance.seconds());
            }
        }
    }
    c
}

/// The replication records behind `plan`'s points whose keys are not in
/// `seen`, each given to `add` with its own time and what asks for it:
/// replications 0..n its replication rule asks for, and the pilot's, its
/// rule ([`CountFrom::of_rule`]); those beyond, up to what its decide
/// ledger asks for, `lb decide`.
fn replications_cost(
    cache: &Cache,
    plan: &Plan,
    seen: &mut BTreeSet<Key>,
    mut add: impl FnMut(CountFrom, f64),
) {
    for (pp, ps) in plan.points.iter().zip(status(cache, plan)) {
        let Some(k) = ps.key else { continue };
        if !seen.insert(k) {
            continue;
        }
        let rule = CountFrom::of_rule(&pp.replications);
        // The pilot's replications too: no interval reads them, but a
        // recompute runs them.
        let main = 0..u64::from(ps.needed);
        for r in main.chain(pp.replications.pilot()) {
            if let Some(seconds) = cache
                .read_replication_part(&k, r, |rec| rec.provenance.seconds())
                .valid()
            {
                let from = if lb_model::precision::is_pilot(r) {
                    rule
                } else {
                    ps.count_from_at(&pp.replications, r as u32 + 1)
                };
                add(from, seconds);
            }
        }
    }
}
