//! Shared helpers for the lb-core integration tests: configurations and
//! Student-t intervals across independent replications.
#![allow(dead_code)]

use lb_core::slotted::{
    Granularity, Law, LedDispatch, LedUpdate, PolicyConfig, PushWhen, RunLength, RunSummary, Seeds,
    SlottedConfig, SystemConfig, TieBreak,
};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Confidence level of every interval a test asserts against. A correct
/// simulator fails a given assertion with probability 1e-4 per seed; the seeds
/// are fixed, so a pass or fail is reproducible.
pub(crate) const LEVEL: f64 = 0.9999;

/// Mean and half-width of the `LEVEL` Student-t interval of `xs`.
pub(crate) fn interval(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let t = StudentsT::new(0.0, 1.0, n - 1.0)
        .unwrap()
        .inverse_cdf(1.0 - (1.0 - LEVEL) / 2.0);
    (mean, t * (var / n).sqrt())
}

/// Asserts that `theory` lies in the interval of `xs`.
pub(crate) fn assert_covers(what: &str, xs: &[f64], theory: f64) {
    let (m, h) = interval(xs);
    assert!(
        (m - theory).abs() <= h,
        "{what}: simulated {m:.5} ± {h:.5} ({:.2}% interval) does not cover theory {theory:.5}",
        LEVEL * 100.0
    );
}

pub(crate) fn bern(p: f64) -> Law {
    Law::Bernoulli { p }
}

pub(crate) fn system(arrivals: Vec<Law>, service: Vec<Law>) -> SystemConfig {
    SystemConfig { arrivals, service }
}

/// M dispatchers with Poisson arrivals splitting load × μ_Σ equally.
pub(crate) fn poisson_system(m: usize, service: Vec<Law>, load: f64) -> SystemConfig {
    let mu: f64 = service.iter().map(Law::mean).sum();
    let each = load * mu / m as f64;
    system(vec![Law::Poisson { mean: each }; m], service)
}

pub(crate) fn cfg(
    system: SystemConfig,
    policy: PolicyConfig,
    slots: u64,
    warmup: u64,
) -> SlottedConfig {
    SlottedConfig {
        system,
        policy,
        granularity: Granularity::Batch,
        count_own: true,
        run: RunLength {
            slots,
            warmup,
            batches: 64,
            warmup_rule: Default::default(),
            advance: Default::default(),
            preference: false,
            estimation: false,
        },
    }
}

pub(crate) fn led(dispatch: LedDispatch, update: LedUpdate) -> PolicyConfig {
    PolicyConfig::Led {
        dispatch,
        update,
        tie_break: TieBreak::Random,
    }
}

pub(crate) fn push(d: usize, p_hat: f64) -> LedUpdate {
    LedUpdate::Push {
        d,
        p_hat,
        when: PushWhen::Arrivals,
        revision: 0,
    }
}

pub(crate) fn jsq() -> PolicyConfig {
    PolicyConfig::Jsq {
        tie_break: TieBreak::Random,
    }
}

/// `reps` independent replications (same seeds, streams r = 0..reps).
pub(crate) fn replicate(c: &SlottedConfig, seed: u64, reps: u64) -> Vec<RunSummary> {
    let seeds = Seeds::from_u64(seed, seed + 1);
    (0..reps)
        .map(|r| lb_core::slotted::run(c, &seeds, r))
        .collect()
}

pub(crate) fn field(rs: &[RunSummary], f: impl Fn(&RunSummary) -> f64) -> Vec<f64> {
    rs.iter().map(f).collect()
}
