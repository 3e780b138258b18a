//! How series and references look: the palette (Okabe and Ito, safe for
//! colour-blind readers), markers and dash patterns, each series' [`Style`],
//! and the outline of every marker.

use crate::canvas::Rgb;

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
    /// A filled circle.
    Circle,
    /// A square.
    Square,
    /// A triangle pointing up.
    TriangleUp,
    /// A diamond.
    Diamond,
    /// A triangle pointing down.
    TriangleDown,
    /// A star.
    Star,
    /// A plus.
    Plus,
    /// A hexagon.
    Hexagon,
}

/// The markers in the order series take them.
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
pub const REF_DASHES: [&[f64]; 4] = [
    &[12.0, 5.0],
    &[3.0, 3.0],
    &[12.0, 3.0, 3.0, 3.0],
    &[6.0, 2.0],
];
/// References' colour.
pub const REF_COLOUR: Rgb = Rgb(40, 40, 40);
/// Black.
pub const BLACK_RGB: Rgb = Rgb(0, 0, 0);
/// A tolerance band's colour.
pub const BAND_COLOUR: Rgb = Rgb(150, 150, 150);
/// A tolerance band's opacity.
pub const BAND_ALPHA: f64 = 0.25;

/// How a series is drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Style {
    /// Its colour (Okabe–Ito).
    pub colour: Rgb,
    /// Its marker.
    pub marker: Marker,
    /// Its dash pattern (empty: solid).
    pub dash: Vec<f64>,
    /// Hollow markers (a second variant of a policy).
    pub hollow: bool,
}

/// Styles of series given as (policy, variant), in order: colour and marker
/// by policy; dash (and fill) by variant when the figure has variants, else
/// by series, so that every series differs from every other in colour,
/// marker and dash where the palette allows. Where the series are one
/// policy's variants only (a swept parameter: Pod with d = 1, 2, 3, 5),
/// nothing but the variant tells them apart: each variant takes its own
/// colour, marker and dash, as distinct policies do.
pub fn styles(series: &[(String, String)]) -> Vec<Style> {
    let one_policy = series
        .iter()
        .all(|(p, _)| series.first().is_some_and(|f| &f.0 == p));
    if one_policy && series.iter().any(|(_, v)| *v != series[0].1) {
        let swapped: Vec<(String, String)> =
            series.iter().map(|(p, v)| (v.clone(), p.clone())).collect();
        return styles(&swapped);
    }
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
            // Past the palette's 8, a policy's colour and marker repeat: it
            // is drawn hollow and with the next dash, so no two look alike.
            let round = pi / PALETTE.len();
            Style {
                colour: PALETTE[pi % PALETTE.len()],
                marker: MARKERS[pi % MARKERS.len()],
                dash: DASHES[(di + round) % DASHES.len()].to_vec(),
                hollow: (has_variants && vi % 2 == 1) != (round % 2 == 1),
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
