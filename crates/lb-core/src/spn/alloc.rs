//! Allocations: which activity each station runs in a given state, under
//! each policy. A pure function of the state (the buffer levels Z, and under
//! FIFO the order in which the jobs joined their buffers).
//!
//! Feasibility (Dai and Lin 2005, §2): each station runs at most one
//! activity, and at most Z_j activities draw on buffer j at once.

use super::config::{SpnConfig, SpnPolicy};
use std::collections::VecDeque;

/// Max-pressure's pressures p_a = Σ_j Z_j R_{j,a} = μ_a (Z_{buffer(a)} −
/// Σ_k P_a\[k\] Z_k) in state `z` (Dai and Lin 2005).
///
/// # Panics
/// If `z` does not hold one level per buffer of `cfg`.
pub fn pressures(cfg: &SpnConfig, z: &[u64]) -> Vec<f64> {
    assert_eq!(z.len(), cfg.buffers(), "one level per buffer");
    let mut p = vec![0.0; cfg.activities.len()];
    Allocator::new(cfg).pressures(z, &mut p);
    p
}

/// The activity each station runs in state `z` (`None`: it idles), under
/// max-pressure, static priority or own-buffer-first.
///
/// Max-pressure is solved exactly. An activity a is a *candidate* when its
/// buffer is non-empty and p_a > 0. Each station not sharing a buffer with
/// another station runs its candidate of highest pressure (ties to the
/// lowest activity index). The stations sharing buffers (as in a
/// parallel-server system) first try the same; if that over-draws a buffer
/// (more stations than jobs), every maximal feasible allocation of their
/// candidates is enumerated — each station trying its candidates in index
/// order, then idling; a leaf where an idle station could still take a job
/// with positive pressure is not maximal and is skipped, since adding that
/// activity would raise the pressure — and the first allocation of largest
/// total pressure wins (totals summed in station order, replaced only when
/// strictly exceeded). Validation bounds the number of leaves by
/// [`super::MAX_SEARCH`]. Both paths return the first maximiser in the order
/// (station 0's choice, station 1's choice, …) with activities in index order
/// and idling last.
///
/// # Panics
/// If `cfg` does not validate, `z` has the wrong length, or the policy is
/// FIFO (which needs the order of jobs: see [`allocate_fifo`]).
pub fn allocate(cfg: &SpnConfig, z: &[u64]) -> Vec<Option<usize>> {
    if let Err(e) = cfg.validate() {
        panic!("invalid network: {e}");
    }
    assert_eq!(z.len(), cfg.buffers(), "one level per buffer");
    assert!(
        cfg.policy != SpnPolicy::Fifo,
        "FIFO needs the order of jobs: use allocate_fifo"
    );
    let mut al = Allocator::new(cfg);
    let mut out = vec![None; cfg.stations];
    al.by_counts(z, &mut out);
    out
}

/// The activity each station runs under FIFO, given each buffer's jobs as
/// their arrival stamps, oldest first (`queues[j]`; stamps distinct across
/// buffers, larger = later). See [`SpnPolicy::Fifo`].
///
/// # Panics
/// If `cfg` does not validate or `queues` has the wrong length.
pub fn allocate_fifo(cfg: &SpnConfig, queues: &[Vec<u64>]) -> Vec<Option<usize>> {
    if let Err(e) = cfg.validate() {
        panic!("invalid network: {e}");
    }
    assert_eq!(queues.len(), cfg.buffers(), "one queue per buffer");
    let q: Vec<VecDeque<u64>> = queues.iter().map(|v| v.iter().copied().collect()).collect();
    let mut al = Allocator::new(cfg);
    let mut out = vec![None; cfg.stations];
    al.fifo(&q, &mut out);
    out.into_iter().map(|x| x.map(|(a, _)| a)).collect()
}

/// What the allocation rules need of a network, and their scratch space.
pub(crate) struct Allocator {
    policy: Kind,
    /// Per activity: buffer, rate, routing.
    buffer: Vec<usize>,
    rate: Vec<f64>,
    routing: Vec<Vec<(usize, f64)>>,
    /// Per station, its activities in index order.
    at: Vec<Vec<usize>>,
    /// Per station, its activities in priority order (priority policies).
    order: Vec<Vec<usize>>,
    /// Stations sharing no buffer with another, and the others.
    alone: Vec<usize>,
    coupled: Vec<usize>,
    /// FIFO: per buffer, (station, its lowest activity on the buffer), by
    /// station.
    servers: Vec<Vec<(usize, usize)>>,
    // Scratch.
    p: Vec<f64>,
    avail: Vec<u64>,
    best: Vec<Option<usize>>,
    cur: Vec<Option<usize>>,
    ptr: Vec<usize>,
    blocked: Vec<bool>,
    busy: Vec<bool>,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    MaxPressure,
    Priority,
    Fifo,
}

impl Allocator {
    pub(crate) fn new(cfg: &SpnConfig) -> Allocator {
        let nb = cfg.buffers();
        let ns = cfg.stations;
        let at = cfg.activities_at();
        let buffer: Vec<usize> = cfg.activities.iter().map(|a| a.buffer).collect();
        let (policy, order) = match &cfg.policy {
            SpnPolicy::MaxPressure => (Kind::MaxPressure, Vec::new()),
            SpnPolicy::Fifo => (Kind::Fifo, Vec::new()),
            SpnPolicy::Priority { order } => (Kind::Priority, order.clone()),
            SpnPolicy::OwnBufferFirst { own } => (
                Kind::Priority,
                at.iter()
                    .zip(own)
                    .map(|(acts, &j)| {
                        let mine = acts.iter().copied().filter(|&a| buffer[a] == j);
                        let rest = acts.iter().copied().filter(|&a| buffer[a] != j);
                        mine.chain(rest).collect()
                    })
                    .collect(),
            ),
        };
        let coupled = cfg.coupled_stations();
        let alone = (0..ns).filter(|s| !coupled.contains(s)).collect();
        let mut servers = vec![Vec::new(); nb];
        for (s, acts) in at.iter().enumerate() {
            for &a in acts {
                let j = buffer[a];
                if !servers[j].iter().any(|&(t, _)| t == s) {
                    servers[j].push((s, a));
                }
            }
        }
        Allocator {
            policy,
            rate: cfg.activities.iter().map(|a| a.rate).collect(),
            routing: cfg
                .activities
                .iter()
                .map(|a| {
                    a.routing
                        .iter()
                        .map(|r| (r.buffer, r.probability))
                        .collect()
                })
                .collect(),
            buffer,
            at,
            order,
            alone,
            coupled,
            servers,
            p: vec![0.0; cfg.activities.len()],
            avail: vec![0; nb],
            best: vec![None; ns],
            cur: vec![None; ns],
            ptr: vec![0; nb],
            blocked: vec![false; nb],
            busy: vec![false; ns],
        }
    }

    /// Whether the policy reads the order of jobs (FIFO).
    pub(crate) fn ordered(&self) -> bool {
        self.policy == Kind::Fifo
    }

    /// p_a for every activity, into `p`.
    fn pressures(&self, z: &[u64], p: &mut [f64]) {
        for (a, pa) in p.iter_mut().enumerate() {
            let down: f64 = self.routing[a].iter().map(|&(k, q)| q * z[k] as f64).sum();
            *pa = self.rate[a] * (z[self.buffer[a]] as f64 - down);
        }
    }

    /// The allocation of a policy that reads only the levels `z`.
    pub(crate) fn by_counts(&mut self, z: &[u64], out: &mut [Option<usize>]) {
        match self.policy {
            Kind::MaxPressure => self.max_pressure(z, out),
            Kind::Priority => self.priority(z, out),
            Kind::Fifo => unreachable!("FIFO reads the order of jobs"),
        }
    }

    /// Static priority: rounds by rank; in round r every still idle station,
    /// in index order, takes its r-th activity if that buffer has a job left.
    fn priority(&mut self, z: &[u64], out: &mut [Option<usize>]) {
        self.avail.copy_from_slice(z);
        out.fill(None);
        let depth = self.order.iter().map(Vec::len).max().unwrap_or(0);
        for r in 0..depth {
            for (s, list) in self.order.iter().enumerate() {
                if out[s].is_some() || r >= list.len() {
                    continue;
                }
                let a = list[r];
                let j = self.buffer[a];
                if self.avail[j] > 0 {
                    self.avail[j] -= 1;
                    out[s] = Some(a);
                }
            }
        }
    }

    /// The station's candidate of highest pressure (ties to the lowest
    /// index): z_buffer ≥ 1 and p > 0.
    fn station_best(&self, s: usize, z: &[u64]) -> Option<usize> {
        let mut best: Option<usize> = None;
        for &a in &self.at[s] {
            if z[self.buffer[a]] == 0 || self.p[a] <= 0.0 {
                continue;
            }
            if best.is_none_or(|b| self.p[a] > self.p[b]) {
                best = Some(a);
            }
        }
        best
    }

    fn max_pressure(&mut self, z: &[u64], out: &mut [Option<usize>]) {
        let mut p = std::mem::take(&mut self.p);
        self.pressures(z, &mut p);
        self.p = p;
        out.fill(None);
        for i in 0..self.alone.len() {
            let s = self.alone[i];
            out[s] = self.station_best(s, z);
        }
        if self.coupled.is_empty() {
            return;
        }
        // The coupled stations' own best choices, if together feasible.
        self.avail.copy_from_slice(z);
        let mut feasible = true;
        for i in 0..self.coupled.len() {
            let s = self.coupled[i];
            let b = self.station_best(s, z);
            out[s] = b;
            if let Some(a) = b {
                let j = self.buffer[a];
                if self.avail[j] == 0 {
                    feasible = false;
                } else {
                    self.avail[j] -= 1;
                }
            }
        }
        if feasible {
            return;
        }
        // Exhaustive search over maximal allocations of the coupled stations.
        self.avail.copy_from_slice(z);
        self.cur.fill(None);
        self.best.fill(None);
        let mut best_total = f64::NEG_INFINITY;
        self.search(0, 0.0, z, &mut best_total);
        for &s in &self.coupled {
            out[s] = self.best[s];
        }
    }

    /// Depth-first over the coupled stations from the `i`-th on.
    fn search(&mut self, i: usize, total: f64, z: &[u64], best_total: &mut f64) {
        if i == self.coupled.len() {
            // Maximal: no idle coupled station has a candidate with a job left.
            let maximal = self.coupled.iter().all(|&s| {
                self.cur[s].is_some()
                    || self.at[s].iter().all(|&a| {
                        let j = self.buffer[a];
                        z[j] == 0 || self.p[a] <= 0.0 || self.avail[j] == 0
                    })
            });
            if maximal && total > *best_total {
                *best_total = total;
                for &s in &self.coupled {
                    self.best[s] = self.cur[s];
                }
            }
            return;
        }
        let s = self.coupled[i];
        for k in 0..self.at[s].len() {
            let a = self.at[s][k];
            let j = self.buffer[a];
            if self.p[a] <= 0.0 || self.avail[j] == 0 {
                continue;
            }
            self.avail[j] -= 1;
            self.cur[s] = Some(a);
            self.search(i + 1, total + self.p[a], z, best_total);
            self.cur[s] = None;
            self.avail[j] += 1;
        }
        self.search(i + 1, total, z, best_total);
    }

    /// FIFO: jobs oldest first, each to the lowest-indexed idle station that
    /// can serve its buffer; `out[s]` = (activity, the job's position in its
    /// buffer's queue).
    pub(crate) fn fifo(&mut self, queues: &[VecDeque<u64>], out: &mut [Option<(usize, usize)>]) {
        out.fill(None);
        self.ptr.fill(0);
        self.blocked.fill(false);
        self.busy.fill(false);
        loop {
            let mut pick: Option<(u64, usize)> = None;
            for (j, q) in queues.iter().enumerate() {
                if self.blocked[j] || self.ptr[j] >= q.len() {
                    continue;
                }
                let stamp = q[self.ptr[j]];
                if pick.is_none_or(|(t, _)| stamp < t) {
                    pick = Some((stamp, j));
                }
            }
            let Some((_, j)) = pick else { break };
            match self.servers[j].iter().find(|&&(s, _)| !self.busy[s]) {
                Some(&(s, a)) => {
                    self.busy[s] = true;
                    out[s] = Some((a, self.ptr[j]));
                    self.ptr[j] += 1;
                }
                None => self.blocked[j] = true,
            }
        }
    }
}
