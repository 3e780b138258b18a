//! Servers bucketed by the value of an estimate, for L-JSQ's uniformly random
//! argmin in O(1) (seed 000 §4.1 uses a min-heap; with random tie-breaking
//! what a dispatcher needs is the *set* of minimisers, and a bucket keeps it
//! as a slice).
//!
//! Bucket v lists the servers whose value is v, in no particular order; a
//! server knows its place in its bucket, so a change of value is a swap-remove
//! and a push, O(1) whatever the step. Values at or above [`CAP`] share one
//! overflow bucket, scanned only when the minimum lies there. A bucket's
//! capacity is kept within max(16, 4 × its length), so memory stays
//! O(N + CAP) whatever the history of the values.

use crate::sampling::below;
use rand::Rng;

/// Values from here on share the overflow bucket.
pub const CAP: usize = 1024;

/// Servers 0..N bucketed by their values.
#[derive(Clone, Debug)]
pub struct MinBuckets {
    /// `bucket[b]`: the servers with value b (b < CAP), or ≥ CAP (b = CAP).
    bucket: Vec<Vec<u32>>,
    /// Where each server sits in its bucket.
    pos: Vec<u32>,
    /// No bucket below this one is occupied (the lowest occupied one is found
    /// from here when asked for: lazily, once per query, not at every move).
    lo: usize,
}

#[inline]
fn bucket(v: u64) -> usize {
    (v as usize).min(CAP)
}

impl MinBuckets {
    /// Buckets over `vals` (N ≥ 1, N < 2³²).
    pub fn new(vals: &[u64]) -> MinBuckets {
        let n = vals.len();
        assert!(n >= 1 && n < u32::MAX as usize);
        let mut bucket = vec![Vec::new(); CAP + 1];
        let mut pos = vec![0u32; n];
        for (s, &v) in vals.iter().enumerate() {
            let b: &mut Vec<u32> = &mut bucket[self::bucket(v)];
            pos[s] = b.len() as u32;
            b.push(s as u32);
        }
        let lo = (0..=CAP).find(|&b| !bucket[b].is_empty()).expect("N ≥ 1");
        MinBuckets { bucket, pos, lo }
    }

    /// Server `s`'s value changed from `old` to `new`. Written without
    /// data-dependent branches (the outcomes are unpredictable): `s` is always
    /// swap-removed and pushed, even within one bucket.
    #[inline]
    pub fn moved(&mut self, s: usize, old: u64, new: u64) {
        let (from, to) = (bucket(old), bucket(new));
        let b = &mut self.bucket[from];
        let p = self.pos[s];
        let last = *b.last().expect("s is in its bucket");
        b[p as usize] = last;
        self.pos[last as usize] = p;
        b.pop();
        // One rarely-taken branch, not two data-dependent ones.
        if (b.capacity() > 16) & (b.capacity() > 4 * b.len()) {
            b.shrink_to(2 * b.len());
        }
        let b = &mut self.bucket[to];
        self.pos[s] = b.len() as u32;
        b.push(s as u32);
        self.lo = self.lo.min(to);
    }

    /// The lowest occupied bucket.
    #[inline]
    fn lowest(&mut self) -> usize {
        while self.bucket[self.lo].is_empty() {
            self.lo += 1;
        }
        self.lo
    }

    /// The minimisers of `vals` (the values these buckets were kept on), in
    /// bucket order, into `out`.
    pub fn argmin_set(&mut self, vals: &[u64], out: &mut Vec<usize>) {
        out.clear();
        let lo = self.lowest();
        let run = &self.bucket[lo];
        if lo < CAP {
            out.extend(run.iter().map(|&s| s as usize));
        } else {
            let m = run
                .iter()
                .map(|&s| vals[s as usize])
                .min()
                .expect("non-empty");
            out.extend(run.iter().map(|&s| s as usize).filter(|&s| vals[s] == m));
        }
    }

    /// A uniformly random minimiser of `vals`: one draw below the number of ties
    /// (none when the minimum is unique).
    #[inline]
    pub fn uniform_argmin<R: Rng + ?Sized>(&mut self, vals: &[u64], rng: &mut R) -> usize {
        let lo = self.lowest();
        let run = &self.bucket[lo];
        if lo < CAP {
            let j = if run.len() > 1 {
                below(rng, run.len())
            } else {
                0
            };
            run[j] as usize
        } else {
            let mut set = Vec::new();
            self.argmin_set(vals, &mut set);
            let j = if set.len() > 1 {
                below(rng, set.len())
            } else {
                0
            };
            set[j]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::law::mix64;

    fn check(b: &mut MinBuckets, vals: &[u64]) {
        for (s, &p) in b.pos.iter().enumerate() {
            assert_eq!(b.bucket[bucket(vals[s])][p as usize] as usize, s);
        }
        let held: usize = b.bucket.iter().map(Vec::len).sum();
        assert_eq!(held, vals.len());
        for bk in &b.bucket {
            assert!(bk.capacity() <= 16.max(4 * bk.len()));
        }
        let m = *vals.iter().min().unwrap();
        let mut want: Vec<usize> = (0..vals.len()).filter(|&s| vals[s] == m).collect();
        let mut got = Vec::new();
        b.argmin_set(vals, &mut got);
        got.sort();
        want.sort();
        assert_eq!(got, want);
    }

    /// Random moves, small and across the overflow edge, keep the layout exact.
    #[test]
    fn moves_keep_buckets_and_argmin_exact() {
        let mut vals: Vec<u64> = (0..23).map(|i| i % 4).collect();
        let mut b = MinBuckets::new(&vals);
        check(&mut b, &vals);
        let mut x = 7u64;
        for step in 0..20_000 {
            x = mix64(x);
            let s = (x % 23) as usize;
            let new = match step % 3 {
                0 => vals[s] + (x >> 40) % 5,
                1 => (x >> 20) % 12,
                _ => CAP as u64 - 3 + (x >> 30) % 8,
            };
            b.moved(s, vals[s], new);
            vals[s] = new;
            check(&mut b, &vals);
        }
    }

    /// Every minimiser is drawn equally often.
    #[test]
    fn uniform_argmin_is_uniform_over_ties() {
        use rand::SeedableRng;
        let vals = [3, 1, 4, 1, 5, 1, 9];
        let mut b = MinBuckets::new(&vals);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let mut hits = [0u64; 7];
        let n = 30_000;
        for _ in 0..n {
            hits[b.uniform_argmin(&vals, &mut rng)] += 1;
        }
        let se = (n as f64 * (1.0 / 3.0) * (2.0 / 3.0)).sqrt();
        for s in [1, 3, 5] {
            assert!(
                (hits[s] as f64 - n as f64 / 3.0).abs() < 5.0 * se,
                "{hits:?}"
            );
        }
        assert_eq!(hits[0] + hits[2] + hits[4] + hits[6], 0);
    }
}
