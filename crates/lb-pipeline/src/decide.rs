//! `lb decide`: run the points of inconclusive claims further, claim
//! by claim, until each is decided or a CPU budget is spent — with a
//! sequential rule whose error stays at the claim's level however often it
//! looks.
//!
//! # The rule: alpha spending
//!
//! A claim of level 1 − α is audited at look j = 1 at 1 − α, and at look
//! j ≥ 2 at 1 − α_j, α_j = α·6/(π² j²)
//! ([`lb_manifest::ledger::spent_level`]), so that Σ_j α_j = α. Each round
//! doubles the replications of the points it extends, and a look advances a
//! point by at most one step of that ladder: the two conditions under which
//! the chance that any look errs stays at α. Why, and why alpha spending
//! rather than a confidence sequence: docs/AUDITING.md, "Alpha spending".
//!
//! # What is extended
//!
//! For an inconclusive claim, its inconclusive checks: each has a measured
//! value, a half-width h and n replications, and a distance d to what it is
//! held to (0 for orderings, bounds and trends, whose measured value is a
//! difference or a margin; the edge of the tolerance around the reference
//! for value and limit claims). A check that leans against the claim
//! (refuting) decides it alone, so the cheapest such check is extended;
//! otherwise every inconclusive check must be confirmed, and all are. A
//! claim is left alone when more replications cannot decide it: a
//! stability claim whose replications disagree, a point that did not
//! settle, a limit whose nearest point lies outside the tolerance while the
//! gap still closes (only points nearer the limit decide it), a value with
//! no tolerance, a measured value on the threshold (d ≈ 0), or one that
//! even lb's limit of replications on a point would not decide. (A
//! precision rule's `max` is not a limit here: it bounds what the rule
//! runs for its precision target; a round is an extension of its own.)
//!
//! # Where the extra replications live
//!
//! In the experiment's ledger, `experiments/decide/<experiment>.json`
//! ([`lb_manifest::ledger`]): per claim its looks, per point key the
//! replications run. The loader reads it, so every plan (`lb run`, `lb
//! reproduce`, `lb audit`, a fresh clone) reads those points with that many
//! replications, and the audit holds each claim at the level of its looks.
//! Replications are deterministic by (key, index): extending is computing
//! replications n..2n.
//!
//! # Budget and determinism
//!
//! The budget counts CPU-seconds of replications, estimated per point from
//! its first records' own timings (their provenance's wall time: one
//! replication runs on one thread), else from the model's cost constants; a
//! round that would pass the budget is not started, nor a claim whose
//! predicted rounds would. Since the estimates come from records that are
//! inputs, the ledger and the verdicts are a function of the manifests, the
//! ledger, the records and the budget — the same on any thread count. What
//! the rounds really took is reported beside the estimate: the process's
//! CPU time when the caller gives a clock ([`Options::cpu_clock`]; lb-cli
//! does), and the wall times their replications' records state (on a
//! machine shared with other work these exceed the CPU time).

use crate::Error;
use crate::compute::{Ran, RunOptions, plans, run};
use lb_analysis::{PointResult, collect};
use lb_audit::{ClaimResult, PointCheck, Verdict, audit_experiment};
use lb_manifest::Experiment;
use lb_manifest::claim::{Check as ClaimCheck, Claim, Direction};
use lb_manifest::ledger::{Ledger, spent_level};
use lb_model::Key;
use lb_model::limits::MAX_REPLICATIONS;
use lb_store::cache::{Cache, Read, atomic_write};
use lb_store::run::Progress;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The budget when none is given, CPU-seconds.
pub const DEFAULT_BUDGET_CPU: f64 = 1800.0;

/// Rounds a prediction looks ahead: beyond 2¹⁰ times the replications a
/// check has, it is not worth predicting.
const MAX_ROUNDS: u32 = 10;

/// How `decide` runs.
pub struct Options {
    /// CPU-seconds the rounds may take (estimated before each round).
    pub budget_cpu: f64,
    /// How the runs compute (threads, force, provenance).
    pub run: RunOptions,
    /// CPU-seconds this process has used so far (lb-cli: `getrusage`):
    /// each round's CPU is measured with it; without it, a round's CPU is
    /// taken as its replications' wall times.
    pub cpu_clock: Option<fn() -> f64>,
}

/// What `decide` did.
pub struct Decided {
    /// The plans' missing work, run first (not counted in the budget).
    pub ran: Ran,
    /// The CPU-second budget the rounds were given.
    pub budget: f64,
    /// CPU-seconds of the rounds as estimated: what the budget counts.
    pub charged: f64,
    /// CPU-seconds the rounds took ([`Options::cpu_clock`]).
    pub cpu: f64,
    /// Seconds the rounds' replications took by their records' wall times.
    pub wall_of_records: f64,
    /// Wall time of the rounds.
    pub wall: Duration,
    /// Every claim inconclusive at the start, and every other claim a
    /// round looked at again, in experiment and manifest order.
    pub claims: Vec<ClaimOutcome>,
    /// The ledgers written.
    pub ledgers: Vec<PathBuf>,
}

/// One claim: where it started, what was run for it, where it is.
#[derive(Debug, Clone)]
pub struct ClaimOutcome {
    /// The claim's experiment.
    pub experiment: String,
    /// The claim's id.
    pub id: String,
    /// Inconclusive at the start (else a round of another claim changed
    /// replications it reads, and it was looked at again).
    pub targeted: bool,
    /// Its verdict at the start.
    pub before: Verdict,
    /// The level it was held at then.
    pub level_before: f64,
    /// Its verdict now.
    pub verdict: Verdict,
    /// The level it is now held at.
    pub level: f64,
    /// Looks taken at it (its alpha is spent over them).
    pub looks: u32,
    /// Its own rounds.
    pub rounds: Vec<RoundDone>,
    /// CPU-seconds of its rounds: estimated, and taken.
    pub charged: f64,
    /// CPU-seconds taken.
    pub cpu: f64,
    /// Why its rounds stopped.
    pub stop: Stop,
}

impl ClaimOutcome {
    /// The points its rounds extended, and the replications they added.
    pub fn added(&self) -> (usize, u64) {
        let keys: BTreeSet<&str> = self
            .rounds
            .iter()
            .flat_map(|r| r.points.iter().map(|p| p.point.as_str()))
            .collect();
        let reps = self
            .rounds
            .iter()
            .flat_map(|r| &r.points)
            .map(|p| (p.to - p.from) as u64)
            .sum();
        (keys.len(), reps)
    }
}

/// A round run for a claim.
#[derive(Debug, Clone)]
pub struct RoundDone {
    /// The look it led to.
    pub look: u32,
    /// The points it extended.
    pub points: Vec<Extension>,
    /// For each check extended: where, and the replications n′ that the
    /// measured effect says would decide it at this look's level (None:
    /// more than the predictions look ahead).
    pub estimates: Vec<(String, Option<u32>)>,
    /// CPU-seconds: estimated, and taken ([`Options::cpu_clock`]).
    pub charged: f64,
    /// CPU-seconds taken.
    pub cpu: f64,
    /// Seconds its replications took by their records' wall times.
    pub wall_of_records: f64,
}

/// A point extended by a round.
#[derive(Debug, Clone)]
pub struct Extension {
    /// The point in words: "L-JSQ-Push at load=0.3".
    pub point: String,
    /// Replications before the round.
    pub from: u32,
    /// Replications after it.
    pub to: u32,
}

/// Why a claim's rounds stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// It is confirmed or refuted.
    Decided,
    /// The next round, or the rounds predicted to decide it, would pass the
    /// budget: (their estimate, what was left), CPU-seconds.
    Budget {
        /// The CPU-seconds the next rounds would take.
        needs: f64,
        /// The CPU-seconds left.
        left: f64,
    },
    /// More replications cannot decide it (why).
    Cannot(String),
    /// A point it reads did not settle, or its replications disagree (why).
    Unsettled(String),
    /// Not targeted, and still decided (looked at again only).
    Untouched,
}

impl Stop {
    /// The reason in words.
    pub fn words(&self) -> String {
        match self {
            Stop::Decided => "decided".into(),
            Stop::Budget { needs, left } => {
                format!("budget: needs ≈ {needs:.0} CPU-s more, {left:.0} left")
            }
            Stop::Cannot(why) => format!("more replications cannot decide it: {why}"),
            Stop::Unsettled(why) => format!("unsettled: {why}"),
            Stop::Untouched => "still decided".into(),
        }
    }
}

/// Runs what the plans lack, then decides every inconclusive claim of
/// `loaded` that more replications can decide, cheapest first, within the
/// budget; writes each experiment's ledger beside its manifest.
pub fn decide(
    cache: &Cache,
    loaded: &[Experiment],
    o: &Options,
    progress: &dyn Progress,
) -> Result<Decided, Error> {
    let ran = run(cache, &plans(loaded), &o.run, progress)?;
    let t0 = Instant::now();
    let mut states: Vec<State> = loaded.iter().map(|e| State::new(cache, e)).collect();
    // Every claim as it stood before any round.
    let initial: Vec<Vec<(Verdict, f64)>> = states
        .iter()
        .map(|s| s.audited.iter().map(|r| (r.verdict, r.level)).collect())
        .collect();
    let mut outcomes: BTreeMap<(usize, usize), ClaimOutcome> = BTreeMap::new();
    for (ei, s) in states.iter().enumerate() {
        for (ci, r) in s.audited.iter().enumerate() {
            if r.verdict == Verdict::Inconclusive {
                outcomes.insert((ei, ci), s.outcome(ci, true, initial[ei][ci]));
            }
        }
    }
    let mut spent = Spent {
        budget: o.budget_cpu,
        charged: 0.0,
        cpu: 0.0,
        wall_of_records: 0.0,
    };
    let mut done: BTreeMap<(usize, usize), Stop> = BTreeMap::new();
    let mut written = BTreeSet::new();
    // Claim by claim, the cheapest (by its predicted rounds) first.
    while let Some((ei, ci)) = cheapest(cache, &mut states, &mut done, &spent) {
        loop {
            let s = &mut states[ei];
            if s.audited[ci].verdict != Verdict::Inconclusive {
                done.insert((ei, ci), Stop::Decided);
                break;
            }
            let plan = match s.next_round(cache, ci) {
                Ok(p) => p,
                Err(stop) => {
                    done.insert((ei, ci), stop);
                    break;
                }
            };
            let left = spent.left();
            if plan.cost > left || plan.predicted > left {
                done.insert(
                    (ei, ci),
                    Stop::Budget {
                        needs: plan.predicted.max(plan.cost),
                        left,
                    },
                );
                break;
            }
            progress.log(&format!(
                "decide: {} / {}: look {}, {} point(s) doubled (≈ {:.0} CPU-s; ≈ {:.0} to decide)",
                s.e.name(),
                s.audited[ci].id,
                s.looks(ci) + 1,
                plan.targets.len(),
                plan.cost,
                plan.predicted
            ));
            let (looked, round) = s.apply(cache, ci, &plan, o, progress)?;
            spent.charged += round.charged;
            spent.cpu += round.cpu;
            spent.wall_of_records += round.wall_of_records;
            let file = lb_manifest::ledger::path(s.e.loaded.file(), s.e.name());
            write_ledger(&file, &s.e.ledger)?;
            written.insert(file);
            let o = outcomes
                .entry((ei, ci))
                .or_insert_with(|| states[ei].outcome(ci, false, initial[ei][ci]));
            o.charged += round.charged;
            o.cpu += round.cpu;
            o.rounds.push(round);
            for i in looked {
                outcomes
                    .entry((ei, i))
                    .or_insert_with(|| states[ei].outcome(i, false, initial[ei][i]));
                // A claim looked at again may no longer be decided.
                if i != ci && done.get(&(ei, i)) == Some(&Stop::Decided) {
                    done.remove(&(ei, i));
                }
            }
        }
    }
    let claims = outcomes
        .into_iter()
        .map(|((ei, ci), mut o)| {
            let s = &states[ei];
            let r = &s.audited[ci];
            o.verdict = r.verdict;
            o.level = r.level;
            o.looks = s.looks(ci);
            // A claim given up on may have been decided after all by a
            // round of another claim on a point it reads.
            o.stop = if r.verdict != Verdict::Inconclusive {
                if o.targeted || !o.rounds.is_empty() {
                    Stop::Decided
                } else {
                    Stop::Untouched
                }
            } else {
                done.get(&(ei, ci)).cloned().unwrap_or(Stop::Budget {
                    needs: f64::NAN,
                    left: spent.left(),
                })
            };
            o
        })
        .collect();
    Ok(Decided {
        ran,
        budget: o.budget_cpu,
        charged: spent.charged,
        cpu: spent.cpu,
        wall_of_records: spent.wall_of_records,
        wall: t0.elapsed(),
        claims,
        ledgers: written.into_iter().collect(),
    })
}

/// The budget and what the rounds took.
struct Spent {
    budget: f64,
    charged: f64,
    cpu: f64,
    wall_of_records: f64,
}

impl Spent {
    fn left(&self) -> f64 {
        (self.budget - self.charged).max(0.0)
    }
}

/// The inconclusive claim, not yet given up on, whose predicted rounds cost
/// least (ties: experiment, then manifest order); claims that cannot be
/// decided are marked done on the way.
fn cheapest(
    cache: &Cache,
    states: &mut [State],
    done: &mut BTreeMap<(usize, usize), Stop>,
    spent: &Spent,
) -> Option<(usize, usize)> {
    let mut best: Option<((usize, usize), f64)> = None;
    for (ei, s) in states.iter_mut().enumerate() {
        for ci in 0..s.audited.len() {
            if s.audited[ci].verdict != Verdict::Inconclusive || done.contains_key(&(ei, ci)) {
                continue;
            }
            match s.next_round(cache, ci) {
                Err(stop) => {
                    done.insert((ei, ci), stop);
                }
                Ok(p) => {
                    if p.cost > spent.left() || p.predicted > spent.left() {
                        done.insert(
                            (ei, ci),
                            Stop::Budget {
                                needs: p.predicted.max(p.cost),
                                left: spent.left(),
                            },
                        );
                    } else if best.is_none_or(|(_, c)| p.predicted < c) {
                        best = Some(((ei, ci), p.predicted));
                    }
                }
            }
        }
    }
    best.map(|(k, _)| k)
}

fn write_ledger(file: &std::path::Path, ledger: &Ledger) -> Result<(), Error> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    atomic_write(file, ledger.to_json().as_bytes())?;
    Ok(())
}

/// An experiment as `decide` works on it: with its ledger so far, its
/// points read and its claims audited at their levels.
struct State {
    e: Experiment,
    results: Vec<PointResult>,
    audited: Vec<ClaimResult>,
    /// CPU-seconds a replication of each point takes (estimated once).
    cost: BTreeMap<Key, f64>,
}

/// What a check reads: where, which policy, its replications, and (for a
/// limit) the replications of each point of its tail.
type ReadCount = (String, String, usize, Vec<u32>);

/// The next round of a claim: each point to extend with its new count.
struct RoundPlan {
    targets: BTreeMap<Key, u32>,
    /// For each check extended: where, and its n′.
    estimates: Vec<(String, Option<u32>)>,
    /// CPU-seconds of this round's missing replications.
    cost: f64,
    /// CPU-seconds of the rounds predicted to decide the claim.
    predicted: f64,
}

/// Which way an inconclusive check leans, by its measured value.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Lean {
    Confirm,
    Refute,
}

/// An inconclusive check that more replications may decide.
struct Open {
    lean: Lean,
    /// Distance from the measured value to what it is held to.
    d: f64,
    /// Its half-width and replications, at level `level`.
    h: f64,
    n: u32,
    level: f64,
    /// The first stage its points' intervals read their variance on, under
    /// Stein's precision rule: the half-width is then t_{first−1}·s₀/√n at
    /// every n.
    first: Option<u32>,
    /// The points to extend.
    keys: Vec<Key>,
    at: String,
}

impl State {
    fn new(cache: &Cache, e: &Experiment) -> State {
        let mut s = State {
            e: e.clone(),
            results: Vec::new(),
            audited: Vec::new(),
            cost: BTreeMap::new(),
        };
        s.read(cache);
        s
    }

    /// Reads the points (with the ledger's counts) and audits the claims.
    fn read(&mut self, cache: &Cache) {
        self.results = collect(cache, &self.e.plan);
        self.audit();
    }

    fn audit(&mut self) {
        self.audited = audit_experiment(self.e.name(), &self.e.claims_as_audited(), &self.results);
    }

    fn claim(&self, ci: usize) -> &Claim {
        &self.e.loaded.claims()[ci]
    }

    fn looks(&self, ci: usize) -> u32 {
        self.e.ledger.looks(&self.claim(ci).id)
    }

    /// The outcome of claim `ci` so far, from its verdict and level before
    /// any round (`before`).
    fn outcome(&self, ci: usize, targeted: bool, before: (Verdict, f64)) -> ClaimOutcome {
        let r = &self.audited[ci];
        ClaimOutcome {
            experiment: self.e.name().to_string(),
            id: r.id.clone(),
            targeted,
            before: before.0,
            level_before: before.1,
            verdict: r.verdict,
            level: r.level,
            looks: self.looks(ci),
            rounds: Vec::new(),
            charged: 0.0,
            cpu: 0.0,
            stop: Stop::Untouched,
        }
    }

    /// The replications each check of each claim reads: a claim has looked
    /// again when these change. A check's own count says it for a point or
    /// a pair (pairs are as many as the shorter point has); a limit check
    /// reads every point of its tail in full, so their counts are added.
    fn read_counts(&self) -> Vec<Vec<ReadCount>> {
        let needed = |key: &str| {
            self.results
                .iter()
                .find(|r| r.key.is_some_and(|k| k.hex() == key))
                .map_or(0, |r| r.needed)
        };
        self.audited
            .iter()
            .zip(self.e.loaded.claims())
            .map(|(c, claim)| {
                c.checks
                    .iter()
                    .map(|k| {
                        let tail = match claim.check {
                            ClaimCheck::Limit(_) => k.keys.iter().map(|s| needed(s)).collect(),
                            _ => Vec::new(),
                        };
                        (k.at.clone(), k.policy.clone(), k.replications, tail)
                    })
                    .collect()
            })
            .collect()
    }

    /// The index of the point `key` among the results (and the plan).
    fn index(&self, key: &Key) -> Option<usize> {
        self.results
            .iter()
            .position(|r| r.key.as_ref() == Some(key))
    }

    /// The most replications a point may have: lb's limit on a point
    /// ([`MAX_REPLICATIONS`], the limit a manifest's own counts are held
    /// to). Not a precision rule's `max`: that bounds what the rule runs to
    /// reach its target precision, while a round is an extension of its
    /// own, recorded in the ledger and paid from the budget (and
    /// `compute::run` still refuses work beyond lb's soft limits).
    fn cap(&self, _i: usize) -> u32 {
        MAX_REPLICATIONS as u32
    }

    /// "L-JSQ-Push at load=0.3".
    fn name(&self, i: usize) -> String {
        let r = &self.results[i];
        let at: Vec<String> = r.axes.iter().map(|(a, v)| format!("{a}={v}")).collect();
        if at.is_empty() {
            r.label.clone()
        } else {
            format!("{} at {}", r.label, at.join(" "))
        }
    }

    /// CPU-seconds of one replication of point `i`: the mean wall time of
    /// its first (at most 8) records, else the model's estimate.
    fn unit_cost(&mut self, cache: &Cache, i: usize) -> f64 {
        let r = &self.results[i];
        let Some(key) = r.key else { return 0.0 };
        if let Some(c) = self.cost.get(&key) {
            return *c;
        }
        let times: Vec<f64> = (0..r.needed.min(8) as u64)
            .filter_map(|k| match cache.read_replication(&key, k) {
                Read::Valid(rec) if rec.provenance.seconds() > 0.0 => {
                    Some(rec.provenance.seconds())
                }
                _ => None,
            })
            .collect();
        let c = if times.is_empty() {
            r.point.as_ref().map_or(0.0, |p| p.config.cost().seconds)
        } else {
            times.iter().sum::<f64>() / times.len() as f64
        };
        self.cost.insert(key, c);
        c
    }

    /// The records of replications from..to of `key` the cache lacks.
    fn missing(cache: &Cache, key: &Key, from: u32, to: u32) -> Vec<u64> {
        (from as u64..to as u64)
            .filter(|r| !matches!(cache.read_replication(key, *r), Read::Valid(_)))
            .collect()
    }

    /// The next round of claim `ci` (inconclusive), or why there is none.
    fn next_round(&mut self, cache: &Cache, ci: usize) -> Result<RoundPlan, Stop> {
        let claim = self.claim(ci).clone();
        let r = self.audited[ci].clone();
        let looks = self.looks(ci);
        let mut open = Vec::new();
        let mut blocked = None;
        for k in r
            .checks
            .iter()
            .filter(|k| k.verdict == Verdict::Inconclusive)
        {
            match self.open(&claim, k, r.level) {
                Ok(x) => open.push(x),
                Err(stop) => {
                    blocked.get_or_insert(stop);
                }
            }
        }
        if open.is_empty() && blocked.is_none() {
            return Err(Stop::Cannot(
                "no inconclusive point to extend (a point it reads is missing?)".into(),
            ));
        }
        // A check leaning against the claim decides it alone: the cheapest.
        let mut best: Option<(f64, RoundPlan)> = None;
        let mut refuting = false;
        for x in open.iter().filter(|x| x.lean == Lean::Refute) {
            refuting = true;
            if let Ok(p) = self.round_of(cache, &claim, looks, &[x])
                && best.as_ref().is_none_or(|(c, _)| p.predicted < *c)
            {
                best = Some((p.predicted, p));
            }
        }
        if let Some((_, p)) = best {
            return Ok(p);
        }
        if refuting {
            let x = open.iter().find(|x| x.lean == Lean::Refute).expect("one");
            return Err(self.beyond(x));
        }
        // Else every inconclusive check must be confirmed.
        if let Some(stop) = blocked {
            return Err(stop);
        }
        let xs: Vec<&Open> = open.iter().collect();
        self.round_of(cache, &claim, looks, &xs)
    }

    /// Why a check cannot be decided by doubling its replications: at its
    /// measured effect it would take more than lb's limit on a point, or
    /// than 2^MAX_ROUNDS times what it has.
    fn beyond(&self, x: &Open) -> Stop {
        let most = self.check_cap(x).min(x.n.saturating_mul(1 << MAX_ROUNDS));
        Stop::Cannot(format!(
            "at {} the measured value is {} from the threshold against a half-width of {} \
             with {} replications: at that effect even {most} would not decide it",
            x.at,
            short(x.d),
            short(x.h),
            x.n,
        ))
    }

    fn check_cap(&self, x: &Open) -> u32 {
        x.keys
            .iter()
            .filter_map(|k| self.index(k))
            .map(|i| self.cap(i))
            .min()
            .unwrap_or(0)
    }

    /// The round that doubles the points of `xs`, with its cost and the
    /// cost of the rounds predicted to decide them all.
    fn round_of(
        &mut self,
        cache: &Cache,
        claim: &Claim,
        looks: u32,
        xs: &[&Open],
    ) -> Result<RoundPlan, Stop> {
        let mut targets: BTreeMap<Key, u32> = BTreeMap::new();
        let mut estimates = Vec::new();
        let mut predicted = 0.0;
        for x in xs {
            let cap = self.check_cap(x);
            let Some(rounds) = predict(x, claim.level, looks, cap) else {
                return Err(self.beyond(x));
            };
            estimates.push((x.at.clone(), estimate(x, claim.level, looks + 1)));
            // The check's n doubles: each of its points to at least 2n.
            let to = (2 * x.n).min(cap);
            if to <= x.n {
                return Err(self.beyond(x));
            }
            for k in &x.keys {
                let Some(i) = self.index(k) else { continue };
                let needed = self.results[i].needed;
                if to > needed {
                    let t = targets.entry(*k).or_insert(0);
                    *t = (*t).max(to);
                }
                // Predicted: the point doubles `rounds` times from the
                // check's n.
                let unit = self.unit_cost(cache, i);
                let upto = (x.n as f64 * 2f64.powi(rounds as i32)).min(cap as f64);
                predicted += (upto - needed as f64).max(0.0) * unit;
            }
        }
        let mut cost = 0.0;
        for (k, to) in &targets {
            let i = self.index(k).expect("a point of the plan");
            let from = self.results[i].needed;
            cost += Self::missing(cache, k, from, *to).len() as f64 * self.unit_cost(cache, i);
        }
        Ok(RoundPlan {
            targets,
            estimates,
            cost,
            predicted: predicted.max(cost),
        })
    }

    /// An inconclusive check as something to extend, or why more
    /// replications cannot decide it.
    fn open(&self, claim: &Claim, k: &PointCheck, level: f64) -> Result<Open, Stop> {
        let note = k.note.clone().unwrap_or_default();
        // A point that has not settled decides nothing however many
        // replications it has: its runs must be longer.
        if let Some(u) = &k.unsettled {
            return Err(Stop::Unsettled(format!(
                "at {}: {u}; more replications cannot settle it{}",
                k.at,
                k.longer
                    .map(|f| format!(", runs at least {}× as long are needed", f.ceil()))
                    .unwrap_or_default()
            )));
        }
        if let ClaimCheck::Stability(_) = claim.check {
            return Err(Stop::Unsettled(format!(
                "at {} {} of {} replications are unstable: more replications cannot make them \
                 agree",
                k.at,
                (k.measured * k.replications as f64).round(),
                k.replications
            )));
        }
        // A point it read judged unstable: more replications cannot give
        // it a steady state.
        let unstable = self.results.iter().any(|r| {
            r.key
                .as_ref()
                .is_some_and(|key| k.keys.contains(&key.hex()))
                && lb_model::config::point_unstable(&r.summaries)
        });
        if unstable {
            return Err(Stop::Unsettled(format!("at {}: {note}", k.at)));
        }
        let h = match k.half_width {
            Some(h) if h.is_finite() && h > 0.0 && k.measured.is_finite() => h,
            _ => {
                return Err(Stop::Cannot(format!(
                    "at {} there is no interval to narrow{}",
                    k.at,
                    if note.is_empty() {
                        String::new()
                    } else {
                        format!(" ({note})")
                    }
                )));
            }
        };
        let keys: Vec<Key> = k.keys.iter().filter_map(|s| Key::parse(s)).collect();
        // The signed distance to what the check is held to: > 0 leans
        // toward confirming.
        let (signed, keys) = match &claim.check {
            ClaimCheck::Ordering(_) | ClaimCheck::Bound(_) => (k.measured, keys),
            ClaimCheck::Trend(t) => match t.direction {
                Direction::Increasing => (k.measured, keys),
                Direction::Decreasing => (-k.measured, keys),
            },
            ClaimCheck::Value(v) => {
                let e = k.reference.unwrap_or(f64::NAN);
                let tol = v.tolerance.around(e);
                if tol == 0.0 {
                    return Err(Stop::Cannot(
                        "the claim has no tolerance: its interval must cover the value".into(),
                    ));
                }
                (tol - (k.measured - e).abs(), keys)
            }
            ClaimCheck::Limit(l) => {
                let e = k.reference.unwrap_or(f64::NAN);
                let tol = l.tolerance.around(e);
                let gap = (k.measured - e).abs();
                if tol == 0.0 || gap >= tol {
                    return Err(Stop::Cannot(format!(
                        "at {} (nearest the limit) the metric is {} from the reference, outside \
                         the tolerance {} while the gap still closes: only points nearer the \
                         limit decide it",
                        k.at,
                        short(gap),
                        short(tol)
                    )));
                }
                // The nearest point decides whether the gap is within.
                (tol - gap, keys.last().copied().into_iter().collect())
            }
            ClaimCheck::Stability(_) => unreachable!("returned above"),
        };
        if !signed.is_finite() {
            return Err(Stop::Cannot(format!("at {} nothing is measured", k.at)));
        }
        let d = signed.abs();
        if d <= 1e-12 * k.measured.abs().max(h) {
            return Err(Stop::Cannot(format!(
                "at {} the measured value sits on the threshold",
                k.at
            )));
        }
        if d >= h {
            return Err(Stop::Cannot(format!(
                "at {} the interval clears the threshold yet the check is inconclusive{}",
                k.at,
                if note.is_empty() {
                    String::new()
                } else {
                    format!(": {note}")
                }
            )));
        }
        if k.replications < 2 || keys.is_empty() {
            return Err(Stop::Cannot(format!(
                "at {} there is nothing to extend",
                k.at
            )));
        }
        let first = self
            .results
            .iter()
            .filter(|r| r.key.is_some_and(|key| keys.contains(&key)))
            .filter_map(|r| r.first_stage)
            .max()
            .map(|f| f as u32)
            .filter(|&f| f < k.replications as u32);
        Ok(Open {
            lean: if signed > 0.0 {
                Lean::Confirm
            } else {
                Lean::Refute
            },
            d,
            h,
            n: k.replications as u32,
            level,
            first,
            keys,
            at: format!("{} ({})", k.at, k.policy),
        })
    }

    /// Runs a round: the ledger extended, the plan run, the claims read
    /// again; every claim whose checks now read other replications has
    /// looked once more. Returns those claims and the round.
    fn apply(
        &mut self,
        cache: &Cache,
        ci: usize,
        plan: &RoundPlan,
        o: &Options,
        progress: &dyn Progress,
    ) -> Result<(Vec<usize>, RoundDone), Error> {
        let before = self.read_counts();
        let mut ledger = self.e.ledger.clone();
        let mut points = Vec::new();
        let mut missing = Vec::new();
        for (k, to) in &plan.targets {
            let i = self.index(k).expect("a point of the plan");
            let from = self.results[i].needed;
            ledger.extend(k, *to, &self.name(i));
            points.push(Extension {
                point: self.name(i),
                from,
                to: *to,
            });
            missing.extend(
                Self::missing(cache, k, from, *to)
                    .into_iter()
                    .map(|r| (*k, r)),
            );
        }
        self.e = self.e.clone().with_ledger(ledger);
        let cpu0 = o.cpu_clock.map(|f| f());
        run(cache, std::slice::from_ref(&self.e.plan), &o.run, progress)?;
        let cpu1 = o.cpu_clock.map(|f| f());
        let wall_of_records: f64 = missing
            .iter()
            .filter_map(|(k, r)| match cache.read_replication(k, *r) {
                Read::Valid(rec) => Some(rec.provenance.seconds()),
                _ => None,
            })
            .sum();
        self.read(cache);
        let after = self.read_counts();
        let order: Vec<&str> = self
            .e
            .loaded
            .claims()
            .iter()
            .map(|c| c.id.as_str())
            .collect();
        let mut ledger = self.e.ledger.clone();
        let mut looked = Vec::new();
        for (i, (b, a)) in before.iter().zip(&after).enumerate() {
            if b != a {
                let c = &self.e.loaded.claims()[i];
                ledger.add_look(&c.id, c.level, &order);
                looked.push(i);
            }
        }
        self.e = self.e.clone().with_ledger(ledger);
        self.audit();
        let look = self.looks(ci);
        Ok((
            looked,
            RoundDone {
                look,
                points,
                estimates: plan.estimates.clone(),
                charged: plan.cost,
                cpu: match (cpu0, cpu1) {
                    (Some(a), Some(b)) => b - a,
                    _ => wall_of_records,
                },
                wall_of_records,
            },
        ))
    }
}

/// The two-sided Student-t quantile of `level` with `df` (at least one)
/// degrees of freedom.
fn t_quantile(level: f64, df: u32) -> f64 {
    lb_stats::t_quantile(level, df.max(1) as f64)
}

/// The half-width a check would have with `n` replications at `level`, its
/// replications' spread staying as measured.
fn half_width_at(x: &Open, n: u32, level: f64) -> f64 {
    // Degrees of freedom: Stein's first stage's, else the replications'.
    let df = |n: u32| x.first.unwrap_or(n) - 1;
    let s = x.h * (x.n as f64).sqrt() / t_quantile(x.level, df(x.n));
    t_quantile(level, df(n)) * s / (n as f64).sqrt()
}

/// The rounds of doubling (from look `looks`) after which the check is
/// predicted decided at its measured effect, within `cap` replications;
/// None beyond it or beyond [`MAX_ROUNDS`].
fn predict(x: &Open, manifest_level: f64, looks: u32, cap: u32) -> Option<u32> {
    let mut n = x.n;
    for i in 1..=MAX_ROUNDS {
        let next = (n.saturating_mul(2)).min(cap);
        if next <= n {
            return None;
        }
        n = next;
        if half_width_at(x, n, spent_level(manifest_level, looks + i)) < x.d {
            return Some(i);
        }
    }
    None
}

/// n′: the replications that would decide the check at look `look`, at its
/// measured effect (None beyond 2^MAX_ROUNDS times what it has).
fn estimate(x: &Open, manifest_level: f64, look: u32) -> Option<u32> {
    let level = spent_level(manifest_level, look);
    let top = x.n.saturating_mul(1 << MAX_ROUNDS);
    if half_width_at(x, top, level) >= x.d {
        return None;
    }
    // The half-width falls with n: bisect for the first n below d.
    let (mut lo, mut hi) = (x.n, top);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if half_width_at(x, mid, level) < x.d {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// A number in a few significant digits.
fn short(x: f64) -> String {
    format!("{x:.3e}")
        .parse::<f64>()
        .map_or_else(|_| x.to_string(), |v| format!("{v}"))
}

/// The outcome in words: totals, a table of the claims, each claim's rounds.
pub fn render(d: &Decided, process: f64) -> String {
    let mut s = String::new();
    let targeted: Vec<&ClaimOutcome> = d.claims.iter().filter(|c| c.targeted).collect();
    let decided = |v: Verdict| targeted.iter().filter(|c| c.verdict == v).count();
    let _ = writeln!(
        s,
        "\ndecide: {} of {} inconclusive claim(s) decided ({} confirmed, {} refuted); the \
         rounds were estimated at {:.0} CPU-s of a budget of {:.0}, and took {:.0} CPU-s ({:.0} s \
         wall; their replications' records state {:.0} s; this process used {:.0} CPU-s in all)",
        decided(Verdict::Confirmed) + decided(Verdict::Refuted),
        targeted.len(),
        decided(Verdict::Confirmed),
        decided(Verdict::Refuted),
        d.charged,
        d.budget,
        d.cpu,
        d.wall.as_secs_f64(),
        d.wall_of_records,
        process
    );
    s.push_str(
        "\n| claim | experiment | before | looks | points, replications added | CPU-s \
         (estimated / taken) | now | stopped |\n| --- | --- | --- | ---: | --- | ---: | --- \
         | --- |\n",
    );
    for c in &d.claims {
        let (points, reps) = c.added();
        let _ = writeln!(
            s,
            "| {}{} | {} | {} ({}) | {} | {} | {:.0} / {:.0} | {} ({}) | {} |",
            c.id,
            if c.targeted { "" } else { " (looked at again)" },
            c.experiment,
            c.before.word(),
            percent(c.level_before),
            c.looks,
            if points == 0 {
                "—".to_string()
            } else {
                format!("{points} point(s), +{reps}")
            },
            c.charged,
            c.cpu,
            c.verdict.word(),
            percent(c.level),
            match &c.stop {
                Stop::Decided | Stop::Untouched => c.stop.words(),
                other => other.words().replace('|', "/"),
            }
        );
    }
    for c in d.claims.iter().filter(|c| !c.rounds.is_empty()) {
        let _ = writeln!(s, "\n{} / {}:", c.experiment, c.id);
        for r in &c.rounds {
            let pts: Vec<String> = r
                .points
                .iter()
                .map(|p| format!("{} {}→{}", p.point, p.from, p.to))
                .collect();
            let est: Vec<String> = r
                .estimates
                .iter()
                .map(|(at, n)| match n {
                    Some(n) => format!("n′ ≈ {n} at {at}"),
                    None => format!("n′ beyond reach at {at}"),
                })
                .collect();
            let _ = writeln!(
                s,
                "  look {}: {}; {} (≈ {:.1} / {:.1} CPU-s)",
                r.look,
                pts.join(", "),
                est.join("; "),
                r.charged,
                r.cpu
            );
        }
    }
    if !d.ledgers.is_empty() {
        let _ = writeln!(
            s,
            "\nledger(s) written (lb audit and lb reproduce read them; run lb reproduce to redraw \
             the report):"
        );
        for l in &d.ledgers {
            let _ = writeln!(s, "  {}", l.display());
        }
    }
    s
}

/// A level in percent with at most two decimals: "95%", "99.24%".
fn percent(level: f64) -> String {
    let p = format!("{:.2}", 100.0 * level);
    let p = p.trim_end_matches('0').trim_end_matches('.');
    format!("{p}%")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The levels and widths the module's documentation quotes.
    #[test]
    fn the_documented_levels_and_widths() {
        let z = |l: f64| t_quantile(l, 1_000_000);
        let l = |j| spent_level(0.95, j);
        let r = |x: f64| (x * 10_000.0).round() / 100.0;
        assert_eq!((r(l(2)), r(l(3)), r(l(5))), (99.24, 99.66, 99.88));
        let w = |j| ((z(l(j)) / z(0.95)) * 100.0).round() / 100.0;
        assert_eq!((w(2), w(3), w(5)), (1.36, 1.5, 1.65));
        let n = |j| ((z(l(j)) / z(0.95)).powi(2) * 100.0).round() / 100.0;
        assert_eq!((n(2), n(3), n(5)), (1.86, 2.24, 2.72));
        let t3 = |j| ((t_quantile(l(j), 3) / t_quantile(0.95, 3)) * 10.0).round() / 10.0;
        assert_eq!((t3(2), t3(3), t3(5)), (2.0, 2.7, 3.8));
    }

    /// Under Stein's rule the t quantile stays the first stage's: at one
    /// level the half-width falls exactly as 1/√n.
    #[test]
    fn a_stein_points_half_width_keeps_its_first_stages_quantile() {
        let x = Open {
            lean: Lean::Confirm,
            d: 0.5,
            h: 1.0,
            n: 8,
            level: 0.95,
            first: Some(4),
            keys: Vec::new(),
            at: String::new(),
        };
        assert!((half_width_at(&x, 32, 0.95) - 0.5).abs() < 1e-12);
        let plain = Open { first: None, ..x };
        assert!(half_width_at(&plain, 32, 0.95) < 0.45);
    }

    #[test]
    fn predictions_follow_the_ladder() {
        // h = 1 with 10 replications at 95%, d = 0.5.
        let x = Open {
            lean: Lean::Confirm,
            d: 0.5,
            h: 1.0,
            n: 10,
            level: 0.95,
            first: None,
            keys: Vec::new(),
            at: String::new(),
        };
        let n2 = estimate(&x, 0.95, 2).unwrap();
        assert!(half_width_at(&x, n2, spent_level(0.95, 2)) < 0.5);
        assert!(half_width_at(&x, n2 - 1, spent_level(0.95, 2)) >= 0.5);
        // 10 → 20 → 40 → …: decided after r doublings, at look 1 + r, and
        // not after r − 1.
        let r = predict(&x, 0.95, 1, 100_000).unwrap();
        let h = |r: u32| half_width_at(&x, 10 << r, spent_level(0.95, 1 + r));
        assert!(r >= 2 && h(r) < 0.5 && h(r - 1) >= 0.5, "{r}");
        assert!(10 << r > n2, "the ladder never stops below n′ at look 2");
        assert_eq!(predict(&x, 0.95, 1, 10 << (r - 1)), None);
    }
}
