//! The house rules a manifest keeps beyond what the loader refuses: its prose
//! and captions read as the report prints them. One registry ([`RULES`]),
//! which `lb check` applies at authoring time and the test suite applies to
//! the shipped manifests; each rule carries a fixture that breaks it. The
//! loader's own rules (keys, foils, ranges, nulls, the inventories) run
//! first: `lb check` reports those too.

use std::path::Path;

/// A rule: its name, what it asks, and how it reads a manifest.
pub struct Rule {
    /// The rule's name.
    pub name: &'static str,
    /// What the rule asks, in a sentence.
    pub asks: &'static str,
    /// The findings of the rule on a manifest's TOML.
    pub check: fn(&toml::Value) -> Vec<Finding>,
    /// A manifest fragment that breaks it (for the tests).
    pub fixture: &'static str,
}

/// One place a rule is broken: the field, and what to do.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The key at fault.
    pub field: String,
    /// What is wrong and the fix.
    pub message: String,
}

/// Every rule, in the order `lb check` reports them.
pub const RULES: &[Rule] = &[
    Rule {
        name: "numbers-in-prose",
        asks: "no measured number typed in prose: a caption, a note, a claim's why or a \
               why_check's says quotes what was measured ({{…}}), so the report cannot print \
               a number its records no longer hold",
        check: numbers_in_prose,
        fixture: "[[figure]]\ncaption = \"the ratio is 1.234 at the smallest load\"\n",
    },
    Rule {
        name: "captions-stand-alone",
        asks: "a caption stands alone: no \"as above\" (a page, or a reader, may show a \
               figure alone)",
        check: captions_stand_alone,
        fixture: "[[figure]]\ncaption = \"The same system as above.\"\n",
    },
];

/// The findings of every rule on the manifest at `path`, each prefixed by
/// its rule's name.
pub fn check_file(path: &Path) -> Result<Vec<(String, Finding)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: toml::Value = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(RULES
        .iter()
        .flat_map(|r| (r.check)(&v).into_iter().map(|f| (r.name.to_string(), f)))
        .collect())
}

fn captions_stand_alone(v: &toml::Value) -> Vec<Finding> {
    let mut out = Vec::new();
    let figures = v.get("figure").and_then(|f| f.as_array()).cloned();
    for (i, f) in figures.unwrap_or_default().iter().enumerate() {
        let c = f
            .get("caption")
            .and_then(|c| c.as_str())
            .unwrap_or("")
            .to_lowercase();
        for bad in ["as above", "figure above", "same setting", "as before"] {
            if c.contains(bad) {
                out.push(Finding {
                    field: format!("figure[{i}].caption"),
                    message: format!(
                        "the caption leans on another (\"{bad}\"): say the setting in full"
                    ),
                });
            }
        }
    }
    out
}

fn numbers_in_prose(v: &toml::Value) -> Vec<Finding> {
    let mut params = vec![0.95, 1.0];
    parameters(v, "", &mut params);
    let mut fields = Vec::new();
    prose(v, String::new(), &mut fields);
    let mut out = Vec::new();
    for (field, text) in fields {
        for n in typed_numbers(text, &params) {
            out.push(Finding {
                field: field.trim_start_matches('.').to_string(),
                message: format!(
                    "{n}: a number typed in prose that is no parameter of the manifest; quote \
                     the measured value ({{{{mean METRIC of POLICY where AXIS = VALUE}}}}, \
                     experiments/README.md) or write a derived constant after \"≈\""
                ),
            });
        }
    }
    out
}

/// The fields whose text may quote (as lb_manifest::prose::fields).
const PROSE: &[&str] = &["notes", "caption", "claim", "why", "says"];

/// Numbers of every non-prose value of the manifest.
fn parameters(v: &toml::Value, key: &str, out: &mut Vec<f64>) {
    match v {
        toml::Value::Integer(i) => out.push(*i as f64),
        toml::Value::Float(f) => out.push(*f),
        toml::Value::String(s) if !PROSE.contains(&key) => {
            out.extend(numbers(s).into_iter().map(|n| n.value))
        }
        toml::Value::Array(a) => a.iter().for_each(|x| parameters(x, key, out)),
        toml::Value::Table(t) => t.iter().for_each(|(k, x)| parameters(x, k, out)),
        _ => {}
    }
}

/// The prose fields, with a path for messages.
fn prose<'a>(v: &'a toml::Value, path: String, out: &mut Vec<(String, &'a str)>) {
    match v {
        toml::Value::Table(t) => {
            for (k, x) in t {
                let p = format!("{path}.{k}");
                match x {
                    toml::Value::String(s) if PROSE.contains(&k.as_str()) => out.push((p, s)),
                    _ => prose(x, p, out),
                }
            }
        }
        toml::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                prose(x, format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

#[derive(Debug)]
struct Number {
    value: f64,
    /// Byte range in the text.
    start: usize,
    end: usize,
    integer: bool,
}

/// The decimal numbers of a text: an optional sign (− or -) right before
/// the digits, thousands groups ("2,000,000", "2 000 000"), a fraction.
fn numbers(text: &str) -> Vec<Number> {
    let b: Vec<(usize, char)> = text.char_indices().collect();
    let digit = |i: usize| b.get(i).is_some_and(|(_, c)| c.is_ascii_digit());
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let prev_word = i > 0 && (b[i - 1].1.is_alphanumeric() || b[i - 1].1 == '.');
        if !digit(i) || prev_word {
            i += 1;
            continue;
        }
        let negative = i > 0 && matches!(b[i - 1].1, '−' | '-') && {
            // A sign, not a range dash or a minus between two terms.
            i < 2 || matches!(b[i - 2].1, ' ' | '(' | '{' | '^' | '[')
        };
        let start = if negative { b[i - 1].0 } else { b[i].0 };
        let mut s = String::new();
        while digit(i) {
            s.push(b[i].1);
            i += 1;
        }
        let first_group = s.len();
        // Thousands groups: a separator, exactly three digits, no fourth.
        while i + 3 < b.len() + 1
            && b.get(i)
                .is_some_and(|(_, c)| matches!(c, ',' | ' ' | '\u{202f}'))
            && digit(i + 1)
            && digit(i + 2)
            && digit(i + 3)
            && !digit(i + 4)
            && first_group <= 3
            && !b.get(i + 4).is_some_and(|(_, c)| *c == '.' && digit(i + 5))
        {
            for k in 1..=3 {
                s.push(b[i + k].1);
            }
            i += 4;
        }
        let mut integer = true;
        if b.get(i).is_some_and(|(_, c)| *c == '.') && digit(i + 1) {
            integer = false;
            s.push('.');
            i += 1;
            while digit(i) {
                s.push(b[i].1);
                i += 1;
            }
        }
        let end = b.get(i).map_or(text.len(), |(j, _)| *j);
        let v: f64 = s.parse().unwrap();
        out.push(Number {
            value: if negative { -v } else { v },
            start,
            end,
            integer,
        });
    }
    out
}

/// Whether `n` in `text` is allowed without a quote (the rules above).
fn allowed(text: &str, n: &Number, params: &[f64]) -> bool {
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-300);
    let v = n.value.abs();
    let percent = text[n.end..].starts_with('%');
    let derived = || {
        params.iter().any(|a| {
            params.iter().any(|b| {
                close((a - b).abs(), v)
                    || close((a * b).abs(), v)
                    || (*b != 0.0 && close((a / b).abs(), v))
            })
        })
    };
    if params.iter().any(|p| close(p.abs(), v))
        || derived()
        || (percent && params.iter().any(|p| close(100.0 * p.abs(), v)))
        || (percent && close(v, 95.0))
        || (n.integer && v <= 10.0)
        || (n.integer && (text[n.end..].starts_with('/') || text[..n.start].ends_with('/')))
    {
        return true;
    }
    let before = text[..n.start].trim_end();
    if before.ends_with('≈') || before.ends_with('§') {
        return true;
    }
    if let Some(lhs) = before.strip_suffix('=') {
        // "= value" after a symbol, not after a word.
        let last = lhs.trim_end().chars().last();
        if last.is_some_and(|c| !c.is_ascii_alphabetic()) {
            return true;
        }
    }
    [
        "Fig.",
        "Figs.",
        "Theorem",
        "Lemma",
        "Example",
        "Corollary",
        "Section",
    ]
    .iter()
    .any(|w| before.ends_with(w))
}

/// The text with its `{{…}}` quotes blanked (same length, for offsets).
fn without_quotes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let j = rest[i..].find("}}").map_or(rest.len(), |j| i + j + 2);
        out.push_str(&" ".repeat(j - i));
        rest = &rest[j..];
    }
    out.push_str(rest);
    out
}

/// The numbers of `text` that break the rules, with their context.
fn typed_numbers(text: &str, params: &[f64]) -> Vec<String> {
    let t = without_quotes(text);
    numbers(&t)
        .into_iter()
        .filter(|n| !allowed(&t, n, params))
        .map(|n| {
            let from = t[..n.start]
                .char_indices()
                .rev()
                .nth(30)
                .map_or(0, |(i, _)| i);
            let to = t[n.end..]
                .char_indices()
                .nth(20)
                .map_or(t.len(), |(i, _)| n.end + i);
            format!("{} in \"…{}…\"", &t[n.start..n.end], &t[from..to])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_measurement_is_caught_and_parameters_are_not() {
        let params = [0.002, 0.1, 2_000_000.0, 0.7, 60.0, 10.0];
        let flagged = |t: &str| typed_numbers(t, &params);
        // Measured values typed by hand.
        assert_eq!(flagged("the ratio is 1.20 ± 0.06").len(), 2);
        assert_eq!(flagged("L-JSQ-Push beats it by 29–115 slots").len(), 2);
        assert_eq!(flagged("the ratio = 1.20").len(), 1);
        // Parameters, derived constants, small integers, quotes.
        assert!(flagged("at ε = 0.002·μ_Σ, within 10%, runs of 2,000,000 slots").is_empty());
        assert!(flagged("runs of 2 000 000 slots at load 0.7").is_empty());
        assert!(flagged("over 50 time units after 10 of warm-up (1/0.002 = 500)").is_empty());
        assert!(flagged("b/(√N ln N) ≈ 0.0084, μ_Σ = 5.9, §4.2, Theorem 2, d = 3").is_empty());
        assert!(flagged("the ratio is {{zeta_ratio of WR where epsilon_frac = 0.002}}").is_empty());
        // A sign is read as one, a range dash is not.
        let n = numbers("λ = 1 − N^{−0.3}, loads 0.5–0.9");
        let v: Vec<f64> = n.iter().map(|n| n.value).collect();
        assert_eq!(v, [1.0, -0.3, 0.5, 0.9]);
    }

    /// Every rule finds its fixture broken.
    #[test]
    fn every_rule_breaks_on_its_fixture() {
        for r in RULES {
            let v: toml::Value = toml::from_str(r.fixture).unwrap();
            assert!(!(r.check)(&v).is_empty(), "{}: its fixture passes", r.name);
        }
    }
}
