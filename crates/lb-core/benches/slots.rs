//! `cargo bench -p lb-core` (or `just bench`): slots/s and jobs/s, single
//! thread, for the engine's first settings (1–2), the LSQ line's workload
//! (settings 3–6), and the LSQ line's own policies on it at 100 × its
//! simulator's rates (settings 7–8). Prints the machine and each figure
//! against its target; a miss is reported, never hidden.
//!
//! Then the settings the costliest experiments run (settings 9–12), each
//! beside its *floor* timed in the same run: the same system, load and run
//! length dispatched by weighted random (uniform random on identical
//! servers), which pays what every policy pays a slot (arrivals, service,
//! departures) and no more. A setting should run within 1.5 times its
//! floor.

use lb_core::slotted::{
    Granularity, Law, LedDispatch, LedUpdate, PolicyConfig, PushWhen, RunLength, Seeds,
    SlottedConfig, SystemConfig, TieBreak,
};
use std::time::Instant;

struct Case {
    name: &'static str,
    cfg: SlottedConfig,
    target: f64,
}

fn led(dispatch: LedDispatch, update: LedUpdate) -> PolicyConfig {
    PolicyConfig::Led {
        dispatch,
        update,
        tie_break: TieBreak::Random,
    }
}

fn cfg(
    service: Vec<Law>,
    m: usize,
    arrivals: Law,
    load: f64,
    policy: PolicyConfig,
    slots: u64,
) -> SlottedConfig {
    let mu: f64 = service.iter().map(Law::mean).sum();
    let arrivals = arrivals.with_mean(load * mu / m as f64).unwrap();
    SlottedConfig {
        system: SystemConfig {
            arrivals: vec![arrivals; m],
            service,
        },
        policy,
        granularity: Granularity::Batch,
        count_own: true,
        run: RunLength {
            slots,
            warmup: slots / 10,
            batches: 64,
            warmup_rule: Default::default(),
            advance: Default::default(),
            preference: false,
            estimation: false,
        },
    }
}

fn classes(n: usize) -> Vec<Law> {
    (0..n)
        .map(|i| Law::Bernoulli {
            p: if i < n / 2 { 0.2 } else { 0.8 },
        })
        .collect()
}

fn main() {
    let poisson = Law::Poisson { mean: 1.0 };
    let push = |when| LedUpdate::Push {
        d: 2,
        p_hat: 1.0,
        when,
        revision: 0,
    };
    // Server means uniform on [1, 100], drawn once (deterministic grid here).
    let wide: Vec<Law> = (0..100)
        .map(|i| Law::Geometric {
            mean: 1.0 + 99.0 * (i as f64 + 0.5) / 100.0,
        })
        .collect();
    // The LSQ line's workload (Goren, Vargaftik and Moses): N = 100, M = 10,
    // geometric service, Poisson arrivals, `job` granularity, count_own.
    let lsq = |policy, load| {
        let mut c = cfg(wide.clone(), 10, poisson, load, policy, 200_000);
        c.granularity = Granularity::Job;
        c
    };
    let cases = [
        Case {
            name: "1. N=100 M=10 batch L-JSQ-Push(d=2,p̂=1), Bernoulli 0.2/0.8 service, load 0.9",
            cfg: cfg(
                classes(100),
                10,
                poisson,
                0.9,
                led(LedDispatch::LJsq, push(PushWhen::Arrivals)),
                2_000_000,
            ),
            target: 1e6,
        },
        Case {
            name: "2. N=10 M=2 L-JSQ-Pull(p̂=1), Bernoulli 0.2/0.8 service, load 0.995",
            cfg: cfg(
                classes(10),
                2,
                poisson,
                0.995,
                led(LedDispatch::LJsq, LedUpdate::Pull { p_hat: 1.0 }),
                10_000_000,
            ),
            target: 1e7,
        },
        Case {
            name: "3. N=100 M=10 job+count_own L-JSQ-Push(d=2,p̂=1,always), geometric means U[1,100], load 0.9",
            cfg: lsq(led(LedDispatch::LJsq, push(PushWhen::Always)), 0.9),
            target: 7.5e5,
        },
        Case {
            name: "4. N=100 M=10 job+count_own WR, geometric means U[1,100], load 0.9",
            cfg: lsq(PolicyConfig::WeightedRandom, 0.9),
            target: 3.2e5,
        },
        Case {
            name: "5. N=100 M=10 job+count_own JSQ, geometric means U[1,100], load 0.9",
            cfg: lsq(
                PolicyConfig::Jsq {
                    tie_break: TieBreak::Random,
                },
                0.9,
            ),
            target: 8e5,
        },
        Case {
            name: "6. N=100 M=10 job+count_own JIQ, geometric means U[1,100], load 0.5",
            cfg: lsq(PolicyConfig::Jiq, 0.5),
            // 50 × its rate before the bucketed dispatch (15,800 slots/s on this machine).
            target: 7.9e5,
        },
        // The LSQ line's own policies at 100 × its C++ simulator's measured
        // rates on this workload (LSQ with destination sync about 10⁴
        // slots/s at load 0.9, JIQ-Spread about 3·10⁴ at 0.5).
        Case {
            name: "7. N=100 M=10 job+count_own LSQ (destination sync, d=2, p̂=1, always), geometric means U[1,100], load 0.9",
            cfg: lsq(
                PolicyConfig::Lsq {
                    d: 2,
                    p_hat: 1.0,
                    when: PushWhen::Always,
                    tie_break: TieBreak::Random,
                    revision: lb_core::slotted::LSQ_REVISION,
                },
                0.9,
            ),
            target: 1e6,
        },
        Case {
            name: "8. N=100 M=10 job+count_own JIQ-Spread, geometric means U[1,100], load 0.5",
            cfg: lsq(
                PolicyConfig::JiqSpread {
                    revision: lb_core::slotted::JIQ_SPREAD_REVISION,
                },
                0.5,
            ),
            target: 3e6,
        },
    ];
    // The costliest experiments' settings, each with its floor.
    let mixed: Vec<Law> = [0.2, 0.3, 0.4, 0.5, 0.6, 0.6, 0.7, 0.8, 0.9, 0.9]
        .iter()
        .map(|&p| Law::Bernoulli { p })
        .collect();
    let halves = || vec![Law::Bernoulli { p: 0.5 }; 100];
    // Heavy traffic at ε = 0.001·μ_Σ (led-heavy-traffic): M = 2, N = 10.
    let heavy = |policy| cfg(mixed.clone(), 2, poisson, 0.999, policy, 4_000_000);
    // Fig. 2's long runs (led-fig2-long): M = 10, N = 100 identical, count_own false.
    let long = |policy| {
        let mut c = cfg(halves(), 10, poisson, 0.99, policy, 2_000_000);
        c.count_own = false;
        c
    };
    // Fig. 2's policies with fresh estimates (led-fig2): a Push of every
    // server every slot.
    let fresh = |dispatch| {
        let mut c = cfg(
            halves(),
            10,
            poisson,
            0.9,
            led(dispatch, LedUpdate::push(100, 1.0, PushWhen::Always, 100)),
            200_000,
        );
        c.count_own = false;
        c
    };
    let floored = [
        (
            "9. heavy traffic, ε = 0.001·μ_Σ: N=10 M=2 batch L-JSQ-Push(d=2,p̂=½), Bernoulli rates 0.2–0.9, load 0.999",
            heavy(led(
                LedDispatch::LJsq,
                LedUpdate::Push {
                    d: 2,
                    p_hat: 0.5,
                    when: PushWhen::Arrivals,
                    revision: 0,
                },
            )),
            heavy(PolicyConfig::WeightedRandom),
        ),
        (
            "10. heavy traffic, ε = 0.001·μ_Σ: the same, L-JBA-Pull(p̂=½)",
            heavy(led(LedDispatch::LJba, LedUpdate::Pull { p_hat: 0.5 })),
            heavy(PolicyConfig::WeightedRandom),
        ),
        (
            "11. Fig. 2 long runs: N=100 M=10 batch L-JSQ-Push(d=2,p̂=0.01), count_own false, Bernoulli ½, load 0.99",
            long(led(
                LedDispatch::LJsq,
                LedUpdate::Push {
                    d: 2,
                    p_hat: 0.01,
                    when: PushWhen::Arrivals,
                    revision: 0,
                },
            )),
            long(PolicyConfig::Random),
        ),
        (
            "12. Fig. 2 fresh: N=100 M=10 batch L-JSQ-Push(d=100,p̂=1,always), count_own false, Bernoulli ½, load 0.9",
            fresh(LedDispatch::LJsq),
            {
                let mut c = fresh(LedDispatch::LJsq);
                c.policy = PolicyConfig::Random;
                c
            },
        ),
    ];
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    println!(
        "lb-core slot benchmark — single thread, {cpu}, {} logical CPUs; geometric service {}",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        if lb_core::slotted::service::lanes_available() {
            "eight servers at a time (AVX-512)"
        } else {
            "server by server (no AVX-512 here: settings 3–8 run slower)"
        }
    );
    let filter = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    // LB_BENCH_SCALE shortens every run (e.g. 0.01 under a profiler).
    let scale: f64 = std::env::var("LB_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    for mut case in cases {
        scaled(&mut case.cfg, scale);
        if filter.as_deref().is_some_and(|f| !case.name.contains(f)) {
            continue;
        }
        let (best, jobs) = best_of_3(&case.cfg);
        let slots = case.cfg.run.slots as f64;
        let rate = slots / best;
        let measured = (case.cfg.run.slots - case.cfg.run.warmup) as f64;
        let jobs_rate = jobs as f64 / measured * slots / best;
        let verdict = if rate >= case.target {
            "meets"
        } else {
            "MISSES"
        };
        println!(
            "{}\n    {:>12.0} slots/s  {:>14.0} jobs/s  (best of 3, {} slots)  target {:.0} slots/s: {}",
            case.name, rate, jobs_rate, case.cfg.run.slots, case.target, verdict
        );
    }
    println!(
        "The costliest experiments' settings, each beside its floor (the same run dispatched \
         by weighted random, uniform on identical servers), single thread, timed in turn:"
    );
    for (name, mut c, mut floor) in floored {
        scaled(&mut c, scale);
        scaled(&mut floor, scale);
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let (t, _) = best_of_3(&c);
        let (f, _) = best_of_3(&floor);
        let slots = c.run.slots as f64;
        let ratio = t / f;
        println!(
            "{name}\n    {:>12.0} slots/s, floor {:>12.0} slots/s: {ratio:.2} × the floor (best of 3, {} slots): {}",
            slots / t,
            slots / f,
            c.run.slots,
            if ratio <= 1.5 {
                "within 1.5×"
            } else {
                "BEYOND 1.5×"
            }
        );
    }
}

/// A run `scale` times as long (LB_BENCH_SCALE), its warm-up a tenth.
fn scaled(c: &mut SlottedConfig, scale: f64) {
    c.run.slots = ((c.run.slots as f64 * scale) as u64).max(1000);
    c.run.warmup = c.run.slots / 10;
}

/// The best of three runs' seconds, and the jobs the last one measured.
fn best_of_3(c: &SlottedConfig) -> (f64, u64) {
    let seeds = Seeds::from_u64(1, 2);
    let mut best = f64::INFINITY;
    let mut jobs = 0;
    for r in 0..3 {
        let t = Instant::now();
        let s = lb_core::slotted::run(c, &seeds, r);
        best = best.min(t.elapsed().as_secs_f64());
        jobs = s.arrivals;
    }
    (best, jobs)
}
