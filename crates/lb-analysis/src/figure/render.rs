//! A figure as files: its SVG text, and `<stem>.svg` with `<stem>.png` and
//! `<stem>.pdf` (the SVG converted: [`lb_draw::pdf`]), each laid out
//! ([`plan`]) then painted ([`paint`]).

use super::layout::plan;
use super::paint::paint;
use super::series::Figure;
use lb_draw::canvas::{Png, Svg};
use lb_draw::geometry::Layout;
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
    std::fs::write(stem.with_extension("pdf"), lb_draw::pdf::from_svg(&text)?)?;
    std::fs::write(stem.with_extension("svg"), text)?;
    let png = stem.with_extension("png");
    Png::write(&png, p.width, p.height, |c| paint(c, fig, &p))?;
    Ok(p)
}
