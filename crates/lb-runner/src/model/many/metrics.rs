//! The many-server model's metrics, named exact references and descriptions
//! (SPEC §2: the occupancy S_i, Mukherjee, Borst and van Leeuwaarden's
//! topologies; Liu and Ying's sub-Halfin-Whitt bound).

use crate::model::MetricInfo;
use lb_core::many::{ManyConfig, ManySummary, theory};

use MetricInfo as M;

/// The metrics, the table's first and in its column order.
pub const METRICS: [MetricInfo; 10] = [
    M::new("p_to_busy", "P(job sent to a non-idle server)", true, true),
    M::new("mean_jobs", "Jobs per server (Σ S_i)", true, true),
    M::new("loss_fraction", "Fraction of jobs lost", true, true),
    M::new(
        "mean_response",
        "Mean response time (time slots)",
        true,
        true,
    ),
    M::new("s1", "S_1", true, true),
    M::new("s2", "S_2", true, true),
    M::new("s3", "S_3", true, true),
    M::new("sum_s_b", "E[Σ_{i≤b} S_i]", true, false),
    M::new(
        "shw_bound",
        "Sub-Halfin-Whitt bound (seed 004)",
        true,
        false,
    ),
    M::new(
        "p_unstable",
        "Fraction of unstable replications",
        false,
        false,
    )
    .transient(),
];

/// The named exact references (`expected` or `bound` of a claim).
pub const REFERENCES: [&str; 1] = ["sub_halfin_whitt"];

fn occupancy(s: &ManySummary, i: usize) -> f64 {
    s.occupancy.get(i - 1).copied().unwrap_or(0.0)
}

/// A metric that a replication's summary defines on its own.
pub fn precision_value(name: &str, s: &ManySummary) -> Option<f64> {
    match name {
        "p_to_busy" => s.p_to_busy,
        "mean_jobs" => Some(s.mean_jobs),
        "loss_fraction" => s.loss_fraction,
        "mean_response" => s.mean_response,
        "s1" => Some(occupancy(s, 1)),
        "s2" => Some(occupancy(s, 2)),
        "s3" => Some(occupancy(s, 3)),
        _ => None,
    }
}

/// Metric `name` of one replication at configuration `c`.
pub fn value(name: &str, c: &ManyConfig, s: &ManySummary) -> Option<f64> {
    match name {
        "p_unstable" => Some(if s.stability.stable { 0.0 } else { 1.0 }),
        "sum_s_b" => Some(match c.buffer {
            Some(b) => s.occupancy.iter().take(b as usize).sum(),
            None => s.mean_jobs,
        }),
        "shw_bound" => reference("sub_halfin_whitt", c).ok(),
        _ => precision_value(name, s),
    }
}

/// The named reference `name` at a point.
pub fn reference(name: &str, c: &ManyConfig) -> Result<f64, String> {
    match name {
        "sub_halfin_whitt" => match c.buffer {
            Some(b) if b >= 2 => Ok(theory::sub_halfin_whitt_bound(c.servers, c.lambda, b)),
            _ => Err("sub_halfin_whitt needs a buffer b ≥ 2 (Liu and Ying)".into()),
        },
        other => Err(format!(
            "{other} is not a reference of the many-server model (it has {})",
            REFERENCES.join(", ")
        )),
    }
}

/// One line on the system, for `lb show`.
pub fn describe(c: &ManyConfig) -> Vec<String> {
    vec![format!(
        "N = {}, λ = {:.6}, buffer {}, horizon {}, warm-up {}",
        c.servers,
        c.lambda,
        c.buffer.map_or("unbounded".to_string(), |b| b.to_string()),
        c.run.horizon,
        c.run.warmup
    )]
}
