//! The references a figure draws (`[[figure.reference]]`, `zeta_line`):
//! a constant, or a named reference the model computes at each point shown,
//! as one curve per distinct curve among the series.

use super::spec::FigureSpec;
use crate::results::PointResult;
use crate::ticks;
use lb_runner::Point;
use lb_runner::outputs::Reference;

/// A reference as drawn: a constant (a horizontal line across the plot) or
/// curves of (x, value), one per distinct curve among the series.
#[derive(Debug, Clone, PartialEq)]
pub enum RefShape {
    Constant(f64),
    Curves(Vec<Vec<(f64, f64)>>),
}

/// A reference of a figure, evaluated.
#[derive(Debug, Clone, PartialEq)]
pub struct RefDrawn {
    pub label: String,
    pub band: Option<f64>,
    pub shape: RefShape,
}

/// The value of named reference `name` at a point: the mean over the
/// replications present (a reference may run on a replication's own random
/// numbers, as `pooled` does).
fn named_reference(spec: &FigureSpec, name: &str, point: &Point, r: &PointResult) -> Option<f64> {
    let metric = spec.y.map_or("", |m| m.name());
    let reps: Vec<u64> = if r.summaries.is_empty() {
        vec![0]
    } else {
        r.summaries.iter().map(|s| s.replication()).collect()
    };
    let vals: Result<Vec<f64>, String> = reps
        .iter()
        .map(|&rep| point.reference(name, metric, rep))
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
                Reference::Number(x) => RefShape::Constant(*x),
                Reference::Named(n) => {
                    let mut per: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
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
                        let Some(v) = named_reference(spec, n, point, r) else {
                            continue;
                        };
                        let (name, _) = spec.series_of(r);
                        match per.iter_mut().find(|(s, _)| *s == name) {
                            Some((_, c)) => c.push((x, v)),
                            None => per.push((name, vec![(x, v)])),
                        }
                    }
                    let mut curves: Vec<Vec<(f64, f64)>> = Vec::new();
                    for (_, mut c) in per {
                        c.sort_by(|a, b| a.0.total_cmp(&b.0));
                        c.dedup_by(|a, b| a.0 == b.0);
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
