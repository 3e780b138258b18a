//! Where figures are painted: a few primitives in pixel coordinates (lines
//! with dash patterns, polygons, text in the markup of [`crate::markup`]),
//! written as SVG text by hand and as PNG through plotters' bitmap backend.
//!
//! Text is measured with DejaVu Sans (embedded), so a layout is the same on
//! every machine. The PNG draws with that font; the SVG names it first, and
//! leaves sub- and superscripts and combining accents (p̂) to the viewer's
//! text engine, as `<tspan>`s and characters.

use crate::markup::{Run, Script, is_combining, parse};
use ab_glyph::{Font as _, ScaleFont as _};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{FontDesc, FontFamily, FontStyle};
use std::fmt::Write as _;
use std::sync::Once;

/// A colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// Black.
pub const BLACK: Rgb = Rgb(0, 0, 0);
/// White.
pub const WHITE: Rgb = Rgb(255, 255, 255);

/// How text is placed about its point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// The text starts at the point.
    Start,
    /// It is centred on the point.
    Middle,
    /// It ends at the point.
    End,
}

/// A text's size (plotters' size: the font's ascent − descent in pixels),
/// colour, anchor and direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextStyle {
    /// Font size in pixels.
    pub size: f64,
    /// Colour.
    pub colour: Rgb,
    /// Where the text sits against its point.
    pub anchor: Anchor,
    /// Read bottom to top (a y-axis title).
    pub vertical: bool,
}

impl TextStyle {
    /// Black text of `size` pixels, starting at its point, horizontal.
    pub fn new(size: f64) -> TextStyle {
        TextStyle {
            size,
            colour: BLACK,
            anchor: Anchor::Start,
            vertical: false,
        }
    }
    /// The same, anchored at `a`.
    pub fn anchor(mut self, a: Anchor) -> TextStyle {
        self.anchor = a;
        self
    }
    /// The same, turned to read upward.
    pub fn vertical(mut self) -> TextStyle {
        self.vertical = true;
        self
    }
    /// The same, in colour `c`.
    pub fn colour(mut self, c: Rgb) -> TextStyle {
        self.colour = c;
        self
    }
}

/// A stroke: colour, opacity, width and dash pattern (on, off, … in pixels;
/// empty: solid).
#[derive(Debug, Clone, PartialEq)]
pub struct Stroke {
    /// Colour.
    pub colour: Rgb,
    /// Opacity, 0 to 1.
    pub alpha: f64,
    /// Line width in pixels.
    pub width: f64,
    /// Dash and gap lengths in pixels (empty: solid).
    pub dash: Vec<f64>,
}

impl Stroke {
    /// An opaque solid line.
    pub fn solid(colour: Rgb, width: f64) -> Stroke {
        Stroke {
            colour,
            alpha: 1.0,
            width,
            dash: Vec::new(),
        }
    }
    /// An opaque dashed line.
    pub fn dashed(colour: Rgb, width: f64, dash: &[f64]) -> Stroke {
        Stroke {
            colour,
            alpha: 1.0,
            width,
            dash: dash.to_vec(),
        }
    }
}

/// Where a figure is painted.
pub trait Canvas {
    /// An open line through `pts`.
    fn polyline(&mut self, pts: &[(f64, f64)], stroke: &Stroke);
    /// A closed polygon, filled (colour, opacity) and/or outlined.
    fn polygon(&mut self, pts: &[(f64, f64)], fill: Option<(Rgb, f64)>, stroke: Option<&Stroke>);
    /// Text in markup with its baseline through (x, y).
    fn text(&mut self, markup: &str, x: f64, y: f64, style: &TextStyle);
}

/// Size of sub- and superscripts relative to the text.
const SCRIPT: f64 = 0.72;
/// Their baseline shift (down positive), relative to the text size.
fn shift(script: Script) -> f64 {
    match script {
        Script::Normal => 0.0,
        Script::Sub => 0.22,
        Script::Sup => -0.36,
    }
}

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

fn font(size: f64) -> FontDesc<'static> {
    register_font();
    FontDesc::new(FontFamily::Name("sans-serif"), size, FontStyle::Normal)
}

/// The advance of plain `text` at `size`, in pixels.
fn advance(text: &str, size: f64) -> f64 {
    if text.is_empty() {
        return 0.0;
    }
    font(size)
        .box_size(text)
        .map(|(w, _)| w as f64)
        .unwrap_or(0.0)
}

fn run_size(r: &Run, size: f64) -> f64 {
    if r.script == Script::Normal {
        size
    } else {
        size * SCRIPT
    }
}

/// The width of `markup` typeset at `size`.
pub fn text_width(markup: &str, size: f64) -> f64 {
    parse(markup)
        .iter()
        .map(|r| advance(&r.text, run_size(r, size)))
        .sum()
}

/// Splits `markup` into lines no wider than `width` at `size`, at spaces
/// outside braces (a `_{…}` or `^{…}` script stays on one line).
pub fn wrap(markup: &str, size: f64, width: f64) -> Vec<String> {
    let mut lines = Vec::new();
    for para in markup.split('\n') {
        // Words: split at spaces outside {…} groups.
        let mut words: Vec<String> = Vec::new();
        let mut cur = String::new();
        let mut depth = 0i32;
        for c in para.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if c.is_whitespace() && depth <= 0 {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
            } else {
                cur.push(c);
            }
        }
        if !cur.is_empty() {
            words.push(cur);
        }
        let mut line = String::new();
        for w in words {
            let candidate = if line.is_empty() {
                w.clone()
            } else {
                format!("{line} {w}")
            };
            if !line.is_empty() && text_width(&candidate, size) > width {
                lines.push(std::mem::replace(&mut line, w));
            } else {
                line = candidate;
            }
        }
        lines.push(line);
    }
    lines
}

/// Splits a polyline into the dashes of `pattern` (empty: one solid piece).
pub fn dashes(pts: &[(f64, f64)], pattern: &[f64]) -> Vec<Vec<(f64, f64)>> {
    if pattern.is_empty() || pts.len() < 2 {
        return vec![pts.to_vec()];
    }
    let mut out = Vec::new();
    let mut cur: Vec<(f64, f64)> = vec![pts[0]];
    let (mut k, mut left, mut on) = (0usize, pattern[0], true);
    for w in pts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        let mut t = 0.0;
        while len - t > left {
            t += left;
            let p = (a.0 + (b.0 - a.0) * t / len, a.1 + (b.1 - a.1) * t / len);
            if on {
                cur.push(p);
                out.push(std::mem::take(&mut cur));
            } else {
                cur = vec![p];
            }
            on = !on;
            k = (k + 1) % pattern.len();
            left = pattern[k];
        }
        left -= len - t;
        if on {
            cur.push(b);
        }
    }
    if on && cur.len() >= 2 {
        out.push(cur);
    }
    out
}

fn num(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_string() }
}

fn hex(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// Text for SVG: XML's special characters escaped, and the control
/// characters XML 1.0 forbids (all below U+0020 but tab, newline and return)
/// dropped, so that any manifest string makes a valid document.
fn escape(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r'))
        .filter(|c| !matches!(c, '\u{FFFE}' | '\u{FFFF}'))
        .collect::<String>()
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod escape_tests {
    #[test]
    fn svg_text_has_no_control_characters_and_escapes_markup() {
        let e = super::escape("a\u{1}b\u{7f}<script>&\"\tc");
        assert_eq!(e, "ab&lt;script&gt;&amp;&quot;\tc");
    }
}

/// An SVG document, written by hand.
pub struct Svg {
    body: String,
    width: f64,
    height: f64,
}

impl Svg {
    /// An empty SVG of `width` × `height` pixels.
    pub fn new(width: f64, height: f64) -> Svg {
        Svg {
            body: String::new(),
            width,
            height,
        }
    }

    /// The SVG's text.
    pub fn finish(self) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             viewBox=\"0 0 {w} {h}\">\n<rect width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>\n\
             <g font-family=\"DejaVu Sans, Verdana, Geneva, sans-serif\">\n{}</g>\n</svg>\n",
            self.body,
            w = num(self.width),
            h = num(self.height)
        )
    }
}

fn points(pts: &[(f64, f64)]) -> String {
    pts.iter()
        .map(|(x, y)| format!("{},{}", num(*x), num(*y)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn stroke_attrs(s: &Stroke) -> String {
    let mut a = format!(
        "stroke=\"{}\" stroke-width=\"{}\" stroke-linejoin=\"round\"",
        hex(s.colour),
        num(s.width)
    );
    if s.alpha < 1.0 {
        let _ = write!(a, " stroke-opacity=\"{}\"", num(s.alpha));
    }
    if !s.dash.is_empty() {
        let d: Vec<String> = s.dash.iter().map(|x| num(*x)).collect();
        let _ = write!(a, " stroke-dasharray=\"{}\"", d.join(","));
    }
    a
}

impl Canvas for Svg {
    fn polyline(&mut self, pts: &[(f64, f64)], stroke: &Stroke) {
        if pts.len() < 2 {
            return;
        }
        let _ = writeln!(
            self.body,
            "<polyline points=\"{}\" fill=\"none\" {}/>",
            points(pts),
            stroke_attrs(stroke)
        );
    }

    fn polygon(&mut self, pts: &[(f64, f64)], fill: Option<(Rgb, f64)>, stroke: Option<&Stroke>) {
        let fill = match fill {
            Some((c, a)) if a < 1.0 => format!("fill=\"{}\" fill-opacity=\"{}\"", hex(c), num(a)),
            Some((c, _)) => format!("fill=\"{}\"", hex(c)),
            None => "fill=\"none\"".into(),
        };
        let stroke = stroke.map(stroke_attrs).unwrap_or_default();
        let _ = writeln!(
            self.body,
            "<polygon points=\"{}\" {fill} {stroke}/>",
            points(pts)
        );
    }

    fn text(&mut self, markup: &str, x: f64, y: f64, style: &TextStyle) {
        let runs = parse(markup);
        let anchor = match style.anchor {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        };
        // plotters' size is the font's ascent − descent; CSS's is the em.
        let em = |s: f64| num(s / EM_RATIO);
        let mut t = format!(
            "<text x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"{}\" text-anchor=\"{anchor}\"",
            num(x),
            num(y),
            em(style.size),
            hex(style.colour)
        );
        if style.vertical {
            let _ = write!(t, " transform=\"rotate(-90 {} {})\"", num(x), num(y));
        }
        t.push('>');
        let mut dy = 0.0;
        for r in &runs {
            let want = shift(r.script) * style.size;
            if r.script == Script::Normal && want == dy {
                t.push_str(&escape(&r.text));
            } else {
                let _ = write!(t, "<tspan dy=\"{}\"", num(want - dy));
                if r.script != Script::Normal {
                    let _ = write!(t, " font-size=\"{}\"", em(run_size(r, style.size)));
                }
                let _ = write!(t, ">{}</tspan>", escape(&r.text));
                dy = want;
            }
        }
        t.push_str("</text>\n");
        self.body.push_str(&t);
    }
}

/// DejaVu Sans: (ascent − descent) / em = (1901 + 483) / 2048.
const EM_RATIO: f64 = 2384.0 / 2048.0;

/// A PNG, through plotters' bitmap backend.
pub struct Png<'a> {
    area: DrawingArea<BitMapBackend<'a>, Shift>,
}

impl Png<'_> {
    /// Writes a `width` × `height` PNG to `path`: a white ground, then what
    /// `draw` paints on it.
    pub fn write(
        path: &std::path::Path,
        width: f64,
        height: f64,
        draw: impl FnOnce(&mut Png<'_>),
    ) -> Result<(), Box<dyn std::error::Error>> {
        let area = BitMapBackend::new(path, (width as u32, height as u32)).into_drawing_area();
        area.fill(&plotters::style::WHITE)?;
        let mut png = Png { area };
        draw(&mut png);
        png.area.present()?;
        Ok(())
    }
}

fn rgba(c: Rgb, alpha: f64) -> RGBAColor {
    RGBColor(c.0, c.1, c.2).mix(alpha)
}

fn ipt(p: (f64, f64)) -> (i32, i32) {
    (p.0.round() as i32, p.1.round() as i32)
}

/// The spacing accent drawn over a letter for a combining mark.
fn spacing_accent(c: char) -> Option<char> {
    match c {
        '\u{302}' => Some('ˆ'),
        '\u{303}' => Some('˜'),
        '\u{304}' => Some('¯'),
        '\u{307}' => Some('˙'),
        '\u{308}' => Some('¨'),
        _ => None,
    }
}

impl Png<'_> {
    /// Draws plain text (no combining marks) with its left end of baseline
    /// at distance `along` from (x, y) in the text's direction.
    fn plain(
        &mut self,
        s: &str,
        (x, y): (f64, f64),
        (along, down): (f64, f64),
        size: f64,
        st: &TextStyle,
    ) {
        if s.is_empty() {
            return;
        }
        // The baseline's left end, and the text's direction: right, or up
        // for vertical text (a y-axis label).
        let (ox, oy) = if st.vertical {
            (x + down, y - along)
        } else {
            (x + along, y + down)
        };
        let font = glyph_font();
        let scaled = font.as_scaled(ab_glyph::PxScale::from(size as f32));
        let colour = st.colour;
        let mut pen = 0.0f32;
        let mut prev: Option<ab_glyph::GlyphId> = None;
        for c in s.chars() {
            let id = scaled.glyph_id(c);
            if let Some(p) = prev {
                pen += scaled.kern(p, id);
            }
            prev = Some(id);
            // Laid out on a horizontal baseline at the origin, each glyph at
            // its pen position with its own side bearings (plotters' own
            // text drawing places each glyph by its ink box, which spaced
            // "J" and "." unevenly).
            let glyph = id.with_scale_and_position(scaled.scale(), ab_glyph::point(pen, 0.0));
            pen += scaled.h_advance(id);
            let Some(outline) = font.outline_glyph(glyph) else {
                continue;
            };
            let b = outline.px_bounds();
            outline.draw(|gx, gy, coverage| {
                if coverage <= 0.0 {
                    return;
                }
                let (u, v) = (b.min.x + gx as f32, b.min.y + gy as f32);
                let (px, py) = if st.vertical {
                    (ox + v as f64, oy - u as f64)
                } else {
                    (ox + u as f64, oy + v as f64)
                };
                let _ = self.area.draw_pixel(
                    (px.round() as i32, py.round() as i32),
                    &rgba(colour, coverage.min(1.0) as f64),
                );
            });
        }
    }
}

/// DejaVu Sans for drawing glyphs into the PNG (the font plotters measures
/// with, registered in [`register_font`]).
fn glyph_font() -> &'static ab_glyph::FontRef<'static> {
    static FONT: std::sync::OnceLock<ab_glyph::FontRef<'static>> = std::sync::OnceLock::new();
    FONT.get_or_init(|| {
        ab_glyph::FontRef::try_from_slice(dejavu::sans::regular()).expect("DejaVu Sans parses")
    })
}

impl Canvas for Png<'_> {
    fn polyline(&mut self, pts: &[(f64, f64)], stroke: &Stroke) {
        let style = ShapeStyle::from(&rgba(stroke.colour, stroke.alpha))
            .stroke_width(stroke.width.round().max(1.0) as u32);
        for piece in dashes(pts, &stroke.dash) {
            let p: Vec<(i32, i32)> = piece.into_iter().map(ipt).collect();
            let _ = self.area.draw(&PathElement::new(p, style));
        }
    }

    fn polygon(&mut self, pts: &[(f64, f64)], fill: Option<(Rgb, f64)>, stroke: Option<&Stroke>) {
        let p: Vec<(i32, i32)> = pts.iter().copied().map(ipt).collect();
        if let Some((c, a)) = fill {
            let _ = self
                .area
                .draw(&Polygon::new(p.clone(), rgba(c, a).filled()));
        }
        if let Some(s) = stroke {
            let mut closed = pts.to_vec();
            closed.push(pts[0]);
            self.polyline(&closed, s);
        }
    }

    fn text(&mut self, markup: &str, x: f64, y: f64, st: &TextStyle) {
        let runs = parse(markup);
        let total: f64 = runs
            .iter()
            .map(|r| advance(&r.text, run_size(r, st.size)))
            .sum();
        let mut along = match st.anchor {
            Anchor::Start => 0.0,
            Anchor::Middle => -total / 2.0,
            Anchor::End => -total,
        };
        for r in &runs {
            let size = run_size(r, st.size);
            let down = shift(r.script) * st.size;
            // Combining marks: the letter, then its spacing accent centred
            // over it (plotters draws a combining mark where it stands).
            let chars: Vec<char> = r.text.chars().collect();
            let mut plain = String::new();
            let mut i = 0;
            while i < chars.len() {
                let c = chars[i];
                let mark = chars.get(i + 1).copied().filter(|m| is_combining(*m));
                match mark {
                    Some(m) => {
                        self.plain(&plain, (x, y), (along, down), size, st);
                        along += advance(&plain, size);
                        plain.clear();
                        let base = c.to_string();
                        let wb = advance(&base, size);
                        self.plain(&base, (x, y), (along, down), size, st);
                        if let Some(acc) = spacing_accent(m) {
                            let a = acc.to_string();
                            let wa = advance(&a, size);
                            self.plain(&a, (x, y), (along + (wb - wa) / 2.0, down), size, st);
                        }
                        along += wb;
                        i += 2;
                        while chars.get(i).is_some_and(|m| is_combining(*m)) {
                            i += 1;
                        }
                    }
                    None => {
                        plain.push(c);
                        i += 1;
                    }
                }
            }
            self.plain(&plain, (x, y), (along, down), size, st);
            along += advance(&plain, size);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dashes_split_a_line() {
        let d = dashes(&[(0.0, 0.0), (20.0, 0.0)], &[4.0, 2.0]);
        assert_eq!(d.len(), 4);
        assert_eq!(d[0], vec![(0.0, 0.0), (4.0, 0.0)]);
        assert_eq!(d[1], vec![(6.0, 0.0), (10.0, 0.0)]);
        assert_eq!(dashes(&[(0.0, 0.0), (5.0, 0.0)], &[]).len(), 1);
    }

    #[test]
    fn svg_text_typesets_scripts() {
        let mut s = Svg::new(10.0, 10.0);
        s.text("ε / μ_Σ", 1.0, 2.0, &TextStyle::new(14.0));
        let out = s.finish();
        assert!(
            out.contains(">ε / μ<tspan dy=\"3.08\" font-size=\""),
            "{out}"
        );
        assert!(out.contains(">Σ</tspan></text>"), "{out}");
    }
}
