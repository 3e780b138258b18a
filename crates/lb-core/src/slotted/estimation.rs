//! The estimation error of Zhou, Shroff and Wierman's Lemma 3: X_mn(t) =
//! |Q_n(t) − Q̃_mn(t)|, the distance between server n's queue and
//! dispatcher m's estimate of it, read at the states a run visits
//! (`run.estimation`). The lemma bounds its mean by a constant of p and μ_Σ
//! alone, independent of ε (Appendix A: (λ_Σ + μ_max)/p ≤ 2μ_Σ/p).

use crate::slotted::config::SlottedConfig;
use crate::slotted::observer::Observer;
use crate::slotted::preference::Watch;
use crate::slotted::summary::EstimationSummary;

/// Sums X_mn(t) over a run's measured slots, pair by pair.
pub struct ErrorWatch {
    n: usize,
    /// Σ_t X_mn(t), at m·N + n.
    sums: Vec<f64>,
    /// Dispatcher-slots read.
    reads: u64,
    m: usize,
}

impl ErrorWatch {
    /// The watch of `cfg`'s M dispatchers and N servers.
    pub fn new(cfg: &SlottedConfig) -> ErrorWatch {
        let (m, n) = (cfg.system.dispatchers(), cfg.system.servers());
        ErrorWatch {
            n,
            sums: vec![0.0; m * n],
            reads: 0,
            m,
        }
    }

    /// What it saw.
    pub fn summary(&self) -> EstimationSummary {
        let slots = self.reads / self.m.max(1) as u64;
        let per = slots.max(1) as f64;
        let max = self.sums.iter().fold(0.0f64, |a, &s| a.max(s / per));
        let mean = self.sums.iter().sum::<f64>() / (per * self.sums.len().max(1) as f64);
        EstimationSummary { slots, mean, max }
    }

    fn add(&mut self, m: usize, est: &[u64], q: &[u64]) {
        let row = &mut self.sums[m * self.n..(m + 1) * self.n];
        for ((s, &e), &x) in row.iter_mut().zip(est).zip(q) {
            *s += e.abs_diff(x) as f64;
        }
        self.reads += 1;
    }
}

/// What a run reads of the estimates: the dispatching preference, the
/// estimation error, or both.
pub struct Estimates {
    /// The dispatching preference (`run.preference`).
    pub preference: Option<Watch>,
    /// The estimation error (`run.estimation`).
    pub error: Option<ErrorWatch>,
}

impl Observer for Estimates {
    const ESTIMATES: bool = true;
    fn estimates(&mut self, t: u64, m: usize, est: &[u64], q: &[u64]) {
        if let Some(w) = &mut self.preference {
            w.estimates(t, m, est, q);
        }
        if let Some(w) = &mut self.error {
            w.add(m, est, q);
        }
    }
}
