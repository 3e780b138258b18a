//! The many-server continuous-time model (docs/MODEL.md §2; seeds 003 and 004):
//! N exponential servers of rate 1, Poisson arrivals of total rate λN, an
//! optional buffer b per server, and the occupancy S_i — the fraction of
//! servers with at least i jobs — as the object of study.
//!
//! - [`config`]: the resolved configuration — JSQ, JIQ, I1F, Pod(d) with d
//!   fixed or ⌈N^α ln N⌉, Random, and the graph topologies of Mukherjee, Borst and van Leeuwaarden.
//! - [`classes`]: the occupancy (n_k, servers with exactly k jobs), on which the
//!   exchangeable policies act in O(log K) per event whatever N.
//! - [`graph`]: G_N — clique, Erdős–Rényi, random regular, ring, torus.
//! - [`pod`]: Power-of-d's choice drawn from its closed-form law on the
//!   occupancy, O(occupied classes) per arrival whatever d.
//! - [`sim`]: the uniformised chain and what a run measures.
//! - [`theory`]: the exact results the tests hold it to.

pub mod classes;
pub mod config;
pub mod graph;
pub mod pod;
pub mod sim;
pub mod theory;

pub use config::{ConfigError, ConfigField, GraphSpec, ManyConfig, ManyPolicy, PodD, TimeRun};
pub use sim::{ManySummary, run_many};

/// The many-server engine's model version, part of each of its points' keys
/// (see [`crate::MODEL_VERSION`]); what each version changed is in
/// CHANGELOG.md ("Model versions"). Power-of-d draws the class of the
/// shortest of its d servers by inversion ([`pod::pod_class`]).
pub const MODEL_VERSION: u32 = 5;
