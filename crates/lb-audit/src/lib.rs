//! # lb-audit — claims held against the records
//!
//! The audit (docs/MODEL.md §5): every `[[claim]]` of a manifest held against
//! the cached records, point by point, with a verdict — confirmed, refuted, or
//! inconclusive when the interval straddles the threshold — together with
//! what decides a verdict beside the claim's own points: its nulls and foils,
//! the robustness maps over settings the paper leaves open ([`robustness`]),
//! the distances to a threshold that `lb decide` reads, the mutants that show
//! a claim can fail ([`mutants`]) and the room a claim's region gets in a
//! figure ([`room`]). It reads the records through lb-analysis and writes
//! nothing but the maps' figures; the pages are lb-report's.
//!
//! Ordering claims use the *paired* difference across replications: the
//! engine gives every policy at a point the same arrivals and service (docs/MODEL.md
//! §4), so replication r of two policies is a matched pair and the interval
//! is that of the difference, not two overlapping intervals.
//!
//! The audit's parts, one job each:
//!
//! - `check`: what it finds (a verdict, the check at a point, a claim's
//!   result);
//! - `claim`: auditing a claim ([`audit_claim`]) — dispatching on its kind,
//!   the verdict from its points', the checks of its `why`, the points it
//!   lacks;
//! - one module per kind of claim: `ordering`, `value` (value and bound),
//!   `trend`, `limit`, `stability`; `control`: the control variates of value
//!   and bound claims;
//! - `points`: reading a claim's points (selection, values by replication,
//!   references, intervals);
//! - in words: `rule` (what a claim holds its points to), `describe` (one
//!   check), `words` (numbers and tolerances);
//! - rendered as data: `summary` (`claims.json`), `csv`.

// The docs are read with private items (`cargo doc --document-private-items`,
// as CI builds them): a module may point at its own helpers.
#![allow(rustdoc::private_intra_doc_links)]

mod check;
mod claim;
mod control;
mod csv;
mod describe;
mod limit;
pub mod mutants;
mod ordering;
mod points;
pub mod robustness;
pub mod room;
mod rule;
mod sharpness;
mod stability;
mod summary;
mod trend;
mod value;
mod words;

pub use check::{
    ClaimResult, Decision, PointCheck, RateRead, Uninformative, Verdict, Why, moved_axes,
};
pub use claim::{EXACT_FAILS, audit_claim, audit_experiment, same_at};
pub use csv::csv;
pub use describe::{describe, measured, percent, rate_of, unstable_count};
pub use summary::{ClaimRow, ExperimentClaims, MapLine, Need, Tally, Voice};
pub use summary::{no_point, verdict_words};
pub use words::{num, sig5};
