//! What the audit finds: a claim's [`Verdict`], the [`Check`] at one point,
//! and a claim's [`ClaimResult`]. Types only (and their JSON form), used by
//! every other part of the audit.

use lb_runner::claim::ClaimKind;
use serde::Serialize;

/// A claim's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Confirmed,
    Refuted,
    Inconclusive,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Confirmed => "confirmed",
            Verdict::Refuted => "refuted",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// The check at one point (or one pair of points for an ordering).
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// The point's axis values, "load=0.9 count_own=true" (JSON: `at` is
    /// the object of `axes`).
    #[serde(skip)]
    pub at: String,
    /// The same as (axis, value) pairs; in JSON an object with numbers as
    /// numbers, `{"load": 0.9, "count_own": true}`.
    #[serde(rename = "at", serialize_with = "typed_axes")]
    pub axes: Vec<(String, String)>,
    pub policy: String,
    /// The measured quantity: the metric, a paired difference, or the fraction
    /// of unstable replications.
    pub measured: f64,
    /// Half-width of its interval at the claim's level (None: no interval).
    pub half_width: Option<f64>,
    pub replications: usize,
    /// What the measurement is held against, in words.
    pub threshold: String,
    /// The reference at this point (value and bound claims).
    pub reference: Option<f64>,
    pub verdict: Verdict,
    pub note: Option<String>,
    /// The keys of the records read.
    pub keys: Vec<String>,
}

/// A sweep value as JSON: a number or a boolean where it reads as one.
pub fn typed_value(v: &str) -> serde_json::Value {
    if let Ok(i) = v.parse::<i64>() {
        return i.into();
    }
    if let Some(x) = v.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
        return serde_json::Value::Number(x);
    }
    match v {
        "true" => true.into(),
        "false" => false.into(),
        _ => v.into(),
    }
}

fn typed_axes<S: serde::Serializer>(axes: &[(String, String)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(axes.len()))?;
    for (a, v) in axes {
        m.serialize_entry(a, &typed_value(v))?;
    }
    m.end()
}

/// A claim and its verdict.
#[derive(Debug, Clone, Serialize)]
pub struct ClaimResult {
    pub experiment: String,
    pub id: String,
    pub statement: String,
    pub source: String,
    pub kind: ClaimKind,
    pub required: bool,
    pub level: f64,
    pub verdict: Verdict,
    /// The metric read and its label (unit included), if any.
    pub metric: Option<String>,
    pub metric_label: Option<String>,
    /// What the points are held to, in words (the same at every point).
    pub rule: String,
    pub checks: Vec<Check>,
    /// Why the claim fails here, from the manifest.
    pub why: Option<String>,
    /// The checks of the `why`, audited.
    pub why_checks: Vec<ClaimResult>,
    /// Points the claim reads that lack replications or hold damaged
    /// records, in words. A required claim with any fails `lb audit`: a
    /// gate cannot pass on missing data.
    pub missing: Vec<String>,
}

impl ClaimResult {
    /// The check that decides the verdict: the first refuted, else the first
    /// inconclusive, else the first.
    pub fn deciding(&self) -> Option<&Check> {
        self.checks
            .iter()
            .find(|c| c.verdict == Verdict::Refuted)
            .or_else(|| {
                self.checks
                    .iter()
                    .find(|c| c.verdict == Verdict::Inconclusive)
            })
            .or_else(|| self.checks.first())
    }
}
