//! A dispatcher's estimates kept in order, for L-JSQ's water-filling under
//! `job` granularity with `count_own`.
//!
//! A water-fill of a batch raises the least c estimates to a level L and a
//! uniform r-subset of them to L + 1
//! ([`water_fill`](crate::slotted::sampling::water_fill)); sorting all N
//! estimates for each batch was most of a slot. Here the order is kept
//! instead, as *levels*: the servers by non-decreasing estimate, cut into
//! runs of equal estimates (the distinct values, ascending, and where each
//! run starts), with each server's place. On the LSQ line's workload the
//! estimates form a plateau of most servers within a few jobs of each other,
//! the pushed servers below it: about 23 levels for 100 servers.
//!
//! - A fill finds its head by walking levels (O(levels levelled), not
//!   O(servers)), places the head's jobs (O(c): each server gets its own
//!   count), and replaces the head's levels by L and L + 1.
//! - A Push or Pull that sets one estimate moves one server across the levels
//!   in between, one swap with a level's first (or last) server each: the
//!   order within a level is free, so no run of servers is shifted.
//!
//! The law is that of `water_fill`: the same head, level and r for the same
//! estimates; the r-subset is uniform over the head, drawn by Floyd's
//! algorithm over the head's positions in this order (or its complement,
//! when smaller).

use crate::slotted::sampling::below;
use rand::Rng;

/// Servers up to this many are kept as u16.
pub const ORDER_MAX: usize = 1 << 16;

/// One dispatcher's estimates in order, as levels.
#[derive(Clone, Debug)]
pub struct FillOrder {
    /// The servers by non-decreasing estimate (ties in no particular order),
    /// and each server's position there.
    ids: Vec<u16>,
    pos: Vec<u16>,
    /// The distinct estimates, ascending (K of them), and where each level
    /// starts in `ids`, with N after the last: level k is
    /// `ids[start[k]..start[k + 1]]`, all at `lv[k]`.
    lv: Vec<u64>,
    start: Vec<u32>,
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
        let ids: Vec<u16> = pairs.iter().map(|p| p.1).collect();
        let mut pos = vec![0u16; n];
        for (i, &s) in ids.iter().enumerate() {
            pos[s as usize] = i as u16;
        }
        let (mut lv, mut start) = (Vec::new(), Vec::new());
        for (i, &(v, _)) in pairs.iter().enumerate() {
            if lv.last() != Some(&v) {
                lv.push(v);
                start.push(i as u32);
            }
        }
        start.push(n as u32);
        FillOrder {
            ids,
            pos,
            lv,
            start,
            chosen: Vec::new(),
            tmp: Vec::new(),
        }
    }

    /// The number of levels below `v` (no branch per level).
    #[inline]
    fn below(&self, v: u64) -> usize {
        self.lv.iter().map(|&x| (x < v) as usize).sum()
    }

    /// Puts the server at position `cur` at position `to` (swapping).
    #[inline]
    fn swap(&mut self, cur: usize, to: usize) {
        let (a, b) = (self.ids[cur], self.ids[to]);
        self.ids[cur] = b;
        self.ids[to] = a;
        self.pos[b as usize] = cur as u16;
        self.pos[a as usize] = to as u16;
    }

    /// Server `s`'s estimate changed from `old` to `new`.
    pub fn moved(&mut self, s: usize, old: u64, new: u64) {
        if new == old {
            return;
        }
        let k = self.below(old);
        debug_assert_eq!(self.lv[k], old);
        let mut cur = self.pos[s] as usize;
        // The level s leaves (its index after any insertion below it).
        let mut from = k;
        if new < old {
            // Down: to the end of each lower level in turn (a swap with
            // the first of the level above it, whose start moves up).
            let kt = self.below(new);
            for j in (kt + 1..=k).rev() {
                let to = self.start[j] as usize;
                self.swap(cur, to);
                cur = to;
                self.start[j] += 1;
            }
            if self.lv[kt] != new {
                // A level of its own, carved from the front of level kt.
                let to = self.start[kt] as usize;
                self.swap(cur, to);
                self.lv.insert(kt, new);
                self.start.insert(kt, to as u32);
                self.start[kt + 1] += 1;
                from += 1;
            }
        } else {
            // Up: to the front of each higher level in turn (a swap with
            // the last of the level below it, whose end moves down).
            let ke = self.lv.len() - self.lv.iter().map(|&x| (x > new) as usize).sum::<usize>();
            for j in k + 1..ke {
                let to = self.start[j] as usize - 1;
                self.swap(cur, to);
                cur = to;
                self.start[j] -= 1;
            }
            if self.lv[ke - 1] != new {
                // A level of its own, carved from the end of level ke − 1.
                let to = self.start[ke] as usize - 1;
                self.swap(cur, to);
                self.lv.insert(ke, new);
                self.start.insert(ke, to as u32);
            }
        }
        if self.start[from] == self.start[from + 1] {
            self.lv.remove(from);
            self.start.remove(from);
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
        // The head: the lowest h levels such that raising the first h − 1
        // to the h-th's estimate costs at most a. The cost grows by
        // (servers below)·(step between levels): exact while it is ≤ a.
        let kk = self.lv.len();
        let (mut h, mut cost) = (1usize, 0u64);
        let mut sum = self.lv[0] as u128 * self.start[1] as u128;
        while h < kk {
            let below = self.start[h] as u64;
            cost = cost.saturating_add((self.lv[h] - self.lv[h - 1]).saturating_mul(below));
            if cost > a {
                break;
            }
            sum += self.lv[h] as u128 * (self.start[h + 1] - self.start[h]) as u128;
            h += 1;
        }
        let c = self.start[h] as usize;
        let total = a as u128 + sum;
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
        // The new head: those at L, then those at L + 1.
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
            self.pos[s as usize] = *at as u16;
            *at += 1;
        }
        self.ids[..c].copy_from_slice(&self.tmp);
        // Levels 0..h become L (from 0) and L + 1 (from c − r), which joins
        // level h when that is at L + 1 (it cannot be lower).
        let joins = h < kk && self.lv[h] == level + 1;
        let (keep, at) = if r > 0 && !joins {
            (2, [level, level + 1])
        } else {
            (1, [level, 0])
        };
        self.lv.splice(..h, at[..keep].iter().copied());
        self.start
            .splice(..h, [0, (c - r) as u32][..keep].iter().copied());
        if joins {
            self.start[1] = (c - r) as u32;
        }
    }

    /// Checks the order against `vals` (tests).
    #[cfg(test)]
    pub fn check(&self, vals: &[u64]) {
        let n = vals.len();
        assert_eq!(self.ids.len(), n);
        assert_eq!(self.start.len(), self.lv.len() + 1);
        assert_eq!(self.start[0], 0);
        assert_eq!(*self.start.last().unwrap() as usize, n);
        assert!(self.lv.windows(2).all(|w| w[0] < w[1]), "{:?}", self.lv);
        assert!(
            self.start.windows(2).all(|w| w[0] < w[1]),
            "{:?}",
            self.start
        );
        let mut seen = vec![false; n];
        for k in 0..self.lv.len() {
            for i in self.start[k] as usize..self.start[k + 1] as usize {
                let s = self.ids[i] as usize;
                assert!(!std::mem::replace(&mut seen[s], true));
                assert_eq!(self.pos[s] as usize, i);
                assert_eq!(vals[s], self.lv[k], "server {s} at {i}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slotted::sampling::water_fill;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// The levels against a brute-force reference (the values themselves)
    /// after every operation of random histories: moves up and down, to a
    /// value already held (joining its level) or not (a level of its own),
    /// from a level of one (which goes) or of many, to the lowest and the
    /// highest values and past them; and fills of every size. After each,
    /// `check` compares order, positions and levels with the values, and
    /// the levels are exactly the distinct values.
    #[test]
    fn levels_follow_random_moves_and_fills() {
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        for n in [1usize, 2, 3, 5, 17, 100, 300] {
            let mut vals: Vec<u64> = (0..n).map(|_| below(&mut rng, 6) as u64 + 10).collect();
            let mut order = FillOrder::new(&vals);
            order.check(&vals);
            for step in 0..4000 {
                let s = below(&mut rng, n);
                let old = vals[s];
                let (lo, hi) = (*vals.iter().min().unwrap(), *vals.iter().max().unwrap());
                let new = match step % 7 {
                    // A value some server holds.
                    0 | 1 => vals[below(&mut rng, n)],
                    // Just past either end.
                    2 => lo.saturating_sub(below(&mut rng, 3) as u64),
                    3 => hi + below(&mut rng, 3) as u64,
                    // Anywhere around the range.
                    4 | 5 => lo.saturating_sub(5) + below(&mut rng, (hi - lo) as usize + 11) as u64,
                    _ => {
                        let a = 1 + below(&mut rng, 4 * n) as u64;
                        let before = vals.clone();
                        let mut x = vec![0u64; n];
                        order.fill(&mut rng, &mut vals, a, |s, c| x[s] += c);
                        assert_eq!(x.iter().sum::<u64>(), a);
                        assert!((0..n).all(|i| vals[i] == before[i] + x[i]));
                        order.check(&vals);
                        continue;
                    }
                };
                vals[s] = new;
                order.moved(s, old, new);
                order.check(&vals);
                let mut distinct = vals.clone();
                distinct.sort_unstable();
                distinct.dedup();
                assert_eq!(order.lv, distinct, "n {n} step {step}");
            }
        }
    }

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
