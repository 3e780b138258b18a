//! A tournament tree over N values that keeps, at every node, the minimum of
//! its subtree and how many leaves attain it. Updates and a uniformly random
//! argmin both cost O(log N). Used by L-JSQ on each dispatcher's estimates and
//! by JSQ on the true queue lengths (Zhou, Shroff and Wierman §4.1 suggests a min-heap; the
//! counts are what make uniform tie-breaking exact).

/// Min-with-multiplicity tournament tree.
#[derive(Clone, Debug)]
pub struct ArgminTree {
    /// Node i holds (subtree minimum, leaves attaining it); leaves start at
    /// `size`; node i has children 2i and 2i+1.
    node: Vec<(u64, u64)>,
    size: usize,
    n: usize,
}

/// The (min, count) of a node from its children's, branch-free: the
/// comparisons are unpredictable.
#[inline]
fn join((ml, cl): (u64, u64), (mr, cr): (u64, u64)) -> (u64, u64) {
    let c =
        (cl & 0u64.wrapping_sub((ml <= mr) as u64)) + (cr & 0u64.wrapping_sub((mr <= ml) as u64));
    (ml.min(mr), c)
}

impl ArgminTree {
    /// A tree over `values`.
    pub fn new(values: &[u64]) -> ArgminTree {
        let n = values.len();
        let size = n.next_power_of_two().max(1);
        let mut t = ArgminTree {
            node: vec![(u64::MAX, 0); 2 * size],
            size,
            n,
        };
        t.reset(values);
        t
    }

    #[inline]
    fn pull(&self, i: usize) -> (u64, u64) {
        let pair = &self.node[2 * i..2 * i + 2];
        join(pair[0], pair[1])
    }

    /// Sets leaf `i` to `v`. Stops climbing at the first ancestor whose
    /// (min, count) does not change: the ones above cannot change either.
    #[inline]
    pub fn set(&mut self, i: usize, v: u64) {
        let mut k = self.size + i;
        if self.node[k].0 == v {
            return;
        }
        self.node[k].0 = v;
        k /= 2;
        while k >= 1 {
            let new = self.pull(k);
            if self.node[k] == new {
                return;
            }
            self.node[k] = new;
            k /= 2;
        }
    }

    /// Sets every leaf from `values` and rebuilds in O(N) (cheaper than N
    /// single updates when most leaves change).
    pub fn reset(&mut self, values: &[u64]) {
        for (leaf, &v) in self.node[self.size..self.size + values.len()]
            .iter_mut()
            .zip(values)
        {
            *leaf = (v, 1);
        }
        for i in (1..self.size).rev() {
            self.node[i] = self.pull(i);
        }
    }

    /// The value at leaf `i`.
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        self.node[self.size + i].0
    }

    /// The minimum value.
    #[inline]
    pub fn min(&self) -> u64 {
        self.node[1].0
    }

    /// How many leaves attain the minimum.
    #[inline]
    pub fn ties(&self) -> u32 {
        self.node[1].1 as u32
    }

    /// The `j`-th (0-based, in index order) leaf attaining the minimum;
    /// `j` < [`ties`](Self::ties). With `j` uniform this is a uniform argmin.
    #[inline]
    pub fn nth_argmin(&self, j: u32) -> usize {
        let m = self.node[1].0;
        let mut j = j as u64;
        let mut k = 1;
        while k < self.size {
            let l = 2 * k;
            let (ml, cl) = self.node[l];
            if ml == m {
                if j < cl {
                    k = l;
                    continue;
                }
                j -= cl;
            }
            k = l + 1;
        }
        debug_assert!(k - self.size < self.n);
        k - self.size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argmin_with_ties_enumerates_every_minimiser() {
        let mut t = ArgminTree::new(&[5, 3, 7, 3, 9, 3]);
        assert_eq!((t.min(), t.ties()), (3, 3));
        let all: Vec<_> = (0..3).map(|j| t.nth_argmin(j)).collect();
        assert_eq!(all, vec![1, 3, 5]);
        t.set(3, 10);
        assert_eq!((t.min(), t.ties()), (3, 2));
        t.set(0, 1);
        assert_eq!((t.min(), t.ties(), t.nth_argmin(0)), (1, 1, 0));
        assert_eq!(t.get(3), 10);
    }

    /// Early exit on unchanged ancestors keeps every node equal to a rebuild.
    #[test]
    fn updates_agree_with_a_rebuild() {
        let mut vals: Vec<u64> = (0..37).map(|i| (i * 7 % 5) as u64).collect();
        let mut t = ArgminTree::new(&vals);
        let mut x = 12345u64;
        for _ in 0..5000 {
            x = crate::slotted::law::mix64(x);
            let (i, v) = ((x % 37) as usize, (x >> 32) % 6);
            vals[i] = v;
            t.set(i, v);
            let r = ArgminTree::new(&vals);
            assert_eq!(t.node, r.node);
        }
    }
}
