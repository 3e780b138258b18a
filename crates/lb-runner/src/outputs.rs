//! What a manifest asks to be drawn and checked: `[[figure]]` tables (issue 4)
//! and `[[claim]]` tables (SPEC §5, issue 5). Parsed strictly here, with the
//! rest of the manifest; drawn and audited by lb-analysis.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Axis values selecting points: `{ load = [0.9, 0.95], count_own = true }`.
/// Per axis: a value, a list of values, or a range of a numeric axis
/// (`load = ">= 0.9"`, `load = "> 0.5, <= 0.9"`, `load = { min = 0.9 }`,
/// `{ min = 0.5, max = 0.9 }`; `min` and `max` are inclusive). See
/// [`WhereTest`].
pub type Where = BTreeMap<String, toml::Value>;

/// The values of a `where` entry as the plan prints them ("0.9", "true", …);
/// empty for a range.
pub fn where_values(v: &toml::Value) -> Vec<String> {
    match v {
        toml::Value::Array(a) => a.iter().flat_map(where_values).collect(),
        toml::Value::Float(x) => vec![lb_model::canonical::number_to_string(*x)],
        toml::Value::Integer(i) => vec![i.to_string()],
        toml::Value::Boolean(b) => vec![b.to_string()],
        toml::Value::String(s) if range_string(s) => Vec::new(),
        toml::Value::String(s) => vec![s.clone()],
        toml::Value::Table(_) => Vec::new(),
        other => vec![other.to_string()],
    }
}

/// A string that states a range rather than a value: it starts with a
/// comparison.
fn range_string(s: &str) -> bool {
    let t = s.trim_start();
    t.starts_with('<') || t.starts_with('>')
}

/// One bound of a range: the number and whether it is included.
type Bound = Option<(f64, bool)>;

/// What one axis of a `where` table asks of a point's value.
#[derive(Debug, Clone, PartialEq)]
pub enum WhereTest {
    /// The value is one of these (as plans print them).
    OneOf(Vec<String>),
    /// The value is a number within these bounds.
    Range { min: Bound, max: Bound },
}

impl WhereTest {
    /// Parses a `where` entry; the error says which forms are allowed.
    pub fn parse(v: &toml::Value) -> Result<WhereTest, String> {
        const FORMS: &str = "a value, a list of values, a comparison such as \">= 0.9\" or \
                             \"> 0.5, <= 0.9\", or a table { min = 0.5, max = 0.9 } (inclusive)";
        match v {
            toml::Value::String(s) if range_string(s) => {
                let (mut min, mut max) = (None, None);
                for part in s.split(',') {
                    let t = part.trim();
                    let (op, rest) = ["<=", ">=", "<", ">"]
                        .iter()
                        .find_map(|op| t.strip_prefix(op).map(|r| (*op, r)))
                        .ok_or_else(|| {
                            format!("cannot read \"{t}\" of \"{s}\"; allowed: {FORMS}")
                        })?;
                    let x: f64 = rest
                        .trim()
                        .parse()
                        .ok()
                        .filter(|x: &f64| x.is_finite())
                        .ok_or_else(|| {
                            format!(
                                "\"{}\" in \"{s}\" is not a finite number; allowed: {FORMS}",
                                rest.trim()
                            )
                        })?;
                    let slot = if op.starts_with('>') {
                        &mut min
                    } else {
                        &mut max
                    };
                    if slot.is_some() {
                        return Err(format!(
                            "\"{s}\" bounds the same side twice; allowed: {FORMS}"
                        ));
                    }
                    *slot = Some((x, op.len() == 2));
                }
                Ok(WhereTest::Range { min, max })
            }
            toml::Value::Table(t) => {
                let (mut min, mut max) = (None, None);
                for (k, x) in t {
                    let n = match x {
                        toml::Value::Float(f) if f.is_finite() => *f,
                        toml::Value::Integer(i) => *i as f64,
                        _ => {
                            return Err(format!(
                                "`{k}` must be a finite number, not {x}; allowed: {FORMS}"
                            ));
                        }
                    };
                    match k.as_str() {
                        "min" => min = Some((n, true)),
                        "max" => max = Some((n, true)),
                        other => {
                            return Err(format!(
                                "unknown key `{other}` in a range (allowed: min, max)"
                            ));
                        }
                    }
                }
                if min.is_none() && max.is_none() {
                    return Err(format!("an empty range; allowed: {FORMS}"));
                }
                Ok(WhereTest::Range { min, max })
            }
            toml::Value::Array(a)
                if a.iter()
                    .any(|x| matches!(x, toml::Value::Table(_) | toml::Value::Array(_))) =>
            {
                Err(format!("a list holds values only; allowed: {FORMS}"))
            }
            other => Ok(WhereTest::OneOf(where_values(other))),
        }
    }

    /// Whether a point whose axis has value `x` (as plans print it) passes.
    pub fn matches(&self, x: &str) -> bool {
        match self {
            WhereTest::OneOf(vs) => vs.iter().any(|w| w == x),
            WhereTest::Range { min, max } => {
                let Ok(v) = x.parse::<f64>() else {
                    return false;
                };
                let above = |b: &Bound| match b {
                    Some((m, true)) => v >= *m,
                    Some((m, false)) => v > *m,
                    None => true,
                };
                let below = |b: &Bound| match b {
                    Some((m, true)) => v <= *m,
                    Some((m, false)) => v < *m,
                    None => true,
                };
                above(min) && below(max)
            }
        }
    }
}

/// Whether a point passes every axis of a `where` table; `axis` gives the
/// point's value of an axis. An entry that does not parse selects nothing
/// (validation refuses it first).
pub fn where_matches<'a>(w: &Where, axis: impl Fn(&str) -> Option<&'a str>) -> bool {
    w.iter()
        .all(|(a, v)| WhereTest::parse(v).is_ok_and(|t| axis(a).is_some_and(|x| t.matches(x))))
}

/// What a figure draws.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FigureKind {
    /// A metric against a sweep axis: one line per series, an interval on
    /// every point (the default).
    #[default]
    Lines,
    /// Sample paths against time (`Summary::path`): several replications'
    /// paths per series, thin, and their mean, thick.
    Path,
}

/// `[[figure]]`: one figure drawn from the experiment's points.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FigureToml {
    /// File stem under `paper-figures/<experiment>/`: `[a-z0-9-_]+`.
    pub name: String,
    pub title: String,
    /// `lines` (default) or `path`.
    #[serde(default)]
    pub kind: FigureKind,
    /// The sweep axis on the x axis (`lines`; a path figure's x is time).
    #[serde(default)]
    pub x: Option<String>,
    /// Its label; default: the axis name (path figures: time in the model's
    /// unit).
    #[serde(default)]
    pub x_label: Option<String>,
    /// The metric on the y axis (`lines`): one of the model's metrics.
    #[serde(default)]
    pub y: Option<String>,
    /// The y axis label; default: the metric's label. Figure markup:
    /// `_x`, `_{…}` subscripts, `^x`, `^{…}` superscripts.
    #[serde(default)]
    pub y_label: Option<String>,
    /// The unit of y, printed in parentheses after `y_label`.
    #[serde(default)]
    pub y_unit: Option<String>,
    /// Sweep axes that, besides the policy, tell series apart.
    #[serde(default)]
    pub series: Vec<String>,
    /// Only points with these axis values.
    #[serde(default, rename = "where")]
    pub filter: Where,
    /// Only these policies (labels); default: all.
    #[serde(default)]
    pub policies: Vec<String>,
    #[serde(default)]
    pub log_x: bool,
    #[serde(default)]
    pub log_y: bool,
    /// Draw ζ(ε) of each point's system (heavy-traffic figures): the same
    /// as a `reference` with `value = "zeta"`.
    #[serde(default)]
    pub zeta_line: bool,
    /// Reference curves: `[[figure.reference]]`.
    #[serde(default, rename = "reference")]
    pub references: Vec<ReferenceCurve>,
    /// Path figures: how many replications' paths to draw per series
    /// (default 5; their mean is over every replication).
    #[serde(default)]
    pub paths: Option<u32>,
    /// The caption: the setting and every assumption a reader needs.
    pub caption: String,
    /// What the seed claims this figure shows, in one line.
    #[serde(default)]
    pub claim: Option<String>,
}

/// `[[figure.reference]]`: a reference drawn in a figure — a number (a
/// horizontal line), or a named exact result of the model computed at each
/// point the figure shows (a curve).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReferenceCurve {
    /// A number, or a named reference (`zeta`, `pod_mean_field`, `lambda`, …).
    pub value: Reference,
    /// Its legend entry (figure markup); default: the value.
    #[serde(default)]
    pub label: Option<String>,
    /// Shade value × (1 ± band): a claim's relative tolerance.
    #[serde(default)]
    pub band: Option<f64>,
    /// Compute a named reference at these policies' points only (default:
    /// every point shown).
    #[serde(default)]
    pub policies: Vec<String>,
}

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

/// A reference value: a number, or the name of an exact result computed from
/// each point's system (each model's own: `Model::references`).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Reference {
    Number(f64),
    Named(String),
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

#[cfg(test)]
mod where_tests {
    use super::*;

    fn parse(s: &str) -> Result<WhereTest, String> {
        let v: toml::Table = toml::from_str(&format!("w = {s}")).unwrap();
        WhereTest::parse(&v["w"])
    }

    fn selects(s: &str, values: &[&str]) -> Vec<String> {
        let t = parse(s).unwrap();
        values
            .iter()
            .filter(|v| t.matches(v))
            .map(|v| v.to_string())
            .collect()
    }

    #[test]
    fn values_and_lists_select_exactly_those_values() {
        let vs = ["0.5", "0.9", "0.95", "true"];
        assert_eq!(selects("0.9", &vs), ["0.9"]);
        assert_eq!(selects("[0.5, 0.95]", &vs), ["0.5", "0.95"]);
        assert_eq!(selects("true", &vs), ["true"]);
    }

    #[test]
    fn ranges_include_or_exclude_their_bounds_as_written() {
        let vs = ["0.5", "0.9", "0.95", "0.99"];
        assert_eq!(selects("\">= 0.9\"", &vs), ["0.9", "0.95", "0.99"]);
        assert_eq!(selects("\"> 0.9\"", &vs), ["0.95", "0.99"]);
        assert_eq!(selects("\"> 0.5, <= 0.95\"", &vs), ["0.9", "0.95"]);
        assert_eq!(selects("\"< 0.9\"", &vs), ["0.5"]);
        assert_eq!(selects("{ min = 0.9 }", &vs), ["0.9", "0.95", "0.99"]);
        assert_eq!(selects("{ min = 0.9, max = 0.95 }", &vs), ["0.9", "0.95"]);
        assert_eq!(selects("{ max = 1 }", &vs), vs);
        // Not numbers: never in a range.
        assert!(selects("\">= 0\"", &["job", "true"]).is_empty());
    }

    #[test]
    fn malformed_ranges_say_which_forms_are_allowed() {
        for bad in [
            "\">> 0.5\"",
            "\">= high\"",
            "\">= 1, > 2\"",
            "{ above = 0.5 }",
            "{ min = \"x\" }",
            "{}",
            "\">= nan\"",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(
                e.contains("allowed") || e.contains("min, max"),
                "{bad}: {e}"
            );
        }
    }
}
