//! Stochastic processing networks and max-pressure (SPEC §3; seed 003,
//! Dai and Lin): a multiclass queueing network whose stations choose, at
//! every instant, which class to serve (preemptive-resume), under
//! max-pressure, a static priority or FIFO.
//!
//! - [`SpnConfig`]: the classes (station, service rate, next class, exogenous
//!   arrival rate), the policy, the run length; [`rybko_stolyar`] builds the
//!   network of SPEC §3.
//! - [`run_spn`]: the uniformised chain and what a run measures.

mod sim;

pub use sim::{SpnSummary, run_spn};

use crate::many::TimeRun;
use serde::{Deserialize, Serialize};

/// One class k: served at `station` at rate μ_k, then joins class `next` or
/// leaves; exogenous Poisson arrivals at rate `arrival`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassSpec {
    /// The station that serves the class.
    pub station: usize,
    /// μ_k = 1 / mean service time.
    pub rate: f64,
    /// The class a job joins after service here; `None`: it leaves.
    #[serde(default)]
    pub next: Option<usize>,
    /// Exogenous arrival rate λ_k (0 for classes fed only by routing).
    #[serde(default)]
    pub arrival: f64,
}

/// Which class a station serves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "name", deny_unknown_fields)]
pub enum SpnPolicy {
    /// Dai–Lin: the non-empty class k of the station maximising
    /// μ_k (Z_k − Z_next(k)) (Z_next = 0 when the job leaves), if that is
    /// positive; else the station idles. Ties to the lowest class index. Uses no
    /// arrival rates.
    #[serde(rename = "max-pressure")]
    MaxPressure,
    /// A fixed order per station, highest priority first: `order[s]` lists the
    /// classes of station s.
    #[serde(rename = "priority")]
    Priority {
        /// Per station, its classes from the highest priority down.
        order: Vec<Vec<usize>>,
    },
    /// First in, first out at each station, across its classes.
    #[serde(rename = "FIFO")]
    Fifo,
}

/// A network, a policy and a run length.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpnConfig {
    /// The classes, by index k.
    pub classes: Vec<ClassSpec>,
    /// The stations' policy.
    pub policy: SpnPolicy,
    /// Run length, in time units of the rates.
    pub run: TimeRun,
}

impl SpnConfig {
    /// The number of stations (one more than the largest station index).
    pub fn stations(&self) -> usize {
        self.classes
            .iter()
            .map(|c| c.station + 1)
            .max()
            .unwrap_or(0)
    }

    /// The load ρ_s = Σ_{k at s} λ̄_k / μ_k of each station, with λ̄ the total
    /// arrival rate of each class (exogenous plus routed).
    pub fn loads(&self) -> Vec<f64> {
        // Routes leave the network (validated), so pushing each class's
        // exogenous flow down its route gives the totals.
        let mut total = vec![0.0; self.classes.len()];
        for (k, class) in self.classes.iter().enumerate() {
            let mut j = Some(k);
            while let Some(c) = j {
                total[c] += class.arrival;
                j = self.classes[c].next;
            }
        }
        let mut rho = vec![0.0; self.stations()];
        for (c, &t) in self.classes.iter().zip(&total) {
            rho[c.station] += t / c.rate;
        }
        rho
    }

    /// Checks the network and the policy; the message names the field.
    pub fn validate(&self) -> Result<(), String> {
        let k = self.classes.len();
        if k == 0 {
            return Err("classes: at least one class is needed".into());
        }
        for (i, c) in self.classes.iter().enumerate() {
            if !(c.rate.is_finite() && c.rate > 0.0) {
                return Err(format!("classes[{i}].rate must be > 0, got {}", c.rate));
            }
            if !(c.arrival.is_finite() && c.arrival >= 0.0) {
                return Err(format!(
                    "classes[{i}].arrival must be ≥ 0, got {}",
                    c.arrival
                ));
            }
            if let Some(n) = c.next {
                if n >= k {
                    return Err(format!("classes[{i}].next = {n} is not a class (0..{k})"));
                }
            }
            // Routes must leave the network: follow next at most k steps.
            let mut j = c.next;
            for _ in 0..=k {
                match j {
                    Some(n) => j = self.classes[n].next,
                    None => break,
                }
            }
            if j.is_some() {
                return Err(format!("classes[{i}]: its route never leaves the network"));
            }
        }
        if self.classes.iter().all(|c| c.arrival == 0.0) {
            return Err("classes: no class has exogenous arrivals".into());
        }
        if let SpnPolicy::Priority { order } = &self.policy {
            if order.len() != self.stations() {
                return Err(format!(
                    "policy.order needs one list per station ({}), got {}",
                    self.stations(),
                    order.len()
                ));
            }
            for (s, list) in order.iter().enumerate() {
                let mut want: Vec<usize> =
                    (0..k).filter(|&i| self.classes[i].station == s).collect();
                let mut got = list.clone();
                want.sort_unstable();
                got.sort_unstable();
                if got != want {
                    return Err(format!(
                        "policy.order[{s}] must list station {s}'s classes {want:?} once each, got {list:?}"
                    ));
                }
            }
        }
        self.run.check(self.event_rate())
    }

    /// μ̄_s, the largest service rate at each station: the rate of its
    /// potential services in the uniformised chain.
    pub fn top_rates(&self) -> Vec<f64> {
        (0..self.stations())
            .map(|s| {
                self.classes
                    .iter()
                    .filter(|c| c.station == s)
                    .map(|c| c.rate)
                    .fold(0.0, f64::max)
            })
            .collect()
    }

    /// Λ = Σ_k λ_k + Σ_s μ̄_s: the uniformised chain's event rate.
    pub fn event_rate(&self) -> f64 {
        self.classes.iter().map(|c| c.arrival).sum::<f64>() + self.top_rates().iter().sum::<f64>()
    }

    /// Events of the uniformised chain in the run and in its warm-up.
    pub fn steps(&self) -> (u64, u64) {
        self.run.steps(self.event_rate())
    }
}

/// The Rybko–Stolyar network of SPEC §3 scaled to load ρ at each station:
/// route A is class 0 at station 0 then class 1 at station 1; route B is
/// class 2 at station 1 then class 3 at station 0; λ_A = λ_B = 1, mean service
/// times 0.1 and 0.6 times ρ / 0.7 (so ρ = 0.7 is the seed's 0.1 and 0.6).
/// Classes are numbered from 0 (the SPEC's classes 1–4).
pub fn rybko_stolyar(load: f64, policy: SpnPolicy, run: TimeRun) -> SpnConfig {
    let s = load / 0.7;
    let class = |station, mean: f64, next, arrival| ClassSpec {
        station,
        rate: 1.0 / (mean * s),
        next,
        arrival,
    };
    SpnConfig {
        classes: vec![
            class(0, 0.1, Some(1), 1.0),
            class(1, 0.6, None, 0.0),
            class(1, 0.1, Some(3), 1.0),
            class(0, 0.6, None, 0.0),
        ],
        policy,
        run,
    }
}
