//! The slotted model's metrics, named exact references and descriptions
//! (docs/MODEL.md §1 "Metrics of a run"; Zhou, Shroff and Wierman, §2 for ε·E\[ΣQ\] and
//! ζ).

// A new policy variant is matched everywhere by name: no wildcard arms.
#![warn(clippy::wildcard_enum_match_arm)]

use crate::metric::{MetricInfo, MetricKind, Param};
use lb_core::Seeds;
use lb_core::slotted::{
    Behaviour, Granularity, Law, PolicyConfig, RunSummary, SlottedConfig, Weights, theory,
};

use crate::metric::metric as m;

use MetricKind::Real;

/// The axes of a heavy-traffic sweep: tables show ε·E\[ΣQ\] and its ratio to
/// ζ only along them.
const HEAVY_TRAFFIC: &[&str] = &["epsilon", "epsilon_frac"];

/// The metrics, the table's first and in its column order. Labels are
/// figure markup (`_x`/`_{…}` subscripts, `^x`/`^{…}` superscripts), units
/// in parentheses: the slotted model's time unit is the slot.
pub(crate) const METRICS: [MetricInfo; 19] = [
    m(
        "mean_response",
        "Mean response time (slots)",
        true,
        true,
        Real,
    ),
    m("mean_sum_q", "E[ΣQ] (jobs)", true, true, Real),
    m("eps_sum_q", "ε·E[ΣQ]", true, false, Real).only_with(HEAVY_TRAFFIC),
    m(
        "messages_per_arrival",
        "Messages per arrival",
        true,
        true,
        Real,
    ),
    m(
        "p99",
        "99th percentile of response time (slots)",
        true,
        true,
        Real,
    ),
    m(
        "imbalance",
        "E[max_n Q_n − min_n Q_n] (jobs)",
        true,
        true,
        Real,
    ),
    m("zeta_ratio", "ε·E[ΣQ] / ζ", true, false, Real).only_with(HEAVY_TRAFFIC),
    // State-space collapse (Zhou, Shroff and Wierman, Proposition 1): the
    // imbalance stays bounded as ε → 0, so ε times it vanishes at rate 1,
    // where a policy without collapse keeps it at a constant.
    m(
        "eps_imbalance",
        "ε·E[max_n Q_n − min_n Q_n]",
        false,
        false,
        Real,
    )
    .only_with(HEAVY_TRAFFIC),
    // The estimation error (Zhou, Shroff and Wierman, Lemma 3) stays bounded
    // as ε → 0, so ε times its largest pair's vanishes at rate 1, where
    // updates that grow rare with ε let it grow like 1/ε.
    m(
        "eps_estimation_error",
        "ε·max_(m,n) E[|Q_n − Q̃_mn|]",
        false,
        false,
        Real,
    )
    .only_with(HEAVY_TRAFFIC),
    m("p50", "Median response time (slots)", false, true, Real),
    m(
        "p90",
        "90th percentile of response time (slots)",
        false,
        true,
        Real,
    ),
    m(
        "little_gap",
        "FIFO − Little mean response time (slots)",
        false,
        true,
        Real,
    ),
    m(
        "little_response",
        "Mean response time by Little's law (slots)",
        false,
        true,
        Real,
    ),
    // The dispatching preference at the states a run visits (Zhou, Shroff
    // and Wierman, Definitions 4–6), where `run.preference` reads it.
    // The estimation error |Q_n − Q̃_mn| of Zhou, Shroff and Wierman's
    // Lemma 3, where `run.estimation` reads it.
    m(
        "estimation_error",
        "Mean estimation error |Q_n − Q̃_mn| (jobs)",
        false,
        false,
        Real,
    ),
    m(
        "estimation_error_max",
        "Largest time-averaged estimation error over (m, n) (jobs)",
        false,
        false,
        Real,
    ),
    m(
        "tilt_delta",
        "Least δ = min(∆_{m1}, −∆_{mN}) over the run",
        false,
        false,
        Real,
    ),
    m(
        "tilt_delta_untied",
        "Least δ where some estimates differ",
        false,
        false,
        Real,
    ),
    m(
        "all_tied_share",
        "Share of dispatcher-slots with every estimate equal",
        false,
        false,
        Real,
    ),
    crate::metric::P_UNSTABLE,
];

/// The named exact references (`expected` or `bound` of a claim).
pub const REFERENCES: [&str; 8] = [
    "zeta",
    "single_server",
    "wr_sum_q",
    "pooled",
    "pooled_exact",
    "jsq_pair_exact",
    "pod_mean_field",
    "messages_exact",
];

/// The references drawn per replication, on its own arrivals and service:
/// already paired with the metric.
pub(crate) const PER_REPLICATION: [&str; 1] = ["pooled"];

/// The floor of a response-time metric: a job that never waits takes its
/// server's mean service time 1/μ_n, so no policy's mean response is below
/// the fastest server's (Zhou, Shroff and Wierman, §2.1: S_n(t) with mean
/// μ_n). None for every other metric.
pub fn floor(name: &str, c: &SlottedConfig) -> Option<f64> {
    match name {
        "mean_response" | "little_response" => {
            let fastest = c.system.mu().into_iter().fold(0.0_f64, f64::max);
            (fastest > 0.0).then(|| 1.0 / fastest)
        }
        _ => None,
    }
}

/// A metric that a replication's summary defines on its own.
pub fn precision_value(name: &str, s: &RunSummary) -> Option<f64> {
    match name {
        "mean_response" => s.mean_response,
        "little_response" => s.little_response,
        "mean_sum_q" => Some(s.mean_sum_q),
        "messages_per_arrival" => s.messages_per_arrival,
        "p50" => s.p50.map(|v| v as f64),
        "p90" => s.p90.map(|v| v as f64),
        "p99" => s.p99.map(|v| v as f64),
        // A block run measures no imbalance (lb_core::slotted::blocks).
        "imbalance" => s.blocks.is_none().then_some(s.imbalance),
        "little_gap" => Some(s.mean_response? - s.little_response?),
        "tilt_delta" => s.preference.map(|p| p.delta_min),
        "tilt_delta_untied" => s.preference.and_then(|p| p.untied_delta_min),
        "all_tied_share" => s
            .preference
            .map(|p| p.all_tied as f64 / p.dispatcher_slots.max(1) as f64),
        "estimation_error" => s.estimation.map(|e| e.mean),
        "estimation_error_max" => s.estimation.map(|e| e.max),
        _ => None,
    }
}

/// The (events, trials) of a proportion metric in one replication: a
/// replication is one trial of "unstable".
pub fn counts(name: &str, s: &RunSummary) -> Option<(u64, u64)> {
    match name {
        "p_unstable" => Some((u64::from(!s.stability.stable), 1)),
        _ => None,
    }
}

/// Metric `name` of one replication at configuration `c`.
pub fn value(name: &str, c: &SlottedConfig, s: &RunSummary) -> Option<f64> {
    let sys = &c.system;
    match name {
        "eps_sum_q" => Some(sys.epsilon() * s.mean_sum_q),
        "zeta_ratio" => Some(sys.epsilon() * s.mean_sum_q / sys.zeta()),
        "eps_imbalance" => s.blocks.is_none().then(|| sys.epsilon() * s.imbalance),
        "eps_estimation_error" => s.estimation.map(|e| sys.epsilon() * e.max),
        "p_unstable" => Some(if s.stability.stable { 0.0 } else { 1.0 }),
        _ => precision_value(name, s),
    }
}

/// The named reference `name` at a point as a value of `metric` (replication
/// `r` for `pooled`, which runs the resource-pooled queue on the
/// replication's own arrivals and service, from the point's `seeds`). Each
/// is one number whatever the metric, but ζ, which on the ζ-ratio scale
/// ε·E\[ΣQ\]/ζ is 1.
pub fn reference(
    name: &str,
    metric: &str,
    c: &SlottedConfig,
    seeds: &dyn Fn() -> Seeds,
    r: u64,
) -> Result<f64, String> {
    let sys = &c.system;
    match name {
        "zeta" if metric == "zeta_ratio" => Ok(1.0),
        "zeta" => Ok(sys.zeta()),
        "single_server" => {
            let [Law::Bernoulli { p }] = sys.service[..] else {
                return Err("single_server needs exactly one Bernoulli server".into());
            };
            Ok(theory::single_server_bernoulli_service(
                sys.lambda_sum(),
                sys.sigma2_sum(),
                p,
            ))
        }
        "wr_sum_q" => {
            // State-independent routing makes the servers independent
            // single-server queues, each fed a fraction w_n of the arrivals:
            // w_n = μ_n/μ_Σ under WR, 1/N under Random (the same policy on
            // identical servers).
            let n = sys.servers() as f64;
            let mu = sys.mu_sum();
            let weight = |p: f64| match c.policy.traits().behaviour {
                Behaviour::Oblivious(Weights::Rates) => Ok(p / mu),
                Behaviour::Oblivious(Weights::Uniform) => Ok(1.0 / n),
                Behaviour::JsqLike | Behaviour::Other(_) => Err(
                    "wr_sum_q is the value under state-independent routing (WR, Random) only"
                        .to_string(),
                ),
            };
            let batch = c.granularity == Granularity::Batch;
            sys.service
                .iter()
                .map(|law| match *law {
                    Law::Bernoulli { p } => {
                        let w = weight(p)?;
                        if sys.lambda_sum() * w >= p {
                            return Err(format!(
                                "a server of rate {p} gets λ_Σ·w = {} ≥ {p} under this \
                                 routing: no steady state",
                                sys.lambda_sum() * w
                            ));
                        }
                        let s2 = theory::routed_variance(&sys.arrivals, w, batch);
                        Ok(theory::single_server_bernoulli_service(
                            sys.lambda_sum() * w,
                            s2,
                            p,
                        ))
                    }
                    Law::Poisson { .. }
                    | Law::Binomial { .. }
                    | Law::Deterministic { .. }
                    | Law::Geometric { .. } => Err("wr_sum_q needs Bernoulli servers".to_string()),
                })
                .sum()
        }
        "pooled" => Ok(lb_core::slotted::sim::pooled_mean_queue(c, &seeds(), r)),
        "pooled_exact" => {
            // E[Q_pool] in steady state (lb_core::slotted::pooled), on the
            // scale of the metric: E[ΣQ], ε·E[ΣQ] or ε·E[ΣQ]/ζ.
            let scale = match metric {
                "mean_sum_q" | "" => 1.0,
                "eps_sum_q" => sys.epsilon(),
                "zeta_ratio" => sys.epsilon() / sys.zeta(),
                other => {
                    return Err(format!(
                        "pooled_exact is E[Q_pool], a reference for mean_sum_q, eps_sum_q \
                         or zeta_ratio, not {other}"
                    ));
                }
            };
            lb_core::slotted::pooled::pooled_mean(&sys.arrivals, &sys.service)
                .map(|p| scale * p.mean)
                .map_err(|e| format!("pooled_exact: {e}"))
        }
        "jsq_pair_exact" => {
            // JSQ's exact chain on two identical Bernoulli servers
            // (lb_core::slotted::jsq_pair): one dispatcher, Bernoulli
            // arrivals, so at most one job a slot and the snapshot is exact.
            let (
                PolicyConfig::Jsq { .. },
                [Law::Bernoulli { p }],
                [Law::Bernoulli { p: q }, Law::Bernoulli { p: q2 }],
            ) = (&c.policy, &sys.arrivals[..], &sys.service[..])
            else {
                return Err(
                    "jsq_pair_exact is E[ΣQ] of JSQ with one dispatcher of Bernoulli \
                            arrivals and two identical Bernoulli servers"
                        .into(),
                );
            };
            if q != q2 {
                return Err(format!(
                    "jsq_pair_exact needs two identical servers (rates {q} and {q2})"
                ));
            }
            lb_core::slotted::jsq_pair::jsq_pair_mean(*p, *q)
        }
        "pod_mean_field" => {
            let PolicyConfig::Pod { d, .. } = c.policy else {
                return Err("pod_mean_field needs a Power-of-d policy".into());
            };
            if c.granularity != Granularity::Job || !c.count_own || sys.dispatchers() != 1 {
                return Err(
                    "pod_mean_field models one dispatcher placing jobs one at a \
                            time (granularity = job, count_own = true, M = 1)"
                        .into(),
                );
            }
            let mu = match sys.service.first() {
                Some(Law::Bernoulli { p }) if sys.service.iter().all(|l| l == &sys.service[0]) => {
                    *p
                }
                _ => return Err("pod_mean_field needs identical Bernoulli servers".into()),
            };
            Ok(theory::pod_mean_field(sys.load(), d as u32) / mu)
        }
        "messages_exact" => match metric {
            "messages_per_arrival" | "" => lb_core::slotted::theory::messages_per_arrival(c)
                .map_err(|e| format!("messages_exact: {e}")),
            other => Err(format!(
                "messages_exact is a reference for messages_per_arrival, not {other}"
            )),
        },
        other => Err(format!(
            "{other} is not a reference of the slotted model (it has {})",
            REFERENCES.join(", ")
        )),
    }
}

/// The value of `metric` at the point by the named reference `name`, where
/// that reference is exact there: an exact mean ([`exact_mean`]), or the
/// message cost per arrival, which the update rules fix (`messages_exact`:
/// 2d·p̂ per dispatcher-slot with arrivals for Push, a report per
/// departure for Pull). None where `name` is no exact value of `metric`.
pub fn exact_value(metric: &str, name: &str, c: &SlottedConfig) -> Option<f64> {
    match (metric, name) {
        ("messages_per_arrival", "messages_exact") => {
            lb_core::slotted::theory::messages_per_arrival(c).ok()
        }
        _ => exact_mean(metric, name, c).ok(),
    }
}

/// Whether the named reference `name` is defined at a point (Err: why not),
/// without running anything: `pooled`, which runs on a replication's random
/// numbers, is checked, not computed.
pub fn reference_applies(name: &str, c: &SlottedConfig) -> Result<(), String> {
    match name {
        n if PER_REPLICATION.contains(&n) => Ok(()),
        _ => reference(
            name,
            "",
            c,
            &|| unreachable!("only `pooled` reads the seeds"),
            0,
        )
        .map(|_| ()),
    }
}

/// The exact mean of metric `metric` at a point, given by the named
/// reference `name` — what a control variate needs. Only references that
/// are exact steady-state means qualify: `wr_sum_q` (E\[ΣQ\] under
/// state-independent routing, and ε·E\[ΣQ\], ε·E\[ΣQ\]/ζ scaled from it) and
/// `single_server`, `pooled_exact` (E\[Q_pool\] of the `Pooled` point) and
/// `jsq_pair_exact` (JSQ on two identical servers, one dispatcher);
/// `zeta` is a limit, `pooled` a simulation, `pod_mean_field` an
/// approximation.
pub fn exact_mean(metric: &str, name: &str, c: &SlottedConfig) -> Result<f64, String> {
    let sys = &c.system;
    let scale = match metric {
        "mean_sum_q" => 1.0,
        "eps_sum_q" => sys.epsilon(),
        "zeta_ratio" => sys.epsilon() / sys.zeta(),
        _ => {
            return Err(format!(
                "`{name}` gives no exact mean of {metric} (exact means: E[ΣQ], ε·E[ΣQ] and \
                 ε·E[ΣQ]/ζ under wr_sum_q, single_server, pooled_exact or jsq_pair_exact)"
            ));
        }
    };
    match name {
        "pooled_exact" if c.policy != PolicyConfig::Pooled => Err(
            "pooled_exact is the exact mean of the Pooled point only (`spec = \"Pooled\"`): \
             make that point the control"
                .into(),
        ),
        "wr_sum_q" | "single_server" | "pooled_exact" | "jsq_pair_exact" => Ok(scale
            * reference(
                name,
                "mean_sum_q",
                c,
                &|| unreachable!("exact means read no seeds"),
                0,
            )?),
        _ => Err(format!(
            "`{name}` is not an exact mean (exact means: wr_sum_q, single_server, \
             pooled_exact, jsq_pair_exact)"
        )),
    }
}

/// The fixed parameters of a point (tidy tables).
pub fn parameters(c: &SlottedConfig) -> Vec<(&'static str, Param)> {
    let sys = &c.system;
    let n = |x: f64| Param::Number(x);
    vec![
        ("dispatchers", n(sys.dispatchers() as f64)),
        ("servers", n(sys.servers() as f64)),
        ("lambda_sum", n(sys.lambda_sum())),
        ("mu_sum", n(sys.mu_sum())),
        ("load", n(sys.load())),
        ("epsilon", n(sys.epsilon())),
        ("zeta", n(sys.zeta())),
        ("arrivals", Param::common(&sys.arrivals)),
        ("service", Param::common(&sys.service)),
        ("granularity", Param::tag(&c.granularity)),
        ("count_own", Param::Flag(c.count_own)),
        ("slots", n(c.run.slots as f64)),
        ("warmup", n(c.run.warmup as f64)),
    ]
}

/// One line on the system, for `lb show`.
pub fn describe(c: &SlottedConfig) -> Vec<String> {
    let sys = &c.system;
    vec![format!(
        "M = {}, N = {}, λ_Σ = {:.6}, μ_Σ = {:.6}, load ρ = {:.6}, ε = {:.6}, ζ = {:.6}",
        sys.dispatchers(),
        sys.servers(),
        sys.lambda_sum(),
        sys.mu_sum(),
        sys.load(),
        sys.epsilon(),
        sys.zeta()
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use lb_core::slotted::{RunLength, SystemConfig};

    fn config(policy: PolicyConfig, rates: &[f64]) -> SlottedConfig {
        SlottedConfig {
            system: SystemConfig {
                arrivals: vec![Law::Poisson { mean: 0.6 }; 2],
                service: rates.iter().map(|&p| Law::Bernoulli { p }).collect(),
            },
            policy,
            granularity: Granularity::Job,
            count_own: true,
            run: RunLength {
                slots: 1000,
                warmup: 100,
                batches: 32,
                warmup_rule: Default::default(),
                advance: Default::default(),
                preference: false,
                estimation: false,
            },
        }
    }

    /// Random and WR are one policy on identical servers, and so is their
    /// reference; on unequal servers Random's differs, and an overloaded
    /// server is an error, not a number.
    #[test]
    fn wr_sum_q_covers_random_as_state_independent_routing() {
        let r = |pol, rates: &[f64]| {
            let c = config(pol, rates);
            reference(
                "wr_sum_q",
                "mean_sum_q",
                &c,
                &|| unreachable!("wr_sum_q reads no seeds"),
                0,
            )
        };
        let same = [0.5, 0.5, 0.5];
        let wr = r(PolicyConfig::WeightedRandom, &same).unwrap();
        let random = r(PolicyConfig::Random, &same).unwrap();
        assert!((wr - random).abs() <= 1e-12 * wr, "{wr} vs {random}");
        let mixed = [0.9, 0.6, 0.5];
        let (wr, random) = (
            r(PolicyConfig::WeightedRandom, &mixed).unwrap(),
            r(PolicyConfig::Random, &mixed).unwrap(),
        );
        assert!(random > wr, "Random ignores rates: {random} ≤ {wr}");
        // λ_Σ/3 = 0.4 ≥ 0.35: the slow server is overloaded under Random.
        assert!(r(PolicyConfig::Random, &[0.9, 0.9, 0.35]).is_err());
        assert!(r(PolicyConfig::Jiq, &same).is_err());
    }
}
