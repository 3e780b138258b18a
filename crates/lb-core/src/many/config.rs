//! The resolved configuration of a many-server run (docs/MODEL.md §2; seeds 003, 004).

use serde::{Deserialize, Serialize};

/// N exponential servers of rate 1 fed by Poisson arrivals of total rate λN.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManyConfig {
    /// N.
    pub servers: usize,
    /// λ, the arrival rate per server (load); total rate λN.
    pub lambda: f64,
    /// b: at most b jobs at a server, in service included; a job sent to a full
    /// server is lost and counted. `None`: unbounded (then λ < 1 is required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<u32>,
    /// Where an arriving job goes.
    pub policy: ManyPolicy,
    /// Run length, in units of the mean service time.
    pub run: TimeRun,
}

/// Dispatching in the many-server model (docs/MODEL.md §2).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "name", deny_unknown_fields)]
pub enum ManyPolicy {
    /// Join the shortest queue (ties uniform).
    #[serde(rename = "JSQ")]
    Jsq,
    /// Join an idle queue if any, else a uniformly random one.
    #[serde(rename = "JIQ")]
    Jiq,
    /// Idle-one-first (Liu and Ying): an idle server if any, else a server with
    /// exactly one job if any, else a uniformly random one.
    #[serde(rename = "I1F")]
    I1f,
    /// Power-of-d: the shortest of d servers sampled without replacement.
    #[serde(rename = "Pod")]
    Pod {
        /// d, fixed or growing with N.
        d: PodD,
    },
    /// A uniformly random server.
    Random,
    /// Mukherjee, Borst and van Leeuwaarden: every server receives its
    /// own Poisson(λ) stream, and a task joins the shortest queue among that
    /// server and its neighbours in G_N (ties uniform).
    Graph {
        /// G_N.
        graph: GraphSpec,
    },
}

/// d for Power-of-d.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
pub enum PodD {
    /// A fixed d.
    Fixed {
        /// d.
        d: usize,
    },
    /// d = ⌈N^α · ln N⌉ (Liu and Ying), capped at N.
    Scaled {
        /// α.
        alpha: f64,
    },
    /// d = ⌈N^α⌉, without Liu and Ying's ln N: just outside their class
    /// (it misses an idle server with probability about λ^d → e^(−1) at
    /// λ = 1 − N^(−α)), the null of a claim about the class.
    Power {
        /// α.
        alpha: f64,
    },
}

impl PodD {
    /// d for N servers.
    pub fn resolve(&self, n: usize) -> usize {
        match *self {
            PodD::Fixed { d } => d,
            PodD::Scaled { alpha } => {
                let x = (n as f64).powf(alpha) * (n as f64).ln();
                (x.ceil().max(1.0) as usize).min(n)
            }
            PodD::Power { alpha } => {
                let x = (n as f64).powf(alpha);
                (x.ceil().max(1.0) as usize).min(n)
            }
        }
    }
}

/// The graph G_N of Mukherjee, Borst and van Leeuwaarden.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum GraphSpec {
    /// Every server a neighbour of every other: JSQ.
    Clique,
    /// Erdős–Rényi: each pair an edge with probability d̄/(N−1).
    ErdosRenyi {
        /// The mean degree d̄ (a number; a manifest may make it a function of N).
        mean_degree: f64,
    },
    /// A uniformly random d-regular graph.
    RandomRegular {
        /// d.
        degree: usize,
    },
    /// A cycle: neighbours v ± 1.
    Ring,
    /// A √N × √N torus: four neighbours.
    Torus,
    /// A bounded-degree periphery around a dense core: the first ⌊N/2⌋
    /// servers on a ring, each also joined to one core server drawn
    /// uniformly (degree 3 on average for the core's side: Θ(N) nodes of
    /// bounded degree), the others an Erdős–Rényi core of mean degree
    /// `core_mean_degree` among themselves.
    RingPeriphery {
        /// The core's mean degree among its own servers (a manifest may make
        /// it a function of N).
        core_mean_degree: f64,
    },
}

/// How long a run lasts, in units of the mean service time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeRun {
    /// Total time simulated.
    pub horizon: f64,
    /// Time discarded at the start.
    pub warmup: f64,
    /// Batches of the measured window, for batch means and the stability test.
    pub batches: u32,
}

impl TimeRun {
    /// Events of a uniformised chain of event rate `rate` in the run and in
    /// its warm-up.
    pub fn steps(&self, rate: f64) -> (u64, u64) {
        (
            (self.horizon * rate).round() as u64,
            (self.warmup * rate).round() as u64,
        )
    }

    /// Checks the run length for a chain of event rate `rate`: 0 ≤ warm-up <
    /// horizon, at least 6 batches, and a measured window of at least one
    /// event per batch.
    pub fn check(&self, rate: f64) -> Result<(), String> {
        if !(self.horizon.is_finite() && self.warmup >= 0.0 && self.horizon > self.warmup) {
            return Err(format!(
                "run needs 0 ≤ warmup < horizon, got warmup {} and horizon {}",
                self.warmup, self.horizon
            ));
        }
        if self.batches < 6 {
            return Err(format!("run.batches must be ≥ 6, got {}", self.batches));
        }
        let (steps, warm) = self.steps(rate);
        let window = steps - warm.min(steps);
        if window < self.batches as u64 {
            return Err(format!(
                "run: the measured window holds {window} events of the uniformised chain, fewer than run.batches = {}; lengthen run.horizon",
                self.batches
            ));
        }
        Ok(())
    }
}

/// The part of a [`ManyConfig`] its check rejects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigField {
    /// N.
    Servers,
    /// λ.
    Lambda,
    /// The buffer.
    Buffer,
    /// Pod's d or α.
    PodD,
    /// The graph.
    Graph,
    /// The run's length, warm-up or batches.
    Run,
}

/// Why [`ManyConfig::validate`] rejects a configuration: the field, and a
/// message that names it and what is allowed.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    /// The part rejected.
    pub field: ConfigField,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl ManyConfig {
    /// Checks the configuration; the error names the field and what is allowed.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let at = |field: ConfigField| move |message: String| ConfigError { field, message };
        let n = self.servers;
        if n == 0 || n > u32::MAX as usize {
            return Err(at(ConfigField::Servers)(format!(
                "servers must be between 1 and 2³², got {n}"
            )));
        }
        if !(self.lambda.is_finite() && self.lambda > 0.0) {
            return Err(at(ConfigField::Lambda)(format!(
                "lambda must be a number > 0, got {}",
                self.lambda
            )));
        }
        match self.buffer {
            None if self.lambda >= 1.0 => {
                return Err(at(ConfigField::Lambda)(format!(
                    "lambda = {} ≥ 1 with an unbounded buffer has no steady state: set lambda < 1 or a buffer",
                    self.lambda
                )));
            }
            Some(0) => {
                return Err(at(ConfigField::Buffer)(
                    "buffer must be ≥ 1 (or left out for unbounded)".into(),
                ));
            }
            _ => {}
        }
        match self.policy {
            ManyPolicy::Pod {
                d: PodD::Fixed { d },
            } if d == 0 || d > n => {
                return Err(at(ConfigField::PodD)(format!(
                    "Pod's d must lie in 1..=N = {n}, got {d}"
                )));
            }
            ManyPolicy::Pod {
                d: PodD::Scaled { alpha } | PodD::Power { alpha },
            } if !(alpha.is_finite() && alpha > 0.0) => {
                return Err(at(ConfigField::PodD)(format!(
                    "Pod's alpha must be a number > 0, got {alpha}"
                )));
            }
            ManyPolicy::Graph { graph } => graph.validate(n).map_err(at(ConfigField::Graph))?,
            _ => {}
        }
        self.run
            .check((1.0 + self.lambda) * self.servers as f64)
            .map_err(at(ConfigField::Run))
    }

    /// Events of the uniformised chain (rate (1 + λ)N) in the run and in
    /// its warm-up.
    pub fn steps(&self) -> (u64, u64) {
        self.run.steps((1.0 + self.lambda) * self.servers as f64)
    }
}

impl GraphSpec {
    fn validate(&self, n: usize) -> Result<(), String> {
        match *self {
            GraphSpec::ErdosRenyi { mean_degree }
                if !(0.0..=(n as f64 - 1.0)).contains(&mean_degree) =>
            {
                Err(format!(
                    "mean_degree must lie in [0, N − 1 = {}], got {mean_degree}",
                    n - 1
                ))
            }
            GraphSpec::RandomRegular { degree } if degree >= n || (n * degree) % 2 == 1 => {
                Err(format!(
                    "a {degree}-regular graph on {n} vertices needs degree < N and N·degree even"
                ))
            }
            GraphSpec::Torus => {
                let side = (n as f64).sqrt().round() as usize;
                if side * side != n || side < 3 {
                    Err(format!(
                        "a torus needs N a square of a side ≥ 3, got N = {n}"
                    ))
                } else {
                    Ok(())
                }
            }
            GraphSpec::Ring if n < 3 => Err(format!("a ring needs N ≥ 3, got {n}")),
            GraphSpec::RingPeriphery { core_mean_degree } => {
                let core = n - n / 2;
                if n / 2 < 3 || core < 2 {
                    Err(format!("a ring periphery needs N ≥ 6, got {n}"))
                } else if !(0.0..=(core as f64 - 1.0)).contains(&core_mean_degree) {
                    Err(format!(
                        "core_mean_degree must lie in [0, {}] (the core has {core} servers), \
                         got {core_mean_degree}",
                        core - 1
                    ))
                } else {
                    Ok(())
                }
            }
            _ => Ok(()),
        }
    }
}
