//! A figure as files: its SVG text, and `<stem>.svg` with `<stem>.png` and
//! `<stem>.pdf` (the SVG converted: [`crate::pdf`]), each laid out
//! ([`plan`]) then painted ([`paint`]).

use super::geometry::Layout;
use super::layout::plan;
use super::paint::paint;
use super::series::Figure;
use crate::canvas::{Png, Svg};
use plotters::prelude::{BitMapBackend, IntoDrawingArea};
use std::path::Path;

type DrawResult<T> = Result<T, Box<dyn std::error::Error>>;

/// The SVG text of `fig` and its plan.
pub fn svg(fig: &Figure) -> (String, Layout) {
    let p = plan(fig);
    let mut s = Svg::new(p.width, p.height);
    paint(&mut s, fig, &p);
    (s.finish(), p)
}

/// Renders `fig` to `<stem>.svg`, `<stem>.png` and `<stem>.pdf`; returns
/// its plan.
pub fn render(fig: &Figure, stem: &Path) -> DrawResult<Layout> {
    let (text, p) = svg(fig);
    std::fs::write(stem.with_extension("pdf"), crate::pdf::from_svg(&text)?)?;
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
