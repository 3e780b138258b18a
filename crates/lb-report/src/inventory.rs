//! The statement inventories in the report: per paper, how many statements
//! its inventory lists and how each stands (audited as stated, through our
//! stand-ins only, not yet, out of reach), and the inventory page
//! (`inventory.md`) with each statement quoted beside the verdicts of the
//! claims that audit it.

use crate::cells::anchor;
use lb_audit::{ClaimRow, ExperimentClaims, Verdict};
use lb_draw::markup::cell as md;
use lb_manifest::claim::Origin;
use lb_manifest::inventory::{Inventory, Statement};
use std::fmt::Write as _;

/// Where a statement stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// A claim of origin `paper` audits it.
    AsStated,
    /// Only stand-ins of ours audit it.
    StandIns,
    /// lb could audit it and does not yet.
    NotYet,
    /// lb cannot audit it (a proof device, a constant left unnamed…).
    OutOfReach,
}

/// The claim rows an inventory's statement names, found among the
/// experiments' (absent ones left out).
/// The claims a statement names, with their experiments (those loaded).
pub(crate) fn rows<'a>(
    s: &Statement,
    exps: &[&'a ExperimentClaims],
) -> Vec<(&'a str, &'a ClaimRow)> {
    s.claims
        .iter()
        .filter_map(|c| {
            let (exp, id) = c.split_once('/')?;
            let e = exps.iter().find(|e| e.experiment == exp)?;
            let r = e.claims.iter().find(|r| r.id == id)?;
            Some((e.experiment.as_str(), r))
        })
        .collect()
}

/// Where a statement stands, from the origins of the claims it names.
pub fn standing(s: &Statement, exps: &[&ExperimentClaims]) -> Standing {
    let rs = rows(s, exps);
    // Claims that test nothing: not yet audited where lb could add what
    // decides it (its entry's `could_audit`, or more runs where a null or
    // the foil is undecided or a point lies outside the hypothesis); out of
    // reach where nothing could, the claim holding by construction (a floor
    // every policy meets, an accounting identity), the reason the claims'
    // own ([`unreachable_reason`]).
    // A claim that holds without discriminating because a null held too
    // counts against its statement, except where the entry says what lb
    // could add that would let the null fail (`could_audit`): the null then
    // held on a setting of lb's, not against the statement's credit.
    if let Some((v, _, r)) = status_of(&rs)
        && (!tested(v, r) || (v == Status::DoesNotDiscriminate && s.could_audit.is_some()))
    {
        let by_construction = r.untested.is_some() && !r.pending && !r.no_point();
        // The entry says why no run lb could add would decide it either.
        if s.unreachable.is_some() {
            return Standing::OutOfReach;
        }
        return if s.could_audit.is_some() || !by_construction {
            Standing::NotYet
        } else {
            Standing::OutOfReach
        };
    }
    if rs.iter().any(|(_, r)| r.origin == Origin::Paper) {
        Standing::AsStated
    } else if !s.claims.is_empty() {
        Standing::StandIns
    } else if s.not_yet() {
        Standing::NotYet
    } else {
        Standing::OutOfReach
    }
}

/// What lb computes exactly of a statement about a rule's law (its entry's
/// `exact`): for each rule and system, the least δ over every estimate
/// state ([`lb_core::slotted::preference::worst`]) against the δ the
/// statement states, in one sentence; where a state falls below it, that
/// state, and the least δ where some estimates differ (what the proof of
/// Theorem 2 reads of δ).
pub fn exact_words(x: &lb_manifest::inventory::Exact) -> String {
    exact_check(x).1
}

/// Where a rule meets the δ an exact check states, over every system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExactOutcome {
    /// At every estimate state.
    Every,
    /// At every state where some estimates differ, not where all tie: the
    /// states where the proof of Theorem 2 reads the tilt (Lemma 4's term
    /// δ·(Q̃_min − Q̃_max) is 0 where all tie, whatever δ).
    WhereSomeDiffer,
    /// Not at some state where estimates differ.
    Not,
}

/// Each rule of an exact check with where it meets the δ stated, and
/// [`exact_words`]' sentence.
pub fn exact_check(x: &lb_manifest::inventory::Exact) -> (Vec<(String, ExactOutcome)>, String) {
    use lb_core::slotted::preference::{Rule, worst};
    use lb_manifest::inventory::ExactDelta;
    let tuple = |v: &[f64]| {
        let parts: Vec<String> = v.iter().map(|m| format!("{m}")).collect();
        format!("({})", parts.join(", "))
    };
    let mut parts = Vec::new();
    let mut each = Vec::new();
    for r in &x.rules {
        let rule = Rule::parse(r).expect("the loader parsed it");
        let (mut all, mut untied_all) = (true, true);
        for mu in &x.rates {
            let w = worst(rule, mu);
            let stated = x.delta.value(mu);
            let at_least = |d: f64| match x.delta {
                ExactDelta::Positive => d > 1e-12,
                _ => d >= stated - 1e-12,
            };
            let meets = w.all_tilted && at_least(w.delta_min);
            all &= meets;
            untied_all &= at_least(w.untied_delta_min);
            let against = match x.delta.symbol() {
                Some(v) => format!(", {v} = {stated:.4}"),
                None => String::new(),
            };
            let at: Vec<String> = w.at.iter().map(|v| v.to_string()).collect();
            let verdict = if meets {
                "as stated".to_string()
            } else {
                let untied = if w.untied_delta_min.is_finite() {
                    format!(
                        "; where some estimates differ, least δ {:.4}",
                        w.untied_delta_min
                    )
                } else {
                    String::new()
                };
                format!("below it at estimates ({}){untied}", at.join(", "))
            };
            parts.push(format!(
                "{} on μ = {}: least δ {:.4}{against}, {verdict} ({} states)",
                rule.name(),
                tuple(mu),
                w.delta_min,
                w.states
            ));
        }
        each.push((
            rule.name(),
            if all {
                ExactOutcome::Every
            } else if untied_all {
                ExactOutcome::WhereSomeDiffer
            } else {
                ExactOutcome::Not
            },
        ));
    }
    let all = each.iter().all(|(_, o)| *o == ExactOutcome::Every);
    let words = format!(
        "computed exactly from the rule's law over every estimate state (`lb preference`), \
         against {}: {} at every state of every system checked — {}",
        x.delta.words(),
        if all { "it holds" } else { "it does not hold" },
        parts.join("; ")
    );
    (each, words)
}

/// Why a statement is out of reach: its entry's reason, or, where its
/// claims test nothing and nothing lb could add would, the claim that sets
/// its status and why it tests nothing (linked into `audit`).
pub fn unreachable_reason(
    st: &Statement,
    exps: &[&ExperimentClaims],
    audit: &str,
) -> Option<String> {
    if let Some(o) = &st.out_of_reach {
        return Some(o.clone());
    }
    let (v, link, why) = untested_claim(st, exps, audit)?;
    if let Some(u) = &st.unreachable {
        return Some(format!("{u} ({link} {}: {why})", v.words()));
    }
    Some(format!(
        "its claims test nothing, and no claim lb could add would: {link} {}: {why}",
        v.words()
    ))
}

/// What would audit a statement not yet audited: its entry's `could_audit`,
/// or, where its claims test nothing only for want of runs (a null or the
/// foil undecided, a point outside the hypothesis or unsettled), what its
/// deciding claim lacks (linked into `audit`).
pub fn could_reason(st: &Statement, exps: &[&ExperimentClaims], audit: &str) -> Option<String> {
    if let Some(c) = &st.could_audit {
        return Some(c.clone());
    }
    let (_, link, why) = untested_claim(st, exps, audit)?;
    Some(format!(
        "runs that decide what {link} lacks (its null or foil decided, or points that \
         inform): {why}"
    ))
}

/// The claim that sets a statement's status, as a link into `audit`, with
/// its status and why it tests nothing (or, where it did, its deciding
/// check).
fn untested_claim(
    st: &Statement,
    exps: &[&ExperimentClaims],
    audit: &str,
) -> Option<(Status, String, String)> {
    let (v, e, r) = status(st, exps)?;
    let link = format!("[`{e}/{}`]({audit}#{})", r.id, anchor(e, &r.id));
    let why = r.untested.clone().unwrap_or_else(|| r.deciding.clone());
    Some((v, link, why))
}

/// The inventory's name in links: its file's stem.
pub fn slug(inv: &Inventory) -> String {
    inv.file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("inventory")
        .to_string()
}

/// The one status of an audited statement, from the claims that decide it:
/// its paper's own claims where it has any, else our stand-ins. The rule
/// (docs/AUDITING.md, "One count"): refuted if any claim is; else
/// "reproduced except at some points" if any is; else undecided if any is;
/// else "no informative point" if a claim has none (every point at a floor,
/// outside the theorem's hypothesis, or matched by a null); else "holds
/// but does not discriminate" if any confirmation does not; else
/// reproduced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// A claim that tested something is refuted.
    NotReproduced,
    /// It holds except at some informative points.
    Partly,
    /// Undecided on informative points.
    Undecided,
    /// No point of its claims could inform.
    NoInformativePoint,
    /// It holds, and a null or the foil holds too.
    DoesNotDiscriminate,
    /// It holds at every informative point, but in full only at a value of
    /// a setting the paper leaves open at which another of the paper's
    /// claims does not hold in full ([`lb_audit::ClaimRow::conflicting`]):
    /// no single reading reproduces both.
    AtConflictingReadings,
    /// It holds at every informative point, its nulls failing there, at
    /// lb's reading of a setting the text leaves open or lost: a robustness
    /// map finds it failing at another value, or its reading restores a
    /// number the held text lost ([`lb_audit::ClaimRow::at_one_reading`]).
    /// The headline word would change with lb's choice, so it is not
    /// counted as reproduced.
    AtOneReading,
    /// It holds at every informative point, its nulls failing there, and
    /// it is a limit decided by how fast its gap closes, at a slowest rate
    /// of approach the statement does not state
    /// ([`lb_audit::ClaimRow::threshold_ours`]): consistent with the limit,
    /// which no finite run reaches; a rate threshold of another choice
    /// could decide it otherwise, so it is not counted as reproduced.
    AtRateOurs,
    /// It holds at every informative point, its nulls failing there, and
    /// it is a stability verdict, read by lb's stability test of each run
    /// ([`lb_audit::ClaimRow::stability`]): a finite run shows no
    /// divergence at the test's false-alarm rate and divergence rule, which
    /// are lb's, and whose error the coverage certificate does not measure.
    ByStabilityTest,
    /// It holds at every informative point, its nulls failing there.
    Reproduced,
}

impl Status {
    /// The status as the report prints it.
    pub fn words(self) -> &'static str {
        match self {
            Status::NotReproduced => "not reproduced",
            Status::Partly => "reproduced except at some points",
            Status::Undecided => "undecided",
            Status::NoInformativePoint => "no point could decide it",
            Status::DoesNotDiscriminate => "holds, does not discriminate",
            Status::AtConflictingReadings => "reproduced only at conflicting readings",
            Status::AtOneReading => "reproduced at lb's reading only",
            Status::AtRateOurs => "holds at a rate threshold of ours",
            Status::ByStabilityTest => "holds by a stability test of ours",
            Status::Reproduced => "reproduced",
        }
    }

    /// The status of `k` statements: "holds" and "does" agree with `k`
    /// ("2 hold, do not discriminate").
    pub fn words_for(self, k: usize) -> String {
        let w = self.words();
        if k == 1 {
            return w.to_string();
        }
        w.replace("holds", "hold").replace("does not", "do not")
    }

    pub(crate) fn of(r: &ClaimRow) -> Status {
        // No point informs: nothing is decided, whatever the uninformative
        // points read (a null or the foil that held too makes a confirmation
        // one that does not discriminate).
        if r.no_point() {
            return Status::NoInformativePoint;
        }
        match r.verdict {
            Verdict::Refuted => Status::NotReproduced,
            _ if r.untested.is_some() => Status::DoesNotDiscriminate,
            Verdict::Partly => Status::Partly,
            Verdict::Confirmed if r.conflicting.is_some() => Status::AtConflictingReadings,
            Verdict::Confirmed if r.at_one_reading() => Status::AtOneReading,
            Verdict::Confirmed if r.threshold_ours.is_some() => Status::AtRateOurs,
            Verdict::Confirmed if r.stability => Status::ByStabilityTest,
            Verdict::Confirmed => Status::Reproduced,
            Verdict::Inconclusive | Verdict::NoPracticalDifference => Status::Undecided,
        }
    }
}

impl Status {
    /// Whether this status holds only at a reading of lb's of a setting the
    /// text leaves open or lost (its own, or one at which another of the
    /// paper's claims fails): audited at that reading, not as stated.
    pub fn at_a_reading(self) -> bool {
        matches!(self, Status::AtOneReading | Status::AtConflictingReadings)
    }

    /// Whether a choice of lb's that the statement does not make decides
    /// this status, so that another choice could turn its word: a reading
    /// ([`Status::at_a_reading`]), a slowest rate of approach
    /// ([`Status::AtRateOurs`]) or lb's stability test
    /// ([`Status::ByStabilityTest`]). Such a statement is audited at a
    /// choice of ours, not as stated.
    pub fn at_a_choice(self) -> bool {
        self.at_a_reading() || matches!(self, Status::AtRateOurs | Status::ByStabilityTest)
    }

    /// Whether a claim of this status tested something: it failed, held only
    /// in part, is undecided on informative points, or held where a null and
    /// the foil failed. A confirmation that does not discriminate, or one no
    /// point of which informs, tested nothing.
    pub fn tested(self) -> bool {
        !matches!(
            self,
            Status::NoInformativePoint | Status::DoesNotDiscriminate
        )
    }
}

/// Whether a claim of status `v` tested something: its status says so
/// ([`Status::tested`]), or it holds without discriminating because a null
/// or its foil held too ([`ClaimRow::null_holds`]), the effect there without
/// what it credits.
pub fn tested(v: Status, r: &ClaimRow) -> bool {
    v.tested() || (v == Status::DoesNotDiscriminate && r.null_holds)
}

/// The worst of `statuses` that tested something, or the worst of all
/// where none did (of one status, the one whose deciding check has the
/// smallest margin in half-widths): claims that tested nothing neither lift nor lower what
/// the others found. A claim tested something when its status says so
/// ([`Status::tested`]), and also when it holds without discriminating
/// because a null or its foil held too ([`ClaimRow::null_holds`]): the
/// effect was there without what the claim credits, which counts against
/// the statement (a floor, an exact formula or a point outside the
/// hypothesis shows nothing either way).
pub fn worst<'a>(
    statuses: impl IntoIterator<Item = (Status, (&'a str, &'a ClaimRow))>,
) -> Option<(Status, (&'a str, &'a ClaimRow))> {
    let all: Vec<(Status, (&str, &ClaimRow))> = statuses.into_iter().collect();
    // Of one status, the hardest evidence: the smallest margin in
    // half-widths (none last), the first of equals.
    let margin = |r: &ClaimRow| r.margin_hw.unwrap_or(f64::INFINITY);
    let harder = |a: &(Status, (&'a str, &'a ClaimRow)), b: &(Status, (&'a str, &'a ClaimRow))| {
        a.0.cmp(&b.0).then(margin(a.1.1).total_cmp(&margin(b.1.1)))
    };
    let some = all
        .iter()
        .copied()
        .filter(|(v, (_, r))| tested(*v, r))
        .min_by(harder);
    some.or_else(|| all.iter().copied().min_by(harder))
}

/// A statement's status and the claim that sets it ([`worst`] of those
/// that decide it), or None where no claim audits it.
pub fn status<'a>(
    s: &Statement,
    exps: &[&'a ExperimentClaims],
) -> Option<(Status, &'a str, &'a ClaimRow)> {
    status_of(&rows(s, exps))
}

/// [`status`] from a statement's claim rows.
fn status_of<'a>(rs: &[(&'a str, &'a ClaimRow)]) -> Option<(Status, &'a str, &'a ClaimRow)> {
    let own: Vec<_> = rs
        .iter()
        .filter(|(_, r)| r.origin == Origin::Paper)
        .collect();
    let mut deciding: Vec<_> = if own.is_empty() {
        rs.iter().collect()
    } else {
        own
    };
    // Of claims with one status, the one shown is one held to computed
    // nulls (docs/AUDITING.md, "Nulls") before one held to its foil only.
    deciding.sort_by_key(|(_, r)| r.nulls.is_empty());
    worst(deciding.into_iter().map(|(e, r)| (Status::of(r), (*e, *r)))).map(|(v, (e, r))| (v, e, r))
}

/// " (3 reproduced, 1 no point could decide it)", or nothing for an empty
/// tally.
pub(crate) fn statuses_words(tally: &std::collections::BTreeMap<Status, usize>) -> String {
    if tally.is_empty() {
        String::new()
    } else {
        format!(" ({})", in_words(tally))
    }
}

/// A tally of statuses in words, best first: "5 reproduced, 3 holds, does
/// not discriminate".
pub(crate) fn in_words(tally: &std::collections::BTreeMap<Status, usize>) -> String {
    tally
        .iter()
        .rev()
        .map(|(v, k)| format!("{k} {}", v.words_for(*k)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The paper's claims that decide its statements audited as stated, with
/// their experiments: restatements share a claim, so there may be fewer
/// than the statements.
pub fn deciding_claims<'a>(
    inv: &Inventory,
    exps: &[&'a ExperimentClaims],
    at_a_choice: bool,
) -> Vec<(&'a str, &'a ClaimRow)> {
    let mut deciding: Vec<(&str, &ClaimRow)> = Vec::new();
    for st in inv.statements.iter().filter(|s| s.counted()) {
        // Those audited at a choice of ours are counted apart.
        if standing(st, exps) == Standing::AsStated && at_a_choice_of_ours(st, exps) == at_a_choice
        {
            for (e, r) in rows(st, exps) {
                if r.origin == Origin::Paper
                    && !deciding.iter().any(|(e2, r2)| *e2 == e && r2.id == r.id)
                {
                    deciding.push((e, r));
                }
            }
        }
    }
    deciding
}

/// " Restatements share claims: …", a sentence: how many claims the
/// statements audited (`of`: "audited as stated") rest on, and what each
/// found, where that is fewer than the statements; nothing otherwise.
pub(crate) fn shared_words(statements: usize, of: &str, deciding: &[(&str, &ClaimRow)]) -> String {
    let n = deciding.len();
    if n == 0 || n >= statements {
        return String::new();
    }
    // What each found, in the order of the statuses (best first), and the
    // claims that tested nothing last.
    let mut by: std::collections::BTreeMap<(bool, std::cmp::Reverse<Status>), Vec<String>> =
        std::collections::BTreeMap::new();
    for (_, r) in deciding {
        let v = Status::of(r);
        by.entry((!tested(v, r), std::cmp::Reverse(v)))
            .or_default()
            .push(format!("`{}`", r.id));
    }
    // The claims that tested nothing are named apart: no statement's status
    // rests on them, so they are not counted among those the statements do.
    let idle: Vec<String> = by
        .iter()
        .filter(|((untested, _), _)| *untested)
        .flat_map(|(_, ids)| ids.iter().cloned())
        .collect();
    let parts: Vec<String> = by
        .into_iter()
        .filter(|((untested, _), _)| !untested)
        .map(|((_, v), ids)| {
            let what = match v.0 {
                Status::DoesNotDiscriminate => "held, but so did a null or the foil".to_string(),
                v => v.words_for(ids.len()),
            };
            format!("{} {what}: {}", ids.len(), ids.join(", "))
        })
        .collect();
    let rest = n - idle.len();
    if rest == 0 {
        return format!(
            " Restatements share claims: the {statements} {of} rest on {n} claim{} of the papers, \
             each of which tested nothing: {}.",
            if n == 1 { "" } else { "s" },
            idle.join(", ")
        );
    }
    let idle = match idle.len() {
        0 => String::new(),
        k => format!(
            "; {k} more of their claims tested nothing (each held, but no point could decide \
             it, or nothing it is held to could have failed there), so no status rests on {}: \
             {}",
            if k == 1 { "it" } else { "them" },
            idle.join(", ")
        ),
    };
    format!(
        " Restatements share claims: the {statements} {of} rest on {rest} claim{} of the papers \
         ({}){idle}.",
        if rest == 1 { "" } else { "s" },
        parts.join("; ")
    )
}

/// How many of an inventory's statements reproduced as stated in part are
/// so at one reading only: a setting the text leaves open (or lost) decides
/// one of the paper claims that decide it
/// ([`lb_audit::ClaimRow::at_one_reading`]). Those reproduced at every
/// informative point have that status ([`Status::at_a_reading`]), and are
/// counted apart.
pub fn at_one_reading_count(inv: &Inventory, exps: &[&ExperimentClaims]) -> usize {
    reproduced_where(inv, exps, |r| r.at_one_reading(), Status::at_a_reading)
}

/// How many of an inventory's statements reproduced as stated are so at a
/// rate threshold of ours: one of the paper claims that decide them is a
/// limit its rate can decide, at a slowest rate the statement does not
/// state ([`lb_audit::ClaimRow::threshold_ours`]).
pub fn at_threshold_ours_count(inv: &Inventory, exps: &[&ExperimentClaims]) -> usize {
    reproduced_where(
        inv,
        exps,
        |r| r.threshold_ours.is_some(),
        |v| v == Status::AtRateOurs,
    )
}

/// How many of an inventory's statements reproduced as stated (in full or
/// in part), other than those of status `but` (whose status says it
/// already), rest on a paper claim of which `qualified` holds.
fn reproduced_where(
    inv: &Inventory,
    exps: &[&ExperimentClaims],
    qualified: impl Fn(&lb_audit::ClaimRow) -> bool,
    but: impl Fn(Status) -> bool,
) -> usize {
    inv.statements
        .iter()
        .filter(|s| s.counted() && standing(s, exps) == Standing::AsStated)
        .filter(|s| {
            status(s, exps).is_some_and(|(v, _, _)| {
                !but(v)
                    && matches!(
                        v,
                        Status::Reproduced
                            | Status::AtOneReading
                            | Status::AtRateOurs
                            | Status::ByStabilityTest
                            | Status::Partly
                            | Status::AtConflictingReadings
                    )
            })
        })
        .filter(|s| {
            rows(s, exps)
                .iter()
                .any(|(_, r)| r.origin == Origin::Paper && qualified(r))
        })
        .count()
}

/// The ids of an inventory's statements reproduced as stated in full:
/// reproduced, at every reading its maps and foils try
/// ([`at_one_reading_count`] counts the others), at thresholds the paper
/// gives ([`at_threshold_ours_count`]) and with no part untested
/// ([`in_part`]).
pub fn in_full<'a>(inv: &'a Inventory, exps: &[&ExperimentClaims]) -> Vec<&'a str> {
    inv.statements
        .iter()
        .filter(|s| s.counted() && standing(s, exps) == Standing::AsStated)
        .filter(|s| status(s, exps).is_some_and(|(v, _, _)| v == Status::Reproduced))
        .filter(|s| !in_part(s, exps))
        .filter(|s| {
            !rows(s, exps).iter().any(|(_, r)| {
                r.origin == Origin::Paper && (r.at_one_reading() || r.threshold_ours.is_some())
            })
        })
        .map(|s| s.id.as_str())
        .collect()
}

/// What its claims leave untested, from the audit: the series its paper
/// claims read only at the metric's floor
/// ([`lb_audit::ClaimRow::floor_only`]), and each of its paper claims
/// that tested nothing while another tested something, with its reason.
pub fn untested_parts(st: &Statement, exps: &[&ExperimentClaims]) -> Vec<String> {
    let rs = rows(st, exps);
    let mut floor: Vec<String> = Vec::new();
    for (_, r) in &rs {
        for p in &r.floor_only {
            if !floor.contains(p) {
                floor.push(p.clone());
            }
        }
    }
    let mut out: Vec<String> = Vec::new();
    if !floor.is_empty() {
        out.push(format!(
            "{} (at the metric's floor at every point read, where any policy meets the claim)",
            floor.join(", ")
        ));
    }
    let paper: Vec<&ClaimRow> = rs
        .iter()
        .map(|(_, r)| *r)
        .filter(|r| r.origin == Origin::Paper)
        .collect();
    let tested = |r: &ClaimRow| r.untested.is_none() && !r.no_point();
    if paper.iter().any(|r| tested(r)) {
        for r in paper.iter().filter(|r| !tested(r)) {
            out.push(format!(
                "what `{}` reads: it tests nothing ({})",
                r.id,
                r.untested.as_deref().unwrap_or("no point could decide it")
            ));
        }
        // A part of the statement's scope its paper claims do not read, read
        // by a stand-in of its own (not one re-reading a paper claim, which
        // names that claim) that did not decide it.
        let rereads = |r: &ClaimRow| {
            r.stands_for
                .as_deref()
                .is_some_and(|f| paper.iter().any(|p| f.ends_with(p.id.as_str())))
        };
        for (_, r) in rs.iter().filter(|(_, r)| r.origin == Origin::StandIn) {
            if r.verdict == lb_audit::Verdict::Inconclusive && !rereads(r) {
                out.push(format!("what our stand-in `{}` reads, undecided", r.id));
            }
        }
    }
    out
}

/// Whether a statement audited as stated is audited in part: its entry
/// names what of it no claim reads, or reads with a claim that tests
/// nothing (`unread`), or the audit finds a part its claims leave untested
/// ([`untested_parts`]), and its status tested something (a statement no
/// point could decide is not audited in part).
pub fn in_part(st: &Statement, exps: &[&ExperimentClaims]) -> bool {
    (st.unread.is_some() || !untested_parts(st, exps).is_empty())
        && standing(st, exps) == Standing::AsStated
        && status(st, exps).is_some_and(|(v, _, r)| tested(v, r))
}

/// How many of an inventory's statements are audited in part ([`in_part`]).
pub fn in_part_count(inv: &Inventory, exps: &[&ExperimentClaims]) -> usize {
    inv.statements
        .iter()
        .filter(|s| s.counted() && in_part(s, exps))
        .count()
}

/// How many of an inventory's statements of standing `standing` (audited
/// as stated, or through stand-ins only) have each status.
pub fn statuses(
    inv: &Inventory,
    exps: &[&ExperimentClaims],
    of: Standing,
) -> std::collections::BTreeMap<Status, usize> {
    let mut out = std::collections::BTreeMap::new();
    for st in inv.statements.iter().filter(|s| s.counted()) {
        if standing(st, exps) == of
            && let Some((v, _, _)) = status(st, exps)
        {
            *out.entry(v).or_insert(0) += 1;
        }
    }
    out
}

/// The counts of an inventory's statements ([`Statement::counted`]), in
/// order: as stated, at a choice of ours ([`at_a_choice_of_ours`]),
/// through stand-ins only, not yet, out of reach.
pub fn counts(inv: &Inventory, exps: &[&ExperimentClaims]) -> [usize; 5] {
    let mut n = [0; 5];
    for s in inv.statements.iter().filter(|s| s.counted()) {
        n[match standing(s, exps) {
            Standing::AsStated if at_a_choice_of_ours(s, exps) => 1,
            Standing::AsStated => 0,
            Standing::StandIns => 2,
            Standing::NotYet => 3,
            Standing::OutOfReach => 4,
        }] += 1;
    }
    n
}

/// Whether a statement its paper's claims decide has a status a choice of
/// lb's decides ([`Status::at_a_choice`]): audited at that choice, not as
/// stated. One that fails, or holds only in part, where one of its paper's
/// claims holds at another value of a setting its map tries
/// ([`lb_audit::ClaimRow::at_one_reading`]) is so at lb's reading: at a
/// choice of ours too.
pub fn at_a_choice_of_ours(s: &Statement, exps: &[&ExperimentClaims]) -> bool {
    status(s, exps).is_some_and(|(v, _, _)| {
        v.at_a_choice()
            || (matches!(v, Status::Partly | Status::NotReproduced)
                && rows(s, exps)
                    .iter()
                    .any(|(_, r)| r.origin == Origin::Paper && r.at_one_reading()))
    })
}

/// What "at conflicting readings" means, after a tally that counts `k`
/// such statements; nothing where `k` is 0.
pub(crate) fn conflicting_words(k: usize) -> String {
    match k {
        0 => String::new(),
        _ => " (those at conflicting readings: no value of a setting the text leaves open \
              reproduces both them and another of the paper's claims in full)"
            .to_string(),
    }
}

/// The statuses of an inventory's statements audited as stated, split into
/// those no choice of lb's decides and those one does
/// ([`at_a_choice_of_ours`]).
pub(crate) fn split_at_choice(
    inv: &Inventory,
    exps: &[&ExperimentClaims],
) -> (
    std::collections::BTreeMap<Status, usize>,
    std::collections::BTreeMap<Status, usize>,
) {
    let (mut stated, mut chosen) = (
        std::collections::BTreeMap::new(),
        std::collections::BTreeMap::new(),
    );
    for st in inv.statements.iter().filter(|s| s.counted()) {
        if standing(st, exps) == Standing::AsStated
            && let Some((v, _, _)) = status(st, exps)
        {
            let into = if at_a_choice_of_ours(st, exps) {
                &mut chosen
            } else {
                &mut stated
            };
            *into.entry(v).or_insert(0) += 1;
        }
    }
    (stated, chosen)
}

/// Of a tally, how many are reproduced only at conflicting readings.
pub(crate) fn conflicting_of(tally: &std::collections::BTreeMap<Status, usize>) -> usize {
    tally
        .get(&Status::AtConflictingReadings)
        .copied()
        .unwrap_or(0)
}

/// A paper's line against its inventory: "Its inventory lists 40
/// statements: 6 audited as stated, 3 through our stand-ins only, 12 not
/// yet audited, 19 out of reach."; `page` links the inventory page.
pub(crate) fn paper_line(inv: &Inventory, exps: &[&ExperimentClaims], page: &str) -> String {
    let [a, at_choice, s, y, o] = counts(inv, exps);
    let n = a + at_choice + s + y + o;
    let kind = |k: lb_manifest::inventory::StatementKind| {
        inv.statements.iter().filter(|s| s.kind == k).count()
    };
    let defs = kind(lb_manifest::inventory::StatementKind::Definition);
    let steps = kind(lb_manifest::inventory::StatementKind::Step);
    let steps = match steps {
        0 => String::new(),
        1 => ", 1 step of a proof".to_string(),
        k => format!(", {k} steps of its proofs"),
    };
    let cited = inv.statements.iter().filter(|s| s.cited.is_some()).count();
    // Those a choice of lb's decides are audited at that choice, not as
    // stated: counted apart.
    let (tally, chosen) = split_at_choice(inv, exps);
    let by_stand_ins = statuses_words(&statuses(inv, exps, Standing::StandIns));
    let in_part = match in_part_count(inv, exps) {
        0 => String::new(),
        k => format!(
            " ({k} of the {} audited in part: a part of each, which its entry names, no claim \
             tests)",
            a + at_choice
        ),
    };
    let as_stated = match (tally.is_empty(), at_choice) {
        (true, 0) => in_part.clone(),
        (true, _) => String::new(),
        (false, 0) => format!(" ({}){in_part}", in_words(&tally)),
        (false, _) => format!(" ({})", in_words(&tally)),
    };
    let reading = if at_choice == 0 {
        String::new()
    } else {
        format!(
            " {at_choice} audited at a choice of ours ({}{}){in_part},",
            in_words(&chosen),
            conflicting_words(conflicting_of(&chosen))
        )
    };
    let shared = shared_words(a, "audited as stated", &deciding_claims(inv, exps, false))
        + &shared_words(
            at_choice,
            "audited at a choice of ours",
            &deciding_claims(inv, exps, true),
        );
    format!(
        "[Its inventory]({page}#{}) lists {n} statement{} (theorems, lemmas, propositions, \
         corollaries, figure claims, examples, remarks and headline sentences; {defs} \
         definition{}{steps} and {cited} sentence{} reporting other papers' results are listed \
         but not counted): {a} audited as stated{as_stated},{reading} {s} through our \
         stand-ins only{by_stand_ins}, {y} not yet audited (lb could), {o} out of reach (why \
         is in each entry).{shared}",
        slug(inv),
        if n == 1 { "" } else { "s" },
        if defs == 1 { "" } else { "s" },
        if cited == 1 { "" } else { "s" }
    )
}

/// The inventory page: per paper its line, then every statement quoted
/// with where it stands, the setting its text implies, and the verdicts of
/// the claims that audit it (linked to `audit`) or why none does.
pub fn page(inventories: &[Inventory], exps: &[&ExperimentClaims], audit: &str) -> String {
    let mut s = String::from("# What the papers state, and what lb audits\n\n");
    s.push_str(
        "Generated by `lb reproduce` from `experiments/inventory/` and the audit; do not edit \
         by hand. Each paper's inventory lists every statement it makes (theorems, lemmas, \
         propositions, examples, remarks, figure claims, headline sentences, and, listed but \
         not counted, its definitions, the steps of its proofs and its sentences reporting \
         other papers' results), quoted, with the setting its text states or implies. A \
         statement is *audited as stated* when a claim of the paper's own (origin `paper`) \
         decides it and no choice of lb's decides its status; *audited at a choice of ours* \
         when a claim of the paper's own decides it but a choice of lb's that the statement \
         does not make decides its status (a reading of a setting the text leaves open or \
         lost, a slowest rate of approach, lb's stability test), so another choice could turn \
         its word; *through our stand-ins only* when only our operationalisations of it are \
         audited; *not yet* when lb could audit it and does not yet (the entry says how); and \
         *out of reach* otherwise, with the reason.\n\n",
    );
    for inv in inventories {
        let slug = slug(inv);
        let _ = writeln!(s, "<a id=\"{slug}\"></a>\n");
        let _ = writeln!(
            s,
            "## {} — *{}*\n",
            md(&inv.paper.authors),
            md(&inv.paper.title)
        );
        if let Some(h) = &inv.paper.held {
            let _ = writeln!(s, "Held by lb: {}.\n", md(h));
        }
        let _ = writeln!(s, "{}\n", paper_line(inv, exps, ""));
        for st in &inv.statements {
            let standing = standing(st, exps);
            let _ = writeln!(s, "<a id=\"{slug}--{}\"></a>\n", st.id);
            let _ = writeln!(
                s,
                "### {} — {} ({})\n",
                st.id,
                md(&st.at),
                match (st.counted(), standing) {
                    (false, _) if st.cited.is_some() => "another paper's result: not counted",
                    (false, _) if st.kind == lb_manifest::inventory::StatementKind::Step => {
                        "a step of a proof: not counted"
                    }
                    (false, _) => "a definition: not counted",
                    (true, Standing::AsStated) if at_a_choice_of_ours(st, exps) => {
                        "audited at a choice of ours"
                    }
                    (true, Standing::AsStated) if in_part(st, exps) => "audited as stated, in part",
                    (true, Standing::AsStated) => "audited as stated",
                    (true, Standing::StandIns) => "through our stand-ins only",
                    (true, Standing::NotYet) => "not yet audited",
                    (true, Standing::OutOfReach) => "out of reach",
                }
                .to_string()
                    // An audited statement's heading carries its status.
                    + &match (st.counted(), standing, status(st, exps)) {
                        (true, Standing::AsStated | Standing::StandIns, Some((v, _, _)))
                            if !(standing == Standing::AsStated && v == Status::AtOneReading) =>
                        {
                            format!(": {}", v.words())
                        }
                        _ => String::new(),
                    }
            );
            let _ = writeln!(s, "> {}\n", md(&st.quote));
            let _ = writeln!(s, "- Setting: {}", md(&st.setting));
            for (e, r) in rows(st, exps) {
                let v =
                    lb_audit::verdict_words(r.verdict.word(), r.untested.is_some(), r.no_point());
                let whose = if r.origin == Origin::Paper {
                    "the paper's statement"
                } else {
                    "our stand-in"
                };
                let _ = writeln!(
                    s,
                    "- [`{e}/{}`]({audit}#{}) ({whose}): **{v}**; reads {}",
                    r.id,
                    anchor(e, &r.id),
                    md(&r.reads)
                );
            }
            let untested: Vec<String> = st
                .unread
                .iter()
                .cloned()
                .chain(untested_parts(st, exps))
                .collect();
            if !untested.is_empty() {
                let _ = writeln!(
                    s,
                    "- Not tested by its claims: {}",
                    md(&untested.join("; "))
                );
            }
            // Each reason is the entry's own where it gives one; the
            // claims' where the statement's standing rests on them.
            let not_audited = match standing {
                Standing::OutOfReach => unreachable_reason(st, exps, audit),
                _ => st.out_of_reach.clone(),
            };
            if let Some(o) = not_audited {
                let _ = writeln!(s, "- Not audited: {}", md(&o));
            }
            if let Some(x) = &st.exact {
                let _ = writeln!(s, "- Checked exactly: {}", md(&exact_words(x)));
            }
            let could = match standing {
                Standing::NotYet => could_reason(st, exps, audit),
                _ => st.could_audit.clone(),
            };
            if let Some(c) = could {
                let _ = writeln!(s, "- What would audit it: {}", md(&c));
            }
            s.push('\n');
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stand-ins' rows as the report keeps them: §4's imbalance falling with
    /// p̂, reproduced, and the ordering of §4.2's spread whose null with fresh
    /// estimates held too.
    /// A confirmation that discriminates (§4's imbalance stand-in, with its
    /// quote as if the text held the fraction lb restores: see
    /// [`a_restored_fraction_is_a_reading_of_lbs`]) and one whose null held.
    fn rows_kept() -> (ClaimRow, ClaimRow) {
        let mut imbalance = row("led-messages", "imbalance-falls-with-phat");
        imbalance.stands_for = imbalance
            .stands_for
            .map(|t| t.replace("O([1/(]δp[)])", "O(1/(δp))"));
        (imbalance, row("led-herd", "led-spreads"))
    }

    /// §4's stand-in reads "O([1/(]δp[)])" where the held text has "O ( δ
    /// p )": the fraction, which decides the direction it tests, is lb's.
    #[test]
    fn a_restored_fraction_is_a_reading_of_lbs() {
        let imbalance = row("led-messages", "imbalance-falls-with-phat");
        assert_eq!(imbalance.restored(), vec!["policies is O([1/(]δp[)])"]);
        assert_eq!(Status::of(&imbalance), Status::AtOneReading);
        let (kept, _) = rows_kept();
        assert!(kept.restored().is_empty());
        assert_eq!(Status::of(&kept), Status::Reproduced);
    }

    /// The exact check computes each rule's least δ over every estimate
    /// state: L-JSQ meets μ_min/μ_Σ on Fig. 1's two rates, L-Pod(2) meets
    /// 1/N on identical servers only with ties to the lowest index, and
    /// L-JBA is not tilted where every estimate ties.
    #[test]
    fn an_exact_check_says_rule_by_rule_where_the_stated_delta_holds() {
        use lb_manifest::inventory::{Exact, ExactDelta};
        let check = |rules: &[&str], rates: Vec<Vec<f64>>, delta| {
            exact_check(&Exact {
                rules: rules.iter().map(|r| r.to_string()).collect(),
                rates,
                delta,
            })
        };
        let (each, words) = check(
            &["l-jsq"],
            vec![vec![0.2, 0.2, 0.8, 0.8]],
            ExactDelta::MuMinOverSum,
        );
        assert_eq!(
            each,
            vec![("L-JSQ (uniform ties)".to_string(), ExactOutcome::Every)],
            "{words}"
        );
        assert!(
            words.contains("least δ 0.1000, μ_min/μ_Σ = 0.1000, as stated"),
            "{words}"
        );
        let (each, words) = check(
            &["l-pod:2:lowest", "l-pod:2"],
            vec![vec![0.5; 4]],
            ExactDelta::OneOverN,
        );
        assert_eq!(
            each.iter().map(|e| e.1).collect::<Vec<_>>(),
            [ExactOutcome::Every, ExactOutcome::Not],
            "{words}"
        );
        assert!(
            words.contains("below it at estimates (0, 0, 0, 0)"),
            "{words}"
        );
        let (each, words) = check(
            &["l-jba"],
            vec![vec![0.2, 0.2, 0.8, 0.8]],
            ExactDelta::Positive,
        );
        assert_eq!(each[0].1, ExactOutcome::WhereSomeDiffer, "{words}");
        assert!(
            words.contains("where some estimates differ, least δ 0.0111"),
            "{words}"
        );
        // A stated δ above what the rule gives fails (the check can fail).
        // L-JSQ with uniform ties on identical servers: three tied least
        // estimates get a third each, ∆_m1 = 1/12 < 1/N.
        let (each, _) = check(&["l-jsq"], vec![vec![0.5; 4]], ExactDelta::OneOverN);
        assert_eq!(each[0].1, ExactOutcome::Not);
        let (each, _) = check(&["l-jsq"], vec![vec![0.5; 4]], ExactDelta::Positive);
        assert_eq!(each[0].1, ExactOutcome::WhereSomeDiffer);
        let (each, _) = check(&["random"], vec![vec![0.2, 0.8]], ExactDelta::Positive);
        assert_eq!(each[0].1, ExactOutcome::Not);
    }

    /// Claims that tested nothing are named apart from those the statements'
    /// statuses rest on, not counted among them: shipped rows of both kinds.
    #[test]
    fn restatements_rest_only_on_claims_that_tested_something() {
        let held = row("led-theorem1", "theorem1-rare-updates-heterogeneous");
        let idle = row("led-fig2-long", "theorem1-ljsq-push-stable");
        assert!(tested(Status::of(&held), &held) && !tested(Status::of(&idle), &idle));
        let w = shared_words(5, "audited", &[("a", &held), ("b", &idle)]);
        assert!(
            w.contains("the 5 audited rest on 1 claim of the papers (1 "),
            "{w}"
        );
        assert!(
            w.contains("; 1 more of their claims tested nothing")
                && w.ends_with("`theorem1-ljsq-push-stable`."),
            "{w}"
        );
        let w = shared_words(5, "audited", &[("b", &idle)]);
        assert!(
            w.contains("rest on 1 claim of the papers, each of which tested nothing"),
            "{w}"
        );
    }

    /// A claim's row as the report keeps it (`<experiment>/claims.json`).
    fn row(experiment: &str, id: &str) -> ClaimRow {
        let path = format!(
            "{}/../../paper-figures/{experiment}/claims.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let e: ExperimentClaims =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        e.claims.iter().find(|r| r.id == id).unwrap().clone()
    }

    /// Of claims of one status, a statement shows the one with the hardest
    /// evidence: the smallest margin in half-widths, one without a margin
    /// last, the first of equals.
    #[test]
    fn of_one_status_the_hardest_claim_is_shown() {
        let (mut a, _) = rows_kept();
        let mut b = a.clone();
        b.id = "b".into();
        let pick = |a: &ClaimRow, b: &ClaimRow| {
            worst([
                (Status::Reproduced, ("e", a)),
                (Status::Reproduced, ("e", b)),
            ])
            .map(|(_, (_, r))| r.id.clone())
        };
        a.margin_hw = Some(30.0);
        b.margin_hw = Some(4.0);
        assert_eq!(pick(&a, &b).as_deref(), Some("b"));
        b.margin_hw = None;
        assert_eq!(pick(&a, &b), Some(a.id.clone()));
        b.margin_hw = Some(30.0);
        assert_eq!(pick(&a, &b), Some(a.id.clone()));
    }

    /// A null that held where the claim held counts against the statement;
    /// a claim no test could fail does not.
    #[test]
    fn a_null_that_held_lowers_the_statement_and_a_floor_does_not() {
        let (stable, mut ordering) = rows_kept();
        assert_eq!(Status::of(&stable), Status::Reproduced);
        assert_eq!(Status::of(&ordering), Status::DoesNotDiscriminate);
        assert!(ordering.null_holds);
        let rows = [("led-messages", &stable), ("led-herd", &ordering)];
        let (v, _, r) = status_of(&rows).unwrap();
        assert_eq!(
            (v, r.id.as_str()),
            (Status::DoesNotDiscriminate, "led-spreads")
        );
        // The same row, had no test been able to fail it: it neither lifts
        // nor lowers the stability claim's status.
        ordering.null_holds = false;
        let rows = [("led-messages", &stable), ("led-herd", &ordering)];
        assert_eq!(status_of(&rows).unwrap().0, Status::Reproduced);
    }

    /// A confirmation at lb's reading of a setting the text leaves open or
    /// lost is not counted as reproduced: Fig. 2's L-Pod ordering reads a
    /// p̂ whose digits the held text lost, and a map may find it failing at
    /// the other reading of Definition 1.
    #[test]
    fn a_value_the_text_lost_or_left_open_is_a_reading_of_lbs() {
        let (stable, _) = rows_kept();
        let mut lpod = row("led-fig2", "fig2-lpod-beats-ljsq-literal");
        assert_eq!(lpod.verdict, Verdict::Confirmed);
        // As a confirmation that discriminates (its null at p̂ = 1 holds
        // in the records: the rule under test is the reading's).
        lpod.untested = None;
        lpod.null_holds = false;
        lpod.robustness.iter_mut().for_each(|l| l.decides = true);
        assert_eq!(lpod.restored(), vec!["p̂ = 0.[01 and]"]);
        assert_eq!(Status::of(&lpod), Status::AtOneReading);
        // With the digits in the text, the map over count_own still decides.
        lpod.reading = lpod.reading.map(|t| t.replace("0.[01 and]", "0.01 and"));
        assert!(lpod.restored().is_empty());
        assert_eq!(Status::of(&lpod), Status::AtOneReading);
        // With neither, it is reproduced; beside a reproduced claim it sets
        // the statement's status.
        lpod.robustness.retain(|l| !l.decides);
        assert_eq!(Status::of(&lpod), Status::Reproduced);
        let mut lost = lpod.clone();
        lost.reading = lost.reading.map(|t| t.replace("0.01 and", "0.[01 and]"));
        let rows = [("led-messages", &stable), ("led-fig2", &lost)];
        assert_eq!(status_of(&rows).unwrap().0, Status::AtOneReading);
    }

    /// A limit its rate decides at a slowest rate of ours holds at that
    /// threshold, not "reproduced": Theorem 2's limit for L-JSQ-Push.
    #[test]
    fn a_limit_decided_at_a_rate_of_ours_is_counted_apart() {
        let mut limit = row("led-heavy-traffic", "ht-led-limit");
        assert!(limit.threshold_ours.is_some());
        assert_eq!(Status::of(&limit), Status::AtRateOurs);
        assert_eq!(
            Status::AtRateOurs.words_for(16),
            "hold at a rate threshold of ours"
        );
        limit.threshold_ours = None;
        assert_eq!(Status::of(&limit), Status::Reproduced);
    }

    /// A statement whose status a choice of lb's decides (a rate threshold,
    /// the stability test, a reading) is counted at a choice of ours, not
    /// as stated; without that choice, as stated.
    #[test]
    fn a_status_a_choice_of_ours_decides_is_counted_apart_from_as_stated() {
        let inv: Inventory = serde_json::from_value(serde_json::json!({
            "paper": { "authors": "A", "title": "T" },
            "statement": [{
                "id": "t2", "kind": "theorem", "where": "§3, Theorem 2", "quote": "q",
                "setting": "s", "claims": ["led-heavy-traffic/ht-led-limit"],
            }],
        }))
        .unwrap();
        let exps = |r: ClaimRow| ExperimentClaims {
            experiment: "led-heavy-traffic".into(),
            title: "t".into(),
            claims: vec![r],
        };
        let limit = row("led-heavy-traffic", "ht-led-limit");
        assert_eq!(Status::of(&limit), Status::AtRateOurs);
        let e = exps(limit.clone());
        assert_eq!(counts(&inv, &[&e]), [0, 1, 0, 0, 0]);
        assert!(paper_line(&inv, &[&e], "i.md").contains(
            "0 audited as stated, 1 audited at a choice of ours (1 holds at a rate threshold of ours)"
        ));
        for v in [
            Status::AtRateOurs,
            Status::ByStabilityTest,
            Status::AtOneReading,
            Status::AtConflictingReadings,
        ] {
            assert!(v.at_a_choice(), "{v:?}");
        }
        assert!(!Status::Reproduced.at_a_choice() && !Status::Partly.at_a_choice());
        let mut stated = limit;
        stated.threshold_ours = None;
        let e = exps(stated.clone());
        assert_eq!(counts(&inv, &[&e]), [1, 0, 0, 0, 0]);
        // Failing in part where a map finds it holding at another value: the
        // points where it fails are lb's reading's, a choice of ours.
        let mut partly = stated;
        partly.verdict = lb_audit::Verdict::Partly;
        partly.except = vec!["load=0.99: −5.45 ± 1.2".into()];
        assert_eq!(Status::of(&partly), Status::Partly);
        assert_eq!(counts(&inv, &[&exps(partly.clone())]), [1, 0, 0, 0, 0]);
        partly.robustness = vec![lb_audit::MapLine {
            map: "budget".into(),
            summary: "the claim holds if and only if budget = 4 messages per arrival".into(),
            decides: true,
            needs: Vec::new(),
            in_part: None,
            inconclusive: 0,
            holds: 1,
            refuted: 0,
            combinations: 2,
        }];
        assert!(partly.at_one_reading());
        assert_eq!(counts(&inv, &[&exps(partly)]), [0, 1, 0, 0, 0]);
    }
}
