//! Room for a claim's region (a house rule, docs/AUDITING.md): for every
//! value and limit claim of a manifest, some figure of its experiment that
//! draws the points the claim reads gives their region — the points'
//! intervals and the reference ± tolerance there — at least
//! [`LEAST_SHARE`] of its y axis. A figure whose range is set by a point
//! outside that region needs a `y_range` or a companion figure.

use lb_analysis::figure::{Figure, FigureSpec, plan};
use lb_analysis::results::PointResult;
use lb_draw::geometry::Layout;
use lb_manifest::claim::Check as Kind;
use lb_manifest::outputs::FigureKind;

/// The least share of a figure's y axis a claim's region must get.
pub const LEAST_SHARE: f64 = 0.1;

/// How many of the experiment's value and limit claims some figure draws,
/// and those whose region no figure gives [`LEAST_SHARE`] of its y axis,
/// each in words.
pub fn squeezed(e: &lb_manifest::Experiment, results: &[PointResult]) -> (usize, Vec<String>) {
    use crate::audit_experiment;
    let plans: Vec<(String, Figure, Layout)> = e
        .loaded
        .figures()
        .iter()
        .filter(|f| f.kind == FigureKind::Lines)
        .map(|f| {
            let fig = Figure::new(&FigureSpec::from_toml(e.loaded.model(), f), results);
            let p = plan(&fig);
            (f.name.clone(), fig, p)
        })
        .collect();
    let claims = e.claims_as_audited();
    let (mut read, mut squeezed) = (0, Vec::new());
    for (c, r) in claims
        .iter()
        .zip(audit_experiment(e.name(), &claims, results))
    {
        let tol = match &c.check {
            Kind::Value(v) => v.tolerance,
            Kind::Limit(l) => l.tolerance,
            _ => continue,
        };
        let keys: Vec<&str> = r
            .checks
            .iter()
            .flat_map(|k| k.keys.iter().map(String::as_str))
            .collect();
        let refs: Vec<f64> = r.checks.iter().filter_map(|k| k.reference).collect();
        // The best share of the y axis the region gets in any figure that
        // draws its points.
        let mut best: Option<(f64, &str)> = None;
        for (name, fig, p) in &plans {
            if fig.spec.y.map(|m| m.name()) != c.check.metric() {
                continue;
            }
            let mut ys: Vec<f64> = Vec::new();
            for d in fig.series.iter().flat_map(|s| &s.dots) {
                if keys.contains(&d.key.as_str()) && d.stable {
                    ys.extend([d.est.lo, Some(d.est.mean), d.est.hi].into_iter().flatten());
                }
            }
            if ys.is_empty() {
                continue;
            }
            for e in &refs {
                ys.extend([e - tol.around(*e), e + tol.around(*e)]);
            }
            let clamp = |v: f64| v.clamp(p.y.lo, p.y.hi);
            let rows: Vec<f64> = ys
                .iter()
                .filter(|v| v.is_finite() && (!p.y.log || **v > 0.0))
                .map(|v| p.py(clamp(*v)))
                .collect();
            let span = rows.iter().cloned().fold(f64::MIN, f64::max)
                - rows.iter().cloned().fold(f64::MAX, f64::min);
            let share = span / (p.y_px.0 - p.y_px.1);
            if best.is_none_or(|(b, _)| share > b) {
                best = Some((share, name));
            }
        }
        if let Some((share, name)) = best {
            read += 1;
            if share < LEAST_SHARE {
                squeezed.push(format!(
                    "{}/{}: {:.0}% of the y axis at best ({name}): set `y_range`, or add a \
                     companion figure of the region",
                    e.name(),
                    c.id,
                    100.0 * share
                ));
            }
        }
    }
    (read, squeezed)
}
