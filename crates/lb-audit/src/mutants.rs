//! The audit's mutation check (`lb mutants`): does each
//! verdict respond to what the claim says? Every claim is re-audited, on the
//! same records, with its threshold moved so that the measurement at its
//! deciding point lies k half-widths on the wrong side of it (k in
//! [`MULTIPLES`]): the reference, the bound or 0 of a difference is moved,
//! and the claim audited again through the whole audit — references, pairing,
//! control variates, the settling rule. A mutant is *caught* when that point
//! is then refuted; beyond one half-width it must be, and the check asks it
//! of every mutant beyond [`MUST_CATCH`]. The claim's direction is flipped
//! too (better and worse swapped, the bound's side, the trend's direction,
//! the stability claimed): a decided verdict must flip with it.
//!
//! A claim the mutants cannot test says why ([`Mutants::insensitive`]): a
//! stability claim counts replications and has no threshold; a limit is
//! refuted only by a gap that grows or closes too slowly, which a moved
//! limit does not change; a point decided by an unstable policy, one not
//! settled, or one without an interval has no threshold to move; a metric
//! that does not vary has a half-width of 0 to move it by. A claim none of
//! whose points informs is not counted, but its check is still tested, at
//! the hardest point it reads.

use super::check::{ClaimResult, Decision, PointCheck, Verdict};
use super::claim::{audit_claim, audit_shifted};
use lb_analysis::results::PointResult;
use lb_manifest::claim::{Check as ClaimCheck, Claim, Direction, Side};
use serde::Serialize;

/// The multiples of the half-width the threshold is moved past the
/// measurement by.
pub(crate) const MULTIPLES: [f64; 5] = [1.0, 2.0, 3.0, 5.0, 10.0];

/// Every mutant at or beyond this many half-widths must be caught.
pub(crate) const MUST_CATCH: f64 = 3.0;

/// The mutants of one claim.
#[derive(Debug, Clone, Serialize)]
pub struct Mutants {
    /// The claim's experiment.
    pub experiment: String,
    /// The claim's id.
    pub id: String,
    /// Its verdict as audited.
    pub verdict: Verdict,
    /// (k, the deciding point's verdict with the threshold k half-widths
    /// past the measurement).
    pub shifted: Vec<(f64, Verdict)>,
    /// The deciding point's verdict with the claim's direction flipped
    /// (None for a value or a limit, which have none).
    pub flipped: Option<Verdict>,
    /// Why the mutants cannot test the claim, if they cannot.
    pub insensitive: Option<String>,
    /// No point of the claim informs: the mutants are read at the hardest
    /// point it reads, and `verdict` is that point's.
    pub uninformative: bool,
}

impl Mutants {
    /// Whether the claim passes the check: every mutant beyond
    /// [`MUST_CATCH`] caught and a decided verdict flipped with its
    /// direction, or the claim flagged insensitive with its reason.
    pub fn passes(&self) -> bool {
        if self.insensitive.is_some() {
            return true;
        }
        let caught = self
            .shifted
            .iter()
            .filter(|(k, _)| *k >= MUST_CATCH)
            .all(|(_, v)| *v == Verdict::Refuted);
        let flips = match (self.verdict, self.flipped) {
            (Verdict::Confirmed, Some(v)) => v == Verdict::Refuted,
            (Verdict::Refuted, Some(v)) => v == Verdict::Confirmed,
            _ => true,
        };
        caught && flips
    }

    /// The multiples at which the mutant was not caught.
    pub(crate) fn missed(&self) -> Vec<f64> {
        self.shifted
            .iter()
            .filter(|(_, v)| *v != Verdict::Refuted)
            .map(|(k, _)| *k)
            .collect()
    }
}

/// The mutants of `claim` on its experiment's `results`.
pub fn mutants(experiment: &str, claim: &Claim, results: &[PointResult]) -> Mutants {
    let original = audit_claim(experiment, claim, results);
    let mut m = Mutants {
        experiment: experiment.to_string(),
        id: claim.id.clone(),
        verdict: original.verdict,
        shifted: Vec::new(),
        flipped: None,
        insensitive: None,
        uninformative: false,
    };
    // A claim with no informative point is not counted, but its check can
    // still be tested: at the hardest point it reads, whose own verdict must
    // respond to the threshold and the direction as any point's does.
    let Some(deciding) = original.deciding().or_else(|| {
        m.uninformative = true;
        original.hardest_read()
    }) else {
        m.insensitive = Some("no point read".into());
        return m;
    };
    let by_rate = deciding.by_rate();
    let structural = match &claim.check {
        ClaimCheck::Stability(_) => Some(
            "a stability claim counts unstable replications: it has no threshold to move".into(),
        ),
        // A limit decided by its rate has a threshold to move: the slowest
        // rate counted (below).
        ClaimCheck::Limit(_) if by_rate => None,
        ClaimCheck::Limit(_) => Some(
            "a limit is refuted only by a gap that grows or closes slower than its rate: a limit \
             moved by k half-widths leaves the gaps' trend as it was"
                .into(),
        ),
        _ => None,
    };
    if m.uninformative {
        m.verdict = deciding.verdict;
    }
    m.flipped = flip(&claim.check).map(|c| {
        let flipped = Claim {
            check: c,
            ..claim.clone()
        };
        at_point(&audit_claim(experiment, &flipped, results), deciding)
            .map_or(Verdict::Inconclusive, |k| k.verdict)
    });
    if let Some(why) = structural {
        m.insensitive = Some(why);
        return m;
    }
    let Some(d) = deciding.decision else {
        m.insensitive = Some(match (&deciding.unsettled, &deciding.note) {
            (Some(u), _) => format!("its deciding point decides nothing: {u}"),
            (None, Some(n)) => format!("its deciding point has no threshold to move: {n}"),
            (None, None) => "its deciding point has no threshold to move".into(),
        });
        return m;
    };
    if deciding.unsettled.is_some() {
        m.insensitive = Some(format!(
            "its deciding point decides nothing: {}",
            deciding.unsettled.as_deref().unwrap_or_default()
        ));
        return m;
    }
    let h = d.half_width();
    if !(h > 0.0 && h.is_finite()) {
        m.insensitive = Some(format!(
            "the half-width at its deciding point is {}: there is nothing to move the \
             threshold by",
            if h == 0.0 {
                "0 (the metric does not vary)"
            } else {
                "undefined"
            }
        ));
        return m;
    }
    for k in MULTIPLES {
        let shift = match d {
            // s − t = −e − k·h: the difference k half-widths below −e.
            Decision::Above {
                estimate,
                equivalence,
                ..
            } => estimate + equivalence + k * h,
            // |d'| = τ + k·h: the deviation k half-widths outside the
            // tolerance.
            Decision::Within {
                deviation,
                tolerance,
                ..
            } => tolerance + k * h - deviation.abs(),
        };
        let audited = match &claim.check {
            // Decided by its rate: the slowest rate counted moves past the
            // measured rate, raised for a limit, lowered for one that does
            // not approach.
            ClaimCheck::Limit(l) if by_rate => {
                let mut l = l.clone();
                let min = l.min_rate.unwrap_or_default();
                l.min_rate = Some(if l.approaches {
                    min + shift
                } else {
                    min - shift
                });
                let moved = Claim {
                    check: ClaimCheck::Limit(l),
                    ..claim.clone()
                };
                audit_claim(experiment, &moved, results)
            }
            _ => audit_shifted(experiment, claim, results, shift),
        };
        let v = at_point(&audited, deciding).map_or(Verdict::Inconclusive, |c| c.verdict);
        m.shifted.push((k, v));
    }
    m
}

/// The check of `audited` at the point (and policy) of `k`.
fn at_point<'a>(audited: &'a ClaimResult, k: &PointCheck) -> Option<&'a PointCheck> {
    audited
        .checks
        .iter()
        .find(|c| c.at == k.at && c.policy == k.policy)
        .or_else(|| audited.checks.iter().find(|c| c.at == k.at))
}

/// The claim with its direction flipped, where it has one.
fn flip(c: &ClaimCheck) -> Option<ClaimCheck> {
    Some(match c {
        ClaimCheck::Ordering(o) => {
            let mut o = o.clone();
            std::mem::swap(&mut o.better, &mut o.worse);
            ClaimCheck::Ordering(o)
        }
        ClaimCheck::Bound(b) => {
            let mut b = b.clone();
            b.side = match b.side {
                Side::Le => Side::Ge,
                Side::Ge => Side::Le,
            };
            ClaimCheck::Bound(b)
        }
        ClaimCheck::Trend(t) => {
            let mut t = t.clone();
            t.direction = match t.direction {
                Direction::Increasing => Direction::Decreasing,
                Direction::Decreasing => Direction::Increasing,
            };
            ClaimCheck::Trend(t)
        }
        ClaimCheck::Stability(s) => {
            let mut s = s.clone();
            s.stable = !s.stable;
            ClaimCheck::Stability(s)
        }
        ClaimCheck::Value(_) | ClaimCheck::Limit(_) => return None,
    })
}

/// The mutants as a Markdown table, with a line per claim that fails.
pub fn markdown(all: &[Mutants]) -> String {
    use std::fmt::Write as _;
    let mut s = String::from(
        "| experiment | claim | verdict | threshold moved past the measurement by k half-widths \
         (k = 1, 2, 3, 5, 10) | direction flipped | caught? |\n| --- | --- | --- | --- | --- | \
         --- |\n",
    );
    for m in all {
        let shifted = if m.shifted.is_empty() {
            "—".to_string()
        } else {
            m.shifted
                .iter()
                .map(|(_, v)| short(*v))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let verdict = match (&m.insensitive, m.passes()) {
            (Some(why), _) => format!("insensitive: {why}"),
            (None, true) if m.uninformative => "every mutant caught, at the hardest point read \
                                                (no point informs: the claim is not counted)"
                .into(),
            (None, true) => "every mutant caught".into(),
            (None, false) => format!(
                "**NOT CAUGHT** at k = {}",
                m.missed()
                    .iter()
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            m.experiment,
            m.id,
            m.verdict.word(),
            shifted,
            m.flipped.map_or("—", short),
            lb_draw::markup::cell(&verdict)
        );
    }
    s
}

fn short(v: Verdict) -> &'static str {
    match v {
        Verdict::Confirmed => "✓",
        Verdict::Refuted => "✗",
        Verdict::Inconclusive => "?",
        Verdict::NoPracticalDifference => "≈",
        Verdict::Partly => "◐",
    }
}

/// The mutation check as CSV, one row per mutant: the claim, its verdict,
/// the mutant (`k = 1` … `k = 10` half-widths, or `flipped`), the verdict it
/// got, and whether it was caught (a shifted threshold refuted; a flipped
/// direction turning a decided verdict over).
pub fn csv(all: &[Mutants]) -> polars::prelude::PolarsResult<String> {
    use polars::prelude::{Column, DataFrame};
    struct Row<'a> {
        m: &'a Mutants,
        mutant: String,
        k: Option<f64>,
        got: Verdict,
        caught: bool,
    }
    let mut rows: Vec<Row> = Vec::new();
    for m in all {
        for &(k, got) in &m.shifted {
            let caught = got == Verdict::Refuted;
            let mutant = format!("k = {k}");
            rows.push(Row {
                m,
                mutant,
                k: Some(k),
                got,
                caught,
            });
        }
        if let Some(got) = m.flipped {
            let caught = match m.verdict {
                Verdict::Confirmed => got == Verdict::Refuted,
                Verdict::Refuted => got == Verdict::Confirmed,
                _ => true,
            };
            let mutant = "flipped".to_string();
            rows.push(Row {
                m,
                mutant,
                k: None,
                got,
                caught,
            });
        }
    }
    let text = |name: &str, f: &dyn Fn(&Row) -> String| {
        Column::new(name.into(), rows.iter().map(f).collect::<Vec<String>>())
    };
    let df = DataFrame::new_infer_height(vec![
        text("experiment", &|r| r.m.experiment.clone()),
        text("claim", &|r| r.m.id.clone()),
        text("verdict", &|r| r.m.verdict.word().to_string()),
        text("mutant", &|r| r.mutant.clone()),
        Column::new("k".into(), rows.iter().map(|r| r.k).collect::<Vec<_>>()),
        text("mutant_verdict", &|r| r.got.word().to_string()),
        Column::new(
            "caught".into(),
            rows.iter().map(|r| r.caught).collect::<Vec<_>>(),
        ),
    ])?;
    lb_analysis::table::csv(&df)
}

/// The check's verdict in words (the counts, then each claim a mutant beyond
/// [`MUST_CATCH`] half-widths slipped past, as an error line), and whether
/// any did.
pub fn verdict(all: &[Mutants]) -> (String, bool) {
    use std::fmt::Write as _;
    let failing: Vec<_> = all.iter().filter(|m| !m.passes()).collect();
    let insensitive = all.iter().filter(|m| m.insensitive.is_some()).count();
    let mut s = format!(
        "{} claims: {} caught by every mutant, {insensitive} insensitive (with the reason), {} \
         not caught\n",
        all.len(),
        all.len() - insensitive - failing.len(),
        failing.len()
    );
    for m in &failing {
        let _ = writeln!(
            s,
            "error: {} / {}: a mutant {:?} half-widths past the measurement was not caught",
            m.experiment,
            m.id,
            m.missed()
        );
    }
    (s, !failing.is_empty())
}
