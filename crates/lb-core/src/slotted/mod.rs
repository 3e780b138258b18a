//! The slotted multi-dispatcher model of Zhou, Shroff and Wierman's
//! Local-Estimation-Driven (LED) framework (docs/MODEL.md §1): M dispatchers, N
//! heterogeneous servers with FIFO queues, time in slots, dispatching on stale
//! local estimates Q̃_mn (L-JSQ, L-JBA, L-Pod × Push, Pull), against the
//! full-information and memoryless baselines (JSQ, Power-of-d, JIQ, weighted
//! random, random).
//!
//! A run is a pure function [`run`] of a resolved [`SlottedConfig`], the
//! [`Seeds`] and a replication index.

pub mod argmin;
pub mod blocks;
pub mod buckets;
pub mod config;
pub mod estimation;
pub mod fifo;
pub mod histogram;
pub mod jsq_pair;
pub mod law;
pub mod observer;
pub mod order;
pub mod policy;
pub mod pooled;
pub mod preference;
pub mod sampling;
pub mod scan;
pub mod service;
pub mod sim;
pub mod summary;
pub mod theory;

pub use crate::stability::Stability;
pub use crate::streams::Seeds;
pub use config::{
    Advance, Behaviour, Granularity, JIQ_SPREAD_REVISION, LSQ_REVISION, LedDispatch, LedUpdate,
    POLICY_KINDS, PUSH_REVISION, PolicyConfig, PushWhen, RunLength, SlottedConfig, SystemConfig,
    TieBreak, Traits, WarmupRule, Weights,
};
pub use law::Law;
pub use sim::run;
pub use summary::{RunSummary, point_unstable};
