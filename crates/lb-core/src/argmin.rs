//! A tournament tree over N values that keeps, at every node, the minimum of
//! its subtree and how many leaves attain it. Updates and a uniformly random
//! argmin both cost O(log N). Used by L-JSQ on each dispatcher's estimates and
//! by JSQ on the true queue lengths (seed 000 §4.1 suggests a min-heap; the
//! counts are what make uniform tie-breaking exact).

/// Min-with-multiplicity tournament tree.
#[derive(Clone, Debug)]
pub struct ArgminTree {
    /// Leaves start at `size`; node i has children 2i and 2i+1.
    min: Vec<u64>,
    cnt: Vec<u32>,
    size: usize,
    n: usize,
}

impl ArgminTree {
    /// A tree over `values`.
    pub fn new(values: &[u64]) -> ArgminTree {
        let n = values.len();
        let size = n.next_power_of_two().max(1);
        let mut t = ArgminTree {
            min: vec![u64::MAX; 2 * size],
            cnt: vec![0; 2 * size],
            size,
            n,
        };
        for (i, &v) in values.iter().enumerate() {
            t.min[size + i] = v;
            t.cnt[size + i] = 1;
        }
        for i in (1..size).rev() {
            t.pull(i);
        }
        t
    }

    #[inline]
    fn pull(&mut self, i: usize) {
        let (l, r) = (2 * i, 2 * i + 1);
        let (ml, mr) = (self.min[l], self.min[r]);
        let (cl, cr) = (self.cnt[l], self.cnt[r]);
        // Branch-free: the comparisons are unpredictable.
        self.min[i] = ml.min(mr);
        self.cnt[i] = (cl & 0u32.wrapping_sub((ml <= mr) as u32))
            + (cr & 0u32.wrapping_sub((mr <= ml) as u32));
    }

    /// Sets leaf `i` to `v`.
    #[inline]
    pub fn set(&mut self, i: usize, v: u64) {
        let mut k = self.size + i;
        if self.min[k] == v {
            return;
        }
        self.min[k] = v;
        k /= 2;
        while k >= 1 {
            self.pull(k);
            k /= 2;
        }
    }

    /// Sets every leaf from `values` and rebuilds in O(N) (cheaper than N
    /// single updates when most leaves change).
    pub fn reset(&mut self, values: &[u64]) {
        self.min[self.size..self.size + values.len()].copy_from_slice(values);
        for i in (1..self.size).rev() {
            self.pull(i);
        }
    }

    /// The value at leaf `i`.
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        self.min[self.size + i]
    }

    /// The minimum value.
    #[inline]
    pub fn min(&self) -> u64 {
        self.min[1]
    }

    /// How many leaves attain the minimum.
    #[inline]
    pub fn ties(&self) -> u32 {
        self.cnt[1]
    }

    /// The `j`-th (0-based, in index order) leaf attaining the minimum;
    /// `j` < [`ties`](Self::ties). With `j` uniform this is a uniform argmin.
    #[inline]
    pub fn nth_argmin(&self, mut j: u32) -> usize {
        let m = self.min[1];
        let mut k = 1;
        while k < self.size {
            let l = 2 * k;
            if self.min[l] == m {
                if j < self.cnt[l] {
                    k = l;
                    continue;
                }
                j -= self.cnt[l];
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
}
