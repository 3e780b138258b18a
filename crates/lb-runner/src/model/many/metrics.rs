//! The many-server model's metrics, named exact references and descriptions
//! (SPEC §2: the occupancy S_i, Mukherjee, Borst and van Leeuwaarden's
//! topologies; Liu and Ying's sub-Halfin-Whitt bound).

use crate::model::{MetricInfo, MetricKind, Param};
use lb_core::many::{ManyConfig, ManySummary, theory};

use crate::model::metric as m;

use MetricKind::{Fraction, Proportion, Real};

/// The metrics, the table's first and in its column order. Labels are
/// figure markup (`_x`/`_{…}` subscripts, `^x`/`^{…}` superscripts), units
/// in parentheses: the model's time unit is the mean service time.
pub const METRICS: [MetricInfo; 10] = [
    m(
        "p_to_busy",
        "P(job sent to a non-idle server)",
        true,
        true,
        Proportion,
    ),
    m("mean_jobs", "Jobs per server, Σ_i S_i", true, true, Real),
    m(
        "loss_fraction",
        "Fraction of jobs lost",
        true,
        true,
        Proportion,
    ),
    m(
        "mean_response",
        "Mean response time (mean service times)",
        true,
        true,
        Real,
    ),
    m(
        "s1",
        "S_1, fraction of servers with ≥ 1 job",
        true,
        true,
        Fraction,
    ),
    m(
        "s2",
        "S_2, fraction of servers with ≥ 2 jobs",
        true,
        true,
        Fraction,
    ),
    m(
        "s3",
        "S_3, fraction of servers with ≥ 3 jobs",
        true,
        true,
        Fraction,
    ),
    m("sum_s_b", "E[Σ_{i≤b} S_i]", true, false, Real),
    m(
        "shw_bound",
        "Sub-Halfin-Whitt bound on E[Σ_{i≤b} S_i] (Liu and Ying)",
        true,
        false,
        Real,
    ),
    m(
        "p_unstable",
        "Fraction of unstable replications",
        false,
        false,
        Proportion,
    )
    .transient(),
];

/// The named exact references (`expected` or `bound` of a claim, or a
/// figure's reference curve): seed 004's bound, and the load λ itself.
pub const REFERENCES: [&str; 2] = ["sub_halfin_whitt", "lambda"];

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

/// The (events, trials) of a proportion metric in one replication.
pub fn counts(name: &str, s: &ManySummary) -> Option<(u64, u64)> {
    match name {
        "p_to_busy" => Some((s.to_busy, s.arrivals)),
        "loss_fraction" => Some((s.lost, s.arrivals)),
        "p_unstable" => Some((u64::from(!s.stability.stable), 1)),
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
        "lambda" => Ok(c.lambda),
        other => Err(format!(
            "{other} is not a reference of the many-server model (it has {})",
            REFERENCES.join(", ")
        )),
    }
}

/// The fixed parameters of a point (tidy tables).
pub fn parameters(c: &ManyConfig) -> Vec<(&'static str, Param)> {
    let n = |x: f64| Param::Number(x);
    let mut v = vec![
        ("servers", n(c.servers as f64)),
        ("lambda", n(c.lambda)),
        ("horizon", n(c.run.horizon)),
        ("warmup", n(c.run.warmup)),
    ];
    // Unbounded: no buffer column value (null), not a text among numbers.
    if let Some(b) = c.buffer {
        v.insert(2, ("buffer", n(b as f64)));
    }
    v
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
