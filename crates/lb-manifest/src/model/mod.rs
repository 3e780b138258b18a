//! The models' manifests, behind one interface.
//!
//! Each model is one module here that owns its manifest sections (`[system]`,
//! `[sweep]`, `[[policy]]`, `[run]`, `[quick]`, …), their validation with
//! located errors, and their expansion into points. What a point runs and
//! measures (metrics, references, cost) is lb-model's; the shared code of
//! this crate (the loader, the claim checks, robustness maps) calls a model's
//! manifest only through [`ModelManifest`], each operation one `match` with
//! an arm per model and no wildcard: a new model is a compile error in every
//! operation until it has its arm.
//!
//! Model functions take their own manifest type and the spans of its text
//! ([`SpanIndex`], for located errors), never the loaded file.

/// Declares a model's `Manifest`: the sections every model shares
/// (`[experiment]`, `[sweep]`, `[[policy]]`, `[run]`, `[quick]`,
/// `[[figure]]`, `[[claim]]`) written once here, the model's own sections
/// given at the call. Each model names its types for `[sweep]`, `[[policy]]`,
/// `[run]` and `[quick]`. (serde's `flatten` would share the sections too,
/// but not with `deny_unknown_fields`.)
macro_rules! model_manifest {
    (
        $(#[doc = $doc:literal])*
        sweep: $sweep:ty, policy: $policy:ty, run: $run:ty, quick: $quick:ty;
        $( $(#[$meta:meta])* $key:ident: $ty:ty, )*
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct Manifest {
            /// `[experiment]`: its name, title, source and paper.
            pub experiment: $crate::experiment::ExperimentSpec,
            $( $(#[$meta])* pub $key: $ty, )*
            /// `[sweep]`: the axes whose every combination is a point.
            #[serde(default)]
            pub sweep: $sweep,
            /// `[[policy]]`: the policies run at every point.
            #[serde(rename = "policy")]
            pub policies: Vec<$policy>,
            /// `[run]`: run length, replications and the seed.
            pub run: $run,
            /// `[quick]`: what `lb run --quick` uses instead.
            #[serde(default)]
            pub quick: $quick,
            /// Figures drawn from the experiment's points.
            #[serde(default, rename = "figure")]
            pub figures: Vec<$crate::outputs::FigureToml>,
            /// Claims (docs/MODEL.md §5) the audit holds the results against.
            #[serde(default, rename = "claim")]
            pub claims: Vec<$crate::claim::ClaimToml>,
        }
    };
}

/// Declares a model's `[run]` and `[quick]` tables (`RunSpec`, `QuickSpec`):
/// the keys every model shares (batches, replications or a precision, the
/// seed; the quick replications) written once here, the model's run length
/// given at the call.
macro_rules! run_sections {
    (
        $(#[doc = $rdoc:literal])*
        run { $( $(#[$rmeta:meta])* $rkey:ident: $rty:ty, )* }
        $(#[doc = $qdoc:literal])*
        quick { $( $(#[$qmeta:meta])* $qkey:ident: $qty:ty, )* }
    ) => {
        $(#[doc = $rdoc])*
        #[derive(Debug, Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct RunSpec {
            $( $(#[$rmeta])* pub $rkey: $rty, )*
            /// Batches of the measured window (batch means, stability verdict).
            pub batches: Option<u32>,
            /// A fixed number of replications, or …
            pub replications: Option<u32>,
            /// … a target precision.
            pub precision: Option<$crate::experiment::PrecisionSpec>,
            /// The master seed.
            pub seed: u64,
        }

        $(#[doc = $qdoc])*
        #[derive(Debug, Clone, Default, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct QuickSpec {
            $( $(#[$qmeta])* pub $qkey: $qty, )*
            /// Replications of each point.
            pub replications: Option<u32>,
        }
    };
}

pub mod continuous;
pub mod length;
pub mod many;
pub mod slotted;
pub mod spn;
pub mod sweep;

use crate::claim::{Claim, ClaimToml};
use crate::diag::{ManifestError, SpanIndex, serde_error};
use crate::experiment::{ExperimentSpec, PrecisionSpec};
use crate::outputs::FigureToml;
use crate::plan::Plan;
use crate::robustness::Variant;
use lb_model::model::{Model, Profile};
use slotted::RobustnessToml;
use sweep::Sweep;

type R = Result<(), ManifestError>;

/// A parsed manifest of one model. Each model's manifest carries the shared
/// sections (`[experiment]`, `[[figure]]`, `[[claim]]`) beside its own.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // one per loaded file
pub enum ModelManifest {
    /// A slotted experiment.
    Slotted(slotted::Manifest),
    /// A many-server experiment.
    Many(many::Manifest),
    /// A network experiment.
    Spn(spn::Manifest),
}

impl ModelManifest {
    /// Parses `text` strictly with `model`'s schema.
    pub fn parse(
        model: Model,
        text: &str,
        spans: &SpanIndex,
    ) -> Result<ModelManifest, ManifestError> {
        let err = |e: toml::de::Error| serde_error(spans, &e);
        Ok(match model {
            Model::Slotted => ModelManifest::Slotted(toml::from_str(text).map_err(err)?),
            Model::Many => ModelManifest::Many(toml::from_str(text).map_err(err)?),
            Model::Spn => ModelManifest::Spn(toml::from_str(text).map_err(err)?),
        })
    }

    /// The model it runs.
    pub fn model(&self) -> Model {
        match self {
            ModelManifest::Slotted(_) => Model::Slotted,
            ModelManifest::Many(_) => Model::Many,
            ModelManifest::Spn(_) => Model::Spn,
        }
    }

    /// Its `[experiment]` table.
    pub fn experiment(&self) -> &ExperimentSpec {
        match self {
            ModelManifest::Slotted(m) => &m.experiment,
            ModelManifest::Many(m) => &m.experiment,
            ModelManifest::Spn(m) => &m.experiment,
        }
    }

    /// Its figures.
    pub fn figures(&self) -> &[FigureToml] {
        match self {
            ModelManifest::Slotted(m) => &m.figures,
            ModelManifest::Many(m) => &m.figures,
            ModelManifest::Spn(m) => &m.figures,
        }
    }

    /// The `[[claim]]` tables as written (validation types them:
    /// [`crate::manifest::Loaded::claims`]).
    pub(crate) fn claim_tables(&self) -> &[ClaimToml] {
        match self {
            ModelManifest::Slotted(m) => &m.claims,
            ModelManifest::Many(m) => &m.claims,
            ModelManifest::Spn(m) => &m.claims,
        }
    }

    /// `run.replications` and `run.precision`, for the shared check.
    pub fn replications(&self) -> (Option<u32>, Option<&PrecisionSpec>) {
        match self {
            ModelManifest::Slotted(m) => (m.run.replications, m.run.precision.as_ref()),
            ModelManifest::Many(m) => (m.run.replications, m.run.precision.as_ref()),
            ModelManifest::Spn(m) => (m.run.replications, m.run.precision.as_ref()),
        }
    }

    /// The model's own static checks (everything but the shared sections and
    /// the robustness maps); `claims` are the manifest's claims that
    /// validation has typed, for the model's own checks of them (of a
    /// manifest at an older revision, read to compare verdicts, only those
    /// it was written under).
    pub fn validate(&self, spans: &SpanIndex, claims: &[Claim], older_revision: bool) -> R {
        match self {
            ModelManifest::Slotted(m) if older_revision => slotted::validate(spans, m, &[]),
            ModelManifest::Slotted(m) => slotted::validate(spans, m, claims),
            ModelManifest::Many(m) => many::validate(spans, m, claims),
            ModelManifest::Spn(m) => spn::validate(spans, m),
        }
    }

    /// The checks of the robustness maps: each value, and each combination,
    /// written into the manifest and validated and expanded like it — so
    /// they run after every other check of the manifest has passed (of a
    /// manifest at an older revision, only those it was written under).
    pub(crate) fn validate_robustness(&self, spans: &SpanIndex, older_revision: bool) -> R {
        match self {
            ModelManifest::Slotted(m) => slotted::validate_robustness(spans, m, older_revision),
            ModelManifest::Many(_) | ModelManifest::Spn(_) => Ok(()),
        }
    }

    /// The manifest as its sweep: axes, their values, policies.
    pub fn sweep(&self) -> &dyn Sweep {
        match self {
            ModelManifest::Slotted(m) => m,
            ModelManifest::Many(m) => m,
            ModelManifest::Spn(m) => m,
        }
    }

    /// The sweep axes the manifest sets, in expansion order.
    pub fn axes(&self) -> Vec<&'static str> {
        self.sweep().axes()
    }

    /// The number of points the manifest expands into, at most (sweep
    /// combinations × policies; saturating).
    pub fn points(&self) -> u64 {
        sweep::points(self.sweep())
    }

    /// The values of sweep axis `axis` as plans and `where` tables write them
    /// ("0.9", "100", "true", "job"); empty for an axis the manifest does not
    /// sweep.
    pub(crate) fn axis_values(&self, axis: &str) -> Vec<String> {
        self.sweep().axis_values(axis)
    }

    /// The labels of the manifest's policies, in order.
    pub fn labels(&self) -> Vec<String> {
        match self {
            ModelManifest::Slotted(m) => (0..m.policies.len()).map(|i| m.label(i)).collect(),
            ModelManifest::Many(m) => (0..m.policies.len()).map(|i| m.label(i)).collect(),
            ModelManifest::Spn(m) => (0..m.policies.len()).map(|i| m.label(i)).collect(),
        }
    }

    /// Expands the manifest into its points.
    pub fn expand(&self, spans: &SpanIndex, profile: Profile) -> Result<Plan, ManifestError> {
        match self {
            ModelManifest::Slotted(m) => slotted::expand(spans, m, profile),
            ModelManifest::Many(m) => many::expand(spans, m, profile),
            ModelManifest::Spn(m) => spn::expand(spans, m, profile),
        }
    }

    /// The manifest's claim robustness maps (`[[robustness]]`), where the
    /// model has settings a paper can leave unstated.
    pub fn robustness_maps(&self) -> &[RobustnessToml] {
        match self {
            ModelManifest::Slotted(m) => &m.robustness,
            ModelManifest::Many(_) | ModelManifest::Spn(_) => &[],
        }
    }

    /// Every combination of every robustness map, expanded with `profile`
    /// and cut down to the points its claims (of `claims`, the manifest's,
    /// typed) read.
    pub fn variants(
        &self,
        spans: &SpanIndex,
        claims: &[Claim],
        profile: Profile,
    ) -> Result<Vec<Variant>, ManifestError> {
        match self {
            ModelManifest::Slotted(m) => slotted::variants(spans, m, claims, profile),
            ModelManifest::Many(_) | ModelManifest::Spn(_) => Ok(Vec::new()),
        }
    }
}

/// One vocabulary across the models: where a policy name belongs to another
/// model than `model`, the name it has here (Power-of-k is the many-server
/// model's `Pod` with `d = k`) or the model that runs it. None for a name
/// no model knows, or one this model knows.
pub(crate) fn bridge(model: &str, spec: &str) -> Option<String> {
    use slotted::PolicyKind;
    let s = spec.trim();
    // The name as each model reads it (one parser each).
    let in_slotted = PolicyKind::parse(s);
    let in_many = s.parse::<many::ManyKind>().ok();
    let slotted_only = in_slotted.is_some() && in_many.is_none();
    let many_only = in_many.is_some() && in_slotted.is_none();
    let either = in_slotted.is_some() || in_many.is_some();
    match (model, in_slotted) {
        ("many", Some(PolicyKind::Pod(Some(k)))) => Some(format!(
            "the many-server model calls Power-of-{k} `spec = \"Pod\"` with `d = {k}`"
        )),
        ("many", Some(PolicyKind::Pod(None))) if in_many.is_none() => {
            Some("the many-server model calls Power-of-d `spec = \"Pod\"` with its `d`".into())
        }
        ("many", _) if slotted_only => Some(format!(
            "{s} is a policy of the slotted model (model = \"slotted\"), not of the \
             many-server model"
        )),
        ("slotted", _) if many_only => Some(format!(
            "{s} is a policy of the many-server model (model = \"many\"), not of the slotted \
             model"
        )),
        ("spn", _) if either => Some(format!(
            "{s} dispatches jobs to servers (model = \"slotted\" or \"many\"); a processing \
             network schedules its stations instead"
        )),
        _ => None,
    }
}

/// A policy's `spec` at `at` in a model whose names are `names` (read
/// ignoring case): a name of another model is refused with its name here
/// or the model that runs it ([`bridge`]), any other unknown name with the
/// nearest known one.
pub(crate) fn policy_spec(
    l: &SpanIndex,
    at: &str,
    model: &str,
    spec: &str,
    names: &[&str],
) -> Result<(), ManifestError> {
    if let Some(other) = bridge(model, spec) {
        return Err(l.error(
            at,
            format!(
                "unknown policy \"{}\": {other}; valid names: {}",
                spec.trim(),
                names.join(", ")
            ),
        ));
    }
    crate::diag::one_of(
        l,
        at,
        "policy",
        crate::diag::spelled_as_in(spec, names),
        names,
    )
}

/// A policy's default label: its `spec` spelled as the model's list of
/// names spells it ("jsq" → "JSQ", "power-of-3" → "Power-of-3"), since
/// `spec` is read ignoring case but claims and figures name policies by
/// label; a spec in no list stays as written.
/// Which of a model's policy `names` `spec` is, case and surrounding space
/// aside: the one place a model's policy word becomes its kind.
pub(crate) fn name_index(spec: &str, names: &[&str]) -> Option<usize> {
    names
        .iter()
        .position(|n| n.eq_ignore_ascii_case(spec.trim()))
}

pub(crate) fn canonical_label(spec: &str, names: &[&str]) -> String {
    let s = spec.trim();
    if let Some(i) = name_index(s, names) {
        return names[i].to_string();
    }
    // Power-of-k, for any k.
    if let Some(k) = s
        .get(..9)
        .filter(|p| p.eq_ignore_ascii_case("power-of-"))
        .map(|_| &s[9..])
        .filter(|k| !k.is_empty() && k.chars().all(|c| c.is_ascii_digit()))
    {
        return format!("Power-of-{k}");
    }
    s.to_string()
}

#[cfg(test)]
mod label_tests {
    #[test]
    fn default_labels_are_spelled_as_the_names_list_spells_them() {
        let names = ["JSQ", "Power-of-d", "L-JSQ-Push"];
        assert_eq!(super::canonical_label(" jsq ", &names), "JSQ");
        assert_eq!(super::canonical_label("l-jsq-push", &names), "L-JSQ-Push");
        assert_eq!(super::canonical_label("POWER-OF-3", &names), "Power-of-3");
        assert_eq!(super::canonical_label("power-of-d", &names), "Power-of-d");
        assert_eq!(super::canonical_label("Whatever", &names), "Whatever");
    }
}

#[cfg(test)]
mod bridge_tests {
    use super::bridge;

    /// A name another model runs gets that model's word for it; a name the
    /// model runs, or no model knows, gets nothing.
    #[test]
    fn a_name_of_another_model_is_bridged() {
        let said = |m: &str, s: &str| bridge(m, s).unwrap_or_default();
        assert!(said("many", "Power-of-3").contains("`d = 3`"));
        assert!(said("many", "Power-of-d").contains("its `d`"));
        assert!(said("many", "L-JSQ-Push").contains("slotted model"));
        assert!(said("many", "WR").contains("slotted model"));
        assert!(said("slotted", "I1F").contains("many-server model"));
        assert!(said("spn", "JSQ").contains("processing network"));
        assert_eq!(bridge("many", "Pod"), None);
        assert_eq!(bridge("slotted", "JSQ"), None);
        assert_eq!(bridge("slotted", "Nonesuch"), None);
    }
}
