//! Quotes checked against a paper's text (`lb quotes`): every passage the
//! manifests and inventories quote from a paper — a claim's `statement`,
//! `reading` and `stands_for`, an inventory entry's `quote` and `setting` —
//! must stand in the user's copy of that paper, under one normalisation
//! (docs/AUDITING.md, "Quotes"):
//!
//! - Unicode NFKD (ligatures, full-width forms) without accents (p̂ and
//!   the extraction's detached ˆ p both read as p), curly quotes as
//!   straight;
//! - whitespace and hyphens (any dash) ignored: a PDF's extraction drops
//!   and inserts both at line and column joins;
//! - LaTeX math (a source's `\\frac{a}{b}`, `\\sqrt`, `\\lambda`) read as the
//!   Unicode a quote writes, and the marks that only group math (braces,
//!   brackets, parentheses, `_`, `^`, `$`) ignored on both sides;
//! - `[…]` in a quote holds characters the held text lost or garbled (its
//!   math), restored: read as written where the text holds them, else they
//!   may be absent from the text (at most their own length plus
//!   [`BRACKET_SLACK`] characters of it stand in their place);
//! - `…` (or `...`) marks an omission: the parts around it stand in order;
//! - the first letter may be of either case (a phrase quoted at the start
//!   of a sentence).
//!
//! A passage is a quote when it stands between double quotes (straight or
//! curly) and has at least [`MIN_WORDS`] words (shorter ones are names,
//! such as `"shared"`); an inventory entry's `quote` is a quote as a whole,
//! unless it says it is "not quoted". A passage belongs to the paper named
//! last before it in the same field (its authors as the inventory spells
//! them), else to the claim's or the inventory's paper; a passage of a
//! paper whose text was not given is not checked.

use std::path::{Path, PathBuf};
use unicode_normalization::UnicodeNormalization;

/// Words a quoted passage must have to be checked as a quote.
pub const MIN_WORDS: usize = 3;

/// Characters of the text allowed in place of a bracketed restoration
/// beyond the restoration's own length.
pub const BRACKET_SLACK: usize = 8;

/// One quoted passage, where it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    /// The manifest or inventory file.
    pub file: PathBuf,
    /// "claim `fig1-led-stable`, reading", "statement `theorem-1`, quote".
    pub place: String,
    /// The paper it is attributed to (its authors).
    pub paper: String,
    /// The passage as written.
    pub text: String,
}

/// A quote not found in the paper's text.
#[derive(Debug, Clone, PartialEq)]
pub struct Missing {
    /// The quote.
    pub quote: Quote,
    /// The first part (normalised) that the text does not hold where it
    /// should.
    pub part: String,
    /// The text nearest that part (normalised), for the fix.
    pub nearest: String,
}

/// A text as quotes are compared with it: LaTeX math written as Unicode
/// ([`unlatex`]), NFKD without its combining marks (accents, the dot of
/// Ṡ, the circumflex of p̂), straight quotes, without whitespace (LaTeX's
/// `~` too), hyphens, the extraction's detached circumflex, and the marks that only group math (braces, brackets,
/// parentheses, `_`, `^`, `$`, `\\`), which a PDF's extraction scatters
/// and a LaTeX source spells its own way. Digits, letters and operators
/// stay: one altered digit still fails.
pub fn normalise(t: &str) -> String {
    unlatex(&residue(t))
        .chars()
        .map(|c| match c {
            // The extraction's epsilon (ǫ, a Latin o with ogonek) and its
            // lunate form; the asterisk operator.
            '\u{1eb}' | '\u{3f5}' => 'ε',
            '\u{2217}' => '*',
            c => c,
        })
        .collect::<String>()
        .nfkd()
        .filter_map(|c| match c {
            c if c.is_whitespace() || c == '~' => None,
            '\u{300}'..='\u{36f}' => None,
            '-' | '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2212}'
            | '\u{ad}' => None,
            '\u{2c6}' | '^' => None,
            '{' | '}' | '[' | ']' | '(' | ')' | '_' | '$' | '\\' => None,
            '\u{2018}' | '\u{2019}' => Some('\''),
            '\u{201c}' | '\u{201d}' => Some('"'),
            c => Some(c),
        })
        .collect()
}

/// The text without the glyph residue a PDF's extraction leaves where a
/// font had no Unicode mapping: `(cid:13)`.
fn residue(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(i) = rest.find("(cid:") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 5..];
        match after.find(')') {
            Some(j) if after[..j].chars().all(|c| c.is_ascii_digit()) => rest = &after[j + 1..],
            _ => {
                out.push_str("(cid:");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// LaTeX commands as the Unicode a quote writes them in: `\\frac{a}{b}` as
/// `a/b`, `\\sqrt` as √, `\\lambda` as λ, `\\leq` as ≤; spacing and sizing
/// commands (`\\left`, `\\displaystyle`) dropped. Other commands are kept
/// as written.
fn unlatex(t: &str) -> String {
    const WORDS: &[(&str, &str)] = &[
        ("sqrt", "√"),
        ("sum", "Σ"),
        ("lambda", "λ"),
        ("alpha", "α"),
        ("beta", "β"),
        ("delta", "δ"),
        ("epsilon", "ε"),
        ("varepsilon", "ε"),
        ("mu", "μ"),
        ("xi", "ξ"),
        ("omega", "ω"),
        ("Theta", "Θ"),
        ("infty", "∞"),
        ("leq", "≤"),
        ("le", "≤"),
        ("geq", "≥"),
        ("ge", "≥"),
        ("in", "∈"),
        ("to", "→"),
        ("cdot", "·"),
        ("cdots", "⋯"),
        ("prime", "′"),
        ("log", "log"),
        ("ln", "ln"),
        ("max", "max"),
        ("min", "min"),
        ("left", ""),
        ("right", ""),
        ("displaystyle", ""),
        ("mathbb", ""),
        ("text", ""),
        ("tilde", ""),
        ("dot", ""),
        // Accents in letter form (`\\H{o}`, `\\c{c}`): the letter alone.
        ("H", ""),
        ("c", ""),
        ("v", ""),
        ("u", ""),
    ];
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let mut after = &rest[i + 1..];
        // An accent in symbol form (`\\'e`, `\\"o`): the letter alone.
        if let Some(c) = after.chars().next()
            && "'`\"^~=.".contains(c)
        {
            after = &after[c.len_utf8()..];
        }
        let name: String = after
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect();
        rest = &after[name.len()..];
        if name == "frac" {
            // \frac{a}{b}: a/b, each group as written (nested commands are
            // rewritten on the next turns).
            let (a, r) = group(rest);
            let (b, r) = group(r);
            out.push_str(&format!("({a})/({b})"));
            rest = r;
            continue;
        }
        match WORDS.iter().find(|(w, _)| *w == name) {
            Some((_, u)) => out.push_str(u),
            None if name.is_empty() => {}
            None => out.push_str(&name),
        }
    }
    out.push_str(rest);
    if out.contains('\\') {
        unlatex(&out)
    } else {
        out
    }
}

/// The brace group at the start of `t` (after spaces) and what follows it;
/// a single character where there is no brace.
fn group(t: &str) -> (&str, &str) {
    let t = t.trim_start();
    if let Some(body) = t.strip_prefix('{') {
        let mut depth = 1;
        for (i, c) in body.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return (&body[..i], &body[i + 1..]);
                    }
                }
                _ => {}
            }
        }
        (body, "")
    } else {
        let n = t.chars().next().map_or(0, char::len_utf8);
        (&t[..n], &t[n..])
    }
}

/// One piece of a quote: text that must stand, or a restoration that may
/// be absent.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text(String),
    /// `[…]`: read as written where the text holds it, else as characters
    /// the text lost.
    Bracket(String),
    Omission,
}

/// A quote cut into its pieces (normalised).
fn pieces(q: &str) -> Vec<Piece> {
    let q = q.replace("...", "…");
    let mut out = Vec::new();
    let mut buf = String::new();
    let mut chars = q.chars();
    let flush = |buf: &mut String, out: &mut Vec<Piece>| {
        let n = normalise(buf);
        if !n.is_empty() {
            out.push(Piece::Text(n));
        }
        buf.clear();
    };
    while let Some(c) = chars.next() {
        match c {
            '[' => {
                flush(&mut buf, &mut out);
                let inner: String = chars.by_ref().take_while(|&c| c != ']').collect();
                let inner = inner.replace("...", "…");
                if inner.trim() == "…" {
                    out.push(Piece::Omission);
                } else {
                    out.push(Piece::Bracket(normalise(&inner)));
                }
            }
            '…' => {
                flush(&mut buf, &mut out);
                out.push(Piece::Omission);
            }
            c => buf.push(c),
        }
    }
    flush(&mut buf, &mut out);
    out
}

/// Whether `q` stands in `text` (normalised by [`normalise`]); else the
/// first part that does not, and the text nearest it.
pub fn find(q: &str, text: &str) -> Result<(), (String, String)> {
    let ps = pieces(q);
    let first = ps.iter().find_map(|p| match p {
        Piece::Text(t) => Some(t.as_str()),
        _ => None,
    });
    let Some(first) = first else { return Ok(()) };
    let mut deepest: (usize, String, usize) = (0, first.to_string(), 0);
    for (start, _) in text.match_indices(first) {
        match follow(&ps, text, start) {
            Ok(()) => return Ok(()),
            Err((k, part, at)) => {
                if k > deepest.0 {
                    deepest = (k, part, at);
                }
            }
        }
    }
    let (_, part, at) = deepest;
    Err((part.clone(), nearest(&part, text, at)))
}

/// Matches the pieces from `start` (where the first text piece stands);
/// Err: how many pieces matched, the first that did not, and where it was
/// looked for.
fn follow(ps: &[Piece], text: &str, start: usize) -> Result<(), (usize, String, usize)> {
    let mut at = start;
    let mut slack: Option<usize> = Some(0);
    let mut started = false;
    for (k, p) in ps.iter().enumerate() {
        match p {
            Piece::Bracket(b) => {
                if let Some(sl) = slack {
                    let window = slice(text, at, at + 4 * sl + b.len());
                    if started
                        && !b.is_empty()
                        && let Some(i) = window.find(b.as_str())
                    {
                        at += i + b.len();
                        slack = Some(0);
                        continue;
                    }
                }
                slack = slack.map(|s| s + b.chars().count() + BRACKET_SLACK);
            }
            Piece::Omission => slack = None,
            Piece::Text(t) => {
                if !started {
                    started = true;
                    at = start + t.len();
                    slack = Some(0);
                    continue;
                }
                let window = match slack {
                    // Slack counts characters; a window of bytes four times
                    // as long holds them whatever their width.
                    Some(s) => slice(text, at, at + 4 * s + t.len()),
                    None => &text[at..],
                };
                match window.find(t.as_str()) {
                    Some(i) => {
                        at += i + t.len();
                        slack = Some(0);
                    }
                    None => return Err((k, t.clone(), at)),
                }
            }
        }
    }
    Ok(())
}

/// `text[from..to]`, `to` clamped to the text and moved to a character
/// boundary.
fn slice(text: &str, from: usize, to: usize) -> &str {
    let mut end = to.min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    &text[from.min(end)..end]
}

/// The stretch of `text` that best matches `part` near `at`: the longest
/// prefix of `part` found in the text, with what follows it there.
fn nearest(part: &str, text: &str, at: usize) -> String {
    let chars: Vec<char> = part.chars().collect();
    let mut best: Option<usize> = None;
    let mut n = chars.len();
    while n >= 4 {
        let prefix: String = chars[..n].iter().collect();
        let found = text[at.min(text.len())..]
            .find(&prefix)
            .map(|i| i + at)
            .or_else(|| text.find(&prefix));
        if let Some(i) = found {
            best = Some(i);
            break;
        }
        n = n * 3 / 4;
    }
    match best {
        Some(i) => text[i..].chars().take(chars.len() + 20).collect::<String>(),
        None => String::from("(no stretch of the text begins like it)"),
    }
}

/// The double-quoted passages of a field: (passage, byte offset of its
/// opening quote).
fn passages(field: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, char)> = None;
    for (i, c) in field.char_indices() {
        match (open, c) {
            (None, '"') => open = Some((i + 1, '"')),
            (None, '\u{201c}') => open = Some((i + c.len_utf8(), '\u{201d}')),
            (Some((s, close)), c) if c == close => {
                let p = &field[s..i];
                if p.split_whitespace().count() >= MIN_WORDS {
                    out.push((p.to_string(), s));
                }
                open = None;
            }
            _ => {}
        }
    }
    out
}

/// The numbers a field's quotes restore: each `[…]` of a quoted passage
/// that continues a number (it follows a digit, a decimal point or `=`,
/// and its first character is a digit), or that restores a fraction bar
/// (`O([1/(]δp[)])`), written with the characters before it ("p̂ =
/// 0.[01 and]"). A value or a form so restored is the reader's, not the
/// held text's; a bracket of math (`E[Σ_{i=1}^b S_i]`, any bracket right
/// after a letter) restores none.
pub fn restored_numbers(field: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (p, _) in passages(field) {
        let mut from = 0;
        while let Some(i) = p[from..].find('[').map(|i| i + from) {
            let Some(j) = p[i..].find(']').map(|j| j + i) else {
                break;
            };
            let inner = &p[i + 1..j];
            let before = p[..i].trim_end();
            let continues = before
                .chars()
                .last()
                .is_some_and(|c| c.is_ascii_digit() || c == '.' || c == '=');
            // A restored fraction bar changes a formula's form, as a
            // restored digit changes a number: "O([1/(]δp[)])" is lb's. A
            // bracket right after a letter holds an operator's argument
            // (`E[max{…, 0}]`, `P[·]`), math the text holds, not a restoration.
            let argument = p[..i].chars().last().is_some_and(char::is_alphabetic);
            let fraction = inner.contains('/') && !argument;
            if (continues && inner.trim_start().starts_with(|c: char| c.is_ascii_digit()))
                || fraction
            {
                // The few words before it, for the reader.
                let start = before
                    .char_indices()
                    .rev()
                    .filter(|(_, c)| c.is_whitespace())
                    .nth(2)
                    .map_or(0, |(k, c)| k + c.len_utf8());
                // A restored fraction bar with the rest of its formula, to the
                // next space ("O([1/(]δp[)])"), so the reader sees what it
                // restores.
                let tail = if fraction {
                    let end = p[j + 1..]
                        .find(char::is_whitespace)
                        .map_or(p.len(), |k| j + 1 + k);
                    p[j + 1..end].trim_end_matches(['.', ',', ';', ':'])
                } else {
                    ""
                };
                out.push(format!("{}[{inner}]{tail}", &p[start..i]));
            }
            from = j + 1;
        }
    }
    out
}

/// The paper a passage at `offset` of `field` belongs to: the last of
/// `papers` named before it, else `default`.
fn attributed<'a>(field: &str, offset: usize, papers: &[&'a str], default: &'a str) -> &'a str {
    papers
        .iter()
        .filter_map(|p| field[..offset].rfind(p).map(|i| (i, *p)))
        .max_by_key(|x| x.0)
        .map(|x| x.1)
        .unwrap_or(default)
}

/// Every quote in the manifests `manifests` and the inventories under
/// `inventory_dir`, attributed among `papers` (their authors). A file that
/// does not parse is an error naming it.
pub fn collect(
    manifests: &[PathBuf],
    inventory_dir: &Path,
    papers: &[&str],
) -> Result<Vec<Quote>, String> {
    let read = |p: &Path| -> Result<toml::Table, String> {
        let t = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        toml::from_str(&t).map_err(|e| format!("{}: {e}", p.display()))
    };
    let s = |v: &toml::Value, k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    let mut out = Vec::new();
    for m in manifests {
        let t = read(m)?;
        // Citations by key read as the loader writes them out.
        let refs = crate::references::References::beside(m).map_err(|e| e.to_string())?;
        let exp_paper = t
            .get("experiment")
            .and_then(|e| e.get("paper"))
            .and_then(|p| p.as_str())
            .unwrap_or("")
            .to_string();
        // Each quoted passage of a field, attributed to the paper named
        // last before it, else `paper`.
        let mut quoted = |v: &str, place: String, paper: &str| {
            for (p, at) in passages(v) {
                out.push(Quote {
                    file: m.clone(),
                    place: place.clone(),
                    paper: attributed(v, at, papers, paper).to_string(),
                    text: p,
                });
            }
        };
        let claims = t.get("claim").and_then(|c| c.as_array()).cloned();
        for c in claims.unwrap_or_default() {
            let id = s(&c, "id").unwrap_or_default();
            let paper = s(&c, "paper").unwrap_or_else(|| exp_paper.clone());
            for field in ["statement", "reading", "stands_for"] {
                let Some(v) = s(&c, field) else { continue };
                let v = match &refs {
                    Some(r) => r.cite(&v).unwrap_or(v),
                    None => v,
                };
                quoted(&v, format!("claim `{id}`, {field}"), &paper);
            }
        }
        // A map's values the text rules out, with the sentence that does.
        let maps = t.get("robustness").and_then(|r| r.as_array()).cloned();
        for r in maps.unwrap_or_default() {
            let name = s(&r, "name").unwrap_or_default();
            let excluded = r.get("excluded").and_then(|x| x.as_array()).cloned();
            for x in excluded.unwrap_or_default() {
                let Some(v) = s(&x, "says") else { continue };
                quoted(&v, format!("map `{name}`, excluded"), &exp_paper);
            }
        }
    }
    let mut invs: Vec<PathBuf> = std::fs::read_dir(inventory_dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    invs.retain(|p| p.extension().is_some_and(|x| x == "toml"));
    invs.sort();
    for f in invs {
        // Read as the loader reads it: the paper's authors come from its key
        // where it gives one (experiments/references.bib).
        let inv = crate::inventory::load(&f).map_err(|e| e.to_string())?;
        let paper = &inv.paper.authors;
        for st in &inv.statements {
            let id = &st.id;
            if !st.quote.contains("not quoted") {
                out.push(Quote {
                    file: f.clone(),
                    place: format!("statement `{id}`, quote"),
                    paper: paper.clone(),
                    text: st.quote.clone(),
                });
            }
            let v = &st.setting;
            for (p, at) in passages(v) {
                out.push(Quote {
                    file: f.clone(),
                    place: format!("statement `{id}`, setting"),
                    paper: attributed(v, at, papers, paper).to_string(),
                    text: p,
                });
            }
        }
    }
    Ok(out)
}

/// The quotes of `paper` among `quotes` that none of `texts` holds.
pub fn check(quotes: &[Quote], paper: &str, texts: &[String]) -> Vec<Missing> {
    let texts: Vec<String> = texts.iter().map(|t| normalise(t)).collect();
    quotes
        .iter()
        .filter(|q| q.paper == paper)
        .filter_map(|q| {
            let mut worst: Option<(String, String)> = None;
            // A quote may begin with the other case of its first letter (a
            // phrase quoted at the start of a sentence of ours).
            let mut first = q.text.chars();
            let swapped: String = match first.next() {
                Some(c) if c.is_lowercase() => c.to_uppercase().chain(first).collect(),
                Some(c) => c.to_lowercase().chain(first).collect(),
                None => String::new(),
            };
            for t in &texts {
                for variant in [&q.text, &swapped] {
                    match find(variant, t) {
                        Ok(()) => return None,
                        Err(e) => worst = worst.or(Some(e)),
                    }
                }
            }
            let (part, nearest) = worst.unwrap_or_default();
            Some(Missing {
                quote: q.clone(),
                part,
                nearest,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "All the LED policies are configured to have the same average message \
        overheads as Power-of-2. We set ˆ p = 0 . 01 and d = 2 in the frame-\nwork.";

    #[test]
    fn a_verbatim_quote_stands_across_joins_and_hyphens() {
        let t = normalise(TEXT);
        assert_eq!(
            find(
                "configured to have the same average message overheads as Power-of-2",
                &t
            ),
            Ok(())
        );
        assert_eq!(find("in the framework", &t), Ok(()));
        assert_eq!(find("We set p̂ = 0.01 and d = 2", &t), Ok(()));
    }

    #[test]
    fn one_altered_digit_fails() {
        let t = normalise(TEXT);
        assert!(find("We set p̂ = 0.02 and d = 2", &t).is_err());
        assert!(find("We set p̂ = 0.01 and d = 3", &t).is_err());
    }

    #[test]
    fn a_restored_number_is_found_and_a_bracket_of_math_is_not() {
        let reading = "Push updates (§4.2: \"with the update probability set to p̂ = 0.[01 and] d = 2\"; \"E[Σ_{i=1}^b S_i] is at most λ + k ln N\")";
        assert_eq!(restored_numbers(reading), vec!["p̂ = 0.[01 and]"]);
        // A restored fraction bar changes the formula's form; a bound's
        // restored 0 after ">" and a citation restore nothing.
        let imbalance = "§4: \"is O([1/(]δp[)]). Thus\"; \"δ > [0] being\"; \"in [1], and\"";
        assert_eq!(restored_numbers(imbalance), vec!["is O([1/(]δp[)])"]);
        // An expectation's argument holds a fraction bar the text holds too.
        let excess = "introduction: \"we prove that E[max{Σ_{i=1}^b S_i − λ − k log N/√N, 0}] ≤ 29b/(√N log N)\"";
        assert!(restored_numbers(excess).is_empty());
        // Outside a quote, and a quote restoring no digit: nothing.
        assert!(
            restored_numbers("loads [0.3, 0.99] (\"the queue length Q[_]n(t) of server\")")
                .is_empty()
        );
    }

    #[test]
    fn restorations_may_be_absent_and_omissions_skip() {
        let t = normalise("the queue length Q n ( t ) of server n at time t");
        assert_eq!(find("the queue length Q[_]n(t) of server n", &t), Ok(()));
        assert_eq!(find("the queue length … at time t", &t), Ok(()));
        // A restoration does not excuse text that is there and differs.
        assert!(find("the queue length Q[_]m(t) of server n", &t).is_err());
        // An omission keeps the order.
        assert!(find("at time t … the queue length", &t).is_err());
    }

    #[test]
    fn latex_and_glyph_residue_read_as_the_unicode_a_quote_writes() {
        let latex = normalise(
            "E[\\sum_{i=1}^{b}{S}_{i}]\\leq\\lambda+\\frac{k\\log N}{\\sqrt{N}}, \\text{an Erd\\H{o}s-R\\'enyi graph}",
        );
        assert_eq!(
            find(
                "E[Σ_{i=1}^b S_i] ≤ λ + k log N/√N, an Erdős–Rényi graph",
                &latex
            ),
            Ok(())
        );
        assert!(find("E[Σ_{i=1}^b S_i] ≤ λ + k log N/√M", &latex).is_err());
        let pdf = normalise("E h (cid:13)(cid:13) Q ( ǫ ) ⊥ for any ǫ > . Then");
        assert_eq!(find("E[‖Q^(ε)_⊥ for any ε > [0]. Then", &pdf), Ok(()));
        // A digit the text lost must be bracketed.
        assert!(find("for any ε > 0. Then", &pdf).is_err());
    }

    #[test]
    fn passages_are_attributed_to_the_paper_named_before_them() {
        let f = "Zhou, Shroff and Wierman, §1: \"one two three four\"; Liu and Ying: \
                 \u{201c}five six seven\u{201d}; \"shared\"";
        let ps = passages(f);
        assert_eq!(ps.len(), 2, "a one-word quote is a name, not a quotation");
        let papers = ["Zhou, Shroff and Wierman", "Liu and Ying"];
        assert_eq!(attributed(f, ps[0].1, &papers, "x"), papers[0]);
        assert_eq!(attributed(f, ps[1].1, &papers, "x"), papers[1]);
    }
}
