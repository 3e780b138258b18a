//! The ledger of `lb decide`: which points of an experiment were run
//! beyond their replication rule, and how many looks each claim has had at
//! its data, so that a fresh clone reads the same replications and audits
//! each claim at the same level (lb-pipeline's `decide` writes it; the
//! loader, [`mod@crate::load`], reads it).
//!
//! It lives beside the manifests, `experiments/decide/<experiment>.json`
//! ([`path`]), not in the results directory: it is an input of the
//! experiment (like the manifest, it says what is run and how claims are
//! held), while the results directory is a memo of pure functions of keys
//! that `lb reproduce --fresh`, `--results DIR` and `lb cache gc` may
//! replace or prune. A ledger is read for the full profile only (its keys
//! are the full profile's).
//!
//! Its level rule, alpha spending: a claim of level 1 − α audited for the
//! j-th time (j ≥ 2 looks) is held at 1 − α·6/(π² j²) ([`spent_level`]);
//! lb-pipeline's `decide` says why that keeps the claim's error at α.

use crate::diag::ManifestError;
use crate::manifest::Loaded;
use lb_model::key::Key;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// An experiment's ledger, as written (`experiments/decide/<name>.json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ledger {
    /// The experiment's name (`experiment.name`).
    pub experiment: String,
    /// The rule, in words, for whoever opens the file.
    #[serde(default)]
    pub rule: String,
    /// The claims looked at more than once, in manifest order.
    #[serde(default)]
    pub claims: Vec<ClaimLooks>,
    /// The points run beyond their rule, in key order.
    #[serde(default)]
    pub points: Vec<PointReplications>,
}

/// How often a claim has been audited on changed data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimLooks {
    /// The claim's id.
    pub id: String,
    /// Looks at the claim's data (the first is the ordinary audit), ≥ 2.
    pub looks: u32,
    /// The level it is now audited at ([`spent_level`] of its manifest
    /// level): for the reader; the loader recomputes it.
    pub level: f64,
}

/// A point run beyond its replication rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointReplications {
    /// The point's key (hex).
    pub key: String,
    /// Replications 0..n are read.
    pub replications: u32,
    /// The point in words ("L-JSQ-Push at load=0.3"), for the reader.
    #[serde(default)]
    pub point: String,
}

/// The rule as the ledger states it.
pub(crate) const RULE: &str = "alpha spending: a claim of level 1 − α is audited at its j-th look \
(j ≥ 2) at level 1 − α·6/(π²·j²), so that the error over every look stays ≤ α; a point \
listed here is read with replications 0..n (its rule's count if larger)";

pub use lb_stats::spending::spending;

/// The level of a claim of level `level` (1 − α) at its `looks`-th look:
/// `level` itself at the first (the ordinary audit), 1 − α·6/(π² j²) at
/// look j ≥ 2.
pub fn spent_level(level: f64, looks: u32) -> f64 {
    if looks <= 1 {
        level
    } else {
        1.0 - (1.0 - level) * spending(looks)
    }
}

/// Where the ledger of the experiment `name`, declared in `manifest`, lives:
/// `decide/<name>.json` beside the manifest.
pub fn path(manifest: &Path, name: &str) -> PathBuf {
    manifest
        .parent()
        .unwrap_or(Path::new(""))
        .join("decide")
        .join(format!("{name}.json"))
}

impl Ledger {
    /// An empty ledger of the experiment `name`.
    pub fn new(name: &str) -> Ledger {
        Ledger {
            experiment: name.to_string(),
            rule: RULE.to_string(),
            ..Ledger::default()
        }
    }

    /// Whether it records nothing.
    pub fn is_empty(&self) -> bool {
        self.claims.is_empty() && self.points.is_empty()
    }

    /// The looks at claim `id` (1 when it is not listed).
    pub fn looks(&self, id: &str) -> u32 {
        self.claims
            .iter()
            .find(|c| c.id == id)
            .map_or(1, |c| c.looks.max(1))
    }

    /// The points' replications by key.
    pub fn replications(&self) -> BTreeMap<Key, u32> {
        self.points
            .iter()
            .filter_map(|p| Some((Key::parse(&p.key)?, p.replications)))
            .collect()
    }

    /// Records one more look at claim `id` of level `level`; claims stay in
    /// the order of `order` (the manifest's ids).
    pub fn add_look(&mut self, id: &str, level: f64, order: &[&str]) {
        let looks = self.looks(id) + 1;
        let entry = ClaimLooks {
            id: id.to_string(),
            looks,
            level: spent_level(level, looks),
        };
        match self.claims.iter_mut().find(|c| c.id == id) {
            Some(c) => *c = entry,
            None => self.claims.push(entry),
        }
        let rank = |c: &ClaimLooks| order.iter().position(|o| *o == c.id).unwrap_or(usize::MAX);
        self.claims.sort_by_key(rank);
    }

    /// Raises point `key` to at least `n` replications (described as
    /// `point`); points stay in key order.
    pub fn extend(&mut self, key: &Key, n: u32, point: &str) {
        let hex = key.hex();
        match self.points.iter_mut().find(|p| p.key == hex) {
            Some(p) => p.replications = p.replications.max(n),
            None => {
                self.points.push(PointReplications {
                    key: hex,
                    replications: n,
                    point: point.to_string(),
                });
                self.points.sort_by(|a, b| a.key.cmp(&b.key));
            }
        }
    }

    /// The ledger as written: pretty JSON, a line end last. The same ledger
    /// always gives the same bytes.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a ledger serialises") + "\n"
    }

    /// Reads the ledger at `file`, if there is one, for the experiment
    /// `loaded`: its name must be the experiment's and every claim it lists
    /// one of the manifest's.
    pub fn read(file: &Path, loaded: &Loaded) -> Result<Option<Ledger>, ManifestError> {
        let err = |line: usize, col: usize, message: String| ManifestError {
            file: file.to_path_buf(),
            line,
            col,
            field: String::new(),
            message,
        };
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(err(0, 0, format!("cannot read the decide ledger: {e}"))),
        };
        let ledger: Ledger = serde_json::from_str(&text).map_err(|e| {
            err(
                e.line(),
                e.column(),
                format!("not a decide ledger (written by `lb decide`): {e}"),
            )
        })?;
        let name = &loaded.experiment().name;
        if ledger.experiment != *name {
            return Err(err(
                0,
                0,
                format!(
                    "the ledger is of experiment \"{}\", not \"{name}\"",
                    ledger.experiment
                ),
            ));
        }
        for c in &ledger.claims {
            if !loaded.claims().iter().any(|k| k.id == c.id) {
                return Err(err(
                    0,
                    0,
                    format!(
                        "claim \"{}\" is not a claim of {} (remove it from the ledger, or \
                         the ledger, if the claim was renamed or removed)",
                        c.id,
                        loaded.file().display()
                    ),
                ));
            }
        }
        for p in &ledger.points {
            if Key::parse(&p.key).is_none() {
                return Err(err(0, 0, format!("\"{}\" is not a point key", p.key)));
            }
        }
        Ok(Some(ledger))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spending_sums_to_at_most_alpha() {
        let total: f64 = (1..100_000).map(spending).sum();
        assert!(total < 1.0 && total > 0.9999, "{total}");
        assert_eq!(spent_level(0.95, 1), 0.95);
        let l2 = spent_level(0.95, 2);
        assert!((l2 - (1.0 - 0.05 * 6.0 / (std::f64::consts::PI.powi(2) * 4.0))).abs() < 1e-15);
        assert!(spent_level(0.95, 3) > l2);
    }

    #[test]
    fn a_ledger_keeps_its_order_and_its_bytes() {
        let mut a = Ledger::new("x");
        let k1 = Key([1; 32]);
        let k2 = Key([2; 32]);
        a.extend(&k2, 8, "B");
        a.extend(&k1, 8, "A");
        a.extend(&k2, 4, "B");
        a.add_look("second", 0.95, &["first", "second"]);
        a.add_look("first", 0.95, &["first", "second"]);
        a.add_look("second", 0.95, &["first", "second"]);
        assert_eq!(a.points[0].key, k1.hex());
        assert_eq!(a.points[1].replications, 8);
        assert_eq!(a.claims[0].id, "first");
        assert_eq!(a.looks("second"), 3);
        assert_eq!(a.looks("third"), 1);
        let back: Ledger = serde_json::from_str(&a.to_json()).unwrap();
        assert_eq!(back, a);
        assert_eq!(back.to_json(), a.to_json());
    }
}
