//! The occupancy of N exchangeable servers: n_k, the number of servers with
//! exactly k jobs (seed 004's S_i = Σ_{k≥i} n_k / N), with a Fenwick tree over
//! the classes for the class of a uniformly random server in O(log K), and
//! per-class areas kept lazily for time averages.

/// Servers by queue length.
#[derive(Clone, Debug)]
pub struct Classes {
    servers: u64,
    /// n_k for k < the capacity.
    count: Vec<u64>,
    /// Fenwick tree (1-based) over `count`.
    fen: Vec<u64>,
    /// Σ over measured steps of n_k, settled lazily: n_k has held since step
    /// `since[k]`.
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
            fen: vec![0; cap + 1],
            area: vec![0; cap],
            since: vec![0; cap],
            min: 0,
            fixed: buffer.is_some(),
        };
        c.count[0] = servers as u64;
        c.rebuild();
        c
    }

    fn rebuild(&mut self) {
        let cap = self.count.len();
        self.fen = vec![0; cap + 1];
        for k in 0..cap {
            let mut i = k + 1;
            while i <= cap {
                self.fen[i] += self.count[k];
                i += i & i.wrapping_neg();
            }
        }
    }

    #[inline]
    fn fen_add(&mut self, k: usize, delta: i64) {
        let mut i = k + 1;
        while i < self.fen.len() {
            self.fen[i] = self.fen[i].wrapping_add(delta as u64);
            i += i & i.wrapping_neg();
        }
    }

    #[inline]
    fn settle(&mut self, k: usize, step: u64) {
        self.area[k] += self.count[k] as u128 * (step - self.since[k]) as u128;
        self.since[k] = step;
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
    pub fn up(&mut self, k: usize, step: u64) {
        if k + 1 == self.count.len() {
            assert!(!self.fixed, "a full server cannot take a job");
            self.grow();
        }
        self.settle(k, step);
        self.settle(k + 1, step);
        self.count[k] -= 1;
        self.count[k + 1] += 1;
        self.fen_add(k, -1);
        self.fen_add(k + 1, 1);
        while self.count[self.min] == 0 {
            self.min += 1;
        }
    }

    /// One server moves from class k ≥ 1 to k − 1 at `step`.
    pub fn down(&mut self, k: usize, step: u64) {
        self.settle(k, step);
        self.settle(k - 1, step);
        self.count[k] -= 1;
        self.count[k - 1] += 1;
        self.fen_add(k, -1);
        self.fen_add(k - 1, 1);
        self.min = self.min.min(k - 1);
    }

    fn grow(&mut self) {
        let cap = 2 * self.count.len();
        let step = self.since.iter().copied().max().unwrap_or(0);
        self.count.resize(cap, 0);
        self.area.resize(cap, 0);
        self.since.resize(cap, step);
        self.rebuild();
    }

    /// The class of the server of rank `r` < N when servers are listed by
    /// class 0, 1, 2, …: with r uniform, the class of a uniformly random server.
    #[inline]
    pub fn class_of_rank(&self, r: u64) -> usize {
        debug_assert!(r < self.servers);
        // Fenwick descent: the largest prefix of classes holding ≤ r servers.
        let mut pos = 0;
        let mut left = r;
        let mut bit = (self.fen.len() - 1).next_power_of_two();
        while bit > 0 {
            let next = pos + bit;
            if next < self.fen.len() && self.fen[next] <= left {
                pos = next;
                left -= self.fen[next];
            }
            bit /= 2;
        }
        pos
    }

    /// Takes one server of class k out of the ranks, temporarily (drawing
    /// servers without replacement, as [`super::pod::pod_by_draws`] does;
    /// [`put_back`](Self::put_back) undoes it).
    pub fn take(&mut self, k: usize) {
        self.count[k] -= 1;
        self.fen_add(k, -1);
    }

    /// Undoes [`take`](Self::take).
    pub fn put_back(&mut self, k: usize) {
        self.count[k] += 1;
        self.fen_add(k, 1);
    }

    /// Mean n_k over the measured window ending at `step`, for every class.
    pub fn mean_counts(&mut self, step: u64, window: u64) -> Vec<f64> {
        for k in 0..self.count.len() {
            self.settle(k, step);
        }
        self.area
            .iter()
            .map(|&a| a as f64 / window as f64)
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
}
