//! Quotes of measured values in a manifest's prose, expanded from the
//! records ([`lb_manifest::prose`] has the syntax). A number in a caption or a
//! claim's `why` is then the records' number, never a typed copy that goes
//! stale, and every quote names the records it read (`quotes.csv`).

use crate::figure::point_estimate;
use crate::metric::Metric;
use crate::results::{PointResult, point_unstable};
use crate::stats::{Estimate, IntervalKind};
use crate::table::fmt_sig;
use lb_manifest::outputs::where_matches;
use lb_manifest::prose::{Form, Piece, Quote, parse};
use lb_model::settle::Settling;

/// One quote expanded: what was written, what it printed, and the keys of
/// the records behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// The quote as written.
    pub quote: String,
    /// What it printed.
    pub value: String,
    /// The keys of the records it read.
    pub keys: Vec<String>,
}

/// `text` with every quote replaced by its value, and the traces. Text
/// that does not parse (validation refuses it first) is returned as is.
pub fn expand(text: &str, results: &[PointResult]) -> (String, Vec<Trace>) {
    let Ok(pieces) = parse(text) else {
        return (text.to_string(), Vec::new());
    };
    let mut out = String::with_capacity(text.len());
    let mut traces = Vec::new();
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(&t),
            Piece::Quote(q) => {
                let t = quote(&q, results);
                out.push_str(&t.value);
                traces.push(t);
            }
        }
    }
    (out, traces)
}

/// `text` with every quote replaced by its value.
pub fn expanded(text: &str, results: &[PointResult]) -> String {
    expand(text, results).0
}

fn quote(q: &Quote, results: &[PointResult]) -> Trace {
    let chosen: Vec<&PointResult> = results
        .iter()
        .filter(|r| r.label == q.policy && where_matches(&q.filter, |a| r.axis(a)))
        .collect();
    let keys = chosen
        .iter()
        .filter_map(|r| r.key.as_ref().map(|k| k.hex()))
        .collect();
    Trace {
        quote: q.text.clone(),
        value: value(q, &chosen),
        keys,
    }
}

/// What a quote prints of the points it selects.
fn value(q: &Quote, chosen: &[&PointResult]) -> String {
    if chosen.is_empty() {
        return "— (not in this run)".into();
    }
    if q.form.single() && chosen.len() > 1 {
        // Validation refuses this on the full plan.
        return format!("— ({} points match)", chosen.len());
    }
    let model = chosen
        .iter()
        .find_map(|r| r.point.as_ref().map(|p| p.model))
        .unwrap_or(lb_model::model::Model::Slotted);
    let metric = if q.metric == lb_manifest::prose::CPU {
        None
    } else {
        match Metric::parse(model, &q.metric) {
            Some(m) => Some(m),
            None => return format!("— (no metric `{}`)", q.metric),
        }
    };
    if q.form == Form::Range {
        return range(metric, chosen);
    }
    let r = chosen[0];
    if r.point.is_none() || r.summaries.is_empty() {
        return "— (not computed)".into();
    }
    let of_n = |k: usize| format!("{k} of {}", r.summaries.len());
    match q.form {
        Form::Replications => return r.summaries.len().to_string(),
        Form::Unstable => return of_n(r.summaries.iter().filter(|s| !s.stable()).count()),
        Form::Zeros => {
            let Some(m) = metric else {
                return "— (no zeros of cpu)".into();
            };
            let point = r.point.as_ref().expect("checked above");
            let zeros = r
                .summaries
                .iter()
                .filter(|s| m.value(point, s) == Some(0.0))
                .count();
            return of_n(zeros);
        }
        _ => {}
    }
    if point_unstable(&r.summaries) {
        let bad = r.summaries.iter().filter(|s| !s.stable()).count();
        return format!("unstable ({bad} of {} replications)", r.summaries.len());
    }
    let Some(e) = estimate_of(metric, r) else {
        return "— (no value)".into();
    };
    let shown = match q.form {
        Form::Ci => ci(&e),
        Form::Mean => mean(&e),
        Form::HalfWidth => match e.half_width() {
            Some(h) => fmt_sig(h, 2),
            None => "— (no half-width)".into(),
        },
        Form::Relative => match e.half_width() {
            Some(h) if e.mean != 0.0 => format!("±{}%", fmt_sig(100.0 * h / e.mean.abs(), 2)),
            _ => "— (no relative half-width)".into(),
        },
        Form::Range | Form::Replications | Form::Unstable | Form::Zeros => {
            unreachable!("handled above")
        }
    };
    if metric.is_none() {
        return shown; // the cost of a run, settled or not
    }
    format!("{shown}{}", unsettled(r))
}

/// The estimate of `metric` at `r`; `None` for the seconds a replication
/// took to compute (`cpu`).
fn estimate_of(metric: Option<Metric>, r: &PointResult) -> Option<Estimate> {
    match metric {
        Some(m) => point_estimate(m, r.point.as_ref()?, r),
        None => crate::stats::estimate(
            lb_model::MetricKind::Real,
            &r.seconds,
            None,
            None,
            crate::stats::LEVEL,
        ),
    }
}

/// " (not settled: …)" for a point whose runs have not settled.
fn unsettled(r: &PointResult) -> String {
    let s = Settling::of(&r.summaries);
    if s.settled() {
        return String::new();
    }
    let f = s.longer().unwrap_or(2.0).ceil();
    if s.rising() {
        format!(
            " (not settled: ΣQ still rising, but slowing: a run that has not relaxed, not \
             divergence; runs at least {f}× as long are needed to settle it or show it \
             diverging)"
        )
    } else {
        format!(" (not settled: runs at least {f}× as long are needed to settle it)")
    }
}

/// The decimals that show a half-width to two significant digits.
fn decimals(h: f64) -> usize {
    if h > 0.0 && h.is_finite() {
        (1 - h.log10().floor() as i32).max(0) as usize
    } else {
        0
    }
}

/// The estimate alone: to the half-width's precision when there is one.
fn mean(e: &Estimate) -> String {
    match e.half_width() {
        Some(h) if h > 0.0 && h.abs() >= 1e-4 => format!("{:.*}", decimals(h), e.mean),
        _ => fmt_sig(e.mean, 3),
    }
}

/// The estimate with its interval, as the tables print it.
fn ci(e: &Estimate) -> String {
    match (e.kind, e.half_width(), e.lo, e.hi) {
        (
            IntervalKind::StudentT | IntervalKind::Stein | IntervalKind::ControlVariate,
            Some(h),
            _,
            _,
        ) if h >= 1e-4 => {
            format!("{} ± {:.*}", mean(e), decimals(h), h)
        }
        (
            IntervalKind::StudentT | IntervalKind::Stein | IntervalKind::ControlVariate,
            Some(h),
            _,
            _,
        ) => {
            format!("{} ± {}", fmt_sig(e.mean, 3), fmt_sig(h, 2))
        }
        (IntervalKind::UpperBound, _, _, Some(hi)) => format!("≤ {}", fmt_sig(hi, 2)),
        (_, _, Some(lo), Some(hi)) => format!(
            "{} [{}, {}]",
            fmt_sig(e.mean, 2),
            fmt_sig(lo, 2),
            fmt_sig(hi, 2)
        ),
        _ => fmt_sig(e.mean, 4),
    }
}

/// The lowest and highest estimate over the points, "lo–hi"; points that
/// are unstable or have not settled are left out and counted.
fn range(m: Option<Metric>, chosen: &[&PointResult]) -> String {
    let mut xs = Vec::new();
    let mut left_out = 0;
    for r in chosen {
        let est = estimate_of(m, r);
        match est {
            Some(e)
                if m.is_none()
                    || (!point_unstable(&r.summaries) && Settling::of(&r.summaries).settled()) =>
            {
                xs.push(e.mean)
            }
            _ => left_out += 1,
        }
    }
    let Some(lo) = xs.iter().copied().reduce(f64::min) else {
        return format!("— (none of {} points settled)", chosen.len());
    };
    let hi = xs.iter().copied().fold(lo, f64::max);
    let note = if left_out > 0 {
        format!(
            " ({left_out} of {} points left out: unstable or not settled)",
            chosen.len()
        )
    } else {
        String::new()
    };
    let sig = if m.is_none() { 2 } else { 3 };
    format!("{}–{}{note}", fmt_sig(lo, sig), fmt_sig(hi, sig))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est(mean: f64, h: f64) -> Estimate {
        Estimate {
            mean,
            lo: Some(mean - h),
            hi: Some(mean + h),
            kind: IntervalKind::StudentT,
            n: 5,
            events: None,
        }
    }

    #[test]
    fn intervals_print_to_the_half_widths_precision() {
        assert_eq!(ci(&est(1.19812, 0.0621)), "1.198 ± 0.062");
        assert_eq!(ci(&est(30.61, 2.4)), "30.6 ± 2.4");
        assert_eq!(ci(&est(1234.6, 56.0)), "1235 ± 56");
        assert_eq!(mean(&est(0.038151, 0.00065)), "0.03815");
        let w = Estimate {
            mean: 0.00078,
            lo: Some(0.00048),
            hi: Some(0.0013),
            kind: IntervalKind::Wilson,
            n: 5,
            events: Some((10, 12800)),
        };
        assert_eq!(ci(&w), "0.00078 [0.00048, 0.0013]");
    }

    #[test]
    fn a_quote_of_nothing_says_so() {
        let (text, traces) = expand("x = {{mean zeta_ratio of WR}}.", &[]);
        assert_eq!(text, "x = — (not in this run).");
        assert_eq!(traces.len(), 1);
        assert!(traces[0].keys.is_empty());
    }
}
