//! Errors that point into a manifest: `file:line:col: field: what is allowed`.
//!
//! A [`SpanIndex`] maps every key path of a TOML document (`system.load`,
//! `policy[2].p_hat`, `sweep.load[3]`) to the byte spans of its key and value,
//! so that both the parser's errors (which carry a span) and the validator's
//! (which carry a path) can be reported at a line and column with a field name.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::de::{DeTable, DeValue};

/// An error in a manifest, located in its file.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestError {
    /// The manifest the error is in.
    pub file: PathBuf,
    /// 1-based; 0 when the problem has no place in the text (e.g. an unreadable file).
    pub line: usize,
    /// The 1-based column of the key or value at fault.
    pub col: usize,
    /// The key path, e.g. `policy[2].p_hat`; empty for the document as a whole.
    pub field: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.col)?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ManifestError {}

/// One key of the document: its path and the spans of its key and value.
#[derive(Debug, Clone)]
struct Entry {
    path: String,
    key: Option<Range<usize>>,
    value: Range<usize>,
    depth: usize,
}

/// Every key path of a TOML document with its spans.
#[derive(Debug, Clone)]
pub struct SpanIndex {
    file: PathBuf,
    text: String,
    entries: Vec<Entry>,
}

impl SpanIndex {
    /// Parses `text` for its spans; a syntax error is returned located.
    pub fn parse(file: &Path, text: &str) -> Result<SpanIndex, ManifestError> {
        let mut idx = SpanIndex {
            file: file.to_path_buf(),
            text: text.to_string(),
            entries: Vec::new(),
        };
        let doc = DeTable::parse(text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            idx.error_at_span(
                span,
                "",
                format!("malformed TOML: {}", e.message().trim_end()),
            )
        })?;
        let mut entries = Vec::new();
        walk_table(doc.get_ref(), "", 0, &mut entries);
        idx.entries = entries;
        idx.finite()?;
        Ok(idx)
    }

    /// Every bare number of the document (integers and floats, in any
    /// section, list or inline table): its key path and the byte span of
    /// its text. Only a bare number parses: strings are quoted, tables and
    /// arrays bracketed.
    pub fn numbers(&self) -> Vec<(&str, Range<usize>)> {
        self.entries
            .iter()
            .filter(|e| {
                let t = self.text[e.value.clone()].trim();
                !t.is_empty() && t.replace('_', "").parse::<f64>().is_ok()
            })
            .map(|e| (e.path.as_str(), e.value.clone()))
            .collect()
    }

    /// Every number the document carries is finite: a `nan`, an `inf`, or
    /// a float too large for an f64 (`1e999`), in any section, list or
    /// inline table, is refused at its value before any schema reads it
    /// (no later code — sweep expansion, canonical JSON, a key — has to
    /// represent it).
    fn finite(&self) -> Result<(), ManifestError> {
        for (path, span) in self.numbers() {
            let t = self.text[span.clone()].trim();
            let x: f64 = t.replace('_', "").parse().expect("a number (numbers())");
            if !x.is_finite() {
                return Err(self.error_at_span(
                    span,
                    path,
                    format!(
                        "{t} is not a finite number: every number a manifest carries must be \
                         finite (write the value itself, e.g. 0.5 or 1e6)"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The file the index is of.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub(crate) fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let start = before.rfind('\n').map_or(0, |i| i + 1);
        (line, before[start..].chars().count() + 1)
    }

    /// An error at a byte span, naming `field`.
    pub(crate) fn error_at_span(
        &self,
        span: Range<usize>,
        field: &str,
        message: impl Into<String>,
    ) -> ManifestError {
        let (line, col) = self.line_col(span.start);
        ManifestError {
            file: self.file.clone(),
            line,
            col,
            field: field.to_string(),
            message: message.into(),
        }
    }

    /// Whether the document has this key path.
    pub fn has(&self, path: &str) -> bool {
        self.entries.iter().any(|e| e.path == path)
    }

    /// The keys of the table at key path `path`, in the order they are
    /// written (as their paths: `claim[0].metric`).
    pub(crate) fn keys_of(&self, path: &str) -> Vec<&str> {
        let mut keys: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|e| e.key.is_some() && parent(&e.path) == Some(path))
            .collect();
        keys.sort_by_key(|e| e.key.as_ref().map(|k| k.start));
        keys.into_iter().map(|e| e.path.as_str()).collect()
    }

    /// An error at the value of key path `path`; if the path is absent (a
    /// missing key), at its nearest present ancestor.
    pub fn error(&self, path: &str, message: impl Into<String>) -> ManifestError {
        let mut p = path;
        loop {
            if let Some(e) = self.entries.iter().find(|e| e.path == p) {
                return self.error_at_span(e.value.clone(), path, message);
            }
            match parent(p) {
                Some(q) => p = q,
                None => return self.error_at_span(0..0, path, message),
            }
        }
    }

    /// The key path whose key or value holds `span` most tightly.
    pub(crate) fn path_at(&self, span: &Range<usize>) -> Option<&str> {
        let inside = |r: &Range<usize>| r.start <= span.start && span.end <= r.end.max(r.start);
        self.entries
            .iter()
            .filter(|e| e.key.as_ref().is_some_and(|k| k == span) || inside(&e.value))
            .max_by_key(|e| {
                // An exact key match wins; then the deepest path.
                (
                    e.key.as_ref() == Some(span),
                    e.depth,
                    usize::MAX - e.value.len(),
                )
            })
            .map(|e| e.path.as_str())
    }
}

/// The parent of a key path: `a.b[2].c` → `a.b[2]` → `a.b` → `a` → none.
pub fn parent(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    if path.ends_with(']') {
        return path.rfind('[').map(|i| &path[..i]);
    }
    match path.rfind('.') {
        Some(i) => Some(&path[..i]),
        None => Some(""),
    }
}

fn join(prefix: &str, key: &str) -> String {
    let key = if key.is_empty()
        || !key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        format!("{key:?}")
    } else {
        key.to_string()
    };
    if prefix.is_empty() {
        key
    } else {
        format!("{prefix}.{key}")
    }
}

fn walk_table(t: &DeTable<'_>, prefix: &str, depth: usize, out: &mut Vec<Entry>) {
    for (k, v) in t.iter() {
        let path = join(prefix, k.get_ref());
        out.push(Entry {
            path: path.clone(),
            key: Some(k.span()),
            value: v.span(),
            depth: depth + 1,
        });
        walk_value(v.get_ref(), &path, depth + 1, out);
    }
}

fn walk_value(v: &DeValue<'_>, path: &str, depth: usize, out: &mut Vec<Entry>) {
    match v {
        DeValue::Table(t) => walk_table(t, path, depth, out),
        DeValue::Array(a) => {
            for (i, item) in a.iter().enumerate() {
                let p = format!("{path}[{i}]");
                out.push(Entry {
                    path: p.clone(),
                    key: None,
                    value: item.span(),
                    depth: depth + 1,
                });
                walk_value(item.get_ref(), &p, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// Levenshtein distance, for "did you mean …".
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

/// The closest of `candidates` to `word`, if close enough to be a likely typo.
pub(crate) fn did_you_mean<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lw = word.to_ascii_lowercase();
    let close = candidates
        .iter()
        .map(|c| (edit_distance(&lw, &c.to_ascii_lowercase()), *c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min()
        .map(|(_, c)| c);
    // A truncated name ("same" for "same_as") is a likely slip too.
    close.or_else(|| {
        candidates
            .iter()
            .find(|c| lw.len() >= 3 && c.to_ascii_lowercase().starts_with(&lw))
            .copied()
    })
}

/// `v` must be one of `allowed` (exactly); else a located error with the
/// nearest allowed value.
pub(crate) fn one_of(
    l: &SpanIndex,
    at: &str,
    what: &str,
    v: &str,
    allowed: &[&str],
) -> Result<(), ManifestError> {
    if allowed.contains(&v) {
        return Ok(());
    }
    Err(unknown(l, at, what, v, allowed))
}

/// The spelling in `allowed` of `v`, ignoring case and surrounding blanks;
/// `v` itself if none matches. `one_of(…, spelled_as_in(v, allowed), allowed)`
/// accepts a value in any case.
pub(crate) fn spelled_as_in<'a>(v: &'a str, allowed: &[&'a str]) -> &'a str {
    allowed
        .iter()
        .find(|a| a.eq_ignore_ascii_case(v.trim()))
        .copied()
        .unwrap_or(v)
}

fn unknown(l: &SpanIndex, at: &str, what: &str, v: &str, allowed: &[&str]) -> ManifestError {
    if allowed.is_empty() {
        return l.error(
            at,
            if what == "sweep axis" {
                format!(
                    "\"{v}\" is not swept: this manifest has no [sweep] axis (add a [sweep] \
                     table with `{v} = [ … ]`, or remove the reference)"
                )
            } else {
                format!("unknown {what} \"{v}\": this manifest defines none")
            },
        );
    }
    let hint = did_you_mean(v, allowed)
        .map(|s| format!("; did you mean \"{s}\"?"))
        .unwrap_or_default();
    l.error(
        at,
        format!(
            "unknown {what} \"{v}\"{hint} (allowed: {})",
            allowed.join(", ")
        ),
    )
}

/// A located, explained error from the TOML deserializer.
pub(crate) fn serde_error(spans: &SpanIndex, e: &toml::de::Error) -> ManifestError {
    let mut msg = e.message().trim_end().to_string();
    // Say what is allowed in words rather than Rust types.
    for (ty, words) in [
        ("expected u64", "expected a whole number ≥ 0"),
        ("expected u32", "expected a whole number ≥ 0"),
        ("expected f64", "expected a number"),
        ("expected a sequence", "expected a list [ … ]"),
        ("expected a map", "expected a table { … }"),
    ] {
        if let Some(head) = msg.strip_suffix(ty) {
            msg = format!("{head}{words}");
        }
    }
    let span = e.span().unwrap_or(0..0);
    let at = spans.path_at(&span).unwrap_or("").to_string();
    if let Some(rest) = msg.strip_prefix("unknown field `") {
        let (word, tail) = rest.split_once('`').unwrap_or((rest, ""));
        let allowed: Vec<&str> = tail
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|s| !s.is_empty())
            .collect();
        let hint = did_you_mean(word, &allowed)
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_default();
        let allowed = if allowed.is_empty() {
            "no keys here".to_string()
        } else {
            allowed.join(", ")
        };
        return spans.error_at_span(
            span,
            &at,
            format!("unknown key `{word}`{hint} (allowed keys: {allowed})"),
        );
    }
    if let Some(rest) = msg.strip_prefix("missing field `") {
        let word = rest.split('`').next().unwrap_or(rest);
        let field = if at.is_empty() {
            word.to_string()
        } else {
            format!("{at}.{word}")
        };
        return spans.error_at_span(span, &field, format!("required key `{word}` is missing"));
    }
    // "expected struct ServersSpec" names a Rust type: say what the manifest
    // may write instead.
    if let Some(i) = msg.find("expected struct ") {
        let ty = msg[i + "expected struct ".len()..].trim();
        let forms = match ty {
            "ServersSpec" => "a table: { count = N, rate = μ }, { count = N, uniform = [a, b] }, \
                 { rates = [μ_1, …] } or { classes = [{ count = N, rate = μ }, …] }"
                .to_string(),
            _ => "a table { … }".to_string(),
        };
        msg = format!("{}expected {forms}", &msg[..i]);
    }
    if let Some(rest) = msg.strip_prefix("invalid type: ") {
        return spans.error_at_span(span, &at, format!("wrong type: found {rest}"));
    }
    if let Some(rest) = msg.strip_prefix("unknown variant `") {
        let (word, tail) = rest.split_once('`').unwrap_or((rest, ""));
        return spans.error_at_span(
            span,
            &at,
            format!("unknown value `{word}`; {}", tail.trim_start_matches(", ")),
        );
    }
    spans.error_at_span(span, &at, msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_positions() {
        let text = "[a]\nx = 1\ny = [1, 2.5]\n\n[[p]]\nq = \"s\"\n[[p]]\nq = \"t\"\n";
        let idx = SpanIndex::parse(Path::new("m.toml"), text).unwrap();
        let e = idx.error("a.y[1]", "bad");
        assert_eq!((e.line, e.col), (3, 9));
        let e = idx.error("p[1].q", "bad");
        assert_eq!((e.line, e.col), (8, 5));
        assert_eq!(idx.keys_of("a"), ["a.x", "a.y"]);
        assert_eq!(idx.keys_of("p[1]"), ["p[1].q"]);
        // A missing key is reported at its nearest ancestor.
        let e = idx.error("a.z", "missing");
        assert_eq!(e.field, "a.z");
        assert_eq!(e.to_string(), "m.toml:1:1: a.z: missing");
    }

    #[test]
    fn typos_are_recognised() {
        assert_eq!(did_you_mean("lod", &["load", "epsilon"]), Some("load"));
        assert_eq!(did_you_mean("qqqqqq", &["load", "epsilon"]), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn syntax_errors_are_located() {
        let e = SpanIndex::parse(Path::new("m.toml"), "[a]\nx = = 1\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.starts_with("malformed TOML"), "{e}");
    }
}
