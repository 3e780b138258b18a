//! The many-server continuous-time model at run time (Liu and Ying; Mukherjee,
//! Borst and van Leeuwaarden): its metrics and references ([`metrics`]), cost,
//! record consistency, the system part and the policies' display names.

pub mod consistency;
pub mod cost;
pub mod metrics;

use crate::model::SystemHead;
use lb_core::many::{GraphSpec, ManyConfig, ManyPolicy, PodD, TimeRun};
use serde::Serialize;

/// The system part of a many-server point: N, λ, the buffer and the run
/// length — everything but the policy. Every policy at a point reads the
/// same event sequence (which events are arrivals, which server a potential
/// departure hits, where a task arrives).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemPart<'a> {
    #[serde(flatten)]
    /// Model, engine version, profile and seed.
    pub head: SystemHead,
    /// N, the servers.
    pub servers: usize,
    /// λ, the load per server.
    pub lambda: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// b, each server's buffer, where finite.
    pub buffer: Option<u32>,
    /// The run's length in time.
    pub run: &'a TimeRun,
}

/// The system part of a point with head `head` and configuration `c`.
pub fn system_part<'a>(head: SystemHead, c: &'a ManyConfig) -> SystemPart<'a> {
    SystemPart {
        head,
        servers: c.servers,
        lambda: c.lambda,
        buffer: c.buffer,
        run: &c.run,
    }
}

/// A many-server policy's display name.
pub fn policy_name(p: &ManyPolicy) -> String {
    match p {
        ManyPolicy::Jsq => "JSQ".into(),
        ManyPolicy::Jiq => "JIQ".into(),
        ManyPolicy::I1f => "I1F".into(),
        ManyPolicy::Random => "Random".into(),
        ManyPolicy::Pod {
            d: PodD::Fixed { d },
        } => format!("Pod({d})"),
        ManyPolicy::Pod {
            d: PodD::Scaled { alpha },
        } => format!("Pod(N^{alpha} ln N)"),
        ManyPolicy::Pod {
            d: PodD::Power { alpha },
        } => format!("Pod(N^{alpha})"),
        ManyPolicy::Graph { graph } => match graph {
            GraphSpec::Clique => "Graph(clique)".into(),
            GraphSpec::ErdosRenyi { mean_degree } => format!("Graph(ER, d̄ = {mean_degree})"),
            GraphSpec::RandomRegular { degree } => format!("Graph({degree}-regular)"),
            GraphSpec::Ring => "Graph(ring)".into(),
            GraphSpec::Torus => "Graph(torus)".into(),
            GraphSpec::RingPeriphery { core_mean_degree } => {
                format!("Graph(ring periphery, core d̄ = {core_mean_degree})")
            }
        },
    }
}
