//! The many-server model's metrics, named exact references and descriptions
//! (docs/MODEL.md §2: the occupancy S_i, Mukherjee, Borst and van Leeuwaarden's
//! topologies; Liu and Ying's sub-Halfin-Whitt bound).

use crate::metric::{MetricInfo, MetricKind, Param};
use lb_core::many::{ManyConfig, ManyPolicy, ManySummary, theory};

use crate::metric::metric as m;

use MetricKind::{Fraction, Proportion, Real};

/// S_i for i up to this: the occupancy metrics `s1` … `s16`.
pub(crate) const MAX_OCCUPANCY: u32 = 16;

/// The occupancy metric S_i (`s<i>`), shown in tables for i ≤ 3 only.
macro_rules! occupancy_metrics {
    ($($i:literal),*) => {
        [$(m(
            concat!("s", stringify!($i)),
            concat!("S_{", stringify!($i), "}, fraction of servers with ≥ ", stringify!($i), " jobs"),
            false,
            true,
            Fraction,
        )),*]
    };
}

const HIGHER_OCCUPANCY: [MetricInfo; 13] =
    occupancy_metrics!(4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);

const fn metrics() -> [MetricInfo; 25] {
    let first = [
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
            "shw_excess",
            "E[max{Σ_{i≤b} S_i − λ − k ln N/√N, 0}] (Liu and Ying)",
            true,
            true,
            Real,
        ),
        m(
            "s2_sqrt_n",
            "√N·S_2, servers with ≥ 2 jobs on the √N-scale",
            false,
            false,
            Real,
        ),
        crate::metric::P_UNSTABLE,
    ];
    let mut all = [first[0]; 25];
    let mut i = 0;
    while i < first.len() {
        all[i] = first[i];
        i += 1;
    }
    let mut j = 0;
    while j < HIGHER_OCCUPANCY.len() {
        all[i + j] = HIGHER_OCCUPANCY[j];
        j += 1;
    }
    all
}

/// The metrics, the table's first and in its column order. Labels are
/// figure markup (`_x`/`_{…}` subscripts, `^x`/`^{…}` superscripts), units
/// in parentheses: the model's time unit is the mean service time. The
/// occupancy S_i is `s1` … `s16` (tables show S_1–S_3); `s2_sqrt_n` is
/// √N·S_2, the occupancy above one job on the √N-scale.
pub(crate) const METRICS: [MetricInfo; 25] = metrics();

/// The named exact references (`expected` or `bound` of a claim, or a
/// figure's reference curve). Each is a function of the point, evaluated for
/// the metric it is compared with ([`reference()`]); [`REFERENCE_METRICS`]
/// lists the metrics each defines.
pub const REFERENCES: [&str; 6] = [
    "mm1",
    "erlang_c",
    "pod_mean_field",
    "sub_halfin_whitt",
    "sub_halfin_whitt_excess",
    "lambda",
];

/// The references drawn per replication: none (each is one number per point).
pub(crate) const PER_REPLICATION: [&str; 0] = [];

/// The metrics each named reference defines (`s<i>`: every occupancy
/// metric; `*`: any metric).
pub(crate) const REFERENCE_METRICS: [(&str, &[&str]); 6] = [
    (
        "mm1",
        &[
            "s<i>",
            "mean_jobs",
            "sum_s_b",
            "mean_response",
            "loss_fraction",
            "p_to_busy",
        ],
    ),
    ("erlang_c", &["mean_jobs", "sum_s_b", "mean_response"]),
    (
        "pod_mean_field",
        &["s<i>", "mean_jobs", "sum_s_b", "mean_response"],
    ),
    ("sub_halfin_whitt", &["sum_s_b"]),
    ("sub_halfin_whitt_excess", &["shw_excess"]),
    ("lambda", &["*"]),
];

/// i of an occupancy metric `s<i>`, 1 ≤ i ≤ [`MAX_OCCUPANCY`].
pub(crate) fn occupancy_index(metric: &str) -> Option<u32> {
    let i: u32 = metric.strip_prefix('s')?.parse().ok()?;
    let canonical = format!("s{i}") == metric;
    (canonical && (1..=MAX_OCCUPANCY).contains(&i)).then_some(i)
}

/// Whether reference `name` defines `metric`; the error names the metrics it
/// does define.
pub fn defines(name: &str, metric: &str) -> Result<(), String> {
    let Some((_, ms)) = REFERENCE_METRICS.iter().find(|(n, _)| *n == name) else {
        return Err(format!(
            "{name} is not a reference of the many-server model (it has {})",
            REFERENCES.join(", ")
        ));
    };
    let ok = ms
        .iter()
        .any(|m| *m == "*" || *m == metric || (*m == "s<i>" && occupancy_index(metric).is_some()));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "reference {name} does not define metric {metric}: it defines {}",
            ms.iter()
                .map(|m| if *m == "s<i>" { "s1…s16" } else { m })
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }
}

/// What reference `name` needs of the system, beyond the metric: why it
/// does not apply with `buffer`, if it does not.
pub fn needs(name: &str, buffer: Option<u32>) -> Result<(), String> {
    match (name, buffer) {
        ("sub_halfin_whitt" | "sub_halfin_whitt_excess", Some(b)) if b >= 2 => Ok(()),
        ("sub_halfin_whitt" | "sub_halfin_whitt_excess", _) => Err(format!(
            "{name} needs a buffer b ≥ 2 (Liu and Ying's k = 1 + 1/(2(b − 1))): set system.buffer"
        )),
        ("erlang_c" | "pod_mean_field", Some(_)) => Err(format!(
            "{name} is for unbounded buffers (a job is never lost): leave out system.buffer"
        )),
        _ => Ok(()),
    }
}

fn occupancy(s: &ManySummary, i: usize) -> f64 {
    s.occupancy.get(i - 1).copied().unwrap_or(0.0)
}

/// The hypotheses a claim may carry ([`hypothesis`]).
pub const HYPOTHESES: [&str; 1] = ["liu-ying"];

/// Whether the point lies inside theorem `name`'s hypothesis: None where it
/// does, else why not (Err: no such hypothesis, or it does not apply here).
///
/// `liu-ying`: Liu and Ying's main result holds for the policies that route
/// a job to an idle server with probability at least 1 − 1/√N whenever
/// S_1 ≤ s = λ + k ln N/√N, k = 1 + 1/(2(b − 1)). Where s ≥ 1 the state
/// with every server busy meets S_1 ≤ s and has no idle server, so no
/// policy is in the class. Below: JSQ, JIQ and I1F always find an idle
/// server when one exists; Power-of-d misses every idle server with
/// probability C(⌊sN⌋, d)/C(N, d) at S_1 = s, which must be at most 1/√N;
/// Random misses with probability S_1, which is not; a graph is not in
/// the class.
pub fn hypothesis(name: &str, c: &ManyConfig) -> Result<Option<String>, String> {
    if name != "liu-ying" {
        return Err(format!(
            "no hypothesis \"{name}\" in the many-server model; it has: {}",
            HYPOTHESES.join(", ")
        ));
    }
    let Some((s, bound)) = class_level(c.servers, c.lambda, c.buffer) else {
        return Err("Liu and Ying's hypothesis needs a buffer b ≥ 2".into());
    };
    let n = c.servers as f64;
    let at = format!("λ + k ln N/√N = {s:.4}");
    if s >= 1.0 {
        return Ok(Some(format!(
            "outside Liu and Ying's hypothesis at this N and α: {at} ≥ 1, so here no policy \
             meets the class condition (it asks for an idle server even when every server may \
             be busy); it is met only at larger N"
        )));
    }
    let miss = match c.policy {
        ManyPolicy::Jsq | ManyPolicy::Jiq | ManyPolicy::I1f => 0.0,
        ManyPolicy::Random => s,
        // C(⌊sN⌋, d)/C(N, d): every one of d samples busy.
        ManyPolicy::Pod { d } => all_busy((s * n).floor(), n, d.resolve(c.servers)),
        ManyPolicy::Graph { .. } => {
            return Ok(Some(
                "outside Liu and Ying's class: a graph's dispatching is not among its policies"
                    .into(),
            ));
        }
    };
    Ok((miss > bound).then(|| {
        format!(
            "outside Liu and Ying's class: at S_1 = {at} this policy misses every idle server \
             with probability {miss:.2e} > 1/√N = {bound:.2e}"
        )
    }))
}

/// The least d at which Power-of-d is in Liu and Ying's class at N servers,
/// load λ and buffer b: the least d whose chance of missing every idle
/// server at S_1 = s = λ + k ln N/√N, k = 1 + 1/(2(b − 1)), is at most
/// 1/√N ([`hypothesis`]'s condition). None where s ≥ 1 (no policy is in the
/// class there) or b < 2.
pub fn least_class_d(servers: usize, lambda: f64, buffer: Option<u32>) -> Option<usize> {
    let (s, bound) = class_level(servers, lambda, buffer)?;
    if s >= 1.0 {
        return None;
    }
    let n = servers as f64;
    let busy = (s * n).floor();
    (1..=servers).find(|&d| all_busy(busy, n, d) <= bound)
}

/// Liu and Ying's class condition at N servers, load λ and buffer b: the
/// level s = λ + k ln N/√N, k = 1 + 1/(2(b − 1)), at or below which a member
/// misses every idle server with probability at most 1/√N, and that bound.
/// None for b < 2 (k is undefined at b = 1).
fn class_level(servers: usize, lambda: f64, buffer: Option<u32>) -> Option<(f64, f64)> {
    let b = f64::from(buffer.filter(|&b| b >= 2)?);
    let n = servers as f64;
    let k = 1.0 + 1.0 / (2.0 * (b - 1.0));
    Some((lambda + k * n.ln() / n.sqrt(), 1.0 / n.sqrt()))
}

/// The least a metric can be at a point, whatever the policy: a response
/// time's is 1 (service is exponential with mean 1, the time unit, so a job
/// that never waits takes 1); the jobs per server's (`mean_jobs`,
/// `sum_s_b`) is λ, since every policy keeps a fraction S_1 = λ(1 − loss)
/// of its servers busy (flow balance) and none loses a job below it; an
/// excess over a threshold (`shw_excess`, a positive part) and a
/// probability (`p_to_busy`, `loss_fraction`) are 0. None for every other
/// metric.
pub fn floor(name: &str, c: &ManyConfig) -> Option<f64> {
    match name {
        "mean_response" => Some(1.0),
        "mean_jobs" | "sum_s_b" => Some(c.lambda),
        // A positive part and the probabilities of events: 0.
        "shw_excess" | "p_to_busy" | "loss_fraction" => Some(0.0),
        _ => None,
    }
}

/// The value of metric `name` that sampling gives at the run's mean
/// occupancy S̄_1, where the metric is the time average of such a function of
/// the state: `p_to_busy` under Power-of-d (Random is d = 1), whose job meets
/// a busy server when all d of its samples are busy, with probability
/// C(N·S_1, d)/C(N, d) in state S_1, here at S̄_1. Flow balance fixes
/// E\[S_1\] = λ(1 − loss), so where a run's value equals this within its
/// interval the fluctuations of S_1 about its mean left no mark on it: it is
/// d's and λ's arithmetic. None for every other metric and policy (JSQ, JIQ
/// and I1F meet a busy server only when none is idle, a property of the
/// fluctuations, not of the mean).
pub fn at_mean_state(name: &str, c: &ManyConfig, s: &ManySummary) -> Option<f64> {
    let d = match (name, c.policy) {
        ("p_to_busy", ManyPolicy::Random) => 1,
        ("p_to_busy", ManyPolicy::Pod { d }) => d.resolve(c.servers),
        _ => return None,
    };
    let n = c.servers as f64;
    Some(all_busy(occupancy(s, 1) * n, n, d))
}

/// C(busy, d)/C(n, d), as a product: the chance that d servers drawn
/// without replacement from n all lie among `busy` given ones.
fn all_busy(busy: f64, n: f64, d: usize) -> f64 {
    (0..d)
        .map(|j| ((busy - j as f64) / (n - j as f64)).max(0.0))
        .product()
}

/// A metric that a replication's summary defines on its own.
pub fn precision_value(name: &str, s: &ManySummary) -> Option<f64> {
    match name {
        "p_to_busy" => s.p_to_busy,
        "mean_jobs" => Some(s.mean_jobs),
        "loss_fraction" => s.loss_fraction,
        "mean_response" => s.mean_response,
        "shw_excess" => s.shw_excess,
        other => occupancy_index(other).map(|i| occupancy(s, i as usize)),
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
        "shw_bound" => reference("sub_halfin_whitt", "sum_s_b", c).ok(),
        // Mukherjee, Borst and van Leeuwaarden's √N-scale: a graph is
        // √N-optimal when its occupancy matches the clique's there, and the
        // clique's √N·S_2 vanishes for λ < 1.
        "s2_sqrt_n" => Some((c.servers as f64).sqrt() * occupancy(s, 2)),
        _ => precision_value(name, s),
    }
}

/// The named reference `name` at a point, for `metric`: an error if the
/// reference does not define the metric or does not apply to the point.
///
/// - `mm1`: one M/M/1 queue at load λ (M/M/1/b with a buffer b) — every
///   server's law under Random: S_i, jobs per server, response time, loss,
///   and P(sent to a busy server) = S_1 (PASTA).
/// - `erlang_c`: the pooled M/M/N queue (unbounded buffers), a lower bound on
///   the mean jobs and response time of any dispatching policy.
/// - `pod_mean_field`: Power-of-d's mean field at the point's d
///   (Mitzenmacher; Vvedenskaya, Dobrushin and Karpelevich), unbounded
///   buffers, Pod only: S_i = λ^((d^i − 1)/(d − 1)), Σ_i S_i, response by
///   Little.
/// - `sub_halfin_whitt`: Liu and Ying's bound on E[Σ_{i≤b} S_i].
/// - `sub_halfin_whitt_excess`: Liu and Ying's 29b/(√N ln N) on the excess.
/// - `lambda`: λ, for any metric.
pub fn reference(name: &str, metric: &str, c: &ManyConfig) -> Result<f64, String> {
    defines(name, metric)?;
    needs(name, c.buffer)?;
    // Unbounded, Σ_{i≤b} S_i is every job.
    let metric = if metric == "sum_s_b" && c.buffer.is_none() {
        "mean_jobs"
    } else {
        metric
    };
    let (n, lambda) = (c.servers, c.lambda);
    match name {
        "mm1" => {
            let q = theory::Mm1 {
                lambda,
                buffer: c.buffer,
            };
            Ok(match metric {
                "mean_jobs" | "sum_s_b" => q.mean_jobs(),
                "mean_response" => q.mean_response(),
                "loss_fraction" => q.loss(),
                "p_to_busy" => q.occupancy(1),
                s => q.occupancy(occupancy_index(s).expect("defined")),
            })
        }
        "erlang_c" => Ok(match metric {
            "mean_response" => theory::erlang_c_mean_response(n, lambda),
            _ => theory::erlang_c_mean_jobs(n, lambda),
        }),
        "pod_mean_field" => {
            let ManyPolicy::Pod { d } = c.policy else {
                return Err(format!(
                    "pod_mean_field is Power-of-d's: the policy here is {}",
                    super::policy_name(&c.policy)
                ));
            };
            let d = d.resolve(n);
            Ok(match metric {
                "mean_jobs" => theory::pod_mean_field_mean_jobs(lambda, d),
                "mean_response" => theory::pod_mean_field_mean_jobs(lambda, d) / lambda,
                s => theory::pod_mean_field_occupancy(
                    lambda,
                    d,
                    occupancy_index(s).expect("defined"),
                ),
            })
        }
        "sub_halfin_whitt" => Ok(theory::sub_halfin_whitt_bound(
            n,
            lambda,
            c.buffer.expect("needs"),
        )),
        "sub_halfin_whitt_excess" => Ok(theory::sub_halfin_whitt_excess_bound(
            n,
            c.buffer.expect("needs"),
        )),
        _ => Ok(lambda),
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

#[cfg(test)]
mod least_class_d_tests {
    use super::*;
    use lb_core::many::{PodD, TimeRun};

    /// The least d in the class is in it and the one below is not, by the
    /// hypothesis check itself; where λ + k ln N/√N ≥ 1 there is none.
    #[test]
    fn the_least_d_in_the_class_is_the_boundary_of_the_hypothesis() {
        let run = TimeRun {
            horizon: 10.0,
            warmup: 1.0,
            batches: 8,
        };
        for (n, alpha) in [
            (10_000usize, 0.1f64),
            (10_000, 0.2),
            (100_000, 0.2),
            (1_000_000, 0.1),
        ] {
            let lambda = 1.0 - (n as f64).powf(-alpha);
            let d = least_class_d(n, lambda, Some(4)).expect("inside the hypothesis");
            let cfg = |d: usize| ManyConfig {
                servers: n,
                lambda,
                buffer: Some(4),
                policy: ManyPolicy::Pod {
                    d: PodD::Fixed { d },
                },
                run,
            };
            assert_eq!(
                hypothesis("liu-ying", &cfg(d)).unwrap(),
                None,
                "N = {n}, α = {alpha}, d = {d}"
            );
            assert!(
                hypothesis("liu-ying", &cfg(d - 1)).unwrap().is_some(),
                "N = {n}, α = {alpha}: d − 1 = {} is in the class too",
                d - 1
            );
        }
        // α = 0.3 at N = 10^4: λ + k ln N/√N ≥ 1.
        assert_eq!(
            least_class_d(10_000, 1.0 - 10_000f64.powf(-0.3), Some(4)),
            None
        );
    }
}
