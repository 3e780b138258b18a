//! Weighted random advanced in blocks of slots (`run.advance = "blocks"`)
//! against exact theory: each server is a single queue fed by the jobs routed
//! to it (theory::routed_variance), and the block run's time averages, being
//! conditional expectations given each block's totals, must have the slot
//! loop's means. Tolerances are the half-widths of Student-t intervals over
//! independent replications, as in tests/theory.rs.

mod common;
use common::*;
use lb_core::slotted::theory::{routed_variance, single_server_bernoulli_service};
use lb_core::slotted::{Advance, Granularity, Law, PolicyConfig, Seeds};

/// At loads 0.8 and 0.98, under both granularities, with two dispatchers:
/// every server's E[Q_n], and E[ΣQ after arrivals] − E[ΣQ] = λ_Σ. At 0.98 the
/// queues are long (tens of jobs), so most slots are advanced in blocks: the
/// test reads that too, so that it cannot pass on the one-slot path alone.
#[test]
fn block_runs_keep_weighted_randoms_exact_means() {
    let service = vec![bern(0.2), bern(0.5), bern(0.8)];
    let mu_sum = 1.5;
    for (load, slots) in [(0.8, 200_000u64), (0.98, 2_000_000)] {
        for granularity in [Granularity::Job, Granularity::Batch] {
            let sys = poisson_system(2, service.clone(), load);
            let mut c = cfg(sys.clone(), PolicyConfig::WeightedRandom, slots, slots / 10);
            c.granularity = granularity;
            c.run.advance = Advance::Blocks;
            let rs = replicate(&c, 29, 12);
            for (n, law) in service.iter().enumerate() {
                let mu = law.mean();
                let w = mu / mu_sum;
                let sigma2 = routed_variance(&sys.arrivals, w, granularity == Granularity::Batch);
                let exact = single_server_bernoulli_service(sys.lambda_sum() * w, sigma2, mu);
                assert_covers(
                    &format!("load {load}, {granularity:?}: E[Q_{n}]"),
                    &field(&rs, |s| s.mean_queue[n]),
                    exact,
                );
            }
            assert_covers(
                &format!("load {load}, {granularity:?}: arrivals a slot"),
                &field(&rs, |s| s.mean_sum_q_after_arrivals - s.mean_sum_q),
                sys.lambda_sum(),
            );
            let b = rs[0].blocks.expect("a block run says so");
            let in_blocks = slots - b.single_slots;
            if load > 0.9 {
                assert!(
                    in_blocks as f64 > 0.75 * slots as f64 && b.blocks * 4 < slots,
                    "{granularity:?}: {b:?} of {slots} slots"
                );
            }
            for s in &rs {
                assert!(s.mean_response.is_none() && s.completed <= s.arrivals);
                let sum: f64 = s.mean_queue.iter().sum();
                assert!((sum - s.mean_sum_q).abs() <= 1e-9 * sum);
            }
        }
    }
}

/// A block run is a pure function of its seeds and replication.
#[test]
fn block_runs_are_deterministic() {
    let sys = poisson_system(2, vec![bern(0.3), bern(0.6)], 0.95);
    let mut c = cfg(sys, PolicyConfig::WeightedRandom, 100_000, 10_000);
    c.run.advance = Advance::Blocks;
    let seeds = Seeds::from_u64(5, 6);
    let a = lb_core::slotted::run(&c, &seeds, 3);
    let b = lb_core::slotted::run(&c, &seeds, 3);
    assert_eq!(a, b);
    assert_ne!(a, lb_core::slotted::run(&c, &seeds, 4));
}

/// What blocks cannot run exactly is refused, naming the field and the fix.
#[test]
fn blocks_refuse_what_they_cannot_run_exactly() {
    let sys = poisson_system(1, vec![bern(0.3), bern(0.6)], 0.9);
    let mut c = cfg(sys.clone(), PolicyConfig::Random, 10_000, 1_000);
    c.run.advance = Advance::Blocks;
    let e = c.validate().unwrap_err();
    assert!(
        e.contains("run.advance") && e.contains("weighted random"),
        "{e}"
    );
    let mut c = cfg(
        system(sys.arrivals.clone(), vec![Law::Geometric { mean: 0.5 }]),
        PolicyConfig::WeightedRandom,
        10_000,
        1_000,
    );
    c.run.advance = Advance::Blocks;
    let e = c.validate().unwrap_err();
    assert!(e.contains("Bernoulli"), "{e}");
    let mut c = cfg(
        system(vec![bern(0.5)], sys.service.clone()),
        PolicyConfig::WeightedRandom,
        10_000,
        1_000,
    );
    c.run.advance = Advance::Blocks;
    assert!(c.validate().unwrap_err().contains("Poisson"));
    let mut c = cfg(sys, PolicyConfig::WeightedRandom, 10_000, 1_000);
    c.run.advance = Advance::Blocks;
    assert!(c.validate().is_ok());
    c.run.warmup_rule = lb_core::slotted::WarmupRule::Mser5;
    assert!(c.validate().unwrap_err().contains("warmup_rule"));
}
