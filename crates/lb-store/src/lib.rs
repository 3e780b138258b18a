//! # lb-store — the results store and the runs that fill it (docs/MODEL.md §4)
//!
//! [`run`] computes the missing (point, replication) pairs of plans
//! (lb-manifest's [`lb_manifest::Plan`]) in parallel, or one shard of them,
//! into the [`cache`]: one atomic, checksummed file per record, keyed by the
//! hash of its resolved configuration, with [`provenance`] kept out of the
//! key. [`verify`] recomputes records and compares them bit for bit;
//! [`maintain`] lists, checks, adopts and cleans a results directory;
//! [`why`] says why a planned point is missing. [`settle`] says whether a
//! point's runs have settled enough to be read.

pub mod cache;
pub mod maintain;
pub mod pack;
pub mod packing;
pub mod provenance;
pub mod run;
pub mod settle;
pub mod verify;
pub mod why;
