//! Exact results the simulator is held against (issue 2's tests, and the
//! `validation` experiment's claims).

use crate::law::Law;

/// E[Q] at the start of a slot for one discrete-time queue with i.i.d.
/// arrivals (mean λ, variance σ²) and Bernoulli(q) service, arrivals before
/// service and D = min(Q + A, S): E[Q] = (σ² + ν² + ε² − ε)/(2ε), ε = q − λ,
/// ν² = q(1−q). With Bernoulli(p) arrivals this is p(1−q)/(q−p); with
/// Poisson(λ), (λ + q(1−q) + ε² − ε)/(2ε). Derivation: the Lindley recursion
/// Q' = Q + A − S + U with U ∈ {0,1} and U·(Q+A−S+U) = 0 when S ≤ 1, squared
/// and averaged in steady state.
pub fn single_server_bernoulli_service(lambda: f64, sigma2: f64, q: f64) -> f64 {
    let eps = q - lambda;
    (sigma2 + q * (1.0 - q) + eps * eps - eps) / (2.0 * eps)
}

/// E[Q] for one server with arrival law `a` and Bernoulli(`q`) service.
pub fn single_server(a: &Law, q: f64) -> f64 {
    single_server_bernoulli_service(a.mean(), a.variance(), q)
}

/// The variance of the jobs server n sees under weighted random routing:
/// each dispatcher's A_m is routed to n with probability w. With `job`
/// granularity the split is a thinning: Var = Σ_m (w²·Var A_m + w(1−w)·E A_m).
/// With `batch` granularity the whole A_m goes to n with probability w:
/// Var = Σ_m (w·E[A_m²] − w²·E[A_m]²).
pub fn routed_variance(arrivals: &[Law], w: f64, batch: bool) -> f64 {
    arrivals
        .iter()
        .map(|a| {
            let (m, v) = (a.mean(), a.variance());
            if batch {
                w * (v + m * m) - w * w * m * m
            } else {
                w * w * v + w * (1.0 - w) * m
            }
        })
        .sum()
}
