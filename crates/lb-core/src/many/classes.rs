//! The occupancy of N exchangeable servers: n_k, the number of servers with
//! exactly k jobs (Liu and Ying's S_i = Σ_{k≥i} n_k / N), with the prefix
//! sums P_j = n_0 + … + n_j for the class of a uniformly random server and
//! for time averages: the area Σ_t P_j(t), kept lazily, and Σ_t n_k(t) as the
//! difference of two of them, exact in integers.
//!
//! A job moving a server from class k to k ± 1 changes one prefix sum, and the
//! class of rank r is the number of prefix sums ≤ r, counted without a branch
//! over the occupied classes (a handful: b + 1 with a buffer b). This replaced
//! a Fenwick tree whose descent branched on every level; both give the same
//! class for every rank, so no run changed.

/// Servers by queue length.
#[derive(Clone, Debug)]
pub struct Classes {
    servers: u64,
    /// n_k for k < the capacity.
    count: Vec<u64>,
    /// P_j = n_0 + … + n_j.
    prefix: Vec<u64>,
    /// The highest occupied class: P_j = N for every j ≥ it.
    high: usize,
    /// Σ over measured steps of P_j, settled lazily: P_j has held since step
    /// `since[j]`.
    area: Vec<u128>,
    since: Vec<u64>,
    /// The smallest occupied class.
    min: usize,
    /// A fixed capacity (buffer b: classes 0..=b), or one that doubles.
    fixed: bool,
}

impl Classes {
    /// N servers, all empty; classes 0..=`buffer` if bounded.
    pub fn new(servers: usize, buffer: Option<u32>) -> Classes {
        let cap = buffer.map_or(64, |b| b as usize + 1);
        let mut c = Classes {
            servers: servers as u64,
            count: vec![0; cap],
            prefix: vec![servers as u64; cap],
            high: 0,
            area: vec![0; cap],
            since: vec![0; cap],
            min: 0,
            fixed: buffer.is_some(),
        };
        c.count[0] = servers as u64;
        c
    }

    #[inline]
    fn settle(&mut self, j: usize, step: u64) {
        self.area[j] += self.prefix[j] as u128 * (step - self.since[j]) as u128;
        self.since[j] = step;
    }

    /// Starts the measured window at `step`: areas from here on.
    pub fn open_window(&mut self, step: u64) {
        self.area.fill(0);
        self.since.fill(step);
    }

    /// n_k.
    #[inline]
    pub fn count(&self, k: usize) -> u64 {
        self.count.get(k).copied().unwrap_or(0)
    }

    /// The smallest occupied class (JSQ's choice).
    #[inline]
    pub fn min(&self) -> usize {
        self.min
    }

    /// The highest class a server can be in, if the buffer is bounded.
    pub fn full(&self) -> Option<usize> {
        self.fixed.then(|| self.count.len() - 1)
    }

    /// One server moves from class k to k + 1 at `step`.
    #[inline]
    pub fn up(&mut self, k: usize, step: u64) {
        if k + 1 == self.count.len() {
            assert!(!self.fixed, "a full server cannot take a job");
            self.grow();
        }
        self.settle(k, step);
        self.count[k] -= 1;
        self.count[k + 1] += 1;
        self.prefix[k] -= 1;
        self.high = self.high.max(k + 1);
        while self.count[self.min] == 0 {
            self.min += 1;
        }
    }

    /// One server moves from class k ≥ 1 to k − 1 at `step`.
    #[inline]
    pub fn down(&mut self, k: usize, step: u64) {
        self.settle(k - 1, step);
        self.count[k] -= 1;
        self.count[k - 1] += 1;
        self.prefix[k - 1] += 1;
        if k == self.high && self.count[k] == 0 {
            self.high = k - 1;
        }
        self.min = self.min.min(k - 1);
    }

    fn grow(&mut self) {
        // The last prefix sum is N and always was: the new ones, N too,
        // share its past.
        let last = self.count.len() - 1;
        let cap = 2 * self.count.len();
        self.count.resize(cap, 0);
        self.prefix.resize(cap, self.servers);
        self.area.resize(cap, self.area[last]);
        self.since.resize(cap, self.since[last]);
    }

    /// The class of the server of rank `r` < N when servers are listed by
    /// class 0, 1, 2, …: with r uniform, the class of a uniformly random server.
    #[inline]
    pub fn class_of_rank(&self, r: u64) -> usize {
        debug_assert!(r < self.servers);
        // The classes whose servers all rank below r + 1: those with P_j ≤ r,
        // a prefix of the classes as P is non-decreasing, and among the
        // classes below the highest occupied one (P_j = N > r from there on).
        self.prefix[..self.high]
            .iter()
            .map(|&p| (p <= r) as usize)
            .sum()
    }

    /// Takes one server of class k out of the ranks, temporarily (drawing
    /// servers without replacement, as [`super::pod::pod_by_draws`] does;
    /// [`put_back`](Self::put_back) undoes it). The ranks then run over
    /// N − (servers taken), and P_j for j ≥ k drops by one.
    pub fn take(&mut self, k: usize) {
        self.count[k] -= 1;
        for p in &mut self.prefix[k..] {
            *p -= 1;
        }
        while self.high > 0 && self.count[self.high] == 0 {
            self.high -= 1;
        }
    }

    /// Undoes [`take`](Self::take).
    pub fn put_back(&mut self, k: usize) {
        self.count[k] += 1;
        for p in &mut self.prefix[k..] {
            *p += 1;
        }
        self.high = self.high.max(k);
    }

    /// Mean n_k over the measured window ending at `step`, for every class:
    /// Σ_t n_k(t) = Σ_t P_k(t) − Σ_t P_{k−1}(t), exactly.
    pub fn mean_counts(&mut self, step: u64, window: u64) -> Vec<f64> {
        for j in 0..self.count.len() {
            self.settle(j, step);
        }
        (0..self.count.len())
            .map(|k| {
                let below = if k == 0 { 0 } else { self.area[k - 1] };
                (self.area[k] - below) as f64 / window as f64
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_map_to_classes_and_moves_keep_counts() {
        let mut c = Classes::new(5, None);
        c.up(0, 0);
        c.up(0, 0);
        c.up(1, 0);
        // Classes: n_0 = 3, n_1 = 1, n_2 = 1.
        let classes: Vec<usize> = (0..5).map(|r| c.class_of_rank(r)).collect();
        assert_eq!(classes, vec![0, 0, 0, 1, 2]);
        assert_eq!(c.min(), 0);
        for _ in 0..70 {
            let k = (0..200).rev().find(|&k| c.count(k) > 0).unwrap();
            c.up(k, 1);
        }
        assert_eq!(c.count(72), 1, "grew past the first capacity");
        assert_eq!(c.class_of_rank(4), 72);
        c.down(72, 2);
        assert_eq!(c.class_of_rank(4), 71);
        c.take(0);
        assert_eq!(c.class_of_rank(2), 1);
        c.put_back(0);
        assert_eq!(c.class_of_rank(2), 0);
    }

    /// The class of every rank against a listing of the servers by class,
    /// over random moves that empty and refill classes, take and put back.
    #[test]
    fn ranks_follow_the_counts_under_random_moves() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for buffer in [Some(3), None] {
            let n = 9;
            let mut c = Classes::new(n, buffer);
            for step in 0..4000u64 {
                let k = c.class_of_rank(rng.random_range(0..n as u64));
                let full = c.full() == Some(k);
                if rng.random_bool(0.5) && !full {
                    c.up(k, step);
                } else if k > 0 {
                    c.down(k, step);
                }
                let mut taken = Vec::new();
                for _ in 0..rng.random_range(0..3) {
                    let left = n as u64 - taken.len() as u64;
                    let t = c.class_of_rank(rng.random_range(0..left));
                    c.take(t);
                    taken.push(t);
                }
                let listing: Vec<usize> = (0..c.count.len())
                    .flat_map(|k| std::iter::repeat_n(k, c.count(k) as usize))
                    .collect();
                for (r, &want) in listing.iter().enumerate() {
                    assert_eq!(c.class_of_rank(r as u64), want, "rank {r} at step {step}");
                }
                for t in taken.into_iter().rev() {
                    c.put_back(t);
                }
                assert_eq!(c.min(), (0..).find(|&k| c.count(k) > 0).unwrap());
            }
        }
    }
}
