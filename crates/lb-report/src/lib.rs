//! # lb-report — the pages under `paper-figures/`
//!
//! Writes what a reader opens: each experiment's outputs (tables, figures,
//! sample paths, its section of the report, `claims.json`; [`write_experiment`]),
//! the report page `README.md` with the headline that counts each held
//! paper's statements by their status ([`page`], [`assemble`]), the audit
//! page `audit.md` ([`fragment`], [`terminal`]) and the statement inventories
//! ([`inventory`]). It decides nothing: verdicts are lb-audit's, numbers
//! lb-analysis's; this crate puts them into words and files. Every file is a
//! function of the records and the manifests, rewritten only if its content
//! changed, so a warm `lb reproduce` leaves each byte as it was.

// The docs are read with private items (`cargo doc --document-private-items`,
// as CI builds them): a module may point at its own helpers.
#![allow(rustdoc::private_intra_doc_links)]

mod cells;
mod headline;
pub mod inventory;
mod markdown;
mod pages;

pub use cells::anchor;
pub use headline::per_paper;
pub use markdown::{fragment, terminal};
pub use pages::{
    Experiment, Imprecise, Written, assemble, claims_json, experiments_in, imprecise, page,
    section, write_experiment, write_if_changed,
};
