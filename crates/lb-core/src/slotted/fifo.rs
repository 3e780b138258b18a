//! A server's FIFO queue as run-length records (docs/MODEL.md §1).
//!
//! Jobs that arrive in the same slot at the same server are one record
//! (arrival slot, count), so a slot's cost does not grow with the number of
//! jobs queued or the size of a batch.

/// A FIFO of (arrival slot, count) runs: a vector read from `head`, compacted
/// when the consumed prefix outgrows the live part (amortised O(1), and no
/// ring-buffer index arithmetic on the hot path).
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    runs: Vec<(u64, u64)>,
    head: usize,
}

impl Fifo {
    /// Appends `count` jobs that arrived in slot `t`.
    #[inline]
    pub fn push(&mut self, t: u64, count: u64) {
        let live = self.head < self.runs.len();
        match self.runs.last_mut() {
            Some((s, c)) if *s == t && live => *c += count,
            _ => {
                if self.head >= 32 && 2 * self.head >= self.runs.len() {
                    self.runs.drain(..self.head);
                    self.head = 0;
                }
                self.runs.push((t, count))
            }
        }
    }

    /// Removes `d` jobs from the head, calling `depart(arrival_slot, count)` for
    /// each run it takes from. The caller guarantees `d` ≤ the queue length.
    /// Whether the head run is used up is not branched on (it is unpredictable
    /// when runs are short); only `d` exceeding the head run loops.
    #[inline]
    pub fn pop(&mut self, mut d: u64, mut depart: impl FnMut(u64, u64)) {
        loop {
            let head = &mut self.runs[self.head];
            let take = d.min(head.1);
            depart(head.0, take);
            head.1 -= take;
            self.head += (head.1 == 0) as usize;
            d -= take;
            if d == 0 {
                return;
            }
        }
    }

    /// [`pop`](Self::pop), taking from the first two runs without a branch
    /// on how far `d` reaches (unpredictable when every slot brings each
    /// server a run and a departure often ends one and takes from the
    /// next); only a `d` beyond them loops. `depart` may be called once more
    /// with a count of 0. Faster when most departures span two runs, slower
    /// when most take from one.
    #[inline]
    pub fn pop2(&mut self, d: u64, mut depart: impl FnMut(u64, u64)) {
        let runs = &mut self.runs[..];
        let last = runs.len() - 1;
        let h = self.head;
        let (s0, c0) = runs[h];
        let t0 = d.min(c0);
        depart(s0, t0);
        runs[h].1 = c0 - t0;
        let h1 = h + (c0 == t0) as usize;
        let d1 = d - t0;
        // The next run, or (d1 = 0) any run, taken from by d1 ≥ 0.
        let i1 = h1.min(last);
        let (s1, c1) = runs[i1];
        let t1 = d1.min(c1);
        depart(s1, t1);
        runs[i1].1 = c1 - t1;
        self.head = h1 + ((t1 > 0) & (c1 == t1)) as usize;
        let d = d1 - t1;
        if d > 0 {
            self.pop(d, depart);
        }
    }

    /// The runs still queued, oldest first.
    pub fn runs(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.runs[self.head..].iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Jobs leave in arrival order, runs merge within a slot, and compaction
    /// keeps the contents.
    #[test]
    fn first_in_first_out_through_compaction() {
        let mut f = Fifo::default();
        let mut out = Vec::new();
        let mut queued = 0u64;
        for t in 0..500u64 {
            f.push(t, 1 + t % 3);
            if t % 7 == 0 {
                f.push(t, 2);
            }
            queued += 1 + t % 3 + if t % 7 == 0 { 2 } else { 0 };
            let d = (t % 5).min(queued);
            f.pop(d, |s, c| out.push((s, c)));
            queued -= d;
        }
        assert_eq!(f.runs().map(|(_, c)| c).sum::<u64>(), queued);
        // Departures are in nondecreasing arrival slot.
        assert!(out.windows(2).all(|w| w[0].0 <= w[1].0));
        assert!(f.runs.len() < 200, "compaction bounds the vector");
    }

    /// The two-step pop takes the same jobs as the loop, in the same order
    /// (its extra calls carry no jobs).
    #[test]
    fn pop2_takes_what_pop_takes() {
        let (mut f, mut g) = (Fifo::default(), Fifo::default());
        let (mut out_f, mut out_g) = (Vec::new(), Vec::new());
        let mut queued = 0u64;
        for t in 0..2000u64 {
            let k = (t * 7919) % 5;
            if k > 0 {
                f.push(t, k);
                g.push(t, k);
                queued += k;
            }
            let d = ((t * 104_729) % 13).min(queued);
            if d > 0 {
                f.pop(d, |s, c| out_f.push((s, c)));
                g.pop2(d, |s, c| {
                    if c > 0 {
                        out_g.push((s, c))
                    }
                });
                queued -= d;
            }
            assert_eq!(f.runs().collect::<Vec<_>>(), g.runs().collect::<Vec<_>>());
        }
        assert_eq!(out_f, out_g);
    }
}
