//! The slot loop of the LED model (docs/MODEL.md §1; Zhou, Shroff and Wierman §2.1, Eq. (2)):
//! arrivals, dispatch, service, update — in that order.

use crate::slotted::config::{PolicyConfig, SlottedConfig, WarmupRule};
use crate::slotted::fifo::Fifo;
use crate::slotted::histogram::Histogram;
use crate::slotted::law::{GeometricTable, Sampler};
use crate::slotted::policy::{Assignment, Policy};
use crate::slotted::service::{self, Service};
use crate::slotted::summary::RunSummary;
use crate::stability::{Trace, stability};
use crate::streams::{Seeds, ServiceWords, Streams};

/// Runs replication `r` of `cfg`. A pure function of (cfg, seeds, r): the same
/// inputs give the same bits on any machine and thread.
///
/// # Panics
/// If `cfg` does not validate; call [`SlottedConfig::validate`] first.
pub fn run(cfg: &SlottedConfig, seeds: &Seeds, r: u64) -> RunSummary {
    if cfg.run.preference || cfg.run.estimation {
        let mut watch = crate::slotted::estimation::Estimates {
            preference: cfg
                .run
                .preference
                .then(|| crate::slotted::preference::Watch::new(cfg)),
            error: cfg
                .run
                .estimation
                .then(|| crate::slotted::estimation::ErrorWatch::new(cfg)),
        };
        let mut s = run_observed(cfg, seeds, r, &mut watch);
        s.preference = watch.preference.map(|w| w.summary());
        s.estimation = watch.error.map(|w| w.summary());
        return s;
    }
    run_observed(cfg, seeds, r, &mut ())
}

/// Collects ΣQ at the start of each slot from `from` on, in sums over 5 slots.
struct Mser5Sums {
    from: u64,
    sums: Vec<u64>,
}

impl Observer for Mser5Sums {
    fn sum_q(&mut self, t: u64, sum_q: u64) {
        if t >= self.from {
            let i = ((t - self.from) / 5) as usize;
            if i == self.sums.len() {
                self.sums.push(0);
            }
            self.sums[i] += sum_q;
        }
    }
}

/// The warm-up a run discards: `run.warmup`, or under MSER-5 the floor plus
/// the MSER-5 truncation of a first pass over the same sample path.
pub fn warmup_slots(cfg: &SlottedConfig, seeds: &Seeds, r: u64) -> u64 {
    match cfg.run.warmup_rule {
        WarmupRule::Fixed => cfg.run.warmup,
        WarmupRule::Mser5 => {
            let mut sums = Mser5Sums {
                from: cfg.run.warmup,
                sums: Vec::new(),
            };
            let mut first = cfg.clone();
            first.run.warmup_rule = WarmupRule::Fixed;
            simulate(&first, seeds, r, &mut sums);
            // Only whole batches of 5 slots.
            let whole = ((cfg.run.slots - cfg.run.warmup) / 5) as usize;
            sums.sums.truncate(whole);
            let means: Vec<f64> = sums.sums.iter().map(|&s| s as f64 / 5.0).collect();
            let d = crate::stability::mser(&means) as u64;
            // Keep at least the trace's batches in the window.
            (cfg.run.warmup + 5 * d).min(cfg.run.slots - cfg.run.batches as u64)
        }
    }
}

pub use crate::slotted::observer::Observer;

/// [`run`] with an [`Observer`].
pub fn run_observed<O: Observer>(
    cfg: &SlottedConfig,
    seeds: &Seeds,
    r: u64,
    obs: &mut O,
) -> RunSummary {
    if let Err(e) = cfg.validate() {
        panic!("invalid configuration: {e}");
    }
    if cfg.run.advance == crate::slotted::config::Advance::Blocks {
        // No slot to observe: see [`crate::slotted::blocks`].
        return crate::slotted::blocks::run_blocks(cfg, seeds, r);
    }
    if cfg.run.warmup_rule == WarmupRule::Fixed {
        return simulate(cfg, seeds, r, obs);
    }
    let mut fixed = cfg.clone();
    fixed.run.warmup = warmup_slots(cfg, seeds, r);
    fixed.run.warmup_rule = WarmupRule::Fixed;
    simulate(&fixed, seeds, r, obs)
}

/// The slot loop, with a fixed warm-up. When every server's service is
/// Bernoulli (the seed's setting), S_n(t) is one comparison of its word with a
/// threshold, and the loop is compiled for that case; so it is when every
/// server's service is geometric (a table lookup); otherwise each server's
/// [`Sampler`] draws from its word. All give the same S_n(t).
fn simulate<O: Observer>(cfg: &SlottedConfig, seeds: &Seeds, r: u64, obs: &mut O) -> RunSummary {
    if matches!(cfg.policy, PolicyConfig::Pooled) {
        return crate::slotted::pooled::run_pooled(cfg, seeds, r, obs);
    }
    let srv: Vec<Sampler> = cfg.system.service.iter().map(|l| l.sampler()).collect();
    let thresholds: Option<Vec<u64>> = srv.iter().map(Sampler::bernoulli_threshold).collect();
    let geometric: Option<Vec<GeometricTable>> =
        srv.iter().map(|s| s.geometric_table().cloned()).collect();
    match (thresholds, geometric) {
        (Some(thr), _) => slot_loop(cfg, seeds, r, obs, &service::Bernoulli(thr)),
        (None, Some(geo)) => slot_loop(cfg, seeds, r, obs, &service::Geometric::new(geo)),
        (None, None) => slot_loop(cfg, seeds, r, obs, &service::Samplers(srv)),
    }
}

/// The slot loop proper; `service` draws S_n(t) (see [`serve`]).
fn slot_loop<O: Observer, S: Service>(
    cfg: &SlottedConfig,
    seeds: &Seeds,
    r: u64,
    obs: &mut O,
    service: &S,
) -> RunSummary {
    let mut st = Streams::new(seeds, r, cfg.system.servers());
    let n = cfg.system.servers();
    let m = cfg.system.dispatchers();
    // One sampler per distinct arrival law (dispatchers usually share one:
    // one table in cache, not M copies).
    let mut laws: Vec<crate::slotted::law::Law> = Vec::new();
    let arr_of: Vec<usize> = cfg
        .system
        .arrivals
        .iter()
        .map(|l| {
            laws.iter().position(|x| x == l).unwrap_or_else(|| {
                laws.push(*l);
                laws.len() - 1
            })
        })
        .collect();
    let arr: Vec<Sampler> = laws.iter().map(|l| l.sampler()).collect();
    let mut policy = Policy::new(cfg, &mut st.policy);
    // Weighted random, random and JIQ under `job`, and L-JSQ's water-fills,
    // bring most busy servers a run each slot: their departures often span
    // two runs ([`Fifo::pop2`]).
    let spreads = policy.spreads();

    let (slots, warm) = (cfg.run.slots, cfg.run.warmup);
    let job = cfg.granularity == crate::slotted::config::Granularity::Job;
    let window = slots - warm;
    let mut q = vec![0u64; n];
    let mut fifo = vec![Fifo::default(); n];
    let mut sum_q: u64 = 0;
    let mut a = vec![0u64; m];
    let mut asg = Assignment::new(n);
    let mut hist = Histogram::default();
    // Per-server area under Q_n over the measured window, added in the
    // service pass (a few instructions a server, cheaper than settling lazily
    // at every change once most servers are busy), in u64 partial sums
    // flushed every 4096 slots.
    let mut area = vec![0u128; n];
    let mut part = vec![0u64; n];
    let flush = |area: &mut [u128], part: &mut [u64]| {
        for (a, p) in area.iter_mut().zip(part.iter_mut()) {
            *a += std::mem::take(p) as u128;
        }
    };
    // This slot's departures (server, D_n(t)), filled without a branch on D.
    let mut served: Vec<(usize, u64)> = vec![(0, 0); n];
    // This slot's offers S_n(t), when drawn in a pass of their own.
    let mut offers: Vec<u64> = vec![0; if S::INLINE { 0 } else { n }];
    let mut trace = Trace::new(window, cfg.run.batches);

    let (mut acc_q, mut acc_q_after, mut acc_imb) = (0u128, 0u128, 0u128);
    let (mut arrivals, mut messages) = (0u64, 0u64);
    let (mut decisions, mut completion_events) = (0u64, 0u64);

    // max_n Q_n − min_n Q_n at the start of the slot (all queues start empty).
    let mut imbalance = 0u64;
    for t in 0..slots {
        let measuring = t >= warm;
        // 1. Arrivals A_m(t).
        let mut total = 0;
        for (am, &i) in a.iter_mut().zip(&arr_of) {
            *am = arr[i].sample(&mut st.arrivals);
            total += *am;
        }
        obs.arrivals(t, &a);
        obs.sum_q(t, sum_q);
        if measuring {
            acc_q += sum_q as u128;
            trace.add(t - warm, sum_q);
            acc_imb += imbalance as u128;
            if (t - warm) % 4096 == 4095 {
                flush(&mut area, &mut part);
            }
            arrivals += total;
        }
        // 2. Dispatch on the start-of-slot snapshot.
        if O::ESTIMATES && measuring {
            for d in 0..m {
                obs.estimates(t, d, policy.estimates(d).unwrap_or(&q), &q);
            }
        }
        let mut msgs = policy.dispatch_slot(&a, &q, &mut st.policy, &mut asg);
        if measuring {
            decisions += if job {
                total
            } else {
                a.iter().filter(|&&am| am > 0).count() as u64
            };
        }
        sum_q += admit(&mut asg, &mut q, &mut fifo, t);
        if measuring {
            acc_q_after += sum_q as u128;
        }
        // 3. Service: D_n = min(Q_n + A_n, S_n); idle servers are skipped, their
        //    S_n(t) is never needed (service is random-access).
        //    The same pass reads Q(t+1) = Q − D for the next slot's imbalance
        //    and, if that slot is measured, its per-server area (an idle server
        //    adds nothing to the area and makes the minimum 0).
        let next_measured = t + 1 >= warm && t + 1 < slots;
        let k;
        (k, imbalance) = serve(
            &q,
            &mut part,
            &mut served,
            &mut offers,
            next_measured,
            t,
            &st.service,
            service,
            obs,
        );
        sum_q -= if spreads {
            depart::<true>(&served[..k], &mut q, &mut fifo, &mut hist, warm, t)
        } else {
            depart::<false>(&served[..k], &mut q, &mut fifo, &mut hist, warm, t)
        };
        if measuring {
            completion_events += k as u64;
        }
        // 4. Update, on Q(t+1).
        msgs += policy.update(&q, &a, &served[..k], &mut st.policy);
        if measuring {
            messages += msgs;
        }
    }
    flush(&mut area, &mut part);

    let w = window as f64;
    let mean_sum_q_after = acc_q_after as f64 / w;
    let lambda_hat = arrivals as f64 / w;
    let trace = trace.means();
    RunSummary {
        replication: r,
        measured_slots: window,
        arrivals,
        completed: hist.count(),
        in_system_end: sum_q,
        mean_sum_q: acc_q as f64 / w,
        mean_sum_q_after_arrivals: mean_sum_q_after,
        mean_response: hist.mean(),
        little_response: (arrivals > 0).then(|| mean_sum_q_after / lambda_hat),
        p50: hist.quantile(0.5),
        p90: hist.quantile(0.9),
        p99: hist.quantile(0.99),
        max_response: hist.max(),
        messages,
        decisions,
        completion_events,
        messages_per_arrival: (arrivals > 0).then(|| messages as f64 / arrivals as f64),
        mean_queue: area.iter().map(|&x| x as f64 / w).collect(),
        imbalance: acc_imb as f64 / w,
        stability: stability(&trace),
        trace,
        blocks: None,
        preference: None,
        estimation: None,
    }
}

/// A slot's service pass: for each server with work, D_n = min(Q_n, S_n)
/// into `served` (servers with D_n > 0, in index order; returns how many), and
/// Q_n − D_n added to `part` if the next slot is measured. Returns also
/// max Q − min Q after service. A function of its own, so that its loop keeps
/// its state in registers.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn serve<O: Observer, S: Service>(
    q: &[u64],
    part: &mut [u64],
    served: &mut [(usize, u64)],
    offers: &mut [u64],
    next_measured: bool,
    t: u64,
    words: &ServiceWords,
    service: &S,
    obs: &mut O,
) -> (usize, u64) {
    let next_measured = next_measured as u64;
    let (mut lo, mut hi, mut idle) = (u64::MAX, 0, false);
    let mut k = 0;
    let served = &mut served[..q.len()];
    // An expensive draw (a geometric's, dozens of instructions with a long
    // dependency chain) goes in a pass of its own, which keeps many
    // independent draws in flight (and, for the geometric, eight lanes at a
    // time where the processor has them): the offers of the busy servers
    // (S_n(t), or 0 for an idle one). A Bernoulli draw is cheaper inline.
    if !S::INLINE {
        service.offers(q, words.starts(), t, offers);
    }
    for (s, ((&qs, p), &start)) in q
        .iter()
        .zip(part.iter_mut())
        .zip(words.starts())
        .enumerate()
    {
        if qs == 0 {
            idle = true;
            continue;
        }
        let offered = if S::INLINE {
            service.one(s, ServiceWords::word_from(start, t))
        } else {
            // SAFETY: offers holds n entries when the draws are not inline.
            unsafe { *offers.get_unchecked(s) }
        };
        obs.service(s, t, offered);
        let d = offered.min(qs);
        // SAFETY: k counts the servers before s that depart, so k ≤ s < n = served.len().
        unsafe { *served.get_unchecked_mut(k) = (s, d) };
        k += (d > 0) as usize;
        let end = qs - d;
        lo = lo.min(end);
        hi = hi.max(end);
        *p += end * next_measured;
    }
    (k, hi - if idle { 0 } else { lo })
}

/// The jobs dispatched in slot `t` join their servers' FIFOs; `asg` is left
/// empty. Returns how many jobs joined. (A function of its own, as [`serve`].)
#[inline(never)]
fn admit(asg: &mut Assignment, q: &mut [u64], fifo: &mut [Fifo], t: u64) -> u64 {
    let mut total = 0;
    asg.drain(|s, k| {
        fifo[s].push(t, k);
        q[s] += k;
        total += k;
    });
    total
}

/// The departures of slot `t`: each (server, D_n) leaves its FIFO head, with
/// its response times recorded if it arrived from slot `warm` on. Returns the
/// jobs that left. (A function of its own, as [`serve`].)
#[inline(never)]
fn depart<const TWO: bool>(
    served: &[(usize, u64)],
    q: &mut [u64],
    fifo: &mut [Fifo],
    hist: &mut Histogram,
    warm: u64,
    t: u64,
) -> u64 {
    let mut total = 0;
    for &(s, d) in served {
        let record = |arr_slot: u64, c: u64| {
            if arr_slot >= warm {
                hist.record(t - arr_slot + 1, c);
            }
        };
        if TWO {
            fifo[s].pop2(d, record);
        } else {
            fifo[s].pop(d, record);
        }
        q[s] -= d;
        total += d;
    }
    total
}

/// The resource-pooled single queue of Zhou, Shroff and Wierman's Lemma 1:
/// arrivals A_Σ(t) and service S_Σ(t) = Σ_n S_n(t), drawn from the *same*
/// streams as [`run`] with the same seeds and replication. Pathwise,
/// Q_pool(t) ≤ Σ_n Q_n(t) under any policy; returns the time-average Q_pool
/// at the start of a slot over the measured window (`run.warmup` on,
/// whatever the warm-up rule): the `Pooled` point's mean_sum_q.
pub fn pooled_mean_queue(cfg: &SlottedConfig, seeds: &Seeds, r: u64) -> f64 {
    crate::slotted::pooled::run_pooled(cfg, seeds, r, &mut ()).mean_sum_q
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slotted::config::{Granularity, RunLength, SystemConfig, TieBreak};
    use crate::slotted::law::Law;

    /// A policy that does not read `count_own`
    /// ([`SlottedConfig::reads_count_own`]) runs bit for bit alike at both
    /// values on the same seeds, so its canonical configuration names the
    /// same law; one that reads it runs differently, at both granularities
    /// where it reads it. Four dispatchers, 21 heterogeneous servers at load
    /// 0.9, every tie rule.
    #[test]
    fn count_own_changes_a_run_only_where_the_policy_reads_it() {
        use crate::slotted::config::{Advance, LedDispatch, LedUpdate, WarmupRule};
        let service: Vec<Law> = (0..21)
            .map(|i| Law::Geometric {
                mean: 1.0 + 9.0 * (i as f64 + 0.5) / 21.0,
            })
            .collect();
        let mu: f64 = service.iter().map(Law::mean).sum();
        let arrivals = Law::Poisson {
            mean: 0.9 * mu / 4.0,
        };
        let ties = [TieBreak::Random, TieBreak::Lowest, TieBreak::Shared];
        let mut policies = vec![
            PolicyConfig::WeightedRandom,
            PolicyConfig::Random,
            PolicyConfig::Jiq,
            PolicyConfig::JiqSpread {
                revision: crate::slotted::config::JIQ_SPREAD_REVISION,
            },
            PolicyConfig::Pooled,
        ];
        for tie_break in ties {
            policies.push(PolicyConfig::Jsq { tie_break });
            policies.push(PolicyConfig::Pod { d: 2, tie_break });
            policies.push(PolicyConfig::Led {
                dispatch: LedDispatch::LJsq,
                update: LedUpdate::Pull { p_hat: 0.2 },
                tie_break,
            });
            // Fresh estimates: a Push of every server every slot, whether it
            // draws them (revision 0) or not (1).
            for dispatch in [
                LedDispatch::LJsq,
                LedDispatch::LJba,
                LedDispatch::LPod { d: 2 },
            ] {
                for revision in [0, 1] {
                    policies.push(PolicyConfig::Led {
                        dispatch,
                        update: LedUpdate::Push {
                            d: 21,
                            p_hat: 1.0,
                            when: crate::slotted::config::PushWhen::Always,
                            revision,
                        },
                        tie_break,
                    });
                }
            }
        }
        let (mut same, mut differ) = (0, 0);
        for policy in policies {
            for granularity in [Granularity::Batch, Granularity::Job] {
                let cfg = SlottedConfig {
                    system: SystemConfig {
                        arrivals: vec![arrivals; 4],
                        service: service.clone(),
                    },
                    policy,
                    granularity,
                    count_own: true,
                    run: RunLength {
                        slots: 4_000,
                        warmup: 400,
                        batches: 20,
                        warmup_rule: Default::default(),
                        advance: Default::default(),
                        preference: false,
                        estimation: false,
                    },
                };
                if cfg.validate().is_err() {
                    continue;
                }
                let other = SlottedConfig {
                    count_own: false,
                    ..cfg.clone()
                };
                assert_eq!(other.clone().canonical() == cfg, !cfg.reads_count_own());
                let seeds = Seeds::from_u64(5, 6);
                let go = |c: &SlottedConfig| {
                    if matches!(c.policy, PolicyConfig::Pooled) {
                        format!("{:?}", pooled_mean_queue(c, &seeds, 2))
                    } else {
                        format!("{:?}", run(c, &seeds, 2))
                    }
                };
                let (a, b) = (go(&cfg), go(&other));
                if cfg.reads_count_own() {
                    assert_ne!(a, b, "{policy:?} {granularity:?} reads count_own");
                    differ += 1;
                } else {
                    assert_eq!(a, b, "{policy:?} {granularity:?}");
                    same += 1;
                }
            }
        }
        assert!(same >= 20 && differ >= 20, "{same} alike, {differ} apart");
        // Weighted random advanced in blocks (Bernoulli service).
        let cfg = SlottedConfig {
            system: SystemConfig {
                arrivals: vec![Law::Poisson { mean: 0.5 }; 2],
                service: (0..5).map(|_| Law::Bernoulli { p: 0.25 }).collect(),
            },
            policy: PolicyConfig::WeightedRandom,
            granularity: Granularity::Batch,
            count_own: false,
            run: RunLength {
                slots: 20_000,
                warmup: 2_000,
                batches: 20,
                warmup_rule: WarmupRule::Fixed,
                advance: Advance::Blocks,
                preference: false,
                estimation: false,
            },
        };
        let seeds = Seeds::from_u64(7, 8);
        let canonical = cfg.clone().canonical();
        assert!(canonical.count_own);
        assert_eq!(
            format!("{:?}", run(&cfg, &seeds, 0)),
            format!("{:?}", run(&canonical, &seeds, 0))
        );
    }

    /// The three ways of drawing geometric service — eight lanes at a time
    /// (where the processor has AVX-512), the table server by server, and
    /// each server's general sampler — give the same run bit for bit: the
    /// lanes change no number. N = 21 leaves a tail of 5 servers to the
    /// scalar path; JSQ and WR under `job` with count_own, and L-JSQ-Pull.
    #[test]
    fn geometric_service_paths_give_the_same_run() {
        let service: Vec<Law> = (0..21)
            .map(|i| Law::Geometric {
                mean: 1.0 + 99.0 * (i as f64 + 0.5) / 21.0,
            })
            .collect();
        let mu: f64 = service.iter().map(Law::mean).sum();
        let arrivals = Law::Poisson { mean: 1.0 }
            .with_mean(0.9 * mu / 4.0)
            .unwrap();
        let policies = [
            PolicyConfig::Jsq {
                tie_break: TieBreak::Random,
            },
            PolicyConfig::WeightedRandom,
            PolicyConfig::Led {
                dispatch: crate::slotted::config::LedDispatch::LJsq,
                update: crate::slotted::config::LedUpdate::Pull { p_hat: 0.5 },
                tie_break: TieBreak::Random,
            },
        ];
        for policy in policies {
            let cfg = SlottedConfig {
                system: SystemConfig {
                    arrivals: vec![arrivals; 4],
                    service: service.clone(),
                },
                policy,
                granularity: Granularity::Job,
                count_own: true,
                run: RunLength {
                    slots: 6_000,
                    warmup: 600,
                    batches: 20,
                    warmup_rule: Default::default(),
                    advance: Default::default(),
                    preference: false,
                    estimation: false,
                },
            };
            let seeds = Seeds::from_u64(3, 4);
            let tables: Vec<GeometricTable> = service
                .iter()
                .map(|l| l.sampler().geometric_table().unwrap().clone())
                .collect();
            let lanes = service::Geometric::with_lanes(tables.clone(), true);
            let by_one = service::Geometric::with_lanes(tables, false);
            let general = service::Samplers(service.iter().map(|l| l.sampler()).collect());
            let a = slot_loop(&cfg, &seeds, 1, &mut (), &lanes);
            let b = slot_loop(&cfg, &seeds, 1, &mut (), &by_one);
            let c = slot_loop(&cfg, &seeds, 1, &mut (), &general);
            assert!(a.arrivals > 0 && a.completed > 0);
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "{policy:?}: lanes");
            assert_eq!(format!("{b:?}"), format!("{c:?}"), "{policy:?}: sampler");
            assert_eq!(format!("{a:?}"), format!("{:?}", run(&cfg, &seeds, 1)));
        }
    }
}
