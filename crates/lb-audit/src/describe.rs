//! One check in words, every number labelled (the deciding point of a claim
//! in the summaries and on the audit page).

use super::check::{ClaimResult, PointCheck, Verdict};
use super::words::{lower_first, num, sig5};
use lb_manifest::claim::ClaimKind;

/// "mean ± half-width", or the value alone.
pub fn measured(c: &PointCheck) -> String {
    // An unsettled point's mean decides nothing, and is not shown as if it did.
    if c.unsettled.is_some() {
        return "— (not settled)".into();
    }
    if c.measured.is_nan() {
        return "—".into();
    }
    match c.half_width {
        Some(h) => format!("{} ± {}", num(c.measured, 4), num(h, 2)),
        None => num(c.measured, 4),
    }
}

/// "mean ± half-width (99.9%)": the interval with its own level, for text
/// read away from the claim's section (summaries, the report).
pub(super) fn measured_at(level: f64, c: &PointCheck) -> String {
    match c.half_width {
        Some(_) if !c.measured.is_nan() && c.unsettled.is_none() => {
            format!("{} ({})", measured(c), percent(level))
        }
        _ => measured(c),
    }
}

/// A confidence level in percent: "95%", "99.9%".
/// A level spent over several looks (`lb decide`) is rounded to
/// hundredths of a percent: "99.81%".
pub fn percent(level: f64) -> String {
    let p = (1e4 * level).round() / 100.0;
    format!("{}%", lb_draw::ticks::format_tick(p, None))
}

/// The number of unstable replications of a stability check.
pub fn unstable_count(k: &PointCheck) -> usize {
    (k.measured * k.replications as f64).round() as usize
}

/// A check's axis values as a reader reads them: "load = 0.9, count_own = true".
pub(super) fn at_words(k: &PointCheck) -> String {
    lb_manifest::plan::axes_words(k.axes.iter().map(|(a, v)| (a.as_str(), v.as_str())))
}

/// A limit's deciding rate in words: "; its gap closes at rate 0.94 ±
/// 0.013 on its slowest step (epsilon_frac 0.002 → 0.001)", or "between
/// the ends" on a tail of two points (empty for any other check).
pub fn rate_of(k: &PointCheck) -> String {
    let Some(rr) = &k.rate else {
        return String::new();
    };
    let r = &rr.rate;
    match &rr.step {
        Some(step) if rr.fastest && k.verdict == Verdict::Confirmed => format!(
            "; its gap closes at rate {r} on its fastest step ({step}), too slow on every step \
             to reach the limit"
        ),
        Some(step) if rr.slows && k.verdict == Verdict::Inconclusive => format!(
            "; its gap closes at rate {r} on its slowest step ({step}), but slowing toward the \
             limit (its nearest step significantly slower than its farthest, as a gap to a \
             limit beside the reference would close), so the rate does not decide it"
        ),
        Some(step) => format!(
            "; its gap closes at rate {r} on its {} step ({step})",
            if rr.fastest { "fastest" } else { "slowest" }
        ),
        None => format!("; its gap closes at rate {r} between the ends"),
    }
}

/// The deciding point in words, with its rate where the rate decided it
/// (a limit outside its tolerance whose gap closes fast enough), and the
/// slowest rate counted.
pub(crate) fn deciding_words(c: &ClaimResult, k: &PointCheck) -> String {
    let d = describe(c, k);
    if k.by_rate() {
        let against = k
            .rate
            .as_ref()
            .and_then(|r| r.against.as_ref())
            .map(|a| format!(", against the slowest rate counted ({a})"))
            .unwrap_or_default();
        format!("{d}{}{against}, which decides it", rate_of(k))
    } else {
        d
    }
}

/// One check in words, every number labelled: what was measured, its
/// value and interval, where, and against what.
pub fn describe(c: &ClaimResult, k: &PointCheck) -> String {
    let label = c
        .metric_label
        .as_deref()
        .map(lower_first)
        .unwrap_or_default();
    let at = at_words(k);
    let at = if at.is_empty() {
        String::new()
    } else {
        format!(" at {at}")
    };
    match c.kind {
        ClaimKind::Ordering => format!(
            "{label}: {} = {}{at}{}",
            k.policy,
            measured_at(c.level, k),
            match (&k.note, k.measured.is_nan()) {
                (Some(n), true) => format!(" ({n})"),
                _ => String::new(),
            }
        ),
        ClaimKind::Value => format!(
            "{label} of {} = {}{at}; expected {}",
            k.policy,
            measured_at(c.level, k),
            k.threshold
                .trim_start_matches("= ")
                .trim_end_matches(" (interval must cover it)")
        ),
        // A metric 0 in every replication, under a bound above it: said as
        // such, not as a margin equal to the bound.
        ClaimKind::Bound
            if k.reference.is_some_and(|b| b > 0.0 && b == k.measured)
                && k.half_width.is_none_or(|h| h == 0.0) =>
        {
            format!(
                "{label} of {} = 0 in every replication{at}, against the bound {}",
                k.policy,
                k.reference.map(sig5).unwrap_or_default(),
            )
        }
        ClaimKind::Bound => format!(
            "{label} of {}: margin over the bound {} = {}{at}",
            k.policy,
            k.reference.map(sig5).unwrap_or_default(),
            measured_at(c.level, k)
        ),
        // A proportion's step is decided on its two intervals, not on an
        // interval of the change: they are given with it.
        ClaimKind::Trend => format!(
            "{label} of {}: change {}{at}{}",
            k.policy,
            measured_at(c.level, k),
            match (&k.half_width, &k.note) {
                (None, Some(n)) if n.contains(" → ") => format!(" ({n})"),
                _ => String::new(),
            }
        ),
        ClaimKind::Limit => format!(
            "{label} of {} = {}{at}; limit {}",
            k.policy,
            measured_at(c.level, k),
            k.reference.map(sig5).unwrap_or_default()
        ),
        ClaimKind::Stability => format!(
            "{}: {} of {} replications unstable{at}",
            k.policy,
            unstable_count(k),
            k.replications
        ),
    }
}

/// A check in a few words: its quantity and interval ("JSQ − Random =
/// 3.2 ± 0.4"), or its note where no interval decides it.
pub(super) fn short(k: &PointCheck) -> String {
    if k.measured.is_nan() {
        return k.note.clone().unwrap_or_else(|| k.verdict.word().into());
    }
    format!("{} = {}", k.policy, measured(k))
}
