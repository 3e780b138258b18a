//! The small markup of titles, labels, captions and claims: `_x` and `_{…}`
//! are subscripts, `^x`, `^{…}` and `^(…)` superscripts, everything else is
//! text. A one-character script must end there (`S_2`, `μ_Σ`, `T_d(λ)`,
//! `N^α`), so identifiers such as `count_own` or `p_hat` stay as written.
//!
//! Inside a code span (between backticks) nothing is a marker: a code name
//! such as `` `wr_sum_q` `` stays as written.
//!
//! Figures typeset the runs (smaller, raised or lowered); the Markdown
//! report writes them as `<sub>`/`<sup>`.

/// Where a run of text sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    /// On the line.
    Normal,
    /// A subscript.
    Sub,
    /// A superscript.
    Sup,
}

/// A run of text in one script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The text.
    pub text: String,
    /// Where it sits.
    pub script: Script,
}

fn push(runs: &mut Vec<Run>, script: Script, text: &str) {
    if text.is_empty() {
        return;
    }
    match runs.last_mut() {
        Some(r) if r.script == script => r.text.push_str(text),
        _ => runs.push(Run {
            text: text.to_string(),
            script,
        }),
    }
}

/// The group after `_` or `^` at `chars[i..]`: its text and the index after
/// it, or None when the marker is literal.
fn group(chars: &[char], i: usize) -> Option<(String, usize)> {
    let c = *chars.get(i)?;
    let close = match c {
        '{' => Some('}'),
        '(' => Some(')'),
        _ => None,
    };
    if let Some(close) = close {
        let mut depth = 0;
        for (j, &d) in chars.iter().enumerate().skip(i) {
            if d == c {
                depth += 1;
            } else if d == close {
                depth -= 1;
                if depth == 0 {
                    let inner: String = chars[i + 1..j].iter().collect();
                    // `^(…)` keeps its meaning without the parentheses.
                    return Some((inner, j + 1));
                }
            }
        }
        return None;
    }
    if c.is_whitespace() {
        return None;
    }
    // One character, then something that is not a letter or digit (combining
    // marks belong to the character).
    let mut j = i + 1;
    while chars.get(j).is_some_and(|d| is_combining(*d)) {
        j += 1;
    }
    match chars.get(j) {
        Some(d) if d.is_alphanumeric() => None,
        _ => Some((chars[i..j].iter().collect(), j)),
    }
}

/// A combining diacritical mark (U+0300–U+036F).
pub fn is_combining(c: char) -> bool {
    ('\u{300}'..='\u{36f}').contains(&c)
}

/// A script inside a script (`λ^{(d^i−d)/(d−1)}`): the character after a
/// nested marker in its Unicode superscript or subscript form where there is
/// one, else as written.
fn nested(inner: &str) -> String {
    const SUP: [(char, char); 16] = [
        ('0', '⁰'),
        ('1', '¹'),
        ('2', '²'),
        ('3', '³'),
        ('4', '⁴'),
        ('5', '⁵'),
        ('6', '⁶'),
        ('7', '⁷'),
        ('8', '⁸'),
        ('9', '⁹'),
        ('+', '⁺'),
        ('−', '⁻'),
        ('=', '⁼'),
        ('(', '⁽'),
        (')', '⁾'),
        ('i', 'ⁱ'),
    ];
    const SUB: [(char, char); 16] = [
        ('0', '₀'),
        ('1', '₁'),
        ('2', '₂'),
        ('3', '₃'),
        ('4', '₄'),
        ('5', '₅'),
        ('6', '₆'),
        ('7', '₇'),
        ('8', '₈'),
        ('9', '₉'),
        ('+', '₊'),
        ('−', '₋'),
        ('i', 'ᵢ'),
        ('j', 'ⱼ'),
        ('n', 'ₙ'),
        ('k', 'ₖ'),
    ];
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        let table: &[(char, char)] = match c {
            '^' => &SUP,
            '_' => &SUB,
            _ => {
                out.push(c);
                continue;
            }
        };
        match chars
            .peek()
            .and_then(|d| table.iter().find(|(a, _)| a == d))
        {
            Some(&(_, u)) => {
                out.push(u);
                chars.next();
            }
            None => out.push(c),
        }
    }
    out
}

/// Parses markup into runs.
pub fn parse(text: &str) -> Vec<Run> {
    let chars: Vec<char> = text.chars().collect();
    let mut runs = Vec::new();
    let mut normal = String::new();
    let mut i = 0;
    let mut code = false;
    while i < chars.len() {
        let c = chars[i];
        if c == '`' {
            code = !code;
        }
        let script = match c {
            _ if code => Script::Normal,
            '_' => Script::Sub,
            '^' => Script::Sup,
            _ => Script::Normal,
        };
        // A marker needs something before it (`x_1`, not `_1`), and an
        // underscore inside a code name is not one.
        if script != Script::Normal
            && i > 0
            && !chars[i - 1].is_whitespace()
            && !(script == Script::Sub && in_code_name(&chars, i))
            && let Some((inner, next)) = group(&chars, i + 1)
        {
            push(&mut runs, Script::Normal, &normal);
            normal.clear();
            push(&mut runs, script, &nested(&inner));
            i = next;
            continue;
        }
        normal.push(c);
        i += 1;
    }
    push(&mut runs, Script::Normal, &normal);
    runs
}

/// Operators that take a subscript in mathematics (`max_n Q_n`).
const MATH_OPERATORS: [&str; 8] = ["max", "min", "sup", "inf", "lim", "log", "ln", "arg"];

/// Whether the `_` at `chars[i]` lies inside a code name: an ASCII
/// identifier with two or more underscores (`mean_sum_q`, `sum_s_b`), or
/// with one after a lowercase word that is no mathematical operator
/// (`erlang_c`, `wr_sum` … but not `max_n`). Mathematics keeps its
/// subscripts: `S_2`, `T_d`, `μ_Σ`, `Σ_{i≤b}`, `max_n`.
fn in_code_name(chars: &[char], i: usize) -> bool {
    let word = |c: &char| c.is_ascii_alphanumeric() || *c == '_';
    let start = chars[..i]
        .iter()
        .rposition(|c| !word(c))
        .map_or(0, |p| p + 1);
    let end = chars[i..]
        .iter()
        .position(|c| !word(c))
        .map_or(chars.len(), |p| i + p);
    let token: String = chars[start..end].iter().collect();
    // A letter that is not ASCII next to the token (`μ_Σ`, `ΣQ_i`) makes it
    // mathematics.
    let touches = |j: Option<&char>| j.is_some_and(|c| c.is_alphanumeric());
    if touches(start.checked_sub(1).and_then(|j| chars.get(j))) || touches(chars.get(end)) {
        return false;
    }
    let base = &token[..i - start];
    match token.matches('_').count() {
        0 => false,
        1 => {
            base.len() >= 2
                && base.chars().all(|c| c.is_ascii_lowercase())
                && !MATH_OPERATORS.contains(&base)
        }
        _ => true,
    }
}

/// The text without markup (scripts inline).
pub fn plain(text: &str) -> String {
    parse(text).into_iter().map(|r| r.text).collect()
}

fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A text as one cell of a Markdown table (or one line of a list): its
/// scripts as in [`to_markdown`], `|` escaped, and its line breaks (a
/// manifest's `"""` strings) joined with a space, which is how Markdown
/// reads them in a paragraph; a line break would end the table row.
pub fn cell(text: &str) -> String {
    to_markdown(text)
        .replace('|', "\\|")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Markdown with `<sub>`/`<sup>` for the scripts. Only the scripts are
/// touched: the rest of the text (and any Markdown in it) is kept.
pub fn to_markdown(text: &str) -> String {
    parse(text)
        .into_iter()
        .map(|r| match r.script {
            Script::Normal => r.text,
            Script::Sub => format!("<sub>{}</sub>", escape_html(&r.text)),
            Script::Sup => format!("<sup>{}</sup>", escape_html(&r.text)),
        })
        .collect()
}

#[cfg(test)]
mod tests {

    /// A code name outside backticks stays as written; mathematics keeps
    /// its subscripts (the report once wrote `mean_sum<sub>q</sub>`).
    #[test]
    fn code_names_are_code_and_math_is_math() {
        for code in [
            "mean_sum_q",
            "wr_sum_q",
            "sum_s_b",
            "erlang_c",
            "pooled_exact",
        ] {
            assert_eq!(super::to_markdown(code), code, "{code}");
            assert_eq!(
                super::to_markdown(&format!("{code} = 1.5 against")),
                format!("{code} = 1.5 against")
            );
        }
        for (math, md) in [
            ("S_2", "S<sub>2</sub>"),
            ("T_d(λ)", "T<sub>d</sub>(λ)"),
            ("μ_Σ", "μ<sub>Σ</sub>"),
            ("E[max_n Q_n]", "E[max<sub>n</sub> Q<sub>n</sub>]"),
            ("Σ_{i≤b} S_i", "Σ<sub>i≤b</sub> S<sub>i</sub>"),
            ("ε·E[ΣQ_i]", "ε·E[ΣQ<sub>i</sub>]"),
        ] {
            assert_eq!(super::to_markdown(math), md, "{math}");
        }
    }

    /// A code span keeps its markers as written (the audit wrote
    /// `wr_sum<sub>q</sub>` 65 times).
    #[test]
    fn code_spans_are_not_typeset() {
        assert_eq!(
            super::cell("`wr_sum_q` against S_2 and `erlang_c`"),
            "`wr_sum_q` against S<sub>2</sub> and `erlang_c`"
        );
        assert_eq!(super::cell("`sum_s_b`"), "`sum_s_b`");
    }

    use super::*;

    fn shown(s: &str) -> Vec<(Script, &'static str)> {
        parse(s)
            .into_iter()
            .map(|r| (r.script, &*Box::leak(r.text.into_boxed_str())))
            .collect()
    }

    #[test]
    fn scripts_and_literal_underscores() {
        use Script::*;
        assert_eq!(
            shown("σ²_Σ + ν²_Σ"),
            [(Normal, "σ²"), (Sub, "Σ"), (Normal, " + ν²"), (Sub, "Σ")]
        );
        assert_eq!(shown("count_own = true"), [(Normal, "count_own = true")]);
        assert_eq!(shown("p_hat"), [(Normal, "p_hat")]);
        assert_eq!(shown("S_2"), [(Normal, "S"), (Sub, "2")]);
        assert_eq!(
            shown("E[Σ_{i≤b} S_i]"),
            [
                (Normal, "E[Σ"),
                (Sub, "i≤b"),
                (Normal, " S"),
                (Sub, "i"),
                (Normal, "]")
            ]
        );
        assert_eq!(shown("1 − N^(−0.3)"), [(Normal, "1 − N"), (Sup, "−0.3")]);
        assert_eq!(
            shown("N^α ln N"),
            [(Normal, "N"), (Sup, "α"), (Normal, " ln N")]
        );
        assert_eq!(
            shown("T_d(λ)"),
            [(Normal, "T"), (Sub, "d"), (Normal, "(λ)")]
        );
        assert_eq!(shown("a ^ b"), [(Normal, "a ^ b")]);
        assert_eq!(
            shown("λ^{(d^i−d)/(d−1)}"),
            [(Normal, "λ"), (Sup, "(dⁱ−d)/(d−1)")]
        );
    }

    #[test]
    fn markdown_scripts() {
        assert_eq!(to_markdown("ε / μ_Σ"), "ε / μ<sub>Σ</sub>");
        assert_eq!(to_markdown("count_own"), "count_own");
        assert_eq!(plain("N^{−0.3}"), "N−0.3");
    }
}
