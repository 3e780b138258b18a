//! The data a figure draws: per series its points (x, the estimate with its
//! interval, whether the run settled), gathered with the references and the
//! sample paths into a [`Figure`].

use super::paths::{PathSeries, path_series};
use super::references::{RefDrawn, references};
use super::spec::FigureSpec;
use crate::metric::Metric;
use crate::results::PointResult;
use crate::stats::{Estimate, LEVEL, estimate};
use lb_manifest::Point;
use lb_manifest::outputs::FigureKind;

/// One plotted point: its x, its estimate with the interval, whether the
/// run settled, and the key of its records.
#[derive(Debug, Clone, PartialEq)]
pub struct Dot {
    /// Its x value.
    pub x: f64,
    /// Its estimate and interval.
    pub est: Estimate,
    /// Whether the point is stable (an unstable one is marked in the band
    /// above the plot, not drawn as a number).
    pub stable: bool,
    /// Whether its runs settled ([`lb_model::settle`]): an unsettled
    /// point is drawn, ringed, and decides no claim.
    pub settled: bool,
    /// The key of its records.
    pub key: String,
}

/// A series: its legend name, policy and variant (the values of the
/// figure's series axes), and its points in x order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Its legend name.
    pub name: String,
    /// The policy's label.
    pub policy: String,
    /// The values of the figure's series axes, in words.
    pub variant: String,
    /// Its points in x order.
    pub dots: Vec<Dot>,
}

/// The estimate of metric `m` at one point from its replications: with the
/// control variate its precision rule decided on, where it has one
/// ([`crate::paired::controlled`]), else directly.
pub fn point_estimate(m: Metric, point: &Point, r: &PointResult) -> Option<Estimate> {
    if let Some(c) = crate::paired::controlled(m, r) {
        return Some(c.estimate);
    }
    let values: Vec<f64> = r
        .summaries
        .iter()
        .filter_map(|s| m.value(point, s))
        .collect();
    let counts: Option<Vec<(u64, u64)>> = r.summaries.iter().map(|s| s.counts(m.name())).collect();
    estimate(m.kind(), &values, counts.as_deref(), r.first_stage, LEVEL)
}

/// The paired difference `worse − better` of metric `m` between two points
/// at the same axis values: replication r of each shares its arrivals and
/// service (common random numbers), so the interval is that of the
/// differences, as the audit's ordering claims decide on.
fn paired_estimate(m: Metric, b: &PointResult, w: &PointResult) -> Option<Estimate> {
    let diffs = crate::results::paired_differences(m, b, w)?;
    let first = crate::results::pair_first_stage(b, w);
    estimate(lb_model::MetricKind::Real, &diffs, None, first, LEVEL)
}

/// The series of a difference figure: per variant, `worse − better` at
/// each x where both policies have a point.
fn difference_series(
    spec: &FigureSpec,
    d: &lb_manifest::outputs::Difference,
    m: Metric,
    results: &[PointResult],
) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    let at = |r: &PointResult| -> Vec<String> { r.axes.iter().map(|(_, v)| v.clone()).collect() };
    for b in results.iter().filter(|r| r.label == d.better) {
        if !spec
            .filter
            .iter()
            .all(|(a, t)| b.axis(a).is_some_and(|v| t.matches(v)))
        {
            continue;
        }
        let Some(w) = results.iter().find(|w| {
            w.label == d.worse
                && lb_manifest::plan::same_axes(
                    at(w).iter().map(String::as_str),
                    at(b).iter().map(String::as_str),
                )
        }) else {
            continue;
        };
        let (Some(x), Some(key)) = (b.axis(&spec.x).and_then(|v| v.parse::<f64>().ok()), &b.key)
        else {
            continue;
        };
        let Some(est) = paired_estimate(m, b, w) else {
            continue;
        };
        let stable = !crate::results::point_unstable(&b.summaries)
            && !crate::results::point_unstable(&w.summaries);
        let settled = lb_model::settle::Settling::of(&b.summaries).settled()
            && lb_model::settle::Settling::of(&w.summaries).settled();
        let (_, variant) = spec.series_of(b);
        let name = if variant.is_empty() {
            format!("{} − {}", d.worse, d.better)
        } else {
            format!("{} − {} ({variant})", d.worse, d.better)
        };
        let dot = Dot {
            x,
            est,
            stable: m.transient() || stable,
            settled: m.transient() || settled,
            key: key.hex(),
        };
        match out.iter_mut().find(|s| s.name == name) {
            Some(s) => s.dots.push(dot),
            None => out.push(Series {
                name,
                policy: format!("{} − {}", d.worse, d.better),
                variant,
                dots: vec![dot],
            }),
        }
    }
    for s in &mut out {
        s.dots.sort_by(|a, b| a.x.total_cmp(&b.x));
    }
    out
}

/// Groups the results into series (policy label + the spec's series axes).
pub fn series(spec: &FigureSpec, results: &[PointResult]) -> Vec<Series> {
    let Some(m) = spec.y else { return Vec::new() };
    if let Some(d) = &spec.difference {
        return difference_series(spec, d, m, results);
    }
    let mut out: Vec<Series> = Vec::new();
    for r in results {
        if !spec.selects(r) {
            continue;
        }
        let (Some(point), Some(key)) = (&r.point, &r.key) else {
            continue;
        };
        let Some(x) = r.axis(&spec.x).and_then(|v| v.parse::<f64>().ok()) else {
            continue;
        };
        let unstable = !m.transient() && crate::results::point_unstable(&r.summaries);
        // A diverging point may have no value at all (no job that arrived
        // after the warm-up left): it is still marked in the unstable band.
        let est = match point_estimate(m, point, r) {
            Some(e) => e,
            None if unstable => Estimate {
                mean: f64::NAN,
                lo: None,
                hi: None,
                kind: crate::stats::IntervalKind::StudentT,
                n: r.summaries.len(),
                events: None,
            },
            None => continue,
        };
        let (name, variant) = spec.series_of(r);
        let dot = Dot {
            x,
            est,
            // A transient metric (a growth rate) is read on unstable points too.
            stable: !unstable,
            settled: m.transient() || lb_model::settle::Settling::of(&r.summaries).settled(),
            key: key.hex(),
        };
        match out.iter_mut().find(|s| s.name == name) {
            Some(s) => s.dots.push(dot),
            None => out.push(Series {
                name,
                policy: r.label.clone(),
                variant,
                dots: vec![dot],
            }),
        }
    }
    for s in &mut out {
        s.dots.sort_by(|a, b| a.x.total_cmp(&b.x));
    }
    out
}

/// Everything a figure draws.
#[derive(Debug, Clone)]
pub struct Figure {
    /// What the manifest asks of it.
    pub spec: FigureSpec,
    /// Its series.
    pub series: Vec<Series>,
    /// Its references, evaluated.
    pub references: Vec<RefDrawn>,
    /// Its sample paths (path figures).
    pub paths: Vec<PathSeries>,
}

impl Figure {
    /// The figure of `spec` from an experiment's results; the quotes of its
    /// caption and claim are expanded from them ([`crate::prose`]).
    pub fn new(spec: &FigureSpec, results: &[PointResult]) -> Figure {
        let quoted = {
            let mut s = spec.clone();
            s.caption = crate::prose::expanded(&s.caption, results);
            s.claim = s.claim.map(|c| crate::prose::expanded(&c, results));
            s
        };
        match spec.kind {
            FigureKind::Lines => Figure {
                spec: quoted,
                series: series(spec, results),
                references: references(spec, results),
                paths: Vec::new(),
            },
            FigureKind::Path => Figure {
                spec: quoted,
                series: Vec::new(),
                references: Vec::new(),
                paths: path_series(spec, results),
            },
        }
    }
}
