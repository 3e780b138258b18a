//! The network model's metrics, named references and descriptions (Dai and
//! Lin; the pooled resource of a parallel-server network in heavy traffic,
//! Harrison).

use crate::metric::{MetricInfo, Param};
use MetricInfo as M;
use lb_core::spn::{SpnConfig, SpnSummary};

/// The metrics, the table's first and in its column order.
pub(crate) const METRICS: [MetricInfo; 8] = [
    M::new("mean_total", "Jobs in the network E[Σ_j Z_j]", true, true),
    M::new(
        "growth",
        "Growth of the total over the run's second half (jobs per unit time)",
        true,
        true,
    )
    .transient(),
    M::new(
        "end_rate",
        "Jobs at the end ÷ horizon (jobs per unit time)",
        true,
        false,
    )
    .transient(),
    M::new(
        "workload",
        "Workload E[W] of the first resource (time)",
        true,
        true,
    ),
    M::new(
        "rho",
        "Load ρ = Σ_j λ_j w_j of the first resource",
        true,
        false,
    ),
    M::new("scaled_workload", "(1 − ρ)·E[W]", true, false),
    M::new(
        "in_system_end",
        "Jobs in the network at the end",
        false,
        true,
    )
    .transient(),
    crate::metric::P_UNSTABLE,
];

/// The named exact references.
pub(crate) const REFERENCES: [&str; 3] = ["pooled_workload", "pooled_scaled", "jackson"];

/// The references drawn per replication: none (each is one number per point).
pub(crate) const PER_REPLICATION: [&str; 0] = [];

/// A metric that a replication's summary defines on its own.
pub(crate) fn precision_value(name: &str, s: &SpnSummary) -> Option<f64> {
    match name {
        "mean_total" => Some(s.mean_total),
        "growth" => Some(s.growth),
        "workload" => s.mean_workload.first().copied(),
        "in_system_end" => Some(s.in_system_end as f64),
        _ => None,
    }
}

/// The (events, trials) behind a proportion metric.
pub(crate) fn counts(name: &str, s: &SpnSummary) -> Option<(u64, u64)> {
    match name {
        "p_unstable" => Some((u64::from(!s.stability.stable), 1)),
        _ => None,
    }
}

/// ρ of the first workload vector: the work per unit time it receives.
fn load(c: &SpnConfig) -> Option<f64> {
    let y = c.workload.first()?;
    Some(c.arrivals.iter().zip(y).map(|(l, w)| l * w).sum())
}

/// Metric `name` of one replication at configuration `c`.
pub(crate) fn value(name: &str, c: &SpnConfig, s: &SpnSummary) -> Option<f64> {
    match name {
        "end_rate" => Some(s.in_system_end as f64 / c.run.horizon),
        "rho" => load(c),
        "scaled_workload" => Some((1.0 - load(c)?) * s.mean_workload.first()?),
        "p_unstable" => Some(if s.stability.stable { 0.0 } else { 1.0 }),
        _ => precision_value(name, s),
    }
}

/// The named reference `name` at a configuration.
///
/// - `pooled_workload`: the mean workload of the single pooled server that
///   the first resource becomes under complete resource pooling — an M/G/1
///   queue whose jobs of buffer j bring exponential work of mean w_j:
///   E\[W\] = Σ_j λ_j w_j² / (1 − ρ) (Pollaczek–Khinchine, E\[S²\] = 2w_j²).
/// - `pooled_scaled`: (1 − ρ) times that, Σ_j λ_j w_j², the heavy-traffic
///   limit of (1 − ρ)·E\[W\] under a policy that pools the resource.
/// - `jackson`: E[Σ_j Z_j] of a Jackson network (Jackson, "Jobshop-like
///   queueing systems", 1963), where each station runs one activity on one
///   buffer of its own: whatever non-idling policy the stations follow,
///   each is then an M/M/1 queue in the product form, E\[Z\] = ρ/(1 − ρ)
///   with ρ = λ_j/μ_a, λ the solution of the traffic equations
///   λ_k = α_k + Σ_a λ_{buffer(a)}·P_a\[k\]. Only as a value of
///   `mean_total`.
pub(crate) fn reference(name: &str, metric: &str, c: &SpnConfig) -> Result<f64, String> {
    if name == "jackson" {
        return jackson(metric, c);
    }
    let Some(y) = c.workload.first() else {
        return Err(format!(
            "{name} needs network.workload: the work a job of each buffer brings to the \
             pooled resource"
        ));
    };
    let rho = load(c).unwrap_or(0.0);
    let second: f64 = c.arrivals.iter().zip(y).map(|(l, w)| l * w * w).sum();
    match name {
        "pooled_workload" if rho < 1.0 => Ok(second / (1.0 - rho)),
        "pooled_workload" => Err(format!("the pooled resource's load is {rho} ≥ 1")),
        "pooled_scaled" => Ok(second),
        other => Err(format!(
            "{other} is not a reference of the network model (it has {})",
            REFERENCES.join(", ")
        )),
    }
}

/// The solution λ of the traffic equations λ_k = α_k + Σ_a λ_{buffer(a)}·
/// P_a\[k\], by fixed-point iteration from α (it converges when every job
/// eventually leaves, as in an open network).
pub(crate) fn traffic(c: &SpnConfig) -> Vec<f64> {
    let mut lambda = c.arrivals.clone();
    for _ in 0..100_000 {
        let mut next = c.arrivals.clone();
        for a in &c.activities {
            for r in &a.routing {
                next[r.buffer] += lambda[a.buffer] * r.probability;
            }
        }
        let moved = next
            .iter()
            .zip(&lambda)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        lambda = next;
        if moved <= 1e-15 * lambda.iter().fold(1.0, |m, x| f64::max(m, *x)) {
            break;
        }
    }
    lambda
}

/// The largest station load Σ_{a at s} λ_{buffer(a)}/μ_a, λ from the
/// traffic equations ([`traffic`]).
pub(crate) fn bottleneck_load(c: &SpnConfig) -> f64 {
    let lambda = traffic(c);
    let mut per = vec![0.0; c.stations];
    for a in &c.activities {
        per[a.station] += lambda[a.buffer] / a.rate;
    }
    per.into_iter().fold(0.0, f64::max)
}

/// The `jackson` reference: see [`reference()`].
fn jackson(metric: &str, c: &SpnConfig) -> Result<f64, String> {
    if metric != "mean_total" {
        return Err(format!(
            "jackson is the product form's E[Σ_j Z_j], a value of mean_total, not of {metric}"
        ));
    }
    let b = c.buffers();
    let mut per_station = vec![0usize; c.stations];
    let mut per_buffer = vec![0usize; b];
    for a in &c.activities {
        per_station[a.station] += 1;
        per_buffer[a.buffer] += 1;
    }
    if per_station.iter().any(|&n| n != 1) || per_buffer.iter().any(|&n| n != 1) {
        return Err(
            "jackson needs a Jackson network: each station one activity, each buffer served \
             by exactly one"
                .into(),
        );
    }
    let lambda = traffic(c);
    let mut total = 0.0;
    for a in &c.activities {
        let rho = lambda[a.buffer] / a.rate;
        if rho.is_nan() || rho >= 1.0 {
            return Err(format!(
                "buffer {}'s load λ/μ = {rho} ≥ 1: no steady state",
                a.buffer
            ));
        }
        total += rho / (1.0 - rho);
    }
    Ok(total)
}

/// One line on the network, for `lb show`.
pub(crate) fn parameters(c: &SpnConfig) -> Vec<(&'static str, Param)> {
    let n = |x: f64| Param::Number(x);
    let mut v = vec![
        ("buffers", n(c.buffers() as f64)),
        ("stations", n(c.stations as f64)),
        ("activities", n(c.activities.len() as f64)),
        ("lambda_sum", n(c.arrivals.iter().sum())),
    ];
    if let Some(rho) = load(c) {
        v.push(("load", n(rho)));
    }
    v.push(("horizon", n(c.run.horizon)));
    v.push(("warmup", n(c.run.warmup)));
    v
}

/// The fixed parameters of a point (tidy tables).
pub(crate) fn describe(c: &SpnConfig) -> Vec<String> {
    let mut v = vec![format!(
        "{} buffers, {} stations, {} activities, λ = {:?}, horizon {}, warm-up {}",
        c.buffers(),
        c.stations,
        c.activities.len(),
        c.arrivals,
        c.run.horizon,
        c.run.warmup
    )];
    if let Some(loads) = c.loads() {
        v.push(format!("station loads {loads:?}"));
    }
    if let Some(rho) = load(c) {
        v.push(format!("first resource's load ρ = {rho:.6}"));
    }
    v
}
