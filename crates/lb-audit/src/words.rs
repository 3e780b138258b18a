//! Numbers and tolerances as the audit writes them: 5 significant digits
//! without trailing zeros, a minus sign, a claim's tolerance in words, text
//! made safe for a Markdown table.

use lb_manifest::claim::Tolerance;

/// A reference with a claim's tolerance, as a threshold: "1 ± 10%",
/// "0 ± 0.005", "2 ± (0.1 + 5%)" (the reference alone without one).
pub(super) fn with_tolerance(reference: f64, t: &Tolerance) -> String {
    match (t.relative, t.absolute) {
        (0.0, 0.0) => sig5(reference),
        (r, 0.0) => format!("{} ± {}%", sig5(reference), 100.0 * r),
        (0.0, a) => format!("{} ± {}", sig5(reference), sig5(a)),
        (r, a) => format!("{} ± ({} + {}%)", sig5(reference), sig5(a), 100.0 * r),
    }
}

/// A claim's tolerance in the words of its rule: "±10%", "±0.005",
/// "±(0.1 + 5% of it)"; None without one.
pub(super) fn tolerance_words(t: &Tolerance) -> Option<String> {
    let pct = |t: f64| lb_draw::ticks::format_tick(100.0 * t, None);
    match (t.relative, t.absolute) {
        (0.0, 0.0) => None,
        (t, 0.0) => Some(format!("±{}%", pct(t))),
        (0.0, a) => Some(format!("±{}", sig5(a))),
        (t, a) => Some(format!("±({} + {}% of it)", sig5(a), pct(t))),
    }
}

pub(super) fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        // Keep a capital that starts a symbol or an acronym (E[ΣQ], P(…), S_2).
        Some(f) if c.clone().next().is_some_and(|n| n.is_lowercase()) => {
            f.to_lowercase().chain(c).collect()
        }
        _ => s.to_string(),
    }
}

/// A reference value: 5 significant digits, no trailing zeros ("1", "63.284").
pub fn sig5(x: f64) -> String {
    let s = lb_analysis::table::fmt_sig(x, 5);
    let s = if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    s.replacen('-', "−", 1)
}

/// `x` to `sig` significant digits, with a true minus sign.
pub fn num(x: f64, sig: usize) -> String {
    lb_analysis::table::fmt_sig(x, sig).replacen('-', "−", 1)
}
