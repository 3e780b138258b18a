//! No measured number is typed in the prose of a shipped manifest: a
//! caption, a note, a claim's `why` or a `why_check`'s `says` quotes what
//! was measured from the records (`{{…}}`, lb_manifest::prose), so the report
//! cannot print a number its records no longer hold (issue 23: "every
//! number in the report's prose traceable to a record").
//!
//! A number left in prose, outside a quote, must be one of:
//! - a parameter of the manifest: a number anywhere outside these prose
//!   fields (a swept load, a rate, a run length, a tolerance as a percent,
//!   a number in a policy's label or a claim's statement), or the default
//!   level 95%;
//! - a small integer (at most 10: counts of things, indices, exponents);
//! - a derived exact constant, written after "≈", or after "=" that
//!   follows a symbol ("μ_Σ = 5.9", "29b/(√N ln N) ≈ 0.0084");
//! - a section or figure number ("§4.2", "Fig. 2", "Theorem 2").
//!
//! Anything else is reported with its field and context, and the fix.

use std::path::Path;

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

#[test]
fn shipped_prose_quotes_what_was_measured() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let mut bad = Vec::new();
    let mut files = 0;
    for f in std::fs::read_dir(&dir).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        files += 1;
        let v: toml::Value = toml::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let mut params = vec![0.95, 1.0];
        parameters(&v, "", &mut params);
        let mut fields = Vec::new();
        prose(&v, String::new(), &mut fields);
        for (field, text) in fields {
            for n in typed_numbers(text, &params) {
                bad.push(format!(
                    "{}: {}: {n}",
                    p.file_name().unwrap().to_string_lossy(),
                    field.trim_start_matches('.')
                ));
            }
        }
    }
    assert!(files >= 10, "only {files} manifests in {}", dir.display());
    assert!(
        bad.is_empty(),
        "numbers typed in prose that are no parameter of their manifest; quote a measured \
         value from the records ({{{{mean METRIC of POLICY where AXIS = VALUE}}}}, \
         experiments/README.md) or write a derived constant after \"≈\":\n{}",
        bad.join("\n")
    );
}

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
