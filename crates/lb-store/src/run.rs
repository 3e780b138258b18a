//! Running plans (docs/MODEL.md §4): the missing (point, replication) pairs, in
//! parallel on a rayon pool, resumable, safe against concurrent runs.
//!
//! Every record is a pure function of its point and replication, so the
//! records — apart from their provenance — are the same bits whatever the
//! thread count or the order of execution.

use crate::cache::{
    Cache, CacheError, CalibrationRecord, DrawnRecord, FORMAT, PrecisionRecord, Read,
    ReplicationRecord,
};
use crate::provenance::Context;
use lb_manifest::plan::{Plan, PlannedPoint, Replications, Target, control_key};
use lb_model::config::Summary;
use lb_model::key::Key;
use lb_model::limits::Cost;
use lb_model::point::Point;
use lb_model::precision::{
    Decision, Outcome, PILOT_BASE, Paired, PrecisionRule, controlled_pilot, decide_paired,
    stein_controlled,
};
use lb_model::slotted::calibrate::{Calibration, CalibrationResult};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Instant, SystemTime};

/// Where progress goes: a bar on a terminal, log lines otherwise (lb-cli).
pub trait Progress: Sync {
    /// A phase begins with `total` units of work.
    fn start(&self, phase: &str, total: u64);
    /// More work was found in the current phase.
    fn grow(&self, more: u64);
    /// `n` units done.
    fn inc(&self, n: u64);
    /// A message that must not be lost (warnings, decisions).
    fn log(&self, line: &str);
    /// The phase is over.
    fn finish(&self);
}

/// A [`Progress`] that shows nothing.
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _: &str, _: u64) {}
    fn grow(&self, _: u64) {}
    fn inc(&self, _: u64) {}
    fn log(&self, _: &str) {}
    fn finish(&self) {}
}

/// What a run did.
#[derive(Debug, Default, Clone)]
pub struct Report {
    /// Records computed by this process.
    pub computed: u64,
    /// Records found valid in the cache.
    pub reused: u64,
    /// Records another process computed while this one waited.
    pub by_others: u64,
    /// Damaged records found, moved aside and recomputed: (path, reason).
    pub damaged: Vec<(PathBuf, String)>,
    /// Calibrations: (description, key, result).
    pub calibrations: Vec<(String, Key, CalibrationResult)>,
    /// Precision outcomes: (key, outcome).
    pub precision: Vec<(Key, Outcome)>,
    /// Points a shard left because their p̂ calibration is not in the cache
    /// yet (another shard's, of this stage): (experiment, policy label,
    /// calibration key). A later stage, or the final `lb reproduce`,
    /// computes them; the run says so rather than skip them silently.
    pub waiting: Vec<(String, String, Key)>,
}

/// An error of a run.
#[derive(Debug)]
pub enum RunError {
    /// The cache could not be read or written.
    Cache(CacheError),
    /// A plan that cannot run as it stands (a bug of the plan's builder,
    /// not of the manifest, which validation has passed).
    Plan(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Cache(e) => e.fmt(f),
            RunError::Plan(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for RunError {}

impl From<CacheError> for RunError {
    fn from(e: CacheError) -> Self {
        RunError::Cache(e)
    }
}

/// The state of a planned point in the cache (for `lb plan`).
#[derive(Debug, Clone)]
pub struct PointStatus {
    /// None while the point waits for a calibration that is not cached.
    pub key: Option<Key>,
    /// Its p̂ calibration's key and result, where it has one (None while not cached).
    pub calibration: Option<(Key, Option<CalibrationResult>)>,
    /// Valid records among replications 0..needed.
    pub present: u32,
    /// Replications known to be needed now.
    pub needed: u32,
    /// Those of them its replication rule asks for (the manifest's fixed
    /// count, or its precision rule's so far); `needed` is larger where the
    /// decide ledger extended the point, or where it is a control variate
    /// whose controlled points pair with more.
    pub by_rule: u32,
    /// Those the rule or the decide ledger asks for; `needed` beyond it, a
    /// control variate's points' pairs ask for.
    pub by_ledger: u32,
    /// Damaged records among the needed ones.
    pub damaged: u32,
    /// For a precision rule: its outcome, if decided.
    pub outcome: Option<Outcome>,
    /// Pilot replications still missing (a precision rule with a pilot
    /// that has not decided): until they exist, replications 0..needed
    /// are not the point's final sample, whatever is present.
    pub pilot_missing: u32,
}

/// What sets a point's replication count: `lb plan`'s reason for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountFrom {
    /// The manifest's `run.replications`.
    Fixed,
    /// The precision rule of `run.precision`, on the figure's metric.
    Precision,
    /// `lb decide`, for the claims it left inconclusive (the experiment's
    /// ledger): more than the rule asks for.
    Decide,
    /// A control variate's point: the replications the points it controls
    /// pair with, beyond its own rule's.
    Control,
}

impl CountFrom {
    /// What a replication rule sets counts by: the manifest's count or its
    /// precision rule.
    pub fn of_rule(rule: &Replications) -> CountFrom {
        match rule {
            Replications::Fixed(_) => CountFrom::Fixed,
            Replications::Precision(_) => CountFrom::Precision,
        }
    }
}

/// Where a planned point stands in the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Every replication its rule needs, none damaged.
    Cached,
    /// Some replications, not all.
    Partial,
    /// None, and some damaged.
    Damaged,
    /// None.
    Missing,
    /// Its configuration waits for a calibration.
    NeedsCalibration,
}

impl State {
    /// In words, as `lb plan` prints it.
    pub fn word(self) -> &'static str {
        match self {
            State::Cached => "cached",
            State::Partial => "partial",
            State::Damaged => "damaged",
            State::Missing => "missing",
            State::NeedsCalibration => "needs-calibration",
        }
    }
}

impl PointStatus {
    /// What sets its count ([`CountFrom`]): `lb decide` where its ledger
    /// asks for more than the rule.
    pub fn count_from(&self, rule: &Replications) -> CountFrom {
        self.count_from_at(rule, self.needed)
    }

    /// What asks for replication r (the count `r + 1` needs): its rule, the
    /// decide ledger, or the points it is the control variate of.
    pub fn count_from_at(&self, rule: &Replications, upto: u32) -> CountFrom {
        if upto <= self.by_rule {
            CountFrom::of_rule(rule)
        } else if upto <= self.by_ledger {
            CountFrom::Decide
        } else {
            CountFrom::Control
        }
    }

    /// Replication records still to compute: the point's and its pilot's.
    pub fn missing(&self) -> u32 {
        self.needed.saturating_sub(self.present) + self.pilot_missing
    }

    /// Where the point stands ([`State`]).
    pub fn state(&self) -> State {
        if self.key.is_none() {
            State::NeedsCalibration
        } else if self.present >= self.needed && self.damaged == 0 && self.pilot_missing == 0 {
            State::Cached
        } else if self.present > 0 {
            State::Partial
        } else if self.damaged > 0 {
            State::Damaged
        } else {
            State::Missing
        }
    }

    /// Its [`State`] in words: `cached`, `partial`, `damaged`, `missing`, or
    /// `needs-calibration`.
    pub fn word(&self) -> &'static str {
        self.state().word()
    }
}

/// A calibrated point's calibration: its key, and its result once computed.
type Resolution = Option<(Key, Option<CalibrationResult>)>;

/// The resolved point of a planned point with its key, if its calibration
/// (if any) is known.
fn resolved(cache: &Cache, plan: &Plan, pp: &PlannedPoint) -> (Option<(Point, Key)>, Resolution) {
    match &pp.target {
        Target::Fixed(p) => (Some((p.clone(), pp.keys.point(None, p))), None),
        Target::Calibrated {
            calibration,
            template,
        } => {
            let ck = plan.calibration_key(*calibration);
            match cache.read_calibration(&ck) {
                Read::Valid(rec) => {
                    let p = template.clone().with_p_hat(rec.result.p_hat);
                    let key = pp.keys.point(Some(rec.result.p_hat), &p);
                    (Some((p, key)), Some((ck, Some(rec.result))))
                }
                _ => (None, Some((ck, None))),
            }
        }
    }
}

/// The summaries of valid replications start, start + 1, … up to the first
/// that is not valid, at most `limit` of them.
pub(crate) fn contiguous(cache: &Cache, key: &Key, start: u64, limit: u32) -> Vec<Summary> {
    let mut out = Vec::new();
    for r in start..start + limit as u64 {
        match cache.read_replication_part(key, r, |rec| rec.summary.clone()) {
            Read::Valid(summary) => out.push(summary),
            _ => break,
        }
    }
    out
}

/// What `rule` decides at `key` on the records present: replications 0..max
/// and, for the pilot procedure, the pilot's.
///
/// A rule with a control ([`lb_model::precision::RuleControl`]) reads the
/// control point's records with the same indices.
pub(crate) fn decide_cached(cache: &Cache, key: &Key, rule: &PrecisionRule) -> Decision {
    let p = rule.pilot();
    let read = |k: &Key| {
        (
            contiguous(cache, k, 0, rule.max),
            contiguous(cache, k, p.start, (p.end - p.start) as u32),
        )
    };
    let (main, pilot) = read(key);
    let control = control_key(rule).map(|k| read(&k));
    decide_paired(
        rule,
        &main,
        &pilot,
        control
            .as_ref()
            .map(|(summaries, pilot)| Paired { summaries, pilot }),
    )
}

/// The replications a point needs computed: 0..main and the pilot's
/// PILOT_BASE..PILOT_BASE + pilot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Want {
    main: u32,
    pilot: u32,
}

impl Want {
    fn indices(self) -> impl Iterator<Item = u64> {
        (0..self.main as u64).chain(PILOT_BASE..PILOT_BASE + self.pilot as u64)
    }

    fn max(self, o: Want) -> Want {
        Want {
            main: self.main.max(o.main),
            pilot: self.pilot.max(o.pilot),
        }
    }
}

/// (valid, damaged) records among replications 0..n.
fn count(cache: &Cache, key: &Key, n: u32) -> (u32, u32) {
    let (mut valid, mut damaged) = (0, 0);
    // One listing of the key's directory, not one look-up per index: a plan
    // of many replications costs what is on disk.
    for r in cache
        .replication_files(key)
        .into_iter()
        .filter(|r| *r < n as u64)
    {
        match cache.read_replication_part(key, r, |_| ()) {
            Read::Valid(()) => valid += 1,
            Read::Damaged(_) => damaged += 1,
            Read::Missing => {}
        }
    }
    (valid, damaged)
}

/// The cache state of every point of a plan (read-only).
pub fn status(cache: &Cache, plan: &Plan) -> Vec<PointStatus> {
    let mut out: Vec<PointStatus> = plan
        .points
        .iter()
        .map(|pp| {
            let (point, calibration) = resolved(cache, plan, pp);
            let Some((_, key)) = point else {
                return PointStatus {
                    key: None,
                    calibration,
                    present: 0,
                    needed: pp.replications.initial(),
                    by_rule: pp.replications.initial(),
                    by_ledger: pp.replications.initial(),
                    damaged: 0,
                    outcome: None,
                    pilot_missing: match &pp.replications {
                        Replications::Precision(rule) => rule.first_need().1,
                        Replications::Fixed(_) => 0,
                    },
                };
            };
            let (needed, outcome, pilot_missing) = match &pp.replications {
                Replications::Fixed(n) => (*n, None, 0),
                Replications::Precision(rule) => match decide_cached(cache, &key, rule) {
                    Decision::Need { main, pilot } => {
                        let present = rule
                            .pilot()
                            .filter(|&r| {
                                matches!(
                                    cache.read_replication_part(&key, r, |_| ()),
                                    Read::Valid(())
                                )
                            })
                            .count() as u32;
                        (main.max(rule.min), None, pilot - present)
                    }
                    Decision::Done(o) => (o.replications, Some(o), 0),
                },
            };
            let by_rule = needed;
            let needed = plan.needed(&key, needed);
            let (present, damaged) = count(cache, &key, needed);
            PointStatus {
                key: Some(key),
                calibration,
                present,
                needed,
                by_rule,
                by_ledger: needed,
                damaged,
                outcome,
                pilot_missing,
            }
        })
        .collect();
    // A control variate's point runs what the points it controls pair with
    // (as the runner asks for them: `with_controls`).
    // The records behind the pairing are read only where the point asks for
    // more than its control has.
    for (i, pp) in plan.points.iter().enumerate() {
        let (Replications::Precision(rule), Some(k)) = (&pp.replications, out[i].key) else {
            continue;
        };
        let Some(c) = control_key(rule) else { continue };
        let want = out[i].needed;
        let Some(j) = out.iter().position(|s| s.key == Some(c) && s.needed < want) else {
            continue;
        };
        if pairs_with_control(cache, &k, rule) {
            let (present, damaged) = count(cache, &c, want);
            let cs = &mut out[j];
            cs.needed = want;
            cs.present = present;
            cs.damaged = damaged;
        }
    }
    out
}

/// A unit of work: compute one record unless a valid one exists.
trait Job: Sync {
    /// The record's path (its lock is `<path>.lock`).
    fn path(&self, cache: &Cache) -> PathBuf;
    /// Whether a valid record exists; a damaged one is reported and moved aside.
    fn done(&self, stage: &Stage) -> Result<bool, CacheError>;
    fn compute(&self, cache: &Cache, ctx: &Context) -> Result<(), CacheError>;
}

/// Whether a valid record is present; a damaged one is moved aside (and will
/// be recomputed).
fn present<T>(read: Read<T>, stage: &Stage, path: &Path) -> Result<bool, CacheError> {
    match read {
        Read::Valid(_) => Ok(true),
        Read::Missing => Ok(false),
        Read::Damaged(why) => {
            stage.note_damaged(path, &why)?;
            Ok(false)
        }
    }
}

impl Stage<'_> {
    /// Moves the damaged record at `path` aside, and says so.
    fn note_damaged(&self, path: &Path, why: &str) -> Result<(), CacheError> {
        let to = match self.cache.quarantine(path)? {
            Some(to) => format!("moved to {}", to.display()),
            None => "left where it is (moved or replaced by another process, or in a pack \
                     this filesystem cannot edit)"
                .into(),
        };
        self.progress.log(&format!(
            "warning: damaged record {}: {why}; {to}, and recomputing",
            path.display(),
        ));
        self.report
            .lock()
            .unwrap()
            .damaged
            .push((path.to_path_buf(), why.to_string()));
        Ok(())
    }
}

struct PairJob {
    key: Key,
    point: Point,
    r: u64,
}

impl Job for PairJob {
    fn path(&self, cache: &Cache) -> PathBuf {
        cache.replication_path(&self.key, self.r)
    }
    fn done(&self, stage: &Stage) -> Result<bool, CacheError> {
        let read = stage.cache.read_replication(&self.key, self.r);
        present(read, stage, &self.path(stage.cache))
    }
    fn compute(&self, cache: &Cache, ctx: &Context) -> Result<(), CacheError> {
        let start = SystemTime::now();
        let (t0, c0) = (Instant::now(), crate::provenance::thread_cpu());
        let summary = self.point.run(self.r);
        let cpu = crate::provenance::thread_cpu_since(c0);
        let rec = ReplicationRecord {
            format: FORMAT,
            kind: "replication".into(),
            key: self.key.hex(),
            replication: self.r,
            point: self.point.clone(),
            summary,
            provenance: ctx.stamp(start, t0.elapsed(), cpu),
        };
        cache.write_replication(&rec)
    }
}

struct CalibrationJob {
    key: Key,
    calibration: Calibration,
}

impl Job for CalibrationJob {
    fn path(&self, cache: &Cache) -> PathBuf {
        cache.calibration_path(&self.key)
    }
    fn done(&self, stage: &Stage) -> Result<bool, CacheError> {
        let read = stage.cache.read_calibration(&self.key);
        present(read, stage, &self.path(stage.cache))
    }
    fn compute(&self, cache: &Cache, ctx: &Context) -> Result<(), CacheError> {
        let start = SystemTime::now();
        let t0 = Instant::now();
        let result = self.calibration.run();
        let rec = CalibrationRecord {
            format: FORMAT,
            kind: "calibration".into(),
            key: self.key.hex(),
            calibration: self.calibration.clone(),
            result,
            // Its probes' pilots run in parallel: the thread's CPU time is
            // not the calibration's.
            provenance: ctx.stamp(start, t0.elapsed(), None),
        };
        cache.write_calibration(&rec)
    }
}

/// A reference drawn on one replication's random numbers.
struct DrawnJob {
    key: Key,
    point: Point,
    name: String,
    r: u64,
}

impl Job for DrawnJob {
    fn path(&self, cache: &Cache) -> PathBuf {
        cache.drawn_path(&self.key, &self.name, self.r)
    }
    fn done(&self, stage: &Stage) -> Result<bool, CacheError> {
        let read = stage.cache.read_drawn(&self.key, &self.name, self.r);
        present(read, stage, &self.path(stage.cache))
    }
    fn compute(&self, cache: &Cache, ctx: &Context) -> Result<(), CacheError> {
        let start = SystemTime::now();
        let (t0, c0) = (Instant::now(), crate::provenance::thread_cpu());
        let value = self
            .point
            .reference(&self.name, "", self.r)
            .map_err(|e| CacheError {
                path: self.path(cache),
                message: format!("cannot draw the reference: {e}"),
            })?;
        cache.write_drawn(&DrawnRecord {
            format: FORMAT,
            kind: "drawn".into(),
            key: self.key.hex(),
            name: self.name.clone(),
            replication: self.r,
            value,
            provenance: ctx.stamp(start, t0.elapsed(), crate::provenance::thread_cpu_since(c0)),
        })
    }
}

/// Runs jobs in parallel: each under its lock; jobs locked by another process
/// are waited for at the end and computed only if still missing. A shard
/// (`locks` false) takes no lock at all: it owns its jobs, and records
/// appear by atomic rename, so it runs where the filesystem has no file
/// locks (many NFS mounts) or lock files cannot be made.
fn execute<J: Job>(jobs: &[J], stage: &Stage) -> Result<(), CacheError> {
    let (cache, ctx, report, progress) = (stage.cache, stage.ctx, stage.report, stage.progress);
    let locks = stage.shard.is_none();
    let failed = AtomicBool::new(false);
    let first_error: Mutex<Option<CacheError>> = Mutex::new(None);
    let fail = |e: CacheError| {
        failed.store(true, Ordering::SeqCst);
        first_error.lock().unwrap().get_or_insert(e);
    };
    // Returns Some(job index) when another process holds the job's lock.
    let attempt = |i: usize, wait: bool| -> Option<usize> {
        if failed.load(Ordering::SeqCst) {
            return None;
        }
        let j = &jobs[i];
        let path = j.path(cache);
        let guard = if !locks {
            None
        } else if wait {
            match cache.lock(&path) {
                Ok(g) => Some(g),
                Err(e) => {
                    fail(e);
                    return None;
                }
            }
        } else {
            match cache.try_lock(&path) {
                Ok(g) => g,
                Err(e) => {
                    fail(e);
                    return None;
                }
            }
        };
        if locks && guard.is_none() {
            return Some(i);
        }
        let outcome = j.done(stage);
        match outcome {
            // Listed as missing, found valid under the lock: another process
            // computed it meanwhile.
            Ok(true) => report.lock().unwrap().by_others += 1,
            Ok(false) => match j.compute(cache, ctx) {
                Ok(()) => report.lock().unwrap().computed += 1,
                Err(e) => {
                    fail(e);
                    return None;
                }
            },
            Err(e) => {
                fail(e);
                return None;
            }
        }
        if let Some(g) = guard {
            g.remove();
        }
        progress.inc(1);
        None
    };
    let deferred: Vec<usize> = (0..jobs.len())
        .into_par_iter()
        .filter_map(|i| attempt(i, false))
        .collect();
    if !deferred.is_empty() {
        progress.log(&format!(
            "{} record(s) are being computed by another lb process; waiting for them",
            deferred.len()
        ));
        deferred.par_iter().for_each(|&i| {
            attempt(i, true);
        });
    }
    match first_error.into_inner().unwrap() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Runs everything the plans need that the cache lacks, on the current rayon
/// pool (the caller sizes it: `--threads`).
pub fn run_plans(
    cache: &Cache,
    plans: &[Plan],
    ctx: &Context,
    progress: &dyn Progress,
) -> Result<Report, RunError> {
    run_plans_sharded(cache, plans, ctx, progress, None)
}

/// One of `count` disjoint parts of the work (`lb run --shard index/count`).
///
/// A (point, replication) pair, a calibration and a point's own records
/// (point.json, its precision decision) belong to the shard that
/// [`Shard::owns`] their key; so N processes, each with its own index,
/// cover the work exactly once between them, writing into one results
/// directory without locks (records appear by atomic rename). A sharded run
/// does one *stage*: what can be decided from the records present when it
/// starts — calibrations, the replications certainly needed, and one round
/// of each precision rule — and leaves the rest to the next stage
/// ([`stages`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, from 0.
    pub index: u32,
    /// Shards in all.
    pub count: u32,
}

impl Shard {
    /// Parses "I/N" with 0 ≤ I < N.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("--shard takes I/N (e.g. 0/4), got \"{s}\""))?;
        let (index, count): (u32, u32) = (
            i.trim()
                .parse()
                .map_err(|_| format!("--shard {s}: I must be a whole number"))?,
            n.trim()
                .parse()
                .map_err(|_| format!("--shard {s}: N must be a whole number"))?,
        );
        if count == 0 || index >= count {
            return Err(format!("--shard {s}: needs 0 ≤ I < N"));
        }
        Ok(Shard { index, count })
    }

    /// Whether this shard owns the work item (`key`, `r`): a function of the
    /// key's bytes and r only, the same on every machine.
    pub fn owns(&self, key: &Key, r: u64) -> bool {
        let mut w = [0u8; 8];
        w.copy_from_slice(&key.0[..8]);
        let h =
            lb_core::streams::mix64(u64::from_le_bytes(w) ^ r.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        h % self.count as u64 == self.index as u64
    }
}

/// How many sharded stages cover the plans: one for calibrations if any,
/// then one per checkpoint of the longest precision rule (one for fixed
/// replications). A stage's processes depend on the previous stage's.
pub fn stages(plans: &[Plan]) -> usize {
    let calibrations = plans.iter().any(|p| !p.calibrations.is_empty()) as usize;
    let rounds = plans
        .iter()
        .flat_map(|p| &p.points)
        .map(|pp| match &pp.replications {
            Replications::Fixed(_) => 1,
            Replications::Precision(rule) => rule.rounds(),
        })
        .max()
        .unwrap_or(1);
    calibrations + rounds
}

/// [`run_plans`], or one stage of one shard of it (see [`Shard`]): the
/// calibrations, then the points resolved (their p̂ from the calibrations)
/// and written, then the replications in rounds until every precision rule
/// has decided.
pub fn run_plans_sharded(
    cache: &Cache,
    plans: &[Plan],
    ctx: &Context,
    progress: &dyn Progress,
    shard: Option<Shard>,
) -> Result<Report, RunError> {
    // A cache that already holds everything is only read: it may be a
    // read-only mount.
    if !complete(cache, plans) {
        cache.ensure_writable()?;
        // Shards may run on other hosts, whose processes this one cannot
        // see: their temporary files are left to `lb cache gc`.
        for t in cache.stale_temps().into_iter().filter(|_| shard.is_none()) {
            let _ = std::fs::remove_file(&t);
            progress.log(&format!(
                "removed a temporary file left by an interrupted run: {}",
                t.display()
            ));
        }
    }
    let report = Mutex::new(Report::default());
    let stage = Stage {
        cache,
        ctx,
        progress,
        shard,
        report: &report,
    };
    stage.calibrations(plans)?;
    let demands = stage.points(plans)?;
    stage.replications(&demands)?;
    stage.drawn(plans)?;
    progress.finish();
    Ok(report.into_inner().unwrap())
}

/// What every part of a run shares.
struct Stage<'a> {
    cache: &'a Cache,
    ctx: &'a Context,
    progress: &'a dyn Progress,
    shard: Option<Shard>,
    report: &'a Mutex<Report>,
}

/// The points to run, each with the replications it needs: its rule, and
/// the count a decide ledger extends it to (0 if none).
type Demands = BTreeMap<Key, (Point, Replications, u32)>;

impl Stage<'_> {
    /// Whether this process does the work of `key`'s replication `r`
    /// (`u64::MAX`: the point's own records).
    fn mine(&self, key: &Key, r: u64) -> bool {
        self.shard.is_none_or(|s| s.owns(key, r))
    }

    /// 1. Calibrations, each once.
    fn calibrations(&self, plans: &[Plan]) -> Result<(), RunError> {
        let (cache, progress) = (self.cache, self.progress);
        let mut cals: BTreeMap<Key, Calibration> = BTreeMap::new();
        for plan in plans {
            for (c, k) in plan.calibrations_keyed() {
                cals.entry(k).or_insert_with(|| c.clone());
            }
        }
        let cal_jobs: Vec<CalibrationJob> = cals
            .into_iter()
            .filter(|(k, _)| self.mine(k, 0) && cache.read_calibration(k).valid().is_none())
            .map(|(key, calibration)| CalibrationJob { key, calibration })
            .collect();
        if cal_jobs.is_empty() {
            return Ok(());
        }
        progress.start("calibrations", cal_jobs.len() as u64);
        execute(&cal_jobs, self)?;
        progress.finish();
        for j in &cal_jobs {
            if let Read::Valid(rec) = cache.read_calibration(&j.key) {
                progress.log(&calibration_line(&j.calibration, &rec.result));
                self.report.lock().unwrap().calibrations.push((
                    j.calibration.describe(),
                    j.key,
                    rec.result,
                ));
            }
        }
        Ok(())
    }

    /// 2. Resolve points; write point.json where missing or damaged.
    fn points(&self, plans: &[Plan]) -> Result<Demands, RunError> {
        let cache = self.cache;
        let mut demands: Demands = BTreeMap::new();
        for plan in plans {
            for pp in &plan.points {
                let (point, cal) = resolved(cache, plan, pp);
                // A shard leaves points whose calibration another shard has
                // not finished to a later stage, and reports them.
                let Some((point, key)) = point else {
                    if self.shard.is_some() {
                        if let Some((ck, _)) = cal {
                            self.report.lock().unwrap().waiting.push((
                                plan.name.clone(),
                                pp.label.clone(),
                                ck,
                            ));
                        }
                        continue;
                    }
                    unreachable!("calibrations ran");
                };
                let extended = plan.extended.get(&key).copied().unwrap_or(0);
                match demands.get_mut(&key) {
                    None => {
                        demands.insert(key, (point, pp.replications.clone(), extended));
                    }
                    // The same point in two manifests: the larger fixed count
                    // wins; precision rules are kept apart by their own records.
                    Some((_, reps, ext)) => {
                        *ext = (*ext).max(extended);
                        if let (Replications::Fixed(a), Replications::Fixed(b)) =
                            (&*reps, &pp.replications)
                            && b > a
                        {
                            *reps = pp.replications.clone();
                        }
                    }
                }
            }
        }
        // A precision rule's control variate reads another point's
        // replications: that point must be run too.
        for (key, (_, reps, _)) in &demands {
            if let Replications::Precision(rule) = reps
                && let Some(c) = control_key(rule)
                && !demands.contains_key(&c)
            {
                return Err(RunError::Plan(format!(
                    "the precision rule of point {} reads the control point {}, which the plan \
                     does not run",
                    key.short(),
                    c.short()
                )));
            }
        }
        for (key, (point, _, _)) in &demands {
            if !self.mine(key, u64::MAX) {
                continue;
            }
            let stamp = || {
                self.ctx
                    .stamp(SystemTime::now(), std::time::Duration::ZERO, None)
            };
            match cache.read_point(key) {
                Read::Valid(_) => {}
                Read::Missing => cache.write_point(point, stamp())?,
                Read::Damaged(why) => {
                    self.note_damaged(&cache.point_path(key), &why)?;
                    cache.write_point(point, stamp())?;
                }
            }
        }
        Ok(demands)
    }

    /// Then, references drawn per replication that claims and figures read
    /// ([`lb_manifest::Plan::drawn`]): one record per replication present.
    fn drawn(&self, plans: &[Plan]) -> Result<(), RunError> {
        let cache = self.cache;
        let mut jobs: BTreeMap<(Key, String, u64), DrawnJob> = BTreeMap::new();
        for plan in plans {
            for (&i, names) in &plan.drawn {
                let Some((point, key)) = resolved(cache, plan, &plan.points[i]).0 else {
                    continue;
                };
                let replications = cache.replication_files(&key);
                for name in names {
                    if point.config.reference_applies(name, "").is_err() {
                        continue;
                    }
                    for &r in &replications {
                        let missing = cache.read_drawn(&key, name, r).valid().is_none();
                        if missing && self.mine(&key, r) {
                            jobs.entry((key, name.clone(), r))
                                .or_insert_with(|| DrawnJob {
                                    key,
                                    point: point.clone(),
                                    name: name.clone(),
                                    r,
                                });
                        }
                    }
                }
            }
        }
        if jobs.is_empty() {
            return Ok(());
        }
        let jobs: Vec<DrawnJob> = jobs.into_values().collect();
        self.progress.start("drawn references", jobs.len() as u64);
        execute(&jobs, self)?;
        self.progress.finish();
        Ok(())
    }

    /// 3. Replications, in rounds until every precision rule has decided.
    fn replications(&self, demands: &Demands) -> Result<(), RunError> {
        let cache = self.cache;
        let mut need: BTreeMap<Key, Want> = demands
            .iter()
            .map(|(k, (_, reps, extended))| {
                // A shard starts each precision rule where the records present
                // leave it: one round per stage.
                let want = match reps {
                    Replications::Fixed(n) => Want { main: *n, pilot: 0 },
                    Replications::Precision(rule) if self.shard.is_some() => {
                        match decide_cached(cache, k, rule) {
                            Decision::Need { main, pilot } => Want { main, pilot },
                            Decision::Done(o) => Want {
                                main: o.replications,
                                pilot: 0,
                            },
                        }
                    }
                    Replications::Precision(rule) => {
                        let (main, pilot) = rule.first_need();
                        Want { main, pilot }
                    }
                };
                (
                    *k,
                    want.max(Want {
                        main: *extended,
                        pilot: 0,
                    }),
                )
            })
            .collect();
        with_controls(cache, demands, &mut need);
        let mut first = true;
        loop {
            let jobs: Vec<PairJob> = need
                .iter()
                .flat_map(|(k, want)| {
                    let point = &demands[k].0;
                    want.indices()
                        .filter(|r| self.mine(k, *r))
                        .filter(|r| !matches!(cache.read_replication(k, *r), Read::Valid(_)))
                        .map(|r| PairJob {
                            key: *k,
                            point: point.clone(),
                            r,
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
            if first {
                // Reused: this process's share (a shard's own pairs) already
                // in the cache, not the other shards' work.
                let owned: u64 = need
                    .iter()
                    .map(|(k, want)| want.indices().filter(|r| self.mine(k, *r)).count() as u64)
                    .sum();
                let present = owned - jobs.len() as u64;
                self.report.lock().unwrap().reused += present;
                self.progress.start("replications", jobs.len() as u64);
                first = false;
            } else {
                self.progress.grow(jobs.len() as u64);
            }
            execute(&jobs, self)?;
            let more = self.decide_round(demands, &need)?;
            if more.is_empty() {
                return Ok(());
            }
            for (k, w) in more {
                let n = need.entry(k).or_default();
                *n = n.max(w);
            }
            with_controls(cache, demands, &mut need);
        }
    }

    /// After a round: each precision rule decides (its outcome recorded) or
    /// asks for more replications, returned.
    fn decide_round(
        &self,
        demands: &Demands,
        need: &BTreeMap<Key, Want>,
    ) -> Result<BTreeMap<Key, Want>, RunError> {
        let (cache, report) = (self.cache, self.report);
        let mut more = BTreeMap::new();
        for (key, (_, reps, _)) in demands {
            let Replications::Precision(rule) = reps else {
                continue;
            };
            if report
                .lock()
                .unwrap()
                .precision
                .iter()
                .any(|(k, _)| k == key)
            {
                continue;
            }
            let decision = decide_cached(cache, key, rule);
            if self.shard.is_some() {
                // One round per stage; the owner of the point records its
                // decision once every replication it rests on is present.
                if let Decision::Done(outcome) = decision
                    && self.mine(key, u64::MAX)
                {
                    self.record_precision(key, rule, &outcome)?;
                    report.lock().unwrap().precision.push((*key, outcome));
                }
                continue;
            }
            match decision {
                Decision::Need { main, pilot } => {
                    // Either more replications, or records vanished under us
                    // (another process's gc?): retry what was asked.
                    more.insert(*key, Want { main, pilot }.max(need[key]));
                }
                Decision::Done(outcome) => {
                    self.record_precision(key, rule, &outcome)?;
                    report.lock().unwrap().precision.push((*key, outcome));
                }
            }
        }
        Ok(more)
    }
}

/// A point whose precision rule reads a control variate needs the control
/// point's replications with the same indices: its pilot's always (the
/// decision whether to pair reads both pilots), its replications 0..n only
/// once the pilots chose to pair ([`pairs_with_control`]). Those wants are
/// the control's too (the larger of the two). An unpaired point's interval
/// reads none of the control's replications, so it does not raise the
/// control's count: JIQ's 616 replications at an unstable load would
/// otherwise run 608 of the pooled control that nothing reads.
fn with_controls(cache: &Cache, demands: &Demands, need: &mut BTreeMap<Key, Want>) {
    for (k, (_, reps, _)) in demands {
        if let Replications::Precision(rule) = reps
            && let Some(c) = control_key(rule)
        {
            let w = need.get(k).copied().unwrap_or_default();
            let w = if pairs_with_control(cache, k, rule) {
                w
            } else {
                // Undecided or unpaired: what the decision reads, the
                // pilot's or Stein's first stage.
                Want {
                    main: w.main.min(rule.first_stage().unwrap_or(0) as u32),
                    pilot: w.pilot,
                }
            };
            let n = need.entry(c).or_default();
            *n = n.max(w);
        }
    }
}

/// Whether the pilots (Stein's procedure: the first stages) present of the
/// point `key` and of its rule's control choose to pair
/// ([`lb_model::precision::controlled_pilot`],
/// [`lb_model::precision::stein_controlled`]); false while either is
/// incomplete.
fn pairs_with_control(cache: &Cache, key: &Key, rule: &PrecisionRule) -> bool {
    let (Some(c), Some(ck)) = (&rule.control, control_key(rule)) else {
        return false;
    };
    let start = match rule.first_stage() {
        Some(_) => 0,
        None => rule.pilot().start,
    };
    let read = |k: &Key| contiguous(cache, k, start, rule.min);
    let (first, control) = (read(key), read(&ck));
    first.len() >= rule.min as usize
        && control.len() >= rule.min as usize
        && match rule.first_stage() {
            Some(_) => stein_controlled(rule, c.exact, &first, &control).is_some(),
            None => controlled_pilot(rule, c.exact, &first, &control).is_some(),
        }
}

impl Stage<'_> {
    /// Writes the decision of `key`'s precision rule, unless the same one
    /// is there; a different or damaged one is moved aside.
    fn record_precision(
        &self,
        key: &Key,
        rule: &PrecisionRule,
        outcome: &Outcome,
    ) -> Result<(), CacheError> {
        let path = self.cache.precision_path(key, rule);
        match self.cache.read_precision(key, rule) {
            Read::Valid(rec) if rec.outcome == *outcome => return Ok(()),
            Read::Valid(rec) => {
                // Replications are deterministic, so a decision can only
                // differ if its records were recomputed differently: say so,
                // keep the old one aside.
                let why = format!(
                    "its decision ({:?} after {} replications) differs from the one the \
                     replications give now ({:?} after {})",
                    rec.outcome.stop, rec.outcome.replications, outcome.stop, outcome.replications
                );
                self.note_damaged(&path, &why)?;
            }
            Read::Damaged(why) => self.note_damaged(&path, &why)?,
            Read::Missing => {}
        }
        let rec = PrecisionRecord {
            format: FORMAT,
            kind: "precision".into(),
            key: key.hex(),
            rule: rule.clone(),
            outcome: outcome.clone(),
            provenance: self
                .ctx
                .stamp(SystemTime::now(), std::time::Duration::ZERO, None),
        };
        self.cache.write_precision(&rec)
    }
}

/// Whether the cache already holds everything the plans need (every
/// calibration, point record, replication and precision decision), so that
/// running them writes nothing.
fn complete(cache: &Cache, plans: &[Plan]) -> bool {
    plans.iter().all(|plan| {
        // Every calibration a point reads (through the point's memo of its key).
        plan.points
            .iter()
            .filter_map(|pp| match &pp.target {
                Target::Calibrated { calibration, .. } => Some(plan.calibration_key(*calibration)),
                Target::Fixed(_) => None,
            })
            .all(|k| cache.read_calibration(&k).valid().is_some())
            && plan.points.iter().zip(status(cache, plan)).all(|(pp, ps)| {
                let decided = match &pp.replications {
                    Replications::Fixed(_) => true,
                    Replications::Precision(rule) => {
                        ps.outcome.is_some()
                            && ps.key.as_ref().is_some_and(|k| {
                                matches!(cache.read_precision(k, rule), Read::Valid(_))
                            })
                    }
                };
                ps.state() == State::Cached
                    && decided
                    && ps
                        .key
                        .as_ref()
                        .is_some_and(|k| matches!(cache.read_point(k), Read::Valid(_)))
            })
    })
}

/// One line on a calibration's outcome.
pub fn calibration_line(c: &Calibration, r: &CalibrationResult) -> String {
    use lb_model::slotted::calibrate::CalibrationStatus::*;
    let what = match r.status {
        Met => "met".to_string(),
        Closest => "closest probe (tolerance not reached)".to_string(),
        OutOfReach => format!(
            "OUT OF REACH: even p̂ = 1 gives only {:.4} msgs/arrival",
            r.achieved
        ),
        AboveAtZero => format!(
            "BELOW THE FLOOR: even p̂ = 0 gives {:.4} msgs/arrival",
            r.achieved
        ),
    };
    format!(
        "calibrated {}: p̂ = {:.6}, {:.4} msgs/arrival for a target of {:.4} — {what}",
        c.describe(),
        r.p_hat,
        r.achieved,
        r.target
    )
}

/// What a plan's missing work is expected to cost ([`lb_model::limits`]).
#[derive(Debug, Clone, Default)]
pub struct Estimate {
    /// Replications (and calibration pilot runs) still to run.
    pub runs: u64,
    /// Their cost by the model's constants, rescaled by `measured` if known.
    pub cost: Cost,
    /// From cached records of the same plan: (records timed, measured ÷
    /// estimated wall time).
    pub measured: Option<(u32, f64)>,
    /// Precision rules may add replications beyond those counted, up to
    /// their `max`: the cost of that worst case.
    pub worst: Cost,
}

/// Estimates what running `plan` would still cost, from the points' sizes,
/// rescaled by the timings of up to 64 cached records of the plan; `status`
/// is the plan's [`status`] (read once by callers that also show it).
pub fn estimate(cache: &Cache, plan: &Plan, status: &[PointStatus]) -> Estimate {
    let mut e = Estimate::default();
    let mut worst = Cost::default();
    let (mut timed, mut est_wall, mut real_wall) = (0u32, 0.0, 0.0);
    for (c, k) in plan.calibrations_keyed() {
        if cache.read_calibration(&k).valid().is_none() {
            let probes = (c.iterations + 2) as f64 * c.pilot_replications as f64;
            let mut cost = c.point.config.cost().times(probes);
            if let lb_model::slotted::calibrate::CalibrationTarget::SameAs { point } = &c.target {
                cost = cost.and(point.config.cost().times(c.pilot_replications as f64));
            }
            e.runs += probes as u64;
            e.cost = e.cost.and(cost);
        }
    }
    for (pp, ps) in plan.points.iter().zip(status) {
        let point = match &pp.target {
            Target::Fixed(p) => p,
            Target::Calibrated { template, .. } => template,
        };
        let one = point.config.cost();
        let missing = ps.missing() as u64;
        e.runs += missing;
        e.cost = e.cost.and(one.times(missing as f64));
        if let Replications::Precision(rule) = &pp.replications
            && ps.outcome.is_none()
        {
            worst = worst.and(one.times(rule.most().saturating_sub(ps.present) as f64));
        } else {
            worst = worst.and(one.times(missing as f64));
        }
        if timed < 64
            && ps.present > 0
            && let Some(key) = &ps.key
            && let Read::Valid(rec) = cache.read_replication(key, 0)
            && rec.provenance.seconds() > 0.0
        {
            timed += 1;
            est_wall += one.seconds;
            real_wall += rec.provenance.seconds();
        }
    }
    if timed > 0 && est_wall > 0.0 {
        let ratio = real_wall / est_wall;
        e.measured = Some((timed, ratio));
        e.cost.seconds *= ratio;
        worst.seconds *= ratio;
    }
    e.worst = worst;
    e
}
