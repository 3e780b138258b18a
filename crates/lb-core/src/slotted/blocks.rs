//! Weighted random advanced in blocks of slots, for runs toward heavy traffic.
//!
//! Under weighted random (server n with probability p_n = μ_n/μ_Σ, Zhou,
//! Shroff and Wierman's baseline) no decision reads a queue, so the slot loop
//! of [`super::sim`] spends its time on servers whose state nobody looks at.
//! Toward heavy traffic a run must span many relaxation times (about
//! 1/(μ_n·(ε/μ_Σ)²) slots for server n), which at ε = 0.001·μ_Σ is 10⁹ slots
//! and more. This module advances every server by a block of k slots in one
//! step, with the same law for the state at every block boundary.
//!
//! # The block step
//! With Bernoulli service (S_n(t) ≤ 1) and every queue at least k at the start
//! of a block, no queue can empty within it: Q_n(t+j) ≥ Q_n(t) − j ≥ 1 before
//! slot t+j's service for j < k, so D_n = S_n in each slot and
//! Q_n(t+k) = Q_n(t) + A_n − S_n with the block's totals
//! - S_n ~ Binomial(k, μ_n), independent over servers;
//! - A_n: with `job` granularity each job picks its server independently, so
//!   A_n ~ Poisson(k·λ_Σ·p_n), independent over servers; with `batch`
//!   granularity dispatcher m sends each slot's whole Poisson(λ_m) batch to
//!   one server, so its k picks are Multinomial(k, p) = (c_m1, …, c_mN) and
//!   A_n ~ Poisson(Σ_m λ_m·c_mn) given the picks (the servers' arrivals stay
//!   dependent, as in the slot loop).
//!
//! That is exact: the state at block boundaries has the slot loop's law. A
//! block shorter than 2 slots (some queue below 2) is one slot, drawn in full:
//! D_n = min(Q_n + A_n, S_n). Under `batch` the servers advance together, in
//! blocks as long as the shortest queue. Under `job` granularity the servers
//! are independent queues, so each advances alone (server 0's whole run
//! first), and its block may be longer than its queue: what keeps the queue
//! from emptying is S_n ≤ Q_n, not k ≤ Q_n. Its blocks are sized so that
//! E\[S_n\] = k·μ_n stays a standard deviation below Q_n (at least k = Q_n,
//! always accepted); a block whose drawn S_n exceeds Q_n is cut in two with
//! the halves' totals drawn from their exact conditional law (`Block`).
//!
//! # The area, by conditional expectation
//! Time averages need Σ_{j<k} Q_n(t+j), which depends on the order of the
//! block's increments, not only on their totals. The per-slot increments
//! (A_n(t+j), S_n(t+j))_n are i.i.d. over j, hence exchangeable given the
//! totals, so E[A_n(t+j) − S_n(t+j) | totals] = (A_n − S_n)/k and
//!
//! E[Σ_{j<k} Q_n(t+j) | Q(t), totals] = k·Q_n(t) + (A_n − S_n)·(k − 1)/2.
//!
//! The run adds that conditional expectation (Rao–Blackwell): every time
//! average, a batch's mean included, is an unbiased estimator of what the slot
//! loop's is, with no more variance; the batch means keep the path's
//! correlation between batches, since blocks never straddle a batch boundary
//! (nor the end of warm-up). Twice the area is an integer, and is summed as
//! one exactly.
//!
//! # What a block run does not measure
//! Response times (no FIFO is kept; Little's law gives the mean, as for the
//! pooled queue) and the queue imbalance E[max_n Q_n − min_n Q_n] (not a sum,
//! so the area argument does not give it): the summary's `blocks` says so, and
//! the metrics read none of them. Under `batch` granularity `decisions` counts
//! every dispatcher-slot (a pick for a batch of none changes nothing).

use super::config::{Granularity, SlottedConfig};
use super::law::Law;
use super::sampling::multinomial;
use super::summary::{Blocks, RunSummary};
use crate::stability::{batch_count, batch_start};
use crate::streams::{Seeds, Streams};
use rand::Rng;
use rand_distr::{Binomial, Distribution, Hypergeometric, Poisson};

/// Twice E[Σ_{j<k} Q(t+j) | Q(t) = q, totals A = a, S = d]: 2k·q + (a − d)(k − 1),
/// positive since q ≥ k ≥ d (see the module documentation).
pub(crate) fn twice_block_area(k: u64, q: u64, a: u64, d: u64) -> u128 {
    (2 * k as i128 * q as i128 + (a as i128 - d as i128) * (k as i128 - 1)) as u128
}

/// Below this queue length a server under `job` advances slot by slot.
const SHORT: u64 = 2;

/// One server's block of k slots from queue q, with the block's totals of
/// arrivals a and service opportunities s already drawn. If q ≥ s the queue
/// cannot empty in it (Q(t+j) ≥ q − (service so far) ≥ 0 before each slot's
/// service, so D = S in every slot), and the block's area is its conditional
/// expectation. Otherwise the block is cut in two and the halves' totals drawn
/// from their exact law given the block's — the first half's arrivals
/// Binomial(a, k₁/k) (Poisson arrivals), its service opportunities
/// Hypergeometric(k, s, k₁) (i.i.d. Bernoulli slots) — and each half advanced
/// the same way, down to single slots, where D = min(Q + A, S). Given the
/// totals of an accepted block, its slots are still exchangeable, so its area
/// is still the conditional expectation.
struct Block<'a, R: Rng> {
    rng: &'a mut R,
    /// Twice the area under Q over the block.
    twice: u128,
    /// Departures.
    served: u64,
    /// Blocks accepted.
    steps: u64,
}

impl<R: Rng> Block<'_, R> {
    /// Advances from `q` over `k` slots with totals `a`, `s`; returns Q at the end.
    fn advance(&mut self, q: u64, k: u64, a: u64, s: u64) -> u64 {
        if q >= s {
            self.twice += twice_block_area(k, q, a, s);
            self.served += s;
            self.steps += 1;
            return q + a - s;
        }
        if k == 1 {
            let (d, twice) = one_slot(q, a, s);
            self.twice += twice;
            self.served += d;
            self.steps += 1;
            return q + a - d;
        }
        let k1 = k / 2;
        let a1 = if a == 0 {
            0
        } else {
            Binomial::new(a, k1 as f64 / k as f64)
                .expect("a fraction in [0, 1]")
                .sample(self.rng)
        };
        let s1 = Hypergeometric::new(k, s, k1)
            .expect("s ≤ k and k₁ ≤ k")
            .sample(self.rng);
        let mid = self.advance(q, k1, a1, s1);
        self.advance(mid, k - k1, a - a1, s - s1)
    }
}

/// One slot from queue `q` with `a` arrivals and `s` service offers: the
/// departures D = min(Q + A, S), and twice the slot's area, 2Q (the slot loop
/// reads Q at the slot's start).
fn one_slot(q: u64, a: u64, s: u64) -> (u64, u128) {
    (s.min(q + a), 2 * q as u128)
}

/// Poisson(mean), 0 for a mean of 0.
fn poisson<R: Rng + ?Sized>(rng: &mut R, mean: f64) -> u64 {
    if mean <= 0.0 {
        return 0;
    }
    Poisson::new(mean).expect("a finite mean > 0").sample(rng) as u64
}

/// Runs replication `r` of weighted random in blocks (see the module
/// documentation). Arrivals and service come from the arrival stream, the
/// picks from the policy stream: a block run is not paired with the slot
/// loop's replications.
pub(crate) fn run_blocks(cfg: &SlottedConfig, seeds: &Seeds, r: u64) -> RunSummary {
    let n = cfg.system.servers();
    let mut st = Streams::new(seeds, r, n);
    let mu = cfg.system.mu();
    let mu_sum: f64 = mu.iter().sum();
    let lam: Vec<f64> = cfg.system.arrivals.iter().map(Law::mean).collect();
    let lam_sum: f64 = lam.iter().sum();
    let job = cfg.granularity == Granularity::Job;
    let all: Vec<usize> = (0..n).collect();

    let (slots, warm) = (cfg.run.slots, cfg.run.warmup);
    let window = slots - warm;
    // The batches are the slot loop's trace's.
    let nb = batch_count(window, cfg.run.batches);
    let start = |b: u64| batch_start(b, window, nb);
    let mut batch_twice = vec![0u128; nb as usize];
    // The slot each batch ends at (the last, the run's end).
    let edges: Vec<u64> = (0..nb).map(|b| warm + start(b + 1)).collect();
    let boundary = |t: u64, b: &mut u64| {
        if t < warm {
            return warm;
        }
        while edges[*b as usize] <= t {
            *b += 1;
        }
        edges[*b as usize]
    };

    let mut q = vec![0u64; n];
    let mut twice_area = vec![0u128; n];
    let (mut twice_after, mut arrivals, mut events) = (0u128, 0u64, 0u64);
    let mut served = vec![0u64; n];
    let mut backlog = vec![0u64; n];
    let (mut block_steps, mut slot_steps) = (0u64, 0u64);

    if job {
        // Independent servers (Poisson thinning): each advanced alone, server
        // 0's whole run first, in blocks sized so that S_n rarely exceeds Q_n.
        for s in 0..n {
            let lam_n = lam_sum * mu[s] / mu_sum;
            let one = (lam_n > 0.0).then(|| Poisson::new(lam_n).expect("λ_n > 0"));
            let (mut t, mut b, mut qs) = (0u64, 0u64, 0u64);
            while t < slots {
                let measuring = t >= warm;
                if t == warm {
                    backlog[s] = qs;
                }
                let edge = boundary(t, &mut b);
                let (k, an, d, twice) = if qs >= SHORT {
                    // k = Q is always accepted (S ≤ k); longer, while E[S] =
                    // k·μ stays √Q (about a standard deviation) below Q.
                    let room = qs as f64 - (qs as f64).sqrt();
                    let k = ((room / mu[s]) as u64).max(qs).min(edge - t);
                    let an = poisson(&mut st.arrivals, k as f64 * lam_n);
                    let sn = Binomial::new(k, mu[s])
                        .expect("μ_n in [0, 1]")
                        .sample(&mut st.arrivals);
                    let mut block = Block {
                        rng: &mut st.arrivals,
                        twice: 0,
                        served: 0,
                        steps: 0,
                    };
                    let end = block.advance(qs, k, an, sn);
                    block_steps += block.steps;
                    let (twice, d) = (block.twice, block.served);
                    debug_assert_eq!(end, qs + an - d);
                    (k, an, d, twice)
                } else {
                    let an = one.map_or(0, |p| p.sample(&mut st.arrivals) as u64);
                    let offer = (st.arrivals.random::<f64>() < mu[s]) as u64;
                    slot_steps += 1;
                    let (d, twice) = one_slot(qs, an, offer);
                    (1, an, d, twice)
                };
                if measuring {
                    twice_area[s] += twice;
                    batch_twice[b as usize] += twice;
                    twice_after += twice + 2 * an as u128;
                    arrivals += an;
                    served[s] += d;
                    events += d;
                }
                qs = qs + an - d;
                t += k;
            }
            q[s] = qs;
        }
    } else {
        let mut mean = vec![0f64; n];
        let mut a = vec![0u64; n];
        let (mut t, mut b) = (0u64, 0u64);
        while t < slots {
            let measuring = t >= warm;
            if t == warm {
                backlog.copy_from_slice(&q);
            }
            let edge = boundary(t, &mut b);
            let qmin = q.iter().copied().min().unwrap_or(0);
            let k = if qmin >= 2 { qmin.min(edge - t) } else { 1 };
            // The block's arrivals A_n: dispatcher m's k picks, then the
            // Poisson batches they carried.
            mean.iter_mut().for_each(|x| *x = 0.0);
            for &l in &lam {
                multinomial(
                    &mut st.policy,
                    k,
                    &all,
                    |s| mu[s],
                    |s, c| mean[s] += l * c as f64,
                );
            }
            for (an, &x) in a.iter_mut().zip(&mean) {
                *an = poisson(&mut st.arrivals, x);
            }
            let mut twice_sum = 0u128;
            let total: u64 = a.iter().sum();
            for s in 0..n {
                let (qs, an) = (q[s], a[s]);
                let (d, twice) = if k == 1 {
                    let offer = (st.arrivals.random::<f64>() < mu[s]) as u64;
                    one_slot(qs, an, offer)
                } else {
                    let d = Binomial::new(k, mu[s])
                        .expect("μ_n in [0, 1]")
                        .sample(&mut st.arrivals);
                    (d, twice_block_area(k, qs, an, d))
                };
                if measuring {
                    twice_area[s] += twice;
                    served[s] += d;
                    events += d;
                }
                twice_sum += twice;
                q[s] = qs + an - d;
            }
            if measuring {
                batch_twice[b as usize] += twice_sum;
                twice_after += twice_sum + 2 * total as u128;
                arrivals += total;
            }
            if k == 1 {
                slot_steps += 1;
            } else {
                block_steps += 1;
            }
            t += k;
        }
    }
    let batch_len: Vec<u64> = (0..nb).map(|b| start(b + 1) - start(b)).collect();

    let w = window as f64;
    let mean_sum_q = twice_area.iter().sum::<u128>() as f64 / (2.0 * w);
    let mean_after = twice_after as f64 / (2.0 * w);
    let trace: Vec<f64> = batch_twice
        .iter()
        .zip(&batch_len)
        .map(|(&s, &c)| s as f64 / (2.0 * c.max(1) as f64))
        .collect();
    let completed = served
        .iter()
        .zip(&backlog)
        .map(|(&d, &b)| d.saturating_sub(b))
        .sum();
    RunSummary {
        completed,
        in_system_end: q.iter().sum(),
        decisions: if job {
            arrivals
        } else {
            window * cfg.system.dispatchers() as u64
        },
        completion_events: events,
        messages_per_arrival: (arrivals > 0).then_some(0.0),
        mean_queue: twice_area.iter().map(|&x| x as f64 / (2.0 * w)).collect(),
        blocks: Some(Blocks {
            blocks: block_steps,
            single_slots: slot_steps,
        }),
        ..RunSummary::unfollowed((r, window, arrivals), (mean_sum_q, mean_after), trace)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use std::collections::HashMap;

    /// The area formula against brute force: k slots of one server drawn one
    /// by one (Poisson arrivals, Bernoulli service, from a queue that cannot
    /// empty), grouped by their totals (A, S); in every well-filled cell the
    /// mean path area must be the formula's, within 4.5 standard errors (a
    /// cell fails by chance about once in 3·10⁵). A coefficient (k + 1)/2
    /// instead of (k − 1)/2 moves every cell's mean by A − S, tens of
    /// standard errors in most cells.
    #[test]
    fn block_area_is_the_conditional_mean_of_the_path_area() {
        let mut rng = ChaCha8Rng::seed_from_u64(41);
        let (k, q0, lambda, mu) = (6u64, 6u64, 0.7, 0.55);
        let mut cells: HashMap<(u64, u64), (f64, f64, u64)> = HashMap::new();
        for _ in 0..400_000 {
            let (mut q, mut area, mut a, mut s) = (q0, 0u64, 0u64, 0u64);
            for _ in 0..k {
                area += q;
                let aj = poisson(&mut rng, lambda);
                let sj = (rng.random::<f64>() < mu) as u64;
                q = q + aj - sj;
                a += aj;
                s += sj;
            }
            let e = cells.entry((a, s)).or_default();
            e.0 += area as f64;
            e.1 += (area * area) as f64;
            e.2 += 1;
        }
        let mut checked = 0;
        for ((a, s), (sum, sum2, n)) in cells {
            if n < 500 {
                continue;
            }
            let n_f = n as f64;
            let mean = sum / n_f;
            let var = (sum2 / n_f - mean * mean) * n_f / (n_f - 1.0);
            let formula = twice_block_area(k, q0, a, s) as f64 / 2.0;
            let se = (var / n_f).sqrt().max(1e-9);
            assert!(
                (mean - formula).abs() <= 4.5 * se,
                "A = {a}, S = {s}: mean path area {mean:.3} ± {se:.3} against {formula}"
            );
            checked += 1;
        }
        assert!(checked >= 20, "only {checked} cells filled");
    }
}
