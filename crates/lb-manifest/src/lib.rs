//! # lb-manifest — experiments as written (docs/MODEL.md §4)
//!
//! A manifest ([`manifest`], strict TOML with located errors, [`diag`])
//! declares one experiment: the shared sections (`experiment`, the
//! `[[figure]]` schema of [`outputs`], the `[[claim]]` schema of [`claim`])
//! and the model's own ([`model`]: each model's schema, validation and
//! expansion). [`load()`] is the one loader every command uses: parse →
//! `validate` (claims typed) → expand into a [`Plan`] ([`plan`]) → claim
//! `checks` → [`robustness`] variants.
//!
//! A claim is decided at its level as lb's coverage certificate calibrated
//! it ([`calibration`]). Prose fields quote measured values ([`prose`]); a
//! paper's statements are listed in its inventory ([`inventory`]).
//!
//! A [`ledger`] (beside the manifests) records points run beyond their
//! rule and claims looked at more than once (`lb decide`). [`schema`]
//! writes the manifests' JSON Schemas from the types that parse them;
//! [`starter`] writes a new manifest to start from (`lb new`).
//!
//! What a point is and runs — points, keys, metrics, references, precision
//! rules, calibrations — is lb-model's; running plans and keeping their
//! records is lb-store's, which depends on this crate, never the reverse.

// The docs are read with private items (`cargo doc --document-private-items`,
// as CI builds them): a module may point at its own helpers.
#![allow(rustdoc::private_intra_doc_links)]

pub mod calibration;
mod checks;
pub mod claim;
pub mod diag;
mod experiment;
pub mod inventory;
pub mod ledger;
pub mod load;
pub mod manifest;
pub mod model;
pub mod outputs;
pub mod plan;
pub mod prose;
pub mod quotes;
pub mod references;
pub mod robustness;
pub mod rules;
pub mod schema;
pub mod starter;
mod validate;

pub use diag::ManifestError;
pub use lb_model::{Key, Model, Param, Point, PointConfig, Profile, Summary};
pub use load::{Experiment, LoadOptions, load, load_all, load_all_with, load_str};
pub use manifest::Loaded;
pub use plan::Plan;
