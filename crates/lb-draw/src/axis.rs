//! The axes of a figure: range, scale, ticks and their labels — log axes
//! labelled at 1, 2, 5 × 10ᵏ, integer axes at integers, no label with
//! decimals its step does not need — thinned until the labels do not
//! collide.

use crate::ticks;

/// An axis: its range, scale and ticks.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// The axis's lowest value.
    pub lo: f64,
    /// Its highest.
    pub hi: f64,
    /// Whether it is logarithmic.
    pub log: bool,
    /// (value, label) of labelled ticks.
    pub ticks: Vec<(f64, String)>,
    /// Unlabelled minor ticks (log axes: 2…9 × 10ᵏ).
    pub minor: Vec<f64>,
}

impl Axis {
    fn t(&self, v: f64) -> f64 {
        if self.log { v.log10() } else { v }
    }
    /// The fraction of the way from lo to hi.
    pub fn frac(&self, v: f64) -> f64 {
        (self.t(v) - self.t(self.lo)) / (self.t(self.hi) - self.t(self.lo))
    }
    /// Whether `v` lies on the axis.
    pub fn contains(&self, v: f64) -> bool {
        (!self.log || v > 0.0) && v >= self.lo && v <= self.hi
    }
}

fn in_range(axis_log: bool, v: f64) -> bool {
    v.is_finite() && (!axis_log || v > 0.0)
}

/// The range and ticks of an axis over `vals`; `integer`: integer ticks;
/// `unit`: the values are fractions in [0, 1]; `pad`: the margin as a
/// fraction of the span (linear) or a factor (log).
pub fn axis(vals: &[f64], log: bool, integer: bool, unit: bool, pad: f64) -> Axis {
    let vals: Vec<f64> = vals.iter().copied().filter(|v| in_range(log, *v)).collect();
    let (mut lo, mut hi) = vals
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(*v), b.max(*v))
        });
    if !lo.is_finite() {
        (lo, hi) = if log { (0.1, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        if hi / lo < 1.0001 {
            lo /= 2.0;
            hi *= 2.0;
        }
        let (dlo, dhi) = (lo, hi);
        lo = dlo / (1.0 + pad);
        hi = dhi * (1.0 + pad);
        if ticks::log_ticks(lo, hi, 12, integer).len() < 3 {
            lo = ticks::log_125_around(dlo).0.min(lo);
            hi = ticks::log_125_around(dhi).1.max(hi);
        }
        let major = ticks::log_ticks(lo, hi, 12, integer);
        let minor: Vec<f64> = (lo.log10().floor() as i32..=hi.log10().ceil() as i32)
            .flat_map(|k| (1..10).map(move |m| format!("{m}e{k}").parse::<f64>().expect("num")))
            .filter(|v| *v >= lo && *v <= hi && !major.contains(v))
            .collect();
        Axis {
            lo,
            hi,
            log,
            ticks: major
                .iter()
                .map(|v| (*v, ticks::format_tick(*v, None)))
                .collect(),
            minor,
        }
    } else {
        if hi - lo < 1e-12 {
            let d = if hi.abs() > 0.0 { hi.abs() * 0.1 } else { 1.0 };
            lo -= d;
            hi += d;
        }
        let span = hi - lo;
        let (dlo, dhi) = (lo, hi);
        lo -= pad * span;
        hi += pad * span;
        // Stop at 0 (or at 1 for a fraction) only where the data keep a
        // margin from it (3% of the axis, a marker's radius and more):
        // a point at 0 is not cut in half by the frame.
        if dlo >= 0.0 && lo < 0.0 && dlo >= 0.03 * hi {
            lo = 0.0;
        }
        if unit && dhi <= 1.0 && hi > 1.0 && 1.0 - dhi >= 0.03 * (1.0 - lo) {
            hi = 1.0;
        }
        let step = ticks::linear_step(lo, hi, 7, integer);
        Axis {
            lo,
            hi,
            log,
            ticks: linear_labels(lo, hi, step),
            minor: Vec::new(),
        }
    }
}

fn linear_labels(lo: f64, hi: f64, step: f64) -> Vec<(f64, String)> {
    let d = ticks::decimals(step);
    ticks::linear_ticks(lo, hi, step)
        .into_iter()
        .map(|v| (v, ticks::format_tick(v, Some(d))))
        .collect()
}

/// Drops labels until neighbours are at least `gap` pixels apart, given
/// each label's extent along the axis: coarser steps on a linear axis,
/// decades on a log axis.
pub fn thin_ticks(
    a: &mut Axis,
    length: f64,
    extent: impl Fn(&str) -> f64,
    gap: f64,
    integer: bool,
) {
    let fits = |a: &Axis| {
        a.ticks.windows(2).all(|w| {
            let d = (a.frac(w[1].0) - a.frac(w[0].0)).abs() * length;
            d >= (extent(&w[0].1) + extent(&w[1].1)) / 2.0 + gap
        })
    };
    let mut guard = 0;
    while !fits(a) && guard < 12 && a.ticks.len() > 2 {
        guard += 1;
        if a.log {
            let d = ticks::log_decades(a.lo, a.hi);
            let current: Vec<f64> = a.ticks.iter().map(|t| t.0).collect();
            let next: Vec<f64> = if current.iter().any(|v| !d.contains(v)) {
                d.into_iter().filter(|v| !integer || *v >= 1.0).collect()
            } else {
                current.into_iter().step_by(2).collect()
            };
            a.ticks = next
                .iter()
                .map(|v| (*v, ticks::format_tick(*v, None)))
                .collect();
        } else {
            let step = if a.ticks.len() >= 2 {
                a.ticks[1].0 - a.ticks[0].0
            } else {
                1.0
            };
            let step = ticks::coarser(step);
            a.ticks = linear_labels(a.lo, a.hi, step);
        }
    }
}
