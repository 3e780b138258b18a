//! The exact stationary E[Q_1 + Q_2] of join-the-shortest-queue on two
//! identical Bernoulli(q) servers, one dispatcher, Bernoulli(p) arrivals, in
//! the slot convention of [`super::sim`]: Q at the start of a slot, the
//! slot's job (if any) joins the shorter queue of the snapshot, then each
//! server serves one job with probability q, a job that arrived in the slot
//! included (D_n = min(Q_n + A_n, S_n)).
//!
//! JSQ has no product form, but on two identical servers its chain is
//! small: the sorted pair (a ≤ b) is Markov whatever the tie-break, written
//! as level s = a + b and gap d = b − a (same parity as s). A slot moves s
//! by −2…+1 and d by at most 2, so ordered by level the transition matrix is
//! banded, and Grassmann, Taksar and Heyman's state reduction (GTH: no
//! subtraction, so no cancellation) solves the chain truncated at a level
//! S and a gap D in O(states · band²). The truncation is chosen from the
//! tail: ΣQ decays at the pooled queue's rate z⁻ˢ, z > 1 the root of
//! E[z^{A − S_Σ}] = 1, and the gap geometrically at the rate of its
//! up-moves against its down-moves; S and D put both tails below e⁻⁴⁵, and
//! the solution's own mass on the truncation's edge is checked to be
//! negligible (else an error).
//!
//! The heavy-traffic experiments decide their limit claims on a control
//! variate, the resource-pooled queue of Zhou, Shroff and Wierman's Lemma 1
//! ([`super::pooled`]), which JSQ follows closely; this exact mean lets the
//! coverage certificate hold that pairing to the truth.

/// E[Q_1 + Q_2] at the start of a slot in steady state (module docs), for
/// arrival probability `p` and service probability `q` per server,
/// p < 2q (else no steady state).
pub fn jsq_pair_mean(p: f64, q: f64) -> Result<f64, String> {
    if !(0.0..=1.0).contains(&p) || !(0.0..=1.0).contains(&q) || q == 0.0 {
        return Err(format!(
            "JSQ on two servers needs probabilities 0 ≤ p ≤ 1 and 0 < q ≤ 1 (got p = {p}, q = {q})"
        ));
    }
    if p >= 2.0 * q {
        return Err(format!(
            "the arrival rate {p} is not below the two servers' 2q = {}: no steady state",
            2.0 * q
        ));
    }
    if p == 0.0 {
        return Ok(0.0);
    }
    let (top, gap) = truncation(p, q);
    let chain = Chain::new(p, q, top, gap);
    let states = chain.states.clone();
    let pi = chain.stationary();
    let (mut mean, mut edge) = (0.0, 0.0);
    for (i, &(s, d)) in states.iter().enumerate() {
        mean += pi[i] * s as f64;
        if s == top || d + 2 > gap {
            edge += pi[i];
        }
    }
    if edge > 1e-14 {
        return Err(format!(
            "JSQ on two servers: the truncated chain (level {top}, gap {gap}) holds {edge:e} \
             of its mass on its edge"
        ));
    }
    Ok(mean)
}

/// The level S and gap D (module docs).
fn truncation(p: f64, q: f64) -> (usize, usize) {
    // The pooled queue's decay rate: f(z) = E[z^A]·E[z^{−S_1}]² − 1 has
    // f(1) = 0, f'(1) = p − 2q < 0 and f → ∞; bisection on its root above 1.
    let f = |z: f64| (1.0 - p + p * z) * (1.0 - q + q / z).powi(2) - 1.0;
    let (mut lo, mut hi) = (1.0, 2.0);
    while f(hi) < 0.0 {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < 0.0 { lo = mid } else { hi = mid }
    }
    let top = (45.0 / lo.ln()).ceil() as usize + 16;
    // The gap grows only when the shorter queue alone serves and nothing
    // arrives; it shrinks on an arrival or when the longer alone serves.
    let up = (1.0 - p) * q * (1.0 - q);
    let down = p + (1.0 - p) * q * (1.0 - q);
    let gap = if up == 0.0 {
        4
    } else {
        (45.0 / (down / up).ln()).ceil() as usize + 4
    };
    (top, gap.min(top))
}

/// The truncated chain, states ordered by level then gap, and its
/// transition matrix stored as a band.
struct Chain {
    states: Vec<(usize, usize)>,
    /// The index of (s, d) is `first[s] + d / 2` (d of the parity of s).
    first: Vec<usize>,
    band: usize,
    /// Row i, column j at `i * (2·band + 1) + (j + band − i)`.
    p: Vec<f64>,
}

impl Chain {
    fn new(p: f64, q: f64, top: usize, gap: usize) -> Chain {
        let mut states = Vec::new();
        let mut first = Vec::with_capacity(top + 1);
        for s in 0..=top {
            first.push(states.len());
            let mut d = s % 2;
            while d <= s.min(gap) {
                states.push((s, d));
                d += 2;
            }
        }
        // Levels s − 2 … s + 1 hold every target: at most 4 levels of
        // ⌊gap/2⌋ + 1 states each.
        let band = 4 * (gap / 2 + 1);
        let width = 2 * band + 1;
        let mut chain = Chain {
            p: vec![0.0; states.len() * width],
            states,
            first,
            band,
        };
        for i in 0..chain.states.len() {
            let (s, d) = chain.states[i];
            let (a, b) = ((s - d) / 2, (s + d) / 2);
            // No arrival admitted at the top level (the truncation).
            let arrive = if s == top { 0.0 } else { p };
            for (joined, pa) in [(false, 1.0 - arrive), (true, arrive)] {
                if pa == 0.0 {
                    continue;
                }
                let (a1, b1) = if joined { (a + 1, b) } else { (a, b) };
                let (a1, b1) = (a1.min(b1), a1.max(b1));
                let serve = |x: usize| if x > 0 { q } else { 0.0 };
                for (da, pa1) in [(0, 1.0 - serve(a1)), (1, serve(a1))] {
                    for (db, pb1) in [(0, 1.0 - serve(b1)), (1, serve(b1))] {
                        let w = pa * pa1 * pb1;
                        if w == 0.0 {
                            continue;
                        }
                        let (x, y) = (a1 - da, b1 - db);
                        let (s2, mut d2) = (x + y, x.abs_diff(y));
                        // A gap beyond the truncation stays at its edge.
                        while d2 > gap.min(s2) {
                            d2 -= 2;
                        }
                        let j = chain.index(s2, d2);
                        *chain.at(i, j) += w;
                    }
                }
            }
        }
        chain
    }

    fn index(&self, s: usize, d: usize) -> usize {
        self.first[s] + d / 2
    }

    fn at(&mut self, i: usize, j: usize) -> &mut f64 {
        debug_assert!(i.abs_diff(j) <= self.band, "outside the band");
        let w = 2 * self.band + 1;
        &mut self.p[i * w + j + self.band - i]
    }

    fn get(&self, i: usize, j: usize) -> f64 {
        let w = 2 * self.band + 1;
        self.p[i * w + j + self.band - i]
    }

    /// The stationary law by GTH state reduction within the band: states
    /// eliminated from the last, each one's mass redistributed over the
    /// earlier states it can reach; then back-substitution.
    fn stationary(mut self) -> Vec<f64> {
        let n = self.states.len();
        let b = self.band;
        let mut out = vec![0.0; n];
        for k in (1..n).rev() {
            let lo = k.saturating_sub(b);
            let total: f64 = (lo..k).map(|j| self.get(k, j)).sum();
            out[k] = total;
            if total == 0.0 {
                continue;
            }
            for i in lo..k {
                let f = self.get(i, k) / total;
                if f == 0.0 {
                    continue;
                }
                for j in lo..k {
                    let v = self.get(k, j);
                    if v != 0.0 {
                        *self.at(i, j) += f * v;
                    }
                }
            }
        }
        let mut pi = vec![0.0; n];
        pi[0] = 1.0;
        for j in 1..n {
            let lo = j.saturating_sub(b);
            let inflow: f64 = (lo..j).map(|i| pi[i] * self.get(i, j)).sum();
            pi[j] = if out[j] > 0.0 { inflow / out[j] } else { 0.0 };
        }
        let total: f64 = pi.iter().sum();
        pi.iter_mut().for_each(|x| *x /= total);
        pi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same chain built without the band, on the full (a, b) grid
    /// truncated at `top` jobs a queue, solved by power iteration: checks
    /// the sorted-pair reduction, the band and GTH at once.
    fn brute_force(p: f64, q: f64, top: usize) -> f64 {
        let idx = |a: usize, b: usize| a * (top + 1) + b;
        let n = (top + 1) * (top + 1);
        let mut pi = vec![0.0; n];
        pi[0] = 1.0;
        for _ in 0..200_000 {
            let mut next = vec![0.0; n];
            for a in 0..=top {
                for b in 0..=top {
                    let m = pi[idx(a, b)];
                    if m == 0.0 {
                        continue;
                    }
                    for (arr, pa) in [(false, 1.0 - p), (true, p)] {
                        // The shorter queue takes the job, ties to either
                        // with probability 1/2.
                        let targets: Vec<(usize, usize, f64)> = if !arr {
                            vec![(a, b, 1.0)]
                        } else if a < b {
                            vec![((a + 1).min(top), b, 1.0)]
                        } else if b < a {
                            vec![(a, (b + 1).min(top), 1.0)]
                        } else {
                            vec![((a + 1).min(top), b, 0.5), (a, (b + 1).min(top), 0.5)]
                        };
                        for (x, y, pt) in targets {
                            for (dx, px) in [(0, 1.0 - q), (1, q)] {
                                for (dy, py) in [(0, 1.0 - q), (1, q)] {
                                    let x2 = x.saturating_sub(dx);
                                    let y2 = y.saturating_sub(dy);
                                    let w = pa
                                        * pt
                                        * (if x > 0 { px } else { (dx == 0) as u8 as f64 })
                                        * (if y > 0 { py } else { (dy == 0) as u8 as f64 });
                                    next[idx(x2, y2)] += m * w;
                                }
                            }
                        }
                    }
                }
            }
            let diff: f64 = next.iter().zip(&pi).map(|(x, y)| (x - y).abs()).sum();
            pi = next;
            if diff < 1e-15 {
                break;
            }
        }
        let mut mean = 0.0;
        for a in 0..=top {
            for b in 0..=top {
                mean += pi[idx(a, b)] * (a + b) as f64;
            }
        }
        mean
    }

    #[test]
    fn matches_the_unreduced_chain() {
        for (p, q) in [(0.3, 0.5), (0.6, 0.4), (0.5, 0.3)] {
            let exact = jsq_pair_mean(p, q).unwrap();
            let brute = brute_force(p, q, 40);
            assert!(
                (exact - brute).abs() < 1e-9 * brute.max(1.0),
                "p = {p}, q = {q}: {exact} against {brute}"
            );
        }
    }

    /// Between the resource-pooled queue (pathwise below any policy) and
    /// weighted random routing's two independent queues (JSQ is better).
    #[test]
    fn lies_between_the_pooled_queue_and_random_routing() {
        use crate::slotted::law::Law;
        for (p, q) in [(0.5, 0.5), (0.9, 0.5), (0.95, 0.5), (0.99, 0.5), (0.7, 0.9)] {
            let jsq = jsq_pair_mean(p, q).unwrap();
            let pooled = crate::slotted::pooled::pooled_mean(
                &[Law::Bernoulli { p }],
                &[Law::Bernoulli { p: q }, Law::Bernoulli { p: q }],
            )
            .unwrap()
            .mean;
            // Each server under random routing: Bernoulli(p/2) arrivals.
            let random = 2.0 * (p / 2.0) * (1.0 - q) / (q - p / 2.0);
            assert!(
                pooled < jsq && jsq < random,
                "p = {p}: {pooled} < {jsq} < {random}"
            );
        }
    }

    #[test]
    fn refuses_an_overloaded_pair() {
        assert!(
            jsq_pair_mean(1.0, 0.5)
                .unwrap_err()
                .contains("no steady state")
        );
        assert_eq!(jsq_pair_mean(0.0, 0.5).unwrap(), 0.0);
    }
}
