//! Painting a laid-out figure on a [`Canvas`] (SVG written by hand, PNG by
//! plotters): exactly what the [`Layout`] holds, layer by layer — grid,
//! reference bands, paths, series, reference curves, markers, axes, the
//! unstable band, the legend, title and caption.

use super::references::RefShape;
use super::series::Figure;
use lb_draw::canvas::{Anchor, Canvas, Rgb, Stroke, TextStyle, WHITE};
use lb_draw::clip::clipped;
use lb_draw::geometry::{
    ARROW_ROOM, AXIS_TITLE, CAPTION, LEGEND, Layout, MARGIN, Mark, MarkKind, R, Rect, Sample, TICK,
    TITLE, ZERO_ROW,
};
use lb_draw::style::{
    BAND_ALPHA, BAND_COLOUR, BLACK_RGB, Marker, REF_COLOUR, REF_DASHES, Style, marker_points,
};
use lb_manifest::outputs::FigureKind;

/// A marker of `style` centred at (x, y), filled or `hollow`.
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

/// The dashed ring of a point whose runs have not settled.
fn ring(c: &mut dyn Canvas, x: f64, y: f64, r: f64) {
    let pts: Vec<(f64, f64)> = (0..=40)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / 40.0;
            (x + r * a.cos(), y + r * a.sin())
        })
        .collect();
    c.polyline(&pts, &Stroke::dashed(BLACK_RGB, 1.2, &[2.5, 2.0]));
}

/// An arrow down from (x, y), `len` long.
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
pub(crate) fn paint(c: &mut dyn Canvas, fig: &Figure, p: &Layout) {
    paint_grid(c, p);
    paint_bands(c, fig, p);
    paint_paths(c, fig, p);
    paint_series(c, fig, p);
    paint_reference_curves(c, fig, p);
    paint_markers(c, fig, p);
    paint_single_x_references(c, fig, p);
    paint_zero_row(c, p);
    paint_axes(c, fig, p);
    paint_unstable_band(c, p);
    paint_legend(c, fig, p);
    paint_texts(c, fig, p);
}

/// The grid: minor lines, then the lines of labelled ticks.
fn paint_grid(c: &mut dyn Canvas, p: &Layout) {
    let plot = p.plot;
    let px = |v: f64| p.px(v);
    let py = |v: f64| p.py(v);
    let grid = Stroke::solid(Rgb(222, 222, 222), 1.0);
    let minor = Stroke::solid(Rgb(243, 243, 243), 1.0);
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
}

/// The bands of references with a tolerance, under everything else.
fn paint_bands(c: &mut dyn Canvas, fig: &Figure, p: &Layout) {
    let plot = p.plot;
    let px = |v: f64| p.px(v);
    let py = |v: f64| p.py(v);
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
}

/// The sample paths of a path figure: single replications thin, the mean
/// in the series' dash.
fn paint_paths(c: &mut dyn Canvas, fig: &Figure, p: &Layout) {
    let plot = p.plot;
    let px = |v: f64| p.px(v);
    let py = |v: f64| p.py(v);
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
}

/// A value to three significant digits.
fn three_digits(v: f64) -> String {
    let e = if v == 0.0 {
        0
    } else {
        v.abs().log10().floor() as i32
    };
    lb_draw::ticks::format_tick(v, Some((2 - e).max(0) as usize))
}

/// An arrow head at (x, y) pointing up (`up`) or down.
fn arrow_head(c: &mut dyn Canvas, colour: Rgb, x: f64, y: f64, up: bool) {
    let d = if up { 1.0 } else { -1.0 };
    c.polygon(
        &[(x - 3.5, y + 6.0 * d), (x + 3.5, y + 6.0 * d), (x, y - d)],
        Some((colour, 1.0)),
        None,
    );
}

/// Each series' intervals (an arrow where the axis cuts one) and the line
/// through its points.
fn paint_series(c: &mut dyn Canvas, fig: &Figure, p: &Layout) {
    for (i, _) in fig.series.iter().enumerate() {
        let st = &p.styles[i];
        let marks: Vec<&Mark> = p.marks.iter().filter(|m| m.series == i).collect();
        for m in &marks {
            let Some((y0, y1)) = m.bar else { continue };
            let bar = Stroke::solid(st.colour, 1.3);
            c.polyline(&[(m.cx, y0), (m.cx, y1)], &bar);
            for (y, cut, up) in [(y0, m.cut.0, true), (y1, m.cut.1, false)] {
                if cut {
                    arrow_head(c, st.colour, m.cx, y, up);
                } else {
                    c.polyline(&[(m.cx - 4.5, y), (m.cx + 4.5, y)], &bar);
                }
            }
        }
        let pts: Vec<(f64, f64)> = marks
            .iter()
            .filter(|m| m.kind == MarkKind::Point)
            .map(|m| (m.cx, m.cy))
            .collect();
        c.polyline(&pts, &Stroke::dashed(st.colour, 2.0, &st.dash));
    }
}

/// Reference curves and lines (clipped to the plot).
fn paint_reference_curves(c: &mut dyn Canvas, fig: &Figure, p: &Layout) {
    let plot = p.plot;
    let px = |v: f64| p.px(v);
    // A value of 0 (or below) on a log axis is drawn in the row of zeros.
    let py = |v: f64| {
        if fig.spec.log_y && v <= 0.0 {
            p.zero_row.unwrap_or(plot.y1)
        } else {
            p.py(v)
        }
    };
    // Reference curves over the series' lines (they often coincide: a
    // reader must see both), under the markers: dark, on a white halo of
    // the same dashes, so that the lines show through the gaps.
    for (i, r) in fig.references.iter().enumerate() {
        let dash = REF_DASHES[i % REF_DASHES.len()];
        let stroke = Stroke::dashed(REF_COLOUR, 2.0, dash);
        let halo = Stroke {
            colour: WHITE,
            alpha: 0.85,
            width: 5.0,
            dash: dash.to_vec(),
        };
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
                c.polyline(&piece, &halo);
                c.polyline(&piece, &stroke);
            }
        }
    }
}

/// The series' markers: points, upper bounds with their arrow, zeros.
fn paint_markers(c: &mut dyn Canvas, fig: &Figure, p: &Layout) {
    // The value labels of off-scale points placed so far, each its box
    // and 1 px around: a label that would overprint one moves a line
    // further from the edge.
    let mut labels: Vec<Rect> = Vec::new();
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
                MarkKind::OffScale => {
                    // At the edge it passed: an arrow toward the edge, the value beside.
                    let d = fig.series[i].dots.iter().find(|d| d.x == m.x);
                    let above = m.cy < (p.y_px.0 + p.y_px.1) / 2.0;
                    let tip = if above {
                        p.y_px.1 + 1.0
                    } else {
                        p.y_px.0 - 1.0
                    };
                    c.polyline(&[(m.cx, m.cy), (m.cx, tip)], &Stroke::solid(st.colour, 1.5));
                    arrow_head(c, st.colour, m.cx, tip, above);
                    draw_marker(c, st, m.cx, m.cy, m.r, true);
                    if let Some(d) = d {
                        // Centred under the marker (over it at the bottom
                        // edge), clear of the neighbouring markers.
                        let text = three_digits(d.est.mean);
                        let w = lb_draw::canvas::text_width(&text, LEGEND);
                        let (x0, x1) = (m.cx - w / 2.0, m.cx + w / 2.0);
                        let mut y = if above {
                            m.cy + 2.2 * m.r + LEGEND
                        } else {
                            m.cy - 2.2 * m.r - 3.0
                        };
                        let step = if above { LEGEND + 3.0 } else { -(LEGEND + 3.0) };
                        // The label's box: from its baseline y, LEGEND high.
                        let label = |y: f64, pad: f64| Rect {
                            x0: x0 - pad,
                            y0: y - LEGEND - pad,
                            x1: x1 + pad,
                            y1: y + pad,
                        };
                        let over_mark = |y: f64| {
                            p.marks.iter().any(|o| {
                                let marker = Rect {
                                    x0: o.cx - o.r,
                                    y0: o.cy - o.r,
                                    x1: o.cx + o.r,
                                    y1: o.cy + o.r,
                                };
                                !std::ptr::eq(o, *m)
                                    && o.kind != MarkKind::Unstable
                                    && label(y, 0.0).intersects(&marker)
                            })
                        };
                        while labels.iter().any(|a| a.intersects(&label(y, 1.0))) || over_mark(y) {
                            y += step;
                        }
                        labels.push(label(y, 1.0));
                        c.text(
                            &text,
                            m.cx,
                            y,
                            &TextStyle::new(LEGEND)
                                .colour(st.colour)
                                .anchor(Anchor::Middle),
                        );
                    }
                }
                MarkKind::Unstable => {}
            }
            if m.unsettled {
                ring(c, m.cx, m.cy, 2.1 * m.r);
            }
        }
    }
}

/// References known at a single x only.
fn paint_single_x_references(c: &mut dyn Canvas, fig: &Figure, p: &Layout) {
    let px = |v: f64| p.px(v);
    let py = |v: f64| p.py(v);
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
}

/// The row of zeros below a log y axis, if any.
fn paint_zero_row(c: &mut dyn Canvas, p: &Layout) {
    let plot = p.plot;
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
}

/// The frame of the plot, its ticks, tick labels and axis titles.
fn paint_axes(c: &mut dyn Canvas, fig: &Figure, p: &Layout) {
    let spec = &fig.spec;
    let plot = p.plot;
    let px = |v: f64| p.px(v);
    let py = |v: f64| p.py(v);
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
}

/// The band of unstable points above the plot, with their markers.
fn paint_unstable_band(c: &mut dyn Canvas, p: &Layout) {
    let plot = p.plot;
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
}

/// The legend: its box, and each entry's sample and label lines.
fn paint_legend(c: &mut dyn Canvas, fig: &Figure, p: &Layout) {
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
}

/// The note of a path figure without paths, the title and the caption.
fn paint_texts(c: &mut dyn Canvas, fig: &Figure, p: &Layout) {
    let spec = &fig.spec;
    let plot = p.plot;
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
