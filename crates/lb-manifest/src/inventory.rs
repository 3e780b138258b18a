//! Statement inventories (`experiments/inventory/<paper>.toml`): every
//! statement a paper makes — theorem, lemma, proposition, definition that
//! asserts something, example, figure claim, headline sentence — quoted,
//! with where it stands, the setting its text states or implies, and either
//! the claims that audit it or why it is out of reach.
//!
//! Loading every manifest checks the inventories against the claims
//! ([`check`]): an entry naming a claim that does not exist, or that is not
//! that paper's statement or a stand-in for it, is refused; so is a paper's
//! statement (`origin = "paper"`) of a paper with an inventory that no entry
//! names. The report counts each paper's statements against its inventory.

use crate::Experiment;
use crate::claim::Origin;
use crate::diag::{ManifestError, SpanIndex, serde_error};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The directory of the inventories beside the manifests.
pub const DIR: &str = "inventory";

/// One paper's inventory as written.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Inventory {
    /// The paper, as cited.
    pub paper: Paper,
    #[serde(default, rename = "statement")]
    /// Its statements, in the paper's order.
    pub statements: Vec<Statement>,
    /// The file it was read from (not written).
    #[serde(skip)]
    pub file: PathBuf,
}

/// The paper an inventory covers.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Paper {
    /// Its key in experiments/references.bib, whose `shortname` and `title`
    /// fill the two below.
    pub key: Option<String>,
    /// As claims' `paper` spells it: "Zhou, Shroff and Wierman".
    #[serde(default)]
    pub authors: String,
    #[serde(default)]
    /// Its title.
    pub title: String,
    /// What lb holds of its text (the whole paper, its abstract).
    pub held: Option<String>,
}

/// One statement of the paper.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Statement {
    /// Unique in the inventory: lower-case letters, digits and '-'.
    pub id: String,
    /// theorem, lemma, proposition, corollary, definition, example, figure,
    /// remark, headline or step (of a proof).
    pub kind: StatementKind,
    /// Where it stands: section, number, page.
    #[serde(rename = "where")]
    pub at: String,
    /// The statement, quoted.
    pub quote: String,
    /// The setting the text states or implies, with the sentence that
    /// implies it.
    pub setting: String,
    /// The claims that audit it, `experiment/id`.
    #[serde(default)]
    pub claims: Vec<String>,
    /// What of it no claim tests (a setting, a quantity, a policy it names,
    /// a half read by a claim that tests nothing): it is then audited in
    /// part, and its status says so.
    pub unread: Option<String>,
    /// Why lb does not audit it; "not yet" where it could.
    pub out_of_reach: Option<String>,
    /// With "not yet": the experiment and claim that would audit it. Beside
    /// claims: what lb could add that would decide it where its claims test
    /// nothing (the statement is then "not yet audited").
    pub could_audit: Option<String>,
    /// Beside claims that test nothing: why no run lb could add would decide
    /// it either (every point it could run lies at the metric's floor, say,
    /// which the claims' own points show). The statement is then out of
    /// reach, this its reason; not with `could_audit`.
    pub unreachable: Option<String>,
    /// The paper's name for the result it belongs to, where `where` does not
    /// carry one ("Main result", "Fig. 1"): the first screen's row.
    pub result: Option<String>,
    /// A sentence that reports another paper's result (its simulations,
    /// its theorem): that paper, as its claims' `paper` spells it. The
    /// sentence is listed, quoted, but is not counted among this paper's
    /// statements, and the claims that audit it are counted under the
    /// paper cited.
    pub cited: Option<String>,
    /// A statement about a rule's law that lb computes exactly rather than
    /// runs (Zhou, Shroff and Wierman's Examples 1–3: a rule is δ-tilted):
    /// the report computes the least δ over every estimate state of each
    /// system and says whether it meets the δ stated.
    pub exact: Option<Exact>,
}

/// An exact check of a dispatching rule's preference (docs/AUDITING.md,
/// "Dispatching preference"): every estimate state of each system.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Exact {
    /// The rules, as `lb preference --rule` names them (`l-jsq`,
    /// `l-pod:2:lowest`, …).
    pub rules: Vec<String>,
    /// The systems: each its servers' rates μ_n (2 to 5 servers).
    pub rates: Vec<Vec<f64>>,
    /// The δ the statement states: `mu_min/mu_sum`, `1/N`, or `positive`
    /// (tilted, δ > 0, no value stated).
    pub delta: ExactDelta,
}

/// The δ an exact check holds a rule to.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
pub enum ExactDelta {
    /// μ_min/μ_Σ.
    #[serde(rename = "mu_min/mu_sum")]
    MuMinOverSum,
    /// 1/N.
    #[serde(rename = "1/N")]
    OneOverN,
    /// Some δ > 0.
    #[serde(rename = "positive")]
    Positive,
}

impl ExactDelta {
    /// The δ stated on servers of rates `mu` (0 for "positive": any δ above
    /// it).
    pub fn value(self, mu: &[f64]) -> f64 {
        match self {
            ExactDelta::MuMinOverSum => {
                mu.iter().copied().fold(f64::INFINITY, f64::min) / mu.iter().sum::<f64>()
            }
            ExactDelta::OneOverN => 1.0 / mu.len() as f64,
            ExactDelta::Positive => 0.0,
        }
    }

    /// The value stated, as the paper writes it ("μ_min/μ_Σ", "1/N"); none
    /// for "positive".
    pub fn symbol(self) -> Option<&'static str> {
        match self {
            ExactDelta::MuMinOverSum => Some("μ_min/μ_Σ"),
            ExactDelta::OneOverN => Some("1/N"),
            ExactDelta::Positive => None,
        }
    }

    /// What is stated of δ: "δ = μ_min/μ_Σ", "δ = 1/N", "δ > 0".
    pub fn words(self) -> String {
        match self.symbol() {
            Some(v) => format!("δ = {v}"),
            None => "δ > 0".to_string(),
        }
    }
}

/// The kinds of statement an inventory lists.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum StatementKind {
    /// A theorem.
    Theorem,
    /// A lemma.
    Lemma,
    /// A proposition.
    Proposition,
    /// A corollary.
    Corollary,
    /// A definition (listed, not counted).
    Definition,
    /// An example.
    Example,
    /// A figure's claim.
    Figure,
    /// A remark.
    Remark,
    /// A sentence of the abstract, introduction or conclusion.
    Headline,
    /// A displayed step of a proof (an identity or inequality of the
    /// argument, a claim the argument makes on its way): listed, not
    /// counted, as a definition is; the results it serves are.
    Step,
}

impl Statement {
    /// Whether it counts among its paper's statements: definitions (and the
    /// hypotheses they set) and the steps of a proof are not statements,
    /// and a sentence reporting another paper's result is that paper's
    /// ([`Statement::cited`]).
    pub fn counted(&self) -> bool {
        !matches!(self.kind, StatementKind::Definition | StatementKind::Step)
            && self.cited.is_none()
    }

    /// Whether it waits for a claim lb could make ("not yet").
    pub fn not_yet(&self) -> bool {
        self.out_of_reach
            .as_deref()
            .is_some_and(|w| w.trim().eq_ignore_ascii_case("not yet"))
    }
}

/// The inventories in `dir` (`experiments/inventory`), sorted by file; none
/// when the directory does not exist.
pub fn load_dir(dir: &Path) -> Result<Vec<Inventory>, ManifestError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    paths.iter().map(|p| load(p)).collect()
}

/// The inventory beside a set of manifests: `<their directory>/inventory`.
pub fn beside(manifests: &[PathBuf]) -> Option<PathBuf> {
    let dir = manifests.first()?.parent()?;
    Some(dir.join(DIR))
}

/// One inventory, parsed and checked on its own.
pub fn load(path: &Path) -> Result<Inventory, ManifestError> {
    let text = std::fs::read_to_string(path).map_err(|e| ManifestError {
        file: path.to_path_buf(),
        line: 0,
        col: 0,
        field: String::new(),
        message: format!("cannot read the inventory: {e}"),
    })?;
    let spans = SpanIndex::parse(path, &text)?;
    let mut inv: Inventory = toml::from_str(&text).map_err(|e| serde_error(&spans, &e))?;
    inv.file = path.to_path_buf();
    // The paper and the papers its sentences cite, by the references file
    // beside the inventories' folder.
    let refs = match path.parent() {
        Some(dir) => crate::references::References::beside(dir)?,
        None => None,
    };
    if let Some(r) = &refs {
        let Some(key) = inv.paper.key.clone() else {
            return Err(spans.error(
                "paper",
                format!(
                    "name the paper by its key in {}: key = \"<key>\" (its authors and title \
                     come from there)",
                    r.file.display()
                ),
            ));
        };
        let work = r.cited(&key).map_err(|why| spans.error("paper.key", why))?;
        for (k, given, from) in [
            ("authors", &inv.paper.authors, &work.shortname),
            ("title", &inv.paper.title, &work.title),
        ] {
            if !given.is_empty() && given != from {
                return Err(spans.error(
                    &format!("paper.{k}"),
                    format!(
                        "\"{given}\" differs from the entry of @{key} (\"{from}\"): remove it \
                         (the key gives it)"
                    ),
                ));
            }
        }
        inv.paper.authors = work.shortname.clone();
        inv.paper.title = work.title.clone();
        for (i, s) in inv.statements.iter().enumerate() {
            // A work by its shortname; where the held text lost its list
            // of references, by its number in a work the file holds ("ref.
            // [10] of Liu and Ying").
            for name in s.cited.iter().flat_map(|c| c.split(';')).map(str::trim) {
                let within = r.works.iter().any(|w| name.contains(&w.shortname));
                if !within {
                    r.named(name)
                        .map_err(|why| spans.error(&format!("statement[{i}].cited"), why))?;
                }
            }
        }
    } else if inv.paper.authors.is_empty() || inv.paper.title.is_empty() {
        return Err(spans.error(
            "paper",
            "give the paper's authors and title (or its key, with experiments/references.bib \
             beside the inventories' folder)",
        ));
    }
    for (i, s) in inv.statements.iter().enumerate() {
        let at = |k: &str| format!("statement[{i}].{k}");
        let id_ok = !s.id.is_empty()
            && s.id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !id_ok || inv.statements[..i].iter().any(|t| t.id == s.id) {
            return Err(spans.error(
                &at("id"),
                "needs an id of lower-case letters, digits and '-', unique in the inventory",
            ));
        }
        for (k, v) in [
            ("where", &s.at),
            ("quote", &s.quote),
            ("setting", &s.setting),
        ] {
            if v.trim().is_empty() {
                return Err(spans.error(&at(k), "must not be empty"));
            }
        }
        match (s.claims.is_empty(), &s.out_of_reach) {
            (true, None) => {
                return Err(spans.error(
                    &at("claims"),
                    "name the claims that audit it (claims = [\"<experiment>/<id>\"]) or say \
                     why lb does not (out_of_reach = \"…\", or \"not yet\" with could_audit)",
                ));
            }
            (false, Some(_)) => {
                return Err(spans.error(
                    &at("out_of_reach"),
                    "the statement names claims that audit it: remove out_of_reach",
                ));
            }
            _ => {}
        }
        if s.unreachable.is_some() && (s.claims.is_empty() || s.could_audit.is_some()) {
            return Err(spans.error(
                &at("unreachable"),
                "`unreachable` says why no run lb could add would decide a statement whose \
                 claims test nothing: give it beside `claims`, without `could_audit`",
            ));
        }
        if let Some(x) = &s.exact {
            if x.rules.is_empty() || x.rates.is_empty() {
                return Err(spans.error(
                    &at("exact"),
                    "an exact check names its rules and systems: rules = [\"l-jsq\"], rates = \
                     [[0.2, 0.2, 0.8, 0.8]]",
                ));
            }
            for r in &x.rules {
                if let Err(e) = lb_core::slotted::preference::Rule::parse(r) {
                    return Err(spans.error(&at("exact"), format!("exact.rules: {e}")));
                }
            }
            if let Some(mu) = x.rates.iter().find(|mu| {
                !(2..=5).contains(&mu.len()) || mu.iter().any(|&m| m.is_nan() || m <= 0.0)
            }) {
                return Err(spans.error(
                    &at("exact"),
                    format!(
                        "exact.rates: {mu:?}: each system needs 2 to 5 servers of positive rate \
                         (every estimate state is visited, and their number grows as N!)"
                    ),
                ));
            }
        }
        if s.unread.is_some() && s.claims.is_empty() {
            return Err(spans.error(
                &at("unread"),
                "`unread` says what of a statement its claims do not read; this statement names \
                 no claims: remove unread",
            ));
        }
        if s.not_yet() && s.could_audit.as_deref().is_none_or(|c| c.trim().is_empty()) {
            return Err(spans.error(
                &at("could_audit"),
                "a statement lb could audit says how: could_audit = \"<experiment, claim and \
                 foil>\"",
            ));
        }
        if let Some(c) = s.claims.iter().find(|c| c.split_once('/').is_none()) {
            return Err(spans.error(
                &at("claims"),
                format!("\"{c}\": name a claim as \"<experiment>/<id>\""),
            ));
        }
    }
    Ok(inv)
}

/// The inventories against the loaded experiments: each claim an entry
/// names exists (where its experiment is loaded; its manifest must exist
/// beside the others otherwise), and is its paper's statement or a stand-in
/// for it; and every paper's statement of a paper that has an inventory is
/// named by an entry of it.
pub fn check(
    inventories: &[Inventory],
    experiments: &[Experiment],
    manifests_dir: Option<&Path>,
) -> Result<(), ManifestError> {
    let located = |inv: &Inventory, path: &str, message: String| -> ManifestError {
        let text = std::fs::read_to_string(&inv.file).unwrap_or_default();
        match SpanIndex::parse(&inv.file, &text) {
            Ok(spans) => spans.error(path, message),
            Err(e) => e,
        }
    };
    for inv in inventories {
        for (i, s) in inv.statements.iter().enumerate() {
            for (j, c) in s.claims.iter().enumerate() {
                let path = format!("statement[{i}].claims[{j}]");
                let (exp, id) = c.split_once('/').unwrap_or((c, ""));
                let Some(x) = experiments.iter().find(|x| x.name() == exp) else {
                    let exists =
                        manifests_dir.is_some_and(|d| d.join(format!("{exp}.toml")).exists());
                    if exists {
                        continue;
                    }
                    return Err(located(
                        inv,
                        &path,
                        format!("no experiment \"{exp}\": name a claim as \"<experiment>/<id>\""),
                    ));
                };
                let Some(d) = x.loaded.claims().iter().find(|d| d.id == id) else {
                    return Err(located(inv, &path, x.no_claim(id)));
                };
                // A cited sentence names stand-ins of the papers it cites (or
                // of the held paper, where its claims serve its own
                // statements too); any other entry, its paper's claims.
                let whose = s.cited.as_deref().unwrap_or(inv.paper.authors.as_str());
                let paper = d.paper.as_deref().unwrap_or_default();
                let ok = match &s.cited {
                    None => {
                        matches!(d.origin, Origin::Paper | Origin::StandIn)
                            && paper == inv.paper.authors
                    }
                    Some(c) => {
                        d.origin == Origin::StandIn
                            && (paper == inv.paper.authors
                                || c.split(';')
                                    .any(|x| paper.split(';').any(|y| x.trim() == y.trim())))
                    }
                };
                if !ok {
                    return Err(located(
                        inv,
                        &path,
                        format!(
                            "\"{c}\" is a {} claim of {}: this entry names {}'s \
                             statements and the stand-ins for them (a sentence reporting \
                             another paper's result says cited = \"<that paper>\", and its \
                             claims are stand-ins with that paper)",
                            d.origin.name(),
                            d.paper.as_deref().unwrap_or("no paper"),
                            whose
                        ),
                    ));
                }
            }
        }
    }
    names_in_texts(inventories, experiments, manifests_dir, &located)?;
    // The claims of an origin whose paper has an inventory, with it and the
    // claim's name there ("<experiment>/<id>").
    let held = |origin: Origin| {
        experiments.iter().flat_map(move |e| {
            e.loaded
                .claims()
                .iter()
                .enumerate()
                .filter(move |(_, c)| c.origin == origin)
                .filter_map(move |(i, c)| {
                    let inv = inventories
                        .iter()
                        .find(|v| Some(v.paper.authors.as_str()) == c.paper.as_deref())?;
                    Some((e, i, inv, format!("{}/{}", e.name(), c.id)))
                })
        })
    };
    // A stand-in of a held paper that serves only sentences reporting other
    // papers' results is theirs: counted under them, not the held paper.
    for (e, i, inv, name) in held(Origin::StandIn) {
        let serving: Vec<&Statement> = inv
            .statements
            .iter()
            .filter(|s| s.claims.contains(&name))
            .collect();
        if let Some(first) = serving.first()
            && serving.iter().all(|s| s.cited.is_some())
        {
            return Err(e.loaded.error(
                &format!("claim[{i}].paper"),
                format!(
                    "this stand-in serves only sentences of {} that report other papers' \
                     results ({}): it is theirs: paper = \"{}\" (and stands_for, quoting \
                     the sentence)",
                    inv.paper.authors,
                    serving
                        .iter()
                        .map(|s| s.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    first.cited.as_deref().unwrap_or_default()
                ),
            ));
        }
    }
    // A stand-in counts for a statement: one that no statement lists would
    // be counted under its paper without standing for anything the reader
    // can find.
    for (e, i, inv, name) in held(Origin::StandIn) {
        if !inv.statements.iter().any(|s| s.claims.contains(&name)) {
            return Err(e.loaded.error(
                &format!("claim[{i}]"),
                format!(
                    "a stand-in for {} that no statement of its inventory ({}) lists: add \
                     \"{name}\" to the `claims` of the statement it stands for, or make it a \
                     conjecture of ours (origin = \"ours\")",
                    inv.paper.authors,
                    inv.file.display()
                ),
            ));
        }
    }
    for (e, i, inv, name) in held(Origin::Paper) {
        if !inv.statements.iter().any(|s| s.claims.contains(&name)) {
            return Err(e.loaded.error(
                &format!("claim[{i}]"),
                format!(
                    "a statement of {} that its inventory ({}) does not list: add \
                     \"{name}\" to the `claims` of the statement it audits",
                    inv.paper.authors,
                    inv.file.display()
                ),
            ));
        }
    }
    Ok(())
}

/// What an entry's free texts (`setting`, `out_of_reach`, `could_audit`)
/// name of lb's own: a claim, an experiment or a statement, written as a
/// lower-case word of three or more hyphenated parts (`ht-led-limit`,
/// `led-fig1/fig1-led-stable`). What a claim reads is generated beside its
/// verdict on the inventory page; a name typed in the text must still be a
/// name, so one close to a name but not one (renamed, mistyped) is refused
/// with the name it is close to. Checked only where every manifest beside
/// the inventories is loaded, so that a name of an unloaded one is not
/// taken for a slip.
fn names_in_texts(
    inventories: &[Inventory],
    experiments: &[Experiment],
    manifests_dir: Option<&Path>,
    located: &dyn Fn(&Inventory, &str, String) -> ManifestError,
) -> Result<(), ManifestError> {
    let on_disk = manifests_dir
        .and_then(|d| std::fs::read_dir(d).ok())
        .map(|r| {
            r.filter_map(|e| e.ok())
                .filter(|e| e.path().extension().is_some_and(|x| x == "toml"))
                .count()
        })
        .unwrap_or(0);
    if experiments.len() < on_disk {
        return Ok(());
    }
    let mut known: Vec<&str> = Vec::new();
    for e in experiments {
        known.push(e.name());
        known.extend(e.loaded.claims().iter().map(|c| c.id.as_str()));
    }
    for inv in inventories {
        known.extend(inv.statements.iter().map(|s| s.id.as_str()));
    }
    for inv in inventories {
        for (i, s) in inv.statements.iter().enumerate() {
            let texts = [
                ("setting", Some(&s.setting)),
                ("out_of_reach", s.out_of_reach.as_ref()),
                ("could_audit", s.could_audit.as_ref()),
                ("unreachable", s.unreachable.as_ref()),
                ("unread", s.unread.as_ref()),
            ];
            for (field, text) in texts {
                let Some(text) = text else { continue };
                for word in lb_names(text) {
                    for part in word.split('/') {
                        if known.contains(&part) {
                            continue;
                        }
                        if let Some(near) = crate::diag::did_you_mean(part, &known) {
                            return Err(located(
                                inv,
                                &format!("statement[{i}].{field}"),
                                format!(
                                    "names \"{part}\", which is no claim, experiment or \
                                     statement of lb: did you mean \"{near}\"? (what a claim \
                                     reads is generated on the inventory page; the text need \
                                     not repeat it)"
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// The words of `text` shaped like lb's names: lower-case ASCII letters and
/// digits in three or more hyphenated parts, optionally `experiment/claim`.
fn lb_names(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '/'))
        .map(|w| w.trim_matches(|c| c == '-' || c == '/'))
        .filter(|w| {
            w.split('/')
                .all(|p| p.split('-').filter(|x| !x.is_empty()).count() >= 3)
        })
        .collect()
}
