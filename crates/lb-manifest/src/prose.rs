//! Measured numbers in a manifest's prose, quoted from the records.
//!
//! A caption, a claim's `why`, a `why_check`'s `says` or the experiment's
//! `notes` may quote a measured value instead of typing it:
//!
//! ```text
//! {{zeta_ratio of L-Pod-Push where epsilon_frac = 0.002}}   → 1.198 ± 0.062
//! {{mean s3 of Pod(5) where lambda = 0.9}}                  → 0.03815
//! {{rel s3 of Pod(5) where lambda = 0.9}}                   → ±1.7%
//! {{range zeta_ratio of WR}}                                → 19.7–24.7
//! ```
//!
//! `{{[FORM] METRIC of POLICY [where K = V, …]}}`: the `where` part is a
//! claim's `where` table written inline (a value, a list, a range such as
//! `"<= 0.002"`), and the label runs from `of` to `where`. The report
//! expands each quote from the point's records, so a typed number cannot go
//! stale when the records change; a point that has not settled is quoted
//! with that diagnosis, never as a bare number. Forms:
//!
//! - `ci` (the default): the estimate with its 95% interval, as the tables
//!   print it (`mean ± half-width`; a proportion's Wilson interval
//!   `p [lo, hi]`; a proportion never observed `≤ upper`);
//! - `mean`: the estimate alone; `hw`: the half-width alone; `rel`: the
//!   half-width relative to the mean, in percent; `n`: the replications
//!   read; `unstable`: how many of them were judged unstable ("1 of 20");
//!   `zeros`: how many gave the metric exactly 0 ("4 of 5");
//! - `range`: the lowest and highest estimate over every point selected,
//!   `lo–hi`.
//!
//! Beside the model's metrics, a quote may name `cpu`: the seconds one
//! replication took to compute, on one thread, as its record states.
//!
//! Every form but `range` needs the selection to be exactly one point.
//! Parsing and the names a quote uses are checked with the manifest
//! (`validate`); lb-analysis expands quotes.

use crate::manifest::Parsed;
use crate::outputs::Where;

/// Every field of a manifest that may quote, with its path for errors:
/// `experiment.notes`, `figure[i].caption`, `figure[i].claim`,
/// `claim[i].why`, `claim[i].why_check[j].says`, `claim[i].foil.says` and
/// `claim[i].no_foil`.
pub fn fields(l: &Parsed) -> Vec<(String, &str)> {
    let mut out = Vec::new();
    if let Some(n) = &l.experiment().notes {
        out.push(("experiment.notes".to_string(), n.as_str()));
    }
    for (i, f) in l.manifest.figures().iter().enumerate() {
        out.push((format!("figure[{i}].caption"), f.caption.as_str()));
        if let Some(c) = &f.claim {
            out.push((format!("figure[{i}].claim"), c.as_str()));
        }
    }
    for (i, c) in l.manifest.claim_tables().iter().enumerate() {
        if let Some(w) = &c.why {
            out.push((format!("claim[{i}].why"), w.as_str()));
        }
        for (j, w) in c.why_check.iter().enumerate() {
            out.push((format!("claim[{i}].why_check[{j}].says"), w.says.as_str()));
        }
        if let Some(f) = &c.foil {
            out.push((format!("claim[{i}].foil.says"), f.says.as_str()));
        }
        if let Some(n) = &c.no_foil {
            out.push((format!("claim[{i}].no_foil"), n.as_str()));
        }
    }
    out
}

/// The metric a quote may name beside the model's: the seconds one
/// replication took to compute, on one thread (its record's provenance).
pub const CPU: &str = "cpu";

/// What a quote prints of its point(s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The interval.
    Ci,
    /// The mean.
    Mean,
    /// The half-width.
    HalfWidth,
    /// The half-width relative to the mean.
    Relative,
    /// The range of means over the points.
    Range,
    /// The replications.
    Replications,
    /// The unstable replications.
    Unstable,
    /// The replications whose value is 0.
    Zeros,
}

impl Form {
    pub(crate) const WORDS: &[(&str, Form)] = &[
        ("ci", Form::Ci),
        ("mean", Form::Mean),
        ("hw", Form::HalfWidth),
        ("rel", Form::Relative),
        ("range", Form::Range),
        ("n", Form::Replications),
        ("unstable", Form::Unstable),
        ("zeros", Form::Zeros),
    ];

    /// Whether it reads one point only.
    pub fn single(self) -> bool {
        self != Form::Range
    }
}

/// One `{{…}}` quote, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    /// The text between the braces, for messages and traces.
    pub text: String,
    /// What it prints.
    pub form: Form,
    /// The metric.
    pub metric: String,
    /// The policy (label).
    pub policy: String,
    /// The point (`where`).
    pub filter: Where,
}

/// A piece of prose: text as written, or a quote.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// Text as written.
    Text(String),
    /// A quote of a measured value.
    Quote(Quote),
}

const SYNTAX: &str = "write {{[FORM] METRIC of POLICY [where AXIS = VALUE, …]}}, FORM one of \
                      ci (default), mean, hw, rel, range, n, unstable, zeros";

/// Splits prose into text and quotes; the error names the quote and what is
/// wrong with it.
pub fn parse(text: &str) -> Result<Vec<Piece>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("{{") {
        if i > 0 {
            out.push(Piece::Text(rest[..i].to_string()));
        }
        let after = &rest[i + 2..];
        let j = after
            .find("}}")
            .ok_or_else(|| format!("a quote \"{{{{\" is not closed by \"}}}}\"; {SYNTAX}"))?;
        out.push(Piece::Quote(quote(&after[..j])?));
        rest = &after[j + 2..];
    }
    if rest.contains("}}") {
        return Err(format!("\"}}}}\" closes no quote; {SYNTAX}"));
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest.to_string()));
    }
    Ok(out)
}

/// The quotes of a text, in order.
pub fn quotes(text: &str) -> Result<Vec<Quote>, String> {
    Ok(parse(text)?
        .into_iter()
        .filter_map(|p| match p {
            Piece::Quote(q) => Some(q),
            Piece::Text(_) => None,
        })
        .collect())
}

fn quote(inner: &str) -> Result<Quote, String> {
    let text = inner.trim().to_string();
    let bad = |why: &str| format!("cannot read the quote {{{{{text}}}}}: {why}; {SYNTAX}");
    let (head, filter) = match text.split_once(" where ") {
        Some((h, w)) => (h.trim(), parse_where(w).map_err(|e| bad(&e))?),
        None => (text.as_str(), Where::new()),
    };
    let (before, policy) = head
        .split_once(" of ")
        .ok_or_else(|| bad("it names no policy (\"of POLICY\")"))?;
    let policy = policy.trim().to_string();
    let words: Vec<&str> = before.split_whitespace().collect();
    let (form, metric) = match words.as_slice() {
        [m] => (Form::Ci, *m),
        [f, m] => {
            let form = Form::WORDS
                .iter()
                .find(|(w, _)| w == f)
                .map(|(_, f)| *f)
                .ok_or_else(|| bad(&format!("\"{f}\" is not a form")))?;
            (form, *m)
        }
        _ => return Err(bad("expected a form and a metric before \"of\"")),
    };
    Ok(Quote {
        text: text.clone(),
        form,
        metric: metric.to_string(),
        policy,
        filter,
    })
}

/// `K = V, …` read as the inline table `{ K = V, … }`.
fn parse_where(w: &str) -> Result<Where, String> {
    let doc = format!("w = {{ {w} }}");
    let mut t: toml::Table = toml::from_str(&doc).map_err(|e| {
        format!(
            "\"{}\" is not a `where` table ({})",
            w.trim(),
            e.message().trim()
        )
    })?;
    match t.remove("w") {
        Some(toml::Value::Table(t)) => Ok(t.into_iter().collect()),
        _ => Err(format!("\"{}\" is not a `where` table", w.trim())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_parse_with_forms_labels_and_filters() {
        let p = parse(
            "At {{zeta_ratio of L-Pod-Push where epsilon_frac = 0.002}}, \
             {{range zeta_ratio of JSQ (1 disp.)}} and {{rel s3 of Pod(5) where lambda = \"<= 0.9\", d = 5}}.",
        )
        .unwrap();
        let q: Vec<&Quote> = p
            .iter()
            .filter_map(|x| match x {
                Piece::Quote(q) => Some(q),
                _ => None,
            })
            .collect();
        assert_eq!(q.len(), 3);
        assert_eq!((q[0].form, q[0].metric.as_str()), (Form::Ci, "zeta_ratio"));
        assert_eq!(q[0].policy, "L-Pod-Push");
        assert_eq!(
            q[0].filter.get("epsilon_frac"),
            Some(&toml::Value::Float(0.002))
        );
        assert_eq!(
            (q[1].form, q[1].policy.as_str()),
            (Form::Range, "JSQ (1 disp.)")
        );
        assert!(q[1].filter.is_empty());
        assert_eq!((q[2].form, q[2].filter.len()), (Form::Relative, 2));
        assert_eq!(p.first(), Some(&Piece::Text("At ".into())));
        assert_eq!(p.last(), Some(&Piece::Text(".".into())));
    }

    #[test]
    fn malformed_quotes_say_what_is_wrong() {
        for (text, says) in [
            ("{{zeta_ratio}}", "names no policy"),
            ("{{zeta_ratio of WR", "not closed"),
            ("a }} b", "closes no quote"),
            ("{{median zeta_ratio of WR}}", "\"median\" is not a form"),
            (
                "{{zeta_ratio of WR where epsilon_frac 0.1}}",
                "is not a `where` table",
            ),
            ("{{zeta_ratio of  where x = 1}}", "names no policy"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
        assert_eq!(
            parse("no quote").unwrap(),
            vec![Piece::Text("no quote".into())]
        );
    }
}
