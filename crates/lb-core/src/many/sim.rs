//! The many-server run (docs/MODEL.md §2): the uniformised chain of the continuous-time
//! system.
//!
//! Events come at total rate (1 + λ)N: with probability λ/(1 + λ) an arrival,
//! else a *potential* departure at a uniformly random server, real if that
//! server is busy. The embedded chain of these events has the stationary law
//! of the continuous-time system and each step lasts 1/((1 + λ)N) on average,
//! so time averages are step averages (no exponential clocks to draw, and less
//! variance).
//!
//! Common random numbers: the event sequence — which events are arrivals, which
//! server a potential departure hits, and under a graph which server a task
//! arrives at — comes from the *system* stream; the policy's own choices
//! (sampling, ties) from the *policy* stream.

use super::classes::Classes;
use super::config::{GraphSpec, ManyConfig, ManyPolicy};
use super::graph::Graph;
use super::pod::pod;
use crate::stability::{Stability, Trace, stability};
use crate::streams::below;
use crate::streams::bernoulli;
use crate::streams::{Seeds, StreamRng, Streams, setup_stream};
use rand::RngCore;
use serde::{Deserialize, Serialize};

/// What one replication of a many-server run measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManySummary {
    /// The replication index r.
    pub replication: u64,
    /// Measured time (units of the mean service time).
    pub measured_time: f64,
    /// Events of the uniformised chain in the measured window.
    pub steps: u64,
    /// Arrivals in the measured window.
    pub arrivals: u64,
    /// Of those, lost at a full server.
    pub lost: u64,
    /// Of those, sent to a server that was not idle (lost ones included).
    pub to_busy: u64,
    /// S_i for i = 1, 2, …: the time-averaged fraction of servers with at
    /// least i jobs (Liu and Ying), up to the last non-zero one.
    pub occupancy: Vec<f64>,
    /// Σ_i S_i: the mean number of jobs per server.
    pub mean_jobs: f64,
    /// lost / arrivals.
    pub loss_fraction: Option<f64>,
    /// to_busy / arrivals: the probability that a job is routed to a non-idle
    /// server (Liu and Ying: → 0 for JSQ, I1F, JIQ, Pod(N^α log N)).
    pub p_to_busy: Option<f64>,
    /// Mean response time by Little's law: jobs in system / admitted rate.
    pub mean_response: Option<f64>,
    /// With a buffer b ≥ 2: the time average of max{Σ_{i≤b} S_i(t) − λ −
    /// k·ln N/√N, 0}, k = 1 + 1/(2(b − 1)), read on the instantaneous
    /// occupancy (Σ_{i≤b} S_i(t) is the jobs in system over N): the quantity
    /// whose mean Liu and Ying bound by 29b/(√N·ln N). None without a buffer
    /// or with b = 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shw_excess: Option<f64>,
    /// Batch means of the jobs per server over the measured window.
    pub trace: Vec<f64>,
    /// Whether the jobs in system settled (a trend test over the second half).
    pub stability: Stability,
}

/// Runs replication `r` of `cfg`: a pure function of (cfg, seeds, r).
///
/// # Panics
/// If `cfg` does not validate; call [`ManyConfig::validate`] first.
pub fn run_many(cfg: &ManyConfig, seeds: &Seeds, r: u64) -> ManySummary {
    if let Err(e) = cfg.validate() {
        panic!("invalid many-server configuration: {e}");
    }
    let n = cfg.servers;
    let mut st = Streams::new(seeds, r, 0);
    let rate = (1.0 + cfg.lambda) * n as f64;
    let (steps, warm) = cfg.steps();
    let window = steps - warm;
    let arrival = (cfg.lambda / (1.0 + cfg.lambda) * 9_223_372_036_854_775_808.0) as u64;
    let mut classes = Classes::new(n, cfg.buffer);
    let mut trace = Trace::new(window, cfg.run.batches);
    let (mut arrivals, mut lost, mut to_busy, mut jobs) = (0u64, 0u64, 0u64, 0u64);
    let full = classes.full();
    // Liu and Ying's excess: jobs above the threshold T = N(λ + k ln N/√N),
    // summed exactly in integers over the measured steps as Σ (jobs − ⌊T⌋)
    // over the steps with jobs > ⌊T⌋, less (T − ⌊T⌋) for each such step.
    let threshold = cfg.buffer.filter(|&b| b >= 2).map(|b| {
        let t = super::theory::sub_halfin_whitt_threshold(n, cfg.lambda, b) * n as f64;
        (t.floor() as u64, t - t.floor())
    });
    let floor = threshold.map_or(u64::MAX, |(m, _)| m);
    let (mut over, mut over_steps) = (0u128, 0u64);

    let mut router = Router::new(cfg, &mut setup_stream(seeds, r));
    for step in 0..steps {
        let measuring = step >= warm;
        if step == warm {
            classes.open_window(step);
        }
        if measuring {
            trace.add(step - warm, jobs);
            if jobs > floor {
                over += u128::from(jobs - floor);
                over_steps += 1;
            }
        }
        let sys = &mut st.arrivals;
        if bernoulli(arrival, sys.next_u64()) == 1 {
            // The server the task arrives at (Mukherjee, Borst and van Leeuwaarden: its own stream) is
            // drawn for every policy, so that all policies read the same
            // system words; only a graph router looks at it.
            let at = below(sys, n);
            let k = router.route(&classes, at, &mut st.policy);
            if measuring {
                arrivals += 1;
                to_busy += (k > 0) as u64;
            }
            if Some(k) == full {
                lost += measuring as u64;
            } else {
                router.joined();
                classes.up(k, step);
                jobs += 1;
            }
        } else {
            let v = below(sys, n);
            if let Some(k) = router.depart(&classes, v as u64) {
                classes.down(k, step);
                jobs -= 1;
            }
        }
    }

    let counts = classes.mean_counts(steps, window);
    let mut occupancy: Vec<f64> = (1..counts.len())
        .map(|i| counts[i..].iter().sum::<f64>() / n as f64)
        .collect();
    while occupancy.last() == Some(&0.0) {
        occupancy.pop();
    }
    let mean_jobs: f64 = occupancy.iter().sum();
    let measured_time = window as f64 / rate;
    let admitted = arrivals - lost;
    let trace: Vec<f64> = trace.means().iter().map(|x| x / n as f64).collect();
    ManySummary {
        replication: r,
        measured_time,
        steps: window,
        arrivals,
        lost,
        to_busy,
        mean_jobs,
        loss_fraction: (arrivals > 0).then(|| lost as f64 / arrivals as f64),
        p_to_busy: (arrivals > 0).then(|| to_busy as f64 / arrivals as f64),
        mean_response: (admitted > 0)
            .then(|| mean_jobs * n as f64 / (admitted as f64 / measured_time)),
        shw_excess: threshold.map(|(_, frac)| {
            ((over as f64 - over_steps as f64 * frac) / (window as f64 * n as f64)).max(0.0)
        }),
        stability: stability(&trace),
        trace,
        occupancy,
    }
}

/// The dispatcher's state: nothing for the exchangeable policies, which act on
/// the occupancy alone; each server's queue and the graph under a topology.
enum Router {
    /// JSQ, JIQ, I1F, Pod(d), Random on the occupancy.
    Exchangeable { policy: ManyPolicy, d: u64, n: u64 },
    /// Mukherjee, Borst and van Leeuwaarden: the queues, the graph, and the last server chosen.
    Graph {
        graph: Graph,
        q: Vec<u32>,
        chosen: usize,
    },
}

impl Router {
    fn new(cfg: &ManyConfig, sys: &mut StreamRng) -> Router {
        let n = cfg.servers;
        match cfg.policy {
            // On the clique, the shortest queue among all servers: JSQ.
            ManyPolicy::Graph {
                graph: GraphSpec::Clique,
            } => Router::Exchangeable {
                policy: ManyPolicy::Jsq,
                d: 0,
                n: n as u64,
            },
            ManyPolicy::Graph { graph } => Router::Graph {
                graph: Graph::build(&graph, n, sys),
                q: vec![0; n],
                chosen: 0,
            },
            policy => Router::Exchangeable {
                policy,
                d: match policy {
                    ManyPolicy::Pod { d } => d.resolve(n) as u64,
                    _ => 0,
                },
                n: n as u64,
            },
        }
    }

    /// The class (queue length) of the server an arriving job is sent to.
    fn route(&mut self, c: &Classes, at: usize, pol: &mut StreamRng) -> usize {
        match self {
            Router::Exchangeable { policy, d, n } => {
                let uniform = |c: &Classes, pol: &mut StreamRng| {
                    c.class_of_rank(below(pol, *n as usize) as u64)
                };
                match policy {
                    ManyPolicy::Jsq => c.min(),
                    ManyPolicy::Jiq if c.count(0) > 0 => 0,
                    ManyPolicy::I1f if c.count(0) > 0 => 0,
                    ManyPolicy::I1f if c.count(1) > 0 => 1,
                    ManyPolicy::Jiq | ManyPolicy::I1f | ManyPolicy::Random => uniform(c, pol),
                    ManyPolicy::Pod { .. } => pod(c, *d, *n, || pol.next_u64()),
                    ManyPolicy::Graph { .. } => unreachable!("graphs route per server"),
                }
            }
            Router::Graph { graph, q, chosen } => {
                let v = at;
                // The shortest queue among v and its neighbours, ties uniform
                // (reservoir sampling over the candidates in order).
                let (mut best, mut bq, mut ties) = (v, q[v], 1u32);
                for &w in graph.neighbours(v) {
                    let w = w as usize;
                    if q[w] < bq {
                        (best, bq, ties) = (w, q[w], 1);
                    } else if q[w] == bq {
                        ties += 1;
                        if below(pol, ties as usize) == 0 {
                            best = w;
                        }
                    }
                }
                *chosen = best;
                bq as usize
            }
        }
    }

    /// The routed job joined (it was not lost).
    fn joined(&mut self) {
        if let Router::Graph { q, chosen, .. } = self {
            q[*chosen] += 1;
        }
    }

    /// A potential departure at the server of rank (exchangeable) or index
    /// (graph) `v`: the class it leaves, if the server is busy.
    fn depart(&mut self, c: &Classes, v: u64) -> Option<usize> {
        match self {
            Router::Exchangeable { .. } => {
                // Rank v among servers listed by class: a uniformly random server.
                let k = c.class_of_rank(v);
                (k > 0).then_some(k)
            }
            Router::Graph { q, .. } => {
                let s = &mut q[v as usize];
                (*s > 0).then(|| {
                    *s -= 1;
                    *s as usize + 1
                })
            }
        }
    }
}
