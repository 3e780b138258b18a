//! The one loader: a manifest file → an [`Experiment`] ready to run, draw and
//! audit. Every command goes through [`load_all`] (or [`load`] for one file):
//!
//! 1. read and parse strictly with the model's schema ([`crate::manifest`]);
//! 2. validate what does not depend on the sweep: the shared sections
//!    (`validate`, which types the claims once: [`Loaded::claims`]),
//!    the model's own, and last the robustness maps (each combination is
//!    written into the manifest and checked like it, so only once the rest
//!    has passed);
//! 3. expand with the chosen [`Profile`] into a [`Plan`] (the model checks
//!    what does depend on the sweep, per point);
//! 4. check the claims against the points (`checks`: named
//!    references that apply, control variates with a partner);
//! 5. expand every combination of the robustness maps into the points its
//!    claims read ([`Variant`]s);
//! 6. read the experiment's decide ledger, if any (full profile only:
//!    [`crate::ledger`]): the points it extends are read with its count of
//!    replications in every plan, and [`Experiment::claims_as_audited`]
//!    holds each claim at the level its number of looks leaves it.
//!
//! Every failure is a [`ManifestError`] located at the file, line, column and
//! key that caused it.

use crate::claim::Claim;
use crate::diag::ManifestError;
use crate::ledger::{Ledger, spent_level};
use crate::manifest::{self, Loaded};
use crate::plan::Plan;
use crate::robustness::Variant;
use lb_model::model::Profile;
use std::path::{Path, PathBuf};

/// A manifest loaded: parsed, validated, expanded with one profile, its
/// claims checked against the points, and its robustness maps expanded.
#[derive(Debug, Clone)]
pub struct Experiment {
    /// The manifest, validated.
    pub loaded: Loaded,
    /// Its points and calibrations.
    pub plan: Plan,
    /// Every combination of every robustness map (the manifest's own
    /// combination among them, marked `base`).
    pub variants: Vec<Variant>,
    /// Its decide ledger (`experiments/decide/<name>.json`; empty if none, and
    /// with the quick profile).
    pub ledger: Ledger,
}

impl Experiment {
    /// The experiment's name (`experiment.name`), which names its outputs.
    pub fn name(&self) -> &str {
        &self.loaded.experiment().name
    }

    /// Why `id` names no claim of the experiment, with the ids it has: what
    /// a reference to `<experiment>/<id>` is refused with.
    pub(crate) fn no_claim(&self, id: &str) -> String {
        format!(
            "experiment {} has no claim \"{id}\"; its ids: {}",
            self.name(),
            self.loaded
                .claims()
                .iter()
                .map(|d| d.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    /// The plans of the robustness combinations other than the manifest's
    /// own (whose points are the experiment's).
    pub fn variant_plans(&self) -> impl Iterator<Item = &Plan> {
        self.variants.iter().filter(|v| !v.base).map(|v| &v.plan)
    }

    /// The experiment's plan followed by its other combinations' plans:
    /// everything `lb run` computes for it.
    pub fn all_plans(&self) -> impl Iterator<Item = &Plan> {
        std::iter::once(&self.plan).chain(self.variant_plans())
    }

    /// Its claims as the audit holds them: a claim the ledger gives j ≥ 2
    /// looks at level 1 − α·6/(π² j²), α = 1 − its manifest level
    /// ([`spent_level`]); the others (and the checks of every `why`) as the
    /// manifest says.
    pub fn claims_as_audited(&self) -> Vec<Claim> {
        self.loaded
            .claims()
            .iter()
            .map(|c| {
                let mut c = c.clone();
                c.level = spent_level(c.level, self.ledger.looks(&c.id));
                c
            })
            .collect()
    }

    /// Replaces its ledger: every plan reads the points it extends with its
    /// count.
    pub fn with_ledger(mut self, ledger: Ledger) -> Experiment {
        let extended = ledger.replications();
        self.plan.extended = extended.clone();
        for v in &mut self.variants {
            v.plan.extended = extended.clone();
        }
        self.ledger = ledger;
        self
    }
}

/// How manifests are read: the profile, and whether they are an older
/// revision's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// The profile planned (`--quick` or the full one).
    pub profile: Profile,
    /// Manifests of an older revision (`lb diff --against`): a paper's
    /// statement without its `reading`, a statement or stand-in without a
    /// foil, an uncited source and the rules on claims added since are read
    /// as they are, not refused.
    pub older_revision: bool,
}

impl LoadOptions {
    /// This revision's manifests, planned for `profile`.
    pub fn new(profile: Profile) -> LoadOptions {
        LoadOptions {
            profile,
            older_revision: false,
        }
    }
}

/// Loads the manifest file at `path` with `profile`.
/// `path` may name the manifest by its experiment's name instead
/// ([`manifest::resolve`]).
pub fn load(path: &Path, profile: Profile) -> Result<Experiment, ManifestError> {
    load_with(path, LoadOptions::new(profile))
}

fn load_with(path: &Path, options: LoadOptions) -> Result<Experiment, ManifestError> {
    let path = manifest::resolve(path)?;
    load_str_with(&path, &manifest::read(&path)?, options)
}

/// Loads manifest text; `path` is used in errors only.
pub fn load_str(path: &Path, text: &str, profile: Profile) -> Result<Experiment, ManifestError> {
    load_str_with(path, text, LoadOptions::new(profile))
}

fn load_str_with(
    path: &Path,
    text: &str,
    options: LoadOptions,
) -> Result<Experiment, ManifestError> {
    let profile = options.profile;
    let mut parsed = manifest::parse(path, text)?;
    parsed.older_revision = options.older_revision;
    let loaded = crate::validate::validate(parsed)?;
    let mut plan = loaded.manifest.expand(&loaded.spans, profile)?;
    crate::checks::references_apply(&loaded.spans, loaded.claims(), &plan)?;
    if !options.older_revision {
        crate::checks::orderings_differ(&loaded.spans, loaded.claims(), &plan)?;
    }
    crate::checks::mark_drawn(&mut plan, loaded.claims(), loaded.figures());
    if profile == Profile::Full {
        crate::checks::quotes_select(&loaded, &plan)?;
    }
    let variants = loaded
        .manifest
        .variants(&loaded.spans, loaded.claims(), profile)?;
    let name = loaded.experiment().name.clone();
    let ledger = match profile {
        Profile::Full => Ledger::read(&crate::ledger::path(path, &name), &loaded)?,
        Profile::Quick => None,
    };
    let e = Experiment {
        loaded,
        plan,
        variants,
        ledger: Ledger::new(&name),
    };
    Ok(match ledger {
        Some(l) => e.with_ledger(l),
        None => e,
    })
}

/// Loads every manifest of `paths` with `profile`; the first error stops.
/// Two manifests with one experiment name are an error, located at the
/// second: a name names the outputs, and they would overwrite each other's.
pub fn load_all(paths: &[PathBuf], profile: Profile) -> Result<Vec<Experiment>, ManifestError> {
    load_all_with(paths, LoadOptions::new(profile))
}

/// [`load_all`] with [`LoadOptions`].
pub fn load_all_with(
    paths: &[PathBuf],
    options: LoadOptions,
) -> Result<Vec<Experiment>, ManifestError> {
    let paths = paths
        .iter()
        .map(|p| manifest::resolve(p))
        .collect::<Result<Vec<_>, _>>()?;
    let paths = paths.as_slice();
    let mut out: Vec<Experiment> = Vec::with_capacity(paths.len());
    for p in paths {
        let e = load_with(p, options)?;
        if let Some(b) = out.iter().find(|b| b.name() == e.name()) {
            return Err(e.loaded.error(
                "experiment.name",
                format!(
                    "\"{}\" is also the name of {}: experiment names must be unique (they \
                     name the outputs)",
                    e.name(),
                    b.loaded.file().display()
                ),
            ));
        }
        out.push(e);
    }
    tests_across(&out)?;
    reads_across(&out)?;
    if let Some(dir) = crate::inventory::beside(paths) {
        let inventories = crate::inventory::load_dir(&dir)?;
        crate::inventory::check(&inventories, &out, dir.parent())?;
    }
    Ok(out)
}

/// Every experiment a claim `reads` is another one, loaded with it or a
/// manifest beside it (`lb reproduce` and `lb audit` load them all).
fn reads_across(experiments: &[Experiment]) -> Result<(), ManifestError> {
    for e in experiments {
        let beside = |r: &str| {
            e.loaded
                .file()
                .parent()
                .is_some_and(|d| d.join(format!("{r}.toml")).exists())
        };
        for (i, c) in e.loaded.claims().iter().enumerate() {
            for (j, r) in c.reads.iter().enumerate() {
                let known = experiments.iter().any(|x| x.name() == r) || beside(r);
                if r == e.name() || !known {
                    let names: Vec<&str> = experiments
                        .iter()
                        .map(|x| x.name())
                        .filter(|n| *n != e.name())
                        .collect();
                    return Err(e.loaded.error(
                        &format!("claim[{i}].reads[{j}]"),
                        format!(
                            "\"{r}\" is not another experiment loaded with this one: name one of \
                             {}",
                            names.join(", ")
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Every stand-in's `tests = "experiment/id"` whose experiment is loaded
/// with it names a paper's statement there (one of this manifest's own is
/// checked by validation).
fn tests_across(experiments: &[Experiment]) -> Result<(), ManifestError> {
    use crate::claim::{Origin, StandsFor};
    for e in experiments {
        for (i, c) in e.loaded.claims().iter().enumerate() {
            let Some(StandsFor::Claim(t)) = &c.stands_for else {
                continue;
            };
            let Some((exp, id)) = t.split_once('/') else {
                continue;
            };
            // Another experiment not loaded with this one cannot be checked
            // here; `lb reproduce` and `lb audit` load them all.
            let Some(x) = experiments.iter().find(|x| x.name() == exp) else {
                continue;
            };
            let why = match x.loaded.claims().iter().find(|d| d.id == id) {
                // The statement's claim reads this experiment's records of its
                // reading (`reads`): a stand-in here with its check would
                // decide on the same records and count them twice.
                Some(d)
                    if d.origin == Origin::Paper
                        && !x.loaded.older_revision
                        && d.check == c.check
                        && d.reads.iter().any(|r| r == e.name()) =>
                {
                    format!(
                        "\"{t}\" reads this experiment's records (reads = [\"{}\"]) with the \
                         same check: this stand-in restates it on the same records and would \
                         count them twice; read something the claim does not (another setting, \
                         points, tolerance or rule), or remove it",
                        e.name()
                    )
                }
                Some(d) if d.origin == Origin::Paper => continue,
                Some(d) => format!(
                    "\"{t}\" is a {} claim, not a paper's statement: a stand-in tests a claim \
                     with origin = \"paper\"",
                    d.origin.name()
                ),
                None => x.no_claim(id),
            };
            return Err(e.loaded.error(&format!("claim[{i}].tests"), why));
        }
    }
    Ok(())
}
