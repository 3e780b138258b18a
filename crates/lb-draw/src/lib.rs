//! # lb-draw — the drawing kit
//!
//! What a figure is drawn with, independent of what it shows: a
//! [`canvas`] of pixel primitives written as SVG by hand and as PNG through
//! plotters, with text in the small [`markup`] of labels and measured with
//! DejaVu Sans; [`pdf`], the SVG as a PDF with its text kept; [`ticks`],
//! axis ticks and their labels; and a figure's geometry: an [`axis`]'s range
//! and ticks, the laid-out rectangles and marks ([`geometry`]), the series'
//! [`style`]s, and lines cut at the plot's frame ([`clip`]).
//!
//! Nothing here knows lb's records, claims or manifests: lb-analysis lays a
//! figure out with these and paints it.

// The docs are read with private items (`cargo doc --document-private-items`,
// as CI builds them): a module may point at its own helpers.
#![allow(rustdoc::private_intra_doc_links)]

pub mod axis;
pub mod canvas;
pub mod clip;
pub mod geometry;
pub mod markup;
pub mod pdf;
pub mod style;
pub mod ticks;
