//! The uniformised chain of a multiclass network (SPEC §3).
//!
//! Events come at total rate Λ = Σ_k λ_k + Σ_s μ̄_s, μ̄_s the largest service
//! rate at station s: an exogenous arrival to class k with probability λ_k/Λ,
//! else a potential service at station s (probability μ̄_s/Λ), which completes
//! a job of the class the policy serves, k, with probability μ_k/μ̄_s. The
//! policy decides afresh at every event, as a preemptive-resume policy does at
//! every change of state; exponential service makes the preempted work
//! irrelevant. Time averages are step averages (each step lasts 1/Λ on average).

use super::{SpnConfig, SpnPolicy};
use crate::stability::{Stability, Trace, stability};
use crate::streams::bernoulli;
use crate::streams::{Seeds, Streams};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// What one replication of a network run measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpnSummary {
    /// The replication index r.
    pub replication: u64,
    /// Measured time.
    pub measured_time: f64,
    /// Time-averaged Z_k, jobs of each class.
    pub mean_jobs: Vec<f64>,
    /// Σ_k of those.
    pub mean_total: f64,
    /// Time-averaged workload Σ_k Z_k · (mean service still ahead of a class-k
    /// job: its own and its route's).
    pub mean_workload: f64,
    /// Jobs in the network at the end.
    pub in_system_end: u64,
    /// Batch means of the total jobs over the measured window.
    pub trace: Vec<f64>,
    /// Whether the total settled (a trend test over the second half).
    pub stability: Stability,
}

/// Runs replication `r` of `cfg`: a pure function of (cfg, seeds, r).
///
/// # Panics
/// If `cfg` does not validate; call [`SpnConfig::validate`] first.
pub fn run_spn(cfg: &SpnConfig, seeds: &Seeds, r: u64) -> SpnSummary {
    if let Err(e) = cfg.validate() {
        panic!("invalid network: {e}");
    }
    let classes = &cfg.classes;
    let nk = classes.len();
    let ns = cfg.stations();
    let top = cfg.top_rates();
    // Events: arrivals to each class, then potential services at each station.
    let rates: Vec<f64> = classes
        .iter()
        .map(|c| c.arrival)
        .chain(top.iter().copied())
        .collect();
    let total: f64 = rates.iter().sum();
    // Cumulative thresholds on the top 63 bits of a word.
    let two63 = 9_223_372_036_854_775_808.0;
    let mut acc = 0.0;
    let cum: Vec<u64> = rates
        .iter()
        .map(|&x| {
            acc += x;
            ((acc / total).min(1.0) * two63) as u64
        })
        .collect();
    let accept: Vec<u64> = classes
        .iter()
        .map(|c| (c.rate / top[c.station] * two63) as u64)
        .collect();
    // Mean service still ahead of a class-k job, its own included.
    let ahead: Vec<f64> = (0..nk)
        .map(|k| {
            let (mut j, mut w) = (Some(k), 0.0);
            while let Some(c) = j {
                w += 1.0 / classes[c].rate;
                j = classes[c].next;
            }
            w
        })
        .collect();
    let at: Vec<Vec<usize>> = (0..ns)
        .map(|s| (0..nk).filter(|&k| classes[k].station == s).collect())
        .collect();

    let mut st = Streams::new(seeds, r, 0);
    let (steps, warm) = cfg.steps();
    let window = steps - warm;
    let mut z = vec![0u64; nk];
    // FIFO: per station, runs of (class, jobs) in arrival order.
    let mut fifo: Vec<VecDeque<(usize, u64)>> = vec![VecDeque::new(); ns];
    let mut area = vec![0u128; nk];
    let mut jobs = 0u64;
    let mut trace = Trace::new(window, cfg.run.batches);

    // Only FIFO reads the order of jobs.
    let ordered = cfg.policy == SpnPolicy::Fifo;
    let join = |z: &mut [u64], fifo: &mut [VecDeque<(usize, u64)>], k: usize| {
        z[k] += 1;
        if !ordered {
            return;
        }
        let q = &mut fifo[classes[k].station];
        match q.back_mut() {
            Some((c, n)) if *c == k => *n += 1,
            _ => q.push_back((k, 1)),
        }
    };

    for step in 0..steps {
        if step >= warm {
            for (a, &x) in area.iter_mut().zip(&z) {
                *a += x as u128;
            }
            trace.add(step - warm, jobs);
        }
        let u = st.arrivals.next_u64() >> 1;
        let e = cum.iter().position(|&c| u < c).unwrap_or(rates.len() - 1);
        if e < nk {
            join(&mut z, &mut fifo, e);
            jobs += 1;
            continue;
        }
        let s = e - nk;
        let Some(k) = serve(&cfg.policy, s, &at[s], &z, &fifo[s], classes) else {
            continue;
        };
        if bernoulli(accept[k], st.arrivals.next_u64()) == 0 {
            continue;
        }
        // Class k completes one job (under FIFO, the station's head).
        z[k] -= 1;
        if ordered {
            let head = fifo[s].front_mut().expect("FIFO serves its head");
            head.1 -= 1;
            if head.1 == 0 {
                fifo[s].pop_front();
            }
        }
        match classes[k].next {
            Some(n) => join(&mut z, &mut fifo, n),
            None => jobs -= 1,
        }
    }

    let w = window as f64;
    let mean_jobs: Vec<f64> = area.iter().map(|&a| a as f64 / w).collect();
    // The time average of Σ_k Z_k·ahead_k is Σ_k ahead_k·E[Z_k].
    let mean_workload = mean_jobs.iter().zip(&ahead).map(|(z, a)| z * a).sum();
    let trace = trace.means();
    SpnSummary {
        replication: r,
        measured_time: w / total,
        mean_total: mean_jobs.iter().sum(),
        mean_jobs,
        mean_workload,
        in_system_end: jobs,
        stability: stability(&trace),
        trace,
    }
}

/// The class station `s` serves, if any.
fn serve(
    policy: &SpnPolicy,
    s: usize,
    at: &[usize],
    z: &[u64],
    fifo: &VecDeque<(usize, u64)>,
    classes: &[super::ClassSpec],
) -> Option<usize> {
    match policy {
        SpnPolicy::MaxPressure => {
            let mut best: Option<(f64, usize)> = None;
            for &k in at {
                if z[k] == 0 {
                    continue;
                }
                let downstream = classes[k].next.map_or(0, |n| z[n]);
                let p = classes[k].rate * (z[k] as f64 - downstream as f64);
                if p > 0.0 && best.is_none_or(|(bp, _)| p > bp) {
                    best = Some((p, k));
                }
            }
            best.map(|(_, k)| k)
        }
        SpnPolicy::Priority { order } => order[s].iter().copied().find(|&k| z[k] > 0),
        SpnPolicy::Fifo => fifo.front().map(|&(k, _)| k),
    }
}
