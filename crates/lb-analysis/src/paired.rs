//! A point read with its precision rule's control variate (Lavenberg and
//! Welch): the control point runs on the same arrivals and service
//! (common random numbers), its mean is exact, and the point's estimate is
//! mean(Y) − β̂(mean(C) − E\[C\]) with β̂ fitted by least squares
//! ([`crate::stats::control_variate`]; Stein's form of it,
//! [`lb_model::precision::stein_control_variate`], under Stein's rule). Where the rule chose the number of
//! replications on that estimate's variance, the table, the figures and
//! the quotes print it, so that what is printed is what met the target.

use crate::metric::Metric;
use crate::results::PointResult;
use crate::stats::{Estimate, IntervalKind, LEVEL, control_variate_of};

/// A metric at one point, read with its control.
#[derive(Debug, Clone)]
pub struct Controlled {
    /// The control-variate estimate and its 95% interval.
    pub estimate: Estimate,
    /// The fitted coefficient.
    pub beta: f64,
    /// The control point's label.
    pub control: String,
    /// The pairs (y, c) it rests on, by replication.
    pub pairs: Vec<(f64, f64)>,
}

/// The control-variate estimate of `m` at `r`, where `r`'s precision rule
/// pairs it with a control ([`PointResult::control`]) that has an exact
/// mean of `m` (a real steady-state metric), on at least 4 pairs whose
/// control runs are mostly stable; None elsewhere (the direct estimate
/// stands).
pub fn controlled(m: Metric, r: &PointResult) -> Option<Controlled> {
    let c = r.control.as_ref()?;
    let point = r.point.as_ref()?;
    if m.kind() != lb_model::MetricKind::Real || m.transient() {
        return None;
    }
    let exact = c.point.config.exact_mean(m.name(), &c.mean).ok()?;
    let mut pairs = Vec::new();
    let mut paired = Vec::new();
    for s in &r.summaries {
        let Some(y) = m.value(point, s) else { continue };
        let Some(cs) = c
            .summaries
            .iter()
            .find(|cs| cs.replication() == s.replication())
        else {
            continue;
        };
        let Some(x) = m.value(&c.point, cs) else {
            continue;
        };
        pairs.push((y, x));
        paired.push(cs.clone());
    }
    // An unstable control describes no steady state to pair against.
    if pairs.len() < 4 || crate::results::point_unstable(&paired) {
        return None;
    }
    let (ys, cs): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
    // Stein's form where the rule's first stage chose n.
    let (mean, hw, beta) = control_variate_of(&ys, &cs, exact, r.first_stage, LEVEL, true)?;
    hw.is_finite().then(|| Controlled {
        estimate: Estimate {
            mean,
            lo: Some(mean - hw),
            hi: Some(mean + hw),
            kind: IntervalKind::ControlVariate,
            n: pairs.len(),
            events: None,
        },
        beta,
        control: c.label.clone(),
        pairs,
    })
}
