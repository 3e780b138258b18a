//! A server's FIFO queue as run-length records (SPEC §1; issue 2 "Speed").
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
}
