//! A dispatcher's estimates kept in order, for L-JSQ's water-filling under
//! `job` granularity with `count_own` (issue 14).
//!
//! A water-fill of a batch raises the least c estimates to a level L and a
//! uniform r-subset of them to L + 1
//! ([`water_fill`](crate::slotted::sampling::water_fill)); sorting all N
//! estimates for each batch was most of a slot. Here the order is kept
//! instead. A fill keeps it: the head becomes flat (those at L, then the r at
//! L + 1, all at most the next estimate), the rest is untouched. A Push or
//! Pull that sets one estimate moves one server, shifting those in between by
//! one place (a memory move). On the LSQ line's workload the estimates form
//! a plateau of most servers within a few jobs of each other, the pushed
//! servers below it; keeping only the lowest part in order, and pulling more
//! in when a fill reaches its end, measured slower than keeping all of it.
//!
//! The law is that of `water_fill`: the same head, level and r for the same
//! estimates; the r-subset is uniform over the head, drawn by Floyd's
//! algorithm over the head's positions in this order (or its complement,
//! when smaller).

use crate::slotted::sampling::below;
use rand::Rng;

/// Servers up to this many are kept as u16.
pub const ORDER_MAX: usize = 1 << 16;

/// One dispatcher's estimates in order.
#[derive(Clone, Debug)]
pub struct FillOrder {
    /// The servers by non-decreasing estimate (ties in no particular order),
    /// and their estimates.
    ids: Vec<u16>,
    vs: Vec<u64>,
    /// Scratch: a bit set over head positions, the head reordered.
    chosen: Vec<u64>,
    tmp: Vec<u16>,
}

impl FillOrder {
    /// The order of `vals` (1 ≤ N ≤ [`ORDER_MAX`]).
    pub fn new(vals: &[u64]) -> FillOrder {
        let n = vals.len();
        assert!((1..=ORDER_MAX).contains(&n));
        let mut pairs: Vec<(u64, u16)> = vals
            .iter()
            .enumerate()
            .map(|(s, &v)| (v, s as u16))
            .collect();
        pairs.sort_unstable();
        FillOrder {
            ids: pairs.iter().map(|p| p.1).collect(),
            vs: pairs.iter().map(|p| p.0).collect(),
            chosen: Vec::new(),
            tmp: Vec::new(),
        }
    }

    /// The position of server `s`, whose estimate is `v`: among the servers
    /// at v, compared sixteen at a time (no branch per server; the estimates
    /// often tie by the dozen).
    fn find(&self, s: usize, v: u64) -> usize {
        let from = self.vs.partition_point(|&x| x < v);
        let s = s as u16;
        for (k, chunk) in self.ids[from..].chunks(16).enumerate() {
            let hits = chunk
                .iter()
                .enumerate()
                .fold(0u32, |m, (j, &x)| m | ((x == s) as u32) << j);
            if hits != 0 {
                return from + 16 * k + hits.trailing_zeros() as usize;
            }
        }
        unreachable!("server {s} is among those at its estimate {v}")
    }

    /// Server `s`'s estimate changed from `old` to `new`.
    pub fn moved(&mut self, s: usize, old: u64, new: u64) {
        if new == old {
            return;
        }
        let i = self.find(s, old);
        if new < old {
            // Before the first estimate above `new`, among those before i.
            let j = self.vs[..i].partition_point(|&x| x <= new);
            self.vs.copy_within(j..i, j + 1);
            self.ids.copy_within(j..i, j + 1);
            self.vs[j] = new;
            self.ids[j] = s as u16;
        } else {
            // After the last estimate up to `new`, among those after i.
            let j = i + self.vs[i + 1..].partition_point(|&x| x <= new);
            self.vs.copy_within(i + 1..j + 1, i);
            self.ids.copy_within(i + 1..j + 1, i);
            self.vs[j] = new;
            self.ids[j] = s as u16;
        }
    }

    /// Water-fills `a` ≥ 1 jobs onto the estimates `vals` (kept in this
    /// order; ties uniform), raising them (`count_own`) and calling
    /// `put(server, count)`.
    pub fn fill<R: Rng + ?Sized>(
        &mut self,
        rng: &mut R,
        vals: &mut [u64],
        a: u64,
        mut put: impl FnMut(usize, u64),
    ) {
        debug_assert!(a > 0);
        // The head: the lowest c servers such that raising the first c − 1
        // to the c-th's estimate costs at most a (ties come in whole). The
        // cost grows by c·(v_c − v_(c−1)) a step: exact while it is ≤ a.
        let n = self.vs.len();
        let (mut c, mut cost) = (1usize, 0u64);
        while c < n {
            let step = (self.vs[c] - self.vs[c - 1]).saturating_mul(c as u64);
            cost = cost.saturating_add(step);
            if cost > a {
                break;
            }
            c += 1;
        }
        let total = a as u128 + self.vs[..c].iter().map(|&v| v as u128).sum::<u128>();
        let level = (total / c as u128) as u64;
        let r = (total % c as u128) as usize;
        // A uniform r-subset of the head positions gets L + 1 (or, when
        // r > c/2, all but a uniform (c − r)-subset).
        let (j, plus) = if 2 * r <= c { (r, 1) } else { (c - r, 0) };
        self.chosen.clear();
        self.chosen.resize(c.div_ceil(64), 0);
        for i in c - j..c {
            let t = below(rng, i + 1);
            let hit = self.chosen[t / 64] >> (t % 64) & 1;
            let x = if hit == 1 { i } else { t };
            self.chosen[x / 64] |= 1 << (x % 64);
        }
        // The new head: those at L, then those at L + 1 (the order kept).
        self.tmp.clear();
        self.tmp.resize(c, 0);
        let (mut low, mut high) = (0, c - r);
        for pos in 0..c {
            let s = self.ids[pos];
            let picked = self.chosen[pos / 64] >> (pos % 64) & 1;
            let up = picked ^ (1 - plus);
            let target = level + up;
            let old = vals[s as usize];
            if target > old {
                put(s as usize, target - old);
            }
            vals[s as usize] = target;
            let at = if up == 1 { &mut high } else { &mut low };
            self.tmp[*at] = s;
            *at += 1;
        }
        self.ids[..c].copy_from_slice(&self.tmp);
        self.vs[..c - r].fill(level);
        self.vs[c - r..c].fill(level + 1);
    }

    /// Checks the order against `vals` (tests).
    #[cfg(test)]
    pub fn check(&self, vals: &[u64]) {
        assert!(self.vs.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(self.ids.len(), vals.len());
        let mut seen = vec![false; vals.len()];
        for (i, &s) in self.ids.iter().enumerate() {
            assert!(!std::mem::replace(&mut seen[s as usize], true));
            assert_eq!(vals[s as usize], self.vs[i]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slotted::sampling::water_fill;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Random histories of fills and moves keep the order; from states along
    /// them, a fill has the law of `water_fill` on the same estimates (the
    /// joint outcome, chi-square), whatever order the ties are held in.
    #[test]
    fn fills_have_the_law_of_water_fill() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        for n in [1usize, 7, 60, 100] {
            let mut vals: Vec<u64> = (0..n as u64).map(|i| (i * 37) % 23).collect();
            let mut order = FillOrder::new(&vals);
            order.check(&vals);
            for step in 0..300 {
                if step % 3 == 0 {
                    let a = 1 + below(&mut rng, 3 * n) as u64;
                    let mut x = vec![0u64; n];
                    let before = vals.clone();
                    order.fill(&mut rng, &mut vals, a, |s, c| x[s] += c);
                    assert!((0..n).all(|s| vals[s] == before[s] + x[s]));
                } else {
                    let s = below(&mut rng, n);
                    let low = *vals.iter().min().unwrap();
                    let new = low / 2 + below(&mut rng, 60) as u64;
                    let old = vals[s];
                    vals[s] = new;
                    order.moved(s, old, new);
                }
                order.check(&vals);
                if step % 97 == 96 {
                    let a = 1 + below(&mut rng, 2 * n) as u64;
                    let mut seen = std::collections::BTreeMap::<Vec<u64>, [u64; 2]>::new();
                    let mut scratch = Vec::new();
                    for _ in 0..20_000 {
                        let (mut o2, mut v2) = (order.clone(), vals.clone());
                        let mut x = vec![0u64; n];
                        o2.fill(&mut rng, &mut v2, a, |s, c| x[s] += c);
                        assert_eq!(x.iter().sum::<u64>(), a);
                        seen.entry(x).or_default()[0] += 1;
                        let mut y = vec![0u64; n];
                        water_fill(&mut rng, &vals, a, true, &mut scratch, |s, c| y[s] += c);
                        seen.entry(y).or_default()[1] += 1;
                    }
                    crate::slotted::sampling::tests::same_law(&format!("n {n} step {step}"), &seen);
                }
            }
        }
    }
}
