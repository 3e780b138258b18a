//! # lb-analysis — tables, figures and audits of lb results
//!
//! Reads an experiment's records from the cache ([`results`]) into a polars
//! DataFrame, builds tables of mean ± 95% half-width ([`table`], intervals in
//! [`stats`]), lays figures out and paints them with lb-draw's kit ([`figure`]), and writes the
//! report under `paper-figures/` ([`report`]; each file rewritten only if its
//! content changed, [`files`]).

// The docs are read with private items (`cargo doc --document-private-items`,
// as CI builds them): a module may point at its own helpers.
#![allow(rustdoc::private_intra_doc_links)]

pub mod audit;
pub mod figure;
pub mod files;
pub mod inventory;
pub mod metric;
mod paired;
pub mod prose;
pub mod report;
pub mod results;
pub mod robustness;
pub mod stats;
pub mod table;
pub mod tidy;

pub use metric::Metric;
pub use results::{PointResult, collect};
