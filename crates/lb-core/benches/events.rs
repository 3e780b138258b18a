//! `cargo bench -p lb-core --bench events` (or `just bench`): events/s of the
//! continuous-time engines of docs/MODEL.md §2 (many servers) and §3 (networks),
//! single thread. No targets are set for the first settings; the figures
//! are printed so that a regression shows.
//!
//! Then the setting the costliest many-server experiments run (Liu and
//! Ying's excess at α = 0.3, b = 4, at N = 10⁶ standing for 10⁷: the state
//! is the occupancy classes, so an event costs the same; 30 time units, the
//! first 10 of warm-up, long enough for the occupancy to reach its
//! steady state, which sets Power-of-d's walk), each policy beside its
//! *floor* timed in the same run: the same chain under JSQ, whose routing
//! reads the lowest occupied class and draws nothing, so that it pays what
//! every policy pays an event (the event's draws and the occupancy's
//! update) and no more. (Uniform random routing is not the floor here: it
//! draws a server's class by inversion.) A policy should run within 1.5
//! times its floor.

use lb_core::Seeds;
use lb_core::many::{GraphSpec, ManyConfig, ManyPolicy, PodD, TimeRun, run_many};
use lb_core::spn::{SpnPolicy, n_network, run_spn, rybko_stolyar};
use std::time::Instant;

fn best_of_3(f: impl Fn(u64) -> u64) -> (f64, u64) {
    let mut best = f64::INFINITY;
    let mut events = 0;
    for r in 0..3 {
        let t = Instant::now();
        events = f(r);
        best = best.min(t.elapsed().as_secs_f64());
    }
    (events as f64 / best, events)
}

fn main() {
    let scale: f64 = std::env::var("LB_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let seeds = Seeds::from_u64(1, 2);
    println!("lb-core event benchmark — single thread");
    let n = 10_000;
    let lambda = 1.0 - (n as f64).powf(-0.3);
    let many = |policy, buffer| ManyConfig {
        servers: n,
        lambda,
        buffer,
        policy,
        run: TimeRun {
            horizon: 50.0 * scale,
            warmup: 5.0 * scale,
            batches: 32,
        },
    };
    let cases = [
        ("JSQ", many(ManyPolicy::Jsq, None)),
        ("JIQ", many(ManyPolicy::Jiq, None)),
        ("I1F, b = 4", many(ManyPolicy::I1f, Some(4))),
        (
            "Pod(N^0.3 ln N)",
            many(
                ManyPolicy::Pod {
                    d: PodD::Scaled { alpha: 0.3 },
                },
                None,
            ),
        ),
        (
            "random 4-regular graph",
            many(
                ManyPolicy::Graph {
                    graph: GraphSpec::RandomRegular { degree: 4 },
                },
                None,
            ),
        ),
    ];
    for (name, c) in cases {
        // Every event of the uniformised chain, warm-up included.
        let all = c.steps().0;
        let (rate, events) = best_of_3(|r| {
            run_many(&c, &seeds, r);
            all
        });
        println!(
            "  many servers N = {n}, λ = 1 − N^-0.3 = {lambda:.4}, {name}: {rate:>12.0} events/s ({events} events)"
        );
    }
    let big = 1_000_000;
    let at = |policy| ManyConfig {
        servers: big,
        lambda: 1.0 - (big as f64).powf(-0.3),
        buffer: Some(4),
        policy,
        run: TimeRun {
            horizon: 30.0 * scale,
            warmup: 10.0 * scale,
            batches: 32,
        },
    };
    let events = |c: &ManyConfig| {
        let all = c.steps().0;
        best_of_3(|r| {
            run_many(c, &seeds, r);
            all
        })
    };
    let (floor, _) = events(&at(ManyPolicy::Jsq));
    println!(
        "  N = 10^6, λ = 1 − N^-0.3, b = 4 (sub-halfin-whitt-excess-1e6 and -1e7), floor (JSQ's events): {floor:>12.0} events/s"
    );
    let pod = |d| ManyPolicy::Pod { d };
    for (name, policy) in [
        ("JIQ", ManyPolicy::Jiq),
        ("I1F", ManyPolicy::I1f),
        ("Pod(N^α ln N)", pod(PodD::Scaled { alpha: 0.3 })),
        ("Pod(2)", pod(PodD::Fixed { d: 2 })),
        ("Random", ManyPolicy::Random),
    ] {
        let (rate, _) = events(&at(policy));
        let ratio = floor / rate;
        println!(
            "    {name}: {rate:>12.0} events/s, {ratio:.2} × the floor's time: {}",
            if ratio <= 1.5 {
                "within 1.5×"
            } else {
                "BEYOND 1.5×"
            }
        );
    }
    let spn_run = TimeRun {
        horizon: 200_000.0 * scale,
        warmup: 10_000.0 * scale,
        batches: 32,
    };
    let nets = [
        (
            "Rybko–Stolyar at load 0.95, max-pressure",
            rybko_stolyar(0.95, SpnPolicy::MaxPressure, spn_run),
        ),
        (
            "N-network at load 0.95, max-pressure",
            n_network(0.95, SpnPolicy::MaxPressure, spn_run),
        ),
        (
            "N-network at load 0.95, FIFO",
            n_network(0.95, SpnPolicy::Fifo, spn_run),
        ),
    ];
    for (name, net) in nets {
        let all = net.steps().0;
        let (rate, events) = best_of_3(|r| {
            run_spn(&net, &seeds, r);
            all
        });
        println!("  {name}: {rate:>12.0} events/s ({events} events)");
    }
}
