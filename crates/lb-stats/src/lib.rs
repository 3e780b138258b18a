//! # lb-stats — lb's statistics, implemented once
//!
//! Every interval and test lb prints or decides with is here, and every
//! crate reads it from here: Student-t and normal quantiles and the
//! Student-t and Stein intervals over replications ([`student`]); control
//! variates ([`control`]); Wilson and Clopper–Pearson intervals for
//! proportions ([`proportion`]); batch means and MSER within a run
//! ([`batch`]); Willink's skewness-adjusted interval ([`skew`]); alpha
//! spending over repeated looks ([`spending`]). No I/O, no polars; the
//! only dependency is statrs for the distributions' quantiles.

// The docs are read with private items (`cargo doc --document-private-items`,
// as CI builds them): a module may point at its own helpers.
#![allow(rustdoc::private_intra_doc_links)]

pub mod batch;
pub mod control;
pub mod proportion;
pub mod skew;
pub mod spending;
pub mod student;

pub use student::{Interval, t_quantile, z_quantile};
