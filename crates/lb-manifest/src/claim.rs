//! `[[claim]]` tables (docs/MODEL.md §5): a statement a paper makes that the
//! results can confirm or refute, and the checks of its `why`.
//!
//! A claim is written flat, its `kind` picking which of the other keys it
//! takes ([`ClaimToml`], [`WhyCheckToml`]: what the parser reads, strictly,
//! with serde's located errors). Validation (`validate`) turns each
//! into a [`Claim`]: the keys every claim has, and a [`Check`] with exactly
//! the keys of its kind, typed — one variant per kind, so that a consumer
//! matches on it and a new kind is a compile error wherever it has no arm.
//!
//! Adding a kind: its variant of [`Check`] and its struct here, with its
//! keys (`KEYS`); then the compiler lists every other place — here
//! [`ClaimKind`] (its name, keys and count) and the accessors of [`Check`],
//! the conversion and the figure check in `validate`, and in
//! lb-analysis the audit's dispatch (`audit/claim.rs`, which calls the
//! kind's own module), its rule in words (`audit/rule.rs`), and its
//! rendering (`audit/describe.rs`, `audit/markdown.rs`).

use crate::Point;
pub use crate::calibration::DecideAt;
use crate::outputs::{Reference, Where};
use serde::{Deserialize, Serialize};

/// The kinds of claim (docs/MODEL.md §5), as manifests name them.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    /// `better` has a lower `metric` than `worse` (paired across replications).
    Ordering,
    /// `metric` of `policies` equals `expected` within a tolerance.
    Value,
    /// `policies` are stable (or not, `stable = false`).
    Stability,
    /// `metric` of `policies` is ≤ (`side = "le"`) or ≥ `bound`.
    Bound,
    /// `metric` of `policies` moves one way (`direction`) along a sweep axis.
    Trend,
    /// `metric` of `policies` tends to `expected` as a sweep axis goes to 0
    /// or infinity.
    Limit,
}

/// The number of kinds: a `match`, so that a new kind does not compile
/// until it is counted here — and then until [`ClaimKind::ALL`] lists it.
const KINDS: usize = match ClaimKind::Ordering {
    ClaimKind::Ordering
    | ClaimKind::Value
    | ClaimKind::Stability
    | ClaimKind::Bound
    | ClaimKind::Trend
    | ClaimKind::Limit => 6,
};

impl ClaimKind {
    /// Every kind, in the order manifests list them.
    pub const ALL: [ClaimKind; KINDS] = [
        ClaimKind::Ordering,
        ClaimKind::Value,
        ClaimKind::Stability,
        ClaimKind::Bound,
        ClaimKind::Trend,
        ClaimKind::Limit,
    ];

    /// The kind as manifests write it.
    pub fn name(self) -> &'static str {
        match self {
            ClaimKind::Ordering => "ordering",
            ClaimKind::Value => "value",
            ClaimKind::Stability => "stability",
            ClaimKind::Bound => "bound",
            ClaimKind::Trend => "trend",
            ClaimKind::Limit => "limit",
        }
    }

    /// "an ordering", "a value": the kind with its article.
    pub fn a(self) -> String {
        let n = self.name();
        let article = if n.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        format!("{article} {n}")
    }

    /// The keys a claim of this kind takes beyond those every claim (and
    /// every check of a `why`) takes: `id`, `statement`, `source`, `kind`,
    /// `required`, `where`, `level`, `why`, `why_check` (`says`, `kind`,
    /// `where`, `level`).
    pub fn keys(self) -> &'static [&'static str] {
        match self {
            ClaimKind::Ordering => Ordering::KEYS,
            ClaimKind::Value => Value::KEYS,
            ClaimKind::Stability => Stability::KEYS,
            ClaimKind::Bound => Bound::KEYS,
            ClaimKind::Trend => Trend::KEYS,
            ClaimKind::Limit => Limit::KEYS,
        }
    }
}

/// Declares the two tables a check is written in — [`ClaimToml`] and
/// [`WhyCheckToml`] — and [`CheckToml`], the keys they share, from one list
/// of those keys: each is declared once, in the invocation below. (serde's
/// `flatten` would share them too, but not with `deny_unknown_fields`.)
macro_rules! claim_tables {
    ($( $(#[doc = $doc:literal])* $(#[serde($($serde:tt)*)])? $(#[schemars($($sch:tt)*)])? $key:ident: $ty:ty, )*) => {
        /// `[[claim]]` as written: every key of every kind, checked and
        /// typed into a [`Claim`] by validation.
        #[derive(Debug, Clone, Deserialize, Serialize, PartialEq, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct ClaimToml {
            /// Short identifier, unique in the manifest.
            pub id: String,
            /// The published statement, as the paper makes it.
            pub statement: String,
            /// The paper, figure or section, page where known.
            pub source: String,
            /// The kind of claim, which decides its other keys.
            pub kind: ClaimKind,
            /// A refuted required claim makes `lb audit` fail. For what the
            /// project itself guarantees (exact theory); a paper's claim is
            /// audited, not required.
            #[serde(default)]
            pub required: bool,
            /// Who claimed it: the paper itself, our stand-in for one of its
            /// statements, or lb's own check ([`Origin`]). Required but for a
            /// `required` claim, which is lb's check.
            pub origin: Option<Origin>,
            /// The paper whose statement it is (or stands in for), when not
            /// the experiment's `paper`.
            pub paper: Option<String>,
            /// A stand-in: the id of the paper's statement it tests, a claim
            /// of this manifest (`id`) or of another (`experiment/id`).
            pub tests: Option<String>,
            /// A stand-in whose statement is no claim of ours: the paper's
            /// statement, quoted, with where it is.
            pub stands_for: Option<String>,
            /// A paper's statement: the setting its paper states or implies
            /// for it, with the sentence that implies it quoted and where it
            /// is. The claim is decided there; what the text leaves open goes
            /// to a robustness map.
            pub reading: Option<String>,
            $( $(#[doc = $doc])* $(#[serde($($serde)*)])? $(#[schemars($($sch)*)])? pub $key: $ty, )*
            /// Why the claim fails in our setting (refuted or inconclusive),
            /// in a sentence or two; the report prints it beside the verdict.
            pub why: Option<String>,
            /// Checks of the `why` against the data.
            #[serde(default)]
            pub why_check: Vec<WhyCheckToml>,
            /// The claim's foil: the same check (its `kind`) at a policy,
            /// graph, size or setting where the claimed property should
            /// fail, with `says` naming it and why. A confirmation counts
            /// only if its foil is refuted: one whose foil holds too does
            /// not discriminate. A paper's statement and a stand-in name a
            /// foil or say, in `no_foil`, why none can fail. The foil reads
            /// the claim's control variate unless it names its own.
            pub foil: Option<WhyCheckToml>,
            /// Why no setting could fail the claim (a floor every policy
            /// meets by construction, a bound of the whole class): its
            /// confirmation is shown and not counted.
            pub no_foil: Option<String>,
            /// What the claim credits its property to ([`Credit`]): lb
            /// derives its nulls from it, policies just outside what it
            /// credits, and counts only the points where every null fails.
            pub credits: Option<Credit>,
            /// A second cause the claim's sentence names ([`Credit`]): the
            /// claim is held to the nulls of both, and a point informs only
            /// where every null fails (docs/AUDITING.md, "Nulls", on nulls
            /// that are not held together).
            pub also_credits: Option<Credit>,
            /// A theorem's hypothesis as a condition on each point, by name
            /// (the model's: "liu-ying"): a point outside it decides nothing,
            /// and the audit says how many of the claim's points are inside.
            pub hypothesis: Option<String>,
            /// Other experiments whose settled records of the same reading
            /// (the same resolved configuration apart from run length and
            /// replication count) the claim reads where its own have not
            /// settled: the best evidence lb holds.
            #[serde(default)]
            pub reads: Vec<String>,
        }

        /// `[[claim.why_check]]` as written: a claim's keys but id,
        /// statement, source, required, why and why_check; and `says`.
        #[derive(Debug, Clone, Deserialize, Serialize, PartialEq, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct WhyCheckToml {
            /// What the check shows, in words (the report prints it).
            pub says: String,
            /// The kind of check: the claim's own.
            pub kind: ClaimKind,
            $( $(#[doc = $doc])* $(#[serde($($serde)*)])? $(#[schemars($($sch)*)])? pub $key: $ty, )*
        }

        /// The keys of a check as written, whichever table holds them:
        /// what validation reads to type it ([`Check`]).
        #[derive(Debug, Clone, PartialEq)]
        pub struct CheckToml {
            /// The kind of check.
            pub kind: ClaimKind,
            $( $(#[doc = $doc])* pub $key: $ty, )*
        }

        impl ClaimToml {
            /// The keys of its check.
            pub fn check(&self) -> CheckToml {
                CheckToml { kind: self.kind, $( $key: self.$key.clone(), )* }
            }
        }

        impl WhyCheckToml {
            /// The keys of its check.
            pub fn check(&self) -> CheckToml {
                CheckToml { kind: self.kind, $( $key: self.$key.clone(), )* }
            }
        }
    };
}

claim_tables! {
    /// The metric read (not for `stability`).
    metric: Option<String>,
    /// The points read; default: every point of the policies named.
    #[serde(default, rename = "where")]
    #[schemars(with = "crate::outputs::WhereSchema")]
    filter: Where,
    /// `ordering`: the policy claimed better (lower metric) …
    better: Option<String>,
    /// … and the one it beats.
    worse: Option<String>,
    /// The policies the claim is about (every kind but `ordering`).
    policies: Option<Vec<String>>,
    /// `value`, `limit`: the reference.
    expected: Option<Reference>,
    /// `value`, `limit`: the relative tolerance.
    tolerance: Option<f64>,
    /// `value`, `limit`: the absolute tolerance.
    abs_tolerance: Option<f64>,
    /// `stability`: the claimed verdict.
    stable: Option<bool>,
    /// `bound`: the bound …
    bound: Option<Reference>,
    /// … and its side, "le" or "ge".
    side: Option<String>,
    /// `trend`, `limit`: the sweep axis.
    along: Option<String>,
    /// `trend`: "increasing" or "decreasing".
    direction: Option<String>,
    /// `limit`: "zero" or "infinity".
    toward: Option<String>,
    /// `limit`: how many points nearest the limit are read.
    last: Option<u32>,
    /// `limit`: the slowest rate of approach counted as one.
    min_rate: Option<f64>,
    /// `limit`, with `min_rate`: where that rate comes from, `"@key, where:
    /// how"` for the paper's own (the order its statement gives) or
    /// `"ours: why"` (a rate derived from a proof is ours). A claim's foil
    /// reads the claim's rate and need not repeat it.
    rate_from: Option<String>,
    /// `limit`, with `min_rate`: a gap outside the tolerance that closes
    /// faster than `min_rate` with confidence confirms (the limit read
    /// through the rate of its gap). Default: true where `min_rate` is
    /// given, for statements and stand-ins alike.
    rate_decides: Option<bool>,
    /// `limit`, with `min_rate`: false for a claim that the metric does not
    /// tend to `expected` (default true).
    approaches: Option<bool>,
    /// `value`, `bound`: a control variate.
    control: Option<ControlToml>,
    /// `ordering`, `trend`: the equivalence margin, in the metric's unit: a
    /// difference within ± it is no practical difference.
    equivalence: Option<f64>,
    /// `ordering`: a statement that compares at the same or a similar
    /// message overhead: the most `better`'s messages per arrival may be, as
    /// a multiple of `worse`'s, at a point that compares at it (1.25: "a
    /// similar overhead"; 1: "the same or smaller"). Beyond it the point
    /// decides nothing.
    overhead_ratio: Option<f64>,
    /// Confidence level of the intervals (default 0.95).
    level: Option<f64>,
    /// The level the audit decides at: "calibrated" (default: `level` as
    /// lb's coverage certificate calibrated it, [`crate::calibration`]) or
    /// "nominal" (`level` itself).
    decide_at: Option<DecideAt>,
}

/// `control = { policy = "WR", mean = "wr_sum_q", beta = "fitted" }` as
/// written ([`Control`]).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ControlToml {
    /// The policy (label) whose mean it controls.
    pub policy: String,
    /// The metric of the control variate, whose exact mean is known.
    pub mean: String,
    /// Its coefficient: a name of the model's, or estimated (default).
    pub beta: Option<String>,
}

/// Who claimed it: what the report counts a verdict as.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub enum Origin {
    /// The paper's own statement: `statement` quotes it, `source` says where
    /// (theorem, figure, page).
    #[serde(rename = "paper")]
    Paper,
    /// Our operationalisation of a paper's statement (a finite N or ε, a
    /// tolerance or a setting we chose), linked to the statement it tests.
    #[serde(rename = "stand-in")]
    StandIn,
    /// lb's own check: exact theory, a closed form or a fluid rate we
    /// derived.
    #[serde(rename = "check")]
    Check,
    /// A conjecture of ours about the papers' systems: neither a paper's
    /// statement nor exact theory (a refutation says nothing against a
    /// paper, nor against the engines).
    #[serde(rename = "ours")]
    Ours,
}

impl Origin {
    /// As manifests write it.
    pub fn name(self) -> &'static str {
        match self {
            Origin::Paper => "paper",
            Origin::StandIn => "stand-in",
            Origin::Check => "check",
            Origin::Ours => "ours",
        }
    }
}

/// What a claim credits its property to: the rule that computes its nulls
/// ([`Claim::nulls`], docs/AUDITING.md "Nulls"). A null is the claim's own
/// check with its subject replaced by a policy just outside what the claim
/// credits; a point where a null passes too does not discriminate.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Credit {
    /// A performance ordering credited to the information a policy keeps or
    /// the coordination it achieves: uniform Random and rate-proportional
    /// weighted random (WR), which use neither, take `better`'s place.
    Information,
    /// Stability credited to tilting toward fast servers (Zhou, Shroff and
    /// Wierman, Theorem 1's condition): uniform Random, which does not
    /// tilt, and L-Pod-Push, which dispatches on estimates but is not tilted
    /// on heterogeneous servers (Example 3), take the place of `policies`.
    Tilt,
    /// A property credited to membership of Liu and Ying's class (Pod with
    /// d = N^α ln N among its members): Pod with d = N^α, without ln N, just
    /// outside the class, takes the place of `policies`.
    Class,
    /// A property credited to allocating service by pressure (Dai and Lin's
    /// max-pressure): FIFO and own buffer first, which allocate without
    /// pressure, take the place of `policies`.
    Pressure,
    /// An ordering credited to the staleness or inaccuracy of the estimates
    /// the policies dispatch on (Zhou, Shroff and Wierman, Fig. 1:
    /// "Inaccurate information could improve performance"; §4.2:
    /// "heavily-delayed information"): the same two policies with fresh
    /// estimates, the
    /// manifest's policies labelled "`<label> (fresh)`", take their places.
    Delay,
    /// An ordering credited to *heavily*-delayed information (Zhou, Shroff
    /// and Wierman, Fig. 2: L-JSQ-Push "suffers from herd behavior because
    /// of heavily-delayed information" at p̂ = 0.01): the same two policies
    /// updated at every chance their update rule gives (p̂ = 1, the same
    /// sample size), the lightest delay of that rule, the manifest's
    /// policies labelled "`<label> (p̂ = 1)`", take their places. Where the
    /// ordering holds there too, heavy delay is not what it needs.
    HeavyDelay,
    /// A limit credited to a parameter that grows without bound as N does
    /// (Mukherjee, Borst and van Leeuwaarden: a graph's degree d(N) → ∞):
    /// the same policies with the parameter frozen at its value at the
    /// largest N the claim reads, the manifest's policies labelled
    /// "`<label> (frozen)`", take their places. There they coincide with the
    /// subject, so what separates the two is the rate of approach: such a
    /// claim is decided by its rate (`min_rate`, a tolerance of 0). An
    /// ordering credited to growth (a growing degree beats a fixed one) is
    /// held to its better policy frozen in the same way.
    Growth,
    /// A property credited to a parameter above a stated threshold
    /// (Mukherjee, Borst and van Leeuwaarden: an Erdős–Rényi graph is
    /// √N-optimal if d(N)/(√N ln N) → ∞): the same policies with the
    /// parameter just below it, the manifest's policies labelled
    /// "`below the threshold of <label>`", take their places.
    Threshold,
    /// A limit credited to updates that refresh each estimate with a
    /// probability bounded away from 0 as ε → 0 (Zhou, Shroff and Wierman,
    /// Theorem 2: "a positive constant p (independent of ε)"): the same
    /// policies with p̂ shrinking in proportion to ε, the manifest's policies
    /// labelled "`<label> (p̂ ∝ ε)`", take their places. They coincide with
    /// the subject at the largest ε only, so such a claim is decided by its
    /// rate (`min_rate`).
    Refresh,
    /// An ordering credited to the herd of the policy it beats (Zhou, Shroff
    /// and Wierman, Fig. 1: the LED policies beat "JSQ, which suffers from
    /// the herd behavior in the multiple-dispatcher case"). It has no null
    /// of its own: the beaten policy with its dispatchers breaking ties each
    /// on its own still herds on a unique shortest queue, so it takes away
    /// only part of the herd, and it changes only the beaten policy. Read by
    /// size, the claim's effect less its effect is the beaten policy's two
    /// versions' difference, which reads nothing of the better policy; read
    /// by sign, the part of the herd it leaves can carry the effect. It
    /// carries the information nulls ([`Credit::carries`]).
    Herd,
}

impl Credit {
    /// The name of its null where the null is the claim's own policies
    /// changed (`<claim id>/null-<name>`), none where it names other
    /// policies ([`Credit::null_labels`]).
    pub fn own_null(self) -> Option<&'static str> {
        match self {
            Credit::Delay => Some("fresh"),
            Credit::HeavyDelay => Some("p-hat-1"),
            Credit::Growth => Some("frozen"),
            Credit::Threshold => Some("below"),
            Credit::Refresh => Some("p-hat-to-0"),
            Credit::Information
            | Credit::Tilt
            | Credit::Class
            | Credit::Pressure
            | Credit::Herd => None,
        }
    }

    /// Whether its null takes away only part of what it credits, and
    /// changes both policies of the ordering — the degree of a delay (p̂ = 1
    /// against heavily-delayed information) — so that a null that holds too
    /// is read by size (docs/AUDITING.md, "Nulls"). A null that would take
    /// away part of the credit by changing only the beaten policy is not
    /// held ([`Credit::Herd`]).
    pub fn read_by_size(self) -> bool {
        matches!(self, Credit::HeavyDelay)
    }

    /// Whether the null whose id is `id` is read by size
    /// ([`Credit::read_by_size`]).
    pub fn null_read_by_size(id: &str) -> bool {
        Credit::ALL.iter().any(|c| {
            c.read_by_size()
                && c.own_null()
                    .is_some_and(|n| id.strip_suffix(n).is_some_and(|r| r.ends_with("/null-")))
        })
    }

    /// The credit it carries with it, whose nulls a claim crediting it is
    /// held to as well. An ordering credited to the herd of the policy it
    /// beats is an ordering of the better policy's information too: where
    /// uniform Random or weighted random, which use none, beat the herding
    /// policy as well, the herd alone decides and the point says nothing of
    /// the better policy ([`Credit::Information`]).
    pub fn carries(self) -> Option<Credit> {
        match self {
            Credit::Herd => Some(Credit::Information),
            _ => None,
        }
    }

    /// Every credit, in the order docs/AUDITING.md lists them.
    pub const ALL: [Credit; 10] = [
        Credit::Information,
        Credit::Tilt,
        Credit::Class,
        Credit::Pressure,
        Credit::Delay,
        Credit::HeavyDelay,
        Credit::Growth,
        Credit::Threshold,
        Credit::Refresh,
        Credit::Herd,
    ];

    /// As manifests write it.
    pub fn name(self) -> &'static str {
        match self {
            Credit::Information => "information",
            Credit::Tilt => "tilt",
            Credit::Class => "class",
            Credit::Pressure => "pressure",
            Credit::Delay => "delay",
            Credit::HeavyDelay => "heavy_delay",
            Credit::Growth => "growth",
            Credit::Threshold => "threshold",
            Credit::Refresh => "refresh",
            Credit::Herd => "herd",
        }
    }

    /// The policies (labels) of its nulls.
    pub fn null_labels(self) -> &'static [&'static str] {
        match self {
            Credit::Information => &["Random", "WR"],
            Credit::Tilt => &["Random", "L-Pod-Push"],
            Credit::Class => &["Pod(N^α)"],
            Credit::Pressure => &["FIFO", "own buffer first"],
            // Named after the claim's own policies ([`Claim::null_policies`]).
            Credit::Delay
            | Credit::HeavyDelay
            | Credit::Growth
            | Credit::Threshold
            | Credit::Refresh
            | Credit::Herd => &[],
        }
    }

    /// Whether it applies to a claim of kind `k`.
    pub fn applies_to(self, k: ClaimKind) -> bool {
        match self {
            Credit::Information | Credit::Delay | Credit::HeavyDelay | Credit::Herd => {
                k == ClaimKind::Ordering
            }
            Credit::Tilt => k == ClaimKind::Stability,
            Credit::Class | Credit::Threshold => k != ClaimKind::Ordering,
            Credit::Pressure => true,
            // Not an ordering: the frozen better policy has the larger
            // parameter at every smaller N, so where the growing one beats
            // the other at the largest N the frozen one beats it too, and
            // its null could not fail.
            Credit::Growth => k == ClaimKind::Limit,
            Credit::Refresh => k == ClaimKind::Limit,
        }
    }

    /// What the nulls use none of, in words.
    pub fn outside(self) -> &'static str {
        match self {
            Credit::Information => "information or coordination",
            Credit::Tilt => "tilt toward fast servers",
            Credit::Class => "membership of Liu and Ying's class (no ln N factor in d)",
            Credit::Pressure => "allocation by pressure",
            Credit::Delay => "staleness: its estimates are fresh",
            Credit::HeavyDelay => {
                "heavy delay: it updates at every chance its update rule gives (p̂ = 1, the same \
                 sample size)"
            }
            Credit::Growth => "growth: its parameter is frozen at its value at the largest N",
            Credit::Threshold => "parameter above the threshold: it is just below it",
            Credit::Refresh => {
                "refresh bounded away from 0: its update probability p̂ shrinks in proportion \
                 to ε"
            }
            // No null of its own: those it carries ([`Credit::carries`]).
            Credit::Herd => "the beaten policy's herd",
        }
    }
}

/// The label of a policy's counterpart with its growing parameter frozen
/// ([`Credit::Growth`]).
pub fn frozen(label: &str) -> String {
    format!("{label} (frozen)")
}

/// The label of a policy's counterpart with its parameter just below the
/// claim's threshold ([`Credit::Threshold`]).
pub fn below(label: &str) -> String {
    format!("below the threshold of {label}")
}

/// The label of a policy's counterpart whose p̂ shrinks in proportion to ε
/// ([`Credit::Refresh`]).
pub fn vanishing(label: &str) -> String {
    format!("{label} (p̂ ∝ ε)")
}

/// The label of a policy's counterpart updated at every chance its update
/// rule gives ([`Credit::HeavyDelay`]).
pub fn frequent(label: &str) -> String {
    format!("{label} (p̂ = 1)")
}

/// The label of a policy's fresh-estimate counterpart ([`Credit::Delay`]).
pub fn fresh(label: &str) -> String {
    format!("{label} (fresh)")
}

/// What a stand-in stands for: a paper claim of ours, or the paper's words.
#[derive(Debug, Clone, PartialEq)]
pub enum StandsFor {
    /// `tests`: a claim id, `id` (this manifest) or `experiment/id`.
    Claim(String),
    /// `stands_for`: the statement, quoted.
    Quote(String),
}

/// The confidence level of a claim's intervals unless it gives `level`.
pub const DEFAULT_LEVEL: f64 = 0.95;

/// A claim, validated: what every claim has, and its [`Check`].
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// Short identifier, unique in the manifest.
    pub id: String,
    /// The published statement, as the paper makes it.
    pub statement: String,
    /// The paper, figure or section, page where known.
    pub source: String,
    /// A refuted required claim makes `lb audit` fail: for what the project
    /// itself guarantees (exact theory); a paper's claim is audited, not
    /// required.
    pub required: bool,
    /// Who claimed it.
    pub origin: Origin,
    /// The paper whose statement it is or stands for (None for lb's checks
    /// that name none).
    pub paper: Option<String>,
    /// A stand-in's statement: the claim it tests or the paper's words.
    pub stands_for: Option<StandsFor>,
    /// A paper's statement: the setting its paper states or implies, with
    /// the sentence that implies it (`reading`).
    pub reading: Option<String>,
    /// The points read (`where`); empty: every point of the policies named.
    pub filter: Where,
    /// The level its intervals decide at: `stated_level` as the coverage
    /// certificate calibrated it, unless `decide_at = "nominal"`
    /// ([`crate::calibration::decision_level`]).
    pub level: f64,
    /// The confidence level the manifest states (`level`, default 0.95).
    pub stated_level: f64,
    /// Whether `level` is `stated_level` calibrated (`decide_at`).
    pub decide_at: DecideAt,
    /// Why the claim fails in our setting (refuted or inconclusive), in a
    /// sentence or two; the report prints it beside the verdict.
    pub why: Option<String>,
    /// Checks of the `why` against the data, audited with the claim; the
    /// report shows their verdicts beside the `why`. They are evidence, not
    /// claims of the paper, and are not counted among the experiment's
    /// claims.
    pub why_checks: Vec<WhyCheck>,
    /// Its foil (`[claim.foil]`): the same check where the property should
    /// fail. A confirmation counts only if the foil is refuted.
    pub foil: Option<WhyCheck>,
    /// Why no setting could fail it (`no_foil`): a confirmation that
    /// cannot discriminate, shown and not counted.
    pub no_foil: Option<String>,
    /// What it credits its property to: the rule of its nulls.
    pub credits: Option<Credit>,
    /// A second credit whose nulls it is held to as well (`also_credits`).
    pub also_credits: Option<Credit>,
    /// A theorem's hypothesis, by name, as a condition on each point
    /// ([`lb_model::config::PointConfig::hypothesis`]).
    pub hypothesis: Option<String>,
    /// Other experiments whose settled records of the same reading it reads
    /// where its own have not settled (`reads`).
    pub reads: Vec<String>,
    /// What the claim holds the points to.
    pub check: Check,
}

impl Claim {
    /// Its own check and those it carries (its `why`'s checks, its foil),
    /// each with its key path for errors (`claim[i]`,
    /// `claim[i].why_check[j]`, `claim[i].foil`) and the points it reads.
    pub(crate) fn all_checks(&self, i: usize) -> Vec<(String, &Where, &Check)> {
        let mut all = vec![(format!("claim[{i}]"), &self.filter, &self.check)];
        all.extend(
            self.why_checks
                .iter()
                .enumerate()
                .map(|(j, w)| (format!("claim[{i}].why_check[{j}]"), &w.filter, &w.check)),
        );
        all.extend(
            self.foil
                .iter()
                .map(|f| (format!("claim[{i}].foil"), &f.filter, &f.check)),
        );
        all
    }

    /// The policies (labels) its nulls put in place of its own: the
    /// credit's, or, for a delay, its two policies "(fresh)"; each with the
    /// policy of the claim it is the counterpart of, where it is one.
    pub fn null_policies(&self) -> Vec<(String, Option<String>)> {
        self.held_credits()
            .into_iter()
            .flat_map(|c| self.null_policies_of(Some(c)))
            .collect()
    }

    /// The credits whose nulls it is held to: `credits`, `also_credits`,
    /// and what each carries with it ([`Credit::carries`]), once each.
    pub fn held_credits(&self) -> Vec<Credit> {
        let mut all: Vec<Credit> = Vec::new();
        for c in self.credits.into_iter().chain(self.also_credits) {
            for c in std::iter::once(c).chain(c.carries()) {
                if !all.contains(&c) {
                    all.push(c);
                }
            }
        }
        all
    }

    /// [`Claim::null_policies`] of one credit.
    fn null_policies_of(&self, credit: Option<Credit>) -> Vec<(String, Option<String>)> {
        fn of<S: AsRef<str>>(f: fn(&str) -> String, ps: &[S]) -> Vec<(String, Option<String>)> {
            ps.iter()
                .map(|p| (f(p.as_ref()), Some(p.as_ref().to_string())))
                .collect()
        }
        match (credit, &self.check) {
            (Some(Credit::Delay), Check::Ordering(o)) => of(fresh, &[&o.better, &o.worse]),
            (Some(Credit::HeavyDelay), Check::Ordering(o)) => of(frequent, &[&o.better, &o.worse]),
            (Some(Credit::Growth), c) => of(frozen, c.policies()),
            (Some(Credit::Threshold), c) => of(below, c.policies()),
            (Some(Credit::Refresh), c) => of(vanishing, c.policies()),
            (Some(c), _) => c
                .null_labels()
                .iter()
                .map(|s| (s.to_string(), None))
                .collect(),
            (None, _) => Vec::new(),
        }
    }

    /// Its nulls ([`Credit`]), each as a claim of its own,
    /// `<claim id>/null-<label>`: its own check at its own points with its
    /// subject replaced by a policy just outside what it credits. The rule
    /// is here, once, for every manifest.
    pub fn nulls(&self) -> Vec<Claim> {
        self.held_credits()
            .into_iter()
            .flat_map(|c| self.nulls_of(Some(c)))
            .collect()
    }

    /// [`Claim::nulls`] of one credit.
    fn nulls_of(&self, credit: Option<Credit>) -> Vec<Claim> {
        let Some(credit) = credit else {
            return Vec::new();
        };
        let delayed: Vec<&str> = credit
            .own_null()
            .filter(|_| credit.applies_to(self.check.kind()))
            .into_iter()
            .collect();
        credit
            .null_labels()
            .iter()
            .chain(delayed.iter())
            .filter_map(|&null| {
                let check = match (&self.check, credit) {
                    (Check::Ordering(o), Credit::Delay) => Check::Ordering(Ordering {
                        better: fresh(&o.better),
                        worse: fresh(&o.worse),
                        ..o.clone()
                    }),
                    (_, Credit::Delay) => return None,
                    (Check::Ordering(o), Credit::HeavyDelay) => Check::Ordering(Ordering {
                        better: frequent(&o.better),
                        worse: frequent(&o.worse),
                        ..o.clone()
                    }),
                    (_, Credit::HeavyDelay) => return None,
                    (_, Credit::Herd) => return None,
                    (c, Credit::Growth) if c.kind() == ClaimKind::Limit => {
                        c.with_policies(c.policies().iter().map(|p| frozen(p)).collect())
                    }
                    (_, Credit::Growth) => return None,
                    (c, Credit::Threshold) if credit.applies_to(c.kind()) => {
                        c.with_policies(c.policies().iter().map(|p| below(p)).collect())
                    }
                    (_, Credit::Threshold) => return None,
                    (c, Credit::Refresh) if credit.applies_to(c.kind()) => {
                        c.with_policies(c.policies().iter().map(|p| vanishing(p)).collect())
                    }
                    (_, Credit::Refresh) => return None,
                    (Check::Ordering(o), Credit::Information | Credit::Pressure) => {
                        (o.better != null && o.worse != null).then(|| {
                            Check::Ordering(Ordering {
                                better: null.to_string(),
                                ..o.clone()
                            })
                        })?
                    }
                    (Check::Ordering(_), Credit::Tilt | Credit::Class) => {
                        return None;
                    }
                    (c, _) if credit.applies_to(c.kind()) => {
                        (!c.policies().iter().any(|p| p == null))
                            .then(|| c.with_policies(vec![null.to_string()]))?
                    }
                    _ => return None,
                };
                // Who takes the subject's place: the credit's policy, or the
                // claim's own policies' counterparts.
                let who = match &check {
                    _ if credit.null_labels().contains(&null) => null.to_string(),
                    Check::Ordering(o) if matches!(credit, Credit::Delay | Credit::HeavyDelay) => {
                        format!("{} and {}", o.better, o.worse)
                    }
                    Check::Ordering(o) => o.better.clone(),
                    c => c.policies().join(" and "),
                };
                // A check the claim carries, as its foil is: the claim's own
                // points and levels.
                let carried = WhyCheck {
                    says: format!(
                        "null of {} ({who} in the subject's place: it uses no {})",
                        self.id,
                        credit.outside()
                    ),
                    filter: self.filter.clone(),
                    level: self.level,
                    stated_level: self.stated_level,
                    decide_at: self.decide_at,
                    check,
                };
                let mut c = carried.as_claim(self, 0);
                c.id = format!("{}/null-{null}", self.id);
                c.source = format!("null of {}", self.id);
                Some(c)
            })
            .flat_map(|c| c.one_null_per_policy(credit))
            .collect()
    }

    /// A null whose policies are the claim's own counterparts, one for each
    /// of several policies (growth, threshold, refresh), as one null per
    /// policy, `<null id>-<k>` (k from 1): each policy's property is credited
    /// to the same cause, so each counterpart must fail on its own for the
    /// claim to discriminate; read together, one failing counterpart would
    /// hide the others that hold. Any other null is kept as it is.
    fn one_null_per_policy(self, credit: Credit) -> Vec<Claim> {
        let ps = self.check.policies();
        let counterparts = matches!(credit, Credit::Growth | Credit::Threshold | Credit::Refresh);
        if !counterparts || ps.len() < 2 || self.check.kind() == ClaimKind::Ordering {
            return vec![self];
        }
        ps.iter()
            .enumerate()
            .map(|(k, p)| {
                let mut c = self.clone();
                c.id = format!("{}-{}", self.id, k + 1);
                c.check = self.check.with_policies(vec![p.clone()]);
                c.statement = self.statement.replacen(&ps.join(" and "), p, 1);
                c
            })
            .collect()
    }

    /// Its foil as a claim of its own, `<claim id>/foil`.
    pub fn foil_claim(&self) -> Option<Claim> {
        self.foil.as_ref().map(|f| {
            let mut c = f.as_claim(self, 0);
            c.id = format!("{}/foil", self.id);
            c.source = format!("foil of {}", self.id);
            c
        })
    }
}

/// `[[claim.why_check]]`, validated: a check of a claim's `why`.
#[derive(Debug, Clone, PartialEq)]
pub struct WhyCheck {
    /// What the check shows, in words (the report prints it).
    pub says: String,
    /// The points it reads (`where`).
    pub filter: Where,
    /// The level it decides at, and the one its table states (as a
    /// claim's).
    pub level: f64,
    /// The confidence level its table states.
    pub stated_level: f64,
    /// Whether `level` is `stated_level` calibrated.
    pub decide_at: DecideAt,
    /// What it holds its points to.
    pub check: Check,
}

impl WhyCheck {
    /// The check as a claim of its own, `<claim id>/why-<i + 1>`.
    pub fn as_claim(&self, claim: &Claim, i: usize) -> Claim {
        Claim {
            id: format!("{}/why-{}", claim.id, i + 1),
            statement: self.says.clone(),
            source: format!("check of the why of {}", claim.id),
            required: false,
            origin: Origin::Check,
            paper: None,
            stands_for: None,
            reading: None,
            filter: self.filter.clone(),
            level: self.level,
            stated_level: self.stated_level,
            decide_at: self.decide_at,
            why: None,
            why_checks: Vec::new(),
            foil: None,
            no_foil: None,
            credits: None,
            also_credits: None,
            hypothesis: None,
            reads: claim.reads.clone(),
            check: self.check.clone(),
        }
    }
}

/// What a claim holds its points to: one variant per kind, each with
/// exactly the keys of its kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// `ordering`: one policy's metric below another's.
    Ordering(Ordering),
    /// `value`: a metric against a reference.
    Value(Value),
    /// `stability`: the policies' stability verdicts.
    Stability(Stability),
    /// `bound`: a metric on one side of a bound.
    Bound(Bound),
    /// `trend`: a metric rising or falling along an axis.
    Trend(Trend),
    /// `limit`: a metric tending to a reference along an axis.
    Limit(Limit),
}

impl Check {
    /// Its kind.
    pub fn kind(&self) -> ClaimKind {
        match self {
            Check::Ordering(_) => ClaimKind::Ordering,
            Check::Value(_) => ClaimKind::Value,
            Check::Stability(_) => ClaimKind::Stability,
            Check::Bound(_) => ClaimKind::Bound,
            Check::Trend(_) => ClaimKind::Trend,
            Check::Limit(_) => ClaimKind::Limit,
        }
    }

    /// The metric read; None for a stability claim.
    pub fn metric(&self) -> Option<&str> {
        match self {
            Check::Ordering(c) => Some(&c.metric),
            Check::Value(c) => Some(&c.metric),
            Check::Stability(_) => None,
            Check::Bound(c) => Some(&c.metric),
            Check::Trend(c) => Some(&c.metric),
            Check::Limit(c) => Some(&c.metric),
        }
    }

    /// Its `policies`: the labels it is about (none for an ordering, which
    /// names `better` and `worse`).
    pub fn policies(&self) -> &[String] {
        match self {
            Check::Ordering(_) => &[],
            Check::Value(c) => &c.policies,
            Check::Stability(c) => &c.policies,
            Check::Bound(c) => &c.policies,
            Check::Trend(c) => &c.policies,
            Check::Limit(c) => &c.policies,
        }
    }

    /// The same check about `policies` instead of its own (every kind but
    /// an ordering, which is returned as it is).
    pub fn with_policies(&self, policies: Vec<String>) -> Check {
        match self {
            Check::Ordering(_) => self.clone(),
            Check::Value(c) => Check::Value(Value {
                policies,
                ..c.clone()
            }),
            Check::Stability(c) => Check::Stability(Stability {
                policies,
                ..c.clone()
            }),
            Check::Bound(c) => Check::Bound(Bound {
                policies,
                ..c.clone()
            }),
            Check::Trend(c) => Check::Trend(Trend {
                policies,
                ..c.clone()
            }),
            Check::Limit(c) => Check::Limit(Limit {
                policies,
                ..c.clone()
            }),
        }
    }

    /// Every label it reads: its `policies`, or `better` and `worse`.
    pub fn labels(&self) -> Vec<&str> {
        match self {
            Check::Ordering(c) => vec![&c.better, &c.worse],
            Check::Value(_)
            | Check::Stability(_)
            | Check::Bound(_)
            | Check::Trend(_)
            | Check::Limit(_) => self.policies().iter().map(String::as_str).collect(),
        }
    }

    /// The reference it holds the metric to, with its key (`expected`,
    /// `bound`).
    pub fn reference(&self) -> Option<(&'static str, &Reference)> {
        match self {
            Check::Ordering(_) | Check::Stability(_) | Check::Trend(_) => None,
            Check::Value(c) => Some(("expected", &c.expected)),
            Check::Bound(c) => Some(("bound", &c.bound)),
            Check::Limit(c) => Some(("expected", &c.expected)),
        }
    }

    /// Its control variate, if any (value, bound and limit claims).
    pub fn control(&self) -> Option<&Control> {
        match self {
            Check::Value(c) => c.control.as_ref(),
            Check::Bound(c) => c.control.as_ref(),
            Check::Limit(c) => c.control.as_ref(),
            Check::Ordering(_) | Check::Stability(_) | Check::Trend(_) => None,
        }
    }
}

/// `ordering`: `better` has a lower `metric` than `worse`, decided on the
/// paired difference `worse − better` across replications (common random
/// numbers).
#[derive(Debug, Clone, PartialEq)]
pub struct Ordering {
    /// The metric compared.
    pub metric: String,
    /// The policy (label) claimed to have the lower metric …
    pub better: String,
    /// … and the one it beats.
    pub worse: String,
    /// A difference within ± this (metric's unit) is no practical
    /// difference: 0 when not given.
    pub equivalence: f64,
    /// The statement compares at a message overhead: the most `better`'s
    /// messages per arrival may be, as a multiple of `worse`'s, at a point
    /// that informs (`overhead_ratio`); None: any.
    pub overhead_ratio: Option<f64>,
}

impl Ordering {
    /// Its keys as a manifest writes them.
    pub const KEYS: &[&str] = &["metric", "better", "worse", "equivalence", "overhead_ratio"];
}

/// `value`: `metric` of each of `policies` equals `expected` within the
/// tolerance (the interval must cover it without one).
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    /// The metric read.
    pub metric: String,
    /// The policies (labels) it reads.
    pub policies: Vec<String>,
    /// The reference.
    pub expected: Reference,
    /// How far from the reference the metric may lie.
    pub tolerance: Tolerance,
    /// A control variate whose exact mean is known, if any.
    pub control: Option<Control>,
}

impl Value {
    /// Its keys as a manifest writes them.
    pub const KEYS: &[&str] = &[
        "metric",
        "policies",
        "expected",
        "tolerance",
        "abs_tolerance",
        "control",
    ];
}

/// `stability`: each of `policies` is stable (or, `stable = false`, not) at
/// every point read, by the majority of its replications.
#[derive(Debug, Clone, PartialEq)]
pub struct Stability {
    /// The policies (labels) it reads.
    pub policies: Vec<String>,
    /// The stability verdict claimed.
    pub stable: bool,
}

impl Stability {
    /// Its keys as a manifest writes them.
    pub const KEYS: &[&str] = &["policies", "stable"];
}

/// `bound`: `metric` of each of `policies` lies on `side` of `bound`,
/// decided on the paired margin.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// The metric read.
    pub metric: String,
    /// The policies (labels) it reads.
    pub policies: Vec<String>,
    /// The bound.
    pub bound: Reference,
    /// Its side: the metric at most (`le`) or at least (`ge`) the bound.
    pub side: Side,
    /// A control variate whose exact mean is known, if any.
    pub control: Option<Control>,
}

impl Bound {
    /// Its keys as a manifest writes them.
    pub const KEYS: &[&str] = &["metric", "policies", "bound", "side", "control"];
}

/// `trend`: `metric` of each of `policies` moves one way (`direction`) along
/// the numeric sweep axis `along`: decided on the difference between each
/// pair of neighbouring points (the other axes held fixed).
#[derive(Debug, Clone, PartialEq)]
pub struct Trend {
    /// The metric read.
    pub metric: String,
    /// The policies (labels) it reads.
    pub policies: Vec<String>,
    /// The sweep axis it moves along.
    pub along: String,
    /// Rising or falling along it.
    pub direction: Direction,
    /// A change within ± this (metric's unit) between neighbours is no
    /// practical difference: 0 when not given.
    pub equivalence: f64,
}

impl Trend {
    /// Its keys as a manifest writes them.
    pub const KEYS: &[&str] = &["metric", "policies", "along", "direction", "equivalence"];
}

/// `limit`: `metric` of each of `policies` tends to `expected` as the sweep
/// axis `along` goes `toward` 0 or infinity: judged on the `last` points
/// nearest the limit, with the rate of approach reported.
#[derive(Debug, Clone, PartialEq)]
pub struct Limit {
    /// The metric read.
    pub metric: String,
    /// The policies (labels) it reads.
    pub policies: Vec<String>,
    /// The sweep axis it moves along.
    pub along: String,
    /// The end of the axis the limit is taken at.
    pub toward: Toward,
    /// The limit.
    pub expected: Reference,
    /// How far from the limit the metric may lie at the points nearest it.
    pub tolerance: Tolerance,
    /// How many of the points nearest the limit are read (default 3).
    pub last: u32,
    /// The slowest approach counted as one, |gap| ∝ x^r (toward zero) or
    /// x^−r (toward infinity). A gap outside the tolerance whose rate is
    /// below it with confidence refutes the claim; without it only a gap
    /// that grows refutes.
    pub min_rate: Option<f64>,
    /// Where `min_rate` comes from: the paper's statement or proof, or us.
    pub rate_from: Option<RateSource>,
    /// With `min_rate`: a gap outside the tolerance that closes faster than
    /// `min_rate` with confidence confirms the claim (`rate_decides`): a
    /// limit read through the rate of its gap, as a stand-in for a limit
    /// stated without a rate.
    pub rate_decides: bool,
    /// False for the claim that the metric does *not* tend to `expected`
    /// (Mukherjee, Borst and van Leeuwaarden: a graph that "cannot be
    /// N-optimal"): it holds where the nearest point lies outside the
    /// tolerance and the gap closes slower than `min_rate` with confidence
    /// (or grows), and fails where the limit claim would hold.
    pub approaches: bool,
    /// A control variate for each point's gap, as a value claim's.
    pub control: Option<Control>,
}

/// Where a limit's slowest rate of approach comes from (`rate_from`): a
/// rate the held paper gives decides its statement by the paper's own rule;
/// a rate of ours is a choice, and a statement it decides says so.
#[derive(Debug, Clone, PartialEq)]
pub enum RateSource {
    /// The paper's: its citation written out, where, and how the rate follows.
    Paper(String),
    /// Ours, and why this rate.
    Ours(String),
}

impl RateSource {
    /// The words a verdict prints after the rate.
    pub fn words(&self) -> String {
        match self {
            RateSource::Paper(s) => format!("from {s}"),
            RateSource::Ours(s) => format!("ours: {s}"),
        }
    }

    /// True for a rate of ours.
    pub fn ours(&self) -> bool {
        matches!(self, RateSource::Ours(_))
    }
}

impl Limit {
    /// Its keys as a manifest writes them.
    pub const KEYS: &[&str] = &[
        "metric",
        "policies",
        "along",
        "toward",
        "expected",
        "tolerance",
        "abs_tolerance",
        "last",
        "min_rate",
        "rate_from",
        "rate_decides",
        "approaches",
        "control",
    ];

    /// The points read nearest the limit unless `last` says.
    pub const DEFAULT_LAST: u32 = 3;
}

/// A tolerance around a reference e: the claim holds within `absolute +
/// relative × |e|` (as numpy's `isclose`); both 0 when not given, and then
/// the interval must cover the reference. The absolute part is the only way
/// to state a value whose reference is 0.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tolerance {
    /// `tolerance`: relative to the reference.
    pub relative: f64,
    /// `abs_tolerance`: in the metric's unit.
    pub absolute: f64,
}

impl Tolerance {
    /// The tolerance around the reference `e`.
    pub fn around(&self, e: f64) -> f64 {
        self.relative * e.abs() + self.absolute
    }
}

/// The side of a bound: metric ≤ bound (`le`) or ≥ (`ge`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// At most the bound.
    Le,
    /// At least the bound.
    Ge,
}

/// How a trend moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// The metric rises along the axis.
    Increasing,
    /// The metric falls along the axis.
    Decreasing,
}

impl Direction {
    /// The direction in words ("increasing", "decreasing").
    pub fn word(self) -> &'static str {
        match self {
            Direction::Increasing => "increasing",
            Direction::Decreasing => "decreasing",
        }
    }
}

/// Where a limit's axis goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toward {
    /// Toward the axis's smallest values (ε → 0).
    Zero,
    /// Toward its largest values (N → ∞).
    Infinity,
}

/// A control variate (Lavenberg and Welch) of a value or bound claim:
/// `control = { policy = "WR", mean = "wr_sum_q", beta = "fitted" }`. The
/// policy labelled `policy` runs on the same random numbers as the claim's
/// policies at each point (common random numbers), and the named reference
/// `mean` is the exact mean of the claim's metric under it. The metric is
/// then estimated as mean(X) − β̂(mean(Y) − E\[Y\]) with β̂ fitted by least
/// squares ([`Beta::Fitted`], the default) or E\[Y\] + mean(X − Y)
/// ([`Beta::One`]); the audit prints the direct estimate beside it. Fitted
/// is the default: β = 1 widened intervals 10–150× on the heavy-traffic
/// sweep, where the control is far from the metric, and the coverage
/// certificate measured it covering less (about 93% against 94% fitted, on
/// Random with a weighted-random control).
#[derive(Debug, Clone, PartialEq)]
pub struct Control {
    /// The policy (label) whose mean it controls.
    pub policy: String,
    /// The metric of the control variate, whose exact mean is known.
    pub mean: String,
    /// Its coefficient.
    pub beta: Beta,
}

impl Control {
    /// The point this control pairs with at a claim point whose arrivals and
    /// service come from `system` (its system seed), among `here`, the points
    /// at the claim point's axis values (`label_of` and `point_of` read each
    /// one's label and resolved point): the point labelled `policy` if it runs
    /// on that system, else the point of the same policy that does (a policy
    /// with its own dispatchers pairs with the control that has them too),
    /// else the labelled one, whose system then differs and which the caller
    /// refuses. The manifest check and the audit both pick with it.
    pub fn partner<'a, T>(
        &self,
        here: impl IntoIterator<Item = &'a T> + Clone,
        label_of: impl Fn(&T) -> &str,
        point_of: impl Fn(&T) -> Option<&Point>,
        system: [u8; 32],
    ) -> Option<&'a T> {
        let named = here
            .clone()
            .into_iter()
            .find(|q| label_of(q) == self.policy)?;
        let on_system = |q: &T| point_of(q).is_some_and(|p| p.seeds().system == system);
        if on_system(named) {
            return Some(named);
        }
        let Some(name) = point_of(named).map(Point::policy_name) else {
            return Some(named);
        };
        Some(
            here.into_iter()
                .find(|q| on_system(q) && point_of(q).is_some_and(|p| p.policy_name() == name))
                .unwrap_or(named),
        )
    }
}

/// The coefficient of a control variate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Beta {
    /// β = 1: E\[Y\] + mean(X − Y).
    One,
    /// β̂ by least squares.
    Fitted,
}

#[cfg(test)]
mod tilt_nulls {
    use super::Credit;
    use lb_core::slotted::TieBreak;
    use lb_core::slotted::preference::{Rule, worst};

    /// The nulls of a stability credited to the tilt do not tilt, and the
    /// rules the claims credit do, by the exact preference (Zhou, Shroff and
    /// Wierman, Definitions 4–6) on Fig. 1's two rates, two servers of each.
    #[test]
    fn the_tilt_credits_nulls_do_not_tilt_on_heterogeneous_servers() {
        let mu = [0.2, 0.2, 0.8, 0.8];
        for label in Credit::Tilt.null_labels() {
            let rule = match *label {
                "Random" => Rule::Random,
                "L-Pod-Push" => Rule::LPod(2, TieBreak::Random),
                other => panic!("no rule for the tilt null {other}: add its law"),
            };
            let w = worst(rule, &mu);
            assert!(!w.all_tilted, "{label} tilts: {w:?}");
        }
        for rule in [Rule::LJsq(TieBreak::Random), Rule::LJba] {
            let w = worst(rule, &mu);
            assert!(w.all_tilted && w.untied_delta_min > 0.0, "{rule:?}: {w:?}");
        }
    }
}
