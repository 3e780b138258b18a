//! Stochastic processing networks and max-pressure (docs/MODEL.md §3), in the
//! general form of Dai and Lin (2005), §2: buffers j with exogenous Poisson
//! arrivals λ_j, stations s, and processing activities a, each using one
//! station to serve jobs of one buffer at an exponential rate μ_a and routing
//! each finished job to buffer k with probability P_a\[k\] or out.
//! Preemptive-resume. A buffer may be served by several activities at
//! several stations (parallel-server systems such as the N-network); a
//! multiclass network is the case of one activity per buffer.
//!
//! - [`SpnConfig`]: the network, the policy ([`SpnPolicy`]: max-pressure,
//!   static priority, own-buffer-first, FIFO), the run, workload weights and
//!   the sample path's resolution; [`SpnConfig::validate`] names the field
//!   at fault.
//! - [`allocate`], [`allocate_fifo`], [`pressures`]: what each station runs
//!   in a given state — the policies themselves, testable directly.
//! - [`run_spn`]: the uniformised chain and what a run measures
//!   ([`SpnSummary`]).
//! - [`rybko_stolyar`], [`lu_kumar`], [`n_network`]: the networks of the
//!   literature, with their unstable priorities, fluid growth rates and
//!   workloads documented.

mod alloc;
mod config;
mod networks;
mod sim;

pub use alloc::{allocate, allocate_fifo, pressures};
pub use config::{
    Activity, DEFAULT_PATH_POINTS, MAX_SEARCH, PROB_TOL, Route, SpnConfig, SpnPolicy,
};
pub use networks::{lu_kumar, n_network, n_network_reference_workload, rybko_stolyar};
pub use sim::{SpnSummary, run_spn};

/// The network engine's model version, part of each of its points' keys
/// (see [`crate::MODEL_VERSION`]).
pub const MODEL_VERSION: u32 = 1;
