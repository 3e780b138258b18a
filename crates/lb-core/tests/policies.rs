//! Message accounting, determinism, common random numbers and stability.

mod common;
use common::*;
use lb_core::slotted::sim::{Observer, run_observed};
use lb_core::slotted::{
    Granularity, LedDispatch, LedUpdate, PolicyConfig, PushWhen, RunSummary, Seeds, TieBreak,
};
use std::collections::HashMap;

fn het10() -> Vec<lb_core::slotted::Law> {
    (0..10)
        .map(|n| bern(if n < 5 { 0.2 } else { 0.8 }))
        .collect()
}

/// With Bernoulli arrivals a dispatcher-slot has at most one job, so a
/// `batch` decision is exactly one arrival.
fn bernoulli_dispatchers(m: usize, load: f64) -> lb_core::slotted::SystemConfig {
    let service = het10();
    let mu: f64 = service.iter().map(lb_core::slotted::Law::mean).sum();
    system(vec![bern(load * mu / m as f64); m], service)
}

#[test]
fn power_of_d_costs_exactly_2d_per_decision_and_jsq_2n() {
    for granularity in [Granularity::Batch, Granularity::Job] {
        for d in [1, 2, 5] {
            let p = PolicyConfig::Pod {
                d,
                tie_break: TieBreak::Random,
            };
            let mut c = cfg(poisson_system(3, het10(), 0.6), p, 20_000, 0);
            c.granularity = granularity;
            let s = &replicate(&c, 21, 1)[0];
            assert_eq!(
                s.messages,
                2 * d as u64 * s.decisions,
                "{granularity:?} d={d}"
            );
        }
    }
    let c = cfg(bernoulli_dispatchers(4, 0.6), jsq(), 20_000, 0);
    let s = &replicate(&c, 22, 1)[0];
    assert_eq!(s.decisions, s.arrivals);
    assert_eq!(s.messages, 2 * 10 * s.decisions);
}

#[test]
fn push_costs_2d_p_hat_per_eligible_dispatcher_slot() {
    let (d, p_hat) = (3, 0.3);
    let c = cfg(
        bernoulli_dispatchers(4, 0.7),
        led(LedDispatch::LJsq, push(d, p_hat)),
        50_000,
        0,
    );
    let rs = replicate(&c, 23, 8);
    // Eligible dispatcher-slots = dispatcher-slots with arrivals = decisions.
    let per = field(&rs, |s| s.messages as f64 / s.decisions as f64);
    assert_covers(
        "Push messages per eligible slot",
        &per,
        2.0 * d as f64 * p_hat,
    );
    // when = always: every dispatcher every slot is eligible.
    let always = LedUpdate::Push {
        d,
        p_hat,
        when: PushWhen::Always,
        revision: 0,
    };
    let c = cfg(
        bernoulli_dispatchers(4, 0.7),
        led(LedDispatch::LJsq, always),
        50_000,
        0,
    );
    let rs = replicate(&c, 24, 8);
    let per = field(&rs, |s| s.messages as f64 / (4.0 * s.measured_slots as f64));
    assert_covers(
        "Push(always) messages per dispatcher-slot",
        &per,
        2.0 * d as f64 * p_hat,
    );
}

#[test]
fn pull_sends_at_most_one_message_per_completing_server() {
    for p_hat in [0.0, 0.2, 1.0] {
        let c = cfg(
            poisson_system(3, het10(), 0.8),
            led(LedDispatch::LJsq, LedUpdate::Pull { p_hat }),
            30_000,
            0,
        );
        let s = &replicate(&c, 25, 1)[0];
        assert!(s.messages <= s.completion_events, "p̂={p_hat}");
        if p_hat == 1.0 {
            assert_eq!(s.messages, s.completion_events);
        }
        if p_hat == 0.0 {
            assert!(s.messages > 0, "idle reports are always sent");
        }
    }
}

#[test]
fn same_seed_same_bits_different_seed_different_numbers() {
    let c = cfg(
        poisson_system(3, het10(), 0.85),
        led(LedDispatch::LJba, push(2, 0.2)),
        20_000,
        1_000,
    );
    let seeds = Seeds::from_u64(1, 2);
    let a = lb_core::slotted::run(&c, &seeds, 0);
    let b = lb_core::slotted::run(&c, &seeds, 0);
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    let other_rep = lb_core::slotted::run(&c, &seeds, 1);
    let other_seed = lb_core::slotted::run(&c, &Seeds::from_u64(3, 2), 0);
    let other_policy_seed = lb_core::slotted::run(&c, &Seeds::from_u64(1, 9), 0);
    assert_ne!(a.mean_sum_q, other_rep.mean_sum_q);
    assert_ne!(a.mean_sum_q, other_seed.mean_sum_q);
    assert_ne!(a.mean_sum_q, other_policy_seed.mean_sum_q);
    // The policy seed moves decisions only: the arrivals are the same.
    assert_eq!(a.arrivals, other_policy_seed.arrivals);
    // Every kind of policy the engine defines gives the same bits for the
    // same seeds, run here and on another thread at once.
    for p in PolicyConfig::every_kind() {
        let mut c = cfg(poisson_system(3, het10(), 0.85), p, 3_000, 100);
        c.granularity = Granularity::Job;
        let here = serde_json::to_string(&lb_core::slotted::run(&c, &seeds, 2)).unwrap();
        let there = std::thread::spawn(move || {
            serde_json::to_string(&lb_core::slotted::run(&c, &Seeds::from_u64(1, 2), 2)).unwrap()
        })
        .join()
        .unwrap();
        assert_eq!(here, there, "{}", p.name());
    }
}

#[derive(Default)]
struct Record {
    arrivals: Vec<Vec<u64>>,
    service: HashMap<(usize, u64), u64>,
}

impl Observer for Record {
    fn arrivals(&mut self, _t: u64, a: &[u64]) {
        self.arrivals.push(a.to_vec());
    }
    fn service(&mut self, n: usize, t: u64, s: u64) {
        self.service.insert((n, t), s);
    }
}

/// docs/MODEL.md §4: arrivals and service depend on the system seed and the
/// replication only, so two policies see identical A_m(t) and S_n(t).
#[test]
fn policies_share_arrivals_and_service() {
    let sys = poisson_system(
        3,
        (0..6)
            .map(|n| lb_core::slotted::Law::Geometric {
                mean: 0.3 + 0.1 * n as f64,
            })
            .collect(),
        0.9,
    );
    let mut seen = Vec::new();
    for (i, p) in [
        jsq(),
        PolicyConfig::Random,
        led(LedDispatch::LPod { d: 2 }, push(1, 0.5)),
    ]
    .into_iter()
    .enumerate()
    {
        let c = cfg(sys.clone(), p, 5_000, 0);
        let mut rec = Record::default();
        // Different policy seeds too, as the runner derives them from the key.
        run_observed(&c, &Seeds::from_u64(5, 100 + i as u64), 2, &mut rec);
        seen.push(rec);
    }
    let mut shared = 0;
    for other in &seen[1..] {
        assert_eq!(seen[0].arrivals, other.arrivals);
        for (k, v) in &other.service {
            if let Some(v0) = seen[0].service.get(k) {
                assert_eq!(v0, v, "S_n(t) at {k:?}");
                shared += 1;
            }
        }
    }
    assert!(shared > 10_000, "too few common service draws: {shared}");
}

/// Zhou, Shroff and Wierman §1: JIQ is not stable for heterogeneous servers; L-JSQ-Pull is.
/// Five servers at rate 0.1 and five at 0.9, load 0.9: once the idle lists run
/// dry JIQ routes uniformly, 0.9 × 0.5 = 0.45 jobs a slot per server, far over
/// the slow servers' 0.1. (With rates 0.2/0.8 at this load and N = 10, JIQ's
/// idle lists keep it stable: heterogeneity has to be strong.)
#[test]
fn jiq_is_unstable_with_heterogeneous_servers_and_l_jsq_pull_is_not() {
    let service = (0..10)
        .map(|n| bern(if n < 5 { 0.1 } else { 0.9 }))
        .collect();
    let sys = poisson_system(2, service, 0.9);
    let c = cfg(sys.clone(), PolicyConfig::Jiq, 200_000, 20_000);
    let s = &replicate(&c, 26, 1)[0];
    assert!(!s.stability.stable, "JIQ judged stable: {:?}", s.stability);
    let c = cfg(
        sys,
        led(LedDispatch::LJsq, LedUpdate::Pull { p_hat: 0.1 }),
        200_000,
        20_000,
    );
    let s = &replicate(&c, 27, 1)[0];
    assert!(
        s.stability.stable,
        "L-JSQ-Pull judged unstable: {:?}",
        s.stability
    );
}

/// Every kind of policy the engine defines (`PolicyConfig::every_kind`, so
/// a new one is run here without being listed), under each granularity and
/// count_own it accepts, conserves jobs and keeps its per-server areas
/// summing to ΣQ's.
#[test]
fn every_policy_and_granularity_conserves_jobs() {
    use lb_core::slotted::POLICY_KINDS;
    let all = PolicyConfig::every_kind();
    let mut kinds = vec![0usize; POLICY_KINDS];
    for p in &all {
        assert!(p.kind() < POLICY_KINDS, "{}: give it a kind", p.name());
        kinds[p.kind()] += 1;
    }
    assert!(
        kinds.iter().all(|&k| k > 0),
        "kinds without an example in every_kind: {kinds:?}"
    );
    let mut ran = vec![0usize; POLICY_KINDS];
    for p in all {
        for granularity in [Granularity::Batch, Granularity::Job] {
            for count_own in [true, false] {
                let mut c = cfg(poisson_system(3, het10(), 0.5), p, 5_000, 0);
                c.granularity = granularity;
                c.count_own = count_own;
                if c.validate().is_err() {
                    continue; // e.g. JIQ-Spread, which needs `job`
                }
                let s = &replicate(&c, 28, 1)[0];
                let queued: f64 = s.mean_queue.iter().sum();
                assert!((queued - s.mean_sum_q).abs() <= 1e-9 * s.mean_sum_q.max(1.0));
                assert!(
                    s.completed + s.in_system_end == s.arrivals,
                    "{} {granularity:?}",
                    p.name()
                );
                ran[p.kind()] += 1;
            }
        }
    }
    assert!(ran.iter().all(|&k| k > 0), "kinds never run: {ran:?}");
}

/// docs/MODEL.md §4: MSER-5 picks the warm-up on a first pass; the run is then the
/// fixed-warm-up run on the same sample path, bit for bit.
#[test]
fn mser5_warmup_is_a_fixed_warmup_chosen_on_the_same_path() {
    // Overloaded, ΣQ grows linearly: MSER-5 (Var of the rest / its length)
    // then cuts as much as it may, about half the run, on any sample path.
    // (Near-critical stable loads cut a transient on some paths and nothing
    // on others.)
    let mut c = cfg(poisson_system(2, het10(), 1.05), jsq(), 50_000, 0);
    c.run.warmup_rule = lb_core::slotted::WarmupRule::Mser5;
    let seeds = Seeds::from_u64(3, 4);
    let s = lb_core::slotted::run(&c, &seeds, 0);
    let w = lb_core::slotted::sim::warmup_slots(&c, &seeds, 0);
    assert!(
        w >= c.run.slots / 4 && w <= c.run.slots / 2,
        "MSER-5 cut {w} slots"
    );
    assert_eq!(s.measured_slots, c.run.slots - w);
    let mut fixed = c.clone();
    fixed.run.warmup = w;
    fixed.run.warmup_rule = lb_core::slotted::WarmupRule::Fixed;
    assert_eq!(
        serde_json::to_string(&lb_core::slotted::run(&fixed, &seeds, 0)).unwrap(),
        serde_json::to_string(&s).unwrap()
    );
}

/// The LSQ line's variants conserve jobs; LSQ's destination sync
/// costs one message a destination (under `batch` with p̂ = 0, exactly one a
/// decision), JIQ-Spread one an idle report (at most one a completing
/// server); JIQ-Spread needs `job` granularity.
#[test]
fn lsq_line_variants_conserve_jobs_and_count_messages() {
    let lsq = |p_hat| PolicyConfig::Lsq {
        d: 2,
        p_hat,
        when: PushWhen::Always,
        tie_break: TieBreak::Random,
        revision: lb_core::slotted::LSQ_REVISION,
    };
    for (p, granularity) in [
        (lsq(0.0), Granularity::Batch),
        (lsq(0.0), Granularity::Job),
        (lsq(1.0), Granularity::Job),
        (PolicyConfig::JiqSpread { revision: 0 }, Granularity::Job),
        (PolicyConfig::JiqSpread { revision: 1 }, Granularity::Job),
    ] {
        for count_own in [true, false] {
            let mut c = cfg(poisson_system(3, het10(), 0.7), p, 5_000, 500);
            c.granularity = granularity;
            c.count_own = count_own;
            let s = &replicate(&c, 29, 1)[0];
            assert_eq!(s.completed + s.in_system_end, s.arrivals, "{}", p.name());
            match p {
                PolicyConfig::Lsq { p_hat: 0.0, .. } => {
                    if granularity == Granularity::Batch {
                        assert_eq!(s.messages, s.decisions);
                    } else {
                        assert!(s.messages <= s.decisions && s.messages > 0);
                    }
                }
                PolicyConfig::JiqSpread { .. } => assert!(s.messages <= s.completion_events),
                _ => {}
            }
        }
    }
    let mut c = cfg(
        poisson_system(3, het10(), 0.7),
        PolicyConfig::JiqSpread { revision: 1 },
        5_000,
        500,
    );
    c.granularity = Granularity::Batch;
    assert!(c.validate().unwrap_err().contains("job"));
}

/// LSQ with full information is JSQ: one dispatcher that pushes all N
/// servers every slot (d = N, p̂ = 1, `always`) holds Q(t) exactly at each
/// dispatch, and syncing its destinations to Q + the jobs sent is what
/// `count_own` already gives. The two sample paths differ (other random
/// words), not their law: ΣQ's mean agrees, paired by replication (same
/// arrivals and service).
#[test]
fn lsq_with_full_information_is_jsq() {
    let lsq = |revision| PolicyConfig::Lsq {
        d: 10,
        p_hat: 1.0,
        when: PushWhen::Always,
        tie_break: TieBreak::Random,
        revision,
    };
    for (granularity, revision) in [
        (Granularity::Batch, 1),
        (Granularity::Job, 0),
        (Granularity::Job, 1),
    ] {
        let run = |p| {
            let mut c = cfg(poisson_system(1, het10(), 0.9), p, 100_000, 5_000);
            c.granularity = granularity;
            replicate(&c, 30, 10)
        };
        let (a, b) = (run(lsq(revision)), run(jsq()));
        let diff: Vec<f64> = a
            .iter()
            .zip(&b)
            .map(|(x, y)| x.mean_sum_q - y.mean_sum_q)
            .collect();
        assert_covers(
            &format!("{granularity:?} revision {revision}: LSQ − JSQ, E[ΣQ]"),
            &diff,
            0.0,
        );
    }
}

/// JIQ-Spread's two split revisions read other random words for the same
/// law (one Poissonised split at every dispatcher's mean, or one per number
/// of dispatchers without reports): with ten dispatchers at load 0.5 on
/// heterogeneous servers, E[ΣQ], E[response] and the messages a slot agree,
/// paired by replication, while the sample paths differ.
#[test]
fn jiq_spread_revisions_have_one_law() {
    let run = |revision| {
        let mut c = cfg(
            poisson_system(10, het10(), 0.5),
            PolicyConfig::JiqSpread { revision },
            40_000,
            4_000,
        );
        c.granularity = Granularity::Job;
        replicate(&c, 31, 11)
    };
    let messages = |s: &RunSummary| s.messages as f64;
    revisions_agree("JIQ-Spread", &run(0), &run(1), &[("messages", messages)]);
}

/// A named metric of a replication.
type Metric = (&'static str, fn(&RunSummary) -> f64);

/// Two revisions' replications (paired: the same arrivals and service) take
/// other sample paths, yet E[ΣQ], E[response] and each of `more` agree: the
/// paired differences' interval covers 0.
fn revisions_agree(policy: &str, a: &[RunSummary], b: &[RunSummary], more: &[Metric]) {
    assert!(a.iter().zip(b).any(|(x, y)| x.mean_sum_q != y.mean_sum_q));
    let metrics: [Metric; 2] = [
        ("E[ΣQ]", |s| s.mean_sum_q),
        ("E[response]", |s| s.mean_response.expect("jobs completed")),
    ];
    for &(name, f) in metrics.iter().chain(more) {
        let diff: Vec<f64> = field(a, f)
            .iter()
            .zip(field(b, f))
            .map(|(x, y)| x - y)
            .collect();
        assert_covers(&format!("{policy} revision 0 − 1, {name}"), &diff, 0.0);
    }
}

/// LSQ's two water-fill revisions read other random words for the same law
/// (`slotted::scan` against `slotted::order`): on the LSQ line's kind of
/// workload (ten dispatchers, heterogeneous servers, stale Push estimates,
/// `job` granularity), E[ΣQ] and E[response] agree, paired by replication
/// (same arrivals and service), while the sample paths differ.
#[test]
fn lsq_revisions_have_one_law() {
    let lsq = |revision| PolicyConfig::Lsq {
        d: 2,
        p_hat: 0.3,
        when: PushWhen::Always,
        tie_break: TieBreak::Random,
        revision,
    };
    let run = |revision| {
        let mut c = cfg(
            poisson_system(10, het10(), 0.9),
            lsq(revision),
            40_000,
            4_000,
        );
        c.granularity = Granularity::Job;
        replicate(&c, 30, 11)
    };
    revisions_agree("LSQ", &run(0), &run(1), &[]);
}

/// What every kind of policy declares it does (`PolicyConfig::traits`),
/// held to its runs without listing the policy here:
/// - JSQ-like: with fresh information (`PolicyConfig::fresh`) on identical
///   servers, its E[ΣQ] lies nearer JSQ's than uniform Random's (the paired
///   difference's interval at most half Random's excess over JSQ), which a
///   policy that routes at random fails by far;
/// - oblivious: its E[ΣQ] is the exact sum of independent queues fed its
///   fixed share of the arrivals;
/// - other: it says why.
#[test]
fn every_policy_does_what_it_declares() {
    use lb_core::slotted::theory::{routed_variance, single_server_bernoulli_service};
    use lb_core::slotted::{Behaviour, Weights};
    let n = 6;
    let identical = || poisson_system(1, vec![bern(0.5); n], 0.9);
    let sum_q = |p: PolicyConfig| {
        let c = cfg(identical(), p, 40_000, 4_000);
        field(&replicate(&c, 31, 10), |s| s.mean_sum_q)
    };
    let jsq_q = sum_q(jsq());
    let random_q = sum_q(PolicyConfig::Random);
    let paired =
        |a: &[f64], b: &[f64]| -> Vec<f64> { a.iter().zip(b).map(|(x, y)| x - y).collect() };
    let (excess, h) = interval(&paired(&random_q, &jsq_q));
    assert!(
        excess - h > 0.0,
        "Random must lose to JSQ here: {excess} ± {h}"
    );
    for p in PolicyConfig::every_kind() {
        let t = p.traits();
        match t.behaviour {
            Behaviour::JsqLike => {
                let q = sum_q(p.fresh(n));
                let (d, hd) = interval(&paired(&q, &jsq_q));
                assert!(
                    d + hd <= (excess - h) / 2.0,
                    "{} declares itself JSQ-like, but with fresh information its E[ΣQ] exceeds \
                     JSQ's by {d:.3} ± {hd:.3}, not below half of Random's excess ({excess:.3} \
                     ± {h:.3})",
                    p.name()
                );
            }
            Behaviour::Oblivious(weights) => {
                let rates = [0.6, 0.6, 0.6, 0.9, 0.9, 0.9].map(bern).to_vec();
                let sys = poisson_system(3, rates, 0.6);
                let mu: f64 = sys.service.iter().map(lb_core::slotted::Law::mean).sum();
                let lambda: f64 = sys.arrivals.iter().map(lb_core::slotted::Law::mean).sum();
                let exact: f64 = sys
                    .service
                    .iter()
                    .map(|s| {
                        let q = s.mean();
                        let w = match weights {
                            Weights::Uniform => 1.0 / sys.service.len() as f64,
                            Weights::Rates => q / mu,
                        };
                        let s2 = routed_variance(&sys.arrivals, w, true);
                        single_server_bernoulli_service(lambda * w, s2, q)
                    })
                    .sum();
                assert!(exact.is_finite() && exact > 0.0, "{exact}");
                let c = cfg(sys, p, 40_000, 4_000);
                let q = field(&replicate(&c, 32, 10), |s| s.mean_sum_q);
                assert_covers(&format!("{}'s E[ΣQ]", p.name()), &q, exact);
            }
            Behaviour::Other(why) => assert!(!why.is_empty(), "{}: say why", p.name()),
        }
    }
}

/// Every kind of policy whose messages per arrival have a closed form
/// (`theory::messages_per_arrival`) pays them in its runs.
#[test]
fn every_policy_pays_the_messages_it_declares() {
    for p in PolicyConfig::every_kind() {
        let c = cfg(poisson_system(3, het10(), 0.7), p, 20_000, 2_000);
        let Ok(exact) = lb_core::slotted::theory::messages_per_arrival(&c) else {
            continue;
        };
        let per = field(&replicate(&c, 33, 8), |s| {
            s.messages as f64 / s.arrivals.max(1) as f64
        });
        assert_covers(&format!("{}'s messages per arrival", p.name()), &per, exact);
    }
}

/// Welch's interval of the difference of two samples' means at `LEVEL`.
fn difference(a: &[f64], b: &[f64]) -> (f64, f64) {
    let (ma, ha) = interval(a);
    let (mb, hb) = interval(b);
    // Each half-width is t·s/√n on the same degrees of freedom (equal n):
    // their root sum of squares is the difference's half-width.
    (ma - mb, (ha * ha + hb * hb).sqrt())
}

/// A Push of every server at revision 1 (no draw; one shared copy of the
/// estimates when nothing else changes them) has the law of the same Push
/// drawn at revision 0: equal E[ΣQ] within the interval of the difference,
/// and exactly the same messages. Without `count_own` both are JSQ on the
/// start-of-slot queues.
#[test]
fn a_push_of_every_server_without_draws_has_the_drawn_push_law() {
    let n = 10;
    let drawn = LedUpdate::Push {
        d: n,
        p_hat: 1.0,
        when: PushWhen::Always,
        revision: 0,
    };
    let undrawn = LedUpdate::push(n, 1.0, PushWhen::Always, n);
    assert!(matches!(undrawn, LedUpdate::Push { revision: 1, .. }));
    let sum_q = |rs: &[RunSummary]| field(rs, |s| s.mean_sum_q);
    for count_own in [false, true] {
        for dispatch in [
            LedDispatch::LJsq,
            LedDispatch::LJba,
            LedDispatch::LPod { d: 2 },
        ] {
            let at = |u| {
                let mut c = cfg(
                    poisson_system(3, het10(), 0.9),
                    led(dispatch, u),
                    20_000,
                    2_000,
                );
                c.count_own = count_own;
                replicate(&c, 41, 16)
            };
            let (r0, r1) = (at(drawn), at(undrawn));
            let (d, h) = difference(&sum_q(&r0), &sum_q(&r1));
            assert!(
                d.abs() <= h,
                "{dispatch:?}, count_own = {count_own}: revision 0 − revision 1 = {d:.4} ± {h:.4}"
            );
            for (a, b) in r0.iter().zip(&r1) {
                assert_eq!(
                    a.messages, b.messages,
                    "{dispatch:?}, count_own = {count_own}"
                );
            }
        }
    }
    let mut c = cfg(
        poisson_system(3, het10(), 0.9),
        led(LedDispatch::LJsq, undrawn),
        20_000,
        2_000,
    );
    c.count_own = false;
    let fresh = replicate(&c, 43, 16);
    c.policy = jsq();
    let jsq = replicate(&c, 44, 16);
    let (d, h) = difference(&sum_q(&fresh), &sum_q(&jsq));
    assert!(d.abs() <= h, "fresh L-JSQ-Push − JSQ = {d:.4} ± {h:.4}");
}

/// `run.preference` reads each dispatcher's preference at the states its
/// run visits (Zhou, Shroff and Wierman, Definitions 4–6) and changes
/// nothing else: on five 0.2-rate and five 0.8-rate servers, L-JSQ-Push's
/// least δ is μ_min/μ_Σ = 0.04 (Example 1), weighted random's 0, Random is
/// untilted, and L-JBA's δ is 0 at light load, where a dispatcher's
/// estimates all tie, and positive where they differ (Example 2).
#[test]
fn the_preference_a_run_visits_is_the_rules() {
    let at = |policy: PolicyConfig, load: f64| {
        let mut c = cfg(poisson_system(3, het10(), load), policy, 20_000, 2_000);
        let plain = lb_core::slotted::run(&c, &Seeds::from_u64(7, 1), 0);
        c.run.preference = true;
        let s = lb_core::slotted::run(&c, &Seeds::from_u64(7, 1), 0);
        let pref = s.preference.expect("a preference summary");
        let mut s = s;
        s.preference = None;
        assert_eq!(s, plain, "reading the preference moved the run");
        assert_eq!(pref.dispatcher_slots, 3 * 18_000);
        pref
    };
    let ljsq = at(led(LedDispatch::LJsq, push(2, 0.5)), 0.7);
    assert_eq!(ljsq.delta_min, 0.04, "{ljsq:?}");
    assert_eq!(ljsq.untilted, 0);
    let wr = at(PolicyConfig::WeightedRandom, 0.7);
    assert_eq!((wr.delta_min, wr.untilted), (0.0, 0), "{wr:?}");
    let random = at(PolicyConfig::Random, 0.3);
    assert!(random.untilted > 0 && random.delta_min < 0.0, "{random:?}");
    let light = at(led(LedDispatch::LJba, LedUpdate::Pull { p_hat: 0.5 }), 0.1);
    assert!(light.all_tied > 0 && light.delta_min == 0.0, "{light:?}");
    assert!(light.untied_delta_min.is_some_and(|d| d > 0.0), "{light:?}");
    assert_eq!(light.untilted, 0);
}

/// `run.estimation` reads each dispatcher's estimation error |Q_n − Q̃_mn|
/// at the states its run visits (Zhou, Shroff and Wierman, Lemma 3) and
/// changes nothing else: a Push of every server every slot without
/// `count_own` dispatches on the start-of-slot queues, so its error is 0;
/// a stale Push errs, and more the rarer its updates.
#[test]
fn the_estimation_error_a_run_reads_is_the_estimates_distance() {
    let at = |update: LedUpdate, count_own: bool| {
        let mut c = cfg(
            poisson_system(3, het10(), 0.9),
            led(LedDispatch::LJsq, update),
            20_000,
            2_000,
        );
        c.count_own = count_own;
        let plain = lb_core::slotted::run(&c, &Seeds::from_u64(8, 1), 0);
        c.run.estimation = true;
        let s = lb_core::slotted::run(&c, &Seeds::from_u64(8, 1), 0);
        let e = s.estimation.expect("an estimation summary");
        let mut s = s;
        s.estimation = None;
        assert_eq!(s, plain, "reading the estimation error moved the run");
        assert_eq!(e.slots, 18_000);
        assert!(e.max >= e.mean, "{e:?}");
        e
    };
    let fresh = at(LedUpdate::push(10, 1.0, PushWhen::Always, 10), false);
    assert_eq!((fresh.mean, fresh.max), (0.0, 0.0), "{fresh:?}");
    let often = at(push(2, 0.5), true);
    let rarely = at(push(2, 0.02), true);
    assert!(often.mean > 0.0, "{often:?}");
    assert!(
        rarely.mean > 2.0 * often.mean,
        "{often:?} against {rarely:?}"
    );
    // A policy without local estimates is refused.
    let mut c = cfg(poisson_system(3, het10(), 0.9), jsq(), 20_000, 2_000);
    c.run.estimation = true;
    assert!(c.validate().unwrap_err().contains("run.estimation"));
}
