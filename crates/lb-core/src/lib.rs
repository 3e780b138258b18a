//! # lb-core — the models and policies of lb
//!
//! The slotted multi-dispatcher model of Zhou, Shroff and Wierman's
//! Local-Estimation-Driven (LED) framework (seed `000`; `SPEC.md` §1):
//! M dispatchers, N heterogeneous servers with FIFO queues, dispatching on
//! stale local estimates Q̃_mn (L-JSQ, L-JBA, L-Pod × Push, Pull), against the
//! full-information and memoryless baselines (JSQ, Power-of-d, JIQ, weighted
//! random, random).
//!
//! No I/O here: a run is a pure function [`run`] of a resolved
//! [`SlottedConfig`], the [`Seeds`] and a replication index.
//!
//! ```
//! use lb_core::{Law, PolicyConfig, RunLength, Seeds, SlottedConfig, SystemConfig};
//! let cfg = SlottedConfig {
//!     system: SystemConfig {
//!         arrivals: vec![Law::Bernoulli { p: 0.3 }],
//!         service: vec![Law::Bernoulli { p: 0.5 }],
//!     },
//!     policy: PolicyConfig::Random,
//!     granularity: Default::default(),
//!     count_own: true,
//!     run: RunLength { slots: 10_000, warmup: 1_000, batches: 32, warmup_rule: Default::default() },
//! };
//! let s = lb_core::run(&cfg, &Seeds::from_u64(1, 2), 0);
//! assert!(s.stability.stable);
//! ```

#![warn(missing_docs)]

pub mod argmin;
pub mod buckets;
pub mod config;
pub mod fifo;
pub mod histogram;
pub mod law;
pub mod many;
pub mod metrics;
pub mod policy;
pub mod sampling;
pub mod sim;
pub mod spn;
pub mod streams;
pub mod theory;

pub use config::{
    Granularity, LedDispatch, LedUpdate, PolicyConfig, PushWhen, RunLength, SlottedConfig,
    SystemConfig, TieBreak, WarmupRule,
};
pub use law::Law;
pub use metrics::{RunSummary, Stability};
pub use sim::run;
pub use streams::Seeds;

/// The engine's model version. It is part of every result's key: bump it
/// whenever a change to this crate can change a simulated number, so that
/// cached results are recomputed rather than silently mixed.
pub const MODEL_VERSION: u32 = 3;
