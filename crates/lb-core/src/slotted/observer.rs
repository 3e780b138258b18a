//! What a test may watch of a run: its exogenous randomness and ΣQ, slot by
//! slot (common random numbers, pathwise bounds).

/// Watches a run's exogenous randomness (for tests of common random numbers).
pub trait Observer {
    /// A_m(t) for every dispatcher, as drawn.
    fn arrivals(&mut self, _t: u64, _a: &[u64]) {}
    /// S_n(t), for a server that had work in slot t (every server, in the
    /// pooled queue).
    fn service(&mut self, _n: usize, _t: u64, _s: u64) {}
    /// Σ_n Q_n(t) at the start of slot t.
    fn sum_q(&mut self, _t: u64, _sum_q: u64) {}
    /// Whether it reads the estimates each dispatcher dispatches on; the loop
    /// hands them over only then.
    const ESTIMATES: bool = false;
    /// The estimates dispatcher m dispatches on in measured slot t, before
    /// its dispatch (its local estimates under an LED policy, the true
    /// queues Q(t) otherwise), and the true queues `q`.
    fn estimates(&mut self, _t: u64, _m: usize, _est: &[u64], _q: &[u64]) {}
}

impl Observer for () {}
