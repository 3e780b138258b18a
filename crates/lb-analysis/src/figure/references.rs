//! The references a figure draws (`[[figure.reference]]`, `zeta_line`):
//! a constant (a line across the plot, or a bar at its one `at` x), or a
//! named reference the model computes at each point shown, as one curve per
//! distinct curve among the series. Where the reference is a function of
//! the x axis that the model can evaluate between the points (the
//! many-server model's λ and N, the slotted model's load and ε/μ_Σ, a
//! network's load), the
//! curve is evaluated on a fine grid
//! ([`GRID`] values) rather than drawn as a kinked line through the points.

use super::spec::FigureSpec;
use crate::results::PointResult;
use lb_draw::ticks;
use lb_manifest::outputs::Reference;
use lb_manifest::{Point, PointConfig};

/// How many x values a reference curve is evaluated at, between its first
/// and last point, where the model can evaluate it there.
pub(crate) const GRID: usize = 160;

/// A reference as drawn: a constant (a horizontal line across the plot) or
/// curves of (x, value), one per distinct curve among the series.
#[derive(Debug, Clone, PartialEq)]
pub enum RefShape {
    /// A horizontal line at this value.
    Constant(f64),
    /// Curves of (x, value).
    Curves(Vec<Vec<(f64, f64)>>),
}

/// A reference of a figure, evaluated.
#[derive(Debug, Clone, PartialEq)]
pub struct RefDrawn {
    /// Its legend label.
    pub label: String,
    /// A relative band drawn about it (a claim's tolerance), if any.
    pub band: Option<f64>,
    /// What is drawn.
    pub shape: RefShape,
}

/// The value of named reference `name` at a point: the mean over the
/// replications present (a reference may run on a replication's own random
/// numbers, as `pooled` does).
fn named_reference(spec: &FigureSpec, name: &str, r: &PointResult) -> Option<f64> {
    let metric = spec.y.map_or("", |m| m.name());
    let reps: Vec<u64> = if r.summaries.is_empty() {
        vec![0]
    } else {
        r.summaries.iter().map(|s| s.replication()).collect()
    };
    let vals: Result<Vec<f64>, String> = reps
        .iter()
        .map(|&rep| r.reference(name, metric, rep))
        .collect();
    let vals = vals.ok()?;
    Some(vals.iter().sum::<f64>() / vals.len() as f64)
}

/// Every reference of the figure, evaluated at the points it shows.
pub fn references(spec: &FigureSpec, results: &[PointResult]) -> Vec<RefDrawn> {
    spec.references
        .iter()
        .map(|rc| {
            let label = rc.label.clone().unwrap_or_else(|| match &rc.value {
                Reference::Number(x) => ticks::format_tick(*x, None),
                Reference::Named(n) => n.clone(),
            });
            let shape = match &rc.value {
                Reference::Number(v) => match rc.at {
                    Some(x) => RefShape::Curves(vec![vec![(x, *v)]]),
                    None => RefShape::Constant(*v),
                },
                Reference::Named(n) => {
                    let mut per: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
                    let mut pts: Vec<(String, Vec<(f64, &Point)>)> = Vec::new();
                    for r in results {
                        if !spec.selects(r)
                            || !(rc.policies.is_empty() || rc.policies.contains(&r.label))
                        {
                            continue;
                        }
                        let Some(point) = &r.point else { continue };
                        let Some(x) = r.axis(&spec.x).and_then(|v| v.parse::<f64>().ok()) else {
                            continue;
                        };
                        let Some(v) = named_reference(spec, n, r) else {
                            continue;
                        };
                        let (name, _) = spec.series_of(r);
                        match per.iter_mut().find(|(s, _)| *s == name) {
                            Some((_, c)) => c.push((x, v)),
                            None => per.push((name.clone(), vec![(x, v)])),
                        }
                        match pts.iter_mut().find(|(s, _)| *s == name) {
                            Some((_, c)) => c.push((x, point)),
                            None => pts.push((name, vec![(x, point)])),
                        }
                    }
                    let metric = spec.y.map_or("", |m| m.name());
                    let mut curves: Vec<Vec<(f64, f64)>> = Vec::new();
                    for ((_, mut c), (_, mut at)) in per.into_iter().zip(pts) {
                        c.sort_by(|a, b| a.0.total_cmp(&b.0));
                        c.dedup_by(|a, b| a.0 == b.0);
                        at.sort_by(|a, b| a.0.total_cmp(&b.0));
                        at.dedup_by(|a, b| a.0 == b.0);
                        if let Some(fine) = fine_curve(n, metric, &spec.x, spec.log_x, &at, &c) {
                            c = fine;
                        }
                        if !curves.contains(&c) {
                            curves.push(c);
                        }
                    }
                    RefShape::Curves(curves)
                }
            };
            RefDrawn {
                label,
                band: rc.band,
                shape,
            }
        })
        .collect()
}

/// The configuration of the slotted model at value `x` of its `load` axis
/// (λ_Σ = x·μ_Σ) or `epsilon_frac` (λ_Σ = (1 − x)·μ_Σ): every dispatcher's
/// arrivals scaled alike, the servers kept.
fn slotted_at(
    c: &lb_core::slotted::SlottedConfig,
    axis: &str,
    x: f64,
) -> Option<lb_core::slotted::SlottedConfig> {
    let mu = c.system.mu_sum();
    let target = match axis {
        "load" => x * mu,
        "epsilon_frac" => (1.0 - x) * mu,
        _ => return None,
    };
    let now = c.system.lambda_sum();
    if !(now > 0.0 && target > 0.0) {
        return None;
    }
    let mut c = c.clone();
    for a in &mut c.system.arrivals {
        *a = a.with_mean(a.mean() * target / now).ok()?;
    }
    Some(c)
}

/// The configuration of the many-server model at value `x` of axis `axis`,
/// following the rule by which `c` (the configuration at `x0`) depends on
/// it: λ itself, or N with λ fixed or λ = 1 − N^(−α) (`alpha`).
fn many_at(
    c: &lb_core::many::ManyConfig,
    axis: &str,
    x: f64,
    alpha: Option<f64>,
) -> Option<lb_core::many::ManyConfig> {
    let mut c = c.clone();
    match axis {
        "lambda" => c.lambda = x,
        "servers" => {
            let n = x.round();
            if n.is_nan() || n < 1.0 {
                return None;
            }
            c.servers = n as usize;
            if let Some(a) = alpha {
                c.lambda = 1.0 - (n).powf(-a);
            }
        }
        _ => return None,
    }
    Some(c)
}

/// The named reference `name` as a value of `metric` on a fine grid of the
/// x axis between the curve's first and last point, where the model can
/// evaluate it between points: the many-server model along λ or N, the
/// slotted model along its load or ε/μ_Σ (the arrivals scaled, the servers
/// kept), a network along its load (every arrival rate scaled), by a rule that reproduces the reference at every point shown
/// (`at`, with their values `vals`). None: drawn through the points only.
fn fine_curve(
    name: &str,
    metric: &str,
    axis: &str,
    log_x: bool,
    at: &[(f64, &Point)],
    vals: &[(f64, f64)],
) -> Option<Vec<(f64, f64)>> {
    if at.len() < 2 || at.len() != vals.len() {
        return None;
    }
    let (x0, p0) = at[0];
    // A reference drawn per replication (the slotted model's `pooled`)
    // runs the model: not evaluated between points.
    if p0.model.per_replication(name) {
        return None;
    }
    let value = |c: PointConfig| {
        c.reference(name, metric, &|| p0.seeds(), 0)
            .ok()
            .filter(|v| v.is_finite())
    };
    // Whether a rule for the configuration at x reproduces every point shown.
    let reproduces = |f: &dyn Fn(f64) -> Option<PointConfig>| {
        at.iter().zip(vals).all(|((x, _), (_, v))| {
            f(*x)
                .and_then(value)
                .is_some_and(|w| (w - v).abs() <= 1e-9 * v.abs().max(1e-12))
        })
    };
    // The configuration at x, by a rule that reproduces every point shown.
    let at_x: Box<dyn Fn(f64) -> Option<PointConfig>> = match &p0.config {
        PointConfig::Many(c0) => {
            // The rules λ may follow along N: fixed, or 1 − N^(−α).
            let mut rules: Vec<Option<f64>> = vec![None];
            if axis == "servers" && c0.lambda < 1.0 && x0 > 1.0 {
                rules.push(Some(-(1.0 - c0.lambda).ln() / x0.ln()));
            }
            let rule = rules
                .into_iter()
                .find(|rule| reproduces(&|x| many_at(c0, axis, x, *rule).map(PointConfig::Many)))?;
            let c0 = c0.clone();
            Box::new(move |x| many_at(&c0, axis, x, rule).map(PointConfig::Many))
        }
        PointConfig::Slotted(c0) => {
            let c0 = c0.clone();
            let f = move |x| slotted_at(&c0, axis, x).map(PointConfig::Slotted);
            if !reproduces(&f) {
                return None;
            }
            Box::new(f)
        }
        PointConfig::Spn(c0) => {
            // A network's load sweep scales every arrival rate alike.
            if axis != "load" || x0 <= 0.0 {
                return None;
            }
            let c0 = c0.clone();
            let f = move |x: f64| {
                let mut c = c0.clone();
                for l in &mut c.arrivals {
                    *l *= x / x0;
                }
                Some(PointConfig::Spn(c))
            };
            if !reproduces(&f) {
                return None;
            }
            Box::new(f)
        }
    };
    let (lo, hi) = (at[0].0, at[at.len() - 1].0);
    let mut xs: Vec<f64> = (0..=GRID)
        .map(|i| {
            let t = i as f64 / GRID as f64;
            if log_x && lo > 0.0 {
                lo * (hi / lo).powf(t)
            } else {
                lo + (hi - lo) * t
            }
        })
        .map(|x| if axis == "servers" { x.round() } else { x })
        .chain(at.iter().map(|a| a.0))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let mut out: Vec<(f64, f64)> = xs
        .into_iter()
        .filter_map(|x| Some((x, at_x(x).and_then(value)?)))
        .collect();
    // The points' own values, exactly.
    for (x, v) in vals {
        if let Some(q) = out.iter_mut().find(|q| q.0 == *x) {
            q.1 = *v;
        }
    }
    Some(out)
}
