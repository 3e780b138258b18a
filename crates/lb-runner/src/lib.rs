//! # lb-runner — experiments as written, and their runs (docs/MODEL.md §4)
//!
//! A manifest ([`manifest`], strict TOML with located errors, [`diag`])
//! declares one experiment: the shared sections ([`experiment`], the
//! `[[figure]]` schema of [`outputs`], the `[[claim]]` schema of [`claim`])
//! and the model's own ([`model`]: each model's schema, validation and
//! expansion). [`load`] is the one loader every command uses: parse →
//! [`validate`] (claims typed) → expand into a [`Plan`] ([`plan`]) → claim
//! [`checks`] → [`robustness`] variants.
//!
//! A claim is decided at its level as lb's coverage certificate calibrated
//! it ([`calibration`]).
//!
//! A [`ledger`] (beside the manifests) records points run beyond their
//! rule and claims looked at more than once (`lb decide`).
//!
//! [`run`] computes the missing (point, replication) pairs of plans in
//! parallel into the [`cache`], with [`provenance`] kept out of the key;
//! [`verify`] recomputes records and compares them bit for bit; [`maintain`]
//! lists, checks and cleans a results directory.
//!
//! What a point is and runs — points, keys, metrics, references, precision
//! rules, calibrations — is lb-model's: this crate depends on it, never the
//! reverse.

pub mod cache;
pub mod calibration;
pub mod checks;
pub mod claim;
pub mod diag;
pub mod experiment;
pub mod inventory;
pub mod ledger;
pub mod load;
pub mod maintain;
pub mod manifest;
pub mod model;
pub mod outputs;
pub mod plan;
pub mod prose;
pub mod provenance;
pub mod robustness;
pub mod run;
pub mod schema;
pub mod settle;
pub mod validate;
pub mod verify;
pub mod why;

pub use diag::ManifestError;
pub use lb_model::{Key, Model, Param, Point, PointConfig, Profile, Summary};
pub use load::{Experiment, load, load_all, load_str};
pub use manifest::Loaded;
pub use plan::Plan;
