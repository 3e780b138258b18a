//! The many-server model (docs/MODEL.md §2) against exact queueing theory; tolerances
//! are 99.99% Student-t intervals across replications (see `common`).

mod common;

use common::{LEVEL, assert_covers, interval};
use lb_core::Seeds;
use lb_core::many::theory::{erlang_b, loss_system_occupancy, random_occupancy};
use lb_core::many::{GraphSpec, ManyConfig, ManyPolicy, ManySummary, PodD, TimeRun, run_many};

fn cfg(servers: usize, lambda: f64, buffer: Option<u32>, policy: ManyPolicy) -> ManyConfig {
    ManyConfig {
        servers,
        lambda,
        buffer,
        policy,
        run: TimeRun {
            horizon: 3_000.0,
            warmup: 100.0,
            batches: 32,
        },
    }
}

fn replicate(c: &ManyConfig, seed: u64, reps: u64) -> Vec<ManySummary> {
    let seeds = Seeds::from_u64(seed, seed + 1);
    (0..reps).map(|r| run_many(c, &seeds, r)).collect()
}

fn s(rs: &[ManySummary], i: usize) -> Vec<f64> {
    rs.iter()
        .map(|x| x.occupancy.get(i - 1).copied().unwrap_or(0.0))
        .collect()
}

/// Random routing: every server is an M/M/1 queue at load λ, S_i = λ^i. The
/// same holds for a graph without edges (each server keeps its own stream).
#[test]
fn random_routing_gives_independent_mm1_queues() {
    let lambda = 0.7;
    for policy in [
        ManyPolicy::Random,
        ManyPolicy::Graph {
            graph: GraphSpec::ErdosRenyi { mean_degree: 0.0 },
        },
    ] {
        let rs = replicate(&cfg(20, lambda, None, policy), 3, 10);
        for i in 1..=4 {
            assert_covers(
                &format!("{policy:?} S_{i}"),
                &s(&rs, i),
                random_occupancy(lambda, i as u32),
            );
        }
        assert!(rs.iter().all(|x| x.stability.stable));
    }
}

/// One server under JSQ is M/M/1 too.
#[test]
fn one_server_is_mm1() {
    let rs = replicate(&cfg(1, 0.6, None, ManyPolicy::Jsq), 5, 10);
    for i in 1..=4 {
        assert_covers(&format!("JSQ N=1 S_{i}"), &s(&rs, i), 0.6f64.powi(i as i32));
    }
}

/// With buffer 1, JSQ, JIQ and I1F all send a job to an idle server if there is
/// one: M/M/N/N, whose loss is Erlang's B(N, λN).
#[test]
fn buffer_one_is_the_erlang_loss_system() {
    let (n, lambda) = (10, 0.9);
    let b = erlang_b(n, lambda * n as f64);
    for policy in [ManyPolicy::Jsq, ManyPolicy::Jiq, ManyPolicy::I1f] {
        let rs = replicate(&cfg(n, lambda, Some(1), policy), 7, 10);
        assert_covers(
            &format!("{policy:?} S_1"),
            &s(&rs, 1),
            loss_system_occupancy(n, lambda),
        );
        let loss: Vec<f64> = rs.iter().map(|x| x.loss_fraction.unwrap()).collect();
        assert_covers(&format!("{policy:?} loss"), &loss, b);
        assert!(rs.iter().all(|x| x.occupancy.len() <= 1));
    }
}

/// Power-of-d with d = N samples every server: it is JSQ on the same path,
/// bit for bit (the events come from the system stream).
#[test]
fn pod_with_d_equal_n_is_jsq_pathwise() {
    let seeds = Seeds::from_u64(9, 10);
    let jsq = run_many(&cfg(30, 0.9, None, ManyPolicy::Jsq), &seeds, 0);
    let pod = run_many(
        &cfg(
            30,
            0.9,
            None,
            ManyPolicy::Pod {
                d: PodD::Fixed { d: 30 },
            },
        ),
        &seeds,
        0,
    );
    assert_eq!(jsq, pod);
}

/// The shortest queue among a server and its neighbours in the complete graph
/// (built as the (N−1)-regular graph, through the per-server router) has the
/// law of JSQ: the two means differ by less than their joint interval.
#[test]
fn complete_graph_routing_has_the_law_of_jsq() {
    let n = 12;
    let graph = ManyPolicy::Graph {
        graph: GraphSpec::RandomRegular { degree: n - 1 },
    };
    let a = replicate(&cfg(n, 0.9, None, ManyPolicy::Jsq), 11, 12);
    let b = replicate(&cfg(n, 0.9, None, graph), 13, 12);
    for i in 1..=3 {
        let (ma, ha) = interval(&s(&a, i));
        let (mb, hb) = interval(&s(&b, i));
        assert!(
            (ma - mb).abs() <= (ha * ha + hb * hb).sqrt(),
            "S_{i}: JSQ {ma:.5} ± {ha:.5}, complete graph {mb:.5} ± {hb:.5} ({}% intervals)",
            LEVEL * 100.0
        );
    }
}

/// Same seeds, same bits; another seed, other bits.
#[test]
fn many_server_runs_are_deterministic() {
    let c = cfg(
        50,
        0.95,
        Some(4),
        ManyPolicy::Pod {
            d: PodD::Scaled { alpha: 0.3 },
        },
    );
    let seeds = Seeds::from_u64(1, 2);
    assert_eq!(run_many(&c, &seeds, 3), run_many(&c, &seeds, 3));
    assert_ne!(
        run_many(&c, &seeds, 3).occupancy,
        run_many(&c, &Seeds::from_u64(2, 2), 3).occupancy
    );
}

/// JIQ, I1F and JSQ keep the occupancy far below random routing's at high
/// load (S_2 ≪ λ²), and a ring lies in between (Mukherjee, Borst and van Leeuwaarden: bounded degree does
/// not reach the clique).
#[test]
fn idle_seeking_policies_beat_random_and_a_ring_does_not_reach_jsq() {
    let (n, lambda) = (100, 0.9);
    let s2 = |p| {
        let rs = replicate(&cfg(n, lambda, None, p), 17, 6);
        interval(&s(&rs, 2))
    };
    let (jsq, _) = s2(ManyPolicy::Jsq);
    let (ring, hr) = s2(ManyPolicy::Graph {
        graph: GraphSpec::Ring,
    });
    let (jiq, _) = s2(ManyPolicy::Jiq);
    assert!(jsq < 0.1 * lambda * lambda && jiq < 0.5 * lambda * lambda);
    assert!(ring - hr > jsq && ring < lambda * lambda, "ring S_2 {ring}");
}

/// Common random numbers: every policy at a point, graphs included, reads the
/// same system words, so all see the same arrivals (and the same potential
/// departures).
#[test]
fn every_policy_sees_the_same_events() {
    let seeds = Seeds::from_u64(3, 4);
    let arrivals: Vec<u64> = [
        ManyPolicy::Jsq,
        ManyPolicy::Random,
        ManyPolicy::Pod {
            d: PodD::Fixed { d: 2 },
        },
        ManyPolicy::Graph {
            graph: GraphSpec::Clique,
        },
        ManyPolicy::Graph {
            graph: GraphSpec::Ring,
        },
        ManyPolicy::Graph {
            graph: GraphSpec::ErdosRenyi { mean_degree: 3.0 },
        },
    ]
    .into_iter()
    .map(|p| run_many(&cfg(50, 0.8, None, p), &seeds, 0).arrivals)
    .collect();
    assert!(arrivals.windows(2).all(|w| w[0] == w[1]), "{arrivals:?}");
}

/// A run too short to fill its batches is refused, naming the field.
#[test]
fn a_run_without_a_measured_window_is_refused() {
    let mut c = cfg(1, 0.5, None, ManyPolicy::Jsq);
    c.run.horizon = 0.2;
    c.run.warmup = 0.0;
    assert!(c.validate().unwrap_err().message.contains("run.horizon"));
}

/// Liu and Ying, sub-Halfin-Whitt regime λ = 1 − N^(−α): under JSQ the probability
/// that a job is sent to a non-idle server falls as N grows (it tends to 0).
/// Checked between N = 100 and N = 10,000 at α = 0.45 (near Halfin–Whitt,
/// where the probability is far from 0 at N = 100), each with its 99.99%
/// interval, so the fall is not noise (measured: 0.0366 ± 0.0033 against
/// 0.0021 ± 0.0014).
#[test]
fn jsq_routes_to_busy_servers_ever_less_often_as_n_grows() {
    let p_busy = |n: usize| {
        let lambda = 1.0 - (n as f64).powf(-0.45);
        let mut c = cfg(n, lambda, None, ManyPolicy::Jsq);
        // About 3.7 million events a replication, whatever N.
        let horizon = 2.0e6 / n as f64;
        c.run = TimeRun {
            horizon,
            warmup: horizon / 10.0,
            batches: 16,
        };
        let rs = replicate(&c, 23, 8);
        interval(&rs.iter().map(|x| x.p_to_busy.unwrap()).collect::<Vec<_>>())
    };
    let (small, hs) = p_busy(100);
    let (large, hl) = p_busy(10_000);
    assert!(
        large + hl < small - hs,
        "P(routed to a busy server): N = 100 {small:.4} ± {hs:.4}, N = 10,000 {large:.4} ± {hl:.4}"
    );
}

/// Liu and Ying's excess, time-averaged inside the run, against a direct sum:
/// under Random two servers are independent M/M/1/b queues, so
/// E[max{(Q_1 + Q_2)/2 − λ − k ln 2/√2, 0}] is a double sum over their laws.
/// The simulation must cover it (and it is none without a buffer ≥ 2).
#[test]
fn the_sub_halfin_whitt_excess_is_the_time_average_of_the_instantaneous_excess() {
    use lb_core::many::theory::{Mm1, sub_halfin_whitt_threshold};
    for (n, lambda, b) in [(2usize, 0.9, 4u32), (1, 0.6, 3), (2, 1.3, 3)] {
        let q = Mm1 {
            lambda,
            buffer: Some(b),
        };
        let law: Vec<f64> = (0..=b)
            .map(|i| q.occupancy(i) - q.occupancy(i + 1))
            .collect();
        let t = sub_halfin_whitt_threshold(n, lambda, b);
        let exact: f64 = if n == 1 {
            law.iter()
                .enumerate()
                .map(|(x, p)| p * (x as f64 - t).max(0.0))
                .sum()
        } else {
            let mut e = 0.0;
            for (x, p) in law.iter().enumerate() {
                for (y, r) in law.iter().enumerate() {
                    e += p * r * ((x + y) as f64 / 2.0 - t).max(0.0);
                }
            }
            e
        };
        assert!(exact > 0.01, "the case must have an excess to measure");
        let rs = replicate(&cfg(n, lambda, Some(b), ManyPolicy::Random), 11, 10);
        let xs: Vec<f64> = rs.iter().map(|s| s.shw_excess.unwrap()).collect();
        assert_covers(
            &format!("N = {n}, λ = {lambda}, b = {b} excess"),
            &xs,
            exact,
        );
    }
    let none = replicate(&cfg(4, 0.5, None, ManyPolicy::Jsq), 1, 1);
    assert_eq!(none[0].shw_excess, None);
    let one = replicate(&cfg(4, 0.5, Some(1), ManyPolicy::Jsq), 1, 1);
    assert_eq!(one[0].shw_excess, None);
}

/// Power-of-d at large N against its mean field (Mitzenmacher; VDK): S_2 and
/// S_3 within the interval widened by the mean field's O(1/N) error at this N
/// (bounded here by 20/N, far above the measured gap, far below S_i).
#[test]
fn pod_approaches_its_mean_field() {
    use lb_core::many::theory::pod_mean_field_occupancy;
    let (n, lambda, d) = (2000, 0.9, 2);
    let mut c = cfg(
        n,
        lambda,
        None,
        ManyPolicy::Pod {
            d: PodD::Fixed { d },
        },
    );
    c.run.horizon = 300.0;
    c.run.warmup = 30.0;
    let rs = replicate(&c, 13, 6);
    for i in 2..=3 {
        let (m, h) = interval(&s(&rs, i));
        let mf = pod_mean_field_occupancy(lambda, d, i as u32);
        assert!(
            (m - mf).abs() <= h + 20.0 / n as f64,
            "S_{i}: {m} ± {h} vs mean field {mf}"
        );
    }
}
