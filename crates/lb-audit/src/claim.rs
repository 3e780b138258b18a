//! Auditing a claim: the dispatcher that reads a claim's points by its kind
//! (one `match` on its [`lb_manifest::claim::Check`], an arm per kind, each
//! handing its own keys to its module: [`super::ordering`], [`super::value`],
//! [`super::trend`], [`super::limit`], [`super::stability`]), the verdict of
//! the claim from the verdicts of its points, the checks of its `why` (each
//! audited as a claim of its own), and the points it lacks.

use super::check::{ClaimResult, PointCheck, Uninformative, Verdict, Why};
use super::points::{Scope, selected};
use super::rule::rule;
use super::{limit, ordering, sharpness, stability, trend, value};
use lb_analysis::metric::Metric;
use lb_analysis::results::PointResult;
use lb_manifest::claim::{Check as ClaimCheck, Claim, Origin, StandsFor};
use lb_manifest::outputs::where_matches;
use lb_model::settle::Settling;

/// Audits one claim against the results of its experiment.
pub fn audit_claim(experiment: &str, c: &Claim, results: &[PointResult]) -> ClaimResult {
    audit_shifted(experiment, c, results, 0.0)
}

/// Audits a claim with its threshold moved by `shift` (in the metric's
/// unit) in the direction that makes it harder to hold: the audit's mutants
/// ([`super::mutants`]); 0 for the audit itself.
pub(super) fn audit_shifted(
    experiment: &str,
    c: &Claim,
    results: &[PointResult],
    shift: f64,
) -> ClaimResult {
    let level = c.level;
    let m = |name: &str| Metric::validated(lb_analysis::results::model(results), name);
    let metric = c.check.metric().map(m);
    let f = &c.filter;
    let scope = |name: &str| Scope {
        filter: f,
        metric: m(name),
        results,
        level,
        shift,
    };
    let mut checks = match &c.check {
        ClaimCheck::Ordering(k) => ordering::checks(k, scope(&k.metric)),
        ClaimCheck::Value(k) => value::value_checks(k, scope(&k.metric)),
        ClaimCheck::Stability(k) => stability::checks(k, f, results),
        ClaimCheck::Bound(k) => value::bound_checks(k, scope(&k.metric)),
        ClaimCheck::Trend(k) => trend::checks(k, scope(&k.metric)),
        ClaimCheck::Limit(k) => limit::checks(k, scope(&k.metric)),
    };
    // A steady-state reading decides only on points that have settled; a
    // stability claim and a transient metric (a growth rate, a level at the
    // end) are about what did not settle.
    let steady = match &c.check {
        ClaimCheck::Stability(_) => false,
        _ => metric.is_some_and(|m| !m.transient()),
    };
    if steady {
        settle(&mut checks, results);
    }
    let inside = c
        .hypothesis
        .as_deref()
        .map(|h| outside_hypothesis(h, &mut checks, results));
    // Where an ordering states its overhead as a bound on the messages
    // measured ("the same (or even smaller) amount"), that bound decides
    // (`overhead_ratio`), not the calibration: a policy that sends fewer
    // than its budget is within it.
    let measured = matches!(&c.check, ClaimCheck::Ordering(o) if o.overhead_ratio.is_some());
    if c.origin != Origin::Check && !measured && names_overhead(c) {
        unmet_budget(&mut checks, results);
    }
    // The nulls are the audit's, as the foil: the mutants move the claim's
    // own threshold.
    let nulls: Vec<ClaimResult> = c
        .nulls()
        .iter()
        .map(|n| audit_claim(experiment, n, results))
        .collect();
    // The foil, audited as a claim of its own (the audit's, not the
    // mutants': they move the claim's own threshold), is read point by point
    // where its points meet the claim's: a foil that changes the policy at
    // the claim's points, and one that changes a setting (an axis its `where`
    // pins elsewhere), matched on the other axes. Elsewhere (a foil at other
    // points) it is read as a whole.
    let foil_claim = (shift == 0.0).then(|| c.foil_claim()).flatten();
    let mut foil = foil_claim
        .as_ref()
        .map(|f| Box::new(audit_claim(experiment, f, results)));
    // An axis the foil's `where` pins is a setting it changes only where
    // none of its values there is one the claim reads; a foil that narrows
    // an axis to some of the claim's values (a policy foil read at the
    // largest N) is read at those points only.
    let setting: Vec<String> = match (&foil_claim, &foil) {
        (Some(fc), Some(f)) => super::check::moved_axes(&checks, &f.checks, &changed_axes(c, fc)),
        _ => Vec::new(),
    };
    let foil_by_point = foil.as_ref().is_some_and(|f| {
        f.checks
            .iter()
            .any(|x| checks.iter().any(|k| same_at(x, k, &setting)))
    });
    let (matched, null_held, pending, read_beside) = {
        let mut by_point: Vec<(&ClaimResult, &[String])> =
            nulls.iter().map(|n| (n, &[][..])).collect();
        if let Some(f) = foil.as_deref().filter(|_| foil_by_point) {
            by_point.push((f, &setting[..]));
        }
        if let Some(m) = metric {
            forced(c, m, &mut checks, results, &by_point);
        }
        let (marked, null_held) = discriminates(&mut checks, &by_point, &|x: &PointCheck| {
            exact_fails(c, x, results)
        });
        (
            marked > 0,
            null_held > 0,
            marked > null_held,
            !by_point.is_empty(),
        )
    };
    let (verdict, except) = overall(&checks, c.origin);
    let informative = (
        checks.iter().filter(|k| k.uninformative.is_none()).count(),
        checks.len(),
    );
    let rule = rule(&c.check, metric);
    // A foil point undecided on its runs that fails the claim on its exact
    // value says so: the claim counts it as failing there.
    for x in foil.iter_mut().flat_map(|f| f.checks.iter_mut()) {
        if x.verdict == Verdict::Inconclusive && exact_fails(c, x, results) {
            let n = x.note.get_or_insert_with(String::new);
            if !n.is_empty() {
                n.push_str("; ");
            }
            n.push_str(EXACT_FAILS);
            x.exact_fails = true;
        }
    }
    let held = matches!(verdict, Verdict::Confirmed | Verdict::Partly);
    let formula = held.then(|| accounting(c, &checks, results)).flatten();
    // An exact formula that decides the claim holds "too", as a null would:
    // the claim does not discriminate (not "no point could decide it").
    let matched = matched || formula.is_some();
    // Where the claim held and a null or its foil held too, the effect is
    // there without what the claim credits: evidence against the credit,
    // unlike a point no test could fail (a floor, an exact formula). A bound
    // a null meets too is not specific to what it credits, but no effect
    // was shown without it either: it counts for nothing.
    let bound = matches!(c.check, ClaimCheck::Bound(_));
    let null_holds = null_held && formula.is_none() && held && !bound;
    let untested = formula.or_else(|| {
        held.then(|| undiscriminating(c, &checks, foil.as_deref(), foil_by_point, read_beside))
            .flatten()
    });
    let deciding = ClaimResult::deciding_of(&checks);
    let margin = deciding.and_then(|d| sharpness::margin_words(d, verdict));
    // Undecided where no point informs: what would decide it is a point
    // that does, not more of these.
    let to_decide = (verdict == Verdict::Inconclusive)
        .then(|| {
            none_informative(&checks)
                .map(|w| format!("a point that could inform it ({w})"))
                .or_else(|| deciding.map(sharpness::to_decide))
        })
        .flatten();
    // What the report prints of the audit itself; a mutant reads no words.
    let as_run = if shift == 0.0 {
        as_run(&checks, results, &c.check.labels())
    } else {
        Vec::new()
    };
    ClaimResult {
        experiment: experiment.to_string(),
        id: c.id.clone(),
        statement: lb_analysis::prose::expanded(&c.statement, results),
        source: c.source.clone(),
        kind: c.check.kind(),
        required: c.required,
        origin: c.origin,
        paper: c.paper.clone(),
        stands_for: c.stands_for.as_ref().map(|s| match s {
            StandsFor::Claim(id) => id.clone(),
            StandsFor::Quote(q) => q.clone(),
        }),
        reading: c.reading.clone(),
        level,
        stated_level: c.stated_level,
        decide_at: c.decide_at,
        verdict,
        untested,
        foil,
        nulls,
        margin,
        except,
        informative,
        matched,
        null_holds,
        pending,
        inside,
        to_decide,
        threshold_ours: threshold_ours(c),
        controlled: c.check.control().is_some(),
        metric: metric.map(|m| m.name().to_string()),
        metric_label: metric.map(|m| m.label().to_string()),
        rule,
        checks,
        why: c
            .why
            .as_deref()
            .map(|w| lb_analysis::prose::expanded(w, results)),
        why_checks: why_checks(experiment, c, results),
        missing: gaps(c, results),
        as_run,
    }
}

/// A limit whose verdict its rate can decide (by its rate alone, with
/// `rate_decides`, or as a limit not approached) at a slowest rate of ours:
/// the rate and our reason, which a statement it decides carries.
fn threshold_ours(c: &Claim) -> Option<String> {
    let ClaimCheck::Limit(l) = &c.check else {
        return None;
    };
    let (Some(rate), Some(source)) = (l.min_rate, &l.rate_from) else {
        return None;
    };
    (source.ours() && (l.rate_decides || !l.approaches)).then(|| {
        format!(
            "a slowest rate of approach of ours, {rate} ({})",
            source.words()
        )
    })
}

/// Why a confirmed claim does not discriminate, if it does not: no setting
/// could fail it (`no_foil`); its bound or metric tests nothing
/// ([`sharpness::untested`]); its foil holds too or is undecided; or, a
/// paper's statement or a stand-in, it names neither a foil nor a credit
/// whose nulls could fail it. A foil refuted, or of no practical difference
/// (the ordering absent there), is the property failing where it should.
///
/// A metric identically 0, or a bound far looser than the data, tests
/// nothing where nothing just outside what the claim credits fails it; with
/// nulls or a foil read point by point (`read_beside`), each informative
/// point is one where every one of them failed, so the bound was tested.
fn undiscriminating(
    c: &Claim,
    checks: &[PointCheck],
    foil: Option<&ClaimResult>,
    foil_by_point: bool,
    read_beside: bool,
) -> Option<String> {
    if let Some(n) = &c.no_foil {
        return Some(format!("no setting could fail it: {n}"));
    }
    if let Some(why) = none_informative(checks) {
        return Some(why);
    }
    if !read_beside && let Some(u) = sharpness::untested(&c.check, checks) {
        return Some(u);
    }
    match foil {
        // A foil whose points meet the claim's was read point by point
        // ([`discriminates`]).
        Some(_) if foil_by_point => None,
        Some(f) => match f.verdict {
            Verdict::Refuted | Verdict::NoPracticalDifference => None,
            Verdict::Confirmed | Verdict::Partly => {
                Some(format!("its foil holds too: {}", f.statement))
            }
            Verdict::Inconclusive => Some(format!("its foil is undecided: {}", f.statement)),
        },
        // Nulls (`credits`) are what could fail it: read point by point,
        // they leave informative only the points where each failed.
        None if c.credits.is_some() => None,
        None => match c.origin {
            Origin::Paper | Origin::StandIn => Some("it names no foil".into()),
            Origin::Check | Origin::Ours => None,
        },
    }
}

/// "none of its n points is informative: …", with each reason and the
/// points it holds at, where no point of `checks` informs; None otherwise.
fn none_informative(checks: &[PointCheck]) -> Option<String> {
    if !checks.is_empty() && checks.iter().all(|k| k.uninformative.is_some()) {
        // The reasons, each with the settings it holds at and how many of
        // the checks (a policy at a setting: the unit of "its n points").
        let mut reasons: Vec<(String, Vec<String>, usize)> = Vec::new();
        for k in checks {
            let Some(u) = &k.uninformative else { continue };
            let kind = u.group().to_string();
            let at = super::describe::at_words(k);
            match reasons.iter_mut().find(|r| r.0 == kind) {
                Some(r) => {
                    r.2 += 1;
                    if !r.1.contains(&at) {
                        r.1.push(at);
                    }
                }
                None => reasons.push((kind, vec![at], 1)),
            }
        }
        return Some(format!(
            "none of its {} points is informative: {}",
            checks.len(),
            reasons
                .iter()
                // A few points named; more counted, in the unit of the
                // sentence's n.
                .map(|(w, at, n)| match at.len() {
                    1..=3 if at.len() == *n => format!("{w} at {}", at.join("; ")),
                    _ => format!("{w} ({n} points)"),
                })
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    None
}

/// The points a check read (by their keys).
fn read_by<'a>(k: &PointCheck, results: &'a [PointResult]) -> Vec<&'a PointResult> {
    results
        .iter()
        .filter(|r| {
            r.key
                .as_ref()
                .is_some_and(|key| k.keys.contains(&key.hex()))
        })
        .collect()
}

/// The points a check read at its own axis values (a limit's point nearest
/// the limit, not the neighbours that give its rate).
fn own_points<'a>(k: &PointCheck, results: &'a [PointResult]) -> Vec<&'a PointResult> {
    read_by(k, results)
        .into_iter()
        .filter(|r| {
            r.axes.len() == k.axes.len()
                && r.axes
                    .iter()
                    .zip(&k.axes)
                    .all(|(a, b)| a.1 == b.1 || b.1 == "-")
        })
        .collect()
}

/// Whether a claim's words name a message overhead its policies are at: its
/// statement, its reading or the sentence it stands for speaks of
/// "overhead". A claim that names none (a stale policy against its fresh
/// counterpart) reads a Pull whose budget is out of reach as what it runs,
/// a Pull at p̂ = 1.
fn names_overhead(c: &Claim) -> bool {
    let quote = match &c.stands_for {
        Some(StandsFor::Quote(q)) => q.as_str(),
        _ => "",
    };
    [
        c.statement.as_str(),
        c.reading.as_deref().unwrap_or(""),
        quote,
    ]
    .iter()
    .any(|t| t.contains("overhead"))
}

/// Marks the checks that read a policy calibrated to a message budget its
/// calibration did not meet: even p̂ = 1 sends fewer messages per arrival
/// than the budget, or even p̂ = 0 sends more. The policy run there is not
/// the one the statement names (a policy at that overhead), so the point
/// decides nothing, as a point outside a theorem's hypothesis
/// (docs/AUDITING.md, "Uninformative points").
fn unmet_budget(checks: &mut [PointCheck], results: &[PointResult]) {
    for k in checks.iter_mut().filter(|k| k.uninformative.is_none()) {
        let why = read_by(k, results).into_iter().find_map(|r| {
            let (c, edge, side) = unmet(r)?;
            Some(format!(
                "not at the overhead its statement names: {} at {} was calibrated to {} \
                 messages per arrival, and even p̂ = {edge} sends {side} ({})",
                r.label,
                at_point(r),
                super::words::num(c.target, 3),
                super::words::num(c.achieved, 3)
            ))
        });
        if let Some(w) = why {
            k.uninformative = Some(Uninformative::new(Why::Unbuilt, w));
        }
    }
}

/// A point's calibration where it could not meet its budget, with the p̂ at
/// the edge it stopped at and on which side of the budget it stayed.
fn unmet(
    r: &PointResult,
) -> Option<(
    &lb_model::slotted::calibrate::CalibrationResult,
    &'static str,
    &'static str,
)> {
    use lb_model::slotted::calibrate::CalibrationStatus as S;
    let c = r.calibration.as_ref()?;
    match c.status {
        S::OutOfReach => Some((c, "1", "fewer")),
        S::AboveAtZero => Some((c, "0", "more")),
        S::Met | S::Closest => None,
    }
}

/// Whether point check `k` reads a policy calibrated to a message budget its
/// calibration could not meet ([`unmet_budget`]).
pub(crate) fn reads_unmet_budget(k: &PointCheck, results: &[PointResult]) -> bool {
    read_by(k, results).into_iter().any(|r| unmet(r).is_some())
}

/// A point's axis values in words: "load = 0.3, servers = 100".
fn at_point(r: &PointResult) -> String {
    r.axes
        .iter()
        .map(|(n, v)| format!("{n} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Marks the checks whose point lies outside the theorem's hypothesis `h`
/// ([`lb_model::config::PointConfig::hypothesis`]): they decide nothing. A
/// check's point is the one at its own axis values (a limit's point nearest
/// the limit, whose neighbours only give the rate); a limit decided by its
/// rate reads every point of its tail, so each must lie inside. Returns how
/// many checks lie inside, of how many.
fn outside_hypothesis(
    h: &str,
    checks: &mut [PointCheck],
    results: &[PointResult],
) -> (usize, usize) {
    let mut inside = 0;
    for k in checks.iter_mut() {
        let own = own_points(k, results);
        let at = if own.is_empty() || k.by_rate() {
            read_by(k, results)
        } else {
            own
        };
        let why = at
            .iter()
            .filter_map(|r| {
                let p = r.point.as_ref()?;
                match p.config.hypothesis(h) {
                    Ok(None) => None,
                    Ok(Some(w)) => Some(format!("{} at {}: {w}", r.label, at_point(r))),
                    Err(e) => Some(e),
                }
            })
            .next();
        match why {
            Some(w) => {
                if k.uninformative.is_none() {
                    k.uninformative = Some(Uninformative::new(Why::Outside, w));
                }
            }
            None => inside += 1,
        }
    }
    (inside, checks.len())
}

/// Marks the checks of a paper's statement or a stand-in whose points
/// cannot inform it (docs/AUDITING.md, "Uninformative points"): where the
/// metric is 0 in every replication of every side (a probability too small
/// to observe, a quantity the configuration holds at 0: nothing varies for
/// the claim to read), unless a null or the foil (`others`, each with the
/// axes it changes) is not 0 at that point, so the setting does not force
/// the 0 and the 0 is the effect the claim credits; and where it is an
/// exact formula of the model at that point
/// ([`lb_model::config::PointConfig::exact_value`]: the claim then restates
/// the formula, which lb's required checks hold the engine to). Orderings
/// have their own rules (the floor, a negligible difference), and a
/// stability claim counts replications.
fn forced(
    c: &Claim,
    m: Metric,
    checks: &mut [PointCheck],
    results: &[PointResult],
    others: &[(&ClaimResult, &[String])],
) {
    if !matches!(c.origin, Origin::Paper | Origin::StandIn)
        || matches!(c.check, ClaimCheck::Ordering(_) | ClaimCheck::Stability(_))
    {
        return;
    }
    let model = lb_analysis::results::model(results);
    // Checks that any subject on the metric's floor meets: an upper bound
    // (above the floor), and a limit to a number a floor may equal (a
    // probability tending to 0).
    let upper = match &c.check {
        ClaimCheck::Bound(b) => b.side == lb_manifest::claim::Side::Le,
        ClaimCheck::Limit(l) => {
            l.approaches && matches!(l.expected, lb_manifest::outputs::Reference::Number(0.0))
        }
        _ => false,
    };
    for k in checks.iter_mut().filter(|k| k.uninformative.is_none()) {
        let own = own_points(k, results);
        let at = if own.is_empty() {
            read_by(k, results)
        } else {
            own
        };
        if at.is_empty() {
            continue;
        }
        // An upper bound, or a limit to 0, where the subject sits on the
        // metric's floor is met there by any policy that does: a floor tests
        // nothing. (A limit's own point, nearest the limit.) A point that
        // fails the claim is informative wherever it lies: the band about the
        // floor may be wider than the bound's slack above it.
        if upper
            && k.verdict != Verdict::Refuted
            && let Some(why) = super::points::at_floor(m, &at, c.level)
        {
            k.uninformative = Some(Uninformative::new(
                Why::Floor,
                format!(
                    "at the metric's floor, where any policy that reaches it meets the claim: \
                     {why}"
                ),
            ));
            continue;
        }
        let zero = |at: &[&PointResult]| {
            at.iter().all(|r| {
                r.point.as_ref().is_some_and(|p| {
                    let xs = super::points::values(m, p, &r.summaries);
                    !xs.is_empty() && xs.iter().all(|(_, x)| *x == 0.0)
                })
            })
        };
        let varies_beside = || {
            others.iter().any(|(n, setting)| {
                n.metric.as_deref() == Some(m.name())
                    && n.checks.iter().filter(|x| same_at(x, k, setting)).any(|x| {
                        let theirs = own_points(x, results);
                        !theirs.is_empty() && !zero(&theirs)
                    })
            })
        };
        if zero(&at) && !varies_beside() {
            k.uninformative = Some(Uninformative::new(
                Why::Zero,
                format!(
                    "identically 0 in every replication ({}): nothing varies here for the claim \
                     to read",
                    at.iter()
                        .map(|r| r.label.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
            continue;
        }
        // Exact at every point it reads (the name of the last, in words).
        let exact: Option<Vec<&str>> = at
            .iter()
            .map(|r| exact_at(r, m.name(), model).map(|(n, _)| n))
            .collect();
        if let Some(name) = exact.and_then(|n| n.last().copied()) {
            k.uninformative = Some(Uninformative::new(
                Why::Exact,
                format!(
                    "an exact formula here (`{name}`, which lb's required checks hold the \
                     engine to): the claim restates it"
                ),
            ));
            continue;
        }
        // Every point the check reads: a limit decided by its rate reads its
        // tail, whose steps could show what the last point does not.
        if let Some(words) = at_mean_state(m, &read_by(k, results), c.level) {
            k.uninformative = Some(Uninformative::new(Why::Arithmetic, words));
        }
    }
}

/// Where the metric at every point of `at` is, within its interval at
/// `level`, the sampling arithmetic at each run's mean state
/// ([`lb_model::config::PointConfig::at_mean_state`]): the reason, in words.
/// The value then follows from the mean state, which flow balance fixes, and
/// the policy's parameters; the fluctuations a theorem bounds left no mark
/// the runs could measure (docs/AUDITING.md, "Uninformative points").
fn at_mean_state(m: Metric, at: &[&PointResult], level: f64) -> Option<String> {
    let mut shown = Vec::new();
    for r in at {
        let p = r.point.as_ref()?;
        // The arithmetic first: most metrics and models have none.
        let arithmetic: Option<Vec<f64>> = r
            .summaries
            .iter()
            .map(|s| p.config.at_mean_state(m.name(), s))
            .collect();
        let arithmetic = arithmetic?;
        let xs: Vec<f64> = super::points::values(m, p, &r.summaries)
            .into_iter()
            .map(|(_, v)| v)
            .collect();
        if xs.len() < 2 || xs.len() != arithmetic.len() {
            return None;
        }
        let (mean, hw) = super::points::stats(&xs, r.first_stage, level);
        let hw = hw.filter(|h| h.is_finite())?;
        let a = arithmetic.iter().sum::<f64>() / arithmetic.len() as f64;
        if (mean - a).abs() > hw {
            return None;
        }
        shown.push(format!(
            "{} {} ± {} against {}",
            r.label,
            super::words::num(mean, 3),
            super::words::num(hw, 2),
            super::words::num(a, 3)
        ));
    }
    (!shown.is_empty()).then(|| {
        format!(
            "the sampling arithmetic at its mean state: the value is, within its interval, what \
             the policy's samples give at each run's mean occupancy, which flow balance fixes \
             ({}), so the point shows d's and λ's arithmetic, not the fluctuations about the \
             mean",
            shown.join("; ")
        )
    })
}

/// Why a claim is an accounting consequence of an exact formula, if it is:
/// at every point it reads, the quantity it is about is a named exact value
/// of the model ([`lb_model::config::PointConfig::exact_value`]): for a
/// claim of stability, E\[ΣQ\], finite (`wr_sum_q` under state-independent
/// routing); for a value, bound or trend, its metric (`messages_exact` for
/// the messages per arrival). lb's required checks hold the engine to these
/// formulas, so such a claim tests nothing they do not.
fn accounting(c: &Claim, checks: &[PointCheck], results: &[PointResult]) -> Option<String> {
    // lb's own checks are the tests of the formulas.
    if !matches!(c.origin, Origin::Paper | Origin::StandIn) {
        return None;
    }
    // The quantity it is about, and how the sentence names it.
    let (metric, named) = match &c.check {
        ClaimCheck::Stability(s) if s.stable => ("mean_sum_q", "E[ΣQ] (finite: hence stability)"),
        ClaimCheck::Stability(_) | ClaimCheck::Ordering(_) | ClaimCheck::Limit(_) => {
            return None;
        }
        ClaimCheck::Value(_) | ClaimCheck::Bound(_) | ClaimCheck::Trend(_) => {
            let m = c.check.metric()?;
            (m, m)
        }
    };
    if checks.is_empty() {
        return None;
    }
    let model = lb_analysis::results::model(results);
    let mut names: Vec<&str> = Vec::new();
    for k in checks {
        let read = read_by(k, results);
        if read.is_empty() {
            return None;
        }
        for r in read {
            let (name, v) = exact_at(r, metric, model)?;
            if v < 0.0 {
                return None;
            }
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    Some(format!(
        "an accounting consequence of an exact formula: at every point read the {} of its \
         policies is the exact `{}`, which lb's required checks hold the engine to, so the \
         claim follows from it and tests nothing more",
        named,
        names.join("`, `")
    ))
}

/// The exact formula of `metric` at the point of `r`, if the model has one
/// there ([`lb_model::config::PointConfig::exact_value`]): its name and
/// value, finite.
fn exact_at(r: &PointResult, metric: &str, model: lb_model::Model) -> Option<(&'static str, f64)> {
    let p = r.point.as_ref()?;
    model.references().iter().find_map(|&n| {
        p.config
            .exact_value(metric, n)
            .filter(|v| v.is_finite())
            .map(|v| (n, v))
    })
}

/// The note of a foil's point undecided on its runs that fails the claim on
/// its exact value ([`exact_fails`]).
pub const EXACT_FAILS: &str = "undecided on its runs, it fails the claim on its exact \
     value, a formula of the model that lb's required checks hold the engine to";

/// Whether a null's or foil's check `x`, whose runs have not settled, fails
/// the claim's check on an exact value: the metric at its own point is a
/// named exact formula of the model ([`lb_model::config::PointConfig::exact_value`],
/// such as `wr_sum_q` for weighted random, which lb's required checks hold
/// the engine to) lying outside the claim's tolerance around its expected
/// value. For value and limit claims only; false elsewhere.
fn exact_fails(c: &Claim, x: &PointCheck, results: &[PointResult]) -> bool {
    let (metric, expected, tolerance) = match &c.check {
        ClaimCheck::Value(v) => (&v.metric, &v.expected, &v.tolerance),
        ClaimCheck::Limit(l) => (&l.metric, &l.expected, &l.tolerance),
        _ => return false,
    };
    let model = lb_analysis::results::model(results);
    own_points(x, results).into_iter().any(|r| {
        let Some((_, v)) = exact_at(r, metric, model) else {
            return false;
        };
        let e = match expected {
            lb_manifest::outputs::Reference::Number(e) => *e,
            lb_manifest::outputs::Reference::Named(n) => match r.reference(n, metric, 0) {
                Ok(e) => e,
                Err(_) => return false,
            },
        };
        (v - e).abs() > tolerance.around(e)
    })
}

/// The axes a foil's `where` pins to other values than the claim's: the
/// setting it changes.
fn changed_axes(c: &Claim, f: &Claim) -> Vec<String> {
    f.filter
        .iter()
        .filter(|(a, v)| c.filter.get(*a) != Some(*v))
        .map(|(a, _)| a.clone())
        .collect()
}

/// Whether two checks sit at the same point, the axes in `skip` aside (an
/// axis that does not apply to one of them, "-", matches any value).
pub fn same_at(x: &PointCheck, k: &PointCheck, skip: &[String]) -> bool {
    x.axes.len() == k.axes.len()
        && x.axes
            .iter()
            .zip(&k.axes)
            .all(|(a, b)| skip.contains(&a.0) || a.1 == b.1 || a.1 == "-" || b.1 == "-")
}

/// Marks the points where the claim holds and a null (or a foil that
/// changes the policy) holds too, is undecided, or has no point there:
/// they do not discriminate (docs/AUDITING.md, "Nulls"). A point where the
/// claim fails is informative whatever its nulls do. Returns how many points
/// it marked, and at how many of those a null or the foil held too.
fn discriminates(
    checks: &mut [PointCheck],
    nulls: &[(&ClaimResult, &[String])],
    exact_fails: &dyn Fn(&PointCheck) -> bool,
) -> (usize, usize) {
    let mut marked = 0;
    let mut null_held = 0;
    for k in checks.iter_mut() {
        if k.verdict != Verdict::Confirmed || k.uninformative.is_some() {
            continue;
        }
        // Every null's reason, the strongest said: one that holds here too
        // before one undecided, before one with no point here.
        let mut best: Option<(u8, String)> = None;
        for (n, setting) in nulls {
            let label = match n.id.rsplit_once("/null-") {
                // The nulls named after the claim's own policies.
                Some((_, "fresh")) => "null with fresh estimates".to_string(),
                Some((_, "frozen")) => "null frozen at the largest N".to_string(),
                Some((_, "below")) => "null just below the threshold".to_string(),
                Some((_, "p-hat-1")) => "null at p̂ = 1".to_string(),
                Some((_, l)) => format!("null {l}"),
                None => "foil".to_string(),
            };
            let at = |x: &PointCheck| same_at(x, k, setting);
            // A null that takes away part of what the claim credits and
            // changes the better policy — the degree of a delay
            // (heavily-delayed information, against p̂ = 1) — holding too
            // says nothing against it where its effect lies wholly below
            // the claim's: the part it takes away is what makes the
            // difference. One that changes only the worse policy (the herd
            // of dispatchers agreeing on a tie) is read by sign.
            let degree = lb_manifest::claim::Credit::null_read_by_size(&n.id);
            let smaller = |x: &PointCheck| {
                x.measured + x.half_width.unwrap_or(0.0) < k.measured - k.half_width.unwrap_or(0.0)
            };
            let why = match n.checks.iter().find(|x| at(x)) {
                None => Some((0, format!("its {label} has no point here"))),
                Some(x) => match x.verdict {
                    Verdict::Confirmed if degree && smaller(x) => None,
                    // Its difference lies within the band in which an
                    // ordering shows no effect a figure could show: without
                    // what the claim credits the effect is gone, so it fails.
                    Verdict::Confirmed
                        if x.uninformative
                            .as_ref()
                            .is_some_and(|u| u.why == super::check::Why::Negligible) =>
                    {
                        None
                    }
                    Verdict::Confirmed => Some((
                        2,
                        format!("its {label} holds here too ({})", super::describe::short(x)),
                    )),
                    // Unsettled, but its value is an exact formula that fails
                    // the claim's check: it fails here.
                    Verdict::Inconclusive if x.unsettled.is_some() && exact_fails(x) => None,
                    Verdict::Inconclusive => Some((1, format!("its {label} is undecided here"))),
                    // "No practical difference" within a band that holds the
                    // claim's own effect here: by that yardstick the subject
                    // shows no effect either, so the two are not told apart.
                    Verdict::NoPracticalDifference => band_holds(x, k).map(|(e, s)| {
                        (
                            1,
                            format!(
                                "its {label}'s band of no practical difference (±{}) holds the \
                                 effect here ({}) too",
                                super::words::num(e, 2),
                                super::words::num(s, 3)
                            ),
                        )
                    }),
                    Verdict::Refuted | Verdict::Partly => None,
                },
            };
            if let Some((rank, w)) = why
                && best.as_ref().is_none_or(|(r, _)| rank > *r)
            {
                best = Some((rank, w));
            }
        }
        if let Some((rank, w)) = best {
            // The foil or a null held too, was undecided or was not run
            // here: the point does not discriminate (rather than lying at a
            // floor or outside a hypothesis).
            marked += 1;
            null_held += usize::from(rank == 2);
            k.uninformative = Some(Uninformative::new(Why::NotDiscriminating, w));
        }
    }
    (marked, null_held)
}

/// The band of a check `x` found of no practical difference, and the
/// claim's effect at `k`, where the band holds that effect (|effect| ≤ band).
fn band_holds(x: &PointCheck, k: &PointCheck) -> Option<(f64, f64)> {
    use super::check::Decision;
    let Some(Decision::Above { equivalence: e, .. }) = x.decision else {
        return None;
    };
    let Some(Decision::Above { estimate: s, .. }) = k.decision else {
        return None;
    };
    (e > 0.0 && s.abs() <= e).then_some((e, s))
}

/// A claim's verdict from its informative points' (all of them where none
/// is informative), and for a paper's statement the points where it fails
/// while holding at most of its range:
///
/// - refuted if one is (a paper's statement: if it fails at as many
///   informative points as it holds at or more; where it holds at most, it
///   is [`Verdict::Partly`], its failures named with their effect sizes);
/// - confirmed if all are; no practical difference if every point is that
///   or confirmed; inconclusive otherwise (and with no point).
fn overall(checks: &[PointCheck], origin: Origin) -> (Verdict, Vec<String>) {
    let informative: Vec<PointCheck> = checks
        .iter()
        .filter(|k| k.uninformative.is_none())
        .cloned()
        .collect();
    let read = if informative.is_empty() {
        checks
    } else {
        &informative[..]
    };
    let v = strict(read);
    if v != Verdict::Refuted || origin != Origin::Paper {
        return (v, Vec::new());
    }
    let failed: Vec<&PointCheck> = read
        .iter()
        .filter(|k| k.verdict == Verdict::Refuted)
        .collect();
    let held = read
        .iter()
        .filter(|k| k.verdict == Verdict::Confirmed)
        .count();
    if 2 * held <= read.len() {
        return (Verdict::Refuted, Vec::new());
    }
    let except = failed
        .iter()
        .map(|k| {
            let effect = match (k.measured.is_finite(), k.half_width, k.decision) {
                (true, Some(h), Some(d)) if d.scale().abs() > 0.0 => format!(
                    "{} ± {} ({:.0}% of {})",
                    super::words::num(k.measured, 3),
                    super::words::num(h, 2),
                    100.0 * (k.measured / d.scale()).abs(),
                    super::words::num(d.scale(), 4)
                ),
                (true, Some(h), _) => format!(
                    "{} ± {}",
                    super::words::num(k.measured, 3),
                    super::words::num(h, 2)
                ),
                _ => k.note.clone().unwrap_or_else(|| "refuted".into()),
            };
            format!("{}: {effect}", k.at)
        })
        .collect();
    (Verdict::Partly, except)
}

/// The verdict of a set of points: refuted if one is, confirmed if all
/// are, no practical difference if every point is that or confirmed,
/// inconclusive otherwise (and with no point).
fn strict(checks: &[PointCheck]) -> Verdict {
    let all = |f: &dyn Fn(Verdict) -> bool| checks.iter().all(|c| f(c.verdict));
    if checks.is_empty() {
        Verdict::Inconclusive
    } else if checks.iter().any(|c| c.verdict == Verdict::Refuted) {
        Verdict::Refuted
    } else if all(&|v| v == Verdict::Confirmed) {
        Verdict::Confirmed
    } else if all(&|v| matches!(v, Verdict::Confirmed | Verdict::NoPracticalDifference)) {
        Verdict::NoPracticalDifference
    } else {
        Verdict::Inconclusive
    }
}

/// The settling rule ([`lb_model::settle`]) on every point a check reads:
/// a check reading one that has not settled decides nothing, and says why
/// and how much longer its runs should be.
fn settle(checks: &mut [PointCheck], results: &[PointResult]) {
    for k in checks {
        let read = read_by(k, results);
        let mut why = Vec::new();
        let mut longer: Option<f64> = None;
        for r in read {
            let s = Settling::of(&r.summaries);
            if let Some(w) = s.why() {
                why.push(format!(
                    "{} at {}: {w}",
                    r.label,
                    super::points::at_string(r)
                ));
                if let Some(f) = s.longer() {
                    longer = Some(longer.map_or(f, |l| l.max(f)));
                }
            }
        }
        if why.is_empty() {
            continue;
        }
        k.unsettled = Some(why.join("; "));
        k.longer = longer;
        k.verdict = Verdict::Inconclusive;
    }
}

/// The checks of a claim's `why`, each audited as a claim of its own.
fn why_checks(experiment: &str, c: &Claim, results: &[PointResult]) -> Vec<ClaimResult> {
    c.why_checks
        .iter()
        .enumerate()
        .map(|(i, w)| audit_claim(experiment, &w.as_claim(c, i), results))
        .collect()
}

/// The points a claim reads — its policies (or every policy), within its
/// `where` — that lack replications or hold damaged records; and, when the
/// claim reads no point at all, a line saying so.
pub(crate) fn gaps(c: &Claim, results: &[PointResult]) -> Vec<String> {
    let labels = c.check.labels();
    let read: Vec<&PointResult> = if labels.is_empty() {
        results
            .iter()
            .filter(|r| where_matches(&c.filter, |a| r.axis(a)))
            .collect()
    } else {
        labels
            .iter()
            .flat_map(|l| selected(&c.filter, results, l))
            .collect()
    };
    if read.is_empty() {
        return vec!["no point of the plan matches the claim".into()];
    }
    read.iter().filter_map(|r| r.gap()).collect()
}

/// Audits every claim of an experiment (with the checks of their `why`s).
pub fn audit_experiment(
    experiment: &str,
    claims: &[Claim],
    results: &[PointResult],
) -> Vec<ClaimResult> {
    claims
        .iter()
        .map(|c| audit_claim(experiment, c, results))
        .collect()
}

/// Every setting of each policy the points of `checks` read, from the
/// records' resolved configurations: per policy label (in the order first
/// read), the configuration's leaves outside its system and run length
/// ("count_own = false", "update.d = 2"), a number that differs
/// between the points given as its least and greatest ("p_hat = 0.41–1"),
/// the policy's name omitted where it is its label. What a reading's words
/// leave unsaid, these say.
pub(crate) fn as_run(
    checks: &[PointCheck],
    results: &[PointResult],
    labels: &[&str],
) -> Vec<String> {
    use std::collections::BTreeMap;
    // label → leaf path → the values it takes, in the order first read.
    let mut order: Vec<String> = Vec::new();
    let mut leaves: BTreeMap<String, BTreeMap<String, Vec<serde_json::Value>>> = BTreeMap::new();
    // One law may stand under several labels (one record per key): the
    // labels the claim names name it, else the first among the results.
    let mut by_key: BTreeMap<String, Vec<&PointResult>> = BTreeMap::new();
    for r in results {
        if let Some(k) = &r.key {
            let named = labels.contains(&r.label.as_str());
            let e = by_key.entry(k.hex()).or_default();
            if e.is_empty() {
                e.push(r);
            } else if named {
                e.retain(|x| labels.contains(&x.label.as_str()));
                if !e.iter().any(|x| x.label == r.label) {
                    e.push(r);
                }
            }
        }
    }
    for r in checks
        .iter()
        .flat_map(|c| &c.keys)
        .filter_map(|k| by_key.get(k))
        .flatten()
    {
        let Some(point) = &r.point else { continue };
        let Ok(serde_json::Value::Object(cfg)) = serde_json::to_value(&point.config) else {
            continue;
        };
        if !order.contains(&r.label) {
            order.push(r.label.clone());
        }
        let into = leaves.entry(r.label.clone()).or_default();
        for (name, v) in cfg
            .iter()
            .filter(|(n, _)| !matches!(n.as_str(), "run" | "system" | "path_points"))
        {
            flatten(name, v, into);
        }
    }
    order
        .iter()
        .map(|label| {
            let settings: Vec<String> = leaves[label]
                .iter()
                // The policy's kind ("policy.policy = led") and a name that
                // is its label say nothing the label does not.
                .filter(|(path, vs)| {
                    path.as_str() != "policy.policy"
                        && !(path.ends_with("name") && vs.iter().all(|v| v.as_str() == Some(label)))
                })
                .map(|(path, vs)| {
                    let path = path.strip_prefix("policy.").unwrap_or(path);
                    format!("{path} = {}", values_words(vs))
                })
                .collect();
            format!("{label}: {}", settings.join(", "))
        })
        .collect()
}

/// Adds the leaves of `v` under `path` to `into`, each value once.
fn flatten(
    path: &str,
    v: &serde_json::Value,
    into: &mut std::collections::BTreeMap<String, Vec<serde_json::Value>>,
) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                flatten(&format!("{path}.{k}"), x, into);
            }
        }
        // A list is a network's structure (its activities, arrival rates,
        // workload), which the manifest's system states: not a setting.
        serde_json::Value::Array(_) => {}
        _ => {
            let vs = into.entry(path.to_string()).or_default();
            if !vs.contains(v) {
                vs.push(v.clone());
            }
        }
    }
}

/// The values a leaf takes, in words: one value, a numeric range
/// ("0.41–1"), or the distinct values ("shared, lowest").
fn values_words(vs: &[serde_json::Value]) -> String {
    let word = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Number(n) => {
            n.as_f64().map_or_else(|| n.to_string(), super::words::sig5)
        }
        other => other.to_string(),
    };
    let nums: Vec<f64> = vs.iter().filter_map(serde_json::Value::as_f64).collect();
    if vs.len() > 1 && nums.len() == vs.len() {
        let lo = nums.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = nums.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        return format!("{}–{}", super::words::sig5(lo), super::words::sig5(hi));
    }
    vs.iter().map(word).collect::<Vec<_>>().join(", ")
}
