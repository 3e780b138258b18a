//! Synthetic records and claims the audit's tests build: points of the slotted model
//! with given replications, and claims of each kind.

// Each test file uses some of these.
#![allow(dead_code, unused_imports)]

pub(crate) use lb_analysis::PointResult;
pub(crate) use lb_audit::{Verdict, audit_claim};
pub(crate) use lb_core::slotted::{
    Granularity, Law, PolicyConfig, RunLength, RunSummary, SlottedConfig, Stability, SystemConfig,
};
pub(crate) use lb_manifest::Point;
pub(crate) use lb_manifest::claim::{self, Check, Claim, Direction, Side, Tolerance, Toward};
pub(crate) use lb_manifest::outputs::Reference;
pub(crate) use lb_manifest::{Model, PointConfig, Summary};
pub(crate) use lb_model::point::Profile;

pub(crate) fn point(policy: PolicyConfig, load: f64) -> Point {
    Point {
        model: Model::Slotted,
        model_version: lb_core::MODEL_VERSION,
        profile: Profile::Full,
        seed: 1,
        config: PointConfig::Slotted(SlottedConfig {
            system: SystemConfig {
                arrivals: vec![Law::Bernoulli { p: load }],
                service: vec![Law::Bernoulli { p: 1.0 }],
            },
            policy,
            granularity: Granularity::Batch,
            count_own: true,
            run: RunLength {
                slots: 1000,
                warmup: 100,
                batches: 8,
                warmup_rule: Default::default(),
                advance: Default::default(),
                preference: false,
                estimation: false,
            },
        }),
    }
}

pub(crate) fn summary(r: u64, response: f64, stable: bool) -> RunSummary {
    RunSummary {
        replication: r,
        measured_slots: 900,
        arrivals: 100,
        completed: 100,
        in_system_end: 0,
        mean_sum_q: response / 10.0,
        mean_sum_q_after_arrivals: response / 10.0,
        mean_response: Some(response),
        little_response: Some(response),
        p50: Some(1),
        p90: Some(2),
        p99: Some(3),
        max_response: 4,
        messages: 0,
        decisions: 100,
        completion_events: 100,
        messages_per_arrival: Some(0.0),
        mean_queue: vec![response / 10.0],
        imbalance: 0.0,
        // A flagged run grows at a steady rate (divergence); a stable one is flat.
        trace: if stable {
            vec![1.0; 8]
        } else {
            (0..8).map(|i| 1.0 + i as f64).collect()
        },
        blocks: None,
        preference: None,
        estimation: None,
        stability: Stability {
            stable,
            slope: 0.0,
            p_value: 1.0,
            growth: 0.0,
        },
    }
}

/// A point of policy `label` with one replication per response value.
pub(crate) fn result(
    label: &str,
    policy: PolicyConfig,
    load: &str,
    responses: &[f64],
    stable: &[bool],
) -> PointResult {
    let p = point(policy, load.parse().unwrap());
    PointResult {
        label: label.into(),
        axes: vec![("load".into(), load.into())],
        key: Some(p.key()),
        point: Some(p),
        summaries: responses
            .iter()
            .zip(stable)
            .enumerate()
            .map(|(r, (x, s))| Summary::Slotted(summary(r as u64, *x, *s)))
            .collect(),
        seconds: vec![1.0; responses.len()],
        needed: responses.len() as u32,
        damaged: Vec::new(),
        calibration: None,
        pilot_missing: 0,
        pilot: (0, 0.0),
        first_stage: None,
        control: None,
        drawn: Default::default(),
    }
}

pub(crate) fn claim(check: Check) -> Claim {
    Claim {
        id: "c".into(),
        statement: "s".into(),
        source: "test".into(),
        required: false,
        origin: claim::Origin::Ours,
        paper: Some("Zhou, Shroff and Wierman".into()),
        stands_for: None,
        reading: None,
        filter: Default::default(),
        level: claim::DEFAULT_LEVEL,
        stated_level: claim::DEFAULT_LEVEL,
        decide_at: lb_manifest::calibration::DecideAt::Nominal,
        why: None,
        why_checks: vec![],
        foil: None,
        no_foil: None,
        credits: None,
        also_credits: None,
        hypothesis: None,
        reads: Vec::new(),
        check,
    }
}

pub(crate) fn ordering_of(better: &str, worse: &str) -> Claim {
    claim(Check::Ordering(claim::Ordering {
        metric: "mean_response".into(),
        better: better.into(),
        worse: worse.into(),
        equivalence: 0.0,
        overhead_ratio: None,
    }))
}

/// `c` as a stand-in for the test's statement, held to a foil that `says`
/// what it checks with `check`, at the claim's own levels.
pub(crate) fn stand_in_with_foil(mut c: Claim, says: &str, check: Check) -> Claim {
    c.origin = claim::Origin::StandIn;
    c.stands_for = Some(claim::StandsFor::Quote("the test's statement".into()));
    c.foil = Some(claim::WhyCheck {
        says: says.into(),
        filter: Default::default(),
        level: c.level,
        stated_level: c.stated_level,
        decide_at: c.decide_at,
        check,
    });
    c
}

/// A value claim of `metric` of A.
pub(crate) fn value_of(metric: &str, expected: Reference, tolerance: Tolerance) -> Claim {
    claim(Check::Value(claim::Value {
        metric: metric.into(),
        policies: vec!["A".into()],
        expected,
        tolerance,
        control: None,
    }))
}

/// A relative tolerance.
pub(crate) fn relative(t: f64) -> Tolerance {
    Tolerance {
        relative: t,
        absolute: 0.0,
    }
}

/// A bound claim on the mean response of A.
pub(crate) fn bound_of(bound: f64, side: Side) -> claim::Bound {
    claim::Bound {
        metric: "mean_response".into(),
        policies: vec!["A".into()],
        bound: Reference::Number(bound),
        side,
        control: None,
    }
}

pub(crate) const JSQ: PolicyConfig = PolicyConfig::Jsq {
    tie_break: lb_core::slotted::TieBreak::Random,
};
pub(crate) const WR: PolicyConfig = PolicyConfig::WeightedRandom;
pub(crate) const ALL_STABLE: [bool; 5] = [true; 5];

pub(crate) fn ordering() -> Claim {
    ordering_of("A", "B")
}

/// Five replications around `m` (spread ±0.1).
pub(crate) fn around(m: f64) -> [f64; 5] {
    [m - 0.1, m + 0.1, m, m - 0.05, m + 0.05]
}

/// A's mean response tending to 10 within 1% along the load, as limit
/// claims read it in these tests.
pub(crate) fn limit_to_ten(
    toward: Toward,
    min_rate: Option<f64>,
    rate_decides: bool,
    approaches: bool,
) -> Claim {
    claim(Check::Limit(claim::Limit {
        metric: "mean_response".into(),
        policies: vec!["A".into()],
        along: "load".into(),
        toward,
        expected: Reference::Number(10.0),
        tolerance: relative(0.01),
        last: claim::Limit::DEFAULT_LAST,
        min_rate,
        rate_from: None,
        rate_decides,
        approaches,
        control: None,
    }))
}

/// A's points at loads 0.2, 0.4 and 0.8, around the means `ms`.
pub(crate) fn series_of_three(ms: [f64; 3]) -> Vec<PointResult> {
    ["0.2", "0.4", "0.8"]
        .iter()
        .zip(ms)
        .map(|(x, m)| result("A", JSQ, x, &around(m), &ALL_STABLE))
        .collect()
}

/// The same replications at several loads: `at(load)` gives each side's
/// responses there.
pub(crate) fn sweep(
    label: &str,
    policy: PolicyConfig,
    at: &[(&str, [f64; 5])],
) -> Vec<PointResult> {
    at.iter()
        .map(|(load, xs)| result(label, policy, load, xs, &ALL_STABLE))
        .collect()
}

pub(crate) fn plus(xs: [f64; 5], d: f64) -> [f64; 5] {
    xs.map(|x| x + d)
}

/// A value claim of mean response 10 ± 5% held at `level`, with A's five
/// replications about 10 at load 0.5 that it reads.
pub(crate) fn ten_at_level(level: f64) -> (Claim, [PointResult; 1]) {
    let mut c = value_of("mean_response", Reference::Number(10.0), relative(0.05));
    c.level = level;
    let rs = [result(
        "A",
        JSQ,
        "0.5",
        &[9.9, 10.1, 10.0, 9.95, 10.05],
        &ALL_STABLE,
    )];
    (c, rs)
}
