//! Limit claims ("the metric tends to the reference as the axis → 0 or
//! ∞"): on each series along the axis, the gap metric − reference over the
//! last points, judged at the point nearest the limit and by whether the gap
//! still moves away; the note gives the rate of approach and, by
//! extrapolation, where the gap would come within the tolerance.

use super::check::{Decision, PointCheck, RateRead, Verdict};
use super::control::control_estimate;
use super::points::{
    Scope, at_string, keys, point_stable, reference, series, stats, undecided, values,
};
use super::words::{num, sig5, with_tolerance};
use lb_analysis::metric::Metric;
use lb_analysis::results::PointResult;
use lb_manifest::claim::{Limit, Toward};

/// The checks of a limit claim: one per series of each policy along the
/// claim's axis, on its last points (nearest the limit).
pub(super) fn checks(c: &Limit, s: Scope) -> Vec<PointCheck> {
    let (filter, m, results) = (s.filter, s.metric, s.results);
    let (level, shift) = (s.level, s.shift);
    let along = c.along.as_str();
    let to_zero = c.toward == Toward::Zero;
    let last = c.last as usize;
    let mut checks = Vec::new();
    for label in &c.policies {
        for mut rs in series(filter, results, label, along) {
            // Nearest the limit last.
            if to_zero {
                rs.reverse();
            }
            let tail = &rs[rs.len().saturating_sub(last)..];
            checks.extend(limit_check(
                c,
                m,
                (tail, results),
                along,
                to_zero,
                (level, shift),
                label,
            ));
        }
    }
    checks
}

/// One point of a limit claim: the axis value, the gap metric − reference
/// (paired per replication, as a value claim), its half-width, the mean
/// reference and the tolerance there.
struct Gap {
    x: f64,
    gap: f64,
    /// The interval of the gap (not always symmetric: proportions).
    lo: f64,
    hi: f64,
    hw: f64,
    reference: f64,
    tol: f64,
    metric: f64,
    n: usize,
    /// The control variate's estimate, in words, where the claim has one
    /// (or why it was not used here).
    control: Option<String>,
}

/// Whether the interval of a gap is asymmetric (a proportion's).
fn asymmetric(g: &Gap) -> bool {
    ((g.hi - g.gap) - (g.gap - g.lo)).abs() > 1e-9 * g.hw.max(f64::MIN_POSITIVE)
}

/// A gap whose interval excludes 0.
fn nonzero(g: &Gap) -> bool {
    g.lo > 0.0 || g.hi < 0.0
}

/// Distances |gap| to the reference (only the distance counts: a gap that
/// crosses the reference moves away only if it lands further from it); a
/// move between independent points is significant when it exceeds their
/// combined half-width.
fn moved(a: &Gap, b: &Gap) -> i32 {
    let change = b.gap.abs() - a.gap.abs();
    let h = (a.hw * a.hw + b.hw * b.hw).sqrt();
    if change + h < 0.0 {
        -1 // significantly closer
    } else if change - h > 0.0 {
        1 // significantly further
    } else {
        0
    }
}

/// A limit claim on one series (`tail`: the points nearest the limit, the
/// nearest last). Confirmed when the nearest point is within tolerance of
/// the reference and the last step does not move significantly away from
/// it; refuted when the nearest point is outside the tolerance and the gap
/// has grown significantly over the tail (moving away from the reference);
/// otherwise inconclusive — in particular "still approaching". The note
/// gives the gaps along the tail, the rate of approach (slope of log|gap|
/// against log of the axis, on the points whose gap is significantly
/// non-zero) and, when approaching, where by extrapolation the gap would
/// come within the tolerance.
fn limit_check(
    c: &Limit,
    m: Metric,
    (tail, results): (&[&PointResult], &[PointResult]),
    along: &str,
    to_zero: bool,
    (level, shift): (f64, f64),
    label: &str,
) -> Option<PointCheck> {
    let (mut gaps, stable) = match read_tail(c, m, (tail, results), along, level, label) {
        Ok(read) => read,
        Err(done) => return done.map(|check| *check),
    };
    // The audit's mutants move the limit away from the nearest point's
    // measurement (toward it, for a claim that the metric does not tend to
    // it), by `shift`, at every point read.
    if shift != 0.0 {
        let side = if c.approaches { 1.0 } else { -1.0 };
        let away = side
            * gaps
                .last()
                .map_or(1.0, |g| if g.gap < 0.0 { -1.0 } else { 1.0 });
        for g in &mut gaps {
            g.gap += away * shift;
            g.lo += away * shift;
            g.hi += away * shift;
        }
    }
    let near = gaps.last()?;
    let first = gaps.first()?;
    let mut j = judge(c, &gaps, first, near, stable);
    let (mut note, rate) = limit_note(c, &gaps, near, along, to_zero, stable, &j);
    // The claim that the metric does not tend to the limit holds where the
    // limit claim fails and fails where it holds.
    if !c.approaches {
        j.verdict = match j.verdict {
            Verdict::Confirmed => Verdict::Refuted,
            Verdict::Refuted => Verdict::Confirmed,
            v => v,
        };
    }
    for g in &gaps {
        if let Some(cv) = &g.control {
            note.push_str(&format!("; at {along} = {}: {cv}", sig5(g.x)));
        }
    }
    let r = tail.last()?;
    Some(PointCheck {
        at: at_string(r),
        axes: r.axes.clone(),
        policy: label.to_string(),
        measured: near.metric,
        // An asymmetric interval (a proportion's) is not a half-width: the
        // note gives its ends.
        half_width: Some(near.hw).filter(|h| h.is_finite() && !asymmetric(near)),
        replications: near.n,
        threshold: format!(
            "{} {} as {along} → {} (last {} points)",
            if c.approaches { "→" } else { "↛" },
            with_tolerance(near.reference, &c.tolerance),
            if to_zero { "0" } else { "∞" },
            gaps.len()
        ),
        reference: Some(near.reference),
        verdict: j.verdict,
        note: Some(note),
        keys: keys(tail),
        decision: (stable && near.hw.is_finite() && gaps.len() >= 2)
            .then(|| decision(c, &j, near))
            .flatten(),
        unsettled: None,
        longer: None,
        uninformative: None,
        exact_fails: false,
        rate,
        false_unstable: None,
    })
}

/// The decision of a limit check, for its margin: the rate's against the
/// slowest counted where the rate decides it, else the nearest gap's
/// against the tolerance. A claim that the metric does not tend to the
/// limit has a margin only where its rate decides it (slower than the
/// slowest counted).
fn decision(c: &Limit, j: &Judgement, near: &Gap) -> Option<Decision> {
    if !c.approaches {
        return match (c.min_rate, j.step_rate) {
            (Some(min), Some((rate, hw)))
                if j.outside && matches!(j.verdict, Verdict::Confirmed | Verdict::Refuted) =>
            {
                Some(Decision::Above {
                    estimate: min - rate,
                    half_width: hw,
                    strict: true,
                    equivalence: 0.0,
                    scale: min,
                })
            }
            _ => None,
        };
    }
    Some(match (c.min_rate, j.step_rate) {
        // Decided by its rate (not within the tolerance): the margin is
        // the rate's, against the slowest counted.
        (Some(min), Some((rate, hw)))
            if (!j.within && j.verdict == Verdict::Confirmed && c.rate_decides)
                || (j.outside && j.verdict == Verdict::Refuted && rate + hw < min) =>
        {
            Decision::Above {
                estimate: rate - min,
                half_width: hw,
                strict: true,
                equivalence: 0.0,
                scale: min,
            }
        }
        _ => Decision::Within {
            deviation: near.gap,
            half_width: near.hw,
            tolerance: near.tol,
            scale: near.reference,
        },
    })
}

/// The gaps along `tail`, and whether every point of it settled (a
/// transient metric counts as settled). Err when the tail decides nothing:
/// Err(None) for a point without values yet, Err(Some(check)) for a
/// reference undefined at a point (the check says why; boxed, as it is
/// large beside the gaps).
fn read_tail(
    c: &Limit,
    m: Metric,
    (tail, results): (&[&PointResult], &[PointResult]),
    along: &str,
    level: f64,
    label: &str,
) -> Result<(Vec<Gap>, bool), Option<Box<PointCheck>>> {
    let refv = &c.expected;
    let mut gaps = Vec::new();
    let mut stable = true;
    for r in tail {
        let p = r.point.as_ref().ok_or(None)?;
        let vals = values(m, p, &r.summaries);
        if vals.is_empty() {
            return Err(None);
        }
        let refs: Vec<f64> = match vals
            .iter()
            .map(|(rep, _)| reference(refv, m.name(), r, *rep))
            .collect::<Result<_, _>>()
        {
            Ok(v) => v,
            Err(e) => {
                return Err(Some(Box::new(PointCheck {
                    keys: keys(tail),
                    ..undecided(r, label, vals.len(), e)
                })));
            }
        };
        stable &= m.transient() || point_stable(r);
        let diffs: Vec<f64> = vals.iter().zip(&refs).map(|((_, x), e)| x - e).collect();
        let reference = refs.iter().sum::<f64>() / refs.len() as f64;
        // A proportion of counted events is held to its own pooled interval
        // (Wilson; Clopper–Pearson when none was seen), as in tables: rare
        // events make per-replication intervals overconfident (all zeros
        // give a width of 0).
        let xs: Vec<f64> = vals.iter().map(|v| v.1).collect();
        let counts: Option<Vec<(u64, u64)>> =
            r.summaries.iter().map(|s| s.counts(m.name())).collect();
        let proportion = m.kind() == lb_model::MetricKind::Proportion;
        let pooled = proportion
            .then(|| {
                lb_analysis::stats::estimate(m.kind(), &xs, counts.as_deref(), r.first_stage, level)
            })
            .flatten()
            .and_then(|e| Some((e.mean, e.lo?, e.hi?)));
        // A control variate (a reference the same at every replication of
        // the point, as validation requires): the gap is its estimate less
        // the reference, at its half-width.
        let control = c
            .control
            .as_ref()
            .filter(|_| !proportion)
            .map(|k| control_estimate(k, m, r, &vals, results, level));
        let (gap, lo, hi) = match (pooled, &control) {
            (Some((mean, lo, hi)), _) => (mean - reference, lo - reference, hi - reference),
            // A proportion without a pooled interval decides nothing.
            (None, _) if proportion => {
                let gap = stats(&diffs, r.first_stage, level).0;
                (gap, f64::NEG_INFINITY, f64::INFINITY)
            }
            (None, Some(Ok(e))) => {
                let gap = e.estimate - reference;
                (gap, gap - e.half_width, gap + e.half_width)
            }
            (None, _) => {
                let (gap, hw) = stats(&diffs, r.first_stage, level);
                let hw = hw.unwrap_or(f64::INFINITY);
                (gap, gap - hw, gap + hw)
            }
        };
        let control = control.map(|e| match e {
            Ok(e) => e.describe(m),
            Err(why) => why,
        });
        gaps.push(Gap {
            x: r.axis(along).ok_or(None)?.parse().ok().ok_or(None)?,
            gap,
            lo,
            hi,
            hw: (hi - lo) / 2.0,
            reference,
            tol: c.tolerance.around(reference),
            metric: gap + reference,
            n: diffs.len(),
            control,
        });
    }
    Ok((gaps, stable))
}

/// The verdict of a limit claim on one series, and what led to it.
struct Judgement {
    verdict: Verdict,
    /// The nearest point's interval lies within the tolerance (covers 0
    /// without one).
    within: bool,
    /// It lies wholly outside.
    outside: bool,
    /// Whether the last step moved significantly closer (−1), further (1),
    /// or neither (0).
    last_step: i32,
    /// The rate of approach that decides: the slowest of the tail's steps
    /// (neighbouring points whose gaps are both significantly non-zero;
    /// the fastest, for a claim that the metric does not tend to the
    /// limit), its half-width, and the step's two values of the axis.
    step_rate: Option<(f64, f64)>,
    /// The step [`Judgement::step_rate`] was read on.
    step: Option<(f64, f64)>,
    /// Whether the approach slows significantly toward the limit.
    slows: bool,
    /// The rate's decision holds on every step's bounds as well: the
    /// rates between the ends of its two gaps' intervals ([`step_bounds`]),
    /// so that it stands wherever those intervals cover.
    bounded: bool,
    /// The bounds of the deciding step's rate ([`step_bounds`]).
    step_bounds: Option<(f64, f64)>,
}

/// The least and the greatest rate of approach on a step whose two gaps
/// lie anywhere in their intervals (each excluding 0): |a| from its
/// interval's nearer end to its farther, |b| likewise. Where both
/// intervals cover the true gaps, the true rate of the step lies between
/// them, whatever the law of the estimates (no delta method).
fn step_bounds(a: &Gap, b: &Gap) -> Option<(f64, f64)> {
    let ends = |g: &Gap| {
        let (x, y) = (g.lo.abs(), g.hi.abs());
        (x.min(y), x.max(y))
    };
    (nonzero(a) && nonzero(b) && a.x > 0.0 && b.x > 0.0).then(|| {
        let span = (b.x / a.x).ln().abs();
        let ((a_lo, a_hi), (b_lo, b_hi)) = (ends(a), ends(b));
        ((a_lo / b_hi).ln() / span, (a_hi / b_lo).ln() / span)
    })
}

/// A step's rate of approach, its half-width, and the step's two values of
/// the axis.
type StepRate = (f64, f64, (f64, f64));

/// Judges the gaps of one series (`first` and `near`: the tail's ends).
fn judge(c: &Limit, gaps: &[Gap], first: &Gap, near: &Gap, stable: bool) -> Judgement {
    let last_step = if gaps.len() >= 2 {
        moved(&gaps[gaps.len() - 2], near)
    } else {
        0
    };
    // A tolerance of 0: the interval of the gap must cover 0.
    let (within, outside) = if near.tol == 0.0 {
        let covers = near.lo <= 0.0 && near.hi >= 0.0;
        (covers, !covers)
    } else {
        (
            near.lo >= -near.tol && near.hi <= near.tol,
            near.hi < -near.tol || near.lo > near.tol,
        )
    };
    let away = moved(first, near) == 1;
    // The rate of approach on each step of the tail, |gap| ∝ x^rate toward
    // zero (x^−rate toward infinity), with its half-width by the delta
    // method (the relative half-width of each |gap|), where both gaps are
    // significantly non-zero; the slowest step decides. A gap that tends
    // to a constant c > 0 closes ever more slowly (on c + a·x^r the step's
    // rate is about r·(1 − c/gap)), so its slowest step is the one nearest
    // the limit, and a rate read between the tail's ends would credit it
    // with the faster steps far from the limit.
    let rate_on = |a: &Gap, b: &Gap| {
        (nonzero(a) && nonzero(b) && a.x > 0.0 && b.x > 0.0).then(|| {
            let span = (b.x / a.x).ln().abs();
            let rate = (a.gap.abs() / b.gap.abs()).ln() / span;
            let hw = ((a.hw / a.gap).powi(2) + (b.hw / b.gap).powi(2)).sqrt() / span;
            (rate, hw, (a.x, b.x))
        })
    };
    let steps: Vec<Option<StepRate>> = gaps.windows(2).map(|w| rate_on(&w[0], &w[1])).collect();
    // Whether the approach slows toward the limit: the nearest step's rate
    // significantly below the farthest's. A gap tending to c > 0 slows so
    // (on c + a·x^r a step's rate is about r·(1 − c/gap)), and a rate that
    // still clears the slowest counted cannot then tell that limit from the
    // reference: such a gap is not confirmed by its rate.
    let slows = c.approaches
        && match (steps.first(), steps.last()) {
            (Some(Some((rf, hf, _))), Some(Some((rn, hn, _)))) if steps.len() >= 2 => {
                rf - rn > (hf * hf + hn * hn).sqrt()
            }
            _ => false,
        };
    // A claim that the metric does not tend to the limit is held the other
    // way: its fastest step decides (every step must be too slow).
    let slowest = if steps.iter().all(Option::is_some) {
        let steps = steps.into_iter().flatten();
        if c.approaches {
            steps.min_by(|a, b| a.0.total_cmp(&b.0))
        } else {
            steps.max_by(|a, b| a.0.total_cmp(&b.0))
        }
    } else {
        // A step with a gap indistinguishable from 0: the ends, as before
        // the gap vanished.
        rate_on(first, near)
    };
    let step_rate = slowest.map(|(r, h, _)| (r, h));
    let step = slowest.map(|(_, _, s)| s);
    let too_slow = match (c.min_rate, step_rate) {
        (Some(min), Some((rate, hw))) => rate + hw < min,
        _ => false,
    };
    let fast = match (c.min_rate, step_rate) {
        (Some(min), Some((rate, hw))) => {
            (c.rate_decides || !c.approaches) && rate - hw > min && !slows
        }
        _ => false,
    };
    // The same decision on the steps' bounds: a limit approached needs
    // every step fast enough (its slowest decides) and fails on one too
    // slow; a limit not approached, the other way round.
    let bounds: Option<Vec<(f64, f64)>> =
        gaps.windows(2).map(|w| step_bounds(&w[0], &w[1])).collect();
    let bounded_fast = |min: f64| {
        bounds.as_ref().is_some_and(|b| {
            if c.approaches {
                b.iter().all(|&(lo, _)| lo > min)
            } else {
                b.iter().any(|&(lo, _)| lo > min)
            }
        })
    };
    let bounded_slow = |min: f64| {
        bounds.as_ref().is_some_and(|b| {
            if c.approaches {
                b.iter().any(|&(_, hi)| hi < min)
            } else {
                b.iter().all(|&(_, hi)| hi < min)
            }
        })
    };
    let verdict = if !stable || !near.hw.is_finite() || gaps.len() < 2 {
        Verdict::Inconclusive
    } else if within && last_step != 1 {
        Verdict::Confirmed
    } else if outside && (away || too_slow) {
        Verdict::Refuted
    } else if !within && fast && last_step != 1 {
        // Read through its rate wherever the tolerance does not confirm
        // it: a nearest point that straddles the tolerance's edge is no
        // reason to ignore a rate that decides.
        Verdict::Confirmed
    } else {
        Verdict::Inconclusive
    };
    let bounded = match (verdict, c.min_rate) {
        (Verdict::Confirmed, Some(min)) if !within => bounded_fast(min),
        (Verdict::Refuted, Some(min)) if !away => bounded_slow(min),
        _ => false,
    };
    let step_bounds = step.and_then(|(x0, x1)| {
        gaps.windows(2)
            .find(|w| w[0].x == x0 && w[1].x == x1)
            .or_else(|| (first.x == x0 && near.x == x1).then_some(gaps))
            .and_then(|w| step_bounds(&w[0], &w[w.len() - 1]))
    });
    Judgement {
        verdict,
        within,
        outside,
        last_step,
        step_rate,
        step,
        slows,
        bounded,
        step_bounds,
    }
}

/// The note of a limit check: the gaps along the tail, the rate of approach
/// (least squares of ln|gap| on ln x over the points whose gap is
/// significantly non-zero; and on the step that decides), and where by
/// extrapolation the gap comes within the tolerance; with the deciding
/// rate as the note gives it.
fn limit_note(
    c: &Limit,
    gaps: &[Gap],
    near: &Gap,
    along: &str,
    to_zero: bool,
    stable: bool,
    j: &Judgement,
) -> (String, Option<RateRead>) {
    let mut read = None;
    // Rate of approach: least squares of ln|gap| on ln x over the points
    // whose gap is significantly non-zero.
    let pts: Vec<(f64, f64)> = gaps
        .iter()
        .filter(|g| nonzero(g) && g.gap != 0.0 && g.x > 0.0)
        .map(|g| (g.x.ln(), g.gap.abs().ln()))
        .collect();
    let rate = (pts.len() >= 2).then(|| {
        let n = pts.len() as f64;
        let (mx, my) = (
            pts.iter().map(|p| p.0).sum::<f64>() / n,
            pts.iter().map(|p| p.1).sum::<f64>() / n,
        );
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let b = sxy / sxx;
        (b, my - b * mx)
    });
    let trail = gaps
        .iter()
        .map(|g| {
            // An asymmetric interval (a proportion's) as its ends.
            if asymmetric(g) {
                format!("{} [{}, {}]", num(g.gap, 3), num(g.lo, 2), num(g.hi, 2))
            } else {
                format!("{} ± {}", num(g.gap, 3), num(g.hw, 2))
            }
        })
        .collect::<Vec<_>>()
        .join(" → ");
    let xs = gaps
        .iter()
        .map(|g| sig5(g.x))
        .collect::<Vec<_>>()
        .join(", ");
    let mut note = format!("gap (metric − reference) {trail} at {along} = {xs}");
    if let Some((b, a)) = rate {
        // ln|gap| = a + b ln x; approaching when it shrinks toward the limit.
        let r = if to_zero { b } else { -b };
        note += &format!(
            "; |gap| ∝ {along}^{{{}}}",
            num(if to_zero { r } else { -r }, 2)
        );
        if let Some((er, eh)) = j.step_rate {
            let rr = RateRead {
                rate: format!("{} ± {}", num(er, 2), num(eh, 2)),
                step: j
                    .step
                    .filter(|_| gaps.len() > 2)
                    .map(|(a, b)| format!("{along} {} → {}", sig5(a), sig5(b))),
                fastest: !c.approaches,
                slows: j.slows,
                bounded: j.bounded,
                against: c.min_rate.map(|m| {
                    format!(
                        "{}{}",
                        sig5(m),
                        match &c.rate_from {
                            Some(s) if s.ours() => ", ours",
                            Some(_) => ", the paper's",
                            None => "",
                        }
                    )
                }),
            };
            let on = match &rr.step {
                Some(step) => format!(
                    "on its {} step, {step},",
                    if rr.fastest { "fastest" } else { "slowest" }
                ),
                None => "between the ends".to_string(),
            };
            let bounds = j
                .step_bounds
                .map(|(lo, hi)| {
                    format!(
                        "; between {} and {} wherever its two gaps' intervals cover",
                        num(lo, 2),
                        num(hi, 2)
                    )
                })
                .unwrap_or_default();
            note += &format!(
                " ({on} {}{bounds}{})",
                rr.rate,
                rr.against
                    .as_ref()
                    .map(|a| format!(", against the slowest counted {a}"))
                    .unwrap_or_default()
            );
            read = Some(rr);
        }
        let x_star = ((near.tol.ln() - a) / b).exp();
        let beyond = if to_zero {
            x_star < near.x
        } else {
            x_star > near.x
        };
        if r > 0.0 && near.tol > 0.0 && !j.within && beyond && x_star.is_finite() {
            note += &format!(
                "; within the tolerance by extrapolation at {along} ≈ {}",
                num(x_star, 2)
            );
        } else if r <= 0.0 {
            note += " (not approaching)";
        }
    }
    if gaps.len() < 2 {
        note = format!("one point read (`where` leaves no other): a limit needs two; {note}");
    } else if !stable {
        note = format!("unstable: no steady state to compare; {note}");
    } else if j.verdict == Verdict::Inconclusive && j.slows {
        note = format!(
            "slowing toward the limit (its nearest step closes significantly slower than its \
             farthest): a limit beside the reference is not excluded; {note}"
        );
    } else if j.verdict == Verdict::Inconclusive && j.outside && j.last_step == -1 {
        note = format!("still approaching; {note}");
    }
    (note, read)
}
