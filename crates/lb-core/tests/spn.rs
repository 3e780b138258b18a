//! Multiclass networks (SPEC §3) against exact queueing theory; tolerances are
//! 99.99% Student-t intervals across replications (see `common`).

mod common;

use common::assert_covers;
use lb_core::Seeds;
use lb_core::many::TimeRun;
use lb_core::spn::{ClassSpec, SpnConfig, SpnPolicy, SpnSummary, run_spn, rybko_stolyar};

fn run(horizon: f64) -> TimeRun {
    TimeRun {
        horizon,
        warmup: horizon / 20.0,
        batches: 32,
    }
}

fn replicate(c: &SpnConfig, seed: u64, reps: u64) -> Vec<SpnSummary> {
    let seeds = Seeds::from_u64(seed, seed + 1);
    (0..reps).map(|r| run_spn(c, &seeds, r)).collect()
}

fn class(station: usize, rate: f64, next: Option<usize>, arrival: f64) -> ClassSpec {
    ClassSpec {
        station,
        rate,
        next,
        arrival,
    }
}

/// A tandem of two single-class stations is a Jackson network: independent
/// M/M/1 queues, E[Z_k] = ρ_k/(1 − ρ_k), under every policy that serves a
/// non-empty station (priority, FIFO).
#[test]
fn a_tandem_is_a_jackson_network() {
    let (lambda, mu) = (0.6, [1.0, 0.8]);
    for policy in [
        SpnPolicy::Fifo,
        SpnPolicy::Priority {
            order: vec![vec![0], vec![1]],
        },
    ] {
        let c = SpnConfig {
            classes: vec![class(0, mu[0], Some(1), lambda), class(1, mu[1], None, 0.0)],
            policy: policy.clone(),
            run: run(20_000.0),
        };
        let rs = replicate(&c, 3, 10);
        for (k, m) in mu.iter().enumerate() {
            let rho = lambda / m;
            let z: Vec<f64> = rs.iter().map(|s| s.mean_jobs[k]).collect();
            assert_covers(&format!("{policy:?} E[Z_{k}]"), &z, rho / (1.0 - rho));
        }
    }
}

/// One station, two classes of equal rate, preemptive priority to class 0:
/// class 0 sees an M/M/1 queue of its own, and the total is the M/M/1 queue of
/// both (the station is work-conserving). Max-pressure serves the longer
/// queue, also work-conserving here: the same total.
#[test]
fn preemptive_priority_on_one_station() {
    let (l0, l1, mu) = (0.3, 0.4, 1.0);
    let prio = SpnConfig {
        classes: vec![class(0, mu, None, l0), class(0, mu, None, l1)],
        policy: SpnPolicy::Priority {
            order: vec![vec![0, 1]],
        },
        run: run(20_000.0),
    };
    let rs = replicate(&prio, 5, 10);
    let r0 = l0 / mu;
    let rho = (l0 + l1) / mu;
    assert_covers(
        "priority E[Z_0]",
        &rs.iter().map(|s| s.mean_jobs[0]).collect::<Vec<_>>(),
        r0 / (1.0 - r0),
    );
    assert_covers(
        "priority E[Z_0 + Z_1]",
        &rs.iter().map(|s| s.mean_total).collect::<Vec<_>>(),
        rho / (1.0 - rho),
    );
    let mp = SpnConfig {
        policy: SpnPolicy::MaxPressure,
        ..prio
    };
    let rs = replicate(&mp, 7, 10);
    assert_covers(
        "max-pressure E[Z_0 + Z_1]",
        &rs.iter().map(|s| s.mean_total).collect::<Vec<_>>(),
        rho / (1.0 - rho),
    );
}

/// SPEC §3: in the Rybko–Stolyar network at load 0.7, priority to the exiting
/// classes is unstable (m₂ + m₄ = 1.2 > 1) and max-pressure is stable.
#[test]
fn rybko_stolyar_priority_is_unstable_max_pressure_is_not() {
    let exiting_first = SpnPolicy::Priority {
        order: vec![vec![3, 0], vec![1, 2]],
    };
    let seeds = Seeds::from_u64(21, 22);
    let horizon = run(20_000.0);
    for r in 0..3 {
        let prio = run_spn(
            &rybko_stolyar(0.7, exiting_first.clone(), horizon),
            &seeds,
            r,
        );
        assert!(!prio.stability.stable, "priority: {:?}", prio.stability);
        let mp = run_spn(
            &rybko_stolyar(0.7, SpnPolicy::MaxPressure, horizon),
            &seeds,
            r,
        );
        assert!(mp.stability.stable, "max-pressure: {:?}", mp.stability);
        assert!(prio.in_system_end > 10 * mp.in_system_end.max(1));
    }
    let loads = rybko_stolyar(0.7, SpnPolicy::MaxPressure, horizon).loads();
    assert!(loads.iter().all(|&x| (x - 0.7).abs() < 1e-12), "{loads:?}");
}

/// Same seeds, same bits.
#[test]
fn network_runs_are_deterministic() {
    let c = rybko_stolyar(0.9, SpnPolicy::Fifo, run(2_000.0));
    let seeds = Seeds::from_u64(1, 2);
    assert_eq!(run_spn(&c, &seeds, 0), run_spn(&c, &seeds, 0));
    assert_ne!(run_spn(&c, &seeds, 0), run_spn(&c, &seeds, 1));
}

/// Bad networks are refused with the field named.
#[test]
fn bad_networks_name_the_field() {
    let mut c = rybko_stolyar(0.7, SpnPolicy::MaxPressure, run(100.0));
    c.classes[1].next = Some(0);
    c.classes[0].next = Some(1);
    assert!(c.validate().unwrap_err().contains("never leaves"));
    let c = rybko_stolyar(
        0.7,
        SpnPolicy::Priority {
            order: vec![vec![0], vec![1, 2]],
        },
        run(100.0),
    );
    assert!(c.validate().unwrap_err().contains("policy.order[0]"));
}
