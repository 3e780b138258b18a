//! A server's FIFO queue as run-length records (SPEC §1; issue 2 "Speed").
//!
//! Jobs that arrive in the same slot at the same server are one record
//! (arrival slot, count), so a slot's cost does not grow with the number of
//! jobs queued or the size of a batch.

use std::collections::VecDeque;

/// A FIFO of (arrival slot, count) runs.
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    runs: VecDeque<(u64, u64)>,
}

impl Fifo {
    /// Appends `count` jobs that arrived in slot `t`.
    #[inline]
    pub fn push(&mut self, t: u64, count: u64) {
        match self.runs.back_mut() {
            Some((s, c)) if *s == t => *c += count,
            _ => self.runs.push_back((t, count)),
        }
    }

    /// Removes `d` jobs from the head, calling `depart(arrival_slot, count)` for
    /// each run it takes from. The caller guarantees `d` ≤ the queue length.
    #[inline]
    pub fn pop(&mut self, mut d: u64, mut depart: impl FnMut(u64, u64)) {
        while d > 0 {
            let head = self.runs.front_mut().expect("pop beyond queue length");
            if head.1 <= d {
                d -= head.1;
                depart(head.0, head.1);
                self.runs.pop_front();
            } else {
                head.1 -= d;
                depart(head.0, d);
                d = 0;
            }
        }
    }

    /// The runs still queued, oldest first.
    pub fn runs(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.runs.iter().copied()
    }
}
