//! Laying out a figure ([`plan`], pure): every rectangle and mark in
//! pixels — the axes, the plot, the unstable band above it, the legend
//! outside it (so it covers no data), the markers (dodged apart where series
//! coincide) and the caption. [`paint`](super::paint::paint()) draws exactly this.

use super::references::RefShape;
use super::series::Figure;
use crate::stats::{IntervalKind, MetricKind};
use lb_draw::axis::{Axis, axis, thin_ticks};
use lb_draw::canvas::{text_width, wrap};
use lb_draw::geometry::{
    ARROW_ROOM, AXIS_TITLE, CAPTION, LEGEND, LEGEND_TEXT_MAX, Layout, LegendEntry, MARGIN, Mark,
    MarkKind, PLOT_H, R, ROW, Rect, Sample, TICK, TITLE, W, ZERO_ROW,
};
use lb_draw::style::styles;
use lb_draw::ticks;
use lb_manifest::outputs::FigureKind;

/// Lays out `fig`.
pub fn plan(fig: &Figure) -> Layout {
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
    let (xs, ys) = data_values(fig, path);
    let integer_x = !xs.is_empty() && xs.iter().all(|v| v.fract() == 0.0);
    let (mut x, y, zeros) = axes(fig, &xs, &ys, integer_x);

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
    let entries = legend_entries(fig, path);
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

    // The legend, right of the plot.
    let (entry_rects, legend) = legend_layout(&entries, &lines, &plot, right, legend_w);
    let axis_bottom = plot.y1 + 14.0 + TICK + 12.0 + AXIS_TITLE;
    let caption_top = axis_bottom.max(legend.map_or(0.0, |l| l.y1)) + 18.0;
    // Some slack: an SVG viewer may set the text in a wider font than DejaVu.
    let unsettled = fig
        .series
        .iter()
        .flat_map(|s| &s.dots)
        .any(|d| d.stable && !d.settled);
    let mut caption = spec.caption.clone();
    if let Some(bars) = bars_note(fig, &spec.caption) {
        caption = format!("{caption} {bars}");
    }
    if unsettled {
        caption = format!("{caption} {UNSETTLED_NOTE}");
    }
    let caption = wrap(&caption, CAPTION, 0.96 * (W - 2.0 * MARGIN));
    let height = (caption_top + caption.len() as f64 * (CAPTION + 5.0) + MARGIN).ceil();
    let y_px = (plot.y1 - if zeros { ZERO_ROW } else { 0.0 }, plot.y0);
    let zero_row = zeros.then_some(plot.y1 - ZERO_ROW / 2.0);
    let mut p = Layout {
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
        marks: Vec::new(),
        styles,
        caption,
        caption_top,
        y_px,
        zero_row,
    };
    // Marks, at the plan's pixels, then moved apart where series coincide.
    p.marks = place_marks(fig, &p);
    dodge(&mut p.marks, R, (plot.x0, plot.x1));
    p
}

/// The values a figure's axes must show: every x; the y of every settled
/// point (its mean and interval, or its upper bound), of the references
/// (with their bands), or of the sample paths.
fn data_values(fig: &Figure, path: bool) -> (Vec<f64>, Vec<f64>) {
    let spec = &fig.spec;
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
    (xs, ys)
}

/// Whether a log y axis needs a row of zeros below it: a point's mean of 0,
/// or a reference at 0 (a limit of 0, drawn in that row).
fn has_zeros(fig: &Figure) -> bool {
    let zero_dot = fig
        .series
        .iter()
        .flat_map(|s| &s.dots)
        .any(|d| d.stable && d.est.kind != IntervalKind::UpperBound && d.est.mean <= 0.0);
    let zero_reference = fig.references.iter().any(|r| match &r.shape {
        RefShape::Constant(v) => *v <= 0.0,
        RefShape::Curves(cs) => cs.iter().flatten().any(|p| p.1 <= 0.0),
    });
    fig.spec.log_y && (zero_dot || zero_reference)
}

/// The axes over the values `xs` and `ys`, and whether a log y axis needs
/// a row of zeros below it. The y axis leaves room for the arrows of upper
/// bounds and has its labels thinned; the x axis is thinned once the plot's
/// width is known.
fn axes(fig: &Figure, xs: &[f64], ys: &[f64], integer_x: bool) -> (Axis, Axis, bool) {
    let spec = &fig.spec;
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
    let x = axis(xs, spec.log_x, integer_x, false, x_pad);
    // The margin above and below the data: on a log axis at least 3.7% of
    // the decades shown (about 15 pixels), so that no marker or interval
    // cap at the extremes is cut by the frame.
    let y_pad = if spec.log_y {
        let (lo, hi) = ys
            .iter()
            .filter(|v| **v > 0.0 && v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(*v), b.max(*v))
            });
        let decades = if lo.is_finite() && hi > lo {
            (hi / lo).log10()
        } else {
            0.0
        };
        (10f64.powf(0.037 * decades) - 1.0).max(0.15)
    } else {
        0.05
    };
    // A manifest's `y_range` fixes the axis; points beyond it are drawn at
    // its edge (MarkKind::OffScale).
    if let Some([lo, hi]) = spec.y_range {
        let mut y = axis(&[lo, hi], spec.log_y, false, false, 0.0);
        y.lo = lo;
        y.hi = hi;
        let tol = 1e-9 * (hi - lo);
        let inside = |v: f64| v >= lo - tol && v <= hi + tol;
        y.ticks.retain(|t| inside(t.0));
        y.minor.retain(|v| inside(*v));
        let zeros = has_zeros(fig);
        let axis_h = PLOT_H - if zeros { ZERO_ROW } else { 0.0 };
        thin_ticks(&mut y, axis_h, |_| TICK, 6.0, false);
        return (x, y, zeros);
    }
    let mut y = axis(ys, spec.log_y, false, unit_y, y_pad);
    // A log axis has no 0: zeros get a row of their own below it.
    let zeros = has_zeros(fig);
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
            let mut v = ys.to_vec();
            v.push(lo * (1.0 + y_pad));
            y = axis(&v, spec.log_y, false, unit_y, y_pad);
        }
    }
    // Labels are text: thin them until they do not collide.
    thin_ticks(&mut y, axis_h, |_| TICK, 6.0, false);
    (x, y, zeros)
}

/// The legend's entries: a series each (the mean, in a path figure), the
/// references, and notes for the marks that need one.
fn legend_entries(fig: &Figure, path: bool) -> Vec<(Sample, String)> {
    let spec = &fig.spec;
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
            // A label that names its band already (the coverage
            // certificate's "band 93–97%") is not told it twice.
            if let Some(b) = r.band.filter(|_| !r.label.contains("band")) {
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
    entries
}

/// The legend's entries placed right of the plot (`right`: the plot's right
/// edge), each with its label `lines`, and the legend's box.
fn legend_layout(
    entries: &[(Sample, String)],
    lines: &[Vec<String>],
    plot: &Rect,
    right: f64,
    legend_w: f64,
) -> (Vec<LegendEntry>, Option<Rect>) {
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
    (entry_rects, legend)
}

/// What a figure's bars are, unless its caption already says (names an
/// interval): their level, kind and the replications behind them, from the
/// estimates drawn ("Bars: 95% Student-t intervals over 4–40 replications;
/// Wilson intervals on the pooled events for proportions.").
pub fn bars_note(fig: &Figure, caption: &str) -> Option<String> {
    use crate::stats::IntervalKind::*;
    if caption.to_lowercase().contains("interval") {
        return None;
    }
    let dots: Vec<&super::series::Dot> = fig.series.iter().flat_map(|s| &s.dots).collect();
    // The replications behind the intervals of some kinds: "8" or "4–40".
    let span = |kinds: &[crate::stats::IntervalKind]| {
        let ns = dots
            .iter()
            .filter(|d| kinds.contains(&d.est.kind))
            .map(|d| d.est.n);
        let (lo, hi) = (ns.clone().min()?, ns.max()?);
        Some(if lo == hi {
            format!("{lo}")
        } else {
            format!("{lo}–{hi}")
        })
    };
    let wilson = dots.iter().any(|d| d.est.kind == Wilson);
    let bound = dots.iter().any(|d| d.est.kind == UpperBound);
    let mut parts = Vec::new();
    if let Some(n) = span(&[StudentT, Clipped]) {
        parts.push(format!(
            "95% Student-t intervals over {n} independent replications"
        ));
    }
    if let Some(n) = span(&[ControlVariate]) {
        parts.push(format!(
            "where a point's precision rule pairs it with a control of exact mean, the 95% \
             control-variate interval (β fitted) over its {n} pairs"
        ));
    }
    if wilson {
        parts.push("95% Wilson intervals on the events pooled over the replications".into());
    }
    if bound {
        parts.push("where no event was seen, the 95% upper bound".into());
    }
    (!parts.is_empty()).then(|| format!("Bars: {}.", parts.join("; ")))
}

/// What the caption adds when a figure rings a point.
pub(crate) const UNSETTLED_NOTE: &str = "A dashed ring marks a point whose runs have not settled (MSER-5 \
     would still cut half a run's window, its batch means stay correlated, or its ΣQ is still rising, \
     but slowing): drawn, but it decides no claim.";

/// The marks of every point of `fig` on the plan `p`: at their value, in
/// the row of zeros, or in the unstable band (a row per series).
fn place_marks(fig: &Figure, p: &Layout) -> Vec<Mark> {
    let (unstable_rows, unstable, zero_row) = (&p.unstable_rows, p.unstable, p.zero_row);
    let px = |v: f64| p.px(v);
    let py = |v: f64| p.py(v);
    let spec_range = fig.spec.y_range;
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
            let off = |v: f64| {
                spec_range.is_some() && (v > p.y.hi || v < p.y.lo || (p.y.log && v <= 0.0))
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
                    _ if off(d.est.mean) => {
                        let above = d.est.mean > p.y.hi;
                        let edge = if above {
                            p.y_px.1 + 16.0
                        } else {
                            p.y_px.0 - 16.0
                        };
                        (MarkKind::OffScale, edge, R)
                    }
                    _ => (MarkKind::Point, py(d.est.mean), R),
                }
            };
            // The interval, cut at the axis's ends (an arrow marks a cut).
            let (mut bar, mut cut) = (None, (false, false));
            if kind == MarkKind::Point
                && let (Some(lo), Some(hi)) = (d.est.lo, d.est.hi)
            {
                let (top, bottom) = (p.y_px.1, p.y_px.0);
                let y_hi = if p.y.log && hi <= 0.0 { bottom } else { py(hi) };
                let y_lo = if p.y.log && lo <= 0.0 {
                    f64::INFINITY
                } else {
                    py(lo)
                };
                cut = (y_hi < top - 0.5, y_lo > bottom + 0.5);
                bar = Some((y_hi.clamp(top, bottom), y_lo.clamp(top, bottom)));
            }
            marks.push(Mark {
                series: i,
                x: d.x,
                kind,
                cx,
                cy,
                r,
                bbox: bbox(cx, cy, r),
                unsettled: d.stable && !d.settled,
                bar,
                cut,
            });
        }
    }
    marks
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
                MarkKind::Point | MarkKind::Bound | MarkKind::Zero | MarkKind::OffScale
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
