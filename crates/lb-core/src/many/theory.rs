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

/// Liu and Ying's k = 1 + 1/(2(b − 1)), for a buffer b ≥ 2.
fn shw_k(buffer: u32) -> f64 {
    1.0 + 1.0 / (2.0 * (buffer as f64 - 1.0))
}

/// Liu and Ying's threshold λ + k·ln N/√N, above which their theorem bounds
/// the mean excess of Σ_{i≤b} S_i (b ≥ 2).
pub fn sub_halfin_whitt_threshold(servers: usize, lambda: f64, buffer: u32) -> f64 {
    let n = servers as f64;
    lambda + shw_k(buffer) * n.ln() / n.sqrt()
}

/// Liu and Ying's bound on the excess E[max{Σ_{i≤b} S_i − λ − k·ln N/√N, 0}]:
/// 29b/(√N·ln N).
pub fn sub_halfin_whitt_excess_bound(servers: usize, buffer: u32) -> f64 {
    let n = servers as f64;
    29.0 * buffer as f64 / (n.sqrt() * n.ln())
}

/// Liu and Ying's bound on E[Σ_{i=1}^b S_i] in the sub-Halfin-Whitt regime
/// λ = 1 − N^(−α): λ + k·ln N/√N + 29b/(√N·ln N), k = 1 + 1/(2(b − 1)) (the
/// corollary of the excess bound).
pub fn sub_halfin_whitt_bound(servers: usize, lambda: f64, buffer: u32) -> f64 {
    sub_halfin_whitt_threshold(servers, lambda, buffer)
        + sub_halfin_whitt_excess_bound(servers, buffer)
}

/// One M/M/1 queue at load λ (service rate 1), with room for at most b jobs
/// (`Some(b)`: M/M/1/b, any λ > 0) or unbounded (`None`: λ < 1). Under
/// Random routing every server of the many-server model is such a queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mm1 {
    /// λ, the arrival rate (the service rate is 1).
    pub lambda: f64,
    /// b, room for at most b jobs; None: unbounded.
    pub buffer: Option<u32>,
}

impl Mm1 {
    /// P(Q ≥ i), i ≥ 1: λ^i unbounded; (λ^i − λ^(b+1))/(1 − λ^(b+1)) for
    /// i ≤ b with a buffer b ((b + 1 − i)/(b + 1) at λ = 1), 0 beyond.
    pub fn occupancy(&self, i: u32) -> f64 {
        let l = self.lambda;
        match self.buffer {
            None => l.powi(i as i32),
            Some(b) if i > b => 0.0,
            Some(b) if l == 1.0 => f64::from(b + 1 - i) / f64::from(b + 1),
            Some(b) => (l.powi(i as i32) - l.powi(b as i32 + 1)) / (1.0 - l.powi(b as i32 + 1)),
        }
    }

    /// P(Q = b): the loss fraction (PASTA); 0 unbounded.
    pub fn loss(&self) -> f64 {
        match self.buffer {
            None => 0.0,
            Some(b) => self.occupancy(b),
        }
    }

    /// E\[Q\] = Σ_i P(Q ≥ i): λ/(1 − λ) unbounded.
    pub fn mean_jobs(&self) -> f64 {
        match self.buffer {
            None => self.lambda / (1.0 - self.lambda),
            Some(b) => (1..=b).map(|i| self.occupancy(i)).sum(),
        }
    }

    /// Mean response time by Little's law: E\[Q\] over the admitted rate
    /// λ(1 − loss); 1/(1 − λ) unbounded.
    pub fn mean_response(&self) -> f64 {
        self.mean_jobs() / (self.lambda * (1.0 - self.loss()))
    }
}

/// Erlang's delay formula C(N, a): the probability that an arrival waits in
/// M/M/N offered a = λN < N erlangs, from B(N, a): C = B/(1 − (a/N)(1 − B)).
pub fn erlang_c(servers: usize, offered: f64) -> f64 {
    let b = erlang_b(servers, offered);
    b / (1.0 - offered / servers as f64 * (1.0 - b))
}

/// The pooled M/M/N queue (one central queue, N servers of rate 1, arrival
/// rate λN, λ < 1): the least mean number of jobs of any dispatching policy
/// on N separate queues. Jobs per server: λ + C(N, λN)·λ/(N(1 − λ)).
pub fn erlang_c_mean_jobs(servers: usize, lambda: f64) -> f64 {
    let n = servers as f64;
    lambda + erlang_c(servers, lambda * n) * lambda / (n * (1.0 - lambda))
}

/// The pooled M/M/N queue's mean response time: 1 + C(N, λN)/(N(1 − λ)).
pub fn erlang_c_mean_response(servers: usize, lambda: f64) -> f64 {
    let n = servers as f64;
    1.0 + erlang_c(servers, lambda * n) / (n * (1.0 - lambda))
}

/// The Power-of-d mean field (Mitzenmacher; Vvedenskaya, Dobrushin and
/// Karpelevich), the N → ∞ fixed point of Power-of-d at load λ < 1:
/// S_i = λ^((d^i − 1)/(d − 1)), and λ^i for d = 1 (Random).
pub fn pod_mean_field_occupancy(lambda: f64, d: usize, i: u32) -> f64 {
    if d == 1 {
        return lambda.powi(i as i32);
    }
    let d = d as f64;
    let exponent = (d.powi(i as i32) - 1.0) / (d - 1.0);
    lambda.powf(exponent)
}

/// Σ_i S_i of the Power-of-d mean field: the mean number of jobs per server
/// (λ/(1 − λ) at d = 1); the terms fall doubly exponentially for d ≥ 2.
pub fn pod_mean_field_mean_jobs(lambda: f64, d: usize) -> f64 {
    if d == 1 {
        return lambda / (1.0 - lambda);
    }
    let mut sum = 0.0;
    for i in 1..=64 {
        let s = pod_mean_field_occupancy(lambda, d, i);
        sum += s;
        if s < 1e-18 * sum {
            break;
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stationary law of a birth–death chain on 0..=K (birth rate
    /// `up(k)`, death rate `down(k)`), by Gaussian elimination on πQ = 0 with
    /// Σπ = 1: a computation independent of the product forms above.
    #[allow(clippy::needless_range_loop)] // matrix code: indices read as the algebra
    fn stationary(k: usize, up: impl Fn(usize) -> f64, down: impl Fn(usize) -> f64) -> Vec<f64> {
        let n = k + 1;
        // Rows: the balance equations Σ_j π_j Q_{j,i} = 0 (columns of Q),
        // the last replaced by Σπ = 1.
        let mut a = vec![vec![0.0; n + 1]; n];
        for i in 0..n {
            for j in 0..n {
                let q = if j + 1 == i {
                    up(j)
                } else if j == i + 1 {
                    down(j)
                } else if j == i {
                    -(if i < k { up(i) } else { 0.0 }) - if i > 0 { down(i) } else { 0.0 }
                } else {
                    0.0
                };
                a[i][j] = q;
            }
        }
        a[n - 1] = vec![1.0; n + 1];
        for c in 0..n {
            let p = (c..n)
                .max_by(|&x, &y| a[x][c].abs().total_cmp(&a[y][c].abs()))
                .unwrap();
            a.swap(c, p);
            for r in 0..n {
                if r != c {
                    let f = a[r][c] / a[c][c];
                    for j in c..=n {
                        a[r][j] -= f * a[c][j];
                    }
                }
            }
        }
        (0..n).map(|i| a[i][n] / a[i][i]).collect()
    }

    fn tail(pi: &[f64], i: usize) -> f64 {
        pi[i..].iter().sum()
    }

    #[test]
    fn mm1_matches_the_solved_chain() {
        // Unbounded (truncated far out) and with buffers, below and above λ = 1.
        for (lambda, buffer, k) in [
            (0.7, None, 300),
            (0.7, Some(4), 4),
            (1.0, Some(3), 3),
            (1.6, Some(5), 5),
        ] {
            let q = Mm1 { lambda, buffer };
            let pi = stationary(k, |_| lambda, |_| 1.0);
            for i in 1..=6u32 {
                let exact = if (i as usize) <= k {
                    tail(&pi, i as usize)
                } else {
                    0.0
                };
                assert!(
                    (q.occupancy(i) - exact).abs() < 1e-12,
                    "λ = {lambda}, b = {buffer:?}, S_{i}: {} vs {exact}",
                    q.occupancy(i)
                );
            }
            let mean: f64 = pi.iter().enumerate().map(|(j, p)| j as f64 * p).sum();
            assert!((q.mean_jobs() - mean).abs() < 1e-10, "{buffer:?}");
            let loss = if buffer.is_some() { pi[k] } else { 0.0 };
            assert!((q.loss() - loss).abs() < 1e-12);
            let response = mean / (lambda * (1.0 - loss));
            assert!((q.mean_response() - response).abs() < 1e-10);
        }
        // The textbook values: λ/(1 − λ) and 1/(1 − λ).
        let q = Mm1 {
            lambda: 0.5,
            buffer: None,
        };
        assert!((q.mean_jobs() - 1.0).abs() < 1e-15 && (q.mean_response() - 2.0).abs() < 1e-15);
    }

    #[test]
    fn erlang_c_matches_the_solved_mmn_chain() {
        for (servers, lambda) in [(1, 0.6), (3, 0.8), (10, 0.9), (25, 0.95)] {
            let k = 700;
            let pi = stationary(k, |_| lambda * servers as f64, |j| j.min(servers) as f64);
            let wait = tail(&pi, servers);
            let c = erlang_c(servers, lambda * servers as f64);
            assert!(
                (c - wait).abs() < 1e-10,
                "N = {servers}: C = {c}, chain {wait}"
            );
            let jobs: f64 = pi.iter().enumerate().map(|(j, p)| j as f64 * p).sum();
            let per = jobs / servers as f64;
            assert!((erlang_c_mean_jobs(servers, lambda) - per).abs() < 1e-9);
            assert!((erlang_c_mean_response(servers, lambda) - per / lambda).abs() < 1e-9);
        }
        // One server: M/M/1, C = λ.
        assert!((erlang_c(1, 0.6) - 0.6).abs() < 1e-15);
    }

    #[test]
    fn pod_mean_field_is_the_fixed_point_of_the_ode() {
        // ds_i/dt = λ(s_{i−1}^d − s_i^d) − (s_i − s_{i+1}), s_0 = 1, from
        // empty, integrated (Euler) to its fixed point.
        for (lambda, d) in [(0.9, 2), (0.7, 3), (0.95, 5), (0.8, 1)] {
            let m = 200;
            let mut s = vec![0.0f64; m + 2];
            s[0] = 1.0;
            let dt = 0.02;
            for _ in 0..400_000 {
                let old = s.clone();
                for i in 1..=m {
                    let f = |x: f64| x.powi(d as i32);
                    s[i] += dt * (lambda * (f(old[i - 1]) - f(old[i])) - (old[i] - old[i + 1]));
                }
            }
            for i in 1..=6u32 {
                let x = pod_mean_field_occupancy(lambda, d, i);
                assert!(
                    (x - s[i as usize]).abs() < 1e-9,
                    "λ = {lambda}, d = {d}, S_{i}: {x} vs {}",
                    s[i as usize]
                );
            }
            let total: f64 = s[1..=m].iter().sum();
            assert!(
                (pod_mean_field_mean_jobs(lambda, d) - total).abs() < 1e-8,
                "d = {d}"
            );
        }
    }

    #[test]
    fn sub_halfin_whitt_bounds_by_hand() {
        // N = 100, b = 4: k = 7/6; 29·4/(10·ln 100) = 2.518908…
        let x = sub_halfin_whitt_excess_bound(100, 4);
        assert!((x - 116.0 / (10.0 * 100f64.ln())).abs() < 1e-15);
        assert!((x - 2.518_908).abs() < 1e-6);
        let t = sub_halfin_whitt_threshold(100, 0.75, 4);
        assert!((t - (0.75 + 7.0 / 6.0 * 100f64.ln() / 10.0)).abs() < 1e-15);
        assert_eq!(sub_halfin_whitt_bound(100, 0.75, 4), t + x);
    }

    #[test]
    fn erlang_b_matches_known_values() {
        // B(1, a) = a/(1 + a); B(2, 1) = 1/5.
        assert!((erlang_b(1, 0.5) - 1.0 / 3.0).abs() < 1e-15);
        assert!((erlang_b(2, 1.0) - 0.2).abs() < 1e-15);
    }
}
