//! Control variates for value and bound claims: a metric estimated at one
//! point with the help of a control policy whose exact mean is known, paired
//! replication by replication (common random numbers), beside the direct
//! estimate.

use super::points::{point_stable, same_point, stats, values};
use super::words::{num, sig5};
use lb_analysis::metric::Metric;
use lb_analysis::results::PointResult;
use lb_manifest::claim::{Beta, Control};

/// A control-variate estimate of a metric at one point, beside the direct
/// one.
pub(super) struct ControlEstimate {
    control: String,
    mean_name: String,
    exact: f64,
    pub(super) estimate: f64,
    pub(super) half_width: f64,
    beta: f64,
    fitted: bool,
    direct: (f64, f64),
    /// The β = 1 form's half-width, when β is fitted (and the fitted
    /// form's when β = 1): both widths, stated.
    other_half_width: Option<f64>,
    pairs: usize,
}

impl ControlEstimate {
    pub(super) fn describe(&self, m: Metric) -> String {
        let ratio = self.direct.1 / self.half_width;
        format!(
            "control variate {} ({} = {}, β {} {}): {} = {} ± {} on {} pairs, against {} ± {} \
             directly (interval {}){}",
            self.control,
            self.mean_name,
            sig5(self.exact),
            if self.fitted { "fitted" } else { "=" },
            num(self.beta, 3),
            m.name(),
            num(self.estimate, 4),
            num(self.half_width, 2),
            self.pairs,
            num(self.direct.0, 4),
            num(self.direct.1, 2),
            if ratio >= 1.0 {
                format!("{}× narrower", num(ratio, 2))
            } else {
                format!("{}× wider", num(1.0 / ratio, 2))
            },
            self.other_half_width
                .map(|h| format!(
                    "; with β {}: ± {}",
                    if self.fitted { "= 1" } else { "fitted" },
                    num(h, 2)
                ))
                .unwrap_or_default()
        )
    }
}

/// The control variate `k` for the metric `m` at the point `r` (values
/// `vals` by replication): the control policy's point at the same axis
/// values, its replications paired by index (common random numbers), its
/// exact mean. Err (in words) when it cannot be used here: no control point
/// or replications, or a control that has not settled (its exact mean is a
/// steady-state mean: an unsettled control would bias the estimate).
pub(super) fn control_estimate(
    k: &Control,
    m: Metric,
    r: &PointResult,
    vals: &[(u64, f64)],
    results: &[PointResult],
    level: f64,
) -> Result<ControlEstimate, String> {
    let system = |w: &PointResult| w.point.as_ref().map(|p| p.seeds().system);
    let partner = system(r).and_then(|sys| {
        k.partner(
            results.iter().filter(|w| same_point(w, r)),
            |w| &w.label,
            |w| w.point.as_ref(),
            sys,
        )
    });
    let Some(w) = partner else {
        return Err(format!(
            "control {}: no point here; direct estimate",
            k.policy
        ));
    };
    let Some(wp) = &w.point else {
        return Err(format!(
            "control {}: not computed; direct estimate",
            k.policy
        ));
    };
    if system(w) != system(r) {
        return Err(format!(
            "control {} runs on another system (other arrivals and service); direct estimate",
            w.label
        ));
    }
    if !point_stable(w) {
        return Err(format!(
            "control {} has not settled here (its exact mean is a steady state's); direct \
             estimate",
            w.label
        ));
    }
    let exact = wp
        .config
        .exact_mean(m.name(), &k.mean)
        .map_err(|e| format!("control {}: {e}; direct estimate", k.policy))?;
    let ys = values(m, wp, &w.summaries);
    let (xs, ys): (Vec<f64>, Vec<f64>) = vals
        .iter()
        .filter_map(|(rep, x)| ys.iter().find(|(ry, _)| ry == rep).map(|(_, y)| (*x, *y)))
        .unzip();
    let fitted = k.beta == Beta::Fitted;
    let first = r.first_stage;
    let est = lb_analysis::stats::control_variate_of(&xs, &ys, exact, first, level, fitted)
        .ok_or_else(|| {
            format!(
                "control {}: {} paired replications are too few; direct estimate",
                k.policy,
                xs.len()
            )
        })?;
    let other =
        lb_analysis::stats::control_variate_of(&xs, &ys, exact, first, level, !fitted).map(|e| e.1);
    let direct = stats(&xs, r.first_stage, level);
    Ok(ControlEstimate {
        control: w.label.clone(),
        mean_name: k.mean.clone(),
        exact,
        estimate: est.0,
        half_width: est.1,
        beta: est.2,
        fitted,
        direct: (direct.0, direct.1.unwrap_or(f64::INFINITY)),
        other_half_width: other,
        pairs: xs.len(),
    })
}
