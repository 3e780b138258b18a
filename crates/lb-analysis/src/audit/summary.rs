//! The claims of one experiment as `<experiment>/claims.json`: a row per
//! claim, from which the report pages are assembled.

use super::check::{ClaimResult, Verdict};
use super::describe::describe;
use serde::Serialize;

/// A claim's row in the summaries (also kept in `<experiment>/claims.json`,
/// from which the report pages are assembled).
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct ClaimRow {
    pub id: String,
    pub verdict: String,
    pub required: bool,
    pub statement: String,
    /// The deciding check in words ("no points computed" when none).
    pub deciding: String,
    /// Points confirmed of points read.
    pub confirmed: usize,
    pub points: usize,
    pub why: Option<String>,
    /// The verdicts of the checks of the why.
    pub why_checks: Vec<(String, String)>,
}

/// The claims of one experiment, as `<experiment>/claims.json`.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct ExperimentClaims {
    pub experiment: String,
    pub title: String,
    pub claims: Vec<ClaimRow>,
}

impl ExperimentClaims {
    pub fn new(experiment: &str, title: &str, claims: &[ClaimResult]) -> ExperimentClaims {
        ExperimentClaims {
            experiment: experiment.to_string(),
            title: title.to_string(),
            claims: claims.iter().map(row).collect(),
        }
    }

    /// (confirmed, refuted, inconclusive) among claims that are the
    /// papers' (`required: false`) or lb's own (`required: true`).
    pub fn counts(&self, required: bool) -> (usize, usize, usize) {
        let n = |v: &str| {
            self.claims
                .iter()
                .filter(|c| c.required == required && c.verdict == v)
                .count()
        };
        (n("confirmed"), n("refuted"), n("inconclusive"))
    }
}

fn row(c: &ClaimResult) -> ClaimRow {
    ClaimRow {
        id: c.id.clone(),
        verdict: c.verdict.word().to_string(),
        required: c.required,
        statement: c.statement.clone(),
        deciding: c
            .deciding()
            .map(|k| describe(c, k))
            .unwrap_or_else(|| "no points computed".into()),
        confirmed: c
            .checks
            .iter()
            .filter(|k| k.verdict == Verdict::Confirmed)
            .count(),
        points: c.checks.len(),
        why: c.why.clone(),
        why_checks: c
            .why_checks
            .iter()
            .map(|w| (w.statement.clone(), w.verdict.word().to_string()))
            .collect(),
    }
}
