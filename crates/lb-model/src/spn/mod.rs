//! Stochastic processing networks at run time (Dai and Lin): metrics and
//! references ([`metrics`]), cost, record consistency, the system part and
//! the policies' display names.

pub(crate) mod consistency;
pub(crate) mod cost;
pub(crate) mod metrics;

use crate::model::SystemHead;
use lb_core::many::TimeRun;
use lb_core::spn::{Activity, SpnConfig, SpnPolicy};
use serde::Serialize;

/// The system part of a network point: the network (arrivals, stations,
/// activities, workload weights), the run and the path resolution — all but
/// the policy. Every policy at a point sees the same arrivals and the same
/// potential services.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemPart<'a> {
    #[serde(flatten)]
    pub head: SystemHead,
    pub arrivals: &'a [f64],
    pub stations: usize,
    pub activities: &'a [Activity],
    pub workload: &'a [Vec<f64>],
    pub run: &'a TimeRun,
    pub path_points: u32,
}

/// The system part of a point with head `head` and configuration `c`.
pub(crate) fn system_part<'a>(head: SystemHead, c: &'a SpnConfig) -> SystemPart<'a> {
    SystemPart {
        head,
        arrivals: &c.arrivals,
        stations: c.stations,
        activities: &c.activities,
        workload: &c.workload,
        run: &c.run,
        path_points: c.path_points,
    }
}

/// A network policy's display name.
pub(crate) fn policy_name(p: &SpnPolicy) -> String {
    match p {
        SpnPolicy::MaxPressure => "max-pressure".into(),
        SpnPolicy::Priority { order } => format!("priority {order:?}"),
        SpnPolicy::OwnBufferFirst { own } => format!("own-buffer-first {own:?}"),
        SpnPolicy::Fifo => "FIFO".into(),
    }
}
