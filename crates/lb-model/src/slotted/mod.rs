//! The slotted LED model of Zhou, Shroff and Wierman at run time: its metrics
//! and named references ([`metrics`]), what a replication costs ([`cost`]),
//! what a record must satisfy ([`consistency`]), message-budget calibrations
//! ([`calibrate`]) and the system part that seeds its common random numbers.

pub mod calibrate;
pub mod consistency;
pub mod cost;
pub mod metrics;

use crate::model::SystemHead;
use lb_core::slotted::{RunLength, SlottedConfig, SystemConfig};
use serde::Serialize;

/// The system part of a slotted point: model, model version, profile, master
/// seed, the laws A_m and S_n, and the run length. Every policy at a point
/// (and every `granularity` or `count_own` setting, which change how jobs are
/// placed but not when they arrive or how much service is offered) sees the
/// same A_m(t) and S_n(t).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemPart<'a> {
    #[serde(flatten)]
    /// Model, engine version, profile and seed.
    pub head: SystemHead,
    /// The arrival and service laws.
    pub system: &'a SystemConfig,
    /// The run's length in slots.
    pub run: &'a RunLength,
}

/// The system part of a point with head `head` and configuration `c`.
pub fn system_part<'a>(head: SystemHead, c: &'a SlottedConfig) -> SystemPart<'a> {
    SystemPart {
        head,
        system: &c.system,
        run: &c.run,
    }
}
