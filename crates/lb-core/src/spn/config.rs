//! The resolved configuration of a network run: the network in Dai and Lin's
//! general form (buffers, stations, processing activities), the policy, the
//! run length and what to record; its validation and the quantities derived
//! from it (the input–output matrix, the uniformised chain's rates, the
//! traffic equations of a multiclass network).
//!
//! Every float in a configuration is given, not derived by the engine, so
//! that the canonical JSON of a configuration (the cache key) holds exactly
//! what determines the run.

use crate::many::TimeRun;
use serde::{Deserialize, Serialize};

/// Tolerance on probabilities: routing may sum to 1 + `PROB_TOL` at most, and
/// an activity whose routing sums to 1 − `PROB_TOL` or more lets no job leave.
pub const PROB_TOL: f64 = 1e-9;

/// The most allocations max-pressure may search exhaustively: the product,
/// over the stations serving a buffer that other stations also serve, of
/// (activities at the station + 1). Every network of at most 12 activities
/// is within it (2¹² = 4096 is the largest such product).
pub const MAX_SEARCH: u64 = 4096;

/// One destination of a finished job: the buffer it joins and the
/// probability P_a\[k\] that it does.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Route {
    /// The buffer k the job joins.
    pub buffer: usize,
    /// P_a\[k\] ∈ [0, 1].
    pub probability: f64,
}

/// A processing activity a (Dai and Lin 2005, §2): station `station` takes a
/// job from buffer `buffer` and serves it for an exponential time of rate
/// μ_a; the finished job joins buffer k with probability P_a\[k\] (`routing`)
/// or leaves the network with probability 1 − Σ_k P_a\[k\].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Activity {
    /// The station (processor) the activity occupies.
    pub station: usize,
    /// The buffer it takes its jobs from.
    pub buffer: usize,
    /// μ_a, the service rate (1 / mean service time).
    pub rate: f64,
    /// Where a finished job goes; empty: it leaves. Each buffer at most once.
    #[serde(default)]
    pub routing: Vec<Route>,
}

/// How the stations choose their activities. Every policy here is
/// preemptive-resume and re-decides at every change of state; none draws
/// random numbers: ties are broken deterministically, as each variant says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "name", deny_unknown_fields)]
pub enum SpnPolicy {
    /// Max-pressure (Dai and Lin 2005): the feasible extreme allocation
    /// maximising the pressure Σ_a p_a, p_a = Σ_j Z_j R_{j,a}; see
    /// [`super::allocate`] for the search and the rule on ties (the first
    /// maximiser when stations choose in index order, each trying its
    /// activities in index order and idling last; for a multiclass network,
    /// each station's highest-pressure activity, ties to the lowest index).
    /// An activity with p_a ≤ 0 never runs. Uses no arrival rates.
    #[serde(rename = "max-pressure")]
    MaxPressure,
    /// Static priority: `order[s]` lists station s's activities, highest
    /// priority first; each station runs its highest-priority activity whose
    /// buffer has a job not taken by another station. Where stations compete
    /// for a buffer's last jobs, the station ranking that activity higher
    /// wins, then the lower station index.
    #[serde(rename = "priority")]
    Priority {
        /// Per station, all its activities from the highest priority down.
        order: Vec<Vec<usize>>,
    },
    /// Own buffer first, for parallel-server systems: station s serves its
    /// designated own buffer `own[s]` whenever it has a job there
    /// not taken by another station, and otherwise its other activities in
    /// activity index order. The static priority whose order at s is its
    /// activities on `own[s]`, then the rest, each group in index order.
    #[serde(rename = "own-buffer-first")]
    OwnBufferFirst {
        /// Per station, its own buffer (one the station has an activity on).
        own: Vec<usize>,
    },
    /// First in, first out: jobs are taken in order of arrival to their
    /// buffers, oldest first, and each goes to the lowest-indexed idle
    /// station that can serve its buffer (by that station's lowest-indexed
    /// activity on the buffer), until no idle station can serve a waiting
    /// job. In a multiclass network each station serves its oldest job; a
    /// buffer shared by several stations hands its head-of-line jobs to the
    /// stations in turn.
    #[serde(rename = "FIFO")]
    Fifo,
}

/// The default of [`SpnConfig::path_points`].
pub const DEFAULT_PATH_POINTS: u32 = 64;

fn default_path_points() -> u32 {
    DEFAULT_PATH_POINTS
}

/// A network in Dai and Lin's general form, a policy and a run.
///
/// Buffers are indexed j = 0..`arrivals.len()`, stations s = 0..`stations`,
/// activities a = 0..`activities.len()`. A buffer may be served by several
/// activities at several stations (a parallel-server system); a multiclass
/// network is the case of one activity per buffer. A feasible allocation
/// runs at most one activity per station and at most Z_j activities on
/// buffer j at once (a job is served by one station at a time).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpnConfig {
    /// λ_j, the exogenous Poisson arrival rate of each buffer (0 for a buffer
    /// fed only by routing). Its length is the number of buffers.
    pub arrivals: Vec<f64>,
    /// The number of stations (processors).
    pub stations: usize,
    /// The processing activities.
    pub activities: Vec<Activity>,
    /// Workload weights, one vector per resource whose workload is
    /// reported: `workload[r][j]` is the expected work (time of resource r)
    /// a job in buffer j still brings. The run reports Σ_j w_j E\[Z_j\] for
    /// each. E.g. the immediate workload of each station of a multiclass
    /// network, or the pooled resource of a parallel-server system (the
    /// dual solution of the static planning problem, Harrison 2000).
    #[serde(default)]
    pub workload: Vec<Vec<f64>>,
    /// The stations' policy.
    pub policy: SpnPolicy,
    /// Run length, in time units of the rates.
    pub run: TimeRun,
    /// Points of the recorded sample path of the total jobs, equally spaced
    /// over the whole horizon, warm-up included (the first at time 0, the
    /// last at the horizon); at least 2.
    #[serde(default = "default_path_points")]
    pub path_points: u32,
}

impl SpnConfig {
    /// The number of buffers.
    pub fn buffers(&self) -> usize {
        self.arrivals.len()
    }

    /// Each station's activities, in index order.
    pub fn activities_at(&self) -> Vec<Vec<usize>> {
        let mut at = vec![Vec::new(); self.stations];
        for (a, act) in self.activities.iter().enumerate() {
            if act.station < self.stations {
                at[act.station].push(a);
            }
        }
        at
    }

    /// The probability that a job finished by activity a leaves the network,
    /// 1 − Σ_k P_a\[k\] (0 when that is within [`PROB_TOL`] of 0).
    pub fn exit_probability(&self, a: usize) -> f64 {
        let s: f64 = self.activities[a]
            .routing
            .iter()
            .map(|r| r.probability)
            .sum();
        if s >= 1.0 - PROB_TOL { 0.0 } else { 1.0 - s }
    }

    /// The input–output matrix R (Dai and Lin 2005, §2), buffers × activities:
    /// R_{j,a} = μ_a (1{j = buffer(a)} − P_a\[j\]), the rate at which activity a
    /// depletes buffer j while it runs.
    pub fn input_output(&self) -> Vec<Vec<f64>> {
        let mut r = vec![vec![0.0; self.activities.len()]; self.buffers()];
        for (a, act) in self.activities.iter().enumerate() {
            r[act.buffer][a] += act.rate;
            for route in &act.routing {
                r[route.buffer][a] -= act.rate * route.probability;
            }
        }
        r
    }

    /// Checks the network, the policy and the run; the message names the
    /// field.
    ///
    /// Transience: every buffer's jobs must eventually leave *whatever*
    /// activities serve them, i.e. the buffer-to-buffer routing matrix of
    /// every assignment of one activity to each buffer has spectral radius
    /// < 1 (so the expected visit counts are finite under every policy). The
    /// check looks for the largest set T of buffers each of which has an
    /// activity routing all its jobs back into T (routing summing to within
    /// [`PROB_TOL`] of 1, all of it to T): such a set traps jobs under the
    /// assignment choosing those activities, and none exists exactly when
    /// every assignment's matrix is transient. For a multiclass network this
    /// is the usual condition that routing leaves.
    pub fn validate(&self) -> Result<(), String> {
        let nb = self.buffers();
        let ns = self.stations;
        let na = self.activities.len();
        if nb == 0 {
            return Err("arrivals: at least one buffer is needed".into());
        }
        for (j, &l) in self.arrivals.iter().enumerate() {
            if !(l.is_finite() && l >= 0.0) {
                return Err(format!("arrivals[{j}] must be a number ≥ 0, got {l}"));
            }
        }
        if self.arrivals.iter().all(|&l| l == 0.0) {
            return Err("arrivals: no buffer has exogenous arrivals".into());
        }
        if ns == 0 {
            return Err("stations: at least one station is needed".into());
        }
        if na == 0 {
            return Err("activities: at least one activity is needed".into());
        }
        for (a, act) in self.activities.iter().enumerate() {
            if act.station >= ns {
                return Err(format!(
                    "activities[{a}].station = {} is not a station (0..{ns})",
                    act.station
                ));
            }
            if act.buffer >= nb {
                return Err(format!(
                    "activities[{a}].buffer = {} is not a buffer (0..{nb})",
                    act.buffer
                ));
            }
            if !(act.rate.is_finite() && act.rate > 0.0) {
                return Err(format!(
                    "activities[{a}].rate must be a number > 0, got {}",
                    act.rate
                ));
            }
            let mut sum = 0.0;
            for (i, r) in act.routing.iter().enumerate() {
                if r.buffer >= nb {
                    return Err(format!(
                        "activities[{a}].routing[{i}].buffer = {} is not a buffer (0..{nb})",
                        r.buffer
                    ));
                }
                if !(r.probability.is_finite() && r.probability >= 0.0) {
                    return Err(format!(
                        "activities[{a}].routing[{i}].probability must be in [0, 1], got {}",
                        r.probability
                    ));
                }
                if act.routing[..i].iter().any(|q| q.buffer == r.buffer) {
                    return Err(format!(
                        "activities[{a}].routing lists buffer {} more than once",
                        r.buffer
                    ));
                }
                sum += r.probability;
            }
            if sum > 1.0 + PROB_TOL {
                return Err(format!(
                    "activities[{a}].routing: the probabilities sum to {sum} > 1"
                ));
            }
        }
        for j in 0..nb {
            if !self.activities.iter().any(|act| act.buffer == j) {
                return Err(format!(
                    "activities: no activity serves buffer {j} (arrivals[{j}])"
                ));
            }
        }
        if ns > na {
            return Err(format!(
                "stations = {ns}, but there are only {na} activities: station {na} has no activity"
            ));
        }
        let at = self.activities_at();
        if let Some(s) = at.iter().position(Vec::is_empty) {
            return Err(format!(
                "stations = {ns}, but station {s} has no activity in activities"
            ));
        }
        self.check_transient()?;
        self.check_policy(&at)?;
        for (r, w) in self.workload.iter().enumerate() {
            if w.len() != nb {
                return Err(format!(
                    "workload[{r}] has {} weights; it needs one per buffer ({nb})",
                    w.len()
                ));
            }
            if let Some(j) = w.iter().position(|x| !(x.is_finite() && *x >= 0.0)) {
                return Err(format!(
                    "workload[{r}][{j}] must be a number ≥ 0, got {}",
                    w[j]
                ));
            }
        }
        if self.path_points < 2 {
            return Err(format!(
                "path_points must be ≥ 2 (time 0 and the horizon), got {}",
                self.path_points
            ));
        }
        self.run.check(self.event_rate())
    }

    /// The transience check of [`SpnConfig::validate`].
    fn check_transient(&self) -> Result<(), String> {
        let nb = self.buffers();
        let mut trap = vec![true; nb];
        loop {
            let mut changed = false;
            for j in 0..nb {
                if !trap[j] {
                    continue;
                }
                let keeps = self.activities.iter().any(|act| {
                    act.buffer == j && {
                        let inside: f64 = act
                            .routing
                            .iter()
                            .filter(|r| trap[r.buffer])
                            .map(|r| r.probability)
                            .sum();
                        inside >= 1.0 - PROB_TOL
                    }
                });
                if !keeps {
                    trap[j] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let t: Vec<usize> = (0..nb).filter(|&j| trap[j]).collect();
        if t.is_empty() {
            return Ok(());
        }
        let keepers: Vec<usize> = (0..self.activities.len())
            .filter(|&a| {
                let act = &self.activities[a];
                trap[act.buffer]
                    && act
                        .routing
                        .iter()
                        .filter(|r| trap[r.buffer])
                        .map(|r| r.probability)
                        .sum::<f64>()
                        >= 1.0 - PROB_TOL
            })
            .collect();
        Err(format!(
            "activities: jobs in buffers {t:?} can be kept there forever (activities {keepers:?} route every job back into them); the routing must let jobs leave whichever activities serve them"
        ))
    }

    /// The policy's part of [`SpnConfig::validate`].
    fn check_policy(&self, at: &[Vec<usize>]) -> Result<(), String> {
        let ns = self.stations;
        match &self.policy {
            SpnPolicy::Priority { order } => {
                if order.len() != ns {
                    return Err(format!(
                        "policy.order needs one list per station ({ns}), got {}",
                        order.len()
                    ));
                }
                for (s, list) in order.iter().enumerate() {
                    let mut got = list.clone();
                    got.sort_unstable();
                    if got != at[s] {
                        return Err(format!(
                            "policy.order[{s}] must list station {s}'s activities {:?} once each, got {list:?}",
                            at[s]
                        ));
                    }
                }
            }
            SpnPolicy::OwnBufferFirst { own } => {
                if own.len() != ns {
                    return Err(format!(
                        "policy.own needs one buffer per station ({ns}), got {}",
                        own.len()
                    ));
                }
                for (s, &j) in own.iter().enumerate() {
                    if !at[s].iter().any(|&a| self.activities[a].buffer == j) {
                        return Err(format!(
                            "policy.own[{s}] = {j}: station {s} has no activity on buffer {j}"
                        ));
                    }
                }
            }
            SpnPolicy::MaxPressure => {
                let n = self.search_size();
                if n > MAX_SEARCH {
                    return Err(format!(
                        "policy: max-pressure would search {n} allocations of the stations sharing buffers, more than {MAX_SEARCH}"
                    ));
                }
            }
            SpnPolicy::Fifo => {}
        }
        Ok(())
    }

    /// Whether each buffer is served at two or more stations.
    pub(crate) fn shared_buffers(&self) -> Vec<bool> {
        let nb = self.buffers();
        let mut first: Vec<Option<usize>> = vec![None; nb];
        let mut shared = vec![false; nb];
        for act in &self.activities {
            match first[act.buffer] {
                None => first[act.buffer] = Some(act.station),
                Some(s) if s != act.station => shared[act.buffer] = true,
                Some(_) => {}
            }
        }
        shared
    }

    /// The stations with an activity on a shared buffer: those whose
    /// max-pressure choices are coupled.
    pub(crate) fn coupled_stations(&self) -> Vec<usize> {
        let shared = self.shared_buffers();
        let mut c: Vec<usize> = self
            .activities
            .iter()
            .filter(|act| shared[act.buffer])
            .map(|act| act.station)
            .collect();
        c.sort_unstable();
        c.dedup();
        c
    }

    /// ∏ over the coupled stations of (activities + 1), saturating.
    pub fn search_size(&self) -> u64 {
        let at = self.activities_at();
        self.coupled_stations()
            .iter()
            .map(|&s| at[s].len() as u64 + 1)
            .fold(1u64, u64::saturating_mul)
    }

    /// Whether each buffer is served by exactly one activity (a multiclass
    /// network: each buffer is a class, at one station).
    pub fn is_multiclass(&self) -> bool {
        let mut n = vec![0usize; self.buffers()];
        for act in &self.activities {
            if act.buffer < n.len() {
                n[act.buffer] += 1;
            }
        }
        n.iter().all(|&c| c == 1)
    }

    /// For a multiclass network, the total arrival rate λ̄_j of each buffer,
    /// exogenous plus routed: the solution of the traffic equations
    /// λ̄ = λ + Pᵀ λ̄. `None` for a network with a buffer served by several
    /// activities (its flows depend on the policy: the static planning
    /// problem, Harrison 2000).
    pub fn traffic(&self) -> Option<Vec<f64>> {
        if !self.is_multiclass() {
            return None;
        }
        let nb = self.buffers();
        // (I − Pᵀ) λ̄ = λ, P[j][k] the routing of buffer j's activity.
        let mut m = vec![vec![0.0; nb + 1]; nb];
        for (k, row) in m.iter_mut().enumerate() {
            row[k] = 1.0;
            row[nb] = self.arrivals[k];
        }
        for act in &self.activities {
            for r in &act.routing {
                m[r.buffer][act.buffer] -= r.probability;
            }
        }
        solve(m)
    }

    /// For a multiclass network, the load ρ_s = Σ_{a at s} λ̄_{buffer(a)} / μ_a
    /// of each station; `None` otherwise (see [`SpnConfig::traffic`]).
    pub fn loads(&self) -> Option<Vec<f64>> {
        let lam = self.traffic()?;
        let mut rho = vec![0.0; self.stations];
        for act in &self.activities {
            rho[act.station] += lam[act.buffer] / act.rate;
        }
        Some(rho)
    }

    /// μ̄_s, the largest service rate at each station: the rate of its
    /// potential services in the uniformised chain.
    pub fn top_rates(&self) -> Vec<f64> {
        let mut top = vec![0.0f64; self.stations];
        for act in &self.activities {
            if act.station < self.stations {
                top[act.station] = top[act.station].max(act.rate);
            }
        }
        top
    }

    /// Λ = Σ_j λ_j + Σ_s μ̄_s: the uniformised chain's event rate.
    pub fn event_rate(&self) -> f64 {
        self.arrivals.iter().sum::<f64>() + self.top_rates().iter().sum::<f64>()
    }

    /// Events of the uniformised chain in the run and in its warm-up.
    pub fn steps(&self) -> (u64, u64) {
        self.run.steps(self.event_rate())
    }
}

/// Gaussian elimination with partial pivoting on an n × (n + 1) augmented
/// matrix; `None` if singular.
fn solve(mut m: Vec<Vec<f64>>) -> Option<Vec<f64>> {
    let n = m.len();
    for c in 0..n {
        let p = (c..n).max_by(|&x, &y| m[x][c].abs().total_cmp(&m[y][c].abs()))?;
        if m[p][c].abs() < 1e-12 {
            return None;
        }
        m.swap(c, p);
        let pivot = m[c].clone();
        for (r, row) in m.iter_mut().enumerate() {
            let f = row[c] / pivot[c];
            if r != c && f != 0.0 {
                for (x, p) in row.iter_mut().zip(&pivot).skip(c) {
                    *x -= f * p;
                }
            }
        }
    }
    Some((0..n).map(|r| m[r][n] / m[r][r]).collect())
}
