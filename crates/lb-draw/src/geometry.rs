//! A figure laid out, as data: rectangles, marks, legend entries and the
//! [`Layout`] that holds them all in pixels, and the sizes (fonts, margins,
//! plot height) every layout uses.

use crate::axis::Axis;
use crate::style::Style;

/// A rectangle in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub x0: f64,
    /// Top edge.
    pub y0: f64,
    /// Right edge.
    pub x1: f64,
    /// Bottom edge.
    pub y1: f64,
}

impl Rect {
    /// Whether it overlaps `o`.
    pub fn intersects(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
    /// Whether (x, y) lies inside it, edges included.
    pub fn contains(&self, x: f64, y: f64) -> bool {
        (self.x0..=self.x1).contains(&x) && (self.y0..=self.y1).contains(&y)
    }
    /// Its width.
    pub fn w(&self) -> f64 {
        self.x1 - self.x0
    }
    /// Its height.
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
    /// A point beyond the y axis's range (a figure's `y_range`): at the
    /// edge it passed, hollow, with an arrow toward it and its value.
    OffScale,
}

/// A data mark as laid out: its series, x, kind, and the box it covers
/// (marker, with its interval or arrow).
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// The series it belongs to.
    pub series: usize,
    /// The point's x value.
    pub x: f64,
    /// What it marks.
    pub kind: MarkKind,
    /// The marker's centre, x in pixels.
    pub cx: f64,
    /// Its centre, y in pixels.
    pub cy: f64,
    /// Its radius in pixels.
    pub r: f64,
    /// The marker's box.
    pub bbox: Rect,
    /// A point whose runs have not settled: ringed.
    pub unsettled: bool,
    /// Its interval as drawn, in pixel rows (top, bottom), inside the plot.
    pub bar: Option<(f64, f64)>,
    /// Whether the interval was cut at the top or the bottom of the axis
    /// (then drawn with an arrow there, not a cap).
    pub cut: (bool, bool),
}

/// A legend entry: what its sample shows, and its label lines.
#[derive(Debug, Clone, PartialEq)]
pub enum Sample {
    /// Series `i`'s line and marker.
    Series(usize),
    /// Reference `i`'s line or band.
    Reference(usize),
    /// "No event seen: upper bound" (arrow down).
    BoundNote,
    /// "0 in every replication" (on a log axis).
    ZeroNote,
    /// A path figure: thin lines are single replications.
    PathNote,
}

#[derive(Debug, Clone, PartialEq)]
/// A legend entry as laid out.
pub struct LegendEntry {
    /// What its sample shows.
    pub sample: Sample,
    /// Its label, wrapped.
    pub lines: Vec<String>,
    /// The box it covers.
    pub rect: Rect,
}

/// A figure laid out: every rectangle and mark in pixels. lb-analysis's painter draws
/// exactly this.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The figure's width in pixels.
    pub width: f64,
    /// Its height in pixels.
    pub height: f64,
    /// The title, wrapped.
    pub title: Vec<String>,
    /// The plot area.
    pub plot: Rect,
    /// The x axis.
    pub x: Axis,
    /// The y axis.
    pub y: Axis,
    /// The band of unstable points above the plot, one row per series
    /// with unstable points.
    pub unstable: Option<Rect>,
    /// The series of each row of that band.
    pub unstable_rows: Vec<usize>,
    /// The legend's box, outside the plot.
    pub legend: Option<Rect>,
    /// The legend's entries.
    pub entries: Vec<LegendEntry>,
    /// Every data mark.
    pub marks: Vec<Mark>,
    /// Each series' style.
    pub styles: Vec<Style>,
    /// The caption, wrapped.
    pub caption: Vec<String>,
    /// The caption's top in pixels.
    pub caption_top: f64,
    /// The pixel rows of the y axis's lo and hi (inside the plot; a zero
    /// row below them on a log axis where some value is exactly 0).
    pub y_px: (f64, f64),
    /// The row of zeros on a log y axis, labelled 0.
    pub zero_row: Option<f64>,
}

impl Layout {
    /// The pixel column of x value `v`.
    pub fn px(&self, v: f64) -> f64 {
        self.plot.x0 + self.x.frac(v) * self.plot.w()
    }
    /// The pixel row of y value `v`.
    pub fn py(&self, v: f64) -> f64 {
        self.y_px.0 - self.y.frac(v) * (self.y_px.0 - self.y_px.1)
    }
}

/// A figure's width in pixels.
pub const W: f64 = 1080.0;
/// The margin around everything, in pixels.
pub const MARGIN: f64 = 14.0;
/// The plot area's height in pixels.
pub const PLOT_H: f64 = 430.0;
/// The title's font size.
pub const TITLE: f64 = 19.0;
/// Tick labels' font size.
pub const TICK: f64 = 13.5;
/// Axis titles' font size.
pub const AXIS_TITLE: f64 = 15.5;
/// The legend's font size.
pub const LEGEND: f64 = 13.0;
/// The caption's font size.
pub const CAPTION: f64 = 13.5;
/// A marker's radius in pixels.
pub const R: f64 = 4.6;
/// A row of the unstable band, in pixels.
pub const ROW: f64 = 14.0;
/// The widest a legend label runs before it wraps, in pixels.
pub const LEGEND_TEXT_MAX: f64 = 250.0;
/// Height of the row of zeros at the bottom of a log y axis.
pub const ZERO_ROW: f64 = 30.0;
/// Room below an upper bound for its arrow.
pub const ARROW_ROOM: f64 = 26.0;
