//! Random selection primitives shared by the policies: distinct samples,
//! weighted choice (Walker's alias method), multinomial splits (by
//! conditional binomials, or Poissonised for fixed weights) and the
//! water-filling placement of a `count_own` batch.

use crate::slotted::law::{Law, PoissonTable, Sampler};
use rand::Rng;
use rand_distr::{Binomial, Distribution};

pub use crate::streams::below;

/// True with probability p (no draw when p ≥ 1 or p ≤ 0).
#[inline]
pub fn coin<R: Rng + ?Sized>(rng: &mut R, p: f64) -> bool {
    if p >= 1.0 {
        true
    } else if p <= 0.0 {
        false
    } else {
        rng.random::<f64>() < p
    }
}

/// `d` distinct indices uniformly from 0..n (Floyd's algorithm), into `out`.
///
/// Membership is a scan of `out` for small d and a bit set of 0..n above
/// [`SCAN_DISTINCT`]: the same draws and the same `out` either way, in
/// O(d) rather than O(d²) for a Push of many servers.
pub fn distinct<R: Rng + ?Sized>(rng: &mut R, n: usize, d: usize, out: &mut Vec<usize>) {
    out.clear();
    if d <= SCAN_DISTINCT {
        for j in n - d..n {
            let t = below(rng, j + 1);
            out.push(if out.contains(&t) { j } else { t });
        }
        return;
    }
    let mut seen = vec![0u64; n.div_ceil(64)];
    for j in n - d..n {
        let t = below(rng, j + 1);
        let s = if seen[t / 64] >> (t % 64) & 1 == 1 {
            j
        } else {
            t
        };
        seen[s / 64] |= 1 << (s % 64);
        out.push(s);
    }
}

/// Up to this many draws [`distinct`] scans what it has drawn.
const SCAN_DISTINCT: usize = 16;

/// Walker's alias table for a fixed weight vector: O(1) weighted choice.
#[derive(Clone, Debug)]
pub struct Alias {
    prob: Vec<f64>,
    alias: Vec<usize>,
}

impl Alias {
    /// A table for `weights` (non-negative, not all zero).
    pub fn new(weights: &[f64]) -> Alias {
        let n = weights.len();
        let total: f64 = weights.iter().sum();
        let mut prob: Vec<f64> = weights.iter().map(|w| w * n as f64 / total).collect();
        let mut alias = vec![0; n];
        let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| prob[i] < 1.0);
        while let (Some(s), Some(&l)) = (small.pop(), large.last()) {
            alias[s] = l;
            prob[l] -= 1.0 - prob[s];
            if prob[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        for i in large.into_iter().chain(small) {
            prob[i] = 1.0;
        }
        Alias { prob, alias }
    }

    /// One weighted draw.
    #[inline(always)]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let i = below(rng, self.prob.len());
        if rng.random::<f64>() < self.prob[i] {
            i
        } else {
            self.alias[i]
        }
    }
}

/// Splits `k` jobs over `items` with probabilities ∝ `weight(item)`
/// (multinomial), calling `put(item, count)` for non-zero counts. Few jobs are
/// placed one by one; many are split by conditional binomials, so the cost is
/// O(min(k, |items|)) draws, not O(k).
pub fn multinomial<R: Rng + ?Sized>(
    rng: &mut R,
    k: u64,
    items: &[usize],
    weight: impl Fn(usize) -> f64,
    mut put: impl FnMut(usize, u64),
) {
    if k == 0 {
        return;
    }
    if items.len() == 1 {
        put(items[0], k);
        return;
    }
    let total: f64 = items.iter().map(|&i| weight(i)).sum();
    if (k as usize) < items.len() {
        for _ in 0..k {
            let mut u = rng.random::<f64>() * total;
            let mut pick = items[items.len() - 1];
            for &i in items {
                u -= weight(i);
                if u < 0.0 {
                    pick = i;
                    break;
                }
            }
            put(pick, 1);
        }
        return;
    }
    let mut left = k;
    let mut rest = total;
    for (j, &i) in items.iter().enumerate() {
        if left == 0 {
            break;
        }
        let w = weight(i);
        let x = if j + 1 == items.len() || w >= rest {
            left
        } else {
            let p = (w / rest).clamp(0.0, 1.0);
            Binomial::new(left, p).expect("p in [0,1]").sample(rng)
        };
        if x > 0 {
            put(i, x);
        }
        left -= x;
        rest -= w;
    }
}

/// Multinomial(k, w) splits for one fixed weight vector w over servers,
/// with totals k near an expected λ — weighted random routing of a slot's
/// arrivals, the leftovers of JIQ — at O(N + |k − λ|) cheap draws instead of
/// N − 1 binomials.
///
/// **Poissonisation with a correction, exact for every k:** draw Y_n ~
/// Poisson(λ*·w_n) independently (one word each, by table), S = Σ Y_n. Given
/// S = s, Y is Multinomial(s, w). If s ≤ k, add k − s jobs drawn i.i.d. from
/// w: Multinomial(s, w) + Multinomial(k − s, w) = Multinomial(k, w). If s > k,
/// remove s − k of the s jobs uniformly at random, one at a time (server n
/// with probability Y_n/ΣY, by rejection from a uniform server): the k left
/// are a uniform k-subset of s i.i.d. labels, Multinomial(k, w). Either way
/// the law given k is Multinomial(k, w), whatever λ*, so λ* is chosen for
/// speed: half a standard deviation of k − S below E(k), where an added job
/// (an alias draw) is cheaper than a removed one. Totals far from λ* (beyond
/// 8 standard deviations plus 16 jobs a server) use the conditional binomials
/// of [`multinomial`]; totals below N, one alias draw a job.
#[derive(Clone, Debug)]
pub struct FixedSplit {
    /// The servers with positive weight, and their weights.
    items: Vec<usize>,
    weight_of: Vec<f64>,
    /// Poisson(λ*·w_j) for each item (one shared when the weights are equal).
    draws: Vec<Sampler>,
    /// The same as tables, when every one is a table.
    tables: Vec<PoissonTable>,
    uniform: bool,
    /// i.i.d. draws from w over the items' positions.
    alias: Alias,
    lambda: f64,
    window: f64,
    /// Scratch: counts by item position.
    counts: Vec<u64>,
}

impl FixedSplit {
    /// Splits over servers 0..N with weights `weights` (non-negative, not all
    /// zero), for totals of mean `mean` and variance `var`.
    pub fn new(weights: &[f64], mean: f64, var: f64) -> FixedSplit {
        let sd = (var + mean).sqrt();
        let lambda = (mean - 0.5 * sd).max(0.0);
        Self::with_lambda(weights, lambda, 8.0 * sd + 16.0 * weights.len() as f64)
    }

    /// Poissonisation at λ* = `lambda` for totals within `window` of it.
    pub fn with_lambda(weights: &[f64], lambda: f64, window: f64) -> FixedSplit {
        let items: Vec<usize> = (0..weights.len()).filter(|&n| weights[n] > 0.0).collect();
        assert!(!items.is_empty(), "some weight must be positive");
        let total: f64 = items.iter().map(|&n| weights[n]).sum();
        let uniform = items.iter().all(|&n| weights[n] == weights[items[0]]);
        let draw = |w: f64| {
            Law::Poisson {
                mean: lambda * w / total,
            }
            .sampler()
        };
        let draws = if uniform {
            vec![draw(weights[items[0]])]
        } else {
            items.iter().map(|&n| draw(weights[n])).collect()
        };
        let tables: Vec<PoissonTable> = draws
            .iter()
            .map(|d| match d {
                Sampler::PoissonTable(t) => Some(t.clone()),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default();
        let draws = if tables.is_empty() { draws } else { Vec::new() };
        let iw: Vec<f64> = items.iter().map(|&n| weights[n]).collect();
        FixedSplit {
            alias: Alias::new(&iw),
            counts: vec![0; items.len()],
            weight_of: weights.to_vec(),
            items,
            tables,
            draws,
            uniform,
            lambda,
            window,
        }
    }

    /// Splits `k` jobs: `put(server, count)` for each non-zero count, in
    /// server order on the Poissonised path.
    pub fn split<R: Rng + ?Sized>(&mut self, rng: &mut R, k: u64, mut put: impl FnMut(usize, u64)) {
        let n = self.items.len();
        if k == 0 {
            return;
        }
        if n == 1 {
            put(self.items[0], k);
            return;
        }
        if k < n as u64 {
            for _ in 0..k {
                let j = if self.uniform {
                    below(rng, n)
                } else {
                    self.alias.sample(rng)
                };
                put(self.items[j], 1);
            }
            return;
        }
        if (k as f64 - self.lambda).abs() > self.window {
            let w = &self.weight_of;
            multinomial(rng, k, &self.items, |s| w[s], put);
            return;
        }
        let counts = &mut self.counts;
        let mut sum = 0;
        // Table draws (every mean up to POISSON_TABLE_MAX) inline; others
        // through the sampler.
        match (self.uniform, self.tables.as_slice()) {
            (true, [t]) => {
                for c in counts.iter_mut() {
                    *c = t.invert(rng.next_u64());
                    sum += *c;
                }
            }
            (false, ts) if !ts.is_empty() => {
                for (c, t) in counts.iter_mut().zip(ts) {
                    *c = t.invert(rng.next_u64());
                    sum += *c;
                }
            }
            (true, _) => {
                let d = &self.draws[0];
                for c in counts.iter_mut() {
                    *c = d.sample(rng);
                    sum += *c;
                }
            }
            (false, _) => {
                for (c, d) in counts.iter_mut().zip(&self.draws) {
                    *c = d.sample(rng);
                    sum += *c;
                }
            }
        }
        if sum < k {
            for _ in 0..k - sum {
                let j = if self.uniform {
                    below(rng, n)
                } else {
                    self.alias.sample(rng)
                };
                counts[j] += 1;
            }
        } else if sum > k {
            // A uniformly random job of those drawn: server j with
            // probability counts[j]/Σ, by rejection (accept j w.p.
            // counts[j]/max). The maximum only falls, so it stays a bound.
            let top = *counts.iter().max().expect("n ≥ 2") as usize;
            for _ in 0..sum - k {
                loop {
                    let j = below(rng, n);
                    if (below(rng, top) as u64) < counts[j] {
                        counts[j] -= 1;
                        break;
                    }
                }
            }
        }
        for (&c, &s) in counts.iter().zip(&self.items) {
            if c > 0 {
                put(s, c);
            }
        }
    }
}

/// Places `k` jobs one at a time, each on a least-loaded server of `view`
/// with the view raised by one after each placement (`count_own`), ties
/// uniform — in one pass: fill the lowest levels up, then give the `r` jobs
/// left over to a uniformly random r-subset of the servers at the final level.
/// This has exactly the law of the one-by-one placement (each step picks
/// uniformly among the current minima, i.e. without replacement within a
/// level). `random_ties = false` gives the leftovers to the lowest indices.
/// Calls `put(server, count)`; `order` is scratch space.
pub fn water_fill<R: Rng + ?Sized>(
    rng: &mut R,
    view: &[u64],
    k: u64,
    random_ties: bool,
    order: &mut Vec<usize>,
    mut put: impl FnMut(usize, u64),
) {
    if k == 0 {
        return;
    }
    order.clear();
    let n = view.len();
    // Sort packed (value, index) words when they fit: sorting plain u64s is
    // several times faster than sorting by a tuple key.
    let bits = usize::BITS - n.leading_zeros();
    if view.iter().all(|&v| v < 1u64 << (64 - bits)) {
        let mut keys = std::mem::take(order);
        keys.extend(
            view.iter()
                .enumerate()
                .map(|(i, &v)| ((v << bits) | i as u64) as usize),
        );
        keys.sort_unstable();
        let mask = (1usize << bits) - 1;
        for k in keys.iter_mut() {
            *k &= mask;
        }
        *order = keys;
    } else {
        order.extend(0..n);
        order.sort_unstable_by_key(|&i| (view[i], i));
    }
    let mut level = view[order[0]];
    let mut c = 1;
    while c < n && view[order[c]] == level {
        c += 1;
    }
    let mut left = k;
    loop {
        let next = if c < n { view[order[c]] } else { u64::MAX };
        let need = (next - level).saturating_mul(c as u64);
        if c < n && left >= need {
            left -= need;
            level = next;
            while c < n && view[order[c]] == level {
                c += 1;
            }
        } else {
            break;
        }
    }
    let rise = left / c as u64;
    let r = (left % c as u64) as usize;
    level += rise;
    let head = &mut order[..c];
    if random_ties {
        // Partial Fisher–Yates: the first r entries become a uniform r-subset.
        for i in 0..r {
            let j = i + below(rng, c - i);
            head.swap(i, j);
        }
    } else {
        head.sort_unstable();
    }
    for (pos, &s) in head.iter().enumerate() {
        let target = level + u64::from(pos < r);
        let inc = target - view[s];
        if inc > 0 {
            put(s, inc);
        }
    }
}

/// Water-filling every dispatcher's batch on one shared view (JSQ's
/// start-of-slot snapshot under `job` granularity with `count_own`: each
/// dispatcher fills the same Q(t) with its own jobs), ties uniform. Each
/// dispatcher's placement has exactly the law of [`water_fill`] — the lowest
/// servers raised to a level L, a uniform r-subset of them to L + 1 — but the
/// view is ordered once per slot, not once per dispatcher, and only as far as
/// the largest batch reaches: the servers below a threshold are collected
/// and sorted by value, by counting (the threshold follows the last slot's
/// level, and grows when a batch reaches it). A batch's head, its first c servers in that order, is
/// found by bisection on prefix sums; its r-subset (or the complement, when
/// smaller) by Floyd's algorithm over the head's positions.
#[derive(Clone, Debug, Default)]
pub struct SharedFill {
    /// Sorted (value << bits | server) of the servers below the threshold,
    /// collected in server order into `raw`; counts by value.
    keys: Vec<u64>,
    raw: Vec<u64>,
    count: Vec<u32>,
    /// prefix\[i\] = the sum of the first i values.
    prefix: Vec<u64>,
    /// The threshold (a value), adapted slot by slot.
    thresh: u64,
    /// Scratch: a bit set over head positions, ±1 by position, and by
    /// head length the batches' (summed base levels, count).
    chosen: Vec<u64>,
    adj: Vec<i64>,
    ends: Vec<(u64, u64)>,
}

impl SharedFill {
    /// Places each dispatcher's `a[m]` jobs on `view` (dispatchers in order),
    /// calling `put(server, count)`. Returns false, having placed nothing, when
    /// the view's values are too large to pack with their indices (the caller
    /// then uses [`water_fill`]).
    pub fn fill<R: Rng + ?Sized>(
        &mut self,
        rng: &mut R,
        view: &[u64],
        a: &[u64],
        mut put: impl FnMut(usize, u64),
    ) -> bool {
        let a_max = a.iter().copied().max().unwrap_or(0);
        if a_max == 0 {
            return true;
        }
        let n = view.len();
        let bits = usize::BITS - n.leading_zeros();
        let cap = 1u64 << (64 - bits);
        let mask = (1u64 << bits) - 1;
        if self.thresh == 0 {
            self.thresh = 1;
        }
        let mut tries = 0;
        loop {
            // The servers below the threshold (all of them from the third
            // try), packed and sorted.
            let t = if tries >= 2 { u64::MAX } else { self.thresh };
            self.raw.resize(n, 0);
            let raw = &mut self.raw[..n];
            let (mut p, mut big, mut lo) = (0, false, u64::MAX);
            for (i, &v) in view.iter().enumerate() {
                // Written always, kept when below the threshold: no branch.
                // SAFETY: p ≤ i < n = raw.len().
                unsafe { *raw.get_unchecked_mut(p) = (v << bits) | i as u64 };
                p += (v < t) as usize;
                big |= v >= cap;
                lo = lo.min(v);
            }
            if big && t == u64::MAX {
                return false;
            }
            // Sorted by (value, server): counting by value when the values
            // below the threshold span few (the usual case), else sorted.
            self.keys.clear();
            let span = t.wrapping_sub(lo);
            if p > 1 && t != u64::MAX && span <= COUNT_SPAN {
                let count = &mut self.count;
                count.clear();
                count.resize(span as usize + 1, 0);
                for &k in &raw[..p] {
                    count[((k >> bits) - lo) as usize + 1] += 1;
                }
                for i in 1..count.len() {
                    count[i] += count[i - 1];
                }
                self.keys.resize(p, 0);
                for &k in &raw[..p] {
                    let c = &mut count[((k >> bits) - lo) as usize];
                    self.keys[*c as usize] = k;
                    *c += 1;
                }
            } else {
                self.keys.extend_from_slice(&raw[..p]);
                self.keys.sort_unstable();
            }
            let keys = &self.keys[..p];
            self.prefix.clear();
            self.prefix.push(0);
            let mut acc = 0u64;
            for &k in keys.iter() {
                acc += k >> bits;
                self.prefix.push(acc);
            }
            // The largest batch's head must end below the threshold.
            let fits = p > 0 && {
                let c = head(keys, &self.prefix, bits, a_max);
                c < p
                    || (t == u64::MAX)
                    || (a_max as u128 + self.prefix[p] as u128) < p as u128 * t as u128
            };
            if fits {
                break;
            }
            tries += 1;
            let lowest = view.iter().copied().min().expect("N ≥ 1");
            self.thresh = self
                .thresh
                .max(lowest)
                .saturating_add(self.thresh.saturating_sub(lowest).max(a_max / n as u64 + 1))
                .min(cap);
        }
        let keys = &self.keys;
        let prefix = &self.prefix;
        let p = prefix.len() - 1;
        // Each batch: its head c, base level B (L, or L + 1 when its
        // r-subset is given as the complement), and ±1 at the positions its
        // subset picks, gathered in `adj`. Position i of a head then gets
        // B − v_i, plus adj: summed over the batches whose head holds i.
        self.adj.clear();
        self.adj.resize(p, 0);
        // ends[c]: the base levels and the number of the batches whose head
        // is c long (live below position c, not from it on).
        self.ends.clear();
        self.ends.resize(p + 1, (0, 0));
        let (mut base_sum, mut live, mut c_max) = (0u64, 0u64, 0usize);
        let mut deepest = 0;
        for &am in a {
            if am == 0 {
                continue;
            }
            let c = head(&keys[..p], prefix, bits, am);
            let total = am + prefix[c];
            let level = total / c as u64;
            let r = (total % c as u64) as usize;
            deepest = deepest.max(level + 1);
            // A uniform r-subset of the head gets L + 1: when r > c/2, all
            // do and a uniform (c − r)-subset gives one back.
            let (j, step, base) = if 2 * r <= c {
                (r, 1, level)
            } else {
                (c - r, -1, level + 1)
            };
            base_sum += base;
            live += 1;
            self.ends[c].0 += base;
            self.ends[c].1 += 1;
            c_max = c_max.max(c);
            if j == 0 {
                continue;
            }
            let words = c.div_ceil(64);
            self.chosen.clear();
            self.chosen.resize(words, 0);
            for i in c - j..c {
                let t = below(rng, i + 1);
                let hit = self.chosen[t / 64] >> (t % 64) & 1;
                let x = if hit == 1 { i } else { t };
                self.chosen[x / 64] |= 1 << (x % 64);
                self.adj[x] += step;
            }
        }
        // Sweep the positions upward, dropping the batches whose head ends.
        for (i, (&k, &(b, l))) in keys[..c_max].iter().zip(&self.ends).enumerate() {
            base_sum -= b;
            live -= l;
            let v = k >> bits;
            let got = (base_sum - live * v) as i64 + self.adj[i];
            if got > 0 {
                put((k & mask) as usize, got as u64);
            }
        }
        // Next slot's threshold: this slot's deepest level, with room.
        let lowest = keys.first().map_or(0, |k| k >> bits);
        self.thresh = (deepest + (deepest - lowest.min(deepest)) / 2 + 1).min(cap);
        true
    }
}

/// The widest span of values [`SharedFill`] sorts by counting.
const COUNT_SPAN: u64 = 1024;

/// The head of a water-fill of `a` jobs over the sorted packed `keys`: the
/// number c ≥ 1 of lowest servers that end up levelled, the largest c with
/// c·v_(c−1) − Σ_(i<c) v_i ≤ a (raising the first c − 1 to the c-th costs at
/// most a; ties come in whole).
#[inline]
fn head(keys: &[u64], prefix: &[u64], bits: u32, a: u64) -> usize {
    // f(c) = c·v_c − P_c is non-decreasing; the head is 1 + max{c : f(c) ≤ a}.
    let (mut lo, mut hi) = (0usize, keys.len()); // f(lo) ≤ a; hi: past the end or f > a.
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        let v = keys[mid] >> bits;
        // No overflow: v < 2^(64 − bits) and mid < N < 2^bits; the prefix
        // sums at most N such values.
        if mid as u64 * v - prefix[mid] <= a {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo + 1
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn water_fill_levels_the_lowest_queues() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let view = [5, 0, 2, 9, 2];
        let mut got = [0u64; 5];
        let mut order = Vec::new();
        water_fill(&mut rng, &view, 8, true, &mut order, |s, c| got[s] += c);
        // 0 → 2 costs 2, then three at 2 → 5 costs 9 > 6 left: rise 2, r = 0.
        assert_eq!(got, [0, 4, 2, 0, 2]);
        let mut got = [0u64; 5];
        water_fill(&mut rng, &view, 9, false, &mut order, |s, c| got[s] += c);
        assert_eq!(got.iter().sum::<u64>(), 9);
        assert_eq!(got, [0, 5, 2, 0, 2]);
    }

    #[test]
    fn water_fill_leftovers_are_a_uniform_subset() {
        // Three servers tied at 0, one job: each should get it a third of the time.
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut hits = [0u64; 3];
        let mut order = Vec::new();
        let n = 30_000;
        for _ in 0..n {
            water_fill(&mut rng, &[0, 0, 0], 1, true, &mut order, |s, _| {
                hits[s] += 1
            });
        }
        let se = (n as f64 * (1.0 / 3.0) * (2.0 / 3.0)).sqrt();
        for h in hits {
            assert!((h as f64 - n as f64 / 3.0).abs() < 5.0 * se, "{hits:?}");
        }
    }

    #[test]
    fn multinomial_conserves_jobs_and_follows_weights() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let items = [0, 1, 2];
        let w = [1.0, 2.0, 7.0];
        let mut tot = [0u64; 3];
        let k = 1000;
        let reps = 2000;
        for _ in 0..reps {
            let mut got = 0;
            multinomial(
                &mut rng,
                k,
                &items,
                |i| w[i],
                |i, c| {
                    tot[i] += c;
                    got += c;
                },
            );
            assert_eq!(got, k);
        }
        let n = (k * reps) as f64;
        for i in 0..3 {
            let p = w[i] / 10.0;
            let se = (n * p * (1.0 - p)).sqrt();
            assert!((tot[i] as f64 - n * p).abs() < 5.0 * se);
        }
    }

    /// The Poissonised split has the multinomial law exactly: a chi-square
    /// test over every outcome, with λ* below, near and above k (so that
    /// jobs are added, both, or removed), skewed, uniform and zero weights.
    #[test]
    fn fixed_split_is_multinomial() {
        use statrs::distribution::{ChiSquared, ContinuousCDF};
        let k = 9u64;
        let cases: [(&[f64], f64); 6] = [
            (&[1.0, 0.0, 2.0, 6.0], 4.0),
            (&[1.0, 0.0, 2.0, 6.0], 9.0),
            (&[1.0, 0.0, 2.0, 6.0], 15.0),
            (&[1.0, 1.0, 1.0], 4.0),
            (&[1.0, 1.0, 1.0], 9.0),
            (&[1.0, 1.0, 1.0], 15.0),
        ];
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let reps = 200_000u64;
        for (i, (w, lambda)) in cases.into_iter().enumerate() {
            let mut split = FixedSplit::with_lambda(w, lambda, 1e9);
            let pos: Vec<usize> = (0..w.len()).filter(|&n| w[n] > 0.0).collect();
            let total: f64 = w.iter().sum();
            // Outcomes (x_a, x_b) of the first two positive items; the third
            // is k − x_a − x_b.
            let cell = |xa: u64, xb: u64| (xa * (k + 1) + xb) as usize;
            let mut seen = vec![0u64; ((k + 1) * (k + 1)) as usize];
            for _ in 0..reps {
                let mut x = vec![0u64; w.len()];
                split.split(&mut rng, k, |s, c| x[s] += c);
                assert_eq!(x.iter().sum::<u64>(), k);
                assert!(w.iter().zip(&x).all(|(&wi, &xi)| wi > 0.0 || xi == 0));
                seen[cell(x[pos[0]], x[pos[1]])] += 1;
            }
            let p: Vec<f64> = pos.iter().map(|&n| w[n] / total).collect();
            let ln_fact = |n: u64| (1..=n).map(|j| (j as f64).ln()).sum::<f64>();
            let (mut chi2, mut cells) = (0.0, 0usize);
            let (mut lumped_exp, mut lumped_obs) = (0.0, 0.0);
            for xa in 0..=k {
                for xb in 0..=k - xa {
                    let xc = k - xa - xb;
                    let lp = ln_fact(k) - ln_fact(xa) - ln_fact(xb) - ln_fact(xc)
                        + xa as f64 * p[0].ln()
                        + xb as f64 * p[1].ln()
                        + xc as f64 * p[2].ln();
                    let e = reps as f64 * lp.exp();
                    let o = seen[cell(xa, xb)] as f64;
                    if e < 20.0 {
                        lumped_exp += e;
                        lumped_obs += o;
                    } else {
                        chi2 += (o - e).powi(2) / e;
                        cells += 1;
                    }
                }
            }
            if lumped_exp > 0.0 {
                chi2 += (lumped_obs - lumped_exp).powi(2) / lumped_exp;
                cells += 1;
            }
            let limit = ChiSquared::new((cells - 1) as f64)
                .unwrap()
                .inverse_cdf(0.9999);
            assert!(
                chi2 < limit,
                "case {i}: χ² {chi2:.1} over {cells} cells, limit {limit:.1}"
            );
        }
    }

    /// Large totals on every path (Poissonised near λ*, conditional
    /// binomials far from it): counts conserve k and have the multinomial's
    /// means and variances.
    #[test]
    fn fixed_split_large_totals_have_multinomial_moments() {
        let w: Vec<f64> = (0..100)
            .map(|i| 1.0 + 99.0 * (i as f64 + 0.5) / 100.0)
            .collect();
        let total: f64 = w.iter().sum();
        let mut split = FixedSplit::new(&w, 4545.0, 4545.0);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let reps = 3000;
        for k in [4545u64, 4300, 4800, 6000, 20_000, 150, 60] {
            let mut m1 = vec![0.0; 100];
            let mut m2 = vec![0.0; 100];
            for _ in 0..reps {
                let mut x = vec![0u64; 100];
                split.split(&mut rng, k, |s, c| x[s] += c);
                assert_eq!(x.iter().sum::<u64>(), k);
                for s in 0..100 {
                    m1[s] += x[s] as f64;
                    m2[s] += (x[s] * x[s]) as f64;
                }
            }
            for s in [0, 1, 50, 98, 99] {
                let p = w[s] / total;
                let (mean, var) = (k as f64 * p, k as f64 * p * (1.0 - p));
                let got = m1[s] / reps as f64;
                assert!(
                    (got - mean).abs() < 5.0 * (var / reps as f64).sqrt(),
                    "k {k} s {s}: {got} vs {mean}"
                );
                let v = m2[s] / reps as f64 - got * got;
                // Var of the sample variance ≈ 2σ⁴/n for near-normal counts.
                assert!(
                    (v - var).abs() < 5.0 * var * (2.0 / reps as f64).sqrt() + 0.05,
                    "k {k} s {s}: var {v} vs {var}"
                );
            }
        }
    }

    /// Two samples of joint outcomes: the chi-square homogeneity test at
    /// level 1 − 10⁻⁴ (cells with small expected counts lumped together).
    pub(crate) fn same_law(what: &str, x: &std::collections::BTreeMap<Vec<u64>, [u64; 2]>) {
        use statrs::distribution::{ChiSquared, ContinuousCDF};
        let tot = [0, 1].map(|j| x.values().map(|c| c[j]).sum::<u64>() as f64);
        let n = tot[0] + tot[1];
        let (mut chi2, mut cells, mut lump) = (0.0, 0usize, [0.0f64; 2]);
        for c in x.values() {
            let row = (c[0] + c[1]) as f64;
            if row * tot[0].min(tot[1]) / n < 10.0 {
                lump[0] += c[0] as f64;
                lump[1] += c[1] as f64;
                continue;
            }
            for j in 0..2 {
                let e = row * tot[j] / n;
                chi2 += (c[j] as f64 - e).powi(2) / e;
            }
            cells += 1;
        }
        let row = lump[0] + lump[1];
        if row > 0.0 {
            for j in 0..2 {
                let e = row * tot[j] / n;
                chi2 += (lump[j] - e).powi(2) / e;
            }
            cells += 1;
        }
        if cells < 2 {
            return;
        }
        let limit = ChiSquared::new((cells - 1) as f64)
            .unwrap()
            .inverse_cdf(0.9999);
        assert!(
            chi2 < limit,
            "{what}: χ² {chi2:.1} over {cells} cells, limit {limit:.1}"
        );
    }

    /// JSQ's shared fill has the law of each dispatcher water-filling the
    /// snapshot on its own: the joint outcome (jobs per server) compared
    /// between the two, with ties, a threshold that must grow, and batches
    /// that fill every server.
    #[test]
    fn shared_fill_has_the_law_of_separate_water_fills() {
        let cases: [(&[u64], &[u64]); 5] = [
            (&[3, 0, 2, 0, 5, 1, 2], &[4, 0, 7]),
            (&[0, 0, 0, 0], &[1, 2, 3]),
            (&[10, 40, 41, 12, 90, 10], &[30, 5, 200]),
            (&[1, 2, 3], &[0, 0, 0]),
            (&[7, 3, 3, 9, 0, 5, 5, 5, 2], &[6, 13, 1, 2]),
        ];
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        for (i, (view, a)) in cases.into_iter().enumerate() {
            let mut shared = SharedFill::default();
            let mut order = Vec::new();
            let mut seen = std::collections::BTreeMap::<Vec<u64>, [u64; 2]>::new();
            let total: u64 = a.iter().sum();
            for _ in 0..40_000 {
                let mut x = vec![0u64; view.len()];
                assert!(shared.fill(&mut rng, view, a, |s, c| x[s] += c));
                assert_eq!(x.iter().sum::<u64>(), total);
                seen.entry(x).or_default()[0] += 1;
                let mut y = vec![0u64; view.len()];
                for &am in a {
                    water_fill(&mut rng, view, am, true, &mut order, |s, c| y[s] += c);
                }
                seen.entry(y).or_default()[1] += 1;
            }
            same_law(&format!("case {i}"), &seen);
        }
    }

    #[test]
    fn alias_follows_weights() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let w = [0.2, 0.8, 0.0, 3.0];
        let a = Alias::new(&w);
        let mut c = [0u64; 4];
        let n = 200_000;
        for _ in 0..n {
            c[a.sample(&mut rng)] += 1;
        }
        for i in 0..4 {
            let p = w[i] / 4.0;
            let se = (n as f64 * p * (1.0 - p)).sqrt().max(1.0);
            assert!((c[i] as f64 - n as f64 * p).abs() < 5.0 * se, "{c:?}");
        }
    }

    /// Floyd's algorithm with a scan for membership, as [`distinct`] runs
    /// it up to [`SCAN_DISTINCT`] draws.
    fn distinct_by_scan(rng: &mut ChaCha8Rng, n: usize, d: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for j in n - d..n {
            let t = below(rng, j + 1);
            out.push(if out.contains(&t) { j } else { t });
        }
        out
    }

    #[test]
    fn distinct_draws_alike_by_scan_and_by_bit_set() {
        for (n, d) in [(100, 100), (100, 17), (130, 64), (1000, 999), (65, 40)] {
            let (mut a, mut b) = (ChaCha8Rng::seed_from_u64(9), ChaCha8Rng::seed_from_u64(9));
            let mut out = Vec::new();
            for _ in 0..50 {
                distinct(&mut a, n, d, &mut out);
                assert_eq!(out, distinct_by_scan(&mut b, n, d), "n = {n}, d = {d}");
            }
            assert_eq!(a.random::<u64>(), b.random::<u64>(), "the same draws");
        }
    }

    #[test]
    fn distinct_samples_are_distinct() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut out = Vec::new();
        for d in 1..=10 {
            distinct(&mut rng, 10, d, &mut out);
            let mut s = out.clone();
            s.sort();
            s.dedup();
            assert_eq!(s.len(), d);
        }
    }
}
