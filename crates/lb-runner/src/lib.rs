//! # lb-runner — experiments, points, keys, cache and runs (SPEC §4)
//!
//! A manifest ([`manifest`], strict TOML with located errors) declares one
//! experiment. [`expand`] turns it into points — fully resolved
//! configurations with every default written out — whose [`key`] is the
//! SHA-256 of their [`canonical`] JSON. [`run`] computes the missing (point,
//! replication) pairs in parallel into the [`cache`], with [`provenance`]
//! kept out of the key; [`model`] holds each model behind one interface (its manifest sections,
//! validation, expansion, metrics and references); the slotted model's
//! calibrations find p̂ for message budgets and
//! [`precision`] adds replications until a target interval width is met.
//! [`verify`] recomputes records and compares them bit for bit; [`maintain`]
//! lists, checks and cleans a results directory.

pub mod cache;
pub mod canonical;
pub mod diag;
pub mod expand;
pub mod key;
pub mod limits;
pub mod maintain;
pub mod manifest;
pub mod model;
pub mod outputs;
pub mod point;
pub mod precision;
pub mod provenance;
pub mod robustness;
pub mod run;
pub mod validate;
pub mod verify;

pub use diag::ManifestError;
pub use expand::{Plan, expand};
pub use key::Key;
pub use manifest::{Loaded, load};
pub use model::{Model, Param, PointConfig, Summary};
pub use point::{Point, Profile};
