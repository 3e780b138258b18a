//! Random selection primitives shared by the policies: distinct samples,
//! weighted choice (Walker's alias method), multinomial splits and the
//! water-filling placement of a `count_own` batch.

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
pub fn distinct<R: Rng + ?Sized>(rng: &mut R, n: usize, d: usize, out: &mut Vec<usize>) {
    out.clear();
    for j in n - d..n {
        let t = below(rng, j + 1);
        if out.contains(&t) {
            out.push(j);
        } else {
            out.push(t);
        }
    }
}

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
    #[inline]
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

#[cfg(test)]
mod tests {
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
