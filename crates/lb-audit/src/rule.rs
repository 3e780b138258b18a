//! What a claim holds its points to, in words (the "Holds when" of the
//! audit page), one sentence per kind of claim.

use super::words::{lower_first, sig5, tolerance_words};
use lb_analysis::metric::Metric;
use lb_manifest::claim::{Check, Side, Toward};
use lb_manifest::outputs::Reference;

/// What a claim holds its points to, in words.
pub(super) fn rule(c: &Check, metric: Option<Metric>) -> String {
    let label = metric.map(|m| lower_first(m.label())).unwrap_or_default();
    let reference = |r: &Reference| match r {
        Reference::Number(x) => sig5(*x),
        Reference::Named(n) => format!("`{n}` computed at each point"),
    };
    match c {
        Check::Ordering(c) if c.equivalence > 0.0 => format!(
            "{label}: the paired difference {} − {} across replications (common random \
             numbers) is > {e} (its interval above it); within ± {e} it is no practical \
             difference",
            c.worse,
            c.better,
            e = sig5(c.equivalence)
        ),
        Check::Ordering(c) => format!(
            "{label}: the paired difference {} − {} across replications (common random \
             numbers) is > 0",
            c.worse, c.better
        ),
        Check::Value(c) => {
            let e = reference(&c.expected);
            match tolerance_words(&c.tolerance) {
                None => format!("{label} equals {e} (the interval covers it)"),
                Some(t) => format!("{label} equals {e} within {t} (the whole interval inside)"),
            }
        }
        Check::Bound(c) => format!(
            "{label} {} {} (the paired margin's interval on the claimed side)",
            match c.side {
                Side::Ge => "≥",
                Side::Le => "≤",
            },
            reference(&c.bound)
        ),
        Check::Trend(c) => format!(
            "{label} is {} in {}: the change between neighbouring points (other axes \
             fixed) has its interval on the claimed side at every pair",
            c.direction.word(),
            c.along
        ),
        Check::Limit(c) => {
            let (to, toward, within) = (
                reference(&c.expected),
                match c.toward {
                    Toward::Infinity => "∞",
                    Toward::Zero => "0",
                },
                tolerance_words(&c.tolerance)
                    .unwrap_or_else(|| "the interval of the gap (covering it)".into()),
            );
            if !c.approaches {
                return format!(
                    "{label} does not tend to {to} as {} → {toward}: at the point nearest the \
                     limit the interval lies outside {within}, and the gap closes slower than {} \
                     on every step of its tail (the fastest step's rate wholly below {}) or grows over the \
                     last {} points; it fails where the nearest point lies within it or the gap \
                     closes faster than that",
                    c.along,
                    c.min_rate.map(|r| rate_counted(c, r)).unwrap_or_default(),
                    c.min_rate.unwrap_or_default(),
                    c.last,
                );
            }
            format!(
                "{label} tends to {to} as {} → {toward}: at the point nearest the limit the \
                 interval lies within {within}, and the gap has not grown significantly over \
                 the last {} points{}",
                c.along,
                c.last,
                match (c.min_rate, c.rate_decides) {
                    (Some(r), true) => format!(
                        "; or, where it is not within it, the gap closes faster than {} on every step of \
                         the tail (the slowest step's rate wholly above {r}: a gap tending to a \
                         constant above 0 closes ever more slowly); it fails where the gap grows \
                         or closes slower than that",
                        rate_counted(c, r)
                    ),
                    (Some(r), false) => format!(
                        "; it fails where the gap grows, or closes slower than {} with \
                         confidence",
                        rate_counted(c, r)
                    ),
                    (None, _) => String::new(),
                }
            )
        }
        Check::Stability(c) => format!(
            "the point's replications read {} together: stable when no more of them are \
             flagged by the trend test than its {:.0}% false alarms allow, unstable when most \
             are and their ΣQ keeps growing at a steady rate through the run (the second half \
             at least {:.0}% of the first half's: divergence); a point still rising but slowing \
             has not relaxed and decides nothing",
            if c.stable { "stable" } else { "unstable" },
            100.0 * lb_core::stability::FALSE_ALARM,
            100.0 * lb_core::stability::GROWTH_KEPT,
        ),
    }
}

/// The slowest approach counted, as a power of the axis, with where that
/// rate comes from (`rate_from`).
fn rate_counted(c: &lb_manifest::claim::Limit, r: f64) -> String {
    match &c.rate_from {
        Some(s) => format!(
            "{} (the slowest rate counted, {})",
            rate_power(c, r),
            s.words()
        ),
        None => rate_power(c, r),
    }
}

/// The slowest approach of a limit claim as a power of its axis, in figure
/// markup (braces, so that `servers^{−0.5}` is one superscript): |gap| ∝ x^r
/// toward zero, x^−r toward infinity.
fn rate_power(c: &lb_manifest::claim::Limit, r: f64) -> String {
    let sign = match c.toward {
        Toward::Zero => "",
        Toward::Infinity => "−",
    };
    format!("{}^{{{sign}{r}}}", c.along)
}
