//! # lb-analysis — the numbers: records, tables, figures
//!
//! Reads an experiment's records from the cache ([`results`]) into a polars
//! DataFrame, builds tables of mean ± 95% half-width ([`table`], intervals in
//! [`stats`], the control-variate estimate in [`paired`]), lays figures out
//! and paints them with lb-draw's kit ([`figure`]), and expands quotes of the
//! records in prose ([`prose`]). Each point's estimate is built here and read
//! by the audit (lb-audit) and the pages (lb-report) alike; this crate knows
//! nothing of claims.

// The docs are read with private items (`cargo doc --document-private-items`,
// as CI builds them): a module may point at its own helpers.
#![allow(rustdoc::private_intra_doc_links)]

pub mod figure;
pub mod files;
pub mod metric;
pub mod paired;
pub mod prose;
pub mod results;
pub mod stats;
pub mod table;
pub mod tidy;

pub use metric::Metric;
pub use results::{PointResult, collect};
