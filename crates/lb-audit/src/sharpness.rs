//! How sharply a claim was tested: the margin of a decided
//! verdict — how far its threshold could move before it flipped, in the
//! metric's unit, in half-widths and relative to the threshold — whether a
//! confirmation tests its statement at all, and, for an inconclusive claim,
//! what would decide it.

use super::check::{PointCheck, Verdict};
use super::words::{num, sig5};
use lb_manifest::claim::{Check as ClaimCheck, Side};

/// A bound this many times the measurement (or under its reciprocal) at
/// every point read is loose: about two thirds of a decade, where a
/// confirmation says nothing a cruder bound would not. The rule is
/// symmetric in bound and measurement, so it applies to ≤ and ≥ alike; a
/// measurement of 0, or of the other sign, is loose by any factor.
pub(crate) const LOOSE_BOUND: f64 = 4.0;

/// Why a confirmed claim holds without testing its statement, or None when
/// it tests it: its metric is identically 0 at every point read (nothing
/// varies for a threshold to catch), or — a bound other than 0 — the bound
/// is loose by more than [`LOOSE_BOUND`] at every point read. A bound of 0
/// is a claim on a sign (a growth rate above 0 with confidence), which a
/// ratio does not measure; a stability claim counts replications, and 0
/// unstable of n is what it claims.
pub(crate) fn untested(claim: &ClaimCheck, checks: &[PointCheck]) -> Option<String> {
    if checks.is_empty() || matches!(claim, ClaimCheck::Stability(_)) {
        return None;
    }
    let zero = |k: &PointCheck| k.measured == 0.0 && k.half_width.is_none_or(|h| h == 0.0);
    if let ClaimCheck::Bound(b) = claim {
        // The metric's mean from the margin: bound − margin (≤), bound +
        // margin (≥).
        let metric = |k: &PointCheck| {
            let bound = k.reference?;
            Some(match b.side {
                Side::Le => bound - k.measured,
                Side::Ge => bound + k.measured,
            })
        };
        let ratio = |k: &PointCheck| -> Option<f64> {
            let (x, bound) = (metric(k)?, k.reference?);
            if bound == 0.0 {
                return None;
            }
            Some(if x == 0.0 || x.signum() != bound.signum() {
                f64::INFINITY
            } else {
                (bound / x).abs().max((x / bound).abs())
            })
        };
        let ratios: Option<Vec<f64>> = checks.iter().map(ratio).collect();
        if let Some(rs) = ratios
            && rs.iter().all(|r| *r > LOOSE_BOUND)
        {
            let zeros = checks
                .iter()
                .filter(|k| metric(k).is_some_and(|x| x == 0.0))
                .count();
            let tightest = rs.iter().copied().fold(f64::INFINITY, f64::min);
            let n = checks.len();
            return Some(if zeros == n {
                format!("the metric is identically 0 at all {n} points read: no bound is tested")
            } else if tightest.is_infinite() {
                format!(
                    "the metric is 0 or of the other sign from the bound at every point read \
                     ({zeros} of {n} exactly 0)"
                )
            } else {
                format!(
                    "the bound is loose by at least {}× at every point read ({zeros} of {n} \
                     exactly 0): a bound {}× tighter would pass too",
                    num(tightest, 2),
                    num(tightest / LOOSE_BOUND, 2)
                )
            });
        }
    }
    if checks.iter().all(zero) {
        return Some(format!(
            "the measurement is identically 0 at all {} points read: nothing varies for a \
             threshold to catch",
            checks.len()
        ));
    }
    None
}

/// The margin of the deciding check of a decided claim, in words: "0.12
/// (5.2 half-widths; 3.1% of the bound)".
pub(crate) fn margin_words(k: &PointCheck, verdict: Verdict) -> Option<String> {
    if verdict == Verdict::Inconclusive {
        return None;
    }
    let d = k.decision?;
    let m = d.margin()?;
    let h = d.half_width();
    let hw = if h > 0.0 && h.is_finite() {
        format!("{} half-widths", num(m / h, 2))
    } else {
        "no spread: the half-width is 0".into()
    };
    let scale = d.scale();
    let rel = if scale != 0.0 && scale.is_finite() {
        format!(
            "; {}% of {}",
            num(100.0 * m / scale.abs(), 2),
            sig5(scale.abs())
        )
    } else {
        String::new()
    };
    // A limit decided by its rate: the margin is the rate's.
    let of = if k.by_rate() {
        " in the rate of approach"
    } else {
        ""
    };
    Some(format!("{}{of} ({hw}{rel})", num(m, 3)))
}

/// What would decide an inconclusive check, in words: runs long enough to
/// settle; the replications at which the half-width falls below the
/// distance from the estimate to the nearest deciding edge (half-widths
/// shrink as 1/√n; the Student-t quantile shrinks too, so this is a
/// slight overestimate); or why neither would.
pub(crate) fn to_decide(k: &PointCheck) -> String {
    if let Some(why) = &k.unsettled {
        return match k.longer {
            Some(f) => format!(
                "runs at least {}× as long, so that its replications settle ({why})",
                num(f.ceil(), 2)
            ),
            None => format!("runs long enough to settle ({why})"),
        };
    }
    let Some(d) = k.decision else {
        return match &k.note {
            Some(n) => format!("nothing the audit can compute from the records: {n}"),
            None => "nothing the audit can compute from the records".into(),
        };
    };
    if d.verdict() != Verdict::Inconclusive {
        // The interval alone is decided, but the kind's rule asks more: a
        // limit is decided on the approach.
        return format!(
            "points nearer the limit, or a `min_rate` the approach must beat: the nearest \
             point's interval is {} the tolerance, but a limit is refuted only by a gap that \
             grows or closes too slowly ({})",
            if d.verdict() == Verdict::Refuted {
                "outside"
            } else {
                "inside"
            },
            k.note.as_deref().unwrap_or("no note")
        );
    }
    let n = k.replications.max(2) as f64;
    match d.distance_to_decide() {
        Some(dist) => {
            let h = d.half_width();
            if !h.is_finite() {
                return "an interval: at least 2 replications".into();
            }
            let need = (n * (h / dist).powi(2)).ceil().max(n + 1.0);
            format!(
                "about {} replications (now {}) at the measured effect: the half-width must \
                 fall from {} to below {}",
                need as u64,
                k.replications,
                num(h, 2),
                num(dist, 2)
            )
        }
        None => "the estimate sits on the threshold: more replications narrow the interval \
                 but cannot decide at this effect size; an equivalence margin would say \
                 whether the difference matters"
            .into(),
    }
}
