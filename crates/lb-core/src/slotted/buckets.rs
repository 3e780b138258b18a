//! Servers bucketed by the value of an estimate, for L-JSQ's uniformly random
//! argmin in O(1) (Zhou, Shroff and Wierman §4.1 uses a min-heap; with random tie-breaking
//! what a dispatcher needs is the *set* of minimisers, and a bucket keeps it
//! as a slice).
//!
//! Two layouts, one law (a uniform draw among the minimisers):
//! - [`MinBuckets`]: bucket v lists the servers whose value is v, in no
//!   particular order; a server knows its place in its bucket, so a change of
//!   value is a swap-remove and a push, O(1) whatever the step. A bucket's
//!   capacity is kept within max(16, 4 × its length), so memory stays
//!   O(N + CAP) whatever the history of the values.
//! - [`BitBuckets`], for N ≤ [`BITS_MAX`]: bucket v is a bit set of the
//!   servers with value v, and a count. A move is two bit flips and two
//!   counter updates, with no pointer to follow; the j-th minimiser is found
//!   by counting bits. Memory O(CAP·N/64).
//!
//! In both, values at or above [`CAP`] share one overflow bucket, scanned only
//! when the minimum lies there.

use crate::slotted::sampling::below;
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

/// Bit-set buckets are used up to this many servers.
pub const BITS_MAX: usize = 256;

/// Servers 0..N (N ≤ [`BITS_MAX`]) as bit sets by value.
#[derive(Clone, Debug)]
pub struct BitBuckets {
    /// 64-bit words per bucket.
    words: usize,
    /// Bucket b is `bits[b·words..(b+1)·words]`.
    bits: Vec<u64>,
    /// Servers in each bucket.
    count: Vec<u32>,
    /// No bucket below this one is occupied.
    lo: usize,
}

impl BitBuckets {
    /// Buckets over `vals` (1 ≤ N ≤ [`BITS_MAX`]).
    pub fn new(vals: &[u64]) -> BitBuckets {
        let n = vals.len();
        assert!((1..=BITS_MAX).contains(&n));
        let words = n.div_ceil(64);
        let mut b = BitBuckets {
            words,
            bits: vec![0; (CAP + 1) * words],
            count: vec![0; CAP + 1],
            lo: 0,
        };
        for (s, &v) in vals.iter().enumerate() {
            let k = bucket(v);
            b.bits[k * words + s / 64] |= 1 << (s % 64);
            b.count[k] += 1;
        }
        b
    }

    /// Server `s`'s value changed from `old` to `new`.
    #[inline]
    pub fn moved(&mut self, s: usize, old: u64, new: u64) {
        let (from, to) = (bucket(old), bucket(new));
        let (w, bit) = (s / 64, 1u64 << (s % 64));
        self.bits[from * self.words + w] &= !bit;
        self.bits[to * self.words + w] |= bit;
        self.count[from] -= 1;
        self.count[to] += 1;
        self.lo = self.lo.min(to);
    }

    #[inline]
    fn lowest(&mut self) -> usize {
        while self.count[self.lo] == 0 {
            self.lo += 1;
        }
        self.lo
    }

    fn members(&self, b: usize) -> impl Iterator<Item = usize> + '_ {
        self.bits[b * self.words..(b + 1) * self.words]
            .iter()
            .enumerate()
            .flat_map(|(w, &word)| {
                let mut x = word;
                std::iter::from_fn(move || {
                    (x != 0).then(|| {
                        let i = x.trailing_zeros() as usize;
                        x &= x - 1;
                        64 * w + i
                    })
                })
            })
    }

    /// The minimisers of `vals`, in index order, into `out`.
    pub fn argmin_set(&mut self, vals: &[u64], out: &mut Vec<usize>) {
        out.clear();
        let lo = self.lowest();
        out.extend(self.members(lo));
        if lo == CAP {
            let m = out.iter().map(|&s| vals[s]).min().expect("non-empty");
            out.retain(|&s| vals[s] == m);
        }
    }

    /// A uniformly random minimiser of `vals`: one draw below the number of ties
    /// (none when the minimum is unique).
    #[inline]
    pub fn uniform_argmin<R: Rng + ?Sized>(&mut self, vals: &[u64], rng: &mut R) -> usize {
        let lo = self.lowest();
        if lo == CAP {
            let mut set = Vec::new();
            self.argmin_set(vals, &mut set);
            return set[if set.len() > 1 {
                below(rng, set.len())
            } else {
                0
            }];
        }
        let c = self.count[lo];
        let mut j = if c > 1 {
            below(rng, c as usize) as u32
        } else {
            0
        };
        for (w, &word) in self.bits[lo * self.words..(lo + 1) * self.words]
            .iter()
            .enumerate()
        {
            let k = word.count_ones();
            if j < k {
                return 64 * w + select(word, j) as usize;
            }
            j -= k;
        }
        unreachable!("count[lo] matches the bits")
    }
}

/// The position of the j-th (0-based) set bit of `w`, j < popcount(w): a
/// branch-free binary search over halves (six popcounts, no data-dependent
/// branch; a loop clearing j bits is as fast on average but mispredicts).
#[inline]
pub fn select(mut w: u64, mut j: u32) -> u32 {
    let mut pos = 0;
    for width in [32u32, 16, 8, 4, 2, 1] {
        let c = (w & ((1u64 << width) - 1)).count_ones();
        let go = j >= c;
        let shift = if go { width } else { 0 };
        j -= if go { c } else { 0 };
        w >>= shift;
        pos += shift;
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slotted::law::mix64;

    fn check(b: &mut MinBuckets, bits: &mut BitBuckets, vals: &[u64]) {
        for (s, &p) in b.pos.iter().enumerate() {
            assert_eq!(b.bucket[bucket(vals[s])][p as usize] as usize, s);
        }
        let held: usize = b.bucket.iter().map(Vec::len).sum();
        assert_eq!(held, vals.len());
        for bk in &b.bucket {
            assert!(bk.capacity() <= 16.max(4 * bk.len()));
        }
        for k in 0..=CAP {
            assert_eq!(bits.members(k).count() as u32, bits.count[k]);
            assert!(bits.members(k).all(|s| bucket(vals[s]) == k));
        }
        let m = *vals.iter().min().unwrap();
        let want: Vec<usize> = (0..vals.len()).filter(|&s| vals[s] == m).collect();
        let mut got = Vec::new();
        bits.argmin_set(vals, &mut got);
        assert_eq!(got, want);
        b.argmin_set(vals, &mut got);
        got.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn select_finds_every_set_bit() {
        let mut x = 99u64;
        for _ in 0..2000 {
            x = mix64(x);
            let w = x & mix64(x ^ 1);
            let ones: Vec<u32> = (0..64).filter(|&i| w >> i & 1 == 1).collect();
            for (j, &i) in ones.iter().enumerate() {
                assert_eq!(select(w, j as u32), i);
            }
        }
    }

    /// Random moves, small and across the overflow edge, keep the layout exact.
    #[test]
    fn moves_keep_buckets_and_argmin_exact() {
        let mut vals: Vec<u64> = (0..71).map(|i| i % 4).collect();
        let mut b = MinBuckets::new(&vals);
        let mut bits = BitBuckets::new(&vals);
        check(&mut b, &mut bits, &vals);
        let mut x = 7u64;
        for step in 0..20_000 {
            x = mix64(x);
            let s = (x % 71) as usize;
            let new = match step % 3 {
                0 => vals[s] + (x >> 40) % 5,
                1 => (x >> 20) % 12,
                _ => CAP as u64 - 3 + (x >> 30) % 8,
            };
            b.moved(s, vals[s], new);
            bits.moved(s, vals[s], new);
            vals[s] = new;
            check(&mut b, &mut bits, &vals);
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
