//! Claim robustness maps: `[[robustness]]` tables.
//!
//! A paper often leaves a setting unstated — how ties are broken, whether a
//! dispatcher counts its own jobs, the server mix, the arrival or service
//! law, the granularity of dispatch. A `[[robustness]]` table names some of
//! a manifest's claims and, for each unstated setting, the values to try:
//!
//! ```toml
//! [[robustness]]
//! name = "jsq-herding"
//! claims = ["fig1-ljsq-push-beats-jsq"]
//! count_own = [true, false]
//! servers = [{ classes = [{ count = 50, rate = 0.2 }, { count = 50, rate = 0.8 }] },
//!            { count = 100, rate = 0.5 }]
//! tie_break = ["random", "lowest"]
//! policies = ["JSQ"]          # the policies tie_break varies for (default: all that break ties)
//! ```
//!
//! A map may also vary the unit of the LED policies' message budget, where a
//! paper says only "the same average message overheads as Power-of-2":
//! `budget = [{ messages_per_arrival = 4 }, { same_as = "Power-of-2" }]`, for
//! every policy that sets a budget (or those of `policies`). And the update
//! probability of the LED policies that fix one, where the held text lost
//! its digits: `p_hat = [0.001, 0.01, 0.1]`, for every policy with a fixed
//! p̂ (or those of `policies`).
//!
//! Each combination of the values is a **variant** of the experiment: the
//! manifest with those settings written in. [`variants`] expands each one
//! with the model's own expansion and keeps only what the map's claims read:
//! their policies at the points their `where` selects, with the message-budget
//! calibrations those policies need (a calibration carries the point of the
//! policy it matches, so `same_as = "Power-of-2"` needs no Power-of-2 point).
//! Points are keyed like every point, so a combination equal to the
//! manifest's own settings plans exactly the experiment's own keys (no work
//! twice), and two maps sharing a combination share its records.
//!
//! Variants run with the manifest's own `[run]` (the same run length and the
//! same replication or precision rule): a verdict at one combination and at
//! another then differ by the setting only, never by the precision of the
//! runs behind them.
//!
//! The slotted model's settings: the ones the LED paper leaves open. The audit of a map (the verdict at every combination, and which
//! settings decide it) is lb-analysis's `robustness` module.

use super::{BudgetSpec, LawFamily, Manifest, PolicyKind, ServersSpec, SpannedManifest};
use crate::claim::Claim;
use crate::diag::{ManifestError, SpanIndex, did_you_mean};
use crate::robustness::{Variant, fingerprint, restrict};
use lb_core::slotted::{Granularity, TieBreak};
use lb_model::model::Profile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The settings a map may vary, in the order a combination lists them.
pub(crate) const SETTINGS: [&str; 8] = [
    "count_own",
    "granularity",
    "arrivals",
    "service",
    "servers",
    "tie_break",
    "budget",
    "p_hat",
];

/// `[[robustness]]`: claims and the unstated settings to vary under them.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RobustnessToml {
    /// Names the map's figure: lower-case letters, digits, '-', '_'.
    pub name: String,
    /// Ids of the manifest's claims, audited at every combination.
    pub claims: Vec<String>,
    /// `system.count_own` values.
    pub count_own: Option<Vec<bool>>,
    /// `system.granularity` values; with `policies`, the granularity of
    /// those policies only (a compared policy's, which the text leaves open).
    pub granularity: Option<Vec<Granularity>>,
    /// `system.arrivals` law families.
    pub arrivals: Option<Vec<LawFamily>>,
    /// `system.service` law families.
    pub service: Option<Vec<LawFamily>>,
    /// `system.servers` values, each in one of its four forms.
    pub servers: Option<Vec<ServersSpec>>,
    /// `tie_break` of the policies in `policies`.
    pub tie_break: Option<Vec<TieBreak>>,
    /// `budget` of the policies in `policies`: the message budget's unit
    /// (a rate per arrival, or another policy's messages).
    pub budget: Option<Vec<BudgetSpec>>,
    /// `p_hat` of the policies in `policies`: the update probability p̂ of
    /// the LED policies that fix one, where the text lost its value or
    /// leaves it open.
    pub p_hat: Option<Vec<f64>>,
    /// The policies (labels) whose policy keys (`tie_break`, `budget`,
    /// `granularity`, `p_hat`) the map varies; default: every policy of the
    /// manifest that takes the key (breaks ties; sets a budget; fixes p̂),
    /// and for `granularity` the system's.
    pub policies: Option<Vec<String>>,
    /// Values the map tries that the paper's text rules out, each with the
    /// sentence that does: their combinations are audited and shown, marked,
    /// and decide nothing of where the claim holds (a map reads the
    /// settings the text leaves open).
    #[serde(default)]
    pub excluded: Vec<ExcludedValue>,
}

/// A value a map tries that the text rules out (`excluded`).
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExcludedValue {
    /// One of the map's settings.
    pub setting: String,
    /// One of its values, as the map shows it ("random", "false",
    /// "Power-of-2's messages").
    pub value: String,
    /// Why the text rules it out: the paper's sentence, quoted verbatim
    /// from the held text, and what it says of the value.
    pub says: String,
}

impl RobustnessToml {
    /// Why the text rules out a combination (its values as
    /// [`Variant::values`] lists them), where it rules out one of them.
    pub fn excluded_by(&self, values: &[(String, String)]) -> Option<String> {
        self.excluded
            .iter()
            .find(|x| values.iter().any(|(s, v)| *s == x.setting && *v == x.value))
            .map(|x| format!("{} = {}: {}", x.setting, x.value, x.says))
    }
}

/// One value of a setting, as the map shows it.
#[derive(Debug, Clone)]
enum Value {
    Bool(bool),
    Granularity(Granularity),
    Law(LawFamily),
    Servers(ServersSpec),
    TieBreak(TieBreak),
    Budget(BudgetSpec),
    PHat(f64),
}

impl RobustnessToml {
    /// The settings the map varies, in [`SETTINGS`] order, with their values.
    fn settings(&self) -> Vec<(&'static str, Vec<Value>)> {
        let mut out = Vec::new();
        if let Some(v) = &self.count_own {
            out.push(("count_own", v.iter().map(|b| Value::Bool(*b)).collect()));
        }
        if let Some(v) = &self.granularity {
            out.push((
                "granularity",
                v.iter().map(|g| Value::Granularity(*g)).collect(),
            ));
        }
        if let Some(v) = &self.arrivals {
            out.push(("arrivals", v.iter().map(|x| Value::Law(*x)).collect()));
        }
        if let Some(v) = &self.service {
            out.push(("service", v.iter().map(|x| Value::Law(*x)).collect()));
        }
        if let Some(v) = &self.servers {
            out.push((
                "servers",
                v.iter().map(|x| Value::Servers(x.clone())).collect(),
            ));
        }
        if let Some(v) = &self.tie_break {
            out.push(("tie_break", v.iter().map(|x| Value::TieBreak(*x)).collect()));
        }
        if let Some(v) = &self.budget {
            out.push((
                "budget",
                v.iter().map(|x| Value::Budget(x.clone())).collect(),
            ));
        }
        if let Some(v) = &self.p_hat {
            out.push(("p_hat", v.iter().map(|x| Value::PHat(*x)).collect()));
        }
        out
    }

    /// The names of the settings the map varies, in [`SETTINGS`] order.
    pub fn setting_names(&self) -> Vec<&'static str> {
        self.settings().into_iter().map(|(n, _)| n).collect()
    }

    /// The number of combinations.
    pub fn combinations(&self) -> usize {
        self.settings().iter().map(|(_, v)| v.len()).product()
    }
}

/// A law family as a manifest writes it ("poisson", "binomial(4)").
fn law_word(f: &LawFamily) -> String {
    match f {
        LawFamily::Poisson => "poisson".into(),
        LawFamily::Bernoulli => "bernoulli".into(),
        LawFamily::Geometric => "geometric".into(),
        LawFamily::Deterministic => "deterministic".into(),
        LawFamily::Binomial { n } => format!("binomial({n})"),
    }
}

/// Servers in a few characters: "50×0.2 + 50×0.8", "100×0.5",
/// "100×U[0.3, 0.9]", "3 rates (0.2 … 0.9)".
pub(crate) fn servers_word(s: &ServersSpec) -> String {
    let num = |x: f64| lb_model::canonical::number_to_string(x);
    if let Some(cs) = &s.classes {
        return cs
            .iter()
            .map(|c| format!("{}×{}", c.count, num(c.rate)))
            .collect::<Vec<_>>()
            .join(" + ");
    }
    if let Some(rs) = &s.rates {
        let lo = rs.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = rs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        return format!("{} rates ({} … {})", rs.len(), num(lo), num(hi));
    }
    let n = s.count.map(|c| c.to_string()).unwrap_or_else(|| "N".into());
    match (s.rate, s.uniform) {
        (Some(r), _) => format!("{n}×{}", num(r)),
        (None, Some([a, b])) => format!("{n}×U[{}, {}]", num(a), num(b)),
        _ => format!("{n} servers"),
    }
}

impl Value {
    fn word(&self) -> String {
        match self {
            Value::Bool(b) => b.to_string(),
            Value::Granularity(Granularity::Batch) => "batch".into(),
            Value::Granularity(Granularity::Job) => "job".into(),
            Value::Law(f) => law_word(f),
            Value::Servers(s) => servers_word(s),
            Value::TieBreak(TieBreak::Random) => "random".into(),
            Value::TieBreak(TieBreak::Lowest) => "lowest".into(),
            Value::TieBreak(TieBreak::Shared) => "shared".into(),
            Value::Budget(b) => match (&b.same_as, b.messages_per_arrival) {
                (Some(p), _) => format!("{p}'s messages"),
                (None, Some(x)) => format!(
                    "{} messages per arrival",
                    lb_model::canonical::number_to_string(x)
                ),
                (None, None) => "none".into(),
            },
            Value::PHat(p) => lb_model::canonical::number_to_string(*p),
        }
    }

    /// Equality of values as the map lists them (servers by what they say).
    fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Servers(a), Value::Servers(b)) => {
                serde_json::to_value(a).ok() == serde_json::to_value(b).ok()
            }
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Granularity(a), Value::Granularity(b)) => a == b,
            (Value::Law(a), Value::Law(b)) => a == b,
            (Value::TieBreak(a), Value::TieBreak(b)) => a == b,
            (Value::Budget(a), Value::Budget(b)) => {
                a.same_as == b.same_as && a.messages_per_arrival == b.messages_per_arrival
            }
            (Value::PHat(a), Value::PHat(b)) => a == b,
            _ => false,
        }
    }
}

/// A policy key a map varies.
#[derive(Clone, Copy)]
enum PolicyKey {
    TieBreak,
    Budget,
    Granularity,
    PHat,
}

/// The policies (indices) whose `key` map `r` varies: those named in
/// `policies` (every one, by default) that take it (break ties; set a
/// budget).
fn varied_policies(m: &Manifest, r: &RobustnessToml, key: PolicyKey) -> Vec<usize> {
    (0..m.policies.len())
        .filter(|&i| {
            let takes = match key {
                PolicyKey::Budget => m.policies[i].budget.is_some(),
                PolicyKey::Granularity => true,
                PolicyKey::PHat => matches!(m.policies[i].p_hat, Some(super::PHat::Fixed(_))),
                PolicyKey::TieBreak => {
                    PolicyKind::parse(&m.policies[i].spec).is_some_and(|k| k.has_tie_break())
                }
            };
            let named = r
                .policies
                .as_ref()
                .is_none_or(|ps| ps.iter().any(|p| *p == m.label(i)));
            takes && named
        })
        .collect()
}

/// The manifest with one combination's values written in; a setting the
/// manifest sweeps is not written (its sweep runs every value, and the
/// claims are read at the combination's: [`Variant::pins`]).
fn apply(m: &Manifest, r: &RobustnessToml, combo: &[(&str, Value)]) -> Manifest {
    let mut v = m.clone();
    let sweep = m.sweep.present();
    for (name, value) in combo.iter().filter(|(n, _)| !sweep.contains(n)) {
        match (*name, value) {
            ("count_own", Value::Bool(b)) => v.system.count_own = Some(*b),
            // With `policies`, those policies' own granularity; else the
            // system's.
            ("granularity", Value::Granularity(g)) if r.policies.is_some() => {
                for i in varied_policies(m, r, PolicyKey::Granularity) {
                    v.policies[i].granularity = Some(*g);
                }
            }
            ("granularity", Value::Granularity(g)) => v.system.granularity = Some(*g),
            ("arrivals", Value::Law(f)) => v.system.arrivals = *f,
            ("service", Value::Law(f)) => v.system.service = *f,
            ("servers", Value::Servers(s)) => v.system.servers = s.clone(),
            ("tie_break", Value::TieBreak(t)) => {
                for i in varied_policies(m, r, PolicyKey::TieBreak) {
                    v.policies[i].tie_break = Some(*t);
                }
            }
            ("budget", Value::Budget(b)) => {
                for i in varied_policies(m, r, PolicyKey::Budget) {
                    v.policies[i].budget = Some(b.clone());
                }
            }
            ("p_hat", Value::PHat(p)) => {
                for i in varied_policies(m, r, PolicyKey::PHat) {
                    v.policies[i].p_hat = Some(super::PHat::Fixed(*p));
                }
            }
            _ => unreachable!("a setting and its value type"),
        }
    }
    v.robustness.clear();
    v
}

/// The combinations of a map, in order (the last setting varies fastest).
fn combos(r: &RobustnessToml) -> Vec<Vec<(&'static str, Value)>> {
    let settings = r.settings();
    let total: usize = settings.iter().map(|(_, v)| v.len()).product();
    (0..total)
        .map(|mut c| {
            let mut combo: Vec<(&'static str, Value)> = Vec::with_capacity(settings.len());
            for (name, vals) in settings.iter().rev() {
                combo.push((name, vals[c % vals.len()].clone()));
                c /= vals.len();
            }
            combo.reverse();
            combo
        })
        .collect()
}

/// Expands every combination of every map of `l` into the points its claims
/// read. The base plan (`l` expanded with `profile`) is compared with each
/// combination's to mark the manifest's own combination.
pub fn variants(
    l: &SpanIndex,
    m: &Manifest,
    all: &[Claim],
    profile: Profile,
) -> Result<Vec<Variant>, ManifestError> {
    if m.robustness.is_empty() {
        return Ok(Vec::new());
    }
    let base = super::expansion::expand(&SpannedManifest { m, spans: l }, profile)?;
    let mut out = Vec::new();
    for (i, r) in m.robustness.iter().enumerate() {
        let claims: Vec<&Claim> = r
            .claims
            .iter()
            .filter_map(|id| all.iter().find(|c| c.id == *id))
            .collect();
        let own = fingerprint(&restrict(&base, &claims));
        let sweep = m.sweep.present();
        for combo in combos(r) {
            // A swept setting is not written into the manifest: the claims
            // are read at its value instead, on the experiment's own points.
            let pins: Vec<(String, String)> = combo
                .iter()
                .filter(|(name, _)| sweep.contains(name))
                .map(|(name, v)| (name.to_string(), v.word()))
                .collect();
            let pinned: Vec<Claim> = claims
                .iter()
                .map(|c| crate::robustness::repinned(c, &pins))
                .collect();
            let pinned: Vec<&Claim> = pinned.iter().collect();
            let vm = apply(m, r, &combo);
            let plan = restrict(
                &super::expansion::expand(&SpannedManifest { m: &vm, spans: l }, profile).map_err(
                    |e| {
                        l.error(
                            &format!("robustness[{i}]"),
                            format!(
                                "the combination {} gives an invalid point: {}",
                                words(&combo),
                                e.message
                            ),
                        )
                    },
                )?,
                &pinned,
            );
            let describe = words(&combo);
            let mut plan = plan;
            plan.name = format!("{} [robustness {}: {describe}]", plan.name, r.name);
            out.push(Variant {
                map: i,
                values: combo
                    .iter()
                    .map(|(s, v)| (s.to_string(), v.word()))
                    .collect(),
                pins,
                base: fingerprint(&plan) == own,
                plan,
            });
        }
    }
    Ok(out)
}

/// The values claim `id`'s `where` pins setting `name` to, if it pins it.
fn claim_pins(m: &Manifest, id: &str, name: &str) -> Option<Vec<String>> {
    let c = m.claims.iter().find(|c| c.id == id)?;
    c.filter.get(name).map(crate::outputs::where_values)
}

/// The manifest's own values of setting `name` as map `r` shows them (for a
/// policy key, those of the policies the map varies it for).
fn own_words(m: &Manifest, r: &RobustnessToml, name: &str) -> Vec<String> {
    let of_policies = |key: PolicyKey, f: &dyn Fn(usize) -> Option<Value>| -> Vec<String> {
        varied_policies(m, r, key)
            .into_iter()
            .filter_map(f)
            .map(|v| v.word())
            .collect()
    };
    // A setting the manifest sweeps is its claims' where they pin it: the
    // values the map's claims are read at.
    let pinned: Vec<String> = r
        .claims
        .iter()
        .filter_map(|id| claim_pins(m, id, name))
        .flatten()
        .collect();
    if m.sweep.present().contains(&name) && !pinned.is_empty() {
        return pinned;
    }
    match name {
        "count_own" => vec![Value::Bool(m.system.count_own.unwrap_or(true)).word()],
        "granularity" if r.policies.is_some() => {
            of_policies(PolicyKey::Granularity, &|i: usize| {
                Some(Value::Granularity(
                    m.policies[i]
                        .granularity
                        .or(m.system.granularity)
                        .unwrap_or_default(),
                ))
            })
        }
        "granularity" => vec![Value::Granularity(m.system.granularity.unwrap_or_default()).word()],
        "arrivals" => vec![Value::Law(m.system.arrivals).word()],
        "service" => vec![Value::Law(m.system.service).word()],
        "servers" => vec![Value::Servers(m.system.servers.clone()).word()],
        "tie_break" => of_policies(PolicyKey::TieBreak, &|i: usize| {
            Some(Value::TieBreak(m.policies[i].tie_break.unwrap_or_default()))
        }),
        "budget" => of_policies(PolicyKey::Budget, &|i: usize| {
            m.policies[i].budget.clone().map(Value::Budget)
        }),
        "p_hat" => of_policies(PolicyKey::PHat, &|i: usize| match m.policies[i].p_hat {
            Some(super::PHat::Fixed(p)) => Some(Value::PHat(p)),
            _ => None,
        }),
        _ => Vec::new(),
    }
}

fn words(combo: &[(&str, Value)]) -> String {
    combo
        .iter()
        .map(|(s, v)| format!("{s} = {}", v.word()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The settings the paper leaves open that `c`'s foil changes, and nothing
/// else, in words ("count_own", "tie_break of JSQ"): a foil whose `where`
/// moves only such settings ([`SETTINGS`]) with the claim's own policies,
/// or one that puts in a policy's place the same policy with another tie
/// rule, budget or granularity. Such a foil is another reading of the
/// claim, which a map shows, not a policy or setting outside what the
/// claim credits; `None` for any other foil, or none.
pub(crate) fn foil_reading(m: &Manifest, c: &Claim) -> Option<String> {
    let f = c.foil.as_ref()?;
    let claim = c.check.labels();
    let foil = f.check.labels();
    let moved: Vec<&String> = f
        .filter
        .keys()
        .chain(c.filter.keys())
        .filter(|k| f.filter.get(*k) != c.filter.get(*k))
        .collect();
    // p̂ is a setting a map may vary where the text lost its value, but a
    // foil at another p̂ tests a credit to the estimates' staleness: not
    // another reading.
    let open = |k: &&String| SETTINGS.contains(&k.as_str()) && k.as_str() != "p_hat";
    if foil.iter().all(|x| claim.contains(x)) {
        return (!moved.is_empty() && moved.iter().all(open)).then(|| {
            let mut v: Vec<&str> = moved.iter().map(|k| k.as_str()).collect();
            v.sort();
            v.dedup();
            v.join(", ")
        });
    }
    if !moved.iter().all(open) {
        return None;
    }
    let spec = |label: &str| {
        (0..m.policies.len())
            .find(|&i| m.label(i) == label)
            .map(|i| &m.policies[i])
    };
    // A policy's keys but its label and the open ones, as written.
    let bare = |p: &super::PolicySpec| super::PolicySpec {
        label: None,
        tie_break: None,
        budget: None,
        granularity: None,
        ..p.clone()
    };
    let mut changed: Vec<String> = Vec::new();
    for x in foil.iter().filter(|x| !claim.contains(x)) {
        let fp = spec(x)?;
        let (y, p) = claim
            .iter()
            .filter_map(|y| spec(y).map(|p| (y, p)))
            .find(|(_, p)| bare(p) == bare(fp))?;
        let keys = [
            ("tie_break", p.tie_break != fp.tie_break),
            ("budget", p.budget != fp.budget),
            ("granularity", p.granularity != fp.granularity),
        ];
        changed.extend(
            keys.iter()
                .filter(|(_, d)| *d)
                .map(|(k, _)| format!("{k} of {y}")),
        );
    }
    (!changed.is_empty()).then(|| changed.join(", "))
}

/// The checks of the `[[robustness]]` tables: names, claim ids, settings and
/// their values (each value is written into the manifest and the result
/// validated and expanded like the manifest itself), located at the key.
/// Manifests of an older revision (`lb diff --against`) are held to the
/// rules they were written under.
pub fn validate(l: &SpanIndex, m: &Manifest, older_revision: bool) -> Result<(), ManifestError> {
    let mut names = BTreeSet::new();
    let sweep = m.sweep.present();
    let ids: Vec<&str> = m.claims.iter().map(|c| c.id.as_str()).collect();
    for (i, r) in m.robustness.iter().enumerate() {
        map_name(l, i, r, &mut names)?;
        map_claims(l, i, r, &ids)?;
        let settings = r.settings();
        map_settings(l, m, i, &settings, &sweep)?;
        map_policies(l, m, i, r)?;
        map_values(l, m, i, r, &settings)?;
        map_excluded(l, m, i, r, &settings, older_revision)?;
    }
    Ok(())
}

/// Map `i`'s `excluded`: each a value of one of its settings, not the
/// manifest's own (the experiment's reading is one the text allows), with
/// the sentence that rules it out.
fn map_excluded(
    l: &SpanIndex,
    m: &Manifest,
    i: usize,
    r: &RobustnessToml,
    settings: &[(&'static str, Vec<Value>)],
    older_revision: bool,
) -> Result<(), ManifestError> {
    for (j, x) in r.excluded.iter().enumerate() {
        let at = |k: &str| map_key(i, &format!("excluded[{j}].{k}"));
        let Some((_, values)) = settings.iter().find(|(n, _)| *n == x.setting) else {
            return Err(l.error(
                &at("setting"),
                format!(
                    "\"{}\" is not a setting this map varies; it varies: {}",
                    x.setting,
                    list(&settings.iter().map(|(n, _)| *n).collect::<Vec<_>>())
                ),
            ));
        };
        let words: Vec<String> = values.iter().map(Value::word).collect();
        if !words.contains(&x.value) {
            return Err(l.error(
                &at("value"),
                format!(
                    "\"{}\" is not one of {}'s values in this map: {}",
                    x.value,
                    x.setting,
                    words.join(", ")
                ),
            ));
        }
        let own = own_words(m, r, &x.setting);
        if own.contains(&x.value) {
            return Err(l.error(
                &at("value"),
                format!(
                    "{} = {} is the manifest's own setting: its claims are read at a setting \
                     the text allows, so the map cannot rule it out",
                    x.setting, x.value
                ),
            ));
        }
        if x.says.trim().is_empty() {
            return Err(l.error(
                &at("says"),
                "give the sentence of the paper that rules the value out, quoted",
            ));
        }
        // Manifests of older revisions (`lb diff --against`) predate the
        // rules on the sentence below.
        if older_revision {
            continue;
        }
        // The sentence is the claims' own section's: one elsewhere in the
        // paper (a remark on heavy-traffic optimality, say) speaks of
        // another setting than the one the claims read.
        let section = x
            .says
            .split([',', ':', ' '])
            .next()
            .filter(|s| s.starts_with('§'))
            .unwrap_or_default();
        let elsewhere: Vec<&str> = r
            .claims
            .iter()
            .filter_map(|id| m.claims.iter().find(|c| &c.id == id))
            .filter(|c| section.is_empty() || !c.source.contains(section))
            .map(|c| c.id.as_str())
            .collect();
        if !elsewhere.is_empty() {
            return Err(l.error(
                &at("says"),
                format!(
                    "{}: the sentence that rules a value out is one of the section the claims \
                     read (their `source`), named first (\"§4.2, p. 9: \\\"…\\\"\"); a \
                     sentence of another section speaks of another setting, so drop this entry \
                     and let the map decide (not of it: {})",
                    if section.is_empty() {
                        "it names no section"
                    } else {
                        section
                    },
                    elsewhere.join(", ")
                ),
            ));
        }
        let quote = x.says.split('"').nth(1).unwrap_or_default();
        if !own.iter().any(|w| states(quote, &x.setting, w)) {
            return Err(l.error(
                &at("says"),
                format!(
                    "the quoted sentence does not state the value the claims are read at ({} = \
                     {}): a sentence rules a value out only where it states the other, by its \
                     number or its name; one about what a value would do leaves the setting \
                     open, so drop this entry and let the map decide (quote the sentence \
                     between double quotes)",
                    x.setting,
                    own.join(" or ")
                ),
            ));
        }
    }
    Ok(())
}

/// Whether `quote` states the value `word` of `setting`: its numbers, where
/// it has any ("4 messages per arrival": "4"), else the word itself, as whole
/// words; a server mix also by its kind ("heterogeneous": more than one
/// rate; "homogeneous": one).
fn states(quote: &str, setting: &str, word: &str) -> bool {
    let tokens = |t: &str| -> Vec<String> {
        t.split(|c: char| !(c.is_alphanumeric() || c == '.'))
            .map(|w| w.trim_matches('.').to_lowercase())
            .filter(|w| !w.is_empty())
            .collect()
    };
    let said = tokens(quote);
    if setting == "servers" {
        let mut rates: Vec<&str> = word
            .split(" + ")
            .filter_map(|c| c.split('×').nth(1))
            .collect();
        rates.sort();
        rates.dedup();
        let kind = if rates.len() > 1 {
            "heterogeneous"
        } else {
            "homogeneous"
        };
        if said.iter().any(|w| w == kind) {
            return true;
        }
    }
    let numbers: Vec<String> = tokens(word)
        .into_iter()
        .filter(|w| w.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .collect();
    if numbers.is_empty() {
        let w = tokens(word);
        !w.is_empty() && said.windows(w.len()).any(|s| s == w.as_slice())
    } else {
        numbers.iter().all(|n| said.contains(n))
    }
}

/// The key path of key `k` of map `i`.
fn map_key(i: usize, k: &str) -> String {
    format!("robustness[{i}].{k}")
}

/// Map `i`'s `name`: lower-case letters, digits, '-' and '_' (it names the
/// map's figure), and not one of the `names` of the maps before it.
fn map_name<'a>(
    l: &SpanIndex,
    i: usize,
    r: &'a RobustnessToml,
    names: &mut BTreeSet<&'a str>,
) -> Result<(), ManifestError> {
    crate::experiment::file_name(&r.name).map_err(|why| l.error(&map_key(i, "name"), why))?;
    if !names.insert(r.name.as_str()) {
        return Err(l.error(
            &map_key(i, "name"),
            format!(
                "\"{}\" names another robustness map: names must be unique",
                r.name
            ),
        ));
    }
    Ok(())
}

/// Map `i`'s `claims`: at least one, each the id of a claim of the manifest
/// (`ids`), none listed twice.
fn map_claims(
    l: &SpanIndex,
    i: usize,
    r: &RobustnessToml,
    ids: &[&str],
) -> Result<(), ManifestError> {
    if r.claims.is_empty() {
        return Err(l.error(
            &map_key(i, "claims"),
            format!(
                "a map needs at least one claim id; the manifest's claims: {}",
                list(ids)
            ),
        ));
    }
    for (j, id) in r.claims.iter().enumerate() {
        if !ids.contains(&id.as_str()) {
            let hint = did_you_mean(id, ids)
                .map(|s| format!("did you mean \"{s}\"? "))
                .unwrap_or_default();
            return Err(l.error(
                &format!("robustness[{i}].claims[{j}]"),
                format!(
                    "no claim has the id \"{id}\"; {hint}the manifest's claims: {}",
                    list(ids)
                ),
            ));
        }
        if r.claims[..j].contains(id) {
            return Err(l.error(
                &format!("robustness[{i}].claims[{j}]"),
                format!("claim \"{id}\" is listed twice"),
            ));
        }
    }
    Ok(())
}

/// The `settings` map `i` varies: at least one; a `sweep` axis of the
/// manifest only where every claim of the map pins it to one value (a
/// reading, which the map re-reads at the axis's other values, on points the
/// experiment runs already), each of the map's values among the sweep's;
/// each with at least one value, none listed twice; and no `granularity`
/// where a policy sets its own.
fn map_settings(
    l: &SpanIndex,
    m: &Manifest,
    i: usize,
    settings: &[(&'static str, Vec<Value>)],
    sweep: &[&str],
) -> Result<(), ManifestError> {
    let r = &m.robustness[i];
    if settings.is_empty() {
        return Err(l.error(
            &format!("robustness[{i}]"),
            format!(
                "a map varies at least one setting; allowed: {}",
                SETTINGS.join(", ")
            ),
        ));
    }
    for (name, values) in settings {
        let pins_one = |id: &String| claim_pins(m, id, name).is_some_and(|v| v.len() == 1);
        if sweep.contains(name) && r.claims.iter().all(pins_one) {
            let swept = m.axis_values(name);
            if let Some((j, v)) = values
                .iter()
                .enumerate()
                .find(|(_, v)| !swept.contains(&v.word()))
            {
                return Err(l.error(
                    &format!("robustness[{i}].{name}[{j}]"),
                    format!(
                        "{name} is a sweep axis of this manifest, which runs it at {}: the \
                         map re-reads its claims at those values only, not at {}",
                        swept.join(", "),
                        v.word()
                    ),
                ));
            }
        } else if sweep.contains(name) {
            return Err(l.error(
                &map_key(i, name),
                format!(
                    "{name} is a sweep axis of this manifest: its values are points \
                     already, and a claim's `where` picks them; a map varies a swept \
                     setting only where each of its claims pins it to one value (a \
                     reading, which the map re-reads at the others); otherwise vary a \
                     setting the manifest fixes ({})",
                    SETTINGS
                        .iter()
                        .filter(|s| !sweep.contains(s))
                        .copied()
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        if values.is_empty() {
            return Err(l.error(&map_key(i, name), "an empty list: give the values to try"));
        }
        // A policy's own granularity wins over the system's: varying the
        // system's would leave it unchanged, and the map would say
        // granularity decides nothing.
        if *name == "granularity"
            && r.policies.is_none()
            && let Some(k) = m.policies.iter().position(|p| p.granularity.is_some())
        {
            return Err(l.error(
                &map_key(i, name),
                format!(
                    "policy[{k}] sets its own granularity, which the map's granularity \
                     would not change; remove one of the two"
                ),
            ));
        }
        for (j, v) in values.iter().enumerate() {
            if values[..j].iter().any(|w| w.same(v)) {
                return Err(l.error(
                    &format!("robustness[{i}].{name}[{j}]"),
                    format!("{} is listed twice", v.word()),
                ));
            }
        }
    }
    Ok(())
}

/// Map `i`'s policy keys: `policies` only with a `tie_break`, `budget` or
/// `granularity` to vary, each
/// the label of a policy that breaks ties; and a `tie_break` needs some
/// policy of the manifest to vary it for.
fn map_policies(
    l: &SpanIndex,
    m: &Manifest,
    i: usize,
    r: &RobustnessToml,
) -> Result<(), ManifestError> {
    if let Some(ps) = &r.policies {
        let labels: Vec<String> = (0..m.policies.len()).map(|i| m.label(i)).collect();
        let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
        if r.tie_break.is_none()
            && r.budget.is_none()
            && r.granularity.is_none()
            && r.p_hat.is_none()
        {
            return Err(l.error(
                &map_key(i, "policies"),
                "`policies` names the policies a policy key (tie_break, budget, granularity, \
                 p_hat) varies for, and this map varies none",
            ));
        }
        for (j, p) in ps.iter().enumerate() {
            let path = format!("robustness[{i}].policies[{j}]");
            let Some(k) = labels.iter().position(|x| x == p) else {
                let hint = did_you_mean(p, &labels)
                    .map(|s| format!("did you mean \"{s}\"? "))
                    .unwrap_or_default();
                return Err(l.error(
                    &path,
                    format!(
                        "no policy is labelled \"{p}\"; {hint}labels: {}",
                        list(&labels)
                    ),
                ));
            };
            if r.tie_break.is_some()
                && !PolicyKind::parse(&m.policies[k].spec).is_some_and(|k| k.has_tie_break())
            {
                return Err(l.error(
                    &path,
                    format!(
                        "{p} breaks no ties; tie_break applies to JSQ, Power-of-d, L-JSQ, \
                         L-Pod and LSQ (L-JBA draws among the servers at or below its mean \
                         estimate): remove it from policies"
                    ),
                ));
            }
        }
    }
    if r.tie_break.is_some() && varied_policies(m, r, PolicyKey::TieBreak).is_empty() {
        return Err(l.error(
            &map_key(i, "tie_break"),
            "no policy of the manifest breaks ties (JSQ, Power-of-d and LED policies do)",
        ));
    }
    if r.budget.is_some() && varied_policies(m, r, PolicyKey::Budget).is_empty() {
        return Err(l.error(
            &map_key(i, "budget"),
            "no policy the map names sets a message budget (`budget` of a [[policy]])",
        ));
    }
    if let Some(ps) = &r.p_hat {
        if varied_policies(m, r, PolicyKey::PHat).is_empty() {
            return Err(l.error(
                &map_key(i, "p_hat"),
                "no policy the map names fixes p̂ (`p_hat = <number>` of an LED [[policy]])",
            ));
        }
        if let Some((j, p)) = ps
            .iter()
            .enumerate()
            .find(|(_, p)| !(**p > 0.0 && **p <= 1.0))
        {
            return Err(l.error(
                &format!("robustness[{i}].p_hat[{j}]"),
                format!("p̂ is a probability in (0, 1]; {p} is not"),
            ));
        }
    }
    Ok(())
}

/// The values of map `i`'s `settings`, written into the manifest: each on
/// its own (the others as the manifest has them), so that an error names
/// the value; then every combination.
fn map_values(
    l: &SpanIndex,
    m: &Manifest,
    i: usize,
    r: &RobustnessToml,
    settings: &[(&'static str, Vec<Value>)],
) -> Result<(), ManifestError> {
    for (name, values) in settings {
        for (j, v) in values.iter().enumerate() {
            check(l, m, r, &[(name, v.clone())])
                .map_err(|e| relocate(l, &format!("robustness[{i}].{name}[{j}]"), &e))?;
        }
    }
    if settings.len() > 1 {
        for combo in combos(r) {
            check(l, m, r, &combo).map_err(|e| {
                l.error(
                    &format!("robustness[{i}]"),
                    format!("the combination {}: {}", words(&combo), e.message),
                )
            })?;
        }
    }
    Ok(())
}

fn list(xs: &[&str]) -> String {
    if xs.is_empty() {
        "none".into()
    } else {
        xs.iter()
            .map(|x| format!("\"{x}\""))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The model's checks and expansion (both profiles) of `m` with `combo`.
fn check(
    l: &SpanIndex,
    m: &Manifest,
    r: &RobustnessToml,
    combo: &[(&str, Value)],
) -> Result<(), ManifestError> {
    let vm = apply(m, r, combo);
    let cx = SpannedManifest { m: &vm, spans: l };
    super::checks::validate(&cx)?;
    for p in [Profile::Full, Profile::Quick] {
        super::expansion::expand(&cx, p)?;
    }
    Ok(())
}

/// An error of a variant, said at the robustness key that made it.
fn relocate(l: &SpanIndex, path: &str, e: &ManifestError) -> ManifestError {
    let what = if e.field.is_empty() {
        String::new()
    } else {
        format!(" (at {} of the manifest it changes)", e.field)
    };
    l.error(
        path,
        format!("this value makes the manifest invalid{what}: {}", e.message),
    )
}
