//! What a manifest asks to be drawn: `[[figure]]` tables, parsed
//! strictly here with the rest of the manifest and drawn by lb-analysis; and
//! what figures and claims ([`crate::claim`]) share: the points they select
//! (`where`) and the references they compare with.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Axis values selecting points: `{ load = [0.9, 0.95], count_own = true }`.
/// Per axis: a value, a list of values, or a range of a numeric axis
/// (`load = ">= 0.9"`, `load = "> 0.5, <= 0.9"`, `load = { min = 0.9 }`,
/// `{ min = 0.5, max = 0.9 }`; `min` and `max` are inclusive). See
/// [`WhereTest`].
pub type Where = BTreeMap<String, toml::Value>;

/// What the JSON Schema says of a `where` table (`lb schema`): each key a
/// sweep axis, each value a value, a list, a comparison string or a
/// `{ min, max }` table — checked by validation, which names the axis.
pub type WhereSchema = BTreeMap<String, serde_json::Value>;

/// The values of a `where` entry as the plan prints them ("0.9", "true", …);
/// empty for a range.
pub(crate) fn where_values(v: &toml::Value) -> Vec<String> {
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
    Range {
        /// The lower bound.
        min: Bound,
        /// The upper bound.
        max: Bound,
    },
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
#[derive(
    Debug, Clone, Copy, Default, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema,
)]
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
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FigureToml {
    /// File stem under `paper-figures/<experiment>/`: `[a-z0-9-_]+`.
    pub name: String,
    /// The title.
    pub title: String,
    /// `lines` (default) or `path`.
    #[serde(default)]
    pub kind: FigureKind,
    /// The sweep axis on the x axis (`lines`; a path figure's x is time).
    pub x: Option<String>,
    /// Its label; default: the axis name (path figures: time in the model's
    /// unit).
    pub x_label: Option<String>,
    /// The metric on the y axis (`lines`): one of the model's metrics.
    pub y: Option<String>,
    /// The y axis label; default: the metric's label. Figure markup:
    /// `_x`, `_{…}` subscripts, `^x`, `^{…}` superscripts.
    pub y_label: Option<String>,
    /// The unit of y, printed in parentheses after `y_label`.
    pub y_unit: Option<String>,
    /// Sweep axes that, besides the policy, tell series apart.
    #[serde(default)]
    pub series: Vec<String>,
    /// Only points with these axis values.
    #[serde(default, rename = "where")]
    #[schemars(with = "WhereSchema")]
    pub filter: Where,
    /// Only these policies (labels); default: all.
    #[serde(default)]
    pub policies: Vec<String>,
    #[serde(default)]
    /// A logarithmic x axis.
    pub log_x: bool,
    #[serde(default)]
    /// A logarithmic y axis.
    pub log_y: bool,
    /// The y axis's range `[lo, hi]` (default: the data's): a point outside
    /// it is drawn at the edge with an arrow and its value. Finite, lo < hi,
    /// and positive on a log axis. Drawing only: no point depends on it.
    pub y_range: Option<[f64; 2]>,
    /// Draw the paired difference of `y` between two policies instead of
    /// the metric itself: `worse − better` at each x, across replications
    /// (common random numbers), with its interval — what an ordering claim
    /// is decided on, which overplotted curves cannot show.
    pub difference: Option<Difference>,
    /// Draw ζ(ε) of each point's system (heavy-traffic figures): the same
    /// as a `reference` with `value = "zeta"`.
    #[serde(default)]
    pub zeta_line: bool,
    /// Reference curves: `[[figure.reference]]`.
    #[serde(default, rename = "reference")]
    pub references: Vec<ReferenceCurve>,
    /// Path figures: how many replications' paths to draw per series
    /// (default 5; their mean is over every replication).
    pub paths: Option<u32>,
    /// The caption: the setting and every assumption a reader needs.
    pub caption: String,
    /// What the seed claims this figure shows, in one line.
    pub claim: Option<String>,
}

/// `difference = { better = "L-JBA-Push", worse = "L-JSQ-Push" }`: a
/// figure of the paired difference `worse − better`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Difference {
    /// The policy (label) claimed better …
    pub better: String,
    /// … and the one it beats.
    pub worse: String,
}

/// `[[figure.reference]]`: a reference drawn in a figure — a number (a
/// horizontal line), or a named exact result of the model computed at each
/// point the figure shows (a curve).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReferenceCurve {
    /// A number, or a named reference (`zeta`, `pod_mean_field`, `lambda`, …).
    pub value: Reference,
    /// Its legend entry (figure markup); default: the value.
    pub label: Option<String>,
    /// Shade value × (1 ± band): a claim's relative tolerance.
    pub band: Option<f64>,
    /// Compute a named reference at these policies' points only (default:
    /// every point shown).
    #[serde(default)]
    pub policies: Vec<String>,
    /// The one x at which a number holds (a bound derived at one load):
    /// drawn there only, not across the plot.
    pub at: Option<f64>,
}

/// A reference value: a number, or the name of an exact result computed from
/// each point's system (each model's own: `Model::references`).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Reference {
    /// A number.
    Number(f64),
    /// A named reference of the model.
    Named(String),
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
