//! # lb-store — the results store and the runs that fill it (docs/MODEL.md §4)
//!
//! [`run`] computes the missing (point, replication) pairs of plans
//! (lb-manifest's [`lb_manifest::Plan`]) in parallel, or one shard of them,
//! into the [`cache`]: one atomic, checksummed file per record, keyed by the
//! hash of its resolved configuration, with [`provenance`] kept out of the
//! key; [`packing`] folds those loose records into each bucket's [`pack`],
//! the committed tier, which every reader reads through the same interface. [`verify`] recomputes records and compares them bit for bit;
//! [`maintain`] lists, checks, adopts and cleans a results directory;
//! [`why`] says why a planned point is missing.

// The docs are read with private items (`cargo doc --document-private-items`,
// as CI builds them): a module may point at its own helpers.
#![allow(rustdoc::private_intra_doc_links)]

pub mod cache;
pub mod maintain;
pub mod pack;
pub mod packing;
pub mod provenance;
pub mod run;
pub mod verify;
pub mod why;
