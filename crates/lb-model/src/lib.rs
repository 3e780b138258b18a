//! # lb-model — what lb runs
//!
//! The run-time side of lb's models, below the manifests: a [`Point`] (one
//! fully resolved configuration, every default written out) and its [`Key`]
//! (the SHA-256 of its [`canonical`] JSON and the model's engine version);
//! [`PointConfig`], what lb-core runs for a point, and [`Summary`], what one
//! replication measured, each behind one `match` per operation
//! ([`config`]); each model's metrics and named exact references, the cost
//! of a replication ([`limits`]) and the consistency of a record
//! ([`slotted`], [`many`], [`spn`]); the [`precision`] rule that adds
//! replications until an interval is narrow enough, [`settle`], whether a
//! point's runs have settled enough to be read; and the slotted model's
//! message-budget calibrations ([`slotted::calibrate`]).
//!
//! Nothing here reads a manifest or touches the disk: lb-manifest turns
//! manifests into points, lb-store runs them into the cache.
//!
//! Layering inside the crate, leaves first: [`canonical`], [`limits`],
//! [`metric`], [`model`] (which model, engine version, profile) → the three
//! models' modules → [`config`] → [`point`] → [`key`] → [`settle`] → [`precision`] and
//! [`slotted::calibrate`].

// The docs are read with private items (`cargo doc --document-private-items`,
// as CI builds them): a module may point at its own helpers.
#![allow(rustdoc::private_intra_doc_links)]

pub mod canonical;
pub mod config;
pub mod key;
pub mod limits;
pub mod many;
mod metric;
pub mod model;
pub mod point;
pub mod precision;
pub mod settle;
pub mod slotted;
mod spn;

pub use config::{PointConfig, Summary, SystemPart};
pub use key::Key;
pub use metric::{MetricInfo, MetricKind, Param};
pub use model::{Model, Profile, SystemHead};
pub use point::Point;
