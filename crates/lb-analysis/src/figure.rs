//! Figures (issues 4 and 10), as SVG and PNG: one line per series with an
//! interval on every point, reference curves, unstable points marked (never
//! plotted as numbers), and a caption naming the setting and its
//! assumptions.
//!
//! What a reader can trust at a glance:
//!
//! - every series has its own colour (Okabe–Ito, safe for colour-blind
//!   readers), marker and dash; the variants of one policy (e.g.
//!   `count_own` true and false) share its colour and marker and differ by
//!   dash and fill;
//! - the legend sits outside the plot area, so it covers no data
//!   ([`Plan::legend`] and [`Plan::marks`] let a test check it);
//! - log axes are labelled at 1, 2, 5 × 10ᵏ, integer axes at integers, and
//!   no label carries decimals its step does not need;
//! - a proportion's interval stays inside [0, 1], and a proportion with no
//!   event seen is drawn as its upper bound with an arrow down;
//! - unstable points are marked in a band above the plot, one row per
//!   series, in the series' colour and marker, so none hides another;
//! - the references of the claims a figure shows are drawn (a curve, a
//!   line, or a band for a tolerance).
//!
//! A figure is first laid out ([`plan`], pure: every position in pixels),
//! then painted on a [`Canvas`] (SVG written by hand, PNG by plotters).

use crate::canvas::{Anchor, Canvas, Png, Rgb, Stroke, Svg, TextStyle, WHITE, text_width, wrap};
use crate::metric::Metric;
use crate::results::PointResult;
use crate::stats::{Estimate, IntervalKind, LEVEL, MetricKind, estimate};
use crate::ticks;
use lb_runner::outputs::{FigureKind, FigureToml, Reference, ReferenceCurve, WhereTest};
use lb_runner::{Model, Point};
use plotters::prelude::{BitMapBackend, IntoDrawingArea};
use std::path::Path;

/// What a figure shows (the manifest's `[[figure]]`).
#[derive(Debug, Clone, PartialEq)]
pub struct FigureSpec {
    /// File stem under `paper-figures/`.
    pub name: String,
    pub title: String,
    pub kind: FigureKind,
    /// The sweep axis on the x axis (empty for a path figure).
    pub x: String,
    pub x_label: String,
    /// The metric on the y axis (None for a path figure).
    pub y: Option<Metric>,
    pub y_label: String,
    /// Axes (besides the policy) that tell series apart, e.g. `count_own`.
    pub series: Vec<String>,
    /// Only points whose axes take one of these values.
    pub filter: Vec<(String, WhereTest)>,
    /// Only these policies (labels); empty: all.
    pub policies: Vec<String>,
    pub log_x: bool,
    pub log_y: bool,
    /// Reference curves (`[[figure.reference]]`, and `zeta_line`).
    pub references: Vec<ReferenceCurve>,
    /// Path figures: replications' paths drawn per series.
    pub paths: u32,
    pub caption: String,
    /// What the seed claims the figure shows.
    pub claim: Option<String>,
}

/// How an axis name reads in a label: `p_hat` is p̂, `epsilon_frac` ε/μ_Σ, ….
pub fn axis_display(a: &str) -> String {
    match a {
        "p_hat" => "p̂",
        "epsilon_frac" => "ε/μ_Σ",
        "epsilon" => "ε",
        "load" => "ρ",
        "servers_count" | "servers" => "N",
        "dispatchers" => "M",
        "alpha" => "α",
        "lambda" => "λ",
        other => other,
    }
    .to_string()
}

impl FigureSpec {
    /// From the manifest's `[[figure]]` (validated by lb-runner).
    pub fn from_toml(model: Model, f: &FigureToml) -> FigureSpec {
        let y = f.y.as_deref().map(|y| Metric::validated(model, y));
        let mut y_label = f
            .y_label
            .clone()
            .or_else(|| y.map(|m| m.label().to_string()))
            .unwrap_or_else(|| "Jobs in system".to_string());
        if let Some(u) = &f.y_unit {
            y_label = format!("{y_label} ({u})");
        }
        let x = f.x.clone().unwrap_or_default();
        let x_label = f.x_label.clone().unwrap_or_else(|| match f.kind {
            FigureKind::Lines => axis_display(&x),
            FigureKind::Path => format!("Time ({})", model.time_unit()),
        });
        let mut references = Vec::new();
        if f.zeta_line {
            references.push(ReferenceCurve {
                value: Reference::Named("zeta".into()),
                label: Some("ζ = (σ²_Σ + ν²_Σ)/2".into()),
                band: None,
                policies: Vec::new(),
            });
        }
        references.extend(f.references.iter().cloned());
        FigureSpec {
            name: f.name.clone(),
            title: f.title.clone(),
            kind: f.kind,
            x,
            x_label,
            y,
            y_label,
            series: f.series.clone(),
            filter: f
                .filter
                .iter()
                .filter_map(|(k, v)| WhereTest::parse(v).ok().map(|t| (k.clone(), t)))
                .collect(),
            policies: f.policies.clone(),
            log_x: f.log_x,
            log_y: f.log_y,
            references,
            paths: f.paths.unwrap_or(5),
            caption: f.caption.split_whitespace().collect::<Vec<_>>().join(" "),
            claim: f.claim.clone(),
        }
    }

    /// Whether the figure shows point `r`.
    pub fn selects(&self, r: &PointResult) -> bool {
        (self.policies.is_empty() || self.policies.contains(&r.label))
            && self
                .filter
                .iter()
                .all(|(a, t)| r.axis(a).is_some_and(|v| t.matches(v)))
    }

    /// The series a point belongs to: (legend name, variant).
    fn series_of(&self, r: &PointResult) -> (String, String) {
        let variant: Vec<String> = self
            .series
            .iter()
            .filter_map(|a| r.axis(a).map(|v| format!("{} = {v}", axis_display(a))))
            .collect();
        let variant = variant.join(", ");
        let name = if variant.is_empty() {
            r.label.clone()
        } else {
            format!("{} ({variant})", r.label)
        };
        (name, variant)
    }
}

/// One plotted point: its x, its estimate with the interval, whether the
/// run settled, and the key of its records.
#[derive(Debug, Clone, PartialEq)]
pub struct Dot {
    pub x: f64,
    pub est: Estimate,
    pub stable: bool,
    pub key: String,
}

/// A series: its legend name, policy and variant (the values of the
/// figure's series axes), and its points in x order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    pub policy: String,
    pub variant: String,
    pub dots: Vec<Dot>,
}

/// The estimate of metric `m` at one point from its replications.
pub fn point_estimate(m: Metric, point: &Point, r: &PointResult) -> Option<Estimate> {
    let values: Vec<f64> = r
        .summaries
        .iter()
        .filter_map(|s| m.value(point, s))
        .collect();
    let counts: Option<Vec<(u64, u64)>> = r.summaries.iter().map(|s| s.counts(m.name())).collect();
    estimate(m.kind(), &values, counts.as_deref(), LEVEL)
}

/// Groups the results into series (policy label + the spec's series axes).
pub fn series(spec: &FigureSpec, results: &[PointResult]) -> Vec<Series> {
    let Some(m) = spec.y else { return Vec::new() };
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
        let Some(est) = point_estimate(m, point, r) else {
            continue;
        };
        let (name, variant) = spec.series_of(r);
        let dot = Dot {
            x,
            est,
            // A transient metric (a growth rate) is read on unstable points too.
            stable: m.transient() || !crate::results::point_unstable(&r.summaries),
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
    // ζ on a ζ-ratio axis is 1.
    if name == "zeta" && spec.y.is_some_and(|m| m.name() == "zeta_ratio") {
        return Some(1.0);
    }
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

/// The sample paths of one series: a few replications' paths and the mean
/// of all of them.
#[derive(Debug, Clone, PartialEq)]
pub struct PathSeries {
    pub name: String,
    pub policy: String,
    pub variant: String,
    pub paths: Vec<Vec<(f64, f64)>>,
    pub mean: Vec<(f64, f64)>,
}

/// The value of a step path at time t (its last sample at or before t).
fn at(path: &[(f64, f64)], t: f64) -> f64 {
    match path.partition_point(|p| p.0 <= t) {
        0 => path.first().map_or(f64::NAN, |p| p.1),
        i => path[i - 1].1,
    }
}

/// The mean of `paths` on a grid of `n` times over their common span.
pub fn mean_path(paths: &[Vec<(f64, f64)>], n: usize) -> Vec<(f64, f64)> {
    let ends: Vec<(f64, f64)> = paths
        .iter()
        .filter_map(|p| Some((p.first()?.0, p.last()?.0)))
        .collect();
    if ends.is_empty() {
        return Vec::new();
    }
    let t0 = ends.iter().map(|e| e.0).fold(f64::NEG_INFINITY, f64::max);
    let t1 = ends.iter().map(|e| e.1).fold(f64::INFINITY, f64::min);
    if t1 < t0 {
        return Vec::new();
    }
    (0..n)
        .map(|i| {
            let t = t0 + (t1 - t0) * i as f64 / (n - 1).max(1) as f64;
            let v = paths.iter().map(|p| at(p, t)).sum::<f64>() / paths.len() as f64;
            (t, v)
        })
        .collect()
}

/// At most about `n` points of a long path, keeping each bin's extremes.
fn thin_path(p: &[(f64, f64)], n: usize) -> Vec<(f64, f64)> {
    if p.len() <= 2 * n {
        return p.to_vec();
    }
    let per = p.len().div_ceil(n);
    let mut out = Vec::new();
    for c in p.chunks(per) {
        let lo = c
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("non-empty");
        let hi = c
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .expect("non-empty");
        if lo.0 <= hi.0 {
            out.extend([*lo, *hi]);
        } else {
            out.extend([*hi, *lo]);
        }
    }
    out.dedup();
    out
}

/// The sample paths of a path figure (`Summary::path`), per series.
pub fn path_series(spec: &FigureSpec, results: &[PointResult]) -> Vec<PathSeries> {
    let mut out: Vec<PathSeries> = Vec::new();
    for r in results {
        if !spec.selects(r) {
            continue;
        }
        let all: Vec<Vec<(f64, f64)>> = r.summaries.iter().filter_map(|s| s.path()).collect();
        if all.is_empty() {
            continue;
        }
        let (name, variant) = spec.series_of(r);
        let mean = mean_path(&all, 400);
        let paths = all
            .iter()
            .take(spec.paths as usize)
            .map(|p| thin_path(p, 1500))
            .collect();
        out.push(PathSeries {
            name,
            policy: r.label.clone(),
            variant,
            paths,
            mean,
        });
    }
    out
}

/// Everything a figure draws.
#[derive(Debug, Clone)]
pub struct Figure {
    pub spec: FigureSpec,
    pub series: Vec<Series>,
    pub references: Vec<RefDrawn>,
    pub paths: Vec<PathSeries>,
}

impl Figure {
    /// The figure of `spec` from an experiment's results.
    pub fn new(spec: &FigureSpec, results: &[PointResult]) -> Figure {
        match spec.kind {
            FigureKind::Lines => Figure {
                spec: spec.clone(),
                series: series(spec, results),
                references: references(spec, results),
                paths: Vec::new(),
            },
            FigureKind::Path => Figure {
                spec: spec.clone(),
                series: Vec::new(),
                references: Vec::new(),
                paths: path_series(spec, results),
            },
        }
    }
}

// ---------------------------------------------------------------- styles

/// Okabe and Ito's colour-blind-safe palette (without its yellow, too pale
/// on white), then Paul Tol's wine.
pub const PALETTE: [Rgb; 8] = [
    Rgb(0, 114, 178),   // blue
    Rgb(213, 94, 0),    // vermillion
    Rgb(0, 158, 115),   // bluish green
    Rgb(204, 121, 167), // reddish purple
    Rgb(230, 159, 0),   // orange
    Rgb(86, 180, 233),  // sky blue
    Rgb(0, 0, 0),       // black
    Rgb(136, 34, 85),   // wine
];

/// Marker shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
    Star,
    Plus,
    Hexagon,
}

pub const MARKERS: [Marker; 8] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Star,
    Marker::Plus,
    Marker::Hexagon,
];

/// Dash patterns of series: solid, dashed, dotted, dash-dot.
pub const DASHES: [&[f64]; 4] = [&[], &[8.0, 4.0], &[2.0, 3.0], &[9.0, 3.0, 2.5, 3.0]];

/// Dash patterns of reference curves (grey, thinner than series).
const REF_DASHES: [&[f64]; 4] = [
    &[12.0, 5.0],
    &[3.0, 3.0],
    &[12.0, 3.0, 3.0, 3.0],
    &[6.0, 2.0],
];
const REF_COLOUR: Rgb = Rgb(80, 80, 80);
const BLACK_RGB: Rgb = Rgb(0, 0, 0);
const BAND_COLOUR: Rgb = Rgb(150, 150, 150);
const BAND_ALPHA: f64 = 0.25;

/// How a series is drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Style {
    pub colour: Rgb,
    pub marker: Marker,
    pub dash: Vec<f64>,
    /// Hollow markers (a second variant of a policy).
    pub hollow: bool,
}

/// Styles of series given as (policy, variant), in order: colour and marker
/// by policy; dash (and fill) by variant when the figure has variants, else
/// by series, so that every series differs from every other in colour,
/// marker and dash where the palette allows.
pub fn styles(series: &[(String, String)]) -> Vec<Style> {
    let mut policies: Vec<&str> = Vec::new();
    let mut variants: Vec<&str> = Vec::new();
    for (p, v) in series {
        if !policies.contains(&p.as_str()) {
            policies.push(p);
        }
        if !variants.contains(&v.as_str()) {
            variants.push(v);
        }
    }
    let has_variants = variants.len() > 1;
    series
        .iter()
        .map(|(p, v)| {
            let pi = policies.iter().position(|x| x == p).expect("listed");
            let vi = variants.iter().position(|x| x == v).expect("listed");
            let di = if has_variants { vi } else { pi };
            Style {
                colour: PALETTE[pi % PALETTE.len()],
                marker: MARKERS[pi % MARKERS.len()],
                dash: DASHES[di % DASHES.len()].to_vec(),
                hollow: has_variants && vi % 2 == 1,
            }
        })
        .collect()
}

/// The outline of `m` centred at (x, y) with size r.
pub fn marker_points(m: Marker, x: f64, y: f64, r: f64) -> Vec<(f64, f64)> {
    let poly = |n: usize, rad: f64, phase: f64| -> Vec<(f64, f64)> {
        (0..n)
            .map(|i| {
                let a = phase + std::f64::consts::TAU * i as f64 / n as f64;
                (x + rad * a.cos(), y + rad * a.sin())
            })
            .collect()
    };
    use std::f64::consts::FRAC_PI_2;
    match m {
        Marker::Circle => poly(16, r, 0.0),
        Marker::Square => {
            let h = r * 0.88;
            vec![
                (x - h, y - h),
                (x + h, y - h),
                (x + h, y + h),
                (x - h, y + h),
            ]
        }
        Marker::TriangleUp => poly(3, r * 1.25, -FRAC_PI_2)
            .into_iter()
            .map(|(a, b)| (a, b + 0.2 * r))
            .collect(),
        Marker::TriangleDown => poly(3, r * 1.25, FRAC_PI_2)
            .into_iter()
            .map(|(a, b)| (a, b - 0.2 * r))
            .collect(),
        Marker::Diamond => poly(4, r * 1.25, 0.0),
        Marker::Hexagon => poly(6, r * 1.05, 0.0),
        Marker::Star => (0..10)
            .map(|i| {
                let a = -FRAC_PI_2 + std::f64::consts::PI * i as f64 / 5.0;
                let rad = if i % 2 == 0 { r * 1.35 } else { r * 0.6 };
                (x + rad * a.cos(), y + rad * a.sin())
            })
            .collect(),
        Marker::Plus => {
            let (a, w) = (r * 1.15, r * 0.4);
            vec![
                (x - w, y - a),
                (x + w, y - a),
                (x + w, y - w),
                (x + a, y - w),
                (x + a, y + w),
                (x + w, y + w),
                (x + w, y + a),
                (x - w, y + a),
                (x - w, y + w),
                (x - a, y + w),
                (x - a, y - w),
                (x - w, y - w),
            ]
        }
    }
}

fn draw_marker(c: &mut dyn Canvas, style: &Style, x: f64, y: f64, r: f64, hollow: bool) {
    let pts = marker_points(style.marker, x, y, r);
    if hollow {
        c.polygon(
            &pts,
            Some((WHITE, 1.0)),
            Some(&Stroke::solid(style.colour, 1.6)),
        );
    } else {
        c.polygon(&pts, Some((style.colour, 1.0)), None);
    }
}

// ---------------------------------------------------------------- layout

/// A rectangle in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    pub fn intersects(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
    pub fn contains(&self, x: f64, y: f64) -> bool {
        (self.x0..=self.x1).contains(&x) && (self.y0..=self.y1).contains(&y)
    }
    pub fn w(&self) -> f64 {
        self.x1 - self.x0
    }
    pub fn h(&self) -> f64 {
        self.y1 - self.y0
    }
}

/// What a mark on the figure stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkKind {
    /// A point at its mean.
    Point,
    /// No event seen: the upper bound, with an arrow down.
    Bound,
    /// Zero on a log axis: at the bottom edge, with an arrow down.
    Zero,
    /// An unstable point, in the band above the plot.
    Unstable,
}

/// A data mark as laid out: its series, x, kind, and the box it covers
/// (marker, with its interval or arrow).
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub series: usize,
    pub x: f64,
    pub kind: MarkKind,
    pub cx: f64,
    pub cy: f64,
    pub r: f64,
    /// The marker's box.
    pub bbox: Rect,
}

/// A legend entry: what its sample shows, and its label lines.
#[derive(Debug, Clone, PartialEq)]
pub enum Sample {
    Series(usize),
    Reference(usize),
    /// "No event seen: upper bound" (arrow down).
    BoundNote,
    /// "0 in every replication" (on a log axis).
    ZeroNote,
    /// A path figure: thin lines are single replications.
    PathNote,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LegendEntry {
    pub sample: Sample,
    pub lines: Vec<String>,
    pub rect: Rect,
}

/// An axis: its range, scale and ticks.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
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
    pub fn contains(&self, v: f64) -> bool {
        (!self.log || v > 0.0) && v >= self.lo && v <= self.hi
    }
}

/// A figure laid out: every rectangle and mark in pixels. [`paint`] draws
/// exactly this.
#[derive(Debug, Clone)]
pub struct Plan {
    pub width: f64,
    pub height: f64,
    pub title: Vec<String>,
    pub plot: Rect,
    pub x: Axis,
    pub y: Axis,
    /// The band of unstable points above the plot, one row per series
    /// with unstable points.
    pub unstable: Option<Rect>,
    pub unstable_rows: Vec<usize>,
    pub legend: Option<Rect>,
    pub entries: Vec<LegendEntry>,
    pub marks: Vec<Mark>,
    pub styles: Vec<Style>,
    pub caption: Vec<String>,
    pub caption_top: f64,
    /// The pixel rows of the y axis's lo and hi (inside the plot; a zero
    /// row below them on a log axis where some value is exactly 0).
    pub y_px: (f64, f64),
    /// The row of zeros on a log y axis, labelled 0.
    pub zero_row: Option<f64>,
}

impl Plan {
    /// The pixel column of x value `v`.
    pub fn px(&self, v: f64) -> f64 {
        self.plot.x0 + self.x.frac(v) * self.plot.w()
    }
    /// The pixel row of y value `v`.
    pub fn py(&self, v: f64) -> f64 {
        self.y_px.0 - self.y.frac(v) * (self.y_px.0 - self.y_px.1)
    }
}

const W: f64 = 1080.0;
const MARGIN: f64 = 14.0;
const PLOT_H: f64 = 430.0;
const TITLE: f64 = 19.0;
const TICK: f64 = 13.5;
const AXIS_TITLE: f64 = 15.5;
const LEGEND: f64 = 13.0;
const CAPTION: f64 = 13.5;
const R: f64 = 4.6;
const ROW: f64 = 14.0;
const LEGEND_TEXT_MAX: f64 = 250.0;
/// Height of the row of zeros at the bottom of a log y axis.
const ZERO_ROW: f64 = 30.0;
/// Room below an upper bound for its arrow.
const ARROW_ROOM: f64 = 26.0;

fn in_range(axis_log: bool, v: f64) -> bool {
    v.is_finite() && (!axis_log || v > 0.0)
}

/// The range and ticks of an axis over `vals`; `integer`: integer ticks;
/// `unit`: the values are fractions in [0, 1]; `pad`: the margin as a
/// fraction of the span (linear) or a factor (log).
fn axis(vals: &[f64], log: bool, integer: bool, unit: bool, pad: f64) -> Axis {
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
        if dlo >= 0.0 && lo < 0.0 {
            lo = 0.0;
        }
        if unit && dhi <= 1.0 && hi > 1.0 {
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
fn thin_ticks(a: &mut Axis, length: f64, extent: impl Fn(&str) -> f64, gap: f64, integer: bool) {
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

/// Lays out `fig`.
pub fn plan(fig: &Figure) -> Plan {
    let spec = &fig.spec;
    let path = spec.kind == FigureKind::Path;
    // Series, styles and the data range.
    let keys: Vec<(String, String)> = if path {
        fig.paths
            .iter()
            .map(|p| (p.policy.clone(), p.variant.clone()))
            .collect()
    } else {
        fig.series
            .iter()
            .map(|s| (s.policy.clone(), s.variant.clone()))
            .collect()
    };
    let styles = styles(&keys);
    let mut xs: Vec<f64> = Vec::new();
    let mut ys: Vec<f64> = Vec::new();
    if path {
        for p in &fig.paths {
            for q in p.paths.iter().chain(std::iter::once(&p.mean)) {
                xs.extend(q.iter().map(|v| v.0));
                ys.extend(q.iter().map(|v| v.1));
            }
        }
    } else {
        for s in &fig.series {
            for d in &s.dots {
                xs.push(d.x);
                if !d.stable {
                    continue;
                }
                match d.est.kind {
                    IntervalKind::UpperBound => ys.extend(d.est.hi),
                    IntervalKind::NoneSeen if spec.log_y => {}
                    _ => {
                        ys.push(d.est.mean);
                        ys.extend(d.est.lo.filter(|v| !spec.log_y || *v > 0.0));
                        ys.extend(d.est.hi);
                    }
                }
            }
        }
        for r in &fig.references {
            let band = r.band.unwrap_or(0.0);
            let vals: Vec<f64> = match &r.shape {
                RefShape::Constant(v) => vec![*v],
                RefShape::Curves(cs) => cs.iter().flatten().map(|p| p.1).collect(),
            };
            for v in vals {
                ys.extend([v * (1.0 - band), v * (1.0 + band)]);
            }
        }
    }
    let integer_x = !xs.is_empty() && xs.iter().all(|v| v.fract() == 0.0);
    let unit_y = spec.y.is_some_and(|m| m.kind() != MetricKind::Real);
    // The margin beside the first and last x: 3% of the width, linear or
    // log (markers at the ends are dodged sideways by up to ~2.7 radii).
    let x_pad = if spec.log_x {
        let (lo, hi) = xs
            .iter()
            .filter(|v| **v > 0.0)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(*v), b.max(*v))
            });
        let decades = if lo.is_finite() && hi > lo {
            (hi / lo).log10()
        } else {
            1.0
        };
        (10f64.powf(0.034 * decades) - 1.0).max(0.08)
    } else {
        0.03
    };
    let mut x = axis(&xs, spec.log_x, integer_x, false, x_pad);
    let y_pad = if spec.log_y { 0.15 } else { 0.05 };
    let mut y = axis(&ys, spec.log_y, false, unit_y, y_pad);
    // A log axis has no 0: zeros get a row of their own below it.
    let zeros = spec.log_y
        && fig
            .series
            .iter()
            .flat_map(|s| &s.dots)
            .any(|d| d.stable && d.est.kind != IntervalKind::UpperBound && d.est.mean <= 0.0);
    let axis_h = PLOT_H - if zeros { ZERO_ROW } else { 0.0 };
    // An upper bound's arrow needs room below it on a log axis.
    let lowest_bound = fig
        .series
        .iter()
        .flat_map(|s| &s.dots)
        .filter(|d| d.stable && d.est.kind == IntervalKind::UpperBound)
        .filter_map(|d| d.est.hi)
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    if spec.log_y && lowest_bound.is_finite() {
        let a = ARROW_ROOM / axis_h;
        let (tb, th) = (lowest_bound.log10(), y.hi.log10());
        let lo = 10f64.powf((tb - a * th) / (1.0 - a));
        if lo < y.lo {
            let mut v = ys.clone();
            v.push(lo * (1.0 + y_pad));
            y = axis(&v, spec.log_y, false, unit_y, y_pad);
        }
    }
    // Labels are text: thin them until they do not collide.
    thin_ticks(&mut y, axis_h, |_| TICK, 6.0, false);

    // Horizontal layout: the y title, tick labels, the plot, the legend.
    let ytick_w = y
        .ticks
        .iter()
        .map(|t| text_width(&t.1, TICK))
        .fold(0.0, f64::max);
    let unstable_rows: Vec<usize> = fig
        .series
        .iter()
        .enumerate()
        .filter(|(_, s)| s.dots.iter().any(|d| !d.stable))
        .map(|(i, _)| i)
        .collect();
    let band_label_w = if unstable_rows.is_empty() {
        0.0
    } else {
        text_width("unstable", LEGEND)
    };
    let left = MARGIN + AXIS_TITLE + 14.0 + ytick_w.max(band_label_w) + 10.0;

    // Legend entries.
    let mut entries: Vec<(Sample, String)> = Vec::new();
    if path {
        for (i, p) in fig.paths.iter().enumerate() {
            entries.push((Sample::Series(i), format!("{}: mean", p.name)));
        }
        if !fig.paths.is_empty() {
            entries.push((Sample::PathNote, "thin: single replications".into()));
        }
    } else {
        for (i, s) in fig.series.iter().enumerate() {
            entries.push((Sample::Series(i), s.name.clone()));
        }
        for (i, r) in fig.references.iter().enumerate() {
            let mut l = r.label.clone();
            if let Some(b) = r.band {
                l.push_str(&format!(
                    " (band: ±{}%)",
                    ticks::format_tick(100.0 * b, None)
                ));
            }
            entries.push((Sample::Reference(i), l));
        }
        let any = |k: IntervalKind| {
            fig.series
                .iter()
                .flat_map(|s| &s.dots)
                .any(|d| d.stable && d.est.kind == k)
        };
        if any(IntervalKind::UpperBound) {
            entries.push((Sample::BoundNote, "no event seen: 95% upper bound".into()));
        }
        if spec.log_y && any(IntervalKind::NoneSeen) {
            entries.push((
                Sample::ZeroNote,
                "0 in every replication (the row 0 below the log axis)".into(),
            ));
        }
    }
    const SAMPLE_W: f64 = 36.0;
    let lines: Vec<Vec<String>> = entries
        .iter()
        .map(|(_, l)| wrap(l, LEGEND, LEGEND_TEXT_MAX))
        .collect();
    let text_w = lines
        .iter()
        .flatten()
        .map(|l| text_width(l, LEGEND))
        .fold(0.0, f64::max);
    let legend_w = if entries.is_empty() {
        0.0
    } else {
        10.0 + SAMPLE_W + 8.0 + text_w + 10.0
    };
    let right = W - MARGIN - legend_w - if entries.is_empty() { 0.0 } else { 18.0 };

    // Vertical layout: the title, the unstable band, the plot, the x axis.
    let title = wrap(&spec.title, TITLE, W - 2.0 * MARGIN);
    let mut top = MARGIN + title.len() as f64 * (TITLE + 6.0) + 6.0;
    let unstable = if unstable_rows.is_empty() {
        None
    } else {
        let h = unstable_rows.len() as f64 * ROW + 6.0;
        let r = Rect {
            x0: left,
            y0: top,
            x1: right,
            y1: top + h,
        };
        top += h + 6.0;
        Some(r)
    };
    let plot = Rect {
        x0: left,
        y0: top,
        x1: right,
        y1: top + PLOT_H,
    };
    thin_ticks(&mut x, plot.w(), |l| text_width(l, TICK), 10.0, integer_x);

    // Marks.
    let y_px = (plot.y1 - if zeros { ZERO_ROW } else { 0.0 }, plot.y0);
    let zero_row = zeros.then_some(plot.y1 - ZERO_ROW / 2.0);
    let px = |v: f64| plot.x0 + x.frac(v) * plot.w();
    let py = |v: f64| y_px.0 - y.frac(v) * (y_px.0 - y_px.1);
    let mut marks = Vec::new();
    for (i, s) in fig.series.iter().enumerate() {
        for d in &s.dots {
            let cx = px(d.x);
            // The marker's extent: the largest shape (the star) reaches 1.35 r.
            let bbox = |cx: f64, cy: f64, r: f64| Rect {
                x0: cx - 1.35 * r,
                y0: cy - 1.35 * r,
                x1: cx + 1.35 * r,
                y1: cy + 1.35 * r,
            };
            let (kind, cy, r) = if !d.stable {
                let row = unstable_rows.iter().position(|&j| j == i).expect("a row");
                let band = unstable.expect("a band");
                (
                    MarkKind::Unstable,
                    band.y0 + 3.0 + ROW * (row as f64 + 0.5),
                    3.2,
                )
            } else {
                match (d.est.kind, zero_row) {
                    (IntervalKind::UpperBound, _) => {
                        (MarkKind::Bound, py(d.est.hi.unwrap_or(0.0)), R)
                    }
                    (_, Some(z)) if d.est.mean <= 0.0 => (MarkKind::Zero, z, R),
                    _ => (MarkKind::Point, py(d.est.mean), R),
                }
            };
            marks.push(Mark {
                series: i,
                x: d.x,
                kind,
                cx,
                cy,
                r,
                bbox: bbox(cx, cy, r),
            });
        }
    }

    dodge(&mut marks, R, (plot.x0, plot.x1));

    // The legend, right of the plot.
    let mut entry_rects = Vec::new();
    let mut ly = plot.y0 + 8.0;
    for (i, l) in lines.iter().enumerate() {
        let h = l.len() as f64 * (LEGEND + 3.0) + 5.0;
        entry_rects.push(LegendEntry {
            sample: entries[i].0.clone(),
            lines: l.clone(),
            rect: Rect {
                x0: right + 18.0 + 10.0,
                y0: ly,
                x1: right + 18.0 + legend_w - 10.0,
                y1: ly + h,
            },
        });
        ly += h;
    }
    let legend = (!entries.is_empty()).then_some(Rect {
        x0: right + 18.0,
        y0: plot.y0,
        x1: right + 18.0 + legend_w,
        y1: ly + 6.0,
    });
    let axis_bottom = plot.y1 + 14.0 + TICK + 12.0 + AXIS_TITLE;
    let caption_top = axis_bottom.max(legend.map_or(0.0, |l| l.y1)) + 18.0;
    // Some slack: an SVG viewer may set the text in a wider font than DejaVu.
    let caption = wrap(&spec.caption, CAPTION, 0.96 * (W - 2.0 * MARGIN));
    let height = (caption_top + caption.len() as f64 * (CAPTION + 5.0) + MARGIN).ceil();
    Plan {
        width: W,
        height,
        title,
        plot,
        x,
        y,
        unstable,
        unstable_rows,
        legend,
        entries: entry_rects,
        marks,
        styles,
        caption,
        caption_top,
        y_px,
        zero_row,
    }
}

/// Moves apart, sideways, markers of different series that would sit on
/// one another at the same x (JSQ and I1F give the same numbers): each
/// cluster is spread symmetrically about its x, within the gap to the
/// neighbouring x values, and shifted inwards where that would put a marker
/// outside the plot's x range `within` (a cluster at the first or last x).
fn dodge(marks: &mut [Mark], r: f64, within: (f64, f64)) {
    let mut xs: Vec<f64> = marks.iter().map(|m| m.cx).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup_by(|a, b| (*a - *b).abs() < 0.5);
    let gap = |x: f64| {
        xs.iter()
            .map(|v| (v - x).abs())
            .filter(|d| *d >= 0.5)
            .fold(f64::INFINITY, f64::min)
    };
    let mut idx: Vec<usize> = (0..marks.len())
        .filter(|&i| {
            matches!(
                marks[i].kind,
                MarkKind::Point | MarkKind::Bound | MarkKind::Zero
            )
        })
        .collect();
    idx.sort_by(|&a, &b| {
        marks[a]
            .cx
            .total_cmp(&marks[b].cx)
            .then(marks[a].cy.total_cmp(&marks[b].cy))
    });
    let mut i = 0;
    while i < idx.len() {
        let mut j = i + 1;
        while j < idx.len()
            && (marks[idx[j]].cx - marks[idx[i]].cx).abs() < 0.5
            && (marks[idx[j]].cy - marks[idx[j - 1]].cy).abs() < 1.2 * r
        {
            j += 1;
        }
        let k = j - i;
        if k > 1 {
            let step = (1.8 * r).min(gap(marks[idx[i]].cx) / (k as f64 + 1.0));
            let mut cluster: Vec<usize> = idx[i..j].to_vec();
            cluster.sort_by_key(|&m| marks[m].series);
            let half = (k as f64 - 1.0) / 2.0 * step;
            let cx = marks[idx[i]].cx;
            let shift = (within.0 - (cx - half)).max(0.0) - ((cx + half) - within.1).max(0.0);
            for (n, &m) in cluster.iter().enumerate() {
                let off = (n as f64 - (k as f64 - 1.0) / 2.0) * step + shift;
                let mk = &mut marks[m];
                mk.cx += off;
                mk.bbox.x0 += off;
                mk.bbox.x1 += off;
            }
        }
        i = j;
    }
}

// ---------------------------------------------------------------- painting

/// Clips the segment a–b to `r` (Liang–Barsky).
fn clip(a: (f64, f64), b: (f64, f64), r: &Rect) -> Option<((f64, f64), (f64, f64))> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, a.0 - r.x0),
        (dx, r.x1 - a.0),
        (-dy, a.1 - r.y0),
        (dy, r.y1 - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    (t0 <= t1).then_some((
        (a.0 + t0 * dx, a.1 + t0 * dy),
        (a.0 + t1 * dx, a.1 + t1 * dy),
    ))
}

/// A polyline clipped to `r`, as its visible pieces.
fn clipped(pts: &[(f64, f64)], r: &Rect) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut cur: Vec<(f64, f64)> = Vec::new();
    for w in pts.windows(2) {
        match clip(w[0], w[1], r) {
            Some((a, b)) => {
                if cur.last() != Some(&a) {
                    if cur.len() >= 2 {
                        out.push(std::mem::take(&mut cur));
                    }
                    cur = vec![a];
                }
                cur.push(b);
            }
            None => {
                if cur.len() >= 2 {
                    out.push(std::mem::take(&mut cur));
                }
                cur.clear();
            }
        }
    }
    if cur.len() >= 2 {
        out.push(cur);
    }
    out
}

fn arrow_down(c: &mut dyn Canvas, colour: Rgb, x: f64, y: f64, len: f64) {
    let s = Stroke::solid(colour, 1.5);
    c.polyline(&[(x, y), (x, y + len)], &s);
    c.polygon(
        &[
            (x - 3.5, y + len - 5.0),
            (x + 3.5, y + len - 5.0),
            (x, y + len + 1.0),
        ],
        Some((colour, 1.0)),
        None,
    );
}

/// Paints `plan` of `fig` on `c`.
pub fn paint(c: &mut dyn Canvas, fig: &Figure, p: &Plan) {
    let spec = &fig.spec;
    let plot = p.plot;
    let px = |v: f64| p.px(v);
    let py = |v: f64| p.py(v);
    let grid = Stroke::solid(Rgb(222, 222, 222), 1.0);
    let minor = Stroke::solid(Rgb(243, 243, 243), 1.0);
    // Grid.
    for v in &p.x.minor {
        c.polyline(&[(px(*v), plot.y0), (px(*v), plot.y1)], &minor);
    }
    for v in &p.y.minor {
        c.polyline(&[(plot.x0, py(*v)), (plot.x1, py(*v))], &minor);
    }
    for (v, _) in &p.x.ticks {
        c.polyline(&[(px(*v), plot.y0), (px(*v), plot.y1)], &grid);
    }
    for (v, _) in &p.y.ticks {
        c.polyline(&[(plot.x0, py(*v)), (plot.x1, py(*v))], &grid);
    }
    // References: bands, then curves.
    let clamp_y = |y: f64| y.clamp(plot.y0, plot.y1);
    for r in &fig.references {
        let Some(b) = r.band else { continue };
        let polys: Vec<Vec<(f64, f64)>> = match &r.shape {
            RefShape::Constant(v) => vec![vec![
                (plot.x0, clamp_y(py(v * (1.0 + b)))),
                (plot.x1, clamp_y(py(v * (1.0 + b)))),
                (plot.x1, clamp_y(py(v * (1.0 - b)))),
                (plot.x0, clamp_y(py(v * (1.0 - b)))),
            ]],
            RefShape::Curves(cs) => cs
                .iter()
                .filter(|c| c.len() >= 2)
                .map(|cv| {
                    let mut poly: Vec<(f64, f64)> = cv
                        .iter()
                        .map(|q| (px(q.0), clamp_y(py(q.1 * (1.0 + b)))))
                        .collect();
                    poly.extend(
                        cv.iter()
                            .rev()
                            .map(|q| (px(q.0), clamp_y(py(q.1 * (1.0 - b))))),
                    );
                    poly
                })
                .collect(),
        };
        for poly in polys {
            c.polygon(&poly, Some((BAND_COLOUR, BAND_ALPHA)), None);
        }
    }
    // Paths (path figures).
    for (i, ps) in fig.paths.iter().enumerate() {
        let st = &p.styles[i];
        let thin = Stroke {
            colour: st.colour,
            alpha: 0.35,
            width: 1.0,
            dash: Vec::new(),
        };
        let shown = |v: &&(f64, f64)| p.y.contains(v.1) || !p.y.log;
        for q in &ps.paths {
            let pts: Vec<(f64, f64)> = q.iter().filter(shown).map(|v| (px(v.0), py(v.1))).collect();
            for piece in clipped(&pts, &plot) {
                c.polyline(&piece, &thin);
            }
        }
        let pts: Vec<(f64, f64)> = ps
            .mean
            .iter()
            .filter(shown)
            .map(|v| (px(v.0), py(v.1)))
            .collect();
        for piece in clipped(&pts, &plot) {
            c.polyline(&piece, &Stroke::dashed(st.colour, 2.8, &st.dash));
        }
    }
    // Series: intervals, lines, markers.
    for (i, s) in fig.series.iter().enumerate() {
        let st = &p.styles[i];
        let marks: Vec<&Mark> = p.marks.iter().filter(|m| m.series == i).collect();
        for (d, m) in s.dots.iter().zip(&marks) {
            if m.kind != MarkKind::Point {
                continue;
            }
            let (Some(lo), Some(hi)) = (d.est.lo, d.est.hi) else {
                continue;
            };
            let lo = if p.y.log && lo <= 0.0 { p.y.lo } else { lo };
            let (y0, y1) = (clamp_y(py(hi)), clamp_y(py(lo)));
            let bar = Stroke::solid(st.colour, 1.3);
            c.polyline(&[(m.cx, y0), (m.cx, y1)], &bar);
            for y in [y0, y1] {
                c.polyline(&[(m.cx - 4.5, y), (m.cx + 4.5, y)], &bar);
            }
        }
        let pts: Vec<(f64, f64)> = marks
            .iter()
            .filter(|m| m.kind == MarkKind::Point)
            .map(|m| (m.cx, m.cy))
            .collect();
        c.polyline(&pts, &Stroke::dashed(st.colour, 2.0, &st.dash));
    }
    // Reference curves over the lines (they often coincide: a reader must
    // see both), under the markers.
    for (i, r) in fig.references.iter().enumerate() {
        let stroke = Stroke::dashed(REF_COLOUR, 1.6, REF_DASHES[i % REF_DASHES.len()]);
        let curves: Vec<Vec<(f64, f64)>> = match &r.shape {
            RefShape::Constant(v) => vec![vec![(plot.x0, py(*v)), (plot.x1, py(*v))]],
            RefShape::Curves(cs) => cs
                .iter()
                .filter(|cv| cv.len() >= 2)
                .map(|cv| cv.iter().map(|q| (px(q.0), py(q.1))).collect())
                .collect(),
        };
        for cv in curves {
            for piece in clipped(&cv, &plot) {
                c.polyline(&piece, &stroke);
            }
        }
    }
    for i in 0..fig.series.len() {
        let st = &p.styles[i];
        let marks: Vec<&Mark> = p.marks.iter().filter(|m| m.series == i).collect();
        for m in &marks {
            match m.kind {
                MarkKind::Point => draw_marker(c, st, m.cx, m.cy, m.r, st.hollow),
                MarkKind::Bound => {
                    let room = (p.y_px.0 + ARROW_ROOM - 6.0 - m.cy - m.r).min(14.0);
                    arrow_down(c, st.colour, m.cx, m.cy + m.r, room.max(4.0));
                    draw_marker(c, st, m.cx, m.cy, m.r, true);
                }
                MarkKind::Zero => draw_marker(c, st, m.cx, m.cy, m.r, true),
                MarkKind::Unstable => {}
            }
        }
    }
    // A reference at a single x: a bar across the markers there, over them.
    for (i, r) in fig.references.iter().enumerate() {
        let RefShape::Curves(cs) = &r.shape else {
            continue;
        };
        let stroke = Stroke::dashed(REF_COLOUR, 2.0, REF_DASHES[i % REF_DASHES.len()]);
        for cv in cs.iter().filter(|cv| cv.len() == 1) {
            let (x, y) = (px(cv[0].0), py(cv[0].1));
            if p.y.contains(cv[0].1) {
                c.polyline(&[(x - 22.0, y), (x + 22.0, y)], &stroke);
            }
        }
    }
    // The row of zeros of a log axis, apart from the axis.
    if let Some(z) = p.zero_row {
        let top = plot.y1 - ZERO_ROW;
        c.polyline(
            &[(plot.x0, top), (plot.x1, top)],
            &Stroke::dashed(Rgb(150, 150, 150), 1.0, &[4.0, 3.0]),
        );
        c.polyline(
            &[(plot.x0 - 5.0, z), (plot.x0, z)],
            &Stroke::solid(BLACK_RGB, 1.0),
        );
        c.text(
            "0",
            plot.x0 - 8.0,
            z + TICK * 0.3,
            &TextStyle::new(TICK).anchor(Anchor::End),
        );
    }
    // The frame, ticks and labels.
    let black = Stroke::solid(Rgb(0, 0, 0), 1.0);
    c.polygon(
        &[
            (plot.x0, plot.y0),
            (plot.x1, plot.y0),
            (plot.x1, plot.y1),
            (plot.x0, plot.y1),
        ],
        None,
        Some(&black),
    );
    let tick_style = TextStyle::new(TICK);
    for (v, l) in &p.x.ticks {
        let x = px(*v);
        c.polyline(&[(x, plot.y1), (x, plot.y1 + 5.0)], &black);
        c.text(
            l,
            x,
            plot.y1 + 8.0 + TICK * 0.8,
            &tick_style.anchor(Anchor::Middle),
        );
    }
    for v in &p.x.minor {
        c.polyline(&[(px(*v), plot.y1), (px(*v), plot.y1 + 3.0)], &black);
    }
    for (v, l) in &p.y.ticks {
        let y = py(*v);
        c.polyline(&[(plot.x0 - 5.0, y), (plot.x0, y)], &black);
        c.text(
            l,
            plot.x0 - 8.0,
            y + TICK * 0.3,
            &tick_style.anchor(Anchor::End),
        );
    }
    for v in &p.y.minor {
        c.polyline(&[(plot.x0 - 3.0, py(*v)), (plot.x0, py(*v))], &black);
    }
    c.text(
        &spec.x_label,
        (plot.x0 + plot.x1) / 2.0,
        plot.y1 + 14.0 + TICK + 12.0 + AXIS_TITLE * 0.5,
        &TextStyle::new(AXIS_TITLE).anchor(Anchor::Middle),
    );
    c.text(
        &spec.y_label,
        MARGIN + AXIS_TITLE * 0.8,
        (plot.y0 + plot.y1) / 2.0,
        &TextStyle::new(AXIS_TITLE).anchor(Anchor::Middle).vertical(),
    );
    // The unstable band.
    if let Some(b) = p.unstable {
        c.polygon(
            &[(b.x0, b.y0), (b.x1, b.y0), (b.x1, b.y1), (b.x0, b.y1)],
            Some((Rgb(246, 246, 246), 1.0)),
            Some(&Stroke::solid(Rgb(190, 190, 190), 1.0)),
        );
        c.text(
            "unstable",
            plot.x0 - 8.0,
            (b.y0 + b.y1) / 2.0 + LEGEND * 0.3,
            &TextStyle::new(LEGEND)
                .anchor(Anchor::End)
                .colour(Rgb(60, 60, 60)),
        );
        for m in p.marks.iter().filter(|m| m.kind == MarkKind::Unstable) {
            let st = &p.styles[m.series];
            draw_marker(c, st, m.cx, m.cy, m.r, st.hollow);
        }
    }
    // The legend.
    if let Some(l) = p.legend {
        c.polygon(
            &[(l.x0, l.y0), (l.x1, l.y0), (l.x1, l.y1), (l.x0, l.y1)],
            Some((WHITE, 1.0)),
            Some(&Stroke::solid(Rgb(170, 170, 170), 1.0)),
        );
    }
    for e in &p.entries {
        let r = e.rect;
        let (sx0, sx1) = (r.x0, r.x0 + 36.0);
        let sy = r.y0 + LEGEND * 0.55;
        let sm = (sx0 + sx1) / 2.0;
        match e.sample {
            Sample::Series(i) => {
                let st = &p.styles[i];
                let w = if fig.paths.is_empty() { 2.0 } else { 2.8 };
                c.polyline(
                    &[(sx0, sy), (sx1, sy)],
                    &Stroke::dashed(st.colour, w, &st.dash),
                );
                if fig.paths.is_empty() {
                    draw_marker(c, st, sm, sy, R, st.hollow);
                }
            }
            Sample::Reference(i) => {
                if fig.references[i].band.is_some() {
                    c.polygon(
                        &[
                            (sx0, sy - 6.0),
                            (sx1, sy - 6.0),
                            (sx1, sy + 6.0),
                            (sx0, sy + 6.0),
                        ],
                        Some((BAND_COLOUR, BAND_ALPHA)),
                        None,
                    );
                }
                c.polyline(
                    &[(sx0, sy), (sx1, sy)],
                    &Stroke::dashed(REF_COLOUR, 1.6, REF_DASHES[i % REF_DASHES.len()]),
                );
            }
            Sample::BoundNote | Sample::ZeroNote => {
                let grey = Style {
                    colour: Rgb(90, 90, 90),
                    marker: Marker::Circle,
                    dash: Vec::new(),
                    hollow: true,
                };
                if e.sample == Sample::BoundNote {
                    arrow_down(c, grey.colour, sm, sy - 2.0, 10.0);
                    draw_marker(c, &grey, sm, sy - 6.0, 4.0, true);
                } else {
                    draw_marker(c, &grey, sm, sy, R, true);
                }
            }
            Sample::PathNote => {
                c.polyline(
                    &[(sx0, sy), (sx1, sy)],
                    &Stroke {
                        colour: Rgb(90, 90, 90),
                        alpha: 0.5,
                        width: 1.0,
                        dash: Vec::new(),
                    },
                );
            }
        }
        for (k, line) in e.lines.iter().enumerate() {
            c.text(
                line,
                sx1 + 8.0,
                r.y0 + LEGEND * 0.85 + k as f64 * (LEGEND + 3.0),
                &TextStyle::new(LEGEND),
            );
        }
    }
    if fig.paths.is_empty() && spec.kind == FigureKind::Path {
        c.text(
            "no sample paths recorded for these points",
            (plot.x0 + plot.x1) / 2.0,
            (plot.y0 + plot.y1) / 2.0,
            &TextStyle::new(AXIS_TITLE)
                .anchor(Anchor::Middle)
                .colour(Rgb(90, 90, 90)),
        );
    }
    // Title and caption.
    for (k, line) in p.title.iter().enumerate() {
        c.text(
            line,
            p.width / 2.0,
            MARGIN + TITLE * 0.8 + k as f64 * (TITLE + 6.0),
            &TextStyle::new(TITLE).anchor(Anchor::Middle),
        );
    }
    for (k, line) in p.caption.iter().enumerate() {
        c.text(
            line,
            MARGIN + 2.0,
            p.caption_top + k as f64 * (CAPTION + 5.0),
            &TextStyle::new(CAPTION),
        );
    }
}

type DrawResult<T> = Result<T, Box<dyn std::error::Error>>;

/// The SVG text of `fig` and its plan.
pub fn svg(fig: &Figure) -> (String, Plan) {
    let p = plan(fig);
    let mut s = Svg::new(p.width, p.height);
    paint(&mut s, fig, &p);
    (s.finish(), p)
}

/// Renders `fig` to `<stem>.svg` and `<stem>.png`; returns its plan.
pub fn render(fig: &Figure, stem: &Path) -> DrawResult<Plan> {
    let (text, p) = svg(fig);
    std::fs::write(stem.with_extension("svg"), text)?;
    let png = stem.with_extension("png");
    {
        let root = BitMapBackend::new(&png, (p.width as u32, p.height as u32)).into_drawing_area();
        root.fill(&plotters::style::WHITE)?;
        let mut c = Png::new(root);
        paint(&mut c, fig, &p);
        c.finish()?;
    }
    Ok(p)
}
