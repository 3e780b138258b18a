//! Figures, as SVG and PNG: one line per series with an
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
//!   ([`Layout::legend`](lb_draw::geometry::Layout::legend) and
//!   [`Layout::marks`](lb_draw::geometry::Layout::marks) let a test check it);
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
//! then painted on a [`Canvas`](lb_draw::canvas::Canvas) (SVG written by hand,
//! PNG by plotters).
//!
//! The parts, one job each:
//!
//! - `spec`: what a figure is (the manifest's `[[figure]]`);
//! - the data it draws: `series` (per series, gathered into a [`Figure`]),
//!   `references`, `paths` (sample paths);
//! - from lb-draw: `style` (palette, markers and dashes), `axis` (ranges,
//!   ticks and their labels), `geometry` (the laid-out figure as data,
//!   [`Layout`](lb_draw::geometry::Layout), and its sizes) and `clip`;
//! - `layout`: [`plan`], every rectangle and mark in pixels;
//! - `paint`: drawing a plan on a canvas ([`paint::paint()`]), with `clip`: lines
//!   cut at the plot's frame;
//! - `render`: the SVG and PNG files ([`svg`], [`render()`]).

mod layout;
mod paint;
mod paths;
mod references;
mod render;
mod series;
mod spec;

pub use layout::{bars_note, plan};
pub use paths::{PathSeries, mean_path};
pub use references::{RefDrawn, RefShape, references};
pub use render::{render, svg};
pub use series::{Dot, Figure, Series, point_estimate, series};
pub use spec::FigureSpec;
