//! The exact mean of the resource-pooled single queue of Zhou, Shroff and
//! Wierman (Lemma 1): arrivals A_Σ(t) = Σ_m A_m(t), service S_Σ(t) = Σ_n
//! S_n(t), and Q(t+1) = max(Q(t) + A_Σ(t) − S_Σ(t), 0), the queue
//! [`super::sim::pooled_mean_queue`] runs on a replication's own arrivals and
//! service. Pathwise it lies below every policy's ΣQ, and in heavy traffic a
//! policy with state-space collapse follows it closely, which makes it a
//! control variate for E\[ΣQ\] once its own mean is known exactly.
//!
//! # The mean
//! This is the discrete-time bulk-service queue (Bailey's, in slots): the
//! service S_Σ is bounded by c = Σ_n c_n, c_n the most server n can serve in a
//! slot. With W = Q + A_Σ − S_Σ + c ≥ 0 and K(z) = E[z^{A_Σ + c − S_Σ}] =
//! Π_m E[z^{A_m}]·Π_n E[z^{c_n − S_n}], the stationary generating function is
//!
//! Q(z)·(z^c − K(z)) = Σ_{j<c} P(W = j)·(z^c − z^j).
//!
//! The right side is a polynomial of degree c; it vanishes at the c zeros of
//! z^c − K(z) in the closed unit disk (Rouché: exactly c when ε = μ_Σ − λ_Σ > 0),
//! z = 1 and z_1, …, z_{c−1} with |z_k| < 1, so it is C·(z − 1)·Π_k (z − z_k).
//! Differentiating log Q(z) at z = 1 gives
//!
//! E\[Q\] = (σ² + ε² + ε)/(2ε) − c + Σ_k 1/(1 − z_k),
//!
//! σ² = Var A_Σ + Var S_Σ. With c = 1 the sum is empty and this is the
//! single-server formula of [`super::theory::single_server_bernoulli_service`].
//! The z_k are found together by the Aberth–Ehrlich iteration with z = 1
//! deflated, and then certified: c − 1 distinct zeros strictly inside the
//! disk are all of them, and the boundary probabilities P(W = j) they imply
//! (the coefficients of C·(z − 1)·Π_k (z − z_k)) must come out real and
//! non-negative.

use super::config::SlottedConfig;
use super::law::{Law, Sampler};
use super::observer::Observer;
use super::summary::RunSummary;
use crate::stability::Trace;
use crate::streams::{Seeds, ServiceWords, Streams};

/// Runs the pooled queue on replication `r`'s arrivals and service (the
/// streams every policy at the point reads): Q(t+1) = Q(t) + A_Σ(t) −
/// min(Q(t) + A_Σ(t), S_Σ(t)), with `run.warmup` slots discarded. What a
/// single queue has no notion of is left out: no dispatch messages, no
/// per-job response times (Little's law gives the mean, `little_response`),
/// and `completed` counts the window's arrivals that left in it (FIFO).
pub(crate) fn run_pooled<O: Observer>(
    cfg: &SlottedConfig,
    seeds: &Seeds,
    r: u64,
    obs: &mut O,
) -> RunSummary {
    let srv: Vec<Sampler> = cfg.system.service.iter().map(|l| l.sampler()).collect();
    // Bernoulli servers (the heavy-traffic experiments'): S_n(t) is one
    // comparison of its word, in a loop of its own; the same S_n(t) as the
    // sampler draws.
    match srv
        .iter()
        .map(Sampler::bernoulli_threshold)
        .collect::<Option<Vec<u64>>>()
    {
        Some(thr) => pooled_loop(cfg, seeds, r, obs, |i, u| {
            crate::slotted::law::bernoulli(thr[i], u)
        }),
        None => pooled_loop(cfg, seeds, r, obs, |i, u| srv[i].sample_word(u)),
    }
}

/// The slot loop of [`run_pooled`]; `offer(n, word)` is S_n(t) from its word.
fn pooled_loop<O: Observer>(
    cfg: &SlottedConfig,
    seeds: &Seeds,
    r: u64,
    obs: &mut O,
    offer: impl Fn(usize, u64) -> u64,
) -> RunSummary {
    let n = cfg.system.servers();
    let mut st = Streams::new(seeds, r, n);
    let arr: Vec<Sampler> = cfg.system.arrivals.iter().map(|l| l.sampler()).collect();
    let (slots, warm) = (cfg.run.slots, cfg.run.warmup);
    let window = slots - warm;
    let mut trace = Trace::new(window, cfg.run.batches);
    let mut a = vec![0u64; arr.len()];
    let (mut q, mut acc, mut acc_after) = (0u64, 0u128, 0u128);
    let (mut arrivals, mut served, mut busy_slots) = (0u64, 0u64, 0u64);
    // The jobs present when the window opens, which FIFO serves first.
    let mut backlog = 0u64;
    for t in 0..slots {
        let measuring = t >= warm;
        if t == warm {
            backlog = q;
        }
        let mut total = 0;
        for (am, s) in a.iter_mut().zip(&arr) {
            *am = s.sample(&mut st.arrivals);
            total += *am;
        }
        obs.arrivals(t, &a);
        obs.sum_q(t, q);
        if measuring {
            acc += q as u128;
            trace.add(t - warm, q);
            arrivals += total;
        }
        q += total;
        let mut offered = 0;
        for (i, &start) in st.service.starts().iter().enumerate() {
            let si = offer(i, ServiceWords::word_from(start, t));
            obs.service(i, t, si);
            offered += si;
        }
        let d = offered.min(q);
        if measuring {
            acc_after += q as u128;
            served += d;
            busy_slots += (d > 0) as u64;
        }
        q -= d;
    }
    let w = window as f64;
    let mean = acc as f64 / w;
    let mean_after = acc_after as f64 / w;
    let trace = trace.means();
    RunSummary {
        // Jobs that arrived in the window and left in it, as for a policy:
        // in FIFO order, what was served beyond the opening backlog.
        completed: served.saturating_sub(backlog),
        in_system_end: q,
        completion_events: busy_slots,
        mean_queue: vec![mean],
        ..RunSummary::unfollowed((r, window, arrivals), (mean, mean_after), trace)
    }
}

/// A complex number, for the zeros of z^c − K(z).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Complex {
    re: f64,
    im: f64,
}

impl Complex {
    const ONE: Complex = Complex { re: 1.0, im: 0.0 };
    const ZERO: Complex = Complex { re: 0.0, im: 0.0 };

    fn real(re: f64) -> Complex {
        Complex { re, im: 0.0 }
    }
    fn add(self, o: Complex) -> Complex {
        Complex {
            re: self.re + o.re,
            im: self.im + o.im,
        }
    }
    fn sub(self, o: Complex) -> Complex {
        Complex {
            re: self.re - o.re,
            im: self.im - o.im,
        }
    }
    fn mul(self, o: Complex) -> Complex {
        Complex {
            re: self.re * o.re - self.im * o.im,
            im: self.re * o.im + self.im * o.re,
        }
    }
    fn scale(self, s: f64) -> Complex {
        Complex {
            re: self.re * s,
            im: self.im * s,
        }
    }
    fn div(self, o: Complex) -> Complex {
        let d = o.re * o.re + o.im * o.im;
        Complex {
            re: (self.re * o.re + self.im * o.im) / d,
            im: (self.im * o.re - self.re * o.im) / d,
        }
    }
    fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }
    fn exp(self) -> Complex {
        let m = self.re.exp();
        Complex {
            re: m * self.im.cos(),
            im: m * self.im.sin(),
        }
    }
    fn powi(self, k: u64) -> Complex {
        let (mut acc, mut base, mut k) = (Complex::ONE, self, k);
        while k > 0 {
            if k & 1 == 1 {
                acc = acc.mul(base);
            }
            base = base.mul(base);
            k >>= 1;
        }
        acc
    }
}

/// A factor of K(z) and its derivative at z.
type Jet = (Complex, Complex);

fn jet_mul((u, du): Jet, (v, dv): Jet) -> Jet {
    (u.mul(v), du.mul(v).add(u.mul(dv)))
}

/// (1 − p + p·z)^n and its derivative: Binomial(n, p)'s generating function.
fn binomial_jet(n: u64, p: f64, z: Complex) -> Jet {
    let base = Complex::real(1.0 - p).add(z.scale(p));
    if n == 0 {
        return (Complex::ONE, Complex::ZERO);
    }
    let below = base.powi(n - 1);
    (below.mul(base), below.scale(n as f64 * p))
}

/// E[z^A] and its derivative for an arrival law.
fn arrival_jet(law: &Law, z: Complex) -> Jet {
    match *law {
        Law::Poisson { mean } => {
            let v = z.sub(Complex::ONE).scale(mean).exp();
            (v, v.scale(mean))
        }
        Law::Bernoulli { p } => binomial_jet(1, p, z),
        Law::Binomial { n, p } => binomial_jet(n, p, z),
        Law::Deterministic { k } => {
            if k == 0 {
                (Complex::ONE, Complex::ZERO)
            } else {
                let below = z.powi(k - 1);
                (below.mul(z), below.scale(k as f64))
            }
        }
        Law::Geometric { mean } => {
            // q/(1 − (1 − q)z), q = 1/(1 + μ).
            let q = 1.0 / (1.0 + mean);
            let d = Complex::ONE.sub(z.scale(1.0 - q));
            let v = Complex::real(q).div(d);
            (v, v.scale(1.0 - q).div(d))
        }
    }
}

/// The most a server with law `law` serves in a slot, c_n; None when its
/// service is unbounded (the pooled queue then has no finite boundary).
fn service_bound(law: &Law) -> Option<u64> {
    match *law {
        Law::Bernoulli { .. } => Some(1),
        Law::Binomial { n, .. } => Some(n),
        Law::Deterministic { k } => Some(k),
        Law::Poisson { .. } | Law::Geometric { .. } => None,
    }
}

/// E[z^{c_n − S_n}] and its derivative: c_n − S_n is Binomial(c_n, 1 − p)
/// for Bernoulli and binomial service, 0 for deterministic.
fn service_jet(law: &Law, z: Complex) -> Jet {
    match *law {
        Law::Bernoulli { p } => binomial_jet(1, 1.0 - p, z),
        Law::Binomial { n, p } => binomial_jet(n, 1.0 - p, z),
        _ => (Complex::ONE, Complex::ZERO),
    }
}

/// The pooled queue's arrival and service laws, with c = Σ_n c_n.
struct Pooled<'a> {
    arrivals: &'a [Law],
    service: &'a [Law],
    c: u64,
}

impl Pooled<'_> {
    /// f(z) = z^c − K(z) and f'(z).
    fn f(&self, z: Complex) -> Jet {
        let mut k: Jet = (Complex::ONE, Complex::ZERO);
        for a in self.arrivals {
            k = jet_mul(k, arrival_jet(a, z));
        }
        for s in self.service {
            k = jet_mul(k, service_jet(s, z));
        }
        let below = z.powi(self.c - 1);
        (below.mul(z).sub(k.0), below.scale(self.c as f64).sub(k.1))
    }
}

/// The zeros z_1, …, z_{c−1} of z^c − K(z) inside the unit disk, besides
/// z = 1, and the boundary probabilities P(W = j), j < c, they imply.
#[derive(Clone, Debug)]
pub struct PooledBoundary {
    /// The zeros other than 1, as (re, im).
    pub zeros: Vec<(f64, f64)>,
    /// P(W = j) for j = 0, …, c − 1: P(Q + A_Σ − S_Σ = j − c), the slots in
    /// which c − j of the service goes unused.
    pub boundary: Vec<f64>,
    /// E\[Q\] at the start of a slot.
    pub mean: f64,
}

/// E\[Q_pool\] at the start of a slot, in steady state, for arrivals
/// `arrivals` (one law per dispatcher) and service `service` (one bounded
/// law per server), with its certificate: the zeros and the boundary
/// probabilities. Err (in words) when the queue has no steady state, a
/// service law is unbounded, or the zeros cannot be certified.
pub fn pooled_mean(arrivals: &[Law], service: &[Law]) -> Result<PooledBoundary, String> {
    let mut c = 0u64;
    for s in service {
        c += service_bound(s).ok_or_else(|| {
            "the pooled queue's exact mean needs bounded service (bernoulli, binomial or \
             deterministic); this service is unbounded"
                .to_string()
        })?;
    }
    let lambda: f64 = arrivals.iter().map(Law::mean).sum();
    let mu: f64 = service.iter().map(Law::mean).sum();
    let eps = mu - lambda;
    if eps <= 0.0 || c == 0 {
        return Err(format!(
            "the pooled queue has no steady state: λ_Σ = {lambda} ≥ μ_Σ = {mu}"
        ));
    }
    let sigma2: f64 = arrivals.iter().chain(service).map(Law::variance).sum();
    let p = Pooled {
        arrivals,
        service,
        c,
    };
    let zeros = aberth(&p)?;
    let boundary = boundary_probabilities(&zeros, eps)?;
    let sum: f64 = zeros
        .iter()
        .map(|&z| Complex::ONE.div(Complex::ONE.sub(z)).re)
        .sum();
    let mean = (sigma2 + eps * eps + eps) / (2.0 * eps) - c as f64 + sum;
    Ok(PooledBoundary {
        zeros: zeros.iter().map(|z| (z.re, z.im)).collect(),
        boundary,
        mean,
    })
}

/// The c − 1 zeros of f inside the unit disk other than z = 1, by the
/// Aberth–Ehrlich iteration (Newton's step with the other estimates and
/// z = 1 deflated), started on a circle inside the disk.
fn aberth(p: &Pooled) -> Result<Vec<Complex>, String> {
    let m = (p.c - 1) as usize;
    if m == 0 {
        return Ok(Vec::new());
    }
    let mut z: Vec<Complex> = (0..m)
        .map(|j| {
            let angle = std::f64::consts::TAU * (j as f64 + 0.5) / (m as f64 + 1.0) + 0.1;
            Complex {
                re: 0.5 * angle.cos(),
                im: 0.5 * angle.sin(),
            }
        })
        .collect();
    let mut converged = false;
    for _ in 0..2000 {
        let mut largest = 0.0f64;
        for k in 0..m {
            let (f, df) = p.f(z[k]);
            if f.abs() == 0.0 {
                continue;
            }
            let newton = f.div(df);
            let mut repel = Complex::ONE.div(z[k].sub(Complex::ONE));
            for (j, zj) in z.iter().enumerate() {
                if j != k {
                    repel = repel.add(Complex::ONE.div(z[k].sub(*zj)));
                }
            }
            let step = newton.div(Complex::ONE.sub(newton.mul(repel)));
            z[k] = z[k].sub(step);
            largest = largest.max(step.abs());
        }
        if largest < 1e-15 {
            converged = true;
            break;
        }
    }
    if !converged {
        return Err(format!("the zeros of z^{} − K(z) did not converge", p.c));
    }
    for (k, zk) in z.iter().enumerate() {
        if zk.abs() >= 1.0 - 1e-12 {
            return Err(format!(
                "a zero of z^{} − K(z) came out at |z| = {} (not inside the unit disk)",
                p.c,
                zk.abs()
            ));
        }
        if z[..k].iter().any(|zj| zj.sub(*zk).abs() < 1e-9) {
            return Err(format!("two zeros of z^{} − K(z) coincide", p.c));
        }
    }
    Ok(z)
}

/// P(W = j), j < c, from the zeros: Σ_j P(W = j)(z^c − z^j) =
/// C·(z − 1)·Π_k (z − z_k) with C·Π_k (1 − z_k) = ε, so P(W = j) is minus
/// the coefficient of z^j. Err unless they are real and non-negative.
fn boundary_probabilities(zeros: &[Complex], eps: f64) -> Result<Vec<f64>, String> {
    // Coefficients of (z − 1)·Π_k (z − z_k), lowest degree first.
    let mut poly = vec![Complex::real(-1.0), Complex::ONE];
    let mut norm = Complex::ONE;
    for &zk in zeros {
        let mut next = vec![Complex::ZERO; poly.len() + 1];
        for (i, &a) in poly.iter().enumerate() {
            next[i + 1] = next[i + 1].add(a);
            next[i] = next[i].sub(a.mul(zk));
        }
        poly = next;
        norm = norm.mul(Complex::ONE.sub(zk));
    }
    let scale = Complex::real(eps).div(norm);
    let c = poly.len() - 1;
    let mut out = Vec::with_capacity(c);
    for a in &poly[..c] {
        let pj = a.mul(scale).scale(-1.0);
        if pj.im.abs() > 1e-9 || pj.re < -1e-9 {
            return Err(format!(
                "the zeros imply a boundary probability {} + {}i: not certified",
                pj.re, pj.im
            ));
        }
        out.push(pj.re.max(0.0));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slotted::theory::single_server;

    /// E[Q] of the pooled queue by brute force: the Markov chain of Q
    /// truncated at `top`, solved by Gaussian elimination.
    fn brute_force(arrivals: &[Law], service: &[Law], top: usize) -> f64 {
        // The law of A_Σ and of S_Σ by convolution of pmfs.
        let pmf = |law: &Law, len: usize| -> Vec<f64> {
            let mut v = vec![0.0; len];
            match *law {
                Law::Poisson { mean } => {
                    let mut t = (-mean).exp();
                    for (k, x) in v.iter_mut().enumerate() {
                        *x = t;
                        t *= mean / (k + 1) as f64;
                    }
                }
                Law::Bernoulli { p } => {
                    v[0] = 1.0 - p;
                    v[1] = p;
                }
                Law::Binomial { n, p } => {
                    for (k, x) in v.iter_mut().enumerate().take(n as usize + 1) {
                        let mut b = 1.0;
                        for i in 0..k {
                            b *= (n as usize - i) as f64 / (i + 1) as f64;
                        }
                        *x = b * p.powi(k as i32) * (1.0 - p).powi((n as usize - k) as i32);
                    }
                }
                Law::Deterministic { k } => v[k as usize] = 1.0,
                Law::Geometric { mean } => {
                    let q = 1.0 / (1.0 + mean);
                    for (k, x) in v.iter_mut().enumerate() {
                        *x = q * (1.0 - q).powi(k as i32);
                    }
                }
            }
            v
        };
        let len = top + 1;
        let conv = |a: &[f64], b: &[f64]| {
            let mut out = vec![0.0; len];
            for (i, x) in a.iter().enumerate() {
                for (j, y) in b.iter().enumerate() {
                    if i + j < out.len() {
                        out[i + j] += x * y;
                    }
                }
            }
            out
        };
        let a = arrivals
            .iter()
            .fold(vec![1.0], |acc, l| conv(&acc, &pmf(l, len)));
        let s = service
            .iter()
            .fold(vec![1.0], |acc, l| conv(&acc, &pmf(l, len)));
        // P[i][j]: from i to j (the top state absorbs the overflow).
        let mut m = vec![vec![0.0; len]; len];
        for (i, row) in m.iter_mut().enumerate() {
            for (ak, pa) in a.iter().enumerate() {
                for (sk, ps) in s.iter().enumerate() {
                    let j = (i + ak).saturating_sub(sk).min(top);
                    row[j] += pa * ps;
                }
            }
        }
        // π(P − I) = 0, Σπ = 1: solve Aᵀπ = e with the last equation replaced.
        let mut g = vec![vec![0.0; len + 1]; len];
        for (j, row) in g.iter_mut().enumerate() {
            for i in 0..len {
                row[i] = m[i][j] - if i == j { 1.0 } else { 0.0 };
            }
        }
        g[top].fill(1.0);
        for col in 0..len {
            let piv = (col..len)
                .max_by(|&x, &y| g[x][col].abs().total_cmp(&g[y][col].abs()))
                .unwrap();
            g.swap(col, piv);
            let pivot = g[col].clone();
            for (r, row) in g.iter_mut().enumerate() {
                if r != col {
                    let f = row[col] / pivot[col];
                    if f != 0.0 {
                        for (x, p) in row[col..].iter_mut().zip(&pivot[col..]) {
                            *x -= f * p;
                        }
                    }
                }
            }
        }
        (0..len).map(|i| i as f64 * g[i][len] / g[i][i]).sum()
    }

    #[test]
    fn one_bernoulli_server_is_the_single_server_formula() {
        for (a, q) in [
            (Law::Poisson { mean: 0.3 }, 0.5),
            (Law::Bernoulli { p: 0.45 }, 0.5),
            (Law::Poisson { mean: 0.899 }, 0.9),
        ] {
            let exact = single_server(&a, q);
            let got = pooled_mean(&[a], &[Law::Bernoulli { p: q }]).unwrap();
            assert!(got.zeros.is_empty());
            assert!(
                (got.mean - exact).abs() <= 1e-12 * exact.max(1.0),
                "{a:?}, q = {q}: {} against {exact}",
                got.mean
            );
        }
    }

    #[test]
    fn agrees_with_the_truncated_chain() {
        let b = |p| Law::Bernoulli { p };
        let cases: Vec<(Vec<Law>, Vec<Law>)> = vec![
            // Heterogeneous Bernoulli servers, rates below 1/2 among them.
            (
                vec![Law::Poisson { mean: 0.6 }, Law::Poisson { mean: 0.6 }],
                vec![b(0.2), b(0.4), b(0.9)],
            ),
            (
                vec![Law::Poisson { mean: 2.0 }],
                vec![b(0.2), b(0.3), b(0.5), b(0.6), b(0.9)],
            ),
            (
                vec![Law::Bernoulli { p: 0.7 }, Law::Geometric { mean: 0.5 }],
                vec![Law::Binomial { n: 2, p: 0.5 }, b(0.6)],
            ),
            (
                vec![Law::Binomial { n: 3, p: 0.4 }],
                vec![Law::Deterministic { k: 1 }, b(0.3)],
            ),
        ];
        for (arr, srv) in cases {
            let exact = pooled_mean(&arr, &srv).unwrap();
            let brute = brute_force(&arr, &srv, 400);
            assert!(
                (exact.mean - brute).abs() <= 1e-8 * brute.max(1.0),
                "{arr:?} / {srv:?}: roots give {}, the chain {brute}",
                exact.mean
            );
            let total: f64 = exact.boundary.iter().sum();
            assert!(total > 0.0 && total <= 1.0, "{total}");
        }
    }

    #[test]
    fn reaches_heavy_traffic_and_refuses_overload() {
        // The heavy-traffic experiment's ten servers at ε = 0.001·μ_Σ.
        let rates = [0.2, 0.3, 0.4, 0.5, 0.6, 0.6, 0.7, 0.8, 0.9, 0.9];
        let mu: f64 = rates.iter().sum();
        let srv: Vec<Law> = rates.iter().map(|&p| Law::Bernoulli { p }).collect();
        let eps = 0.001 * mu;
        let lam = (mu - eps) / 2.0;
        let arr = [Law::Poisson { mean: lam }, Law::Poisson { mean: lam }];
        let got = pooled_mean(&arr, &srv).unwrap();
        assert_eq!(got.zeros.len(), 9);
        // Kingman's leading term σ²/(2ε) is within O(c) of it.
        let sigma2: f64 = 2.0 * lam + rates.iter().map(|p| p * (1.0 - p)).sum::<f64>();
        assert!(
            (got.mean - sigma2 / (2.0 * eps)).abs() < 10.0,
            "{}",
            got.mean
        );
        let over = [Law::Poisson { mean: mu }];
        assert!(pooled_mean(&over, &srv).is_err());
        assert!(pooled_mean(&arr, &[Law::Poisson { mean: 9.0 }]).is_err());
    }
}
