//! The audit's rules of what a confirmation counts for, on synthetic records: points at
//! the floor, nulls and foils that hold too, settings foils read at, a paper's statement
//! failing at part of its range, quotes and intervals as printed, the mutants of a rate.

mod common;

use common::*;

/// A quote in prose prints the records' estimate with its interval, the
/// seconds a run took, or a diagnosis in place of a number: never a bare
/// number of an unstable point.
#[test]
fn quotes_print_the_records_and_never_an_unstable_point_as_a_number() {
    let results = vec![
        result("JSQ", JSQ, "0.5", &[4.0, 5.0, 6.0], &[true, true, true]),
        result(
            "JSQ",
            JSQ,
            "0.9",
            &[40.0, 50.0, 60.0],
            &[false, false, true],
        ),
    ];
    let x = |t: &str| lb_analysis::prose::expanded(t, &results);
    // mean 5, sample sd 1, t(0.975, 2) = 4.303: half-width 2.48.
    assert_eq!(x("{{mean_response of JSQ where load = 0.5}}"), "5.0 ± 2.5");
    assert_eq!(x("{{mean mean_response of JSQ where load = 0.5}}"), "5.0");
    assert_eq!(x("{{hw mean_response of JSQ where load = 0.5}}"), "2.5");
    assert_eq!(x("{{rel mean_response of JSQ where load = 0.5}}"), "±50%");
    assert_eq!(x("{{n mean_response of JSQ where load = 0.5}}"), "3");
    assert_eq!(x("{{mean cpu of JSQ where load = 0.5}}"), "1.00");
    assert_eq!(
        x("{{mean_response of JSQ where load = 0.9}}"),
        "unstable (2 of 3 replications)"
    );
    assert_eq!(
        x("{{unstable mean_response of JSQ where load = 0.9}}"),
        "2 of 3"
    );
    assert_eq!(
        x("{{zeros mean_response of JSQ where load = 0.5}}"),
        "0 of 3"
    );
    assert_eq!(
        x("{{range mean_response of JSQ}}"),
        "5.00–5.00 (1 of 2 points left out: unstable or not settled)"
    );
    let (_, traces) = lb_analysis::prose::expand("{{range mean_response of JSQ}}", &results);
    assert_eq!(traces[0].keys.len(), 2);
}

/// A point whose precision rule paired it with a control variate
/// (`PointResult::control`) is printed with the control-variate interval it
/// was decided on — in the figures' estimate, the quotes and the table's
/// cells, with the control and β̂ in the table — and only on the metrics the
/// control has an exact mean of; without the pairing, the direct interval.
#[test]
fn a_paired_point_prints_its_control_variate_interval() {
    use lb_analysis::figure::point_estimate;
    use lb_analysis::metric::Metric;
    use lb_analysis::results::ControlPoint;
    use lb_analysis::stats::{IntervalKind, control_variate, interval};
    let exact = point(PolicyConfig::Pooled, 0.5)
        .config
        .exact_mean("mean_sum_q", "pooled_exact")
        .unwrap();
    let noise = [-0.3, 0.2, 0.1, -0.2, 0.2, 0.05];
    // mean_sum_q is response / 10 in these summaries.
    let pooled: Vec<f64> = noise.iter().map(|e| 10.0 * (exact + e)).collect();
    let a: Vec<f64> = pooled
        .iter()
        .zip([0.001, -0.002, 0.0, 0.001, -0.001, 0.002])
        .map(|(y, e)| y + 10.0 * (1.5 + e))
        .collect();
    let c = result("Pooled", PolicyConfig::Pooled, "0.5", &pooled, &[true; 6]);
    let mut r = result("A", JSQ, "0.5", &a, &[true; 6]);
    let m = Metric::parse(lb_manifest::Model::Slotted, "mean_sum_q").unwrap();
    let point = r.point.clone().unwrap();
    let direct = point_estimate(m, &point, &r).unwrap();
    assert_eq!(direct.kind, IntervalKind::StudentT);
    r.control = Some(ControlPoint {
        label: c.label.clone(),
        point: c.point.clone().unwrap(),
        mean: "pooled_exact".into(),
        summaries: c.summaries.clone(),
    });
    let paired = point_estimate(m, &point, &r).unwrap();
    assert_eq!(paired.kind, IntervalKind::ControlVariate);
    let ys: Vec<f64> = a.iter().map(|x| x / 10.0).collect();
    let cs: Vec<f64> = pooled.iter().map(|x| x / 10.0).collect();
    let (est, hw, _) = control_variate(&ys, &cs, exact, 0.95, true).unwrap();
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * y.abs();
    assert_eq!(paired.mean, est);
    assert!(close(paired.half_width().unwrap(), hw));
    assert!(hw < interval(&ys, 0.95).half_width / 20.0);
    // A metric the control has no exact mean of stays direct.
    let resp = Metric::parse(lb_manifest::Model::Slotted, "mean_response").unwrap();
    assert_eq!(
        point_estimate(resp, &point, &r).unwrap().kind,
        IntervalKind::StudentT
    );
    // Quotes read the same estimate.
    let rs = vec![r.clone(), c.clone()];
    let q = lb_analysis::prose::expanded("{{mean_sum_q of A where load = 0.5}}", &rs);
    assert!(
        q.starts_with(&format!("{:.3}", est)[..4]),
        "{q} against {est}"
    );
    // The table: the cell and the control column.
    let long = lb_analysis::table::replications_frame("e", &rs, &[m]).unwrap();
    let sums = lb_analysis::table::point_summaries(&rs, &long, &[m]).unwrap();
    let cell = sums[0].cells[0].unwrap();
    assert_eq!((cell.mean, cell.interval), (est, "control-variate"));
    assert!(close(cell.half_width.unwrap(), hw));
    assert!(
        sums[0]
            .control
            .as_deref()
            .unwrap()
            .starts_with("Pooled (β = ")
    );
    assert_eq!(sums[1].control, None);
    assert_eq!(sums[1].cells[0].unwrap().interval, "student-t");
}

/// A point whose precision rule is Stein's (`PointResult::first_stage`)
/// reads every interval's variance on its first stage: the table's cell,
/// the figures' estimate and a paired ordering. Here the first stage
/// spreads widely and the rest does not, so Stein's interval is wide where
/// the Student-t interval of all replications would be narrow: the same
/// ordering confirmed without the first stage is inconclusive with it.
#[test]
fn a_stein_point_reads_its_intervals_variance_on_its_first_stage() {
    use lb_analysis::figure::point_estimate;
    use lb_analysis::metric::Metric;
    use lb_analysis::stats::{IntervalKind, interval, stein_interval};
    let a = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0];
    // B − A: −1, 3, 1 on the first stage (s₀ = 2), then 1 five times.
    let d = [-1.0, 3.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
    let b: Vec<f64> = a.iter().zip(d).map(|(x, e)| x + e).collect();
    let mut rs = vec![
        result("A", JSQ, "0.5", &a, &[true; 8]),
        result("B", WR, "0.5", &b, &[true; 8]),
    ];
    assert_eq!(
        audit_claim("e", &ordering(), &rs).verdict,
        Verdict::Confirmed
    );
    for r in &mut rs {
        r.first_stage = Some(3);
    }
    let c = audit_claim("e", &ordering(), &rs);
    assert_eq!(c.verdict, Verdict::Inconclusive, "{c:?}");
    let want = stein_interval(&d, 3, 0.95).half_width;
    let hw = c.checks[0].half_width.unwrap();
    assert!((hw - want).abs() < 1e-9 * want, "{hw} against {want}");
    assert!(want > 3.0 * interval(&d, 0.95).half_width);
    // The point's own estimate, in figures and in the table.
    let m = Metric::parse(Model::Slotted, "mean_response").unwrap();
    let e = point_estimate(m, rs[1].point.as_ref().unwrap(), &rs[1]).unwrap();
    assert_eq!(e.kind, IntervalKind::Stein);
    let s = stein_interval(&b, 3, 0.95);
    assert!((e.half_width().unwrap() - s.half_width).abs() < 1e-9);
    let long = lb_analysis::table::replications_frame("e", &rs, &[m]).unwrap();
    let sums = lb_analysis::table::point_summaries(&rs, &long, &[m]).unwrap();
    let cell = sums[1].cells[0].unwrap();
    assert_eq!(cell.interval, "stein");
    assert!((cell.half_width.unwrap() - s.half_width).abs() < 1e-9);
}

/// Service is Bernoulli(1) here, so a job that never waits takes 1 slot:
/// where both policies sit within 5% of it, the point decides nothing,
/// whichever way it leans, and is never the deciding point.
#[test]
fn a_point_at_the_floor_decides_nothing_and_is_never_the_deciding_point() {
    let floor = [1.0, 1.01, 1.0, 1.02, 1.0];
    let high = [10.0, 20.0, 30.0, 40.0, 50.0];
    let mut rs = sweep("A", JSQ, &[("0.3", plus(floor, 0.01)), ("0.9", high)]);
    rs.extend(sweep("B", WR, &[("0.3", floor), ("0.9", plus(high, 1.0))]));
    // At 0.3 A is worse than B by 0.01 on every replication: refuted there,
    // were the point informative.
    let c = audit_claim("e", &ordering(), &rs);
    assert_eq!(c.verdict, Verdict::Confirmed, "{c:?}");
    assert_eq!(c.informative, (1, 2));
    let at_floor = c.checks.iter().find(|k| k.at == "load=0.3").unwrap();
    assert_eq!(at_floor.verdict, Verdict::Refuted);
    assert!(
        at_floor
            .uninformative
            .as_deref()
            .is_some_and(|u| u.contains("floor")),
        "{at_floor:?}"
    );
    assert_eq!(c.deciding().map(|k| k.at.as_str()), Some("load=0.9"));
    // Lift both sides above the floor and the same point refutes.
    let mut lifted = sweep("A", JSQ, &[("0.3", plus(floor, 0.3)), ("0.9", high)]);
    lifted.extend(sweep(
        "B",
        WR,
        &[("0.3", plus(floor, 0.1)), ("0.9", plus(high, 1.0))],
    ));
    assert_eq!(
        audit_claim("e", &ordering(), &lifted).verdict,
        Verdict::Refuted
    );
    // Above the floor but within 1% of the compared mean, no figure could
    // show the difference: the point decides nothing.
    let mut tiny = sweep("A", JSQ, &[("0.3", plus(floor, 0.105)), ("0.9", high)]);
    tiny.extend(sweep(
        "B",
        WR,
        &[("0.3", plus(floor, 0.1)), ("0.9", plus(high, 1.0))],
    ));
    let c = audit_claim("e", &ordering(), &tiny);
    assert_eq!(c.verdict, Verdict::Confirmed, "{c:?}");
    let k = c.checks.iter().find(|k| k.at == "load=0.3").unwrap();
    assert!(
        k.uninformative
            .as_deref()
            .is_some_and(|u| u.contains("no effect a figure could show")),
        "{k:?}"
    );
}

/// A paper's statement read over its whole range: it fails at one load of
/// three and holds at the other two, so it is reproduced except there, with
/// the effect size named; failing at two of three, it is not reproduced. A
/// claim of ours keeps the strict rule.
#[test]
fn a_paper_statement_failing_at_a_minority_of_its_range_is_reproduced_except_there() {
    let xs = [10.0, 20.0, 30.0, 40.0, 50.0];
    let mut rs = sweep(
        "A",
        JSQ,
        &[("0.5", xs), ("0.7", xs), ("0.9", plus(xs, 2.0))],
    );
    rs.extend(sweep(
        "B",
        WR,
        &[("0.5", plus(xs, 1.0)), ("0.7", plus(xs, 1.0)), ("0.9", xs)],
    ));
    let mut paper = ordering();
    paper.origin = claim::Origin::Paper;
    let c = audit_claim("e", &paper, &rs);
    assert_eq!(c.verdict, Verdict::Partly, "{c:?}");
    assert_eq!(c.except.len(), 1);
    assert!(c.except[0].starts_with("load=0.9: −2"), "{:?}", c.except);
    let ours = audit_claim("e", &ordering(), &rs);
    assert_eq!(ours.verdict, Verdict::Refuted);
    let mut worse = sweep(
        "A",
        JSQ,
        &[("0.5", xs), ("0.7", plus(xs, 2.0)), ("0.9", plus(xs, 2.0))],
    );
    worse.extend(sweep(
        "B",
        WR,
        &[("0.5", plus(xs, 1.0)), ("0.7", xs), ("0.9", xs)],
    ));
    assert_eq!(audit_claim("e", &paper, &worse).verdict, Verdict::Refuted);
}

/// A claim that credits information is held to uniform Random and weighted
/// random in its subject's place: where Random beats B too, the point does
/// not discriminate; where every null fails, it does. Where the nulls pass
/// everywhere, the confirmation does not discriminate.
#[test]
fn a_point_where_a_null_holds_too_does_not_discriminate() {
    let xs = [10.0, 20.0, 30.0, 40.0, 50.0];
    let mut rs = sweep("A", JSQ, &[("0.5", xs), ("0.9", xs)]);
    rs.extend(sweep(
        "B",
        WR,
        &[("0.5", plus(xs, 2.0)), ("0.9", plus(xs, 2.0))],
    ));
    rs.extend(sweep(
        "Random",
        PolicyConfig::Random,
        &[("0.5", plus(xs, 1.0)), ("0.9", plus(xs, 5.0))],
    ));
    rs.extend(sweep(
        "WR",
        WR,
        &[("0.5", plus(xs, 3.0)), ("0.9", plus(xs, 5.0))],
    ));
    let mut c = ordering();
    c.credits = Some(claim::Credit::Information);
    let nulls = c.nulls();
    assert_eq!(
        nulls.iter().map(|n| n.id.as_str()).collect::<Vec<_>>(),
        ["c/null-Random", "c/null-WR"]
    );
    let r = audit_claim("e", &c, &rs);
    assert_eq!(r.verdict, Verdict::Confirmed, "{r:?}");
    assert_eq!(r.informative, (1, 2));
    let low = r.checks.iter().find(|k| k.at == "load=0.5").unwrap();
    assert!(
        low.uninformative
            .as_deref()
            .is_some_and(|u| u.contains("null Random holds here too")),
        "{low:?}"
    );
    assert!(r.untested.is_none());
    // Random beats B at both loads: no point discriminates.
    let mut everywhere = sweep("A", JSQ, &[("0.5", xs), ("0.9", xs)]);
    everywhere.extend(sweep(
        "B",
        WR,
        &[("0.5", plus(xs, 2.0)), ("0.9", plus(xs, 2.0))],
    ));
    everywhere.extend(sweep(
        "Random",
        PolicyConfig::Random,
        &[("0.5", plus(xs, 1.0)), ("0.9", plus(xs, 1.0))],
    ));
    everywhere.extend(sweep(
        "WR",
        WR,
        &[("0.5", plus(xs, 3.0)), ("0.9", plus(xs, 3.0))],
    ));
    let r = audit_claim("e", &c, &everywhere);
    assert!(
        r.untested
            .as_deref()
            .is_some_and(|u| u.contains("none of its 2 points is informative")),
        "{r:?}"
    );
}

/// A foil whose runs have not settled is undecided, and a point where the
/// claim holds while its foil is undecided does not discriminate; but where
/// the foil's metric is an exact formula of the model (weighted random's
/// `wr_sum_q`) lying outside the claim's tolerance, the foil fails there.
#[test]
fn an_unsettled_foil_fails_on_its_exact_value() {
    let a = [10.0, 11.0, 12.0, 13.0, 14.0];
    let mut wr = result("WR", WR, "0.5", &a, &ALL_STABLE);
    // Replications of WR still drifting through their window: not settled.
    for r in [1, 2, 3] {
        if let Summary::Slotted(s) = &mut wr.summaries[r] {
            s.trace = (0..64).map(|i| 100.0 - i as f64).collect();
        }
    }
    let mut rs = [result("A", JSQ, "0.5", &a, &ALL_STABLE), wr];
    // Two unequal servers: no exact formula holds for JSQ there (the
    // single-server and JSQ-pair ones need one or two identical servers),
    // while WR's E[ΣQ] is exact.
    for r in &mut rs {
        if let Some(PointConfig::Slotted(c)) = r.point.as_mut().map(|p| &mut p.config) {
            c.system.service = vec![Law::Bernoulli { p: 0.6 }, Law::Bernoulli { p: 0.8 }];
        }
    }
    let value = |policy: &str, expected: f64| {
        value_of("mean_sum_q", Reference::Number(expected), relative(0.5))
            .check
            .with_policies(vec![policy.into()])
    };
    // mean_sum_q is a tenth of the response: 1.0–1.4, mean 1.2.
    let exact = rs[1]
        .point
        .as_ref()
        .unwrap()
        .config
        .exact_value("mean_sum_q", "wr_sum_q")
        .expect("WR's E[ΣQ] is exact here");
    let with_foil = |expected: f64| {
        stand_in_with_foil(
            claim(value("A", expected)),
            "WR should not",
            value("WR", expected),
        )
    };
    // The exact value lies far outside ±50% of 1.2: the foil fails.
    assert!((exact - 1.2).abs() > 0.6, "exact {exact}");
    let c = audit_claim("e", &with_foil(1.2), &rs);
    assert_eq!(c.verdict, Verdict::Confirmed, "{c:?}");
    assert_eq!(
        c.foil.as_ref().map(|f| f.verdict),
        Some(Verdict::Inconclusive)
    );
    assert!(c.untested.is_none(), "{:?}", c.untested);
}

/// Where several nulls decline a point, the strongest reason is said: a
/// null that holds there too before one that is undecided there.
#[test]
fn the_strongest_null_reason_is_said() {
    let xs = [10.0, 20.0, 30.0, 40.0, 50.0];
    let mut rs = sweep("A", JSQ, &[("0.5", xs)]);
    rs.extend(sweep("B", WR, &[("0.5", plus(xs, 2.0))]));
    // Random straddles B (undecided); WR beats B (holds too).
    rs.extend(sweep(
        "Random",
        PolicyConfig::Random,
        &[("0.5", [13.0, 20.0, 33.0, 40.0, 53.0])],
    ));
    rs.extend(sweep("WR", WR, &[("0.5", plus(xs, 1.0))]));
    let mut c = ordering();
    c.credits = Some(claim::Credit::Information);
    let r = audit_claim("e", &c, &rs);
    let k = &r.checks[0];
    assert!(
        k.uninformative
            .as_deref()
            .is_some_and(|u| u.contains("null WR holds here too")),
        "{k:?}"
    );
    assert!(r.matched, "{r:?}");
}

/// An upper bound met at the metric's floor tests nothing there; one broken
/// there is informative, however near the floor: the band about the floor
/// may be wider than the bound's slack.
#[test]
fn an_upper_bound_broken_near_the_floor_is_informative() {
    // A mean response of about 1.03 mean service times: within 5% of the floor 1.
    let rs = [result(
        "A",
        JSQ,
        "0.5",
        &[1.030, 1.031, 1.029, 1.030, 1.030],
        &ALL_STABLE,
    )];
    let stand_in = |b: f64| {
        let mut c = claim(Check::Bound(bound_of(b, Side::Le)));
        c.origin = claim::Origin::StandIn;
        c
    };
    let met = audit_claim("e", &stand_in(1.04), &rs);
    assert_eq!(met.verdict, Verdict::Confirmed, "{met:?}");
    assert!(
        met.checks[0]
            .uninformative
            .as_deref()
            .is_some_and(|u| u.contains("floor")),
        "{met:?}"
    );
    let broken = audit_claim("e", &stand_in(1.01), &rs);
    assert_eq!(broken.verdict, Verdict::Refuted, "{broken:?}");
    assert_eq!(broken.checks[0].uninformative, None, "{broken:?}");
}

/// A limit decided by its rate has a threshold to move, the slowest rate
/// counted: raised past the measured rate, the limit is refuted; lowered
/// past it, so is the claim that the metric does not approach.
#[test]
fn the_mutants_of_a_limit_decided_by_its_rate_move_its_slowest_rate() {
    use lb_audit::mutants::mutants;
    let limit = |approaches: bool| limit_to_ten(Toward::Infinity, Some(0.5), true, approaches);
    let series = series_of_three;
    for (approaches, ms) in [(true, [18.0, 14.0, 12.0]), (false, [12.0, 11.99, 11.98])] {
        let m = mutants("e", &limit(approaches), &series(ms));
        assert_eq!(m.verdict, Verdict::Confirmed, "{m:?}");
        assert!(m.insensitive.is_none(), "{m:?}");
        assert!(m.passes(), "{m:?}");
        assert!(
            m.shifted
                .iter()
                .all(|(k, v)| *k < 3.0 || *v == Verdict::Refuted),
            "{m:?}"
        );
    }
}

/// A foil found of no practical difference within a band tells the claim
/// from it only where the claim's own effect lies outside that band.
#[test]
fn a_foil_band_that_holds_the_claims_effect_decides_nothing() {
    let base = around(10.0);
    let with_effect = |effect: f64| {
        let rs = [
            result("A", JSQ, "0.9", &base, &ALL_STABLE),
            result("B", JSQ, "0.9", &plus(base, effect), &ALL_STABLE),
            result("C", JSQ, "0.9", &base, &ALL_STABLE),
            result("D", JSQ, "0.9", &plus(base, 0.01), &ALL_STABLE),
        ];
        let c = stand_in_with_foil(
            ordering_of("A", "B"),
            "C and D should not differ in practice",
            Check::Ordering(claim::Ordering {
                metric: "mean_response".into(),
                better: "C".into(),
                worse: "D".into(),
                equivalence: 0.5,
                overhead_ratio: None,
            }),
        );
        audit_claim("e", &c, &rs)
    };
    // An effect of 0.3 inside the foil's band of ±0.5: not told apart.
    let small = with_effect(0.3);
    assert_eq!(
        small.foil.as_ref().map(|f| f.verdict),
        Some(Verdict::NoPracticalDifference)
    );
    assert_eq!(small.informative.0, 0, "{small:?}");
    assert!(
        small.checks[0]
            .uninformative
            .as_ref()
            .is_some_and(|u| u.words.contains("band of no practical difference")),
        "{small:?}"
    );
    // An effect of 0.8 outside it: the point decides.
    let large = with_effect(0.8);
    assert_eq!(large.informative.0, 1, "{large:?}");
    assert_eq!(large.verdict, Verdict::Confirmed);
}

/// An ordering whose statement compares at a message overhead reads only
/// the points where the better policy sends at most that multiple of the
/// worse's messages per arrival; without the key every point reads.
#[test]
fn an_ordering_at_a_stated_overhead_reads_only_points_at_it() {
    let with_messages = |mut rs: Vec<PointResult>, per_arrival: f64| {
        for r in &mut rs {
            for s in &mut r.summaries {
                if let lb_model::config::Summary::Slotted(x) = s {
                    x.messages_per_arrival = Some(per_arrival);
                }
            }
        }
        rs
    };
    let mut rs = with_messages(sweep("A", JSQ, &[("0.5", around(5.0))]), 2.0);
    rs.extend(with_messages(sweep("B", WR, &[("0.5", around(9.0))]), 1.0));
    let mut c = ordering();
    assert_eq!(audit_claim("e", &c, &rs).informative, (1, 1));
    if let Check::Ordering(o) = &mut c.check {
        o.overhead_ratio = Some(1.25);
    }
    let out = audit_claim("e", &c, &rs);
    assert_eq!(out.informative, (0, 1), "{out:?}");
    let why = out.checks[0].uninformative.as_deref().unwrap_or_default();
    assert!(why.contains("not at the overhead"), "{why}");
    if let Check::Ordering(o) = &mut c.check {
        o.overhead_ratio = Some(2.0);
    }
    assert_eq!(audit_claim("e", &c, &rs).informative, (1, 1));
}

/// A policy calibrated to a message budget its calibration could not meet
/// (even p̂ = 1 sends fewer, or even p̂ = 0 more) is not the policy its
/// statement names: where the claim's words name an overhead, the points that
/// read it decide nothing, while a budget met, or one the search came
/// closest to, leaves them informative, and so does an ordering whose
/// statement bounds the messages measured instead.
/// lb's own checks read every point.
#[test]
fn a_point_whose_budget_was_out_of_reach_decides_nothing() {
    use lb_model::slotted::calibrate::{CalibrationResult, CalibrationStatus};
    let calibrated = |status, p_hat, achieved| CalibrationResult {
        p_hat,
        target: 4.0,
        achieved,
        status,
        probes: Vec::new(),
    };
    let mut rs = sweep("A", JSQ, &[("0.5", around(5.0))]);
    rs.extend(sweep("B", WR, &[("0.5", around(9.0))]));
    let mut c = ordering();
    c.origin = lb_manifest::claim::Origin::Paper;
    c.statement = "at the same message overhead as Power-of-2, A beats B".into();
    for (status, p_hat, achieved, informs) in [
        (CalibrationStatus::Met, 0.4, 4.01, true),
        (CalibrationStatus::Closest, 0.4, 3.9, true),
        (CalibrationStatus::OutOfReach, 1.0, 1.0, false),
        (CalibrationStatus::AboveAtZero, 0.0, 4.9, false),
    ] {
        rs[0].calibration = Some(calibrated(status, p_hat, achieved));
        let out = audit_claim("e", &c, &rs);
        assert_eq!(
            out.informative,
            (usize::from(informs), 1),
            "{status:?}: {out:?}"
        );
        if !informs {
            let why = out.checks[0].uninformative.as_deref().unwrap_or_default();
            assert!(
                why.contains("not at the overhead its statement names"),
                "{why}"
            );
            assert!(why.contains("calibrated to 4"), "{why}");
        }
    }
    // A claim whose words name no overhead (a stale policy against its
    // fresh counterpart) reads the point as what it runs.
    rs[0].calibration = Some(calibrated(CalibrationStatus::OutOfReach, 1.0, 1.0));
    let mut plain = c.clone();
    plain.statement = "A beats B".into();
    assert_eq!(audit_claim("e", &plain, &rs).informative, (1, 1));
    // An ordering that states its overhead as a bound on the messages
    // measured ("the same (or even smaller)") is read on that bound: fewer
    // messages than the budget are within it.
    if let Check::Ordering(o) = &mut c.check {
        o.overhead_ratio = Some(1.05);
    }
    assert_eq!(audit_claim("e", &c, &rs).informative, (1, 1));
    if let Check::Ordering(o) = &mut c.check {
        o.overhead_ratio = None;
    }
    c.origin = lb_manifest::claim::Origin::Check;
    assert_eq!(audit_claim("e", &c, &rs).informative, (1, 1));
}

/// A null that takes away part of what a claim credits and changes the
/// better policy — the degree of a delay, the same two policies at p̂ = 1 —
/// is read by size: where it holds with an effect wholly below the claim's,
/// the part it takes away makes the difference and the point informs; where
/// its effect is as large, the point decides nothing. One that would change
/// only the worse policy — the herd of dispatchers agreeing on a tie — is not
/// held: read by size it would read nothing of the better policy, and read
/// by sign the part of the credit it leaves could carry the effect.
#[test]
fn a_null_that_takes_away_part_of_the_credit_is_read_by_size() {
    let xs = [10.0, 20.0, 30.0, 40.0, 50.0];
    let mut rs = sweep("A", JSQ, &[("0.5", xs), ("0.9", xs)]);
    rs.extend(sweep(
        "B",
        WR,
        &[("0.5", plus(xs, 10.0)), ("0.9", plus(xs, 2.0))],
    ));
    rs.extend(sweep("A (p̂ = 1)", JSQ, &[("0.5", xs), ("0.9", xs)]));
    rs.extend(sweep(
        "B (p̂ = 1)",
        WR,
        &[("0.5", plus(xs, 1.0)), ("0.9", plus(xs, 2.0))],
    ));
    let mut c = ordering();
    c.credits = Some(claim::Credit::HeavyDelay);
    assert_eq!(
        c.nulls().iter().map(|n| n.id.as_str()).collect::<Vec<_>>(),
        ["c/null-p-hat-1"]
    );
    let r = audit_claim("e", &c, &rs);
    assert_eq!(r.verdict, Verdict::Confirmed, "{r:?}");
    assert_eq!(r.informative, (1, 2), "{r:?}");
    let low = r.checks.iter().find(|k| k.at == "load=0.5").unwrap();
    assert!(low.uninformative.is_none(), "{low:?}");
    let high = r.checks.iter().find(|k| k.at == "load=0.9").unwrap();
    assert!(
        high.uninformative
            .as_deref()
            .is_some_and(|u| u.contains("holds here too")),
        "{high:?}"
    );
    // The herd has no null of its own (the beaten policy with independent
    // ties would change only the beaten policy): its information nulls,
    // which lose at both loads here, leave both points informative.
    for label in ["Random", "WR"] {
        rs.extend(sweep(
            label,
            WR,
            &[("0.5", plus(xs, 20.0)), ("0.9", plus(xs, 20.0))],
        ));
    }
    c.credits = Some(claim::Credit::Herd);
    assert_eq!(
        c.nulls().iter().map(|n| n.id.as_str()).collect::<Vec<_>>(),
        ["c/null-Random", "c/null-WR"]
    );
    let r = audit_claim("e", &c, &rs);
    assert_eq!(r.informative, (2, 2), "{r:?}");
}

/// A null whose difference lies within the band in which an ordering shows
/// no effect (±1% of the compared mean) fails: without what the claim
/// credits the effect is gone, and the point informs.
#[test]
fn a_null_with_no_effect_a_figure_could_show_fails() {
    let xs = [100.0, 110.0, 120.0, 130.0, 140.0];
    let mut rs = sweep("A", JSQ, &[("0.5", xs)]);
    rs.extend(sweep("B", WR, &[("0.5", plus(xs, 10.0))]));
    rs.extend(sweep("Random", WR, &[("0.5", plus(xs, 20.0))]));
    // WR beats B, paired, by 0.1: a thousandth of B's mean.
    rs.extend(sweep("WR", WR, &[("0.5", plus(xs, 9.9))]));
    let mut c = ordering();
    c.credits = Some(claim::Credit::Information);
    let r = audit_claim("e", &c, &rs);
    assert_eq!(r.verdict, Verdict::Confirmed, "{r:?}");
    assert_eq!(r.informative, (1, 1), "{r:?}");
}

/// An ordering credited to the herd of the policy it beats is decided
/// where a policy that uses no information does not beat that policy too:
/// where weighted random beats the herding policy as well, the herd alone
/// decides and the point says nothing of the better policy.
#[test]
fn a_herd_ordering_is_decided_where_no_information_loses() {
    let xs = [10.0, 20.0, 30.0, 40.0, 50.0];
    let mut rs = sweep("A", JSQ, &[("0.5", xs), ("0.9", xs)]);
    rs.extend(sweep(
        "B",
        WR,
        &[("0.5", plus(xs, 10.0)), ("0.9", plus(xs, 10.0))],
    ));
    rs.extend(sweep(
        "B (independent ties)",
        WR,
        &[("0.5", plus(xs, -5.0)), ("0.9", plus(xs, -5.0))],
    ));
    rs.extend(sweep(
        "Random",
        PolicyConfig::Random,
        &[("0.5", plus(xs, 30.0)), ("0.9", plus(xs, 30.0))],
    ));
    rs.extend(sweep(
        "WR",
        WR,
        &[("0.5", plus(xs, 2.0)), ("0.9", plus(xs, 30.0))],
    ));
    let mut c = ordering();
    c.credits = Some(claim::Credit::Herd);
    let r = audit_claim("e", &c, &rs);
    assert_eq!(r.verdict, Verdict::Confirmed, "{r:?}");
    assert_eq!(r.informative, (1, 2), "{r:?}");
    let low = r.checks.iter().find(|k| k.at == "load=0.5").unwrap();
    assert!(
        low.uninformative
            .as_deref()
            .is_some_and(|u| u.contains("null WR holds here too")),
        "{low:?}"
    );
}
