//! The claims of one experiment as `<experiment>/claims.json`: a row per
//! claim, from which the report pages are assembled.

use super::check::{ClaimResult, Verdict, Why};
use super::describe::deciding_words;
use lb_manifest::claim::Origin;
use serde::Serialize;

/// A verdict in `claims.json` as its word ("confirmed except at some
/// points"), read back by [`Verdict::from_word`].
mod verdict_word {
    use super::Verdict;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(v: &Verdict, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.word())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Verdict, D::Error> {
        let w = String::deserialize(d)?;
        Verdict::from_word(&w)
            .ok_or_else(|| serde::de::Error::custom(format!("no verdict is called \"{w}\"")))
    }
}

/// A claim's row in the summaries (also kept in `<experiment>/claims.json`,
/// from which the report pages are assembled).
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct ClaimRow {
    /// The claim's id.
    pub id: String,
    /// Written as its word ([`Verdict::word`]).
    #[serde(with = "verdict_word")]
    pub verdict: Verdict,
    /// Whether `lb audit` fails when it is refuted.
    pub required: bool,
    /// Written as the manifest writes it: "paper", "stand-in", "check" or
    /// "ours".
    pub origin: Origin,
    /// The paper it comes from, by its authors.
    pub paper: Option<String>,
    /// What a stand-in stands for: a claim id or the paper's words.
    pub stands_for: Option<String>,
    /// A paper's statement: the setting its paper states or implies.
    pub reading: Option<String>,
    /// The level of its intervals.
    pub level: f64,
    /// Why a confirmed claim does not discriminate, if it does not (its
    /// foil holds too, no setting could fail it, its bound tests nothing).
    pub untested: Option<String>,
    /// Its foil in words, with its verdict: "Power-of-2 should not beat
    /// JSQ: refuted".
    pub foil: Option<String>,
    /// The deciding check's margin in words (decided claims).
    pub margin: Option<String>,
    /// The deciding check's margin in half-widths, where a threshold
    /// decides it: how near its evidence came to the other verdict. Of
    /// claims of one status, the one a statement shows is the hardest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_hw: Option<f64>,
    /// What would decide it (inconclusive claims).
    pub to_decide: Option<String>,
    /// Its robustness maps, a line each, empty when it is in none.
    #[serde(default)]
    pub robustness: Vec<MapLine>,
    /// What it claims.
    pub statement: String,
    /// The deciding check in words ("no points computed" when none).
    pub deciding: String,
    /// Points confirmed of points read.
    pub confirmed: usize,
    /// Points read.
    pub points: usize,
    /// Its `why` (why it fails or cannot be decided), expanded.
    pub why: Option<String>,
    /// The verdicts of the checks of the why.
    pub why_checks: Vec<(String, String)>,
    /// Where a paper's statement fails while holding at most of its range
    /// (verdict "confirmed except at some points"), with effect sizes.
    #[serde(default)]
    pub except: Vec<String>,
    /// Informative points of points read.
    #[serde(default)]
    pub informative: (usize, usize),
    /// Whether a null or the foil held too, was undecided or was not run at some point.
    #[serde(default)]
    pub matched: bool,
    /// Whether a null or the foil held too where it held
    /// ([`crate::ClaimResult::null_holds`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub null_holds: bool,
    /// Whether a null or the foil was undecided or not run at some point
    /// ([`crate::ClaimResult::pending`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// Decided by a rate of approach or a stability test, which lb's
    /// coverage certificate does not measure (its intervals are a point's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub uncertified: bool,
    /// Confirmed by a rate of approach whose decision holds on the bounds
    /// of every step's rate ([`crate::RateRead::bounded`]): wrong only if
    /// one of two intervals misses, so its chance counts twice in
    /// `alpha_sum`, and it is not uncertified.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rate_bounded: bool,
    /// Confirmed unstable at every point it reads: the chance of that were
    /// some point stable, at most the greatest of its points'
    /// ([`crate::PointCheck::false_unstable`]); it is then not uncertified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unstable_bound: Option<f64>,
    /// Decided on control-variate intervals ([`ClaimResult::controlled`]):
    /// uncertified, the certificate having measured that procedure on its
    /// own small systems only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub controlled: bool,
    /// A stability claim: decided by lb's stability test of each run (its
    /// trend test's false-alarm rate and divergence rule are lb's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stability: bool,
    /// Points inside the theorem's hypothesis of points read, where the
    /// claim carries one.
    #[serde(default)]
    pub inside: Option<(usize, usize)>,
    /// What it reads, generated from its checks ([`reads`]).
    #[serde(default)]
    pub reads: String,
    /// Its nulls with their verdicts: "Random in L-JSQ-Push's place:
    /// refuted".
    #[serde(default)]
    pub nulls: Vec<String>,
    /// The series it reads that sit at the metric's floor at every point
    /// (each such check uninformative there), while another series informs:
    /// what the statement says of them no point tests ([`floor_only`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub floor_only: Vec<String>,
    /// A limit its rate can decide at a slowest rate of ours
    /// ([`ClaimResult::threshold_ours`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_ours: Option<String>,
    /// Where it holds in full only at a value of a setting its paper leaves
    /// open at which another claim of the same paper does not hold in full
    /// (the report reads every experiment to tell): that conflict, in
    /// words ("count_own: … in full only at count_own = true; … in full
    /// only at count_own = false"). Not in claims.json.
    #[serde(skip)]
    pub conflicting: Option<String>,
}

/// A verdict in words, saying so of a confirmation that does not
/// discriminate (`untested`, set only on confirmations), and of one none
/// of whose points could inform ([`no_point`]): that comes first, and what
/// its uninformative points read is said after it, so that a verdict word
/// never stands for a claim that no point decides.
pub fn verdict_words(verdict: &str, untested: bool, no_point: bool) -> String {
    match (untested, no_point) {
        (_, true) => format!("no point could decide it (its points read {verdict})"),
        (true, false) => format!("{verdict}, does not discriminate"),
        _ => verdict.to_string(),
    }
}

/// Whether none of a claim's points could inform it (each at a floor,
/// without effect, outside the hypothesis or unsettled), as opposed to a
/// confirmation whose null or foil held too: `informative` is (informative
/// points, points read).
pub fn no_point(informative: (usize, usize), matched: bool, verdict: Verdict) -> bool {
    informative.0 == 0 && informative.1 > 0 && !(matched && verdict == Verdict::Confirmed)
}

impl ClaimRow {
    /// [`no_point`] of this row.
    pub fn no_point(&self) -> bool {
        no_point(self.informative, self.matched, self.verdict)
    }

    /// Whether lb's reading of its setting decides it: a robustness map
    /// says on which side of a setting the text leaves open it holds
    /// ([`MapLine::decides`]), or its reading restores a number the held
    /// text lost ([`ClaimRow::restored`]).
    pub fn at_one_reading(&self) -> bool {
        self.robustness.iter().any(|l| l.decides) || !self.restored().is_empty()
    }

    /// The numbers its reading's quotes restore, where the held text lost
    /// them ([`lb_manifest::quotes::restored_numbers`]): values of lb's, not
    /// the paper's.
    pub fn restored(&self) -> Vec<String> {
        // A stand-in's quote is its `stands_for`: what it reads of the text.
        self.reading
            .iter()
            .chain(&self.stands_for)
            .flat_map(|f| lb_manifest::quotes::restored_numbers(f))
            .collect()
    }
}

/// A claim's line of one robustness map.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct MapLine {
    /// The map's name.
    pub map: String,
    /// "the claim holds if and only if …", "holds at k of n combinations".
    pub summary: String,
    /// Whether the map decides the claim by a setting: it holds if and only
    /// if some settings take some values, or at none of the combinations,
    /// failing at some. A map whose combinations all read undecided decides
    /// nothing.
    pub decides: bool,
    /// Where settings decide it, the values of each at which it holds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<Need>,
    /// Where it holds except at some points at a combination, the values at
    /// which it holds at least in part ([`crate::robustness::Decision::in_part`]);
    /// `needs` where it is absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_part: Option<Vec<Need>>,
    /// The combinations at which it is undecided.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub inconclusive: usize,
    /// The combinations at which it holds.
    #[serde(default)]
    pub holds: usize,
    /// The combinations at which it fails.
    #[serde(default)]
    pub refuted: usize,
    /// The map's combinations, lb's own reading among them.
    #[serde(default)]
    pub combinations: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl MapLine {
    /// "map: summary".
    pub fn line(&self) -> String {
        format!("{}: {}", self.map, self.summary)
    }

    /// The combinations at which it holds except at some points.
    pub fn partly(&self) -> usize {
        self.combinations
            .saturating_sub(self.holds + self.refuted + self.inconclusive)
    }

    /// Of a claim that holds at lb's reading (one of the map's
    /// combinations), the other combinations at which it holds except at
    /// some points.
    pub fn partly_elsewhere(&self) -> usize {
        self.combinations
            .saturating_sub(1)
            .saturating_sub(self.holds.saturating_sub(1) + self.refuted + self.inconclusive)
    }
}

/// The values of a setting at which a claim holds.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct Need {
    /// The setting, as the map names it.
    pub setting: String,
    /// Its values at which the claim holds.
    pub values: Vec<String>,
}

impl ClaimResult {
    /// [`no_point`] of this claim.
    pub fn no_point(&self) -> bool {
        no_point(self.informative, self.matched, self.verdict)
    }
}

/// The claims of one experiment, as `<experiment>/claims.json`.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct ExperimentClaims {
    /// The experiment's name.
    pub experiment: String,
    /// Its title.
    pub title: String,
    /// Its claims' rows, in manifest order.
    pub claims: Vec<ClaimRow>,
}

impl ExperimentClaims {
    /// The rows of an experiment's audited claims.
    pub fn new(experiment: &str, title: &str, claims: &[ClaimResult]) -> ExperimentClaims {
        ExperimentClaims {
            experiment: experiment.to_string(),
            title: title.to_string(),
            claims: claims.iter().map(row).collect(),
        }
    }

    /// The tally of its claims of one origin.
    pub fn tally(&self, origin: Origin) -> Tally {
        Tally::of(self.claims.iter().filter(|c| c.origin == origin))
    }
}

/// Whose outcomes a tally counts, which sets its words: a paper's
/// statements ("reproduced", "not reproduced") or claims ("hold", "fail").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Voice {
    /// A paper's statements.
    Statements,
    /// Claims.
    Claims,
    /// Stand-ins of a paper lb does not hold: read at lb's settings, not
    /// the paper's, so one that fails fails there.
    Unheld,
}

/// Verdicts counted as a reader counts them: a confirmation that does not
/// discriminate is not a reproduction.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tally {
    /// Confirmed, and the confirmation discriminates (its foil fails).
    pub reproduced: usize,
    /// As `reproduced`, but at lb's reading of a setting the text leaves
    /// open or lost ([`ClaimRow::at_one_reading`]).
    pub at_one_reading: usize,
    /// As `at_one_reading`, and at a value at which another claim of its
    /// paper does not hold in full ([`ClaimRow::conflicting`]).
    pub at_conflicting: usize,
    /// As `reproduced`, but a limit decided at a slowest rate of approach
    /// of ours ([`ClaimRow::threshold_ours`]).
    pub at_rate_ours: usize,
    /// As `reproduced`, but decided by lb's stability test
    /// ([`ClaimRow::stability`]).
    pub by_stability_test: usize,
    /// Confirmed without discriminating ([`ClaimRow::untested`]): a null
    /// or the foil held too, or no setting could fail it.
    pub untested: usize,
    /// Confirmed on no informative point ([`no_point`]).
    pub no_point: usize,
    /// Refuted.
    pub refuted: usize,
    /// Undecided.
    pub inconclusive: usize,
    /// Within an equivalence margin.
    pub no_difference: usize,
    /// A paper's statement that holds at most of its range and fails at
    /// the rest ("confirmed except at some points").
    pub partly: usize,
    /// Σ (1 − level) over the decided claims whose intervals the coverage
    /// certificate measures: the family's expected number of false verdicts
    /// were every claim exactly on its threshold, and a Bonferroni bound on
    /// the chance of any.
    pub alpha_sum: f64,
    /// Decided claims read through a rate of approach or a stability test
    /// ([`ClaimRow::uncertified`]), left out of `alpha_sum`.
    pub uncertified: usize,
    /// Decided claims confirmed through a rate whose decision holds on its
    /// steps' bounds ([`ClaimRow::rate_bounded`]), counted twice in
    /// `alpha_sum`.
    pub rate_bounded: usize,
    /// Decided claims confirmed unstable ([`ClaimRow::unstable_bound`]),
    /// their bound in `alpha_sum`.
    pub unstable_bounded: usize,
    /// The greatest of their bounds.
    pub unstable_max: f64,
    /// Of the uncertified, those a stability test confirmed stable.
    pub uncertified_stable: usize,
    /// Of the uncertified, those read on control-variate intervals.
    pub uncertified_controlled: usize,
}

impl Tally {
    /// The tally of `rows`.
    pub fn of<'a>(rows: impl Iterator<Item = &'a ClaimRow>) -> Tally {
        let mut t = Tally::default();
        for c in rows {
            use Verdict as V;
            match c.verdict {
                V::Confirmed | V::Partly if c.untested.is_some() && c.no_point() => t.no_point += 1,
                V::Inconclusive | V::Refuted if c.no_point() => t.no_point += 1,
                V::Confirmed | V::Partly if c.untested.is_some() => t.untested += 1,
                V::Confirmed if c.conflicting.is_some() => t.at_conflicting += 1,
                V::Confirmed if c.at_one_reading() => t.at_one_reading += 1,
                V::Confirmed if c.threshold_ours.is_some() => t.at_rate_ours += 1,
                V::Confirmed if c.stability => t.by_stability_test += 1,
                V::Confirmed => t.reproduced += 1,
                V::Partly => t.partly += 1,
                V::Refuted => t.refuted += 1,
                V::NoPracticalDifference => t.no_difference += 1,
                V::Inconclusive => t.inconclusive += 1,
            }
            // A verdict that tested nothing (no informative point, or a null
            // or the foil held too) is no decision that could be wrong.
            if c.verdict != V::Inconclusive && c.untested.is_none() {
                if c.uncertified {
                    t.uncertified += 1;
                    if c.controlled {
                        t.uncertified_controlled += 1;
                    } else {
                        t.uncertified_stable += usize::from(c.stability);
                    }
                } else if c.rate_bounded {
                    t.rate_bounded += 1;
                    t.alpha_sum += 2.0 * (1.0 - c.level);
                } else if let Some(b) = c.unstable_bound {
                    t.unstable_bounded += 1;
                    t.unstable_max = t.unstable_max.max(b);
                    t.alpha_sum += b;
                } else {
                    t.alpha_sum += 1.0 - c.level;
                }
            }
        }
        t
    }

    /// The claims counted.
    pub fn total(&self) -> usize {
        self.reproduced
            + self.at_one_reading
            + self.at_conflicting
            + self.at_rate_ours
            + self.by_stability_test
            + self.untested
            + self.no_point
            + self.refuted
            + self.inconclusive
            + self.no_difference
            + self.partly
    }

    /// "2 reproduced, 1 not reproduced, 2 undecided" (parts that are 0
    /// left out but the first three), in the words of `voice`.
    pub fn words(&self, voice: Voice) -> String {
        // The words, and a claim's failing one in the singular.
        let (yes, no, fails) = match voice {
            Voice::Statements => ("reproduced", "not reproduced", "not reproduced"),
            Voice::Claims => ("hold", "fail", "fails"),
            Voice::Unheld => ("hold", "fail at lb's setting", "fails at lb's setting"),
        };
        let verb = |n: usize, one: &'static str, many: &'static str| match voice {
            Voice::Claims | Voice::Unheld if n == 1 => one,
            _ => many,
        };
        let mut parts = vec![
            format!(
                "{} {}",
                self.reproduced,
                verb(self.reproduced, "holds", yes)
            ),
            format!("{} {}", self.refuted, verb(self.refuted, fails, no)),
            format!("{} undecided", self.inconclusive),
        ];
        if self.partly > 0 {
            parts.insert(1, format!("{} {yes} except at some points", self.partly));
        }
        // Confirmations that rest on a choice of lb's, after those that do
        // not, in the order of their statuses.
        for (n, many, choice) in [
            (
                self.by_stability_test,
                "hold",
                "by a stability test of ours",
            ),
            (self.at_rate_ours, "hold", "at a rate threshold of ours"),
            (self.at_one_reading, yes, "at lb's reading only"),
            (self.at_conflicting, yes, "only at conflicting readings"),
        ] {
            if n > 0 {
                parts.insert(1, format!("{n} {} {choice}", verb(n, "holds", many)));
            }
        }
        if self.untested > 0 {
            parts.push(format!(
                "{} {} but {} not discriminate",
                self.untested,
                if self.untested == 1 { "holds" } else { "hold" },
                if self.untested == 1 { "does" } else { "do" }
            ));
        }
        if self.no_point > 0 {
            parts.push(format!("{} that no point could decide", self.no_point));
        }
        if self.no_difference > 0 {
            parts.push(format!("{} no practical difference", self.no_difference));
        }
        parts.join(", ")
    }

    /// Adds another tally to this one.
    pub fn add(&mut self, o: &Tally) {
        self.reproduced += o.reproduced;
        self.at_one_reading += o.at_one_reading;
        self.at_conflicting += o.at_conflicting;
        self.at_rate_ours += o.at_rate_ours;
        self.by_stability_test += o.by_stability_test;
        self.untested += o.untested;
        self.no_point += o.no_point;
        self.refuted += o.refuted;
        self.inconclusive += o.inconclusive;
        self.no_difference += o.no_difference;
        self.partly += o.partly;
        self.alpha_sum += o.alpha_sum;
        self.uncertified += o.uncertified;
        self.rate_bounded += o.rate_bounded;
        self.unstable_bounded += o.unstable_bounded;
        self.unstable_max = self.unstable_max.max(o.unstable_max);
        self.uncertified_stable += o.uncertified_stable;
        self.uncertified_controlled += o.uncertified_controlled;
    }
}

fn row(c: &ClaimResult) -> ClaimRow {
    ClaimRow {
        id: c.id.clone(),
        verdict: c.verdict,
        required: c.required,
        origin: c.origin,
        paper: c.paper.clone(),
        stands_for: c.stands_for.clone(),
        reading: c.reading.clone(),
        level: c.level,
        untested: c.untested.clone(),
        foil: c
            .foil
            .as_ref()
            .map(|f| format!("{}: {}", f.statement, f.verdict.word())),
        margin: c.margin.clone(),
        margin_hw: c
            .deciding()
            .and_then(|k| k.decision)
            .and_then(|d| Some(d.margin()? / d.half_width()))
            .filter(|x| x.is_finite()),
        to_decide: c.to_decide.clone(),
        robustness: Vec::new(),
        statement: c.statement.clone(),
        deciding: c
            .deciding()
            .map(|k| deciding_words(c, k))
            .unwrap_or_else(|| {
                if c.checks.is_empty() {
                    "no points computed".into()
                } else {
                    "no informative point (each is at the metric's floor, shows no effect, lies \
                     outside the theorem's hypothesis, or is matched by a null or the foil)"
                        .into()
                }
            }),
        confirmed: c
            .checks
            .iter()
            .filter(|k| k.verdict == Verdict::Confirmed)
            .count(),
        points: c.checks.len(),
        why: c.why.clone(),
        why_checks: c
            .why_checks
            .iter()
            .map(|w| (w.statement.clone(), w.verdict.word().to_string()))
            .collect(),
        except: c.except.clone(),
        informative: c.informative,
        matched: c.matched,
        null_holds: c.null_holds,
        pending: c.pending,
        uncertified: (c.kind == lb_manifest::claim::ClaimKind::Stability
            && unstable_bound(c).is_none())
            || (c.deciding().is_some_and(|k| k.by_rate()) && !rate_bounded(c))
            || c.controlled,
        controlled: c.controlled,
        unstable_bound: unstable_bound(c),
        rate_bounded: c.kind != lb_manifest::claim::ClaimKind::Stability && rate_bounded(c),
        stability: c.kind == lb_manifest::claim::ClaimKind::Stability,
        inside: c.inside,
        nulls: c
            .nulls
            .iter()
            .map(|n| format!("{}: {}", n.statement, n.verdict.word()))
            .collect(),
        reads: reads(c),
        floor_only: floor_only(c),
        threshold_ours: c.threshold_ours.clone(),
        conflicting: None,
    }
}

/// A claim confirmed through rates of approach each of which holds on its
/// steps' bounds ([`crate::RateRead::bounded`]).
fn rate_bounded(c: &ClaimResult) -> bool {
    let by_rate: Vec<&super::PointCheck> = c.checks.iter().filter(|k| k.by_rate()).collect();
    c.verdict == Verdict::Confirmed
        && !by_rate.is_empty()
        && by_rate
            .iter()
            .all(|k| k.rate.as_ref().is_some_and(|r| r.bounded))
}

/// A stability claim confirmed as "unstable" at every point it reads: the
/// greatest chance of any of those points reading unstable were it stable
/// (a wrong confirmation needs one point that does).
fn unstable_bound(c: &ClaimResult) -> Option<f64> {
    if c.kind != lb_manifest::claim::ClaimKind::Stability || c.verdict != Verdict::Confirmed {
        return None;
    }
    let read: Vec<&super::PointCheck> = c
        .checks
        .iter()
        .filter(|k| k.uninformative.is_none())
        .collect();
    if read.is_empty() {
        return None;
    }
    read.iter()
        .map(|k| k.false_unstable)
        .try_fold(0.0f64, |m, b| b.map(|b| m.max(b)))
}

/// The series of `c` each of whose checks is uninformative at the metric's
/// floor, where some other series has an informative check: a claim that
/// names them decides nothing of them.
pub(crate) fn floor_only(c: &ClaimResult) -> Vec<String> {
    let why = |k: &super::PointCheck, w: Why| k.uninformative.as_ref().is_some_and(|u| u.why == w);
    let at_floor = |k: &super::PointCheck| why(k, Why::Floor);
    let outside = |k: &super::PointCheck| why(k, Why::Outside);
    if !c.checks.iter().any(|k| k.uninformative.is_none()) {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for k in &c.checks {
        // Each of its checks uninformative, some at the floor, the others
        // outside the theorem's hypothesis (where they would decide nothing
        // at any value).
        let own = || c.checks.iter().filter(|x| x.policy == k.policy);
        if !out.contains(&k.policy)
            && own().any(&at_floor)
            && own().all(|x| at_floor(x) || outside(x))
        {
            out.push(k.policy.clone());
        }
    }
    out
}

/// The axes its checks read, each once, in order.
fn axis_names(checks: &[super::PointCheck]) -> Vec<&String> {
    let mut names: Vec<&String> = checks
        .iter()
        .flat_map(|k| k.axes.iter().map(|(n, _)| n))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The values of axis `n` its checks read, each once, in order.
fn distinct_values<'a>(checks: &'a [super::PointCheck], n: &str) -> Vec<&'a str> {
    let mut v = super::check::axis_values(checks, n);
    v.sort();
    v.dedup();
    v
}

/// What a claim reads, from its checks: the series compared and, per
/// axis, the values read ("JSQ − L-JBA-Push at load 0.3–0.99 (13 values)"),
/// with the foil's and the nulls' series. Generated, so that no text about
/// what lb runs is typed by hand.
pub(crate) fn reads(c: &ClaimResult) -> String {
    fn series(c: &ClaimResult) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for k in &c.checks {
            if !v.contains(&k.policy) {
                v.push(k.policy.clone());
            }
        }
        v
    }
    let mut axes: Vec<(String, Vec<String>)> = Vec::new();
    for k in &c.checks {
        for (name, value) in &k.axes {
            match axes.iter_mut().find(|(n, _)| n == name) {
                Some((_, vs)) if !vs.contains(value) => vs.push(value.clone()),
                Some(_) => {}
                None => axes.push((name.clone(), vec![value.clone()])),
            }
        }
    }
    let axis = |(name, vs): &(String, Vec<String>)| -> String {
        let nums: Option<Vec<(f64, &String)>> = vs
            .iter()
            .map(|v| v.parse::<f64>().ok().map(|x| (x, v)))
            .collect();
        match nums {
            Some(mut x) if x.len() > 3 => {
                x.sort_by(|a, b| a.0.total_cmp(&b.0));
                format!(
                    "{name} {}–{} ({} values)",
                    x[0].1,
                    x[x.len() - 1].1,
                    x.len()
                )
            }
            _ => format!("{name} {}", vs.join(", ")),
        }
    };
    let mut s = series(c).join(", ");
    if !axes.is_empty() {
        s.push_str(" at ");
        s.push_str(&axes.iter().map(axis).collect::<Vec<_>>().join(" × "));
        if c.kind == lb_manifest::claim::ClaimKind::Limit {
            s.push_str(
                " (the point nearest the limit; the rate of its gap reads the points before it)",
            );
        }
    }
    if let Some(f) = &c.foil {
        let fs = series(f);
        if !fs.is_empty() {
            // A foil of the claim's own series says where it reads them: the
            // settings it pins to values the claim does not read.
            let at: Vec<String> = if fs == series(c) {
                super::check::moved_axes(&c.checks, &f.checks, axis_names(&f.checks))
                    .iter()
                    .map(|n| format!("{n} = {}", distinct_values(&f.checks, n).join(", ")))
                    .collect()
            } else {
                Vec::new()
            };
            let at = if at.is_empty() {
                String::new()
            } else {
                format!(" at {}", at.join(", "))
            };
            s.push_str(&format!("; foil: {}{at}", fs.join(", ")));
        }
    }
    if !c.nulls.is_empty() {
        let n: Vec<String> = c.nulls.iter().flat_map(series).collect();
        s.push_str(&format!("; nulls: {}", n.join(", ")));
    }
    s
}
