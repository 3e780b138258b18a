//! L-JSQ's water-fill on unordered estimates, for LSQ's destination sync
//! (Goren, Vargaftik and Moses): a dispatcher places its `a` jobs one at a
//! time, each on a least of its estimates raised by its own jobs
//! (`count_own`), then learns the true queue of every server it sent to.
//!
//! The sync rewrites the estimate of each destination every slot, so an
//! order kept across slots ([`FillOrder`](crate::slotted::order::FillOrder))
//! pays one move per destination on top of the fill: about four fifths of a
//! slot on the LSQ line's workload. Here nothing is kept but the values and
//! their sum, and a fill finds its level by a fixed-point iteration from
//! above, one pass over the values per step.
//!
//! **The level.** With f(L) = Σ_s max(0, L − v_s) the jobs that raise every
//! estimate below L to L, the fill's level is L* = max{L : f(L) ≤ a}: the
//! head {s : v_s ≤ L*} (c servers) is raised to L*, and a uniform r-subset of
//! it to L* + 1, r = a − f(L*) < c — the law of the one-by-one placement
//! ([`water_fill`](crate::slotted::sampling::water_fill)). Since
//! max(0, x) ≥ x, f(L) ≥ N·L − Σv, so L₀ = ⌊(a + Σv)/N⌋ ≥ L*. From any
//! L ≥ L*, h(L) = ⌊(a + S(L))/c(L)⌋, with c(L) and S(L) the count and sum of
//! the estimates ≤ L, satisfies L* ≤ h(L) ≤ L: the line c(L)·x − S(L) lies
//! below f up to L (it adds the negative terms x − v of the estimates in
//! (x, L]), and f(L + 1) > a. So L₀, h(L₀), h(h(L₀)), … falls to the fixed
//! point h(L) = L, which is L*. From L₀ that took 5.3 passes of N a fill on
//! the LSQ line's workload, so a fill starts from the dispatcher's last level
//! (capped at L₀); a start below L* is lifted by one step of h, which lands
//! at or above L*.
//!
//! **The subset.** A partial Fisher–Yates shuffle of the head's servers (in
//! index order) draws the min(r, c − r) of them that differ from the rest.
//! With lowest-index ties the one-by-one placement gives the r extra jobs to
//! the head's r lowest indices, as the sorted
//! [`water_fill`](crate::slotted::sampling::water_fill) does with
//! `random_ties = false`: the same placement, without a random word, so
//! L-JSQ with lowest-index ties fills here too, bit for bit as before.

use crate::streams::below;
use rand::Rng;

/// Scratch for [`ScanFill::fill`]: the head's servers, and the tie rule
/// (uniform by default).
#[derive(Clone, Debug, Default)]
pub struct ScanFill {
    head: Vec<u32>,
    lowest: bool,
}

impl ScanFill {
    /// A fill whose ties are uniform (`random_ties`) or go to the lowest
    /// indices.
    pub fn with_ties(random_ties: bool) -> ScanFill {
        ScanFill {
            head: Vec::new(),
            lowest: !random_ties,
        }
    }

    /// Water-fills `a` ≥ 1 jobs onto the estimates `vals` (whose sum is
    /// `sum`), raising them (`count_own`), ties uniform or (built
    /// [`with_ties`](Self::with_ties)`(false)`) to the lowest indices; calls `put(server, jobs)` once for each
    /// server sent jobs (in the head's shuffled order; in index order with
    /// lowest-index ties, which draw nothing from `rng`).
    /// `hint` is where the search for the level starts, any value (the last
    /// fill's level, which it is set to, saves passes); the outcome does not
    /// depend on it.
    pub fn fill<R: Rng + ?Sized>(
        &mut self,
        rng: &mut R,
        vals: &mut [u64],
        sum: u64,
        a: u64,
        hint: &mut u64,
        mut put: impl FnMut(usize, u64),
    ) {
        debug_assert!(a > 0 && !vals.is_empty());
        debug_assert_eq!(vals.iter().sum::<u64>(), sum);
        // Newton's step h from above; the first point is the hint (the last
        // fill's level), capped at L₀. Below L*, h gives a point above it.
        let top = (a + sum) / vals.len() as u64;
        let mut level = (*hint).min(top);
        let (mut c, mut s) = count_sum(vals, level);
        if c == 0 || c * level - s + c <= a {
            // The hint lies below every estimate, or f(hint + 1) ≤ a: it is
            // below L*. Start above.
            level = (a + s).checked_div(c).map_or(top, |h| h.min(top));
            (c, s) = count_sum(vals, level);
        }
        let (c, below_sum) = loop {
            debug_assert!(c > 0, "L ≥ L* ≥ the least estimate");
            let next = (a + s) / c;
            if next == level {
                break (c as usize, s);
            }
            debug_assert!(next < level);
            level = next;
            (c, s) = count_sum(vals, level);
        };
        *hint = level;
        let r = (a + below_sum - level * c as u64) as usize;
        debug_assert!(r < c);
        // The head, in index order (a branch-free compaction).
        self.head.clear();
        self.head.resize(vals.len(), 0);
        let mut k = 0;
        for (s, &v) in vals.iter().enumerate() {
            self.head[k] = s as u32;
            k += (v <= level) as usize;
        }
        debug_assert_eq!(k, c);
        let head = &mut self.head[..c];
        // The first j of the head become a uniform j-subset: those at L + 1
        // when r ≤ c/2, else those left at L. Lowest-index ties: the first r
        // in index order are those at L + 1.
        let random_ties = !self.lowest;
        let (j, plus) = if !random_ties || 2 * r <= c {
            (r, 1)
        } else {
            (c - r, 0)
        };
        if random_ties {
            for i in 0..j {
                let t = i + below(rng, c - i);
                head.swap(i, t);
            }
        }
        for (pos, &s) in head.iter().enumerate() {
            let s = s as usize;
            let target = level + ((pos < j) as u64 ^ (1 - plus));
            let inc = target - vals[s];
            if inc > 0 {
                put(s, inc);
            }
            vals[s] = target;
        }
    }
}

/// The count and the sum of the estimates ≤ `x`, in one branch-free pass.
#[inline]
fn count_sum(vals: &[u64], x: u64) -> (u64, u64) {
    vals.iter().fold((0, 0), |(c, s), &v| {
        let inside = (v <= x) as u64;
        (c + inside, s + inside * v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slotted::sampling::water_fill;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Random estimate vectors (clustered, spread, with ties, N = 1 to 300)
    /// and batches of every size: the level, the head and r are those of the
    /// sorted water-fill (lowest-index ties, so the two must agree on which
    /// servers are raised to what, up to the r-subset), and the jobs placed
    /// sum to a, each server's final value its estimate plus its jobs; the
    /// hint, from anywhere, ends at the level.
    #[test]
    fn level_and_head_are_those_of_the_sorted_fill() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut scan = ScanFill::default();
        let mut order = Vec::new();
        for n in [1usize, 2, 3, 10, 100, 300] {
            for case in 0..400 {
                let spread = [1, 3, 20, 1000][case % 4];
                let base = below(&mut rng, 50) as u64;
                let vals: Vec<u64> = (0..n)
                    .map(|_| base + below(&mut rng, spread) as u64)
                    .collect();
                let a = 1 + below(&mut rng, [1, n, 10 * n, 1000 * n][case / 4 % 4]) as u64;
                let mut got = vals.clone();
                let mut x = vec![0u64; n];
                // Any start: below, at or above the level, or past every
                // estimate.
                let mut hint = [0, base + below(&mut rng, 2 * spread) as u64, u64::MAX][case % 3];
                scan.fill(
                    &mut rng,
                    &mut got,
                    vals.iter().sum(),
                    a,
                    &mut hint,
                    |s, c| x[s] += c,
                );
                assert_eq!(got.iter().min(), Some(&hint));
                assert!((0..n).all(|s| x[s] == 0 || got[s] <= hint + 1));
                assert_eq!(x.iter().sum::<u64>(), a, "n {n} case {case}");
                let mut want = vec![0u64; n];
                water_fill(&mut rng, &vals, a, false, &mut order, |s, c| want[s] += c);
                // The same levels reached, as multisets of final values.
                let (mut f1, mut f2): (Vec<u64>, Vec<u64>) =
                    (got.clone(), (0..n).map(|s| vals[s] + want[s]).collect());
                f1.sort_unstable();
                f2.sort_unstable();
                assert_eq!(f1, f2, "n {n} case {case} a {a}");
                assert!((0..n).all(|s| got[s] == vals[s] + x[s]));
            }
        }
    }

    /// With lowest-index ties a fill is the sorted `water_fill`'s placement
    /// exactly (every server's jobs, from random estimates of N = 1 to 300
    /// and batches of every size), and neither draws a random word: the two
    /// generators stay in step.
    #[test]
    fn lowest_ties_fill_as_the_sorted_water_fill() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (mut r1, mut r2) = (ChaCha8Rng::seed_from_u64(5), ChaCha8Rng::seed_from_u64(5));
        let mut scan = ScanFill::with_ties(false);
        let mut order = Vec::new();
        let mut hint = 0;
        for n in [1usize, 2, 3, 10, 64, 100, 300] {
            for case in 0..400 {
                let spread = [1, 2, 5, 40, 1000][case % 5];
                let base = below(&mut rng, 50) as u64;
                let vals: Vec<u64> = (0..n)
                    .map(|_| base + below(&mut rng, spread) as u64)
                    .collect();
                let a = 1 + below(&mut rng, [1, n, 3 * n, 100 * n][case / 5 % 4]) as u64;
                let mut got = vals.clone();
                let mut x = vec![0u64; n];
                let mut calls = Vec::new();
                scan.fill(
                    &mut r1,
                    &mut got,
                    vals.iter().sum(),
                    a,
                    &mut hint,
                    |s, c| {
                        x[s] += c;
                        calls.push(s);
                    },
                );
                let mut want = vec![0u64; n];
                let mut want_calls = Vec::new();
                water_fill(&mut r2, &vals, a, false, &mut order, |s, c| {
                    want[s] += c;
                    want_calls.push(s);
                });
                assert_eq!(x, want, "n {n} case {case} a {a}");
                assert_eq!(calls, want_calls, "n {n} case {case}: put in index order");
                assert!((0..n).all(|s| got[s] == vals[s] + x[s]));
            }
        }
        assert_eq!(r1.random::<u64>(), r2.random::<u64>());
    }

    /// From random states, a fill has the law of `water_fill` with uniform
    /// ties (the joint placement, chi-square).
    #[test]
    fn fills_have_the_law_of_water_fill() {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        let mut scan = ScanFill::default();
        let mut scratch = Vec::new();
        // Fixed cases first: five equal estimates and four jobs (r = 4 of
        // c = 5, the complement branch) and one job (r = 1).
        let fixed = [
            (vec![3u64; 5], 4u64),
            (vec![3u64; 5], 1),
            (vec![2, 9, 2, 2, 9, 2], 7),
        ];
        let random = [(1usize, 1usize), (5, 3), (7, 4), (12, 2), (30, 6)]
            .into_iter()
            .flat_map(|(n, spread)| (0..3).map(move |round| (n, spread, round)))
            .map(|(n, spread, round)| {
                let vals: Vec<u64> = (0..n).map(|_| 4 + below(&mut rng, spread) as u64).collect();
                let a = 1 + below(&mut rng, 2 * n + round) as u64;
                (vals, a)
            })
            .collect::<Vec<_>>();
        for (round, (vals, a)) in fixed.into_iter().chain(random).enumerate() {
            let n = vals.len();
            let mut seen = std::collections::BTreeMap::<Vec<u64>, [u64; 2]>::new();
            let mut hint = 0;
            for _ in 0..20_000 {
                let mut v2 = vals.clone();
                let mut x = vec![0u64; n];
                scan.fill(
                    &mut rng,
                    &mut v2,
                    vals.iter().sum(),
                    a,
                    &mut hint,
                    |s, c| x[s] += c,
                );
                seen.entry(x).or_default()[0] += 1;
                let mut y = vec![0u64; n];
                water_fill(&mut rng, &vals, a, true, &mut scratch, |s, c| y[s] += c);
                seen.entry(y).or_default()[1] += 1;
            }
            crate::slotted::sampling::tests::same_law(&format!("n {n} case {round}"), &seen);
        }
    }
}
