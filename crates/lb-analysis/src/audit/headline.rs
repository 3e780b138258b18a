//! The audit's headline (issue 21): the papers' own statements counted
//! apart from our stand-ins for them and from lb's own checks, per paper,
//! each paper with a verdict in plain words generated from its claims and
//! robustness maps, and the family's error at the chosen levels.

use super::summary::{ClaimRow, ExperimentClaims, Tally};
use super::words::{md, num};
use lb_manifest::inventory::Inventory;
use std::fmt::Write as _;

/// The count line: statements, stand-ins, checks ("12 statements of the
/// papers: 4 reproduced, …").
pub(crate) fn counts_line(experiments: &[&ExperimentClaims]) -> String {
    let t = |o: &str| {
        let mut t = Tally::default();
        for e in experiments {
            t.add(&e.tally(o));
        }
        t
    };
    let (p, s, c, o) = (t("paper"), t("stand-in"), t("check"), t("ours"));
    let required = experiments
        .iter()
        .flat_map(|e| &e.claims)
        .filter(|c| c.required)
        .count();
    format!(
        "{} statements of the papers: {}. {} stand-ins of ours for them: {}. {} of lb's own \
         checks ({required} required): {}.{}",
        p.total(),
        p.words("reproduced", "not reproduced"),
        s.total(),
        s.words("hold", "fail"),
        c.total(),
        c.words("hold", "fail"),
        if o.total() > 0 {
            format!(
                " {} conjectures of ours (neither a paper's nor exact theory): {}.",
                o.total(),
                o.words("hold", "fail")
            )
        } else {
            String::new()
        }
    )
}

/// Per paper: its statements counted against its inventory (where it has
/// one), its statements and stand-ins counted, the verdict in words, and
/// the family's error. `audit` is the link to the audit page ("" on the
/// page itself).
pub fn per_paper(
    experiments: &[&ExperimentClaims],
    audit: &str,
    inventories: &[Inventory],
) -> String {
    let rows: Vec<(&str, &ClaimRow)> = experiments
        .iter()
        .flat_map(|e| e.claims.iter().map(move |c| (e.experiment.as_str(), c)))
        .filter(|(_, c)| c.origin == "paper" || c.origin == "stand-in")
        .collect();
    let mut papers: Vec<&str> = rows
        .iter()
        .filter_map(|(_, c)| c.paper.as_deref())
        .collect();
    papers.sort();
    papers.dedup();
    let mut s = String::new();
    for paper in papers {
        let of = |o: &'static str| {
            rows.iter()
                .filter(move |(_, c)| c.paper.as_deref() == Some(paper) && c.origin == o)
        };
        let ps = Tally::of(of("paper").map(|x| x.1));
        let ss = Tally::of(of("stand-in").map(|x| x.1));
        let _ = write!(s, "- **{}**: ", md(paper));
        if let Some(inv) = inventories.iter().find(|i| i.paper.authors == paper) {
            let _ = write!(
                s,
                "{} ",
                crate::inventory::paper_line(inv, experiments, "inventory.md")
            );
        }
        if ps.total() > 0 {
            let _ = write!(
                s,
                "{} of its statements audited — {}",
                ps.total(),
                ps.words("reproduced", "not reproduced")
            );
        } else {
            s.push_str("none of its statements audited as the paper states it");
        }
        let _ = write!(
            s,
            "; {} stand-in{} — {}.",
            ss.total(),
            if ss.total() == 1 { "" } else { "s" },
            ss.words("hold", "fail")
        );
        let words = in_words(
            audit,
            of("paper").copied().collect(),
            of("stand-in").copied().collect(),
        );
        if !words.is_empty() {
            let _ = write!(s, " {words}");
        }
        let mut family = ps;
        family.add(&ss);
        let decided = family.total() - family.inconclusive;
        if decided > 0 {
            let _ = write!(
                s,
                " *Chance of a wrong verdict:* {decided} verdict{} decided here, each at its \
                 confidence level; even if every claim sat exactly on its threshold, at most {} \
                 of them would be wrong on average, and the chance that any is wrong is at most \
                 {}% (the sum of their error rates, Bonferroni).",
                if decided == 1 { " is" } else { "s are" },
                num(family.alpha_sum, 2),
                num((100.0 * family.alpha_sum).min(100.0), 2)
            );
        }
        s.push('\n');
    }
    s
}

/// A paper's verdict in plain words, from its statements (and, where they
/// say more, its stand-ins): what reproduced, what did not and where it
/// holds instead (its robustness maps), what is undecided and what would
/// decide it.
fn in_words(
    audit: &str,
    statements: Vec<(&str, &ClaimRow)>,
    standins: Vec<(&str, &ClaimRow)>,
) -> String {
    let link = |e: &str, c: &ClaimRow| format!("[`{}`]({audit}#{e}--{})", c.id, c.id);
    let mut out = Vec::new();
    let yes: Vec<String> = statements
        .iter()
        .filter(|(_, c)| c.verdict == "confirmed" && c.untested.is_none())
        .map(|(e, c)| link(e, c))
        .collect();
    if !yes.is_empty() {
        out.push(format!("Reproduced: {}.", yes.join(", ")));
    }
    for (e, c) in statements.iter().chain(&standins) {
        match c.verdict.as_str() {
            "refuted" => {
                let where_ = c
                    .robustness
                    .iter()
                    .filter_map(|l| l.split_once(": ").map(|x| x.1))
                    .next()
                    .map(|w| format!(" — across the settings the paper leaves open, {}", md(w)))
                    .unwrap_or_default();
                let what = if c.origin == "paper" {
                    "Not reproduced"
                } else {
                    "Our stand-in fails"
                };
                out.push(format!("{what}: {}{where_}.", link(e, c)));
            }
            "confirmed" if c.untested.is_some() => {
                out.push(format!(
                    "{} holds but does not discriminate ({}).",
                    link(e, c),
                    md(c.untested.as_deref().unwrap_or_default())
                ));
            }
            _ => {}
        }
    }
    let open: Vec<String> = statements
        .iter()
        .filter(|(_, c)| c.verdict == "inconclusive")
        .map(|(e, c)| link(e, c))
        .collect();
    if !open.is_empty() {
        out.push(format!(
            "Undecided: {} (what would decide each is in its section).",
            open.join(", ")
        ));
    }
    out.join(" ")
}
