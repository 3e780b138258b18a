//! Figures with plotters, as SVG and PNG (issue 4): one line per series, a
//! 95% error bar on every point, log axes on request, unstable points marked
//! (never plotted as numbers), and a caption naming the setting and its
//! assumptions. Text uses DejaVu Sans embedded in the binary, so a figure
//! renders the same on any machine, fonts installed or not.

use crate::metric::Metric;
use crate::results::PointResult;
use crate::stats::{LEVEL, interval};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

/// What a figure shows (the manifest's `[[figure]]`).
#[derive(Debug, Clone, PartialEq)]
pub struct FigureSpec {
    /// File stem under `paper-figures/`.
    pub name: String,
    pub title: String,
    /// The sweep axis on the x axis.
    pub x: String,
    pub x_label: String,
    pub y: Metric,
    /// Axes (besides the policy) that tell series apart, e.g. `count_own`.
    pub series: Vec<String>,
    /// Only points whose axes take one of these values.
    pub filter: Vec<(String, Vec<String>)>,
    /// Only these policies (labels); empty: all.
    pub policies: Vec<String>,
    pub log_x: bool,
    pub log_y: bool,
    /// Draw ζ(ε) of each point's system as a dashed line (heavy traffic).
    pub zeta_line: bool,
    pub caption: String,
    /// What the seed claims the figure shows.
    pub claim: Option<String>,
}

impl FigureSpec {
    /// From the manifest's `[[figure]]` (validated by lb-runner).
    pub fn from_toml(model: lb_runner::Model, f: &lb_runner::outputs::FigureToml) -> FigureSpec {
        FigureSpec {
            name: f.name.clone(),
            title: f.title.clone(),
            x: f.x.clone(),
            x_label: f.x_label.clone().unwrap_or_else(|| f.x.clone()),
            y: Metric::validated(model, &f.y),
            series: f.series.clone(),
            filter: f
                .filter
                .iter()
                .map(|(k, v)| (k.clone(), lb_runner::outputs::where_values(v)))
                .collect(),
            policies: f.policies.clone(),
            log_x: f.log_x,
            log_y: f.log_y,
            zeta_line: f.zeta_line,
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
                .all(|(a, vs)| r.axis(a).is_some_and(|v| vs.iter().any(|w| w == v)))
    }
}

/// One plotted point.
#[derive(Debug, Clone, PartialEq)]
pub struct Dot {
    pub x: f64,
    pub mean: f64,
    pub half_width: Option<f64>,
    pub stable: bool,
    pub key: String,
}

/// A series: its name and its points in x order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    pub dots: Vec<Dot>,
}

/// Groups the results into series (policy label + the spec's series axes).
pub fn series(spec: &FigureSpec, results: &[PointResult]) -> Vec<Series> {
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
        let ys: Vec<f64> = r
            .summaries
            .iter()
            .filter_map(|s| spec.y.value(point, s))
            .collect();
        if ys.is_empty() {
            continue;
        }
        let stable = !crate::results::point_unstable(&r.summaries);
        let (mean, half_width) = if ys.len() >= 2 {
            let iv = interval(&ys, LEVEL);
            (iv.mean, Some(iv.half_width))
        } else {
            (ys[0], None)
        };
        let mut name = r.label.clone();
        for a in &spec.series {
            if let Some(v) = r.axis(a) {
                name.push_str(&format!(" ({a} = {v})"));
            }
        }
        let dot = Dot {
            x,
            mean,
            half_width,
            stable,
            key: key.hex(),
        };
        match out.iter_mut().find(|s| s.name == name) {
            Some(s) => s.dots.push(dot),
            None => out.push(Series {
                name,
                dots: vec![dot],
            }),
        }
    }
    for s in &mut out {
        s.dots.sort_by(|a, b| a.x.total_cmp(&b.x));
    }
    out
}

/// ζ(ε) of each point in the figure, for the reference line.
pub fn zeta_points(spec: &FigureSpec, results: &[PointResult]) -> Vec<(f64, f64)> {
    let mut pts: Vec<(f64, f64)> = results
        .iter()
        .filter(|r| spec.selects(r))
        .filter_map(|r| {
            let x = r.axis(&spec.x)?.parse::<f64>().ok()?;
            let point = r.point.as_ref()?;
            let z = point.config.reference("zeta", point, 0).ok()?;
            Some((
                x,
                if spec.y.name() == "zeta_ratio" {
                    1.0
                } else {
                    z
                },
            ))
        })
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    pts.dedup_by(|a, b| a.0 == b.0);
    pts
}

const PALETTE: [RGBColor; 10] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(153, 153, 51),
    RGBColor(136, 34, 85),
    RGBColor(68, 119, 170),
];

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Registration fails only on a malformed font; the bytes are fixed.
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            dejavu::sans::regular(),
        );
    });
}

/// Splits a caption into lines of at most `width` characters.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for para in text.split('\n') {
        let mut line = String::new();
        for word in para.split_whitespace() {
            if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        lines.push(line);
    }
    lines
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

const W: u32 = 960;
const PLOT_H: u32 = 600;

/// Height of the caption block for `caption`.
fn caption_lines(caption: &str) -> Vec<String> {
    wrap(caption, 130)
}

/// Renders `series` to `<stem>.svg` and `<stem>.png`.
pub fn render(
    spec: &FigureSpec,
    series: &[Series],
    zeta: &[(f64, f64)],
    stem: &Path,
) -> DrawResult {
    register_font();
    let lines = caption_lines(&spec.caption);
    let h = PLOT_H + 16 + 18 * lines.len() as u32;
    let svg = stem.with_extension("svg");
    {
        let root = SVGBackend::new(&svg, (W, h)).into_drawing_area();
        draw(root, spec, series, zeta, &lines)?;
    }
    let png = stem.with_extension("png");
    {
        let root = BitMapBackend::new(&png, (W, h)).into_drawing_area();
        draw(root, spec, series, zeta, &lines)?;
    }
    Ok(())
}

fn bounds(vals: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals {
        if v.is_finite() && (!log || v > 0.0) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    if !lo.is_finite() {
        return if log { (0.1, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        (lo / 1.25, hi * 1.25)
    } else {
        let pad = ((hi - lo) * 0.05).max(1e-9);
        (lo - pad, hi + pad)
    }
}

fn chart_builder<'a, 'b, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    title: &'b str,
) -> ChartBuilder<'a, 'b, DB> {
    let mut b = ChartBuilder::on(area);
    b.caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(72);
    b
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    spec: &FigureSpec,
    series: &[Series],
    zeta: &[(f64, f64)],
    caption: &[String],
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (plot, cap) = root.split_vertically(PLOT_H);
    let xs = series.iter().flat_map(|s| s.dots.iter().map(|d| d.x));
    let (x0, x1) = bounds(xs, spec.log_x);
    let ys = series
        .iter()
        .flat_map(|s| s.dots.iter().filter(|d| d.stable))
        .flat_map(|d| {
            let h = d.half_width.unwrap_or(0.0);
            [d.mean - h, d.mean + h]
        })
        .chain(zeta.iter().map(|z| z.1));
    let (y0, y1) = bounds(ys, spec.log_y);
    macro_rules! body {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(spec.x_label.as_str())
                .y_desc(spec.y.label())
                .label_style(("sans-serif", 14))
                .axis_desc_style(("sans-serif", 16))
                .draw()?;
            if !zeta.is_empty() {
                chart
                    .draw_series(DashedLineSeries::new(
                        zeta.iter().copied(),
                        6,
                        4,
                        BLACK.stroke_width(2),
                    ))?
                    .label("ζ = (σ²_Σ + ν²_Σ)/2")
                    .legend(|(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(2))
                    });
            }
            for (i, s) in series.iter().enumerate() {
                let c = PALETTE[i % PALETTE.len()];
                let ok: Vec<&Dot> = s.dots.iter().filter(|d| d.stable).collect();
                chart
                    .draw_series(LineSeries::new(
                        ok.iter().map(|d| (d.x, d.mean)),
                        c.stroke_width(2),
                    ))?
                    .label(s.name.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                    });
                chart.draw_series(ok.iter().map(|d| Circle::new((d.x, d.mean), 3, c.filled())))?;
                chart.draw_series(ok.iter().filter_map(|d| {
                    let h = d.half_width?;
                    let lo = if spec.log_y {
                        (d.mean - h).max(y0)
                    } else {
                        d.mean - h
                    };
                    Some(ErrorBar::new_vertical(
                        d.x,
                        lo,
                        d.mean,
                        d.mean + h,
                        c.stroke_width(1),
                        8,
                    ))
                }))?;
                // Unstable points: a cross on the top edge, not a number.
                chart.draw_series(
                    s.dots
                        .iter()
                        .filter(|d| !d.stable)
                        .map(|d| Cross::new((d.x, y1), 6, c.stroke_width(2))),
                )?;
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .label_font(("sans-serif", 13))
                .position(SeriesLabelPosition::UpperLeft)
                .draw()?;
        }};
    }
    let builder = |area| chart_builder(area, spec.title.as_str());
    match (spec.log_x, spec.log_y) {
        (false, false) => body!(builder(&plot).build_cartesian_2d(x0..x1, y0..y1)?),
        (true, false) => body!(builder(&plot).build_cartesian_2d((x0..x1).log_scale(), y0..y1)?),
        (false, true) => body!(builder(&plot).build_cartesian_2d(x0..x1, (y0..y1).log_scale())?),
        (true, true) => {
            body!(builder(&plot).build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())?)
        }
    }
    for (i, line) in caption.iter().enumerate() {
        cap.draw(&Text::new(
            line.as_str(),
            (16, 8 + 18 * i as i32),
            ("sans-serif", 14).into_font().color(&BLACK),
        ))?;
    }
    root.present()?;
    Ok(())
}
