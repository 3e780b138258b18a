//! The audit (docs/MODEL.md §5): every `[[claim]]` of a manifest held against
//! the cached records, point by point, with a verdict — confirmed, refuted, or
//! inconclusive when the interval straddles the threshold.
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
//! - rendered: `markdown` (`audit.md` and the terminal's summary), `summary`
//!   (`claims.json`), `csv`.

mod check;
mod claim;
mod control;
mod csv;
mod describe;
mod headline;
mod limit;
mod markdown;
pub mod mutants;
mod ordering;
mod points;
mod rule;
mod sharpness;
mod stability;
mod summary;
mod trend;
mod value;
mod words;

pub use check::{ClaimResult, Decision, PointCheck, Verdict};
pub use claim::{audit_claim, audit_experiment};
pub use csv::csv;
pub use describe::describe;
pub(crate) use headline::counts_line;
pub use headline::per_paper;
pub(crate) use markdown::verdict_cell;
pub use markdown::{anchor, fragment, page, terminal};
pub use summary::{ClaimRow, ExperimentClaims, MapLine, Need, Tally};
pub use summary::{no_point, verdict_words};
