//! What the audit finds: a claim's [`Verdict`], the [`PointCheck`] at one point,
//! and a claim's [`ClaimResult`]. Types only (and their JSON form), used by
//! every other part of the audit.

use lb_manifest::claim::{ClaimKind, Origin};
use serde::Serialize;

/// A claim's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The claim holds at its level.
    Confirmed,
    /// The claim fails at its level.
    Refuted,
    /// Its interval straddles the threshold.
    Inconclusive,
    /// The interval lies within the claim's equivalence margin: a
    /// difference too small to matter, neither confirming nor refuting.
    NoPracticalDifference,
    /// A paper's statement that holds at most of the informative points of
    /// its range and fails at the others, which the claim names with their
    /// effect sizes ([`ClaimResult::except`]): "confirmed except at …".
    Partly,
}

impl Verdict {
    /// Every verdict.
    pub const ALL: [Verdict; 5] = [
        Verdict::Confirmed,
        Verdict::Refuted,
        Verdict::Inconclusive,
        Verdict::NoPracticalDifference,
        Verdict::Partly,
    ];

    /// The verdict whose [`Verdict::word`] is `w`.
    pub fn from_word(w: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.word() == w)
    }

    /// The verdict as written in `claims.json` and the pages.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Confirmed => "confirmed",
            Verdict::Refuted => "refuted",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NoPracticalDifference => "no practical difference",
            Verdict::Partly => "confirmed except at some points",
        }
    }
}

/// How a check decides, in numbers: what its verdict would be were its
/// threshold moved — its margin, and what the mutants of the audit move.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "rule")]
pub enum Decision {
    /// The claim holds where the interval `estimate ± half_width` lies
    /// above `equivalence` (strictly for an ordering or a trend, `≥ 0` for a
    /// bound), fails where it lies below −`equivalence`, and makes no
    /// practical difference where it lies within ±`equivalence` (> 0).
    /// `scale` is what relative terms are taken against (the better
    /// policy's mean, the bound, the level before the step).
    Above {
        /// The estimate on the claim's side (positive where it holds).
        estimate: f64,
        /// Its interval's half-width at the claim's level.
        half_width: f64,
        /// Whether the claim asks for strictly above 0.
        strict: bool,
        /// The equivalence margin (0: none).
        equivalence: f64,
        /// What relative terms are taken against.
        scale: f64,
    },
    /// The claim holds where the interval of `deviation` (measured −
    /// expected) lies within ±`tolerance` (covers 0 when the tolerance is
    /// 0), fails where it lies wholly outside. `scale`: the expected value.
    Within {
        /// Measured − expected.
        deviation: f64,
        /// Its interval's half-width at the claim's level.
        half_width: f64,
        /// The tolerance about the expected value.
        tolerance: f64,
        /// The expected value.
        scale: f64,
    },
}

impl Decision {
    /// The verdict of the rule.
    pub fn verdict(&self) -> Verdict {
        match *self {
            Decision::Above {
                estimate: s,
                half_width: h,
                strict,
                equivalence: e,
                ..
            } => {
                let (lo, hi) = (s - h, s + h);
                if lo > e || (!strict && e == 0.0 && lo >= 0.0) {
                    Verdict::Confirmed
                } else if hi < -e {
                    Verdict::Refuted
                } else if e > 0.0 && lo >= -e && hi <= e {
                    Verdict::NoPracticalDifference
                } else {
                    Verdict::Inconclusive
                }
            }
            Decision::Within {
                deviation: d,
                half_width: h,
                tolerance: t,
                ..
            } => {
                if t == 0.0 {
                    if d.abs() <= h {
                        Verdict::Confirmed
                    } else {
                        Verdict::Refuted
                    }
                } else if d - h >= -t && d + h <= t {
                    Verdict::Confirmed
                } else if d + h < -t || d - h > t {
                    Verdict::Refuted
                } else {
                    Verdict::Inconclusive
                }
            }
        }
    }

    /// The interval's half-width.
    pub fn half_width(&self) -> f64 {
        match *self {
            Decision::Above { half_width, .. } | Decision::Within { half_width, .. } => half_width,
        }
    }

    /// What relative terms are taken against.
    pub fn scale(&self) -> f64 {
        match *self {
            Decision::Above { scale, .. } | Decision::Within { scale, .. } => scale,
        }
    }

    /// The margin of a decided verdict, in the metric's unit: how far the
    /// claim's threshold (the reference, the bound, 0 of a difference) could
    /// move before the verdict stopped being what it is. None when the
    /// verdict is not decided.
    pub fn margin(&self) -> Option<f64> {
        let v = self.verdict();
        let m = match *self {
            Decision::Above {
                estimate: s,
                half_width: h,
                equivalence: e,
                ..
            } => match v {
                Verdict::Confirmed => s - h - e,
                Verdict::Refuted => -e - (s + h),
                Verdict::NoPracticalDifference => (e - (s + h)).min(s - h + e),
                Verdict::Inconclusive | Verdict::Partly => return None,
            },
            Decision::Within {
                deviation: d,
                half_width: h,
                tolerance: t,
                ..
            } => match v {
                Verdict::Confirmed if t == 0.0 => h - d.abs(),
                Verdict::Confirmed => t - d.abs() - h,
                Verdict::Refuted if t == 0.0 => d.abs() - h,
                Verdict::Refuted => d.abs() - h - t,
                Verdict::Inconclusive | Verdict::NoPracticalDifference | Verdict::Partly => {
                    return None;
                }
            },
        };
        Some(m.max(0.0))
    }

    /// How far the measurement lies from the nearest edge where the verdict
    /// would be decided, for an inconclusive check: the distance `d` the
    /// interval's half-width must shrink to (None when decided, or when no
    /// half-width would decide it: an estimate exactly on the threshold).
    pub(crate) fn distance_to_decide(&self) -> Option<f64> {
        if self.verdict() != Verdict::Inconclusive {
            return None;
        }
        let d = match *self {
            Decision::Above {
                estimate: s,
                equivalence: e,
                ..
            } => {
                if e > 0.0 {
                    // Decided once the interval is inside ±e or outside it.
                    (s.abs() - e).abs().max((e - s.abs()).abs())
                } else {
                    s.abs()
                }
            }
            Decision::Within {
                deviation: d,
                tolerance: t,
                ..
            } => (t - d.abs()).abs(),
        };
        (d > 0.0 && d.is_finite()).then_some(d)
    }

    /// The same rule with its threshold moved by `shift` in the direction
    /// that makes the claim harder to hold (an ordering asked to win by
    /// `shift`, a bound moved toward the measurement, an expected value
    /// moved away from it).
    pub fn shifted(&self, shift: f64) -> Decision {
        match *self {
            Decision::Above {
                estimate,
                half_width,
                strict,
                equivalence,
                scale,
            } => Decision::Above {
                estimate: estimate - shift,
                half_width,
                strict,
                equivalence,
                scale,
            },
            Decision::Within {
                deviation,
                half_width,
                tolerance,
                scale,
            } => Decision::Within {
                deviation: if deviation >= 0.0 {
                    deviation + shift
                } else {
                    deviation - shift
                },
                half_width,
                tolerance,
                scale,
            },
        }
    }
}

/// The check at one point (or one pair of points for an ordering).
#[derive(Debug, Clone, Serialize)]
pub struct PointCheck {
    /// The point's axis values, "load=0.9 count_own=true" (JSON: `at` is
    /// the object of `axes`).
    #[serde(skip)]
    pub at: String,
    /// The same as (axis, value) pairs; in JSON an object with numbers as
    /// numbers, `{"load": 0.9, "count_own": true}`.
    #[serde(rename = "at", serialize_with = "typed_axes")]
    pub axes: Vec<(String, String)>,
    /// The series read (a policy's label, or "worse − better").
    pub policy: String,
    /// The measured quantity: the metric, a paired difference, or the fraction
    /// of unstable replications.
    pub measured: f64,
    /// Half-width of its interval at the claim's level (None: no interval).
    pub half_width: Option<f64>,
    /// The replications (or pairs) the interval rests on.
    pub replications: usize,
    /// What the measurement is held against, in words.
    pub threshold: String,
    /// The reference at this point (value and bound claims).
    pub reference: Option<f64>,
    /// The verdict at this point.
    pub verdict: Verdict,
    /// What else the point shows, in words (rates, control variates, why
    /// it decides nothing).
    pub note: Option<String>,
    /// The keys of the records read.
    pub keys: Vec<String>,
    /// How the verdict was decided, in numbers (None where no threshold
    /// decides it: a stability count, an unstable policy, no interval).
    pub decision: Option<Decision>,
    /// Why a point read has not settled ([`lb_model::settle`]); such a
    /// check decides nothing.
    pub unsettled: Option<String>,
    /// At least how many times longer the runs of the points read must be
    /// to settle ([`lb_model::settle::Settling::longer`], a lower bound).
    pub longer: Option<f64>,
    /// Why the point cannot tell the claim from its denial, if it cannot
    /// (docs/AUDITING.md, "Uninformative points"): every side at the
    /// metric's floor, or a null that passes here too. Such a point decides
    /// nothing and is never shown as the deciding one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uninformative: Option<Uninformative>,
    /// A foil's point undecided on its runs whose value is an exact formula
    /// of the model that fails the claim there ([`crate::EXACT_FAILS`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exact_fails: bool,
    /// A limit's rate of approach as its note gives it (the step that
    /// decides), where it has one.
    #[serde(skip)]
    pub rate: Option<RateRead>,
    /// A point read unstable as claimed: the chance that it reads so were
    /// it stable ([`lb_core::stability::false_unstable`]).
    #[serde(skip)]
    pub false_unstable: Option<f64>,
}

/// A limit's deciding rate of approach, in words.
#[derive(Debug, Clone, PartialEq)]
pub struct RateRead {
    /// The rate and its half-width: "0.92 ± 0.027".
    pub rate: String,
    /// The step it was read on ("epsilon_frac 0.005 → 0.002"); None
    /// between the ends of a tail of two points.
    pub step: Option<String>,
    /// Read on the fastest step (a limit that is not approached), not the
    /// slowest.
    pub fastest: bool,
    /// The approach slows toward the limit (its nearest step significantly
    /// slower than its farthest): the rate cannot then tell the limit from
    /// one beside it, and does not decide.
    pub slows: bool,
    /// The rate's decision holds on the bounds of every step's rate as
    /// well (the rates between the ends of its two gaps' intervals), so it
    /// stands wherever the intervals it reads cover: a confirmation is then
    /// wrong only if one of the two intervals of the step where the claim
    /// fails misses, a chance of at most twice one interval's
    /// (docs/AUDITING.md, "Chance of a wrong verdict").
    pub bounded: bool,
    /// The slowest rate counted and whose it is: "0.5, ours".
    pub against: Option<String>,
}

/// Why a point cannot tell a claim from its denial (docs/AUDITING.md,
/// "Uninformative points"), and that reason in words.
#[derive(Debug, Clone, PartialEq)]
pub struct Uninformative {
    /// The rule that found it.
    pub why: Why,
    /// The reason as printed, with its numbers.
    pub words: String,
}

/// The rules that make a point uninformative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// An upper bound or a limit to 0 whose subject sits on the metric's
    /// floor, where any policy that reaches it meets the claim.
    Floor,
    /// Every side of an ordering within the band about the metric's floor.
    EverySideAtFloor,
    /// An ordering's difference within ±1% of the compared mean.
    Negligible,
    /// The metric 0 in every replication of every point read.
    Zero,
    /// The metric an exact formula of the model at every point read.
    Exact,
    /// The metric equal, within its interval, to the sampling arithmetic at
    /// the point's mean state.
    Arithmetic,
    /// An ordering at a message overhead its statement does not name: the
    /// better policy sends more than the stated multiple of the worse's.
    Overhead,
    /// A policy calibrated to a message budget its calibration could not
    /// meet: the configuration the statement names is not built there.
    Unbuilt,
    /// A point outside the theorem's hypothesis or the policy outside its
    /// class.
    Outside,
    /// A null or foil that holds here too, is undecided, or has no point.
    NotDiscriminating,
}

impl Uninformative {
    /// The reason `words`, found by the rule `why`.
    pub fn new(why: Why, words: String) -> Uninformative {
        Uninformative { why, words }
    }

    /// The reason without what is particular to the point (its numbers, the
    /// policy it names first): the points of one claim that share it are
    /// counted together.
    pub fn group(&self) -> &str {
        let w = self.words.as_str();
        // The hypothesis rule opens with the policy and its point
        // ("Pod(2) at servers = 100: …"); the others with the reason.
        let head = match (self.why, w.split_once(": ")) {
            (Why::Outside, Some((_, rest))) => rest,
            _ => w,
        };
        head.split([':', '(']).next().unwrap_or(head).trim()
    }
}

impl std::fmt::Display for Uninformative {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.words)
    }
}

/// The reason in words, as `Option::as_deref` reads it.
impl std::ops::Deref for Uninformative {
    type Target = str;
    fn deref(&self) -> &str {
        &self.words
    }
}

impl Serialize for Uninformative {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.words)
    }
}

impl PointCheck {
    /// The margin of its verdict in the metric's unit, if decided by a
    /// threshold.
    pub fn margin(&self) -> Option<f64> {
        self.decision.and_then(|d| d.margin())
    }

    /// Whether it is a limit decided by its rate of approach: its decision
    /// (and margin) is the rate's against the slowest counted, and the rate
    /// reads every point of its tail.
    pub fn by_rate(&self) -> bool {
        self.rate.is_some() && matches!(self.decision, Some(Decision::Above { .. }))
    }
}

/// The values axis `axis` takes among `checks`.
pub(crate) fn axis_values<'a>(checks: &'a [PointCheck], axis: &str) -> Vec<&'a str> {
    checks
        .iter()
        .flat_map(|k| k.axes.iter())
        .filter(|(n, _)| n == axis)
        .map(|(_, v)| v.as_str())
        .collect()
}

/// Of `axes`, those on which `theirs` (a foil's or a null's checks) reads
/// none of the values `mine` (the claim's) reads: the settings it moves
/// elsewhere, rather than narrowing to some of the claim's points.
pub fn moved_axes<'a>(
    mine: &[PointCheck],
    theirs: &[PointCheck],
    axes: impl IntoIterator<Item = &'a String>,
) -> Vec<String> {
    axes.into_iter()
        .filter(|a| {
            let m = axis_values(mine, a);
            axis_values(theirs, a).iter().all(|v| !m.contains(v))
        })
        .cloned()
        .collect()
}

/// A sweep value as JSON: a number or a boolean where it reads as one.
pub(crate) fn typed_value(v: &str) -> serde_json::Value {
    if let Ok(i) = v.parse::<i64>() {
        return i.into();
    }
    if let Some(x) = v.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
        return serde_json::Value::Number(x);
    }
    match v {
        "true" => true.into(),
        "false" => false.into(),
        _ => v.into(),
    }
}

fn typed_axes<S: serde::Serializer>(axes: &[(String, String)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(axes.len()))?;
    for (a, v) in axes {
        m.serialize_entry(a, &typed_value(v))?;
    }
    m.end()
}

/// A claim and its verdict.
#[derive(Debug, Clone, Serialize)]
pub struct ClaimResult {
    /// The experiment whose manifest holds it.
    pub experiment: String,
    /// Its id in that manifest.
    pub id: String,
    /// What it claims, as the manifest states it.
    pub statement: String,
    /// Where it comes from (a paper and place, or exact theory).
    pub source: String,
    /// Its kind (ordering, value, bound, trend, limit, stability).
    pub kind: ClaimKind,
    /// Whether `lb audit` fails when it is refuted (lb's own checks).
    pub required: bool,
    /// Who claimed it: the paper, our stand-in, or lb's check.
    pub origin: Origin,
    /// The paper it comes from, if any.
    pub paper: Option<String>,
    /// What a stand-in stands for: the paper claim it tests (an id) or the
    /// paper's words.
    pub stands_for: Option<String>,
    /// A paper's statement: the setting its paper states or implies, with
    /// the sentence that implies it.
    pub reading: Option<String>,
    /// The level its intervals decide at (and are printed at): its stated
    /// level as lb's coverage certificate calibrated it, or as stated
    /// (`decide_at = "nominal"`).
    pub level: f64,
    /// The level its manifest states, and whether the certificate's
    /// calibration applies to it.
    pub stated_level: f64,
    /// Whether it is decided at the calibrated or the stated level.
    pub decide_at: lb_manifest::calibration::DecideAt,
    /// Its verdict over its points.
    pub verdict: Verdict,
    /// A confirmed claim that does not discriminate, with the reason: its
    /// foil holds too (or is undecided), no setting could fail it
    /// (`no_foil`), it names no foil, its metric is identically 0, or its
    /// bound is loose by far at every point. Not counted as a reproduction.
    pub untested: Option<String>,
    /// Its foil, audited as a claim of its own: the same check where the
    /// property should fail.
    pub foil: Option<Box<ClaimResult>>,
    /// Its nulls ([`lb_manifest::claim::Claim::nulls`]), audited: where one
    /// holds too, the claim's point does not discriminate.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nulls: Vec<ClaimResult>,
    /// The deciding check's margin in words (decided claims).
    pub margin: Option<String>,
    /// Where a paper's statement fails inside its range while holding at
    /// most of it ([`Verdict::Partly`]): each failing point with its effect
    /// size, in words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub except: Vec<String>,
    /// How many of its points inform the verdict, of how many read
    /// (uninformative points: [`PointCheck::uninformative`]).
    pub informative: (usize, usize),
    /// Whether a null or the foil held too, was undecided or was not run at
    /// some point it reads (rather than every point being at a floor,
    /// without effect, outside a hypothesis or unsettled).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub matched: bool,
    /// Whether, where it held, a null or the foil held too at some point
    /// (not only undecided or not run, and not an exact formula deciding
    /// it): the effect is there without what the claim credits, which
    /// counts against a statement resting on it (docs/AUDITING.md,
    /// "Statements").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub null_holds: bool,
    /// Whether, where it held, a null or the foil was undecided or not run
    /// at some point: runs could still decide whether it discriminates.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// A claim with a theorem's hypothesis: how many of its points lie
    /// inside it, of how many.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inside: Option<(usize, usize)>,
    /// What would decide an inconclusive claim, in words.
    pub to_decide: Option<String>,
    /// A limit its rate can decide, at a slowest rate of ours (not the
    /// paper's statement's or proof's): that rate and why we chose it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_ours: Option<String>,
    /// Decided on control-variate intervals (its check names a control
    /// variate), whose coverage the certificate measured on its own small
    /// systems only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub controlled: bool,
    /// The metric read and its label (unit included), if any.
    pub metric: Option<String>,
    /// The metric's label, its unit included.
    pub metric_label: Option<String>,
    /// What the points are held to, in words (the same at every point).
    pub rule: String,
    /// Its checks, one per point (or series) read.
    pub checks: Vec<PointCheck>,
    /// Why the claim fails here, from the manifest.
    pub why: Option<String>,
    /// The checks of the `why`, audited.
    pub why_checks: Vec<ClaimResult>,
    /// Points the claim reads that lack replications or hold damaged
    /// records, in words. A required claim with any fails `lb audit`: a
    /// gate cannot pass on missing data.
    pub missing: Vec<String>,
    /// Every setting of each policy its points read, from the records
    /// themselves ([`crate::claim::as_run`]): "L-JSQ-Push: count_own =
    /// false, granularity = batch, update.d = 2, update.p_hat = 0.01, …",
    /// so that no setting a reading leaves unsaid is hidden.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub as_run: Vec<String>,
}

impl ClaimResult {
    /// The check that decides the verdict: the first refuted, else the first
    /// inconclusive, else the first of no practical difference, else the
    /// confirmed one with the smallest margin in half-widths (the point
    /// where the claim is tested hardest).
    pub fn deciding(&self) -> Option<&PointCheck> {
        ClaimResult::deciding_of(&self.checks)
    }

    /// The deciding check among `checks` ([`ClaimResult::deciding`]).
    pub(crate) fn deciding_of(checks: &[PointCheck]) -> Option<&PointCheck> {
        // Only an informative point decides, and none is shown where none
        // informs.
        Self::hardest(checks.iter().filter(|c| c.uninformative.is_none()))
    }

    /// The hardest of all the points read, informative or not: where the
    /// check itself is tested (`lb mutants`) when no point informs.
    pub(crate) fn hardest_read(&self) -> Option<&PointCheck> {
        Self::hardest(self.checks.iter())
    }

    fn hardest<'a>(checks: impl Iterator<Item = &'a PointCheck>) -> Option<&'a PointCheck> {
        let checks: Vec<&PointCheck> = checks.collect();
        let first = |v: Verdict| checks.iter().copied().find(|c| c.verdict == v);
        first(Verdict::Refuted)
            .or_else(|| first(Verdict::Inconclusive))
            .or_else(|| first(Verdict::NoPracticalDifference))
            .or_else(|| {
                // The smallest margin in half-widths; where no threshold
                // decides (a stability count), the point nearest failing:
                // the most unstable replications, and of those the last
                // (the highest load of a sweep).
                checks.iter().copied().rev().min_by(|a, b| {
                    // A measurement exactly at its reference under a zero
                    // tolerance (a metric identically 0 against a limit of
                    // 0) ranks last: its margin is its own one-sided
                    // half-width by construction.
                    let k = |c: &PointCheck| {
                        c.decision
                            .filter(|d| {
                                !matches!(d, Decision::Within { deviation, tolerance, .. }
                                    if *deviation == 0.0 && *tolerance == 0.0)
                            })
                            .and_then(|d| Some(d.margin()? / d.half_width()))
                            .filter(|x| x.is_finite())
                            .unwrap_or(f64::INFINITY)
                    };
                    let u = |c: &PointCheck| {
                        if c.measured.is_finite() {
                            -c.measured
                        } else {
                            0.0
                        }
                    };
                    k(a).total_cmp(&k(b)).then(u(a).total_cmp(&u(b)))
                })
            })
    }
}
