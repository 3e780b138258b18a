//! The audit's headline: the papers' own statements counted
//! apart from our stand-ins for them and from lb's own checks, per paper,
//! each paper with a verdict in plain words generated from its claims and
//! robustness maps, and the family's error at the chosen levels.

use lb_audit::Verdict;
use lb_audit::num;
use lb_audit::{ClaimRow, ExperimentClaims, Tally, Voice};
use lb_draw::markup::cell as md;
use lb_manifest::claim::Origin;
use lb_manifest::inventory::Inventory;
use std::fmt::Write as _;

/// The count line. First the unit the inventories count: the statements of
/// the papers lb holds (definitions and sentences reporting another
/// paper's result aside), each with one status
/// ([`crate::inventory::Status`]); then the claims that decide them, by
/// origin.
pub(crate) fn counts_line(experiments: &[&ExperimentClaims], inventories: &[Inventory]) -> String {
    use crate::inventory::counts;
    let t = |o: Origin| {
        let mut t = Tally::default();
        for e in experiments {
            t.add(&e.tally(o));
        }
        t
    };
    let (p, s, c, o) = (
        t(Origin::Paper),
        t(Origin::StandIn),
        t(Origin::Check),
        t(Origin::Ours),
    );
    let required = experiments
        .iter()
        .flat_map(|e| &e.claims)
        .filter(|c| c.required)
        .count();
    let mut n = [0usize; 5];
    let mut statuses = std::collections::BTreeMap::new();
    let mut chosen = std::collections::BTreeMap::new();
    let mut by_stand_ins = std::collections::BTreeMap::new();
    let mut in_part = 0;
    let mut one_reading = 0;
    let mut deciding = Vec::new();
    let mut deciding_chosen = Vec::new();
    let mut threshold_ours = 0;
    let mut in_full: Vec<String> = Vec::new();
    // The rows of the tables below holding statements audited as stated
    // ([0]) and at a choice of ours ([1]), per paper, and how many rows.
    let mut per_result: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    let mut n_results = [0; 2];
    for inv in inventories {
        for (i, choice) in [false, true].into_iter().enumerate() {
            let rs = audited_results(inv, experiments, choice);
            n_results[i] += rs.len();
            if !rs.is_empty() {
                per_result[i].push(format!(
                    "{}'s {}",
                    inv.paper.authors,
                    rs.iter()
                        .map(|(r, k)| format!("{r} ({k})"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        in_full.extend(
            crate::inventory::in_full(inv, experiments)
                .into_iter()
                .map(|id| format!("`{id}`")),
        );
        in_part += crate::inventory::in_part_count(inv, experiments);
        one_reading += crate::inventory::at_one_reading_count(inv, experiments);
        deciding.extend(crate::inventory::deciding_claims(inv, experiments, false));
        deciding_chosen.extend(crate::inventory::deciding_claims(inv, experiments, true));
        threshold_ours += crate::inventory::at_threshold_ours_count(inv, experiments);
        let k = counts(inv, experiments);
        for i in 0..5 {
            n[i] += k[i];
        }
        use crate::inventory::Standing;
        let (stated, by_choice) = crate::inventory::split_at_choice(inv, experiments);
        for (v, k) in stated {
            *statuses.entry(v).or_insert(0usize) += k;
        }
        for (v, k) in by_choice {
            *chosen.entry(v).or_insert(0usize) += k;
        }
        for (v, k) in crate::inventory::statuses(inv, experiments, Standing::StandIns) {
            *by_stand_ins.entry(v).or_insert(0usize) += k;
        }
    }
    // Papers held in part (an abstract, or a text that stops), named: their
    // counts cover that part.
    let held_as = |abstract_only: bool| -> Vec<&str> {
        inventories
            .iter()
            .filter(|i| {
                i.paper.held.as_deref().is_some_and(|h| {
                    !h.starts_with("the whole paper")
                        && h.starts_with("the abstract") == abstract_only
                })
            })
            .map(|i| i.paper.authors.as_str())
            .collect()
    };
    let names = |ps: &[&str]| {
        ps.iter()
            .map(|a| format!("{a}'s"))
            .collect::<Vec<_>>()
            .join(" and ")
    };
    let (abstracts, held_in_part) = (held_as(true), held_as(false));
    let mut partial = String::new();
    if !abstracts.is_empty() {
        partial.push_str(&format!(
            "{} as {} only; ",
            names(&abstracts),
            if abstracts.len() == 1 {
                "an abstract"
            } else {
                "abstracts"
            }
        ));
    }
    if !held_in_part.is_empty() {
        partial.push_str(&format!(
            "{} in part (its inventory says which part); ",
            names(&held_in_part)
        ));
    }
    let statements = if inventories.is_empty() {
        String::new()
    } else {
        let refuted = statuses
            .get(&crate::inventory::Status::NotReproduced)
            .copied()
            .unwrap_or(0);
        // Those a choice of lb's decides are audited at that choice, not as
        // stated: counted apart (n[1]).
        let at_choice = n[1];
        let qualified = [
            (one_reading > 0).then(|| {
                format!(
                    "{one_reading} hold at one reading only (a setting the text leaves open \
                     decides them)"
                )
            }),
            (threshold_ours > 0).then(|| {
                format!(
                    "{threshold_ours} rest on a rate threshold of ours (a limit read through a \
                     slowest rate of approach the statement does not state, derived from its \
                     proof or chosen by lb)"
                )
            }),
            (in_part > 0)
                .then(|| format!("{in_part} leave a part untested (each entry names the part)")),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>();
        let rows = |i: usize| {
            if per_result[i].is_empty() {
                String::new()
            } else {
                format!(
                    ", in {} row{} of the tables below (a result by the paper's name with the \
                     sentences restating it, or a section's sentences of their own: {})",
                    n_results[i],
                    if n_results[i] == 1 { "" } else { "s" },
                    per_result[i].join("; ")
                )
            }
        };
        let as_stated = if n[0] == 0 {
            "- **0 audited as stated**: no statement is decided at the paper's setting without a \
             choice of lb's that could turn its word (next bullet). This is no verdict against \
             the papers: a finite run decides a limit only against a rate of approach, and a \
             stability only by a test, that the statement does not state, and a figure's \
             ordering only at a value of each setting its text leaves open or lost."
                .to_string()
        } else {
            format!(
                "- **{} audited as stated**{}: {}{}.{}",
                n[0],
                rows(0),
                crate::inventory::in_words(&statuses),
                if refuted == 0 {
                    ", 0 not reproduced"
                } else {
                    ""
                },
                crate::inventory::shared_words(n[0], "audited as stated", &deciding),
            )
        };
        let at_choice = if at_choice == 0 {
            String::new()
        } else {
            format!(
                "\n- **{at_choice} audited at a choice of ours**{}: {}{}. The paper's own claims \
                 decide each, at a choice of lb's that the statement does not make, so another \
                 choice could turn its word: a rate threshold (a limit read through how fast its \
                 gap closes, against a slowest rate of approach lb chose or derived from the \
                 proof: consistent with the limit, which no finite run reaches), lb's stability \
                 test (a trend test of each run at a false-alarm rate of lb's: a finite run can \
                 pass it without the theorem's \"stable\" being shown) or a reading (a value lb \
                 reads of a setting the text leaves open or lost, at which it holds, failing or \
                 undecided at other values its maps try; each row names the setting).{}",
                rows(1),
                crate::inventory::in_words(&chosen),
                crate::inventory::conflicting_words(crate::inventory::conflicting_of(&chosen)),
                crate::inventory::shared_words(
                    at_choice,
                    "audited at a choice of ours",
                    &deciding_chosen
                ),
            )
        };
        format!(
            "**{} statements of the {} papers lb holds** ({partial}counted in their inventories' \
             unit: theorems, lemmas, propositions, corollaries, figure claims, examples, remarks \
             and headline sentences; definitions, the steps of proofs, and sentences reporting \
             another paper's result, are not counted):\n\n\
             {as_stated}{at_choice}{}\n\
             - **Reproduced in full** (at every reading tried, at thresholds the paper gives, no \
             part untested): {}.{}\n\
             - **{} through our stand-ins only**{}.\n\
             - **{} not yet audited** (lb could add what they need), **{} out of reach** (why \
             is in each entry).",
            n.iter().sum::<usize>(),
            inventories.len(),
            where_they_fail(experiments, inventories, refuted),
            if in_full.is_empty() {
                "none".to_string()
            } else {
                format!("{} ({})", in_full.len(), in_full.join(", "))
            },
            if qualified.is_empty() {
                String::new()
            } else {
                format!(
                    " Of the {} audited, as stated or at a choice of ours (a statement may carry \
                     several of these): {}.",
                    n[0] + n[1],
                    qualified.join("; ")
                )
            },
            n[2],
            crate::inventory::statuses_words(&by_stand_ins),
            n[3],
            n[4]
        )
    };
    format!(
        "{statements}\n\n**Every claim, by origin** (a statement may rest on several claims, \
         and a claim decide several statements): {} claims of origin `paper` (a \
         statement as the paper makes it, at the setting its text states and, where the text \
         leaves a setting open, at a reading of ours its claim names): {}. {} stand-ins of ours: {}. {} of lb's own checks ({required} required): \
         {}.{}",
        p.total(),
        p.words(Voice::Statements),
        s.total(),
        s.words(Voice::Claims),
        c.total(),
        c.words(Voice::Claims),
        if o.total() > 0 {
            format!(
                " {} conjectures of ours (neither a paper's nor exact theory): {}.",
                o.total(),
                o.words(Voice::Claims)
            )
        } else {
            String::new()
        }
    )
}

/// The papers lb holds, the main paper first: the one most experiments
/// read.
fn held_in_order<'a>(
    experiments: &[&ExperimentClaims],
    inventories: &'a [Inventory],
) -> Vec<&'a Inventory> {
    let reads = |paper: &str| {
        experiments
            .iter()
            .filter(|e| e.claims.iter().any(|c| c.paper.as_deref() == Some(paper)))
            .count()
    };
    let mut held: Vec<&Inventory> = inventories.iter().collect();
    held.sort_by_key(|i| std::cmp::Reverse(reads(&i.paper.authors)));
    held
}

/// Per paper: first each paper lb holds (an inventory), the main paper
/// first (the one most experiments read), with its statements counted
/// against its inventory and a table of its results by the paper's own
/// names (Theorem 1, Fig. 1, …), one status and one line of why each; then
/// the papers lb checks against but does not hold, apart. `audit` is the
/// link to the audit page ("" on the page itself).
pub fn per_paper(
    experiments: &[&ExperimentClaims],
    audit: &str,
    inventories: &[Inventory],
) -> String {
    let rows: Vec<(&str, &ClaimRow)> = experiments
        .iter()
        .flat_map(|e| e.claims.iter().map(move |c| (e.experiment.as_str(), c)))
        .filter(|(_, c)| c.origin == Origin::Paper || c.origin == Origin::StandIn)
        .collect();
    let held = held_in_order(experiments, inventories);
    let mut s = String::new();
    for inv in &held {
        let paper = inv.paper.authors.as_str();
        let _ = writeln!(s, "#### {} — *{}*\n", md(paper), md(&inv.paper.title));
        let ResultsTable { short, table, .. } = results_table(inv, experiments, audit);
        let _ = writeln!(
            s,
            "{short}\n\n{}\n",
            crate::inventory::paper_line(inv, experiments, "inventory.md")
        );
        s.push_str(&table);
        let conflicts = reading_conflicts(
            rows.iter()
                .filter(|(_, c)| c.paper.as_deref() == Some(paper) && c.origin == Origin::Paper)
                .map(|(_, c)| *c),
        );
        if !conflicts.is_empty() {
            let _ = writeln!(
                s,
                "**Readings in conflict:** {}. No single reading of {} reproduces all of these \
                 claims in full: at the value one side needs, the other fails or holds only in \
                 part (each claim's map gives where). The statements resting on them are \
                 \"reproduced only at conflicting readings\", counted apart from those \
                 reproduced.\n",
                conflicts.join("; "),
                if conflicts.len() == 1 {
                    "that setting"
                } else {
                    "those settings"
                }
            );
        }
        let inside = hypothesis_line(rows.iter().map(|(_, c)| *c), paper);
        if !inside.is_empty() {
            let _ = writeln!(s, "{inside}\n");
        }
        let of = |o: Origin| {
            rows.iter()
                .filter(move |(_, c)| c.paper.as_deref() == Some(paper) && c.origin == o)
        };
        let mut family = Tally::of(of(Origin::Paper).map(|x| x.1));
        family.add(&Tally::of(of(Origin::StandIn).map(|x| x.1)));
        s.push_str(&error_rate(&family));
        s.push('\n');
    }
    let mut others: Vec<&str> = rows
        .iter()
        .filter_map(|(_, c)| c.paper.as_deref())
        .filter(|p| !inventories.iter().any(|i| i.paper.authors == *p))
        .collect();
    others.sort();
    others.dedup();
    if !others.is_empty() {
        s.push_str(
            "#### Papers lb checks against but does not hold\n\nResults the held papers cite, \
             or classical results lb's own claims lean on. lb holds no text of them: each is \
             audited through stand-ins of ours, counted here and not under the held papers.\n\n",
        );
    }
    for paper in others {
        let of = |o: Origin| {
            rows.iter()
                .filter(move |(_, c)| c.paper.as_deref() == Some(paper) && c.origin == o)
        };
        let ss = Tally::of(of(Origin::StandIn).map(|x| x.1));
        let ps = Tally::of(of(Origin::Paper).map(|x| x.1));
        // The same authors as a held paper: another of their papers.
        let namesake = inventories
            .iter()
            .find(|i| paper != i.paper.authors && paper.starts_with(&i.paper.authors));
        let _ = write!(
            s,
            "- **{}**{}: {} stand-in{} — {}.",
            md(paper),
            namesake
                .map(|i| format!(
                    " (another paper of theirs than the held *{}*)",
                    md(&i.paper.title)
                ))
                .unwrap_or_default(),
            ss.total() + ps.total(),
            if ss.total() + ps.total() == 1 {
                ""
            } else {
                "s"
            },
            {
                let mut t = ss;
                t.add(&ps);
                t.words(Voice::Unheld)
            }
        );
        let words = in_words(
            audit,
            Vec::new(),
            of(Origin::StandIn)
                .chain(of(Origin::Paper))
                .copied()
                .collect(),
        );
        if !words.is_empty() {
            let _ = write!(s, " {words}");
        }
        s.push('\n');
    }
    s
}

/// The kinds of result a paper names by number ("Theorem 1", "Fig. 2").
const NAMED: [&str; 9] = [
    "Theorem ",
    "Lemma ",
    "Proposition ",
    "Corollary ",
    "Fig. ",
    "Example ",
    "Remark ",
    "Claim ",
    "Definition ",
];

/// The paper's name for the result a statement belongs to, read from where
/// it stands: "Theorem 1", "Fig. 2", "Lemma 3"; else its place ("Abstract",
/// "§4.1").
pub(crate) fn result_name(at: &str) -> String {
    // A sentence before or after a result is not that result: it is named
    // by its section.
    let named = at
        .split([',', '('])
        .map(str::trim)
        .find(|p| !p.is_empty())
        .unwrap_or(at);
    if at.contains("after ") || at.contains("before ") {
        return named.to_string();
    }
    for key in NAMED {
        if let Some(i) = at.find(key) {
            let rest = &at[i + key.len()..];
            let n: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
                .collect();
            let n = n.trim_end_matches('.');
            if n.starts_with(|c: char| c.is_ascii_digit()) {
                return format!("{key}{n}");
            }
        }
    }
    let cut = at.find([',', '(']).unwrap_or(at.len());
    at[..cut].trim().to_string()
}

/// The paper's name for the result a statement belongs to: its entry's
/// `result`, else [`result_name`] of where it stands.
fn own_name(st: &lb_manifest::inventory::Statement) -> String {
    st.result.clone().unwrap_or_else(|| result_name(&st.at))
}

/// Each counted statement with the row it goes to on the first screen: its
/// own result ([`own_name`]), except a sentence named only by its section
/// ("Abstract", "§1") whose claims all decide one named result's
/// statements: it restates that result and goes to its row (the named
/// result with the fewest claims, where several hold them all).
fn homes(inv: &Inventory) -> Vec<(&lb_manifest::inventory::Statement, String)> {
    let counted: Vec<_> = inv.statements.iter().filter(|s| s.counted()).collect();
    let section = |st: &lb_manifest::inventory::Statement| {
        st.result.is_none() && !NAMED.iter().any(|k| own_name(st).starts_with(k))
    };
    // Each named result's claims.
    let mut named: Vec<(String, Vec<&str>)> = Vec::new();
    for st in counted.iter().filter(|st| !section(st)) {
        let n = own_name(st);
        let i = match named.iter().position(|(m, _)| *m == n) {
            Some(i) => i,
            None => {
                named.push((n, Vec::new()));
                named.len() - 1
            }
        };
        for c in &st.claims {
            if !named[i].1.contains(&c.as_str()) {
                named[i].1.push(c);
            }
        }
    }
    counted
        .iter()
        .map(|st| {
            let home = (section(st) && !st.claims.is_empty())
                .then(|| {
                    named
                        .iter()
                        .filter(|(_, cs)| st.claims.iter().all(|c| cs.contains(&c.as_str())))
                        .min_by_key(|(_, cs)| cs.len())
                        .map(|(n, _)| n.clone())
                })
                .flatten();
            (*st, home.unwrap_or_else(|| own_name(st)))
        })
        .collect()
}

/// The results (by the paper's names, as the first screen's rows) with
/// statements audited as stated (`at_a_choice` false) or at a choice of
/// ours ([`crate::inventory::at_a_choice_of_ours`]), each with how many, in
/// the paper's order.
fn audited_results(
    inv: &Inventory,
    exps: &[&ExperimentClaims],
    at_a_choice: bool,
) -> Vec<(String, usize)> {
    use crate::inventory::{Standing, standing};
    let mut out: Vec<(String, usize)> = Vec::new();
    for (st, home) in homes(inv) {
        if standing(st, exps) != Standing::AsStated
            || crate::inventory::at_a_choice_of_ours(st, exps) != at_a_choice
        {
            continue;
        }
        match out.iter_mut().find(|(r, _)| *r == home) {
            Some((_, k)) => *k += 1,
            None => out.push((home, 1)),
        }
    }
    out
}

/// A held paper's results by its own names: one row per result, its one
/// status (the worst of its audited statements', [`crate::inventory::Status`];
/// "not yet audited" or "out of reach" where none is audited) and one line
/// of why; and above it, the same statuses in one line ([`plain_line`]).
fn results_table(inv: &Inventory, exps: &[&ExperimentClaims], audit: &str) -> ResultsTable {
    use crate::inventory::{Standing, standing, status};
    let homes = homes(inv);
    // Rows in the paper's order: where a result's own statement first
    // stands, not where a sentence restating it does.
    let mut names: Vec<String> = Vec::new();
    for (st, _) in &homes {
        let n = own_name(st);
        if !names.contains(&n) && homes.iter().any(|(_, h)| *h == n) {
            names.push(n);
        }
    }
    let mut s =
        String::from("| result | statements | status | why |\n| --- | ---: | --- | --- |\n");
    // Each row's result under its plain word, for the line above the table,
    // and each row's statements whose status lies in another glance column.
    let mut plain: Vec<(Plain, String)> = Vec::new();
    let mut at_reading: Vec<String> = Vec::new();
    let mut within: Vec<(Col, String)> = Vec::new();
    for name in names {
        let sts: Vec<_> = homes
            .iter()
            .filter(|(_, n)| *n == name)
            .map(|(st, _)| *st)
            .collect();
        // The sentences that restate it, by their sections.
        let mut restating: Vec<String> = Vec::new();
        for st in &sts {
            let own = own_name(st);
            if own != name && !restating.contains(&own) {
                restating.push(own);
            }
        }
        let restated = sts.iter().filter(|st| own_name(st) != name).count();
        // A result's status comes from its statements audited as stated where
        // it has any, else from those audited through our stand-ins.
        let as_stated: Vec<_> = sts
            .iter()
            .filter(|st| standing(st, exps) == Standing::AsStated)
            .filter_map(|st| status(st, exps))
            .collect();
        let audited: Vec<_> = sts
            .iter()
            .filter(|st| matches!(standing(st, exps), Standing::AsStated | Standing::StandIns))
            .filter_map(|st| status(st, exps))
            .collect();
        let deciding = if as_stated.is_empty() {
            &audited
        } else {
            &as_stated
        };
        let not_yet = sts
            .iter()
            .filter(|st| standing(st, exps) == Standing::NotYet)
            .count();
        let worst = crate::inventory::worst(deciding.iter().map(|(v, e, r)| (*v, (*e, *r))));
        let (word, why) = match worst.map(|(v, (e, r))| (v, e, r)) {
            Some((v, e, r)) => {
                let link = format!("[`{e}/{}`]({audit}#{e}--{})", r.id, r.id);
                let detail = match v {
                    crate::inventory::Status::NotReproduced => {
                        r.why.clone().unwrap_or_else(|| r.deciding.clone())
                    }
                    crate::inventory::Status::Partly => {
                        // What the claim's why found, where a check of it holds.
                        let found: Vec<String> = r
                            .why_checks
                            .iter()
                            .filter(|(_, v)| v == "confirmed")
                            .map(|(says, _)| says.clone())
                            .collect();
                        let found = if found.is_empty() {
                            String::new()
                        } else {
                            format!(" — its why finds: {}", found.join("; "))
                        };
                        format!("fails at {}{found}", r.except.join("; "))
                    }
                    crate::inventory::Status::Undecided => {
                        r.to_decide.clone().unwrap_or_else(|| r.deciding.clone())
                    }
                    crate::inventory::Status::NoInformativePoint
                    | crate::inventory::Status::DoesNotDiscriminate => {
                        r.untested.clone().unwrap_or_default()
                    }
                    crate::inventory::Status::Reproduced
                    | crate::inventory::Status::AtOneReading
                    | crate::inventory::Status::AtRateOurs
                    | crate::inventory::Status::ByStabilityTest => {
                        format!("hardest informative point: {}", r.deciding)
                    }
                    crate::inventory::Status::AtConflictingReadings => format!(
                        "it holds in full only at a reading at which another of the paper's \
                         results does not (Readings in conflict, below the table); hardest \
                         informative point: {}",
                        r.deciding
                    ),
                };
                let through = if r.origin == Origin::Paper {
                    ""
                } else {
                    " (through our stand-in)"
                };
                // A failing point and what the claim's why found there are
                // said whole; other reasons, in their first sentence.
                let detail = if v == crate::inventory::Status::Partly {
                    detail
                } else {
                    first_sentence(&detail)
                };
                let detail = match r.inside {
                    Some((i, n)) => format!(
                        "{detail} ({i} of its {n} points inside the theorem's hypothesis, {} \
                         informative)",
                        r.informative.0
                    ),
                    // Where some points decide nothing, how many decide (for a
                    // status that tested something).
                    None if crate::inventory::tested(v, r)
                        && r.informative.0 > 0
                        && r.informative.0 < r.informative.1 =>
                    {
                        format!(
                            "{detail} ({} of its {} points informative)",
                            r.informative.0, r.informative.1
                        )
                    }
                    None => detail,
                };
                (
                    format!("**{}**{through}", v.words()),
                    format!("{link}: {detail}"),
                )
            }
            None if not_yet > 0 => (
                if not_yet == sts.len() {
                    "not yet audited (lb could)".to_string()
                } else {
                    format!(
                        "not yet audited (lb could) for {not_yet} of them; the others out of \
                         reach"
                    )
                },
                // A statement whose claims test nothing first: the row's
                // reason is the result's own, not a definition's beside it.
                sts.iter()
                    .filter(|st| status(st, exps).is_some())
                    .chain(sts.iter().filter(|st| status(st, exps).is_none()))
                    .find_map(|st| {
                        let could =
                            st.could_audit.as_deref().map(first_sentence).or_else(|| {
                                (standing(st, exps) == Standing::NotYet)
                                    .then(|| crate::inventory::could_reason(st, exps, audit))
                                    .flatten()
                                    .map(|c| first_sentence(&c))
                            })?;
                        // A statement whose claims test nothing says so, with
                        // the claim that sets that status.
                        Some(match status(st, exps) {
                            Some((v, e, r)) => format!(
                                "its claims test nothing ([`{e}/{}`]({audit}#{e}--{}): {}); \
                                 lb could add {could}",
                                r.id,
                                r.id,
                                v.words()
                            ),
                            None => could,
                        })
                    })
                    .unwrap_or_default(),
            ),
            None => {
                let reasons: Vec<String> = sts
                    .iter()
                    .filter_map(|st| crate::inventory::unreachable_reason(st, exps, audit))
                    .collect();
                let first = reasons
                    .first()
                    .map(|r| first_sentence(r))
                    .unwrap_or_default();
                let others = reasons.iter().skip(1).filter(|r| **r != reasons[0]).count();
                let why = if others == 0 {
                    first
                } else {
                    format!(
                        "{first} (the first statement's reason; each of the others gives its \
                         own in the inventory)"
                    )
                };
                // What lb computes exactly of it, where its entry asks.
                let exact: Vec<String> = sts
                    .iter()
                    .filter_map(|st| st.exact.as_ref())
                    .map(|x| {
                        use crate::inventory::ExactOutcome as O;
                        let (each, _) = crate::inventory::exact_check(x);
                        let names = |o: O| {
                            each.iter()
                                .filter(|(_, e)| *e == o)
                                .map(|(n, _)| n.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        };
                        let side = |o: O, words: &str| {
                            let n = names(o);
                            (!n.is_empty()).then(|| format!("{words} for {n}"))
                        };
                        let sides: Vec<String> = [
                            side(O::Every, "holds at every state"),
                            side(
                                O::WhereSomeDiffer,
                                "holds wherever some estimates differ and not where all tie \
                                 (where the proof's tilt term is 0 whatever δ)",
                            ),
                            side(O::Not, "fails at states where estimates differ"),
                        ]
                        .into_iter()
                        .flatten()
                        .collect();
                        format!(
                            "computed exactly from the rule's law over every estimate state of \
                             {} system{}, {} {} (the inventory gives each)",
                            x.rates.len(),
                            if x.rates.len() == 1 { "" } else { "s" },
                            x.delta.words(),
                            sides.join(" and ")
                        )
                    })
                    .collect();
                (
                    "out of reach".to_string(),
                    if exact.is_empty() {
                        why
                    } else {
                        format!("{why} — {}", exact.join("; "))
                    },
                )
            }
        };
        // Where a row holds several audited statements, how each stands: as
        // stated and through our stand-ins apart.
        let stand_ins: Vec<_> = sts
            .iter()
            .filter(|st| standing(st, exps) == Standing::StandIns)
            .filter_map(|st| status(st, exps))
            .collect();
        let tally = |xs: &[_]| {
            let mut each = std::collections::BTreeMap::new();
            for (v, _, _) in xs {
                *each.entry(*v).or_insert(0usize) += 1;
            }
            each
        };
        let words = crate::inventory::in_words;
        // The paper's own claims at a choice of ours are not "as stated"
        // (the headline counts them apart), so the breakdown says so too.
        let (mut at_choice, mut stated) = (Vec::new(), Vec::new());
        for st in sts
            .iter()
            .filter(|st| standing(st, exps) == Standing::AsStated)
        {
            if let Some(x) = status(st, exps) {
                if crate::inventory::at_a_choice_of_ours(st, exps) {
                    at_choice.push(x);
                } else {
                    stated.push(x);
                }
            }
        }
        let (a, b) = (tally(&stated), tally(&stand_ins));
        let mut parts = Vec::new();
        let groups = [&stated, &at_choice, &stand_ins]
            .iter()
            .filter(|g| !g.is_empty())
            .count();
        let mixed = groups > 1;
        if mixed && !stated.is_empty() || (groups == 1 && stated.len() > 1 && a.len() > 1) {
            parts.push(format!("as stated: {}", words(&a)));
        }
        if mixed && !at_choice.is_empty() {
            parts.push(format!(
                "at a choice of ours: {}",
                words(&tally(&at_choice))
            ));
        }
        if mixed && !stand_ins.is_empty() || (groups == 1 && stand_ins.len() > 1 && b.len() > 1) {
            parts.push(format!("through our stand-ins: {}", words(&b)));
        }
        let breakdown = if parts.is_empty() {
            String::new()
        } else {
            format!("; {}", parts.join("; "))
        };
        let counted = if audited.is_empty() || (audited.len() == sts.len() && breakdown.is_empty())
        {
            sts.len().to_string()
        } else {
            format!("{} ({} audited{breakdown})", sts.len(), audited.len())
        };
        let counted = if restated == 0 {
            counted
        } else {
            format!(
                "{counted}, {restated} of them sentences restating it ({})",
                restating.join(", ")
            )
        };
        // The row's paper claims, each once; where it has none, the
        // stand-ins that set its status.
        let rows: Vec<_> = sts
            .iter()
            .flat_map(|st| crate::inventory::rows(st, exps))
            .collect();
        let of_paper = rows.iter().any(|(_, r)| r.origin == Origin::Paper);
        let mut papers: Vec<&lb_audit::ClaimRow> = Vec::new();
        for (_, r) in rows {
            if (!of_paper || r.origin == Origin::Paper) && !papers.iter().any(|p| p.id == r.id) {
                papers.push(r);
            }
        }
        // Those that tested nothing, where others decide it.
        let idle: Vec<String> = if worst.is_some_and(|(v, (_, r))| crate::inventory::tested(v, r)) {
            papers
                .iter()
                .filter(|r| !crate::inventory::tested(crate::inventory::Status::of(r), r))
                .map(|r| format!("`{}`", r.id))
                .collect()
        } else {
            Vec::new()
        };
        let why = if idle.is_empty() {
            why
        } else {
            format!(
                "{why} ({} {} without testing it: see the audit)",
                idle.join(", "),
                if idle.len() == 1 { "holds" } else { "hold" }
            )
        };
        // Where a setting the text leaves open decides a paper's claim of the
        // row, its robustness map says on which side: the row says so too,
        // once per condition (how many of the row's claims it decides, and
        // by which maps); each claim's own line is in the audit.
        let mut open: Vec<String> = Vec::new();
        // (condition, claims, maps) of the maps that decide a claim.
        let mut conds: Vec<(String, usize, Vec<String>)> = Vec::new();
        // Maps whose combinations a claim is undecided at, where it holds at
        // others: it holds at those readings only, of the ones tried.
        let mut undecided: Vec<String> = Vec::new();
        let mut restored: Vec<String> = Vec::new();
        let undecided_somewhere = |l: &lb_audit::MapLine| !l.decides && l.inconclusive > 0;
        for r in &papers {
            for line in r
                .robustness
                .iter()
                .filter(|l| l.decides || undecided_somewhere(l))
            {
                // Without its count of combinations ("(4 of 12 combinations)").
                let cond = match line.summary.rsplit_once(" (") {
                    Some((c, n)) if n.contains("combinations") => c,
                    _ => line.summary.as_str(),
                };
                let cond = cond.trim_start_matches("the claim ");
                // "holds if and only if X": the condition X.
                let cond = match cond.strip_prefix("holds if and only if ") {
                    Some(x) => format!("holds only where {x}"),
                    None => cond.to_string(),
                };
                if !line.decides {
                    let said = format!(
                        "`{}` for `{}` (holds at {} of {} combinations, undecided at {})",
                        line.map, r.id, line.holds, line.combinations, line.inconclusive
                    );
                    if !undecided.contains(&said) {
                        undecided.push(said);
                    }
                    continue;
                }
                match conds.iter_mut().find(|(c, _, _)| *c == cond) {
                    Some((_, n, maps)) => {
                        *n += 1;
                        if !maps.contains(&line.map) {
                            maps.push(line.map.clone());
                        }
                    }
                    None => conds.push((cond, 1, vec![line.map.clone()])),
                }
            }
            // A number its reading restores is lb's value, not the text's.
            for v in r.restored() {
                if !restored.contains(&v) {
                    restored.push(v);
                }
            }
        }
        for (cond, n, maps) in &conds {
            let maps: Vec<String> = maps.iter().map(|m| format!("`{m}`")).collect();
            open.push(format!(
                "{cond} ({n} of its claims; map {})",
                maps.join(", ")
            ));
        }
        if !undecided.is_empty() {
            open.push(format!(
                "undecided at other readings of {}",
                undecided.join(", ")
            ));
        }
        if !restored.is_empty() {
            open.push(format!(
                "its readings restore {} (the held text lost those characters; the bracketed \
                 ones are lb's)",
                restored.join("; ")
            ));
        }
        // A status that one reading of an open setting decides says so in
        // its words, not only in the why.
        let tested = worst.is_some_and(|(v, (_, r))| crate::inventory::tested(v, r));
        let reproduced = worst.is_some_and(|(v, _)| {
            matches!(
                v,
                crate::inventory::Status::Reproduced
                    | crate::inventory::Status::AtOneReading
                    | crate::inventory::Status::AtRateOurs
                    | crate::inventory::Status::ByStabilityTest
                    | crate::inventory::Status::Partly
                    | crate::inventory::Status::AtConflictingReadings
            )
        });
        // Where the status does not already say it: a reading decides it in
        // part, or maps leave other readings undecided.
        let said = worst.is_some_and(|(v, _)| {
            matches!(
                v,
                crate::inventory::Status::AtConflictingReadings
                    | crate::inventory::Status::AtOneReading
            )
        });
        let word = if reproduced && !open.is_empty() && !said {
            let decided = papers.iter().any(|r| r.at_one_reading());
            if decided {
                format!("{word}, at one reading only")
            } else {
                format!("{word}, undecided at other readings tried")
            }
        } else {
            word
        };
        // A status a rate of ours decides says so too.
        let ours: Vec<String> = papers
            .iter()
            .filter(|r| r.threshold_ours.is_some())
            .map(|r| format!("`{}`", r.id))
            .collect();
        let rate_said = worst.is_some_and(|(v, _)| v == crate::inventory::Status::AtRateOurs);
        let word = if reproduced && !ours.is_empty() && !rate_said {
            format!("{word}, at a rate threshold of ours")
        } else {
            word
        };
        // Statements audited as stated whose entry names a part no claim
        // reads are audited in part: the status says how many.
        let in_part = sts
            .iter()
            .filter(|st| crate::inventory::in_part(st, exps))
            .count();
        // (Only a status that tested something is qualified.)
        let word = match in_part {
            _ if !tested => word,
            0 => word,
            1 if sts.len() == 1 => format!("{word}, in part"),
            k => format!("{word}, {k} of its statements in part"),
        };
        // Where some of its paper claims tested nothing, the status rests on
        // the others: its words say on how many.
        let word = if tested && !idle.is_empty() {
            format!(
                "{word} ({} of its {} {}claims tested)",
                papers.len() - idle.len(),
                papers.len(),
                if of_paper { "paper " } else { "" }
            )
        } else {
            word
        };
        let why = if open.is_empty() {
            why
        } else {
            format!(
                "{why} — where the text leaves a setting open or lost its value (each claim's \
                 maps are in the audit): {}{}",
                open.join("; "),
                other_readings(&papers)
            )
        };
        let why = if ours.is_empty() || !tested {
            why
        } else {
            format!(
                "{why} — decided at a slowest rate of approach of ours: {}",
                ours.join(", ")
            )
        };
        let _ = writeln!(s, "| {} | {counted} | {word} | {} |", md(&name), md(&why));
        let group = match worst {
            Some((v, (_, r))) => Plain::Status(plain_rank(v), r.origin != Origin::Paper),
            None if not_yet > 0 => Plain::NotYet,
            None => Plain::OutOfReach,
        };
        if let Some((v, _)) = worst
            && matches!(
                v,
                crate::inventory::Status::Partly | crate::inventory::Status::NotReproduced
            )
            && papers.iter().any(|r| r.at_one_reading())
        {
            at_reading.push(name.clone());
        }
        plain.push((group, name.clone()));
        // Its statements whose own status falls in another column of the
        // glance table than the row's, counted by column.
        let row_col = if at_reading.contains(&name) {
            Col::Reading
        } else {
            Col::of(group)
        };
        let mut by_col: Vec<(Col, usize)> = Vec::new();
        for st in &sts {
            let col = match standing(st, exps) {
                Standing::NotYet => Col::NotYet,
                Standing::OutOfReach => Col::Out,
                Standing::AsStated | Standing::StandIns => match status(st, exps) {
                    Some((v, _, _))
                        if Col::of_status(v) == Col::Fails
                            && crate::inventory::at_a_choice_of_ours(st, exps) =>
                    {
                        Col::Reading
                    }
                    Some((v, _, _)) => Col::of_status(v),
                    None => Col::Out,
                },
            };
            if col != row_col {
                match by_col.iter_mut().find(|(c, _)| *c == col) {
                    Some((_, k)) => *k += 1,
                    None => by_col.push((col, 1)),
                }
            }
        }
        for (col, k) in by_col {
            within.push((
                col,
                format!("{k} statement{} of {name}", if k == 1 { "" } else { "s" }),
            ));
        }
    }
    s.push('\n');
    // A row another status heads may hold statements lb could audit: the
    // line names them too.
    let hidden: Vec<String> = within
        .iter()
        .filter(|(c, _)| *c == Col::NotYet)
        .map(|(_, w)| w.clone())
        .collect();
    ResultsTable {
        short: plain_line(&plain, &hidden),
        table: s,
        plain,
        within,
        at_reading,
    }
}

/// A column of the glance table ([`at_a_glance`]): what holds, what fails,
/// what was tested and left undecided or tested nothing, and what was left
/// out, not yet audited or out of reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Col {
    Holds,
    /// Holds at one value of a setting the text leaves open (or lost) and
    /// fails, or holds in part, at another: lb's reading decides its word.
    Reading,
    Fails,
    Open,
    NotYet,
    Out,
}

impl Col {
    fn of_status(v: crate::inventory::Status) -> Col {
        use crate::inventory::Status as S;
        match v {
            S::Reproduced | S::AtRateOurs | S::ByStabilityTest => Col::Holds,
            S::AtConflictingReadings | S::AtOneReading => Col::Reading,
            S::Partly | S::NotReproduced => Col::Fails,
            S::Undecided | S::DoesNotDiscriminate | S::NoInformativePoint => Col::Open,
        }
    }

    fn of(g: Plain) -> Col {
        match g {
            Plain::Status(i, _) => Col::of_status(PLAIN[i]),
            Plain::NotYet => Col::NotYet,
            Plain::OutOfReach => Col::Out,
        }
    }
}

/// A held paper's results table ([`results_table`]): the line in short
/// above it, the table, and what the glance table reads of it (each result
/// under its group, and the statements a row of another status holds).
struct ResultsTable {
    short: String,
    table: String,
    plain: Vec<(Plain, String)>,
    /// Statements whose own status falls in another glance column than
    /// their row's: ("1 statement of Theorem 2", its column).
    within: Vec<(Col, String)>,
    /// Results that fail, or hold in part, only at lb's reading of a setting
    /// a map finds them holding at another value of: their glance column is
    /// [`Col::Reading`], not [`Col::Fails`].
    at_reading: Vec<String>,
}

/// A group of the line above a paper's table: a status of [`PLAIN`] (by its
/// place there), reached through the paper's own claims or only through our
/// stand-ins; then "not yet audited" and "out of reach". Their order is the
/// line's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plain {
    Status(usize, bool),
    NotYet,
    OutOfReach,
}

/// The statuses in the order the line above a paper's table gives them:
/// what holds first, then what fails, then what tests nothing.
const PLAIN: [crate::inventory::Status; 10] = {
    use crate::inventory::Status as S;
    [
        S::Reproduced,
        S::AtConflictingReadings,
        S::AtOneReading,
        S::AtRateOurs,
        S::ByStabilityTest,
        S::Partly,
        S::NotReproduced,
        S::Undecided,
        S::DoesNotDiscriminate,
        S::NoInformativePoint,
    ]
};

fn plain_rank(v: crate::inventory::Status) -> usize {
    PLAIN
        .iter()
        .position(|s| *s == v)
        .expect("every status has its place")
}

/// "In short: holds at a rate threshold of ours: Theorem 2, §1; …; not
/// reproduced: none; not yet audited (lb could): …; out of reach: …": a
/// paper's results grouped by their status, in the table's words, each group
/// naming its results, those through our stand-ins apart; what fails is
/// always said, if only as "none"; and last the statements not yet audited
/// within rows another status heads (`hidden`).
fn plain_line(rows: &[(Plain, String)], hidden: &[String]) -> String {
    let name = |group: Plain| -> String {
        match group {
            Plain::Status(i, true) => format!("{} (through our stand-ins)", PLAIN[i].words()),
            Plain::Status(i, false) => PLAIN[i].words().to_string(),
            Plain::NotYet => "not yet audited (lb could)".to_string(),
            Plain::OutOfReach => "out of reach".to_string(),
        }
    };
    let fails = [
        plain_rank(crate::inventory::Status::Partly),
        plain_rank(crate::inventory::Status::NotReproduced),
    ];
    let groups = (0..PLAIN.len())
        .flat_map(|i| [Plain::Status(i, false), Plain::Status(i, true)])
        .chain([Plain::NotYet, Plain::OutOfReach]);
    let mut words: Vec<String> = Vec::new();
    for group in groups {
        let members: Vec<&str> = rows
            .iter()
            .filter(|(g, _)| *g == group)
            .map(|(_, n)| n.as_str())
            .collect();
        if !members.is_empty() {
            words.push(format!("{}: {}", name(group), md(&members.join(", "))));
        } else if let Plain::Status(i, false) = group
            && fails.contains(&i)
        {
            // Whether anything fails is said even when nothing does.
            let either = if rows.iter().any(|(g, _)| *g == Plain::Status(i, true)) {
                " (as stated)"
            } else {
                ""
            };
            words.push(format!("{}{either}: none", name(group)));
        }
    }
    if !hidden.is_empty() {
        words.push(format!(
            "and not yet audited (lb could) within rows of another status: {}",
            md(&hidden.join(", "))
        ));
    }
    format!(
        "**In short**, by the paper's results (each row below says why): {}.",
        words.join("; ")
    )
}

/// Each held paper's results by the paper's own names, in one table in the
/// order of [`per_paper`], under what the first screen is asked: what holds
/// (each with the choice of ours it holds at), what fails, what was tested
/// and left undecided or tested nothing, and what was left out (not yet
/// audited, out of reach), before the counts that qualify them.
pub(crate) fn at_a_glance(experiments: &[&ExperimentClaims], inventories: &[Inventory]) -> String {
    let held = held_in_order(experiments, inventories);
    let mut s = String::from(
        "**At a glance**: each paper lb holds, its results by the paper's own names, as its \
         table below gives them (each row there says why; the statuses are defined after the \
         counts). \"Ours\" marks a result audited only through our stand-ins for its \
         statements. *Turns on a reading of ours*: it holds at one value of a setting the \
         text leaves open or lost and fails, or holds only in part, at another that lb's maps \
         try (or, at conflicting readings, no one value gives all of the paper's results in \
         full); which value the paper meant decides its word.\n\n| paper | holds | turns on a \
         reading of ours | fails | undecided, or tested nothing | not yet audited (lb could) | \
         out of reach |\n| --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for inv in held {
        let t = results_table(inv, experiments, "audit.md");
        // The results of one group, by name, in column `col` (a result that
        // fails only at lb's reading sits under the reading's column).
        let members = |g: Plain, col: Col| -> Vec<&str> {
            t.plain
                .iter()
                .filter(|(x, n)| {
                    *x == g
                        && if t.at_reading.contains(n) {
                            col == Col::Reading
                        } else {
                            Col::of(g) == col
                        }
                })
                .map(|(_, n)| n.as_str())
                .collect()
        };
        // A column's results, each status said once after its results.
        let names = |col: Col| -> String {
            let mut parts: Vec<String> = Vec::new();
            for (i, status) in PLAIN.iter().enumerate() {
                for ours in [false, true] {
                    let g = Plain::Status(i, ours);
                    let m = members(g, col);
                    if !m.is_empty() {
                        parts.push(format!(
                            "{} ({}{})",
                            m.join(", "),
                            status.words(),
                            if ours { "; ours" } else { "" }
                        ));
                    }
                }
            }
            for g in [Plain::NotYet, Plain::OutOfReach] {
                let m = members(g, col);
                if !m.is_empty() {
                    parts.push(m.join(", "));
                }
            }
            if parts.is_empty() {
                "none".into()
            } else {
                md(&parts.join("; "))
            }
        };
        // A column's results, then the statements of rows another column
        // heads that belong in it.
        let column = |col: Col| -> String {
            let named = names(col);
            let extra: Vec<&str> = t
                .within
                .iter()
                .filter(|(c, _)| *c == col)
                .map(|(_, w)| w.as_str())
                .collect();
            match (named.as_str(), extra.is_empty()) {
                (_, true) => named,
                ("none", false) => md(&extra.join(", ")),
                (_, false) => format!("{named}; and {}", md(&extra.join(", "))),
            }
        };
        let (holds, reading, fails, open, not_yet, out) = (
            column(Col::Holds),
            column(Col::Reading),
            column(Col::Fails),
            column(Col::Open),
            column(Col::NotYet),
            column(Col::Out),
        );
        let _ = writeln!(
            s,
            "| {} | {holds} | {reading} | {fails} | {open} | {not_yet} | {out} |",
            md(&inv.paper.authors)
        );
    }
    s
}

/// Where a paper's claims carry its theorem's hypothesis as a condition on
/// the point: how many of the points they read lie inside it, the paper's
/// own claims and our stand-ins apart ("**Inside the theorem's
/// hypothesis:** …"), or nothing.
fn hypothesis_line<'a>(claims: impl Iterator<Item = &'a ClaimRow>, paper: &str) -> String {
    // (points inside, points read, claims, claims with none inside,
    // informative points)
    let (mut own, mut ours) = ((0, 0, 0, 0, 0), (0, 0, 0, 0, 0));
    for c in claims.filter(|c| c.paper.as_deref() == Some(paper)) {
        let Some((k, n)) = c.inside else { continue };
        let t = if c.origin == Origin::Paper {
            &mut own
        } else {
            &mut ours
        };
        *t = (
            t.0 + k,
            t.1 + n,
            t.2 + 1,
            t.3 + usize::from(k == 0),
            t.4 + c.informative.0,
        );
    }
    let words = |(k, n, c, none, inf): (usize, usize, usize, usize, usize), whose: [&str; 2]| {
        (c > 0).then(|| {
            format!(
                "{c} {} read {k} of {} {n} points inside it{}{}",
                whose[usize::from(c > 1)],
                if c == 1 { "its" } else { "their" },
                match none {
                    0 => String::new(),
                    j if j == c => ", so they decide nothing".to_string(),
                    j => format!(" ({j} of them none)"),
                },
                // Inside is not tested: a point inside can still sit at the
                // floor, where it informs nothing.
                match (inf == 0 && k > 0, c) {
                    (false, _) => "",
                    (true, 1) => ", and none of its points is informative: it tests nothing there",
                    (true, _) =>
                        ", and none of their points is informative: they test nothing there",
                }
            )
        })
    };
    let parts: Vec<String> = [
        words(
            own,
            ["claim of the paper's own", "claims of the paper's own"],
        ),
        words(ours, ["stand-in of ours", "stand-ins of ours"]),
    ]
    .into_iter()
    .flatten()
    .collect();
    if parts.is_empty() {
        return String::new();
    }
    format!(
        "**Inside the theorem's hypothesis:** {} (a point outside it decides nothing; each \
         claim's section says which are inside).",
        parts.join("; ")
    )
}

/// Where the runs fail what the count line counts, so that "0 not
/// reproduced" does not read as "nothing failed": the held papers' claims,
/// and our stand-ins for them, that hold at lb's reading and fail, or hold
/// only in part, at another reading their maps try (each with its map's
/// line), and the stand-ins of ours for a held paper that fail, with the
/// paper each stands for (those for papers lb does not hold are counted in
/// their own section). Nothing where none does.
fn where_they_fail(
    experiments: &[&ExperimentClaims],
    inventories: &[Inventory],
    not_reproduced: usize,
) -> String {
    let held: Vec<&str> = inventories
        .iter()
        .map(|i| i.paper.authors.as_str())
        .collect();
    // A held paper's claims of `origin` with `verdict`, each with its paper
    // and its experiment.
    let held = &held;
    let of = |origin: Origin, verdict: Verdict| {
        experiments.iter().flat_map(move |e| {
            e.claims.iter().filter_map(move |c| {
                let p = c.paper.as_deref().filter(|p| held.contains(p))?;
                (c.origin == origin && c.verdict == verdict).then_some((
                    c,
                    p,
                    e.experiment.as_str(),
                ))
            })
        })
    };
    // Those of `origin` that hold at lb's reading, where something they are
    // held to fails, and fail, or hold only in part, at another reading
    // their maps try: (how many claims, their maps' lines). One that holds
    // without discriminating is listed below with why, not here.
    let elsewhere_of = |origin: Origin| -> (usize, Vec<String>) {
        let mut n = 0;
        let mut lines = Vec::new();
        for (c, _, _) in of(origin, Verdict::Confirmed).filter(|(c, _, _)| c.untested.is_none()) {
            let before = lines.len();
            for l in c.robustness.iter().filter(|l| l.combinations > 1) {
                if l.refuted > 0 || l.partly_elsewhere() > 0 {
                    lines.push(format!("`{}` (map `{}`: {})", c.id, l.map, l.summary));
                }
            }
            n += usize::from(lines.len() > before);
        }
        (n, lines)
    };
    let (n_elsewhere, elsewhere) = elsewhere_of(Origin::Paper);
    let (n_ours, ours_elsewhere) = elsewhere_of(Origin::StandIn);
    let failing: Vec<String> = of(Origin::StandIn, Verdict::Refuted)
        .filter(|(c, _, _)| !c.no_point())
        .map(|(c, p, _)| format!("`{}` (for {p})", c.id))
        .collect();
    // Those that hold but at no point discriminate because a null (or the
    // foil) holds too: the effect is there without what the sentence
    // credits, which counts against the credit.
    // Not where a statement it decides names what lb could add that would
    // let the null fail (`could_audit`): the null then held on a setting of
    // lb's, not against the sentence's credit (as the inventory counts it).
    let on_our_setting = |e: &str, id: &str| {
        let name = format!("{e}/{id}");
        inventories
            .iter()
            .flat_map(|i| &i.statements)
            .any(|s| s.could_audit.is_some() && s.claims.contains(&name))
    };
    let uncredited_of = |o: Origin| -> Vec<String> {
        of(o, Verdict::Confirmed)
            .filter(|(c, _, e)| c.untested.is_some() && c.null_holds && !on_our_setting(e, &c.id))
            .map(|(c, p, _)| format!("`{}` (for {p})", c.id))
            .collect()
    };
    let (uncredited_paper, uncredited_ours) =
        (uncredited_of(Origin::Paper), uncredited_of(Origin::StandIn));
    let uncredited: Vec<String> = uncredited_paper
        .iter()
        .chain(&uncredited_ours)
        .cloned()
        .collect();
    // The papers' claims that fail at some of their points at the reading
    // they are counted at, with those points.
    let in_part: Vec<String> = of(Origin::Paper, Verdict::Partly)
        .filter(|(c, _, _)| c.untested.is_none() && !c.no_point())
        .map(|(c, _, _)| format!("`{}` (at {})", c.id, c.except.join("; ")))
        .collect();
    if elsewhere.is_empty()
        && ours_elsewhere.is_empty()
        && failing.is_empty()
        && uncredited.is_empty()
        && in_part.is_empty()
    {
        return String::new();
    }
    let mut s = if not_reproduced == 0 && in_part.is_empty() {
        String::from("\n- **Where the runs fail them**: none fails at the reading it is counted at")
    } else if not_reproduced == 0 {
        format!(
            "\n- **Where the runs fail them**: none fails in full at the reading it is counted \
             at; {} of the papers' claims fail{} there at some points: {}",
            in_part.len(),
            if in_part.len() == 1 { "s" } else { "" },
            in_part.join("; ")
        )
    } else {
        format!(
            "\n- **Where the runs fail them**: {not_reproduced} at the reading {} counted at \
             (not reproduced)",
            if not_reproduced == 1 {
                "it is"
            } else {
                "they are"
            }
        )
    };
    if !elsewhere.is_empty() {
        let _ = write!(
            s,
            "; at other readings their maps try, {} of the papers' claims that hold at lb's \
             reading fail or hold only in part: {}",
            n_elsewhere,
            elsewhere.join("; ")
        );
    }
    if !ours_elsewhere.is_empty() {
        let _ = write!(
            s,
            "; so do {} of our stand-ins for them: {}",
            n_ours,
            ours_elsewhere.join("; ")
        );
    }
    if !failing.is_empty() {
        let _ = write!(
            s,
            ". {} stand-in{} of ours fail{}: {}",
            failing.len(),
            if failing.len() == 1 { "" } else { "s" },
            if failing.len() == 1 { "s" } else { "" },
            failing.join(", ")
        );
    }
    if !uncredited.is_empty() {
        // Who they are, counted by origin ("1 of the papers' claims and 2 of
        // our stand-ins for them").
        let whose = match (uncredited_paper.len(), uncredited_ours.len()) {
            (0, k) => format!("{k} of our stand-ins for the papers' claims"),
            (j, 0) => format!("{j} of the papers' claims"),
            (j, k) => format!("{j} of the papers' claims and {k} of our stand-ins for them"),
        };
        let _ = write!(
            s,
            ". {whose} hold{} without what their sentence credits (at every point a null that \
             takes it away, or the foil, holds too): {}",
            if uncredited.len() == 1 { "s" } else { "" },
            uncredited.join(", ")
        );
    }
    s.push('.');
    s
}

/// What the claims' maps find at the readings other than lb's, summed over
/// the claims that hold at lb's (each map tries lb's reading among its
/// combinations): " — at the 10 other readings their maps try, they hold
/// at 0, fail at 2, hold in part at 1 and are undecided at 7", or nothing
/// where no map tries another.
fn other_readings(claims: &[&lb_audit::ClaimRow]) -> String {
    let (mut n, mut holds, mut fails, mut partly, mut undecided) = (0, 0, 0, 0, 0);
    // lb's own reading is one of each map's combinations, counted where the
    // claim's own verdict puts it: the others are what the maps add.
    for r in claims.iter().filter(|r| {
        matches!(
            r.verdict,
            lb_audit::Verdict::Confirmed | lb_audit::Verdict::Partly
        )
    }) {
        let base_holds = usize::from(r.verdict == lb_audit::Verdict::Confirmed);
        for l in r.robustness.iter().filter(|l| l.combinations > 1) {
            n += l.combinations - 1;
            holds += l.holds.saturating_sub(base_holds);
            fails += l.refuted;
            partly += l.partly().saturating_sub(1 - base_holds);
            undecided += l.inconclusive;
        }
    }
    if n == 0 {
        return String::new();
    }
    // The outcomes that occur, most first.
    let mut outcomes = [
        (holds, "hold"),
        (fails, "fail"),
        (partly, "hold except at some points"),
        (undecided, "are undecided"),
    ];
    outcomes.sort_by_key(|(k, _)| std::cmp::Reverse(*k));
    let said: Vec<String> = outcomes
        .iter()
        .filter(|(k, _)| *k > 0)
        .map(|(k, w)| format!("{w} at {k}"))
        .collect();
    format!(
        " — at the {n} other reading{} their maps try, they {}",
        if n == 1 { "" } else { "s" },
        match said.as_slice() {
            [] => String::new(),
            [one] => one.clone(),
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        }
    )
}

/// The first sentence of a text (up to ". " after neither a number nor an
/// abbreviation: "Fig.", "e.g.", "p.", an initial), at most 220
/// characters, cut at a word.
fn first_sentence(t: &str) -> String {
    const ABBREVIATIONS: [&str; 14] = [
        "Fig", "Figs", "e.g", "i.e", "p", "pp", "Eq", "ref", "Ref", "Thm", "cf", "vs", "al", "resp",
    ];
    let cut = t
        .char_indices()
        .find(|&(i, c)| {
            let word = t[..i]
                .rsplit(|x: char| x.is_whitespace() || x == '(')
                .next()
                .unwrap_or("");
            c == '.'
                && t[i + 1..].starts_with(' ')
                && !word.ends_with(|d: char| d.is_ascii_digit())
                && !ABBREVIATIONS.contains(&word)
                && !(word.chars().count() == 1 && word.chars().all(char::is_uppercase))
        })
        .map(|(i, _)| i + 1)
        .unwrap_or(t.len());
    let out = &t[..cut];
    if out.chars().count() > 220 {
        let head: String = out.chars().take(219).collect();
        let head = head.rsplit_once(' ').map_or(head.as_str(), |(h, _)| h);
        format!("{}…", head.trim_end_matches([',', ';', ':']))
    } else {
        out.to_string()
    }
}

/// The family's error at the chosen levels, in a sentence a reader can use:
/// a bound for the verdicts decided on intervals lb's coverage certificate
/// measures (directly, or through the bounds of a rate of approach), and for
/// those confirmed unstable (through the trend test's measured false-alarm
/// chance); the count of those without one (a rate only the delta method
/// decides, a stability test's "stable").
fn error_rate(family: &Tally) -> String {
    // Verdicts that tested nothing decide nothing that could be wrong.
    let decided = family.total() - family.inconclusive - family.untested - family.no_point;
    if decided == 0 {
        return String::new();
    }
    let covered = decided - family.uncertified;
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let head = format!(
        "*Chance of a wrong verdict:* {decided} verdict{} of its statements and stand-ins \
         tested something (those that tested nothing are left out)",
        plural(decided)
    );
    const MARGIN: &str = "A verdict far from its threshold (its margin, in the audit) is far \
                          less likely wrong. These bounds take the rules as they stand; the \
                          rules were revised between readings of this report, after its runs \
                          were seen (the objections and answers list each change), which no \
                          level accounts for.";
    let unbounded = {
        let stable = family.uncertified_stable;
        let controlled = family.uncertified_controlled;
        let rate = family.uncertified - stable - controlled;
        let mut parts = Vec::new();
        if controlled > 0 {
            parts.push(format!(
                "{controlled} {} read on control-variate intervals (β fitted on the first \
                 stage's pairs), which lb's coverage certificate measured only on its own small \
                 systems, short of the points these are decided at (its page gives where)",
                if controlled == 1 { "is" } else { "are" }
            ));
        }
        if rate > 0 {
            parts.push(format!(
                "{rate} {} read through a rate of approach that only the delta method on two \
                 intervals decides, which lb's coverage certificate does not measure",
                if rate == 1 { "is" } else { "are" }
            ));
        }
        if stable > 0 {
            parts.push(format!(
                "{stable} confirm{} stability by lb's stability test, which bounds no error: a \
                 queue that diverges too slowly to show within its runs passes it",
                if stable == 1 { "s" } else { "" }
            ));
        }
        parts
    };
    if covered == 0 {
        return format!(
            "{head}; no bound is stated for any: {} (the findings say where). {MARGIN}\n",
            unbounded.join("; ")
        );
    }
    let intervals = covered - family.rate_bounded - family.unstable_bounded;
    let mut kinds = Vec::new();
    if intervals > 0 {
        kinds.push(format!(
            "{intervals} {} on a point's intervals, each decided at its own level ({} or \
             more): where those intervals cover at that level, as lb's coverage certificate \
             measures, each is wrong with a chance of at most {} even where the truth sits \
             exactly on its threshold",
            if intervals == 1 { "rests" } else { "rest" },
            lb_manifest::calibration::stated_95_in_words(),
            lb_manifest::calibration::miss_at_95_in_words()
        ));
    }
    if family.rate_bounded > 0 {
        let n = family.rate_bounded;
        kinds.push(format!(
            "{n} {} confirmed through a rate of approach whose decision holds between the ends \
             of its steps' intervals as well, so that {} wrong only if one of the two intervals \
             of the step where the limit would fail misses: at most twice that, {}",
            if n == 1 { "is" } else { "are" },
            if n == 1 { "it is" } else { "each is" },
            lb_manifest::calibration::twice_miss_at_95_in_words()
        ));
    }
    if family.unstable_bounded > 0 {
        let n = family.unstable_bounded;
        kinds.push(format!(
            "{n} {} confirmed unstable by lb's stability test, wrong only if most runs at a \
             stable point were flagged, each with the trend test's measured false-alarm chance \
             of at most 2%: at most {}",
            if n == 1 { "is" } else { "are" },
            sig2(family.unstable_max)
        ));
    }
    let bound = if family.alpha_sum < 0.5 {
        format!(
            ", and the chance that any is wrong is at most {}% (Bonferroni)",
            num(100.0 * family.alpha_sum, 2)
        )
    } else {
        String::new()
    };
    let uncovered = if unbounded.is_empty() {
        String::new()
    } else {
        format!(
            ". No bound is stated for the other {}: {} (the findings say where)",
            family.uncertified,
            unbounded.join("; ")
        )
    };
    format!(
        "{head}. {covered} of them have a bound: {}. Over them at most {} wrong verdicts are \
         expected{bound}{uncovered}. {MARGIN}\n",
        kinds.join("; "),
        num(family.alpha_sum, 2)
    )
}

/// A small chance in two significant figures: "3.2·10⁻⁵".
fn sig2(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if x >= 1e-3 {
        return num(x, 2);
    }
    let e = x.log10().floor() as i32;
    let m = x / 10f64.powi(e);
    const SUP: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let digits: String = e
        .abs()
        .to_string()
        .chars()
        .map(|d| SUP[d.to_digit(10).unwrap_or(0) as usize])
        .collect();
    format!("{:.1}·10⁻{digits}", m)
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
        .filter(|(_, c)| c.verdict == Verdict::Confirmed && c.untested.is_none())
        .map(|(e, c)| link(e, c))
        .collect();
    if !yes.is_empty() {
        out.push(format!("Reproduced: {}.", yes.join(", ")));
    }
    for (e, c) in statements.iter().chain(&standins) {
        match c.verdict {
            Verdict::Refuted => {
                let where_ = c
                    .robustness
                    .first()
                    .map(|w| {
                        format!(
                            " — across the settings the paper leaves open, {}",
                            md(&w.summary)
                        )
                    })
                    .unwrap_or_default();
                // A paper lb does not hold is read at lb's settings: a
                // stand-in that fails there says so, not that the paper does.
                let what = if c.origin == Origin::Paper {
                    "Not reproduced"
                } else {
                    "Our stand-in fails at lb's setting (lb does not hold the paper, so its \
                     own setting is not read)"
                };
                out.push(format!("{what}: {}{where_}.", link(e, c)));
            }
            Verdict::Partly if c.untested.is_none() => {
                out.push(format!(
                    "{} {}: {} except at {}.",
                    if c.origin == Origin::Paper {
                        "Reproduced"
                    } else {
                        "Our stand-in holds"
                    },
                    link(e, c),
                    md(&c.statement),
                    md(&c.except.join("; "))
                ));
            }
            Verdict::Confirmed | Verdict::Partly if c.untested.is_some() => {
                out.push(format!(
                    "{} {} ({}).",
                    link(e, c),
                    if c.no_point() {
                        "holds at no point that could decide it"
                    } else {
                        "holds but does not discriminate"
                    },
                    md(c.untested.as_deref().unwrap_or_default())
                ));
            }
            _ => {}
        }
    }
    let open: Vec<String> = statements
        .iter()
        .filter(|(_, c)| c.verdict == Verdict::Inconclusive)
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

/// A setting two claims of one paper need at values no one reading gives:
/// the setting, and each set of values with the claims (ids) that need it.
struct Conflict {
    setting: String,
    sides: Vec<(Vec<String>, Vec<String>)>,
}

impl Conflict {
    /// "`count_own`: `a` holds in full only at count_own = true; `b` …".
    fn words(&self) -> String {
        let k = &self.setting;
        let sides: Vec<String> = self
            .sides
            .iter()
            .map(|(v, ids)| {
                let ids: Vec<String> = ids.iter().map(|i| format!("`{i}`")).collect();
                let verb = if ids.len() == 1 { "holds" } else { "hold" };
                let at = match v.as_slice() {
                    [one] => format!("{k} = {one}"),
                    many => format!("{k} ∈ {{{}}}", many.join(", ")),
                };
                format!("{} {verb} in full only at {at}", ids.join(", "))
            })
            .collect();
        format!("`{k}`: {}", sides.join("; "))
    }
}

/// The settings two claims of a paper need at values no one reading gives
/// both in full: from each claim's robustness maps that decide it
/// ([`lb_audit::MapLine::needs`]), the values of a setting at which the
/// claim holds in full; a setting two claims need at disjoint values is a
/// conflict, though one may hold in part at the other's value. A claim that
/// holds without discriminating at its own reading still fails,
/// informatively, where its map says it does not hold, so it counts too.
fn conflicts<'a>(claims: impl Iterator<Item = &'a ClaimRow>) -> Vec<Conflict> {
    use std::collections::BTreeMap;
    // setting → the values a claim needs → the claims that need them.
    let mut needs: BTreeMap<String, BTreeMap<Vec<String>, Vec<String>>> = BTreeMap::new();
    for c in claims {
        for n in c
            .robustness
            .iter()
            .filter(|l| l.decides)
            .flat_map(|l| &l.needs)
        {
            let mut values = n.values.clone();
            values.sort();
            let ids = needs
                .entry(n.setting.clone())
                .or_default()
                .entry(values)
                .or_default();
            if !ids.contains(&c.id) {
                ids.push(c.id.clone());
            }
        }
    }
    needs
        .into_iter()
        .filter(|(_, vs)| {
            // Two claims whose sets of values share none.
            let sets: Vec<&Vec<String>> = vs.keys().collect();
            sets.iter().enumerate().any(|(i, a)| {
                sets[i + 1..]
                    .iter()
                    .any(|b| !a.iter().any(|x| b.contains(x)))
            })
        })
        .map(|(setting, vs)| Conflict {
            setting,
            sides: vs.into_iter().collect(),
        })
        .collect()
}

/// The conflicts of [`conflicts`], in words: "`count_own`: `a` holds in
/// full only at count_own = true; `b` holds in full only at count_own =
/// false".
pub(crate) fn reading_conflicts<'a>(claims: impl Iterator<Item = &'a ClaimRow>) -> Vec<String> {
    conflicts(claims).iter().map(Conflict::words).collect()
}

/// Marks each paper's claims that hold in full only at a reading at which
/// another claim of the same paper does not ([`lb_audit::ClaimRow::conflicting`]),
/// with the conflict in words: their statements are then "reproduced only
/// at conflicting readings". Reads every experiment, so it runs once the
/// report has them all.
pub(crate) fn mark_conflicts(experiments: &mut [ExperimentClaims]) {
    let mut papers: Vec<String> = experiments
        .iter()
        .flat_map(|e| &e.claims)
        .filter(|c| c.origin == Origin::Paper)
        .filter_map(|c| c.paper.clone())
        .collect();
    papers.sort();
    papers.dedup();
    for paper in papers {
        let mine = |c: &ClaimRow| c.origin == Origin::Paper && c.paper.as_deref() == Some(&paper);
        let found = conflicts(
            experiments
                .iter()
                .flat_map(|e| &e.claims)
                .filter(|c| mine(c)),
        );
        for conflict in &found {
            for (_, ids) in &conflict.sides {
                for c in experiments
                    .iter_mut()
                    .flat_map(|e| e.claims.iter_mut())
                    .filter(|c| mine(c) && ids.contains(&c.id))
                {
                    c.conflicting = Some(conflict.words());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ClaimRow, reading_conflicts};

    /// A sentence named by its section whose claims all decide one named
    /// result goes to that result's row; one whose claims span two results,
    /// or that has none, stays in its section's.
    #[test]
    fn a_sentence_restating_one_result_goes_to_its_row() {
        let st = |id: &str, at: &str, claims: &[&str]| {
            serde_json::json!({
                "id": id, "kind": "theorem", "where": at, "quote": "q", "setting": "s",
                "claims": claims,
            })
        };
        let inv: lb_manifest::inventory::Inventory = serde_json::from_value(serde_json::json!({
            "paper": { "authors": "A", "title": "T" },
            "statement": [
                st("abstract-both", "Abstract", &["e/t1", "e/t2"]),
                st("abstract-t2", "Abstract", &["e/t2"]),
                st("t1", "§3, Theorem 1", &["e/t1"]),
                st("t2", "§3, Theorem 2", &["e/t2", "e/t2-rate"]),
                st("intro", "§1", &[]),
            ],
        }))
        .unwrap();
        let homes: Vec<(String, String)> = super::homes(&inv)
            .into_iter()
            .map(|(s, h)| (s.id.clone(), h))
            .collect();
        let home = |id: &str| homes.iter().find(|(s, _)| s == id).unwrap().1.as_str();
        assert_eq!(home("abstract-both"), "Abstract");
        assert_eq!(home("abstract-t2"), "Theorem 2");
        assert_eq!(home("t1"), "Theorem 1");
        assert_eq!(home("intro"), "§1");
    }

    /// The error sentence bounds the verdicts decided on a point's
    /// intervals, those confirmed through a rate that holds on its steps'
    /// bounds (twice an interval's chance) and those confirmed unstable
    /// (the trend test's false alarms); a rate only the delta method
    /// decides and a "stable" get none, each said apart.
    #[test]
    fn the_error_bound_covers_only_bounded_verdicts() {
        let rates_only = lb_audit::Tally {
            reproduced: 2,
            uncertified: 2,
            ..Default::default()
        };
        let w = super::error_rate(&rates_only);
        assert!(
            w.contains("no bound is stated") && !w.contains("at most 4"),
            "{w}"
        );
        assert!(w.contains("2 are read through a rate"), "{w}");
        let mixed = lb_audit::Tally {
            reproduced: 3,
            uncertified: 1,
            alpha_sum: 0.09,
            ..Default::default()
        };
        let w = super::error_rate(&mixed);
        assert!(w.contains("2 rest on a point's intervals"), "{w}");
        assert!(w.contains("at most 9.0% (Bonferroni)"), "{w}");
        assert!(w.contains("1 is read through a rate"), "{w}");
        let bounded = lb_audit::Tally {
            reproduced: 2,
            at_rate_ours: 2,
            by_stability_test: 2,
            rate_bounded: 2,
            unstable_bounded: 1,
            unstable_max: 3.2e-5,
            uncertified: 1,
            uncertified_stable: 1,
            alpha_sum: 0.27,
            ..Default::default()
        };
        let w = super::error_rate(&bounded);
        assert!(w.contains("5 of them have a bound: 2 rest on"), "{w}");
        assert!(
            w.contains("2 are confirmed through a rate of approach"),
            "{w}"
        );
        assert!(w.contains("1 is confirmed unstable"), "{w}");
        assert!(w.contains("at most 3.2·10⁻⁵"), "{w}");
        assert!(
            w.contains("1 confirms stability by lb's stability test"),
            "{w}"
        );
        assert!(!w.contains("read through a rate"), "{w}");
        let controlled = lb_audit::Tally {
            reproduced: 2,
            uncertified: 1,
            uncertified_controlled: 1,
            alpha_sum: 0.045,
            ..Default::default()
        };
        let w = super::error_rate(&controlled);
        assert!(w.contains("1 is read on control-variate intervals"), "{w}");
        assert!(!w.contains("read through a rate"), "{w}");
    }

    /// "0 not reproduced" is not left to read as "nothing failed": a held
    /// paper's claim that holds at lb's reading and fails, or holds only in
    /// part, at another its map tries is named with the map's line, and so
    /// is a failing stand-in of a held paper; one of a paper lb does not
    /// hold, and a claim whose map finds it holding everywhere, are not.
    #[test]
    fn where_they_fail_names_the_other_readings_that_fail() {
        use lb_audit::{ExperimentClaims, MapLine};
        use lb_manifest::inventory::Inventory;
        let row = |id: &str, origin: &str, verdict: &str, paper: &str| -> ClaimRow {
            serde_json::from_value(serde_json::json!({
                "id": id, "verdict": verdict, "required": false, "origin": origin,
                "paper": paper, "level": 0.95, "statement": "s", "deciding": "d",
                "confirmed": 1, "points": 1, "why_checks": [],
            }))
            .unwrap()
        };
        let map = |holds: usize, refuted: usize| MapLine {
            map: "m".into(),
            summary: "the claim holds if and only if x = 1".into(),
            decides: refuted > 0,
            needs: Vec::new(),
            in_part: None,
            inconclusive: 0,
            holds,
            refuted,
            combinations: 2,
        };
        let mut fails = row("fails-elsewhere", "paper", "confirmed", "A");
        fails.robustness = vec![map(1, 1)];
        let mut holds = row("holds-everywhere", "paper", "confirmed", "A");
        holds.robustness = vec![map(2, 0)];
        let mut ours = row("ours-elsewhere", "stand-in", "confirmed", "A");
        ours.robustness = vec![map(1, 1)];
        // Holding at no point its null fails: the effect without the credit.
        let mut uncredited = row("ours-uncredited", "stand-in", "confirmed", "A");
        uncredited.untested = Some("its null holds here too".into());
        uncredited.null_holds = true;
        // Its map fails it elsewhere, but it held nowhere it could fail: it
        // is named once, among those that hold without their credit.
        uncredited.robustness = vec![map(1, 1)];
        // Holding at no point that informs, with no null holding: a floor.
        let mut floor = row("ours-floor", "stand-in", "confirmed", "A");
        floor.untested = Some("every point at the floor".into());
        let e = ExperimentClaims {
            experiment: "e".into(),
            title: "t".into(),
            claims: vec![
                fails,
                holds,
                ours,
                uncredited,
                floor,
                row("ours-fails", "stand-in", "refuted", "A"),
                row("unheld-fails", "stand-in", "refuted", "B"),
            ],
        };
        let inv: Inventory = serde_json::from_value(serde_json::json!({
            "paper": { "authors": "A", "title": "T" }, "statement": [],
        }))
        .unwrap();
        let w = super::where_they_fail(&[&e], std::slice::from_ref(&inv), 0);
        assert!(
            w.contains("none fails at the reading it is counted at"),
            "{w}"
        );
        assert!(
            w.contains(
                "1 of the papers' claims that hold at lb's reading fail or hold only in \
                 part: `fails-elsewhere` (map `m`: the claim holds if and only if x = 1)"
            ),
            "{w}"
        );
        assert!(
            w.contains("so do 1 of our stand-ins for them: `ours-elsewhere` (map `m`"),
            "{w}"
        );
        assert!(
            w.contains("1 stand-in of ours fails: `ours-fails` (for A)"),
            "{w}"
        );
        assert!(
            w.contains(
                "1 of our stand-ins for the papers' claims holds without what their sentence \
                 credits"
            ) && w.contains("`ours-uncredited` (for A)"),
            "{w}"
        );
        assert!(!w.contains("ours-floor"), "{w}");
        assert_eq!(w.matches("ours-uncredited").count(), 1, "{w}");
        assert!(
            !w.contains("holds-everywhere") && !w.contains("unheld-fails"),
            "{w}"
        );
        // Nothing fails anywhere: no line.
        let quiet = ExperimentClaims {
            claims: vec![e.claims[1].clone()],
            ..e.clone()
        };
        assert!(super::where_they_fail(&[&quiet], std::slice::from_ref(&inv), 0).is_empty());
    }

    /// The line in short groups results by status in the table's order,
    /// stand-ins apart, and says "none" where nothing fails, naming as
    /// stated when a stand-in fails.
    #[test]
    fn the_line_in_short_groups_results_by_status() {
        use super::Plain;
        use crate::inventory::Status as S;
        let at = |v: S, ours: bool| Plain::Status(super::plain_rank(v), ours);
        let rows = [
            (at(S::AtRateOurs, false), "Theorem 2".to_string()),
            (at(S::AtConflictingReadings, false), "Fig. 1".to_string()),
            (at(S::AtRateOurs, false), "§1".to_string()),
            (Plain::NotYet, "Lemma 4".to_string()),
            (Plain::OutOfReach, "Remark 1".to_string()),
        ];
        let w = super::plain_line(&rows, &[]);
        assert!(
            w.contains(
                "reproduced only at conflicting readings: Fig. 1; holds at a rate threshold of \
                 ours: Theorem 2, §1; reproduced except at some points: none; not reproduced: \
                 none; not yet audited (lb could): Lemma 4; out of reach: Remark 1."
            ),
            "{w}"
        );
        let w = super::plain_line(&rows, &["2 statements of §1".to_string()]);
        assert!(
            w.ends_with(
                "out of reach: Remark 1; and not yet audited (lb could) within rows of another \
                 status: 2 statements of §1."
            ),
            "{w}"
        );
        let failing = [(at(S::NotReproduced, true), "§4".to_string())];
        let w = super::plain_line(&failing, &[]);
        assert!(
            w.contains(
                "not reproduced (as stated): none; not reproduced (through our stand-ins): §4"
            ),
            "{w}"
        );
    }

    /// The other readings a row's maps try are counted for its claims that
    /// hold in full or in part at lb's reading, lb's own combination taken
    /// out of the bucket its own verdict is in.
    #[test]
    fn the_other_readings_leave_out_lb_reading_whatever_its_verdict() {
        let row = |verdict: lb_audit::Verdict, holds: usize, refuted: usize| -> ClaimRow {
            let mut r: ClaimRow = serde_json::from_value(serde_json::json!({
                "id": "a", "verdict": "confirmed", "required": false, "origin": "paper",
                "paper": "A", "level": 0.95, "statement": "s", "deciding": "d",
                "confirmed": 1, "points": 1, "why_checks": [],
            }))
            .unwrap();
            r.verdict = verdict;
            r.robustness = vec![lb_audit::MapLine {
                map: "m".into(),
                summary: "…".into(),
                decides: true,
                needs: Vec::new(),
                in_part: None,
                inconclusive: 0,
                holds,
                refuted,
                combinations: 3,
            }];
            r
        };
        // Holds at lb's reading, at one other, fails at the third.
        let held = row(lb_audit::Verdict::Confirmed, 2, 1);
        assert_eq!(
            super::other_readings(&[&held]),
            " — at the 2 other readings their maps try, they hold at 1 and fail at 1"
        );
        // Fails in part at lb's reading, holds at one other, fails at the third.
        let partly = row(lb_audit::Verdict::Partly, 1, 1);
        assert_eq!(
            super::other_readings(&[&partly]),
            " — at the 2 other readings their maps try, they hold at 1 and fail at 1"
        );
    }

    /// The hypothesis line counts, per origin, the points inside a theorem's
    /// hypothesis of those its claims read, and says where none are.
    #[test]
    fn the_hypothesis_line_counts_the_points_inside() {
        let row = |id: &str, origin: &str, inside: (usize, usize)| -> ClaimRow {
            serde_json::from_value(serde_json::json!({
                "id": id, "verdict": "confirmed", "required": false, "origin": origin,
                "paper": "A", "level": 0.95, "statement": "s", "deciding": "d",
                "confirmed": 1, "points": 1, "why_checks": [], "inside": [inside.0, inside.1],
                "informative": [inside.0.min(1), inside.1],
            }))
            .unwrap()
        };
        let rows = [
            row("a", "paper", (8, 12)),
            row("b", "stand-in", (0, 48)),
            row("c", "stand-in", (3, 16)),
        ];
        let w = super::hypothesis_line(rows.iter(), "A");
        assert!(
            w.contains("1 claim of the paper's own read 8 of its 12 points inside it;"),
            "{w}"
        );
        assert!(
            w.contains("2 stand-ins of ours read 3 of their 64 points inside it (1 of them none)"),
            "{w}"
        );
        assert!(super::hypothesis_line(rows.iter(), "B").is_empty());
        let none = [row("b", "stand-in", (0, 48))];
        assert!(super::hypothesis_line(none.iter(), "A").contains("so they decide nothing"));
        // Points inside that inform nothing (at a floor) are said to test
        // nothing, not counted as a test.
        let mut floor = row("d", "paper", (5, 9));
        floor.informative = (0, 9);
        let w = super::hypothesis_line([floor].iter(), "A");
        assert!(
            w.contains("read 5 of its 9 points inside it, and none of its points is informative"),
            "{w}"
        );
        assert!(!super::hypothesis_line(rows.iter(), "A").contains("informative"));
    }

    /// Two claims that need one setting at different values to hold in
    /// full conflict; at the same value, or on different settings, they do
    /// not.
    #[test]
    fn claims_needing_a_setting_at_different_values_conflict() {
        use lb_audit::{MapLine, Need};
        // A row as claims.json holds it, with what the rule reads.
        let row = |id: &str, needs: Vec<Need>| {
            let mut r: ClaimRow = serde_json::from_value(serde_json::json!({
                "id": id, "verdict": "confirmed", "required": false, "origin": "paper",
                "level": 0.95, "statement": "s", "deciding": "d", "confirmed": 1,
                "points": 1, "why_checks": [],
            }))
            .unwrap();
            r.robustness = vec![MapLine {
                map: "m".into(),
                summary: "the claim holds if and only if …".into(),
                decides: true,
                needs,
                in_part: None,
                inconclusive: 0,
                holds: 1,
                refuted: 1,
                combinations: 2,
            }];
            r
        };
        let need = |s: &str, vs: &[&str]| Need {
            setting: s.into(),
            values: vs.iter().map(|v| v.to_string()).collect(),
        };
        let map = row(
            "a",
            vec![
                need("count_own", &["true"]),
                need("tie_break of JSQ", &["shared", "lowest"]),
            ],
        );
        let foil = |s: &str, v: &str| row("b", vec![need(s, &[v])]);
        let c = reading_conflicts([&map, &foil("count_own", "false")].into_iter());
        assert_eq!(
            c,
            vec![
                "`count_own`: `b` holds in full only at count_own = false; `a` holds in full \
                 only at count_own = true"
                    .to_string()
            ]
        );
        assert!(reading_conflicts([&map, &foil("count_own", "true")].into_iter()).is_empty());
        assert!(reading_conflicts([&map, &foil("granularity", "batch")].into_iter()).is_empty());
        // Overlapping sets of values do not conflict; disjoint ones do.
        assert!(
            reading_conflicts([&map, &foil("tie_break of JSQ", "shared")].into_iter()).is_empty()
        );
        assert_eq!(
            reading_conflicts([&map, &foil("tie_break of JSQ", "random")].into_iter()).len(),
            1
        );
        // A claim that holds without discriminating at its own reading fails
        // where its map says it does not hold: a conflict still.
        let mut idle = foil("count_own", "false");
        idle.untested = Some("its null holds here too".into());
        assert_eq!(reading_conflicts([&map, &idle].into_iter()).len(), 1);
        // Holding in part at the other's value does not share it: no single
        // reading gives both in full.
        let mut partly = foil("count_own", "false");
        partly.robustness[0].in_part = Some(vec![need("count_own", &["false", "true"])]);
        assert_eq!(reading_conflicts([&map, &partly].into_iter()).len(), 1);
        // A map that leaves a combination undecided says where the claim
        // holds, not where it fails: it sets up no conflict.
        let mut open = foil("count_own", "false");
        open.robustness[0].decides = false;
        assert!(reading_conflicts([&map, &open].into_iter()).is_empty());
    }
}
