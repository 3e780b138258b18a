//! The uniformised chain of a stochastic processing network (docs/MODEL.md §3).
//!
//! Events come at total rate Λ = Σ_j λ_j + Σ_s μ̄_s, μ̄_s the largest service
//! rate at station s: an exogenous arrival to buffer j with probability
//! λ_j/Λ, else a potential service at station s (probability μ̄_s/Λ). If the
//! policy has s running activity a, the potential service completes a job of
//! buffer(a) with probability μ_a/μ̄_s, and the job then joins buffer k with
//! probability P_a\[k\] or leaves. The policy re-decides at every change of
//! state, as a preemptive-resume policy does; exponential service makes the
//! preempted work irrelevant. Time averages are step averages (each step
//! lasts 1/Λ on average), and the time of step i is taken as i/Λ.
//!
//! Common random numbers: every event draws one word from the *system*
//! stream to choose the event, and every potential service one more word to
//! decide completion and routing, whatever the policy does with it. So the
//! sequence of arrivals and of potential services, and the word each service
//! reads, are the same for every policy at a point; only what a policy does
//! with them differs. No policy here draws from the policy stream (their
//! ties are broken deterministically).

use super::alloc::Allocator;
use super::config::SpnConfig;
use crate::stability::{Stability, Trace, stability};
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
    /// Measured time (the horizon less the warm-up).
    pub measured_time: f64,
    /// Events of the uniformised chain in the measured window.
    pub steps: u64,
    /// Exogenous arrivals to each buffer in the measured window.
    pub arrivals: Vec<u64>,
    /// Service completions of each activity in the measured window.
    pub completions: Vec<u64>,
    /// Time-averaged Z_j, jobs in each buffer (in service included).
    pub mean_jobs: Vec<f64>,
    /// Σ_j of those: the time-averaged total jobs.
    pub mean_total: f64,
    /// For each weight vector w of `workload` in the configuration, the
    /// time-averaged workload Σ_j w_j Z_j.
    pub mean_workload: Vec<f64>,
    /// Jobs in the network at the end.
    pub in_system_end: u64,
    /// The sample path: the times (i/Λ for the step i recorded) of the
    /// `path_points` equally spaced points over the whole horizon, warm-up
    /// included, from 0 to the horizon.
    pub path_times: Vec<f64>,
    /// Total jobs at those times.
    pub path: Vec<u64>,
    /// OLS slope of the total jobs against time over the second half of the
    /// measured window, every step counted: jobs per unit time (to compare
    /// with a fluid model's growth rate; ≈ 0 when stable).
    pub growth: f64,
    /// Batch means of the total jobs over the measured window.
    pub trace: Vec<f64>,
    /// Whether the total settled (a trend test over the second half).
    pub stability: Stability,
}

/// 2⁶³: thresholds are compared with the top 63 bits of a word.
const TWO63: f64 = 9_223_372_036_854_775_808.0;

/// Runs replication `r` of `cfg`: a pure function of (cfg, seeds, r).
///
/// # Panics
/// If `cfg` does not validate; call [`SpnConfig::validate`] first.
pub fn run_spn(cfg: &SpnConfig, seeds: &Seeds, r: u64) -> SpnSummary {
    if let Err(e) = cfg.validate() {
        panic!("invalid network: {e}");
    }
    let nb = cfg.buffers();
    let ns = cfg.stations;
    let na = cfg.activities.len();
    let top = cfg.top_rates();
    // Events: arrivals to each buffer, then potential services at each station.
    let rates: Vec<f64> = cfg.arrivals.iter().chain(&top).copied().collect();
    let lambda: f64 = rates.iter().sum();
    let mut acc = 0.0;
    let cum: Vec<u64> = rates
        .iter()
        .map(|&x| {
            acc += x;
            ((acc / lambda).min(1.0) * TWO63) as u64
        })
        .collect();
    // Per activity, the outcomes of a potential service: (threshold, where
    // the job goes) with `None` for leaving; a word at or above the last
    // threshold completes nothing.
    let outcomes: Vec<Vec<(u64, Option<usize>)>> = cfg
        .activities
        .iter()
        .enumerate()
        .map(|(a, act)| {
            let ratio = act.rate / top[act.station];
            let mut c = 0.0;
            let mut v: Vec<(u64, Option<usize>)> = act
                .routing
                .iter()
                .map(|route| {
                    c += route.probability;
                    ((c.min(1.0) * ratio * TWO63) as u64, Some(route.buffer))
                })
                .collect();
            if cfg.exit_probability(a) > 0.0 {
                v.push(((ratio * TWO63) as u64, None));
            } else if let Some(last) = v.last_mut() {
                // Routing sums to 1 within tolerance: no exit, and the last
                // route takes what rounding leaves.
                last.0 = (ratio * TWO63) as u64;
            }
            v
        })
        .collect();
    let buffer_of: Vec<usize> = cfg.activities.iter().map(|a| a.buffer).collect();

    let mut st = Streams::new(seeds, r, 0);
    let (steps, warm) = cfg.steps();
    let window = steps - warm;
    let half = warm + window / 2;
    let mut alloc = Allocator::new(cfg);
    let ordered = alloc.ordered();
    let mut current: Vec<Option<usize>> = vec![None; ns];
    let mut current_fifo: Vec<Option<(usize, usize)>> = vec![None; ns];
    let mut dirty = true;

    let mut z = vec![0u64; nb];
    let mut queues: Vec<VecDeque<u64>> = vec![VecDeque::new(); nb];
    let mut stamp = 0u64;
    let mut jobs = 0u64;
    // Time integrals of Z_j over the window, kept lazily: area_j holds the
    // steps up to since_j.
    let mut area = vec![0u128; nb];
    let mut since = vec![0u64; nb];
    let mut arrivals = vec![0u64; nb];
    let mut completions = vec![0u64; na];
    let mut trace = Trace::new(window, cfg.run.batches);
    // OLS over the second half: Σ jobs and Σ i·jobs, i from 0.
    let (mut s0, mut s1) = (0u128, 0u128);
    // The sample path's steps: round(i·steps/(P − 1)).
    let pp = cfg.path_points as u64;
    let path_steps: Vec<u64> = (0..pp)
        .map(|i| {
            ((2 * i as u128 * steps as u128 + (pp - 1) as u128) / (2 * (pp - 1) as u128)) as u64
        })
        .collect();
    let mut path = Vec::with_capacity(pp as usize);
    let mut next_point = 0usize;

    // Z_j goes up or down by one at `step`: settle its area first (Z_j held
    // its old value from since_j through `step`).
    let change =
        |z: &mut [u64], area: &mut [u128], since: &mut [u64], j: usize, up: bool, step: u64| {
            if step >= warm {
                area[j] += z[j] as u128 * (step + 1 - since[j]) as u128;
                since[j] = step + 1;
            }
            if up {
                z[j] += 1;
            } else {
                z[j] -= 1;
            }
        };

    for step in 0..steps {
        if step == warm {
            since.fill(warm);
        }
        while next_point < path_steps.len() && path_steps[next_point] == step {
            path.push(jobs);
            next_point += 1;
        }
        let measuring = step >= warm;
        if measuring {
            trace.add(step - warm, jobs);
            if step >= half {
                s0 += jobs as u128;
                s1 += (step - half) as u128 * jobs as u128;
            }
        }
        let u = st.arrivals.next_u64() >> 1;
        let e = cum.iter().position(|&c| u < c).unwrap_or(rates.len() - 1);
        if e < nb {
            change(&mut z, &mut area, &mut since, e, true, step);
            if ordered {
                queues[e].push_back(stamp);
                stamp += 1;
            }
            jobs += 1;
            arrivals[e] += measuring as u64;
            dirty = true;
            continue;
        }
        let s = e - nb;
        // Drawn whatever the policy does, for common random numbers.
        let v = st.arrivals.next_u64() >> 1;
        if dirty {
            if ordered {
                alloc.fifo(&queues, &mut current_fifo);
            } else {
                alloc.by_counts(&z, &mut current);
            }
            dirty = false;
        }
        let (a, pos) = if ordered {
            match current_fifo[s] {
                Some(x) => x,
                None => continue,
            }
        } else {
            match current[s] {
                Some(a) => (a, 0),
                None => continue,
            }
        };
        let Some(&(_, to)) = outcomes[a].iter().find(|&&(c, _)| v < c) else {
            continue;
        };
        let j = buffer_of[a];
        change(&mut z, &mut area, &mut since, j, false, step);
        if ordered {
            queues[j].remove(pos);
        }
        completions[a] += measuring as u64;
        match to {
            Some(k) => {
                change(&mut z, &mut area, &mut since, k, true, step);
                if ordered {
                    queues[k].push_back(stamp);
                    stamp += 1;
                }
            }
            None => jobs -= 1,
        }
        dirty = true;
    }
    while next_point < path_steps.len() {
        path.push(jobs);
        next_point += 1;
    }
    for j in 0..nb {
        area[j] += z[j] as u128 * (steps - since[j].max(warm)) as u128;
    }

    let w = window as f64;
    let mean_jobs: Vec<f64> = area.iter().map(|&a| a as f64 / w).collect();
    let mean_workload = cfg
        .workload
        .iter()
        .map(|wt| wt.iter().zip(&mean_jobs).map(|(x, m)| x * m).sum())
        .collect();
    // OLS slope per step: Σ(i − ī)·y / Σ(i − ī)², with ī = (n − 1)/2, the
    // numerator 2Σ i·y − (n − 1)Σ y taken exactly in integers.
    let n = steps - half;
    let growth = if n >= 2 {
        let num2 = 2 * s1 as i128 - (n as i128 - 1) * s0 as i128;
        let nf = n as f64;
        let sxx = nf * (nf * nf - 1.0) / 12.0;
        num2 as f64 / 2.0 / sxx * lambda
    } else {
        0.0
    };
    let trace = trace.means();
    SpnSummary {
        replication: r,
        measured_time: w / lambda,
        steps: window,
        arrivals,
        completions,
        mean_total: mean_jobs.iter().sum(),
        mean_jobs,
        mean_workload,
        in_system_end: jobs,
        path_times: path_steps.iter().map(|&i| i as f64 / lambda).collect(),
        path,
        growth,
        stability: stability(&trace),
        trace,
    }
}
