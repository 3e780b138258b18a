//! Each claim kind of the audit, with confirmed, refuted and inconclusive
//! outcomes, on synthetic records.

mod common;

use common::*;

/// The two policies' replications vary a lot together (common random numbers)
/// but B is always 1 slot worse: their own intervals overlap widely, the paired
/// difference is exactly 1 with no spread, so the ordering is confirmed.
#[test]
fn ordering_is_decided_on_paired_differences() {
    let a = [10.0, 20.0, 30.0, 40.0, 50.0];
    let b: Vec<f64> = a.iter().map(|x| x + 1.0).collect();
    let rs = [
        result("A", JSQ, "0.5", &a, &ALL_STABLE),
        result("B", WR, "0.5", &b, &ALL_STABLE),
    ];
    let c = audit_claim("e", &ordering(), &rs);
    assert_eq!(c.verdict, Verdict::Confirmed, "{c:?}");
    assert_eq!(c.checks[0].measured, 1.0);
    // The reverse claim is refuted.
    let rev = ordering_of("B", "A");
    assert_eq!(audit_claim("e", &rev, &rs).verdict, Verdict::Refuted);
}

/// A paper's confirmation counts only if its foil fails: A beats B, and the
/// foil (C, which should not beat B) is refuted; with a foil that beats B
/// too, the same confirmation does not discriminate; a statement naming no
/// foil, or whose foil is undecided, is not counted either.
#[test]
fn a_confirmation_counts_only_if_its_foil_fails() {
    let a = [10.0, 20.0, 30.0, 40.0, 50.0];
    let b: Vec<f64> = a.iter().map(|x| x + 1.0).collect();
    let worse: Vec<f64> = a.iter().map(|x| x + 2.0).collect();
    let noisy = [12.0, 19.0, 33.0, 39.0, 53.0];
    let rs = [
        result("A", JSQ, "0.5", &a, &ALL_STABLE),
        result("B", WR, "0.5", &b, &ALL_STABLE),
        result("C", WR, "0.5", &worse, &ALL_STABLE),
        result("D", WR, "0.5", &a, &ALL_STABLE),
        result("E", WR, "0.5", &noisy, &ALL_STABLE),
    ];
    let with_foil = |better: &str| {
        let mut c = ordering();
        c.origin = claim::Origin::Paper;
        c.reading = Some("the test's setting".into());
        let f = ordering_of(better, "B");
        c.foil = Some(claim::WhyCheck {
            says: format!("{better} should not beat B"),
            filter: f.filter,
            level: f.level,
            stated_level: f.stated_level,
            decide_at: f.decide_at,
            check: f.check,
        });
        c
    };
    let fails = audit_claim("e", &with_foil("C"), &rs);
    assert_eq!(fails.verdict, Verdict::Confirmed, "{fails:?}");
    assert_eq!(
        fails.foil.as_ref().map(|f| f.verdict),
        Some(Verdict::Refuted)
    );
    assert!(fails.untested.is_none(), "{fails:?}");
    let holds = audit_claim("e", &with_foil("D"), &rs);
    assert_eq!(holds.verdict, Verdict::Confirmed);
    assert_eq!(
        holds.foil.as_ref().map(|f| f.verdict),
        Some(Verdict::Confirmed)
    );
    let why = holds.untested.as_deref().expect("a foil that holds");
    assert!(why.contains("foil holds here too"), "{why}");
    let open = audit_claim("e", &with_foil("E"), &rs);
    assert_eq!(
        open.foil.as_ref().map(|f| f.verdict),
        Some(Verdict::Inconclusive)
    );
    assert!(
        open.untested
            .as_deref()
            .is_some_and(|u| u.contains("undecided"))
    );
    let mut none = ordering();
    none.origin = claim::Origin::Paper;
    let none = audit_claim("e", &none, &rs);
    assert_eq!(none.untested.as_deref(), Some("it names no foil"));
    // A refuted claim is refuted whatever its foil.
    let mut rev = with_foil("D");
    rev.check = ordering_of("B", "A").check;
    let rev = audit_claim("e", &rev, &rs);
    assert_eq!(rev.verdict, Verdict::Refuted);
    assert!(rev.untested.is_none());
}

#[test]
fn ordering_is_inconclusive_when_the_difference_straddles_zero() {
    let rs = [
        result("A", JSQ, "0.5", &[10.0, 12.0, 9.0, 11.0, 10.0], &ALL_STABLE),
        result("B", WR, "0.5", &[11.0, 10.0, 10.0, 10.0, 11.0], &ALL_STABLE),
    ];
    let c = audit_claim("e", &ordering(), &rs);
    assert_eq!(c.verdict, Verdict::Inconclusive, "{c:?}");
}

#[test]
fn an_unstable_worse_policy_confirms_an_ordering_and_an_unstable_better_refutes_it() {
    let unstable = [false; 5];
    let rs = [
        result("A", JSQ, "0.9", &[10.0; 5], &ALL_STABLE),
        result("B", WR, "0.9", &[5.0; 5], &unstable),
    ];
    assert_eq!(
        audit_claim("e", &ordering(), &rs).verdict,
        Verdict::Confirmed
    );
    let rs = [
        result("A", JSQ, "0.9", &[5.0; 5], &unstable),
        result("B", WR, "0.9", &[10.0; 5], &ALL_STABLE),
    ];
    assert_eq!(audit_claim("e", &ordering(), &rs).verdict, Verdict::Refuted);
}

#[test]
fn value_with_tolerance_confirmed_refuted_inconclusive() {
    let value = |expected: f64, tolerance: f64| {
        value_of(
            "mean_response",
            Reference::Number(expected),
            relative(tolerance),
        )
    };
    // A's five replications about 10 at load 0.5.
    let (_, rs) = ten_at_level(claim::DEFAULT_LEVEL);
    assert_eq!(
        audit_claim("e", &value(10.0, 0.05), &rs).verdict,
        Verdict::Confirmed
    );
    assert_eq!(
        audit_claim("e", &value(20.0, 0.05), &rs).verdict,
        Verdict::Refuted
    );
    // The band [9.95, 10.45] cuts through the interval around 10.
    assert_eq!(
        audit_claim("e", &value(10.2, 0.025), &rs).verdict,
        Verdict::Inconclusive
    );
    // Tolerance 0: the interval must cover the reference.
    assert_eq!(
        audit_claim("e", &value(10.0, 0.0), &rs).verdict,
        Verdict::Confirmed
    );
    assert_eq!(
        audit_claim("e", &value(10.5, 0.0), &rs).verdict,
        Verdict::Refuted
    );
}

#[test]
fn a_named_reference_is_computed_from_the_point() {
    // One Bernoulli(1) server: E[Q] at the start of a slot is 0 exactly.
    let c = value_of(
        "mean_sum_q",
        Reference::Named("single_server".into()),
        relative(0.0),
    );
    let rs = [result("A", JSQ, "0.5", &[0.0; 5], &ALL_STABLE)];
    let out = audit_claim("e", &c, &rs);
    assert_eq!(out.verdict, Verdict::Confirmed, "{out:?}");
    assert!(
        out.checks[0].threshold.contains("= 0"),
        "{}",
        out.checks[0].threshold
    );
}

#[test]
fn stability_is_read_on_the_replications_together() {
    let stability = |stable: bool| {
        claim(Check::Stability(claim::Stability {
            policies: vec!["A".into()],
            stable,
        }))
    };
    // Four of five flagged, growing at a steady rate: divergence (a
    // unanimous vote used to be needed).
    let mostly = [false, false, false, true, false];
    let rs = [result("A", JSQ, "0.99", &[1.0; 5], &mostly)];
    let unstable = audit_claim("e", &stability(false), &rs);
    assert_eq!(unstable.verdict, Verdict::Confirmed);
    // Were the point stable, reading it unstable needs 3 of its 5 runs
    // flagged by chance, each with at most the trend test's false-alarm
    // chance: 10·0.02³·0.98² + 5·0.02⁴·0.98 + 0.02⁵.
    let p = lb_core::stability::FALSE_ALARM;
    let tail = 10.0 * p.powi(3) * (1.0 - p).powi(2) + 5.0 * p.powi(4) * (1.0 - p) + p.powi(5);
    let bound = unstable.checks[0].false_unstable.unwrap();
    assert!((bound - tail).abs() < 1e-15, "{bound} against {tail}");
    assert_eq!(
        audit_claim("e", &stability(true), &rs).verdict,
        Verdict::Refuted
    );
    // The same runs rising ever more slowly: a transient, which decides
    // nothing either way, and says so.
    let mut slowing = result("A", JSQ, "0.99", &[1.0; 5], &mostly);
    for s in &mut slowing.summaries {
        if let Summary::Slotted(r) = s
            && !r.stability.stable
        {
            r.trace = (0..8).map(|i| (1.0 + i as f64).sqrt()).collect();
        }
    }
    for claimed in [false, true] {
        let c = audit_claim("e", &stability(claimed), std::slice::from_ref(&slowing));
        assert_eq!(c.verdict, Verdict::Inconclusive);
        let note = c.checks[0].note.as_deref().unwrap_or_default();
        assert!(note.contains("still rising"), "{note}");
    }
    // One of five flagged: the trend test's false alarm, and the point is
    // stable (before, it decided nothing).
    let once = [true, true, false, true, true];
    let rs = [result("A", JSQ, "0.99", &[1.0; 5], &once)];
    assert_eq!(
        audit_claim("e", &stability(true), &rs).verdict,
        Verdict::Confirmed
    );
    // All five stable: confirms "stable", refutes "unstable"; a "stable"
    // carries no bound (a slow divergence passes the test).
    let rs = [result("A", JSQ, "0.99", &[1.0; 5], &[true; 5])];
    let stable = audit_claim("e", &stability(true), &rs);
    assert_eq!(stable.verdict, Verdict::Confirmed);
    assert_eq!(stable.checks[0].false_unstable, None);
    assert_eq!(
        audit_claim("e", &stability(false), &rs).verdict,
        Verdict::Refuted
    );
}

#[test]
fn bounds_on_both_sides() {
    let bound = |b: f64, side: Side| claim(Check::Bound(bound_of(b, side)));
    let rs = [result(
        "A",
        JSQ,
        "0.5",
        &[10.0, 10.2, 9.8, 10.1, 9.9],
        &ALL_STABLE,
    )];
    assert_eq!(
        audit_claim("e", &bound(9.0, Side::Ge), &rs).verdict,
        Verdict::Confirmed
    );
    assert_eq!(
        audit_claim("e", &bound(11.0, Side::Ge), &rs).verdict,
        Verdict::Refuted
    );
    assert_eq!(
        audit_claim("e", &bound(11.0, Side::Le), &rs).verdict,
        Verdict::Confirmed
    );
    assert_eq!(
        audit_claim("e", &bound(10.0, Side::Le), &rs).verdict,
        Verdict::Inconclusive
    );
}

#[test]
fn a_claim_with_no_computed_points_is_inconclusive() {
    let c = audit_claim("e", &ordering(), &[]);
    assert_eq!(c.verdict, Verdict::Inconclusive);
    assert!(c.checks.is_empty());
}

#[test]
fn one_replication_cannot_confirm_an_exact_value() {
    let c = value_of("mean_response", Reference::Number(10.0), relative(0.0));
    let rs = [result("A", JSQ, "0.5", &[10.0], &[true])];
    let out = audit_claim("e", &c, &rs);
    assert_eq!(out.verdict, Verdict::Inconclusive, "{out:?}");
}

/// An axis that does not apply to one policy ("-", e.g. p_hat for JSQ) does
/// not prevent pairing; a missing partner is reported, not skipped.
#[test]
fn ordering_pairs_across_axes_that_do_not_apply() {
    let mut a = result("A", JSQ, "0.5", &[1.0, 2.0, 3.0], &[true; 3]);
    let mut b = result("B", WR, "0.5", &[2.0, 3.0, 4.0], &[true; 3]);
    a.axes.push(("p_hat".into(), "0.1".into()));
    b.axes.push(("p_hat".into(), "-".into()));
    let c = audit_claim("e", &ordering(), &[a.clone(), b]);
    assert_eq!(c.verdict, Verdict::Confirmed, "{c:?}");
    let c = audit_claim("e", &ordering(), &[a]);
    assert_eq!(c.verdict, Verdict::Inconclusive);
    assert!(c.checks[0].note.as_deref().unwrap().contains("no B point"));
}

#[test]
fn an_absolute_tolerance_states_a_value_whose_reference_is_zero() {
    let value = |abs: f64| {
        value_of(
            "mean_response",
            Reference::Number(0.0),
            Tolerance {
                relative: 0.0,
                absolute: abs,
            },
        )
    };
    // Mean 0.01, half-width ≈ 0.028 (t₄ = 2.776, s ≈ 0.0224).
    let rs = [result(
        "A",
        JSQ,
        "0.5",
        &[-0.02, 0.03, 0.01, 0.04, -0.01],
        &ALL_STABLE,
    )];
    // A relative tolerance of 0 cannot say "close to 0": ±0.1 can.
    let out = audit_claim("e", &value(0.1), &rs);
    assert_eq!(out.verdict, Verdict::Confirmed, "{out:?}");
    assert!(
        out.checks[0].threshold.contains("± 0.1"),
        "{}",
        out.checks[0].threshold
    );
    // ±0.02 cuts through the interval: inconclusive; far from it: refuted.
    assert_eq!(
        audit_claim("e", &value(0.02), &rs).verdict,
        Verdict::Inconclusive
    );
    let far = [result(
        "A",
        JSQ,
        "0.5",
        &[1.0, 1.01, 0.99, 1.0, 1.0],
        &ALL_STABLE,
    )];
    assert_eq!(
        audit_claim("e", &value(0.1), &far).verdict,
        Verdict::Refuted
    );
}

#[test]
fn a_bound_claim_reports_the_paired_margin_and_its_interval() {
    let c = claim(Check::Bound(bound_of(5.0, Side::Ge)));
    let rs = [result(
        "A",
        JSQ,
        "0.5",
        &[9.9, 10.1, 10.0, 9.95, 10.05],
        &ALL_STABLE,
    )];
    let out = audit_claim("e", &c, &rs);
    assert_eq!(out.verdict, Verdict::Confirmed);
    let k = &out.checks[0];
    // The margin metric − bound, not the metric's mean, with the margin's interval.
    assert!((k.measured - 5.0).abs() < 1e-9, "{}", k.measured);
    assert!(k.half_width.unwrap() < 0.2);
    assert!(k.note.as_deref().unwrap().contains("= 10"), "{:?}", k.note);
}

#[test]
fn a_trend_is_decided_on_neighbouring_points() {
    let c = |direction: Direction| {
        claim(Check::Trend(claim::Trend {
            metric: "mean_response".into(),
            policies: vec!["A".into()],
            along: "load".into(),
            direction,
            equivalence: 0.0,
        }))
    };
    let rs = [
        result(
            "A",
            JSQ,
            "0.5",
            &[9.9, 10.1, 10.0, 9.95, 10.05],
            &ALL_STABLE,
        ),
        result(
            "A",
            JSQ,
            "0.7",
            &[11.9, 12.1, 12.0, 11.95, 12.05],
            &ALL_STABLE,
        ),
        result(
            "A",
            JSQ,
            "0.9",
            &[14.9, 15.1, 15.0, 14.95, 15.05],
            &ALL_STABLE,
        ),
    ];
    let up = audit_claim("e", &c(Direction::Increasing), &rs);
    assert_eq!(up.verdict, Verdict::Confirmed, "{up:?}");
    assert_eq!(up.checks.len(), 2);
    assert!((up.checks[1].measured - 3.0).abs() < 1e-9);
    assert_eq!(up.checks[0].at, "load=0.5→0.7");
    assert_eq!(
        audit_claim("e", &c(Direction::Decreasing), &rs).verdict,
        Verdict::Refuted
    );
    // A flat step within noise leaves it open.
    let flat = [
        rs[0].clone(),
        result(
            "A",
            JSQ,
            "0.7",
            &[10.0, 9.9, 10.1, 10.05, 9.95],
            &ALL_STABLE,
        ),
    ];
    assert_eq!(
        audit_claim("e", &c(Direction::Increasing), &flat).verdict,
        Verdict::Inconclusive
    );
}

#[test]
fn a_limit_is_judged_on_the_points_nearest_it_with_its_rate() {
    let limit = |toward: Toward, min_rate: Option<f64>| limit_to_ten(toward, min_rate, false, true);
    let c = |min_rate: Option<f64>| limit(Toward::Infinity, min_rate);
    let series = series_of_three;
    // Reached: within ±1% (0.1) at the point nearest the limit.
    let reached = audit_claim("e", &c(None), &series([14.0, 12.0, 10.0]));
    assert_eq!(reached.verdict, Verdict::Confirmed, "{reached:?}");
    assert_eq!(reached.checks.len(), 1);
    assert_eq!(reached.checks[0].at, "load=0.8");
    // Moving away from it, outside the tolerance: refuted.
    let away = audit_claim("e", &c(None), &series([10.5, 12.0, 14.0]));
    assert_eq!(away.verdict, Verdict::Refuted, "{away:?}");
    // Approaching, not there yet: open, with the rate and where the
    // extrapolated gap comes within the tolerance. Gaps 8, 4, 2 over load
    // 0.2, 0.4, 0.8: |gap| ∝ load^−1, within 0.1 at load ≈ 16.
    let approaching = audit_claim("e", &c(None), &series([18.0, 14.0, 12.0]));
    assert_eq!(approaching.verdict, Verdict::Inconclusive);
    let note = approaching.checks[0].note.as_deref().unwrap();
    assert!(note.starts_with("still approaching"), "{note}");
    assert!(note.contains("|gap| ∝ load^{−1.0}"), "{note}");
    assert!(note.contains("extrapolation at load ≈ 16"), "{note}");
    // Stalled outside the tolerance: open without a rate to hold it to,
    // refuted when the claim counts only approaches at rate ≥ 0.5.
    let stalled = series([12.0, 11.99, 11.98]);
    assert_eq!(
        audit_claim("e", &c(None), &stalled).verdict,
        Verdict::Inconclusive
    );
    assert_eq!(
        audit_claim("e", &c(Some(0.5)), &stalled).verdict,
        Verdict::Refuted
    );
    // With `rate_decides`, a gap closing faster than min_rate confirms
    // (rate 1 against 0.5); one closing slower than it still refutes, and
    // without a rate to hold it to the approach stays open.
    let by_rate = |min: f64| {
        let mut k = c(Some(min));
        if let Check::Limit(l) = &mut k.check {
            l.rate_decides = true;
        }
        k
    };
    let fast = audit_claim("e", &by_rate(0.5), &series([18.0, 14.0, 12.0]));
    assert_eq!(fast.verdict, Verdict::Confirmed);
    // Decided by its rate: its margin is the rate's (1 against 0.5), not
    // the distance of a point outside the tolerance to it.
    let margin = fast.margin.as_deref().unwrap_or_default();
    assert!(margin.contains("in the rate of approach"), "{margin}");
    assert!(margin.contains("of 0.5"), "{margin}");
    assert_eq!(
        audit_claim("e", &by_rate(2.0), &series([18.0, 14.0, 12.0])).verdict,
        Verdict::Refuted
    );
    // A gap that tends to a constant closes ever more slowly, so its
    // slowest step decides, not its ends. Gaps 6, 4, 3 over loads 0.2, 0.4,
    // 0.8 (2 + 0.8/load: a limit 20% above the claim's) close at rate 0.5
    // between the ends, at 0.58 on the first step and 0.42 on the nearest:
    // not confirmed against 0.45.
    let toward_const = series([16.0, 14.0, 13.0]);
    let k = audit_claim("e", &by_rate(0.45), &toward_const);
    assert_ne!(k.verdict, Verdict::Confirmed, "{k:?}");
    let note = k.checks[0].note.as_deref().unwrap();
    assert!(
        note.contains("on its slowest step, load 0.4 → 0.8,"),
        "{note}"
    );
    // A gap tending to a constant that still clears the slowest rate on
    // every step is not confirmed where its approach slows toward the
    // limit: gaps 6, 3.5, 2.25 (1 + 1/load) close at 0.78, then 0.64,
    // both above 0.5, the second significantly slower.
    let slowing = audit_claim("e", &by_rate(0.5), &series([16.0, 13.5, 12.25]));
    assert_ne!(slowing.verdict, Verdict::Confirmed, "{slowing:?}");
    let note = slowing.checks[0].note.as_deref().unwrap();
    assert!(note.starts_with("slowing toward the limit"), "{note}");
    // The same ends at a constant rate (gaps 6, 4.24, 3: |gap| ∝ load^−½)
    // are confirmed against 0.45.
    let power = series([16.0, 14.243, 13.0]);
    assert_eq!(
        audit_claim("e", &by_rate(0.45), &power).verdict,
        Verdict::Confirmed
    );
    // A rate that decides holds on its steps' bounds too (the rates
    // between the ends of each step's two gaps' intervals) where the gaps
    // are precise: a confirmation then wrong only if one of two intervals
    // misses, which the claim's row counts. Gaps 8, 4, 2 within ±0.1.
    let rate = fast.checks[0].rate.as_ref().unwrap();
    assert!(rate.bounded, "{fast:?}");
    let note = fast.checks[0].note.as_deref().unwrap();
    assert!(
        note.contains("wherever its two gaps' intervals cover"),
        "{note}"
    );
    // The same means with each gap's interval about a fifth of it: the
    // delta method clears 0.5 (1 − 0.41), but the bounds do not (the
    // step's least rate, ln(6.4/4.8)/ln 2 ≈ 0.42), so no bound is stated.
    let wide_gaps: Vec<PointResult> = ["0.2", "0.4", "0.8"]
        .iter()
        .zip([(18.0, 1.6), (14.0, 0.8), (12.0, 0.4)])
        .map(|(x, (m, d))| {
            let reps = [m - d, m + d, m, m - d / 2.0, m + d / 2.0];
            result("A", JSQ, x, &reps, &ALL_STABLE)
        })
        .collect();
    let loose = audit_claim("e", &by_rate(0.5), &wide_gaps);
    assert_eq!(loose.verdict, Verdict::Confirmed, "{loose:?}");
    assert!(!loose.checks[0].rate.as_ref().unwrap().bounded, "{loose:?}");
    // A nearest point that straddles the tolerance's edge is read through
    // its rate as one outside it is: gaps 4, 2, 1 against a tolerance of
    // 1 (10% of 10), closing at rate 1 on each step.
    let mut wide = by_rate(0.5);
    if let Check::Limit(l) = &mut wide.check {
        l.tolerance = relative(0.1);
    }
    let straddles = audit_claim("e", &wide, &series([14.0, 12.0, 11.0]));
    assert_eq!(straddles.verdict, Verdict::Confirmed, "{straddles:?}");
    assert_eq!(
        audit_claim("e", &by_rate(0.5), &stalled).verdict,
        Verdict::Refuted
    );
    // Not tending to the limit (`approaches = false`): the stalled gap
    // holds it, with its margin in the rate; a gap closing fast, or one
    // within the tolerance, fails it.
    let away_from = |min: f64| {
        let mut k = c(Some(min));
        if let Check::Limit(l) = &mut k.check {
            l.approaches = false;
        }
        k
    };
    let stays = audit_claim("e", &away_from(0.5), &stalled);
    assert_eq!(stays.verdict, Verdict::Confirmed, "{stays:?}");
    assert!(stays.checks[0].threshold.starts_with('↛'), "{stays:?}");
    let margin = stays.margin.as_deref().unwrap_or_default();
    assert!(margin.contains("in the rate of approach"), "{margin}");
    assert_eq!(
        audit_claim("e", &away_from(0.5), &series([18.0, 14.0, 12.0])).verdict,
        Verdict::Refuted
    );
    assert_eq!(
        audit_claim("e", &away_from(0.5), &series([14.0, 12.0, 10.0])).verdict,
        Verdict::Refuted
    );
    // Crossing the reference is not moving away from it.
    let crossing: Vec<PointResult> = ["0.2", "0.4", "0.8"]
        .iter()
        .zip([10.5, 10.2, 9.96])
        .map(|(x, m)| result("A", JSQ, x, &[m - 0.01, m + 0.01, m], &ALL_STABLE))
        .collect();
    let r = audit_claim("e", &c(None), &crossing);
    assert_eq!(r.verdict, Verdict::Confirmed, "{r:?}");
    // A series that `where` cuts to one point has no trend to read: open,
    // even within the tolerance.
    let one = audit_claim("e", &c(None), &series([14.0, 12.0, 10.0])[2..]);
    assert_eq!(one.verdict, Verdict::Inconclusive, "{one:?}");
    assert!(
        one.checks[0]
            .note
            .as_deref()
            .unwrap()
            .starts_with("one point read")
    );
    // Toward zero reads the same points from the other end.
    let to_zero = limit(Toward::Zero, None);
    let r = audit_claim("e", &to_zero, &series([10.0, 12.0, 14.0]));
    assert_eq!(r.verdict, Verdict::Confirmed, "{r:?}");
    assert_eq!(r.checks[0].at, "load=0.2");
}

/// A limit claim's gap at a point is its metric's interval there less the
/// (constant) limit: the same half-width and level as a value claim of the
/// same metric at that point, so the coverage certificate's rows of the
/// metric's interval (Student-t, control variate, proportions) are the
/// gap's too. lb has no interval of its own for a gap.
#[test]
fn a_limit_claims_gap_is_the_value_interval_less_the_limit() {
    let limit = claim(Check::Limit(claim::Limit {
        metric: "mean_response".into(),
        policies: vec!["A".into()],
        along: "load".into(),
        toward: Toward::Infinity,
        expected: Reference::Number(10.0),
        tolerance: relative(0.01),
        last: claim::Limit::DEFAULT_LAST,
        min_rate: None,
        rate_from: None,
        rate_decides: false,
        approaches: true,
        control: None,
    }));
    let near = [10.31, 10.02, 10.17, 9.93, 10.24];
    let rs: Vec<PointResult> = [("0.2", 14.0), ("0.4", 12.0)]
        .iter()
        .map(|&(x, m)| result("A", JSQ, x, &around(m), &ALL_STABLE))
        .chain(std::iter::once(result("A", JSQ, "0.8", &near, &ALL_STABLE)))
        .collect();
    let gap = &audit_claim("e", &limit, &rs).checks[0];
    let value = audit_claim(
        "e",
        &value_of("mean_response", Reference::Number(10.0), relative(0.01)),
        &rs[2..],
    );
    let v = &value.checks[0];
    assert_eq!(gap.at, "load=0.8");
    let mean = near.iter().sum::<f64>() / 5.0;
    assert!((v.measured - mean).abs() < 1e-12, "{v:?}");
    assert!((gap.measured - mean).abs() < 1e-12, "{gap:?}");
    let (hg, hv) = (gap.half_width.unwrap(), v.half_width.unwrap());
    assert!(hv > 0.0 && (hg - hv).abs() < 1e-12, "{hg} against {hv}");
    // Both decide on the deviation from 10 with that half-width.
    let within = |k: &lb_audit::PointCheck| match k.decision {
        Some(lb_audit::Decision::Within {
            deviation,
            half_width,
            ..
        }) => (deviation, half_width),
        ref d => panic!("{d:?}"),
    };
    let ((dg, wg), (dv, wv)) = (within(gap), within(v));
    assert!((dg - (mean - 10.0)).abs() < 1e-12 && (dg - dv).abs() < 1e-12);
    assert!((wg - wv).abs() < 1e-12);
}

/// A control variate in a bound claim: A's replications move with WR's
/// (common random numbers) and WR's E[ΣQ] is known exactly, so the margin
/// is decided on A − WR plus the exact mean, with an interval far narrower
/// than A's own, and the direct estimate is printed beside it.
#[test]
fn a_control_variate_narrows_a_bound_claim() {
    use lb_manifest::claim::{Beta, Control};
    // One Bernoulli(0.5) arrival stream and one server of rate 1: WR's
    // E[ΣQ] is the single-server closed form.
    let wr_point = point(WR, 0.5);
    let exact = wr_point
        .config
        .exact_mean("mean_sum_q", "wr_sum_q")
        .unwrap();
    // WR's replications scatter widely around the exact mean; A sits 0.05
    // below WR in every replication (± 0.001).
    let spread = [-0.3, 0.2, 0.1, -0.2, 0.2];
    let wr: Vec<f64> = spread.iter().map(|d| 10.0 * (exact + d)).collect();
    let a: Vec<f64> = wr
        .iter()
        .zip([0.001, -0.001, 0.0, 0.001, -0.001])
        .map(|(y, e)| y - 10.0 * (0.05 + e))
        .collect();
    let rs = [
        result("A", JSQ, "0.5", &a, &ALL_STABLE),
        result("WR", WR, "0.5", &wr, &ALL_STABLE),
    ];
    let c = |control: Option<Control>| {
        claim(Check::Bound(claim::Bound {
            metric: "mean_sum_q".into(),
            control,
            ..bound_of(exact, Side::Le)
        }))
    };
    // Directly, A's own spread (±0.3) hides a margin of 0.05 below the bound.
    assert_eq!(
        audit_claim("e", &c(None), &rs).verdict,
        Verdict::Inconclusive
    );
    let k = Control {
        policy: "WR".into(),
        mean: "wr_sum_q".into(),
        beta: Beta::One,
    };
    let out = audit_claim("e", &c(Some(k)), &rs);
    assert_eq!(out.verdict, Verdict::Confirmed, "{out:?}");
    let check = &out.checks[0];
    assert!((check.measured - 0.05).abs() < 1e-3, "{}", check.measured);
    let note = check.note.as_deref().unwrap();
    assert!(note.contains("control variate WR"), "{note}");
    assert!(note.contains("directly"), "{note}");
}

/// A control variate in a limit claim: at each point A moves with the
/// pooled queue of Lemma 1 (common random numbers), whose mean is exact, so
/// each gap is read on A less the pooled queue's error: the spread that
/// leaves the limit open directly is gone, and the note gives both.
#[test]
fn a_control_variate_resolves_a_limit_claims_gaps() {
    use lb_manifest::claim::{Beta, Control};
    // One Bernoulli arrival stream, one server of rate 1: the pooled queue
    // is always empty at the start of a slot, E[Q_pool] = 0 exactly.
    let exact = point(PolicyConfig::Pooled, 0.5)
        .config
        .exact_mean("mean_sum_q", "pooled_exact")
        .unwrap();
    assert_eq!(exact, 0.0);
    let noise = [-0.3, 0.2, 0.1, -0.2, 0.2];
    let mut rs = Vec::new();
    for (x, gap) in [("0.2", 0.4), ("0.4", 0.2), ("0.8", 0.05)] {
        let pooled: Vec<f64> = noise.iter().map(|e| 10.0 * (exact + e)).collect();
        let a: Vec<f64> = pooled
            .iter()
            .zip([0.001, -0.001, 0.0, 0.001, -0.001])
            .map(|(y, e)| y + 10.0 * (1.0 + gap + e))
            .collect();
        rs.push(result("A", JSQ, x, &a, &ALL_STABLE));
        rs.push(result(
            "Pooled",
            PolicyConfig::Pooled,
            x,
            &pooled,
            &ALL_STABLE,
        ));
    }
    let c = |control: Option<Control>| {
        claim(Check::Limit(claim::Limit {
            metric: "mean_sum_q".into(),
            policies: vec!["A".into()],
            along: "load".into(),
            toward: Toward::Infinity,
            expected: Reference::Number(1.0),
            tolerance: relative(0.1),
            last: claim::Limit::DEFAULT_LAST,
            min_rate: None,
            rate_from: None,
            rate_decides: false,
            approaches: true,
            control,
        }))
    };
    assert_eq!(
        audit_claim("e", &c(None), &rs).verdict,
        Verdict::Inconclusive
    );
    let k = Control {
        policy: "Pooled".into(),
        mean: "pooled_exact".into(),
        beta: Beta::Fitted,
    };
    let out = audit_claim("e", &c(Some(k)), &rs);
    assert_eq!(out.verdict, Verdict::Confirmed, "{out:?}");
    let check = &out.checks[0];
    assert!((check.measured - 1.05).abs() < 2e-3, "{}", check.measured);
    assert!(check.half_width.unwrap() < 0.01, "{check:?}");
    let note = check.note.as_deref().unwrap();
    assert!(note.contains("control variate Pooled"), "{note}");
    assert!(note.contains("directly"), "{note}");
}

/// Every interval the audit prints carries its own level: a claim at 99.9%
/// says so beside its deciding point, one at 95% too, and the wider interval
/// is the 99.9% one (the audit page's table: lb-report's tests).
#[test]
fn every_printed_interval_carries_its_level() {
    let (strict, rs) = ten_at_level(0.999);
    let (usual, _) = ten_at_level(claim::DEFAULT_LEVEL);
    let (a, b) = (
        audit_claim("e", &strict, &rs),
        audit_claim("e", &usual, &rs),
    );
    let (da, db) = (
        lb_audit::describe(&a, &a.checks[0]),
        lb_audit::describe(&b, &b.checks[0]),
    );
    assert!(da.contains(" (99.9%)"), "{da}");
    assert!(db.contains(" (95%)"), "{db}");
    assert!(a.checks[0].half_width.unwrap() > b.checks[0].half_width.unwrap());
}

/// An ordering with an equivalence margin: a paired difference inside ± the
/// margin is no practical difference; above it, confirmed.
#[test]
fn a_difference_inside_the_equivalence_margin_is_no_practical_difference() {
    let a = [10.0, 20.0, 30.0, 40.0, 50.0];
    let small: Vec<f64> = a.iter().map(|x| x + 0.1).collect();
    let with = |e: f64| {
        let mut c = ordering();
        if let Check::Ordering(o) = &mut c.check {
            o.equivalence = e;
        }
        c
    };
    let rs = [
        result("A", JSQ, "0.5", &a, &ALL_STABLE),
        result("B", WR, "0.5", &small, &ALL_STABLE),
    ];
    // Without a margin a difference of 0.1 with no spread confirms …
    assert_eq!(
        audit_claim("e", &with(0.0), &rs).verdict,
        Verdict::Confirmed
    );
    // … within a margin of 0.5 it does not matter …
    let c = audit_claim("e", &with(0.5), &rs);
    assert_eq!(c.verdict, Verdict::NoPracticalDifference, "{c:?}");
    // … and below a margin of 0.05 it still confirms.
    assert_eq!(
        audit_claim("e", &with(0.05), &rs).verdict,
        Verdict::Confirmed
    );
}

/// A decided claim states its margin; a bound loose by far holds without
/// testing its statement; a bound that binds tests it.
#[test]
fn a_confirmation_states_its_margin_and_a_loose_bound_tests_nothing() {
    let rs = [result(
        "A",
        JSQ,
        "0.5",
        &[9.8, 10.0, 10.2, 9.9, 10.1],
        &ALL_STABLE,
    )];
    let tight = audit_claim("e", &claim(Check::Bound(bound_of(11.0, Side::Le))), &rs);
    assert_eq!(tight.verdict, Verdict::Confirmed);
    assert!(tight.untested.is_none(), "{tight:?}");
    let m = tight.margin.as_deref().expect("a margin");
    assert!(m.contains("half-widths"), "{m}");
    let loose = audit_claim("e", &claim(Check::Bound(bound_of(100.0, Side::Le))), &rs);
    assert_eq!(loose.verdict, Verdict::Confirmed);
    let why = loose.untested.as_deref().expect("loose");
    assert!(why.contains("loose by at least 10×"), "{why}");
    // The margin moves the threshold: a bound inside it would still confirm,
    // one beyond the interval would not.
    let inside = tight.checks[0].margin().unwrap();
    let nearer = audit_claim(
        "e",
        &claim(Check::Bound(bound_of(11.0 - 0.9 * inside, Side::Le))),
        &rs,
    );
    assert_eq!(nearer.verdict, Verdict::Confirmed);
    let past = audit_claim(
        "e",
        &claim(Check::Bound(bound_of(11.0 - 1.1 * inside, Side::Le))),
        &rs,
    );
    assert_ne!(past.verdict, Verdict::Confirmed);
}

/// A point whose warm-up detector hits its cap in more replications than
/// chance allows a settled point (two of five) decides nothing: the
/// ordering it would confirm is inconclusive, says why, and what would
/// decide it. One of five is within chance.
#[test]
fn a_point_that_has_not_settled_decides_nothing() {
    let a = [10.0, 20.0, 30.0, 40.0, 50.0];
    let b: Vec<f64> = a.iter().map(|x| x + 1.0).collect();
    let mut rs = [
        result("A", JSQ, "0.5", &a, &ALL_STABLE),
        result("B", WR, "0.5", &b, &ALL_STABLE),
    ];
    assert_eq!(
        audit_claim("e", &ordering(), &rs).verdict,
        Verdict::Confirmed
    );
    // Replications of A still drifting down through their window: MSER-5
    // cuts half of it.
    let drift = |rs: &mut [PointResult; 2], r: usize| {
        if let Summary::Slotted(s) = &mut rs[0].summaries[r] {
            s.trace = (0..64).map(|i| 100.0 - i as f64).collect();
        }
    };
    drift(&mut rs, 2);
    assert_eq!(
        audit_claim("e", &ordering(), &rs).verdict,
        Verdict::Confirmed,
        "one capped replication of five is within chance"
    );
    drift(&mut rs, 3);
    let c = audit_claim("e", &ordering(), &rs);
    assert_eq!(c.verdict, Verdict::Inconclusive, "{c:?}");
    let why = c.checks[0].unsettled.as_deref().expect("unsettled");
    assert!(why.contains("MSER-5"), "{why}");
    let decide = c.to_decide.as_deref().expect("what would decide it");
    assert!(decide.contains("as long"), "{decide}");
}

/// The mutants of a confirmed ordering: its threshold moved 3 half-widths
/// or more past the measurement is refuted, and swapping better and worse
/// refutes it; a stability claim is flagged insensitive.
#[test]
fn the_mutants_of_an_ordering_are_caught() {
    use lb_audit::mutants::mutants;
    let rs = [
        result("A", JSQ, "0.5", &[10.0, 12.0, 9.0, 11.0, 10.0], &ALL_STABLE),
        result("B", WR, "0.5", &[12.0, 13.0, 11.5, 12.5, 12.0], &ALL_STABLE),
    ];
    let m = mutants("e", &ordering(), &rs);
    assert_eq!(m.verdict, Verdict::Confirmed);
    assert!(m.insensitive.is_none());
    assert!(m.passes(), "{m:?}");
    assert!(
        m.shifted
            .iter()
            .all(|(k, v)| *k < 1.5 || *v == Verdict::Refuted),
        "{m:?}"
    );
    assert_eq!(m.flipped, Some(Verdict::Refuted));
    let s = mutants(
        "e",
        &claim(Check::Stability(claim::Stability {
            policies: vec!["A".into()],
            stable: true,
        })),
        &rs,
    );
    assert!(s.insensitive.is_some() && s.passes());
}
