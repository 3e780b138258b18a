//! Exact results for the many-server model, for tests and claims.

/// Random routing makes every server an M/M/1 queue with load λ:
/// S_i = λ^i.
pub fn random_occupancy(lambda: f64, i: u32) -> f64 {
    lambda.powi(i as i32)
}

/// Erlang's loss formula B(N, a): the blocking probability of N servers
/// without waiting room offered a = λN erlangs, by the stable recursion
/// B(0) = 1, B(k) = a·B(k−1) / (k + a·B(k−1)).
pub fn erlang_b(servers: usize, offered: f64) -> f64 {
    (1..=servers).fold(1.0, |b, k| offered * b / (k as f64 + offered * b))
}

/// With buffer b = 1, JSQ, JIQ and I1F send a job to an idle server whenever
/// there is one: the system is M/M/N/N, so the loss fraction is B(N, λN) and
/// S_1 = λ(1 − B(N, λN)).
pub fn loss_system_occupancy(servers: usize, lambda: f64) -> f64 {
    lambda * (1.0 - erlang_b(servers, lambda * servers as f64))
}

/// Seed 004's bound on E[Σ_{i=1}^b S_i] in the sub-Halfin-Whitt regime
/// λ = 1 − N^(−α): λ + k·ln N/√N + 29b/(√N·ln N), k = 1 + 1/(2(b − 1)).
pub fn sub_halfin_whitt_bound(servers: usize, lambda: f64, buffer: u32) -> f64 {
    let n = servers as f64;
    let b = buffer as f64;
    let k = 1.0 + 1.0 / (2.0 * (b - 1.0));
    lambda + k * n.ln() / n.sqrt() + 29.0 * b / (n.sqrt() * n.ln())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erlang_b_matches_known_values() {
        // B(1, a) = a/(1 + a); B(2, 1) = 1/5.
        assert!((erlang_b(1, 0.5) - 1.0 / 3.0).abs() < 1e-15);
        assert!((erlang_b(2, 1.0) - 0.2).abs() < 1e-15);
    }
}
