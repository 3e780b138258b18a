//! `[[claim]]` tables (SPEC §5, issue 5): a statement a paper makes that the
//! results can confirm or refute, and the checks of its `why`. Parsed
//! strictly here, with the rest of the manifest; audited by lb-analysis.

use crate::outputs::{Reference, Where};
use serde::{Deserialize, Serialize};

/// The kinds of claim (SPEC §5).
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    /// `better` has a lower `metric` than `worse` (paired across replications).
    Ordering,
    /// `metric` of `policy` equals `expected` within `tolerance`.
    Value,
    /// `policy` is stable (or not, `stable = false`).
    Stability,
    /// `metric` of `policy` is ≤ (`side = "le"`) or ≥ `bound`.
    Bound,
    /// `metric` of `policies` moves one way (`direction`) along the sweep
    /// axis `along`: decided on the difference between each pair of
    /// neighbouring points (the other axes held fixed).
    Trend,
    /// `metric` of `policies` tends to `expected` as the sweep axis `along`
    /// goes `toward` 0 or infinity: judged on the `last` points nearest the
    /// limit, with the rate of approach reported.
    Limit,
}

/// `[[claim]]`: a statement a paper makes that results can confirm or refute.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ClaimToml {
    /// Short identifier, unique in the manifest.
    pub id: String,
    /// The published statement, as the paper makes it.
    pub statement: String,
    /// Seed file, figure or section, page where known.
    pub source: String,
    pub kind: ClaimKind,
    /// A refuted required claim makes `lb audit` fail. For what the project
    /// itself guarantees (exact theory); a paper's claim is audited, not required.
    #[serde(default)]
    pub required: bool,
    /// The metric read (not for `stability`).
    #[serde(default)]
    pub metric: Option<String>,
    /// The points read; default: every point of the policies named.
    #[serde(default, rename = "where")]
    pub filter: Where,
    /// `ordering`: the policy claimed better (lower metric) …
    #[serde(default)]
    pub better: Option<String>,
    /// … and the one it beats.
    #[serde(default)]
    pub worse: Option<String>,
    /// `value`, `stability`, `bound`: the policies the claim is about.
    #[serde(default)]
    pub policies: Vec<String>,
    /// `value`: the reference and the relative tolerance (0: the interval
    /// must cover the reference).
    #[serde(default)]
    pub expected: Option<Reference>,
    #[serde(default)]
    pub tolerance: Option<f64>,
    /// `value`: an absolute tolerance, added to the relative one: the claim
    /// holds within `abs_tolerance + tolerance × |expected|` (as numpy's
    /// `isclose`). The only way to state a value whose reference is 0.
    #[serde(default)]
    pub abs_tolerance: Option<f64>,
    /// `stability`: the claimed verdict.
    #[serde(default)]
    pub stable: Option<bool>,
    /// `bound`: the bound and its side, "le" (metric ≤ bound) or "ge".
    #[serde(default)]
    pub bound: Option<Reference>,
    #[serde(default)]
    pub side: Option<String>,
    /// `trend`: the numeric sweep axis along which the metric moves …
    #[serde(default)]
    pub along: Option<String>,
    /// … and how: "increasing" or "decreasing".
    #[serde(default)]
    pub direction: Option<String>,
    /// `limit`: where `along` goes, "zero" or "infinity" …
    #[serde(default)]
    pub toward: Option<String>,
    /// … and how many of the points nearest the limit are read (default 3).
    #[serde(default)]
    pub last: Option<u32>,
    /// `limit`, optional: the slowest approach counted as one, |gap| ∝ x^r
    /// (toward zero) or x^−r (toward infinity). A gap outside the tolerance
    /// whose rate is below it with confidence refutes the claim; without
    /// it only a gap that grows refutes.
    #[serde(default)]
    pub min_rate: Option<f64>,
    /// `value`, `bound`, optional: estimate the metric with a control
    /// variate — another policy of the experiment, run on the same random
    /// numbers, whose mean of the metric is known exactly.
    #[serde(default)]
    pub control: Option<ControlToml>,
    /// Confidence level of the intervals (default 0.95).
    #[serde(default)]
    pub level: Option<f64>,
    /// Why the claim fails in our setting (refuted or inconclusive), in a
    /// sentence or two; the report prints it beside the verdict.
    #[serde(default)]
    pub why: Option<String>,
    /// Checks of the `why` against the data: claims of their own (without
    /// id, statement or source), audited with this one; the report shows
    /// their verdicts beside the `why`. They are evidence, not claims of the
    /// paper, and are not counted among the experiment's claims.
    #[serde(default)]
    pub why_check: Vec<WhyCheck>,
}

/// `control = { policy = "WR", mean = "wr_sum_q", beta = "one" }`: a control
/// variate (Lavenberg and Welch). The policy labelled `policy` runs on the
/// same random numbers as the claim's policies at each point (common random
/// numbers), and the named reference `mean` is the exact mean of the claim's
/// metric under it. The metric is then estimated as E[Y] + mean(X − Y)
/// (`beta = "one"`, the default) or mean(X) − β̂(mean(Y) − E[Y]) with β̂
/// fitted by least squares (`beta = "fitted"`); the audit prints the direct
/// estimate beside it.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ControlToml {
    pub policy: String,
    pub mean: String,
    #[serde(default)]
    pub beta: Option<String>,
}

/// `[[claim.why_check]]`: a check of a claim's `why` — a claim's keys but
/// id, statement, source, required, why and why_check.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WhyCheck {
    /// What the check shows, in words (the report prints it).
    pub says: String,
    pub kind: ClaimKind,
    #[serde(default)]
    pub metric: Option<String>,
    #[serde(default, rename = "where")]
    pub filter: Where,
    #[serde(default)]
    pub better: Option<String>,
    #[serde(default)]
    pub worse: Option<String>,
    #[serde(default)]
    pub policies: Vec<String>,
    #[serde(default)]
    pub expected: Option<Reference>,
    #[serde(default)]
    pub tolerance: Option<f64>,
    #[serde(default)]
    pub abs_tolerance: Option<f64>,
    #[serde(default)]
    pub stable: Option<bool>,
    #[serde(default)]
    pub bound: Option<Reference>,
    #[serde(default)]
    pub side: Option<String>,
    #[serde(default)]
    pub along: Option<String>,
    #[serde(default)]
    pub direction: Option<String>,
    #[serde(default)]
    pub toward: Option<String>,
    #[serde(default)]
    pub last: Option<u32>,
    #[serde(default)]
    pub min_rate: Option<f64>,
    #[serde(default)]
    pub control: Option<ControlToml>,
    #[serde(default)]
    pub level: Option<f64>,
}

impl WhyCheck {
    /// The check as a claim of its own, `<claim id>/why-<i>`.
    pub fn as_claim(&self, claim: &ClaimToml, i: usize) -> ClaimToml {
        ClaimToml {
            id: format!("{}/why-{}", claim.id, i + 1),
            statement: self.says.clone(),
            source: format!("check of the why of {}", claim.id),
            kind: self.kind,
            required: false,
            metric: self.metric.clone(),
            filter: self.filter.clone(),
            better: self.better.clone(),
            worse: self.worse.clone(),
            policies: self.policies.clone(),
            expected: self.expected.clone(),
            tolerance: self.tolerance,
            abs_tolerance: self.abs_tolerance,
            stable: self.stable,
            bound: self.bound.clone(),
            side: self.side.clone(),
            along: self.along.clone(),
            direction: self.direction.clone(),
            toward: self.toward.clone(),
            last: self.last,
            min_rate: self.min_rate,
            control: self.control.clone(),
            level: self.level,
            why: None,
            why_check: Vec::new(),
        }
    }
}
