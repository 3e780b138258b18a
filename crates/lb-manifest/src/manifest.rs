//! The manifest: one experiment in TOML (docs/MODEL.md §4; schema in
//! `experiments/README.md`).
//!
//! The top level is shared by every model: `[experiment]` (whose `model` key
//! picks the schema of the rest), `[[figure]]` ([`crate::outputs`]) and
//! `[[claim]]` ([`crate::claim`]), and the replication rule (`run.replications` or
//! `run.precision`). Everything else belongs to the model's own module under
//! [`crate::model`].
//!
//! Parsing is strict. Every table denies unknown keys, and every error names
//! the file, line, column and field ([`ManifestError`]). This module only
//! reads and parses ([`Parsed`]); [`crate::load()`] validates (into a
//! [`Loaded`], claims typed), expands and checks what was parsed.

use crate::claim::Claim;
use crate::diag::{ManifestError, SpanIndex, did_you_mean};
use crate::experiment::ExperimentSpec;
use crate::model::ModelManifest;
use crate::outputs::FigureToml;
use lb_model::model::Model;
use serde::Deserialize;
use std::path::Path;

/// A manifest as parsed: the model's manifest (its own schema, with the
/// shared sections as written) and the spans of its text for errors.
/// Validation (`validate`) makes it a [`Loaded`].
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The model's manifest, as parsed.
    pub manifest: ModelManifest,
    /// Where each key and value stands in the file.
    pub spans: SpanIndex,
    /// Read as a manifest of an older revision ([`crate::LoadOptions`]):
    /// the rules on claims added since are not applied.
    pub older_revision: bool,
}

/// A parsed manifest is where its errors point: functions that take the
/// spans ([`SpanIndex`]) take it too.
impl std::ops::Deref for Parsed {
    type Target = SpanIndex;
    fn deref(&self) -> &SpanIndex {
        &self.spans
    }
}

impl Parsed {
    /// The model it runs.
    pub fn model(&self) -> Model {
        self.manifest.model()
    }
    /// Its `[experiment]` table.
    pub fn experiment(&self) -> &ExperimentSpec {
        self.manifest.experiment()
    }
    /// Its figures.
    pub fn figures(&self) -> &[FigureToml] {
        self.manifest.figures()
    }
    /// The sweep axes the manifest sets, in expansion order.
    pub fn axes(&self) -> Vec<&'static str> {
        self.manifest.axes()
    }
    /// The labels of its policies, in manifest order.
    pub fn labels(&self) -> Vec<String> {
        self.manifest.labels()
    }
}

/// A manifest validated (`validate`): as parsed, with its claims
/// typed ([`Claim`]) once, for everything that reads them.
#[derive(Debug, Clone)]
pub struct Loaded {
    parsed: Parsed,
    claims: Vec<Claim>,
}

/// A loaded manifest is still the manifest as parsed (its sections, its
/// spans for errors), with typed claims.
impl std::ops::Deref for Loaded {
    type Target = Parsed;
    fn deref(&self) -> &Parsed {
        &self.parsed
    }
}

impl Loaded {
    /// A parsed manifest and its claims, typed by validation.
    pub(crate) fn new(parsed: Parsed, claims: Vec<Claim>) -> Loaded {
        Loaded { parsed, claims }
    }

    /// Its claims, in manifest order.
    pub fn claims(&self) -> &[Claim] {
        &self.claims
    }
}

/// The largest manifest file lb reads (a manifest is a page of TOML).
pub(crate) const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// Reads a manifest file's text. Only a regular file of at most
/// [`MAX_MANIFEST_BYTES`] of UTF-8 text is read: a device, a pipe or a
/// directory is refused before it is opened for reading.
/// A manifest named as every command names one: a path, or an experiment's
/// name, `experiments/<name>.toml` from the project root (`led-fig1` for
/// `experiments/led-fig1.toml`). A path that exists is itself; a name that
/// is none is refused with the nearest experiment's name.
pub fn resolve(given: &Path) -> Result<std::path::PathBuf, ManifestError> {
    if given.exists() {
        return Ok(given.to_path_buf());
    }
    let dir = Path::new("experiments");
    let name = given.to_string_lossy();
    let bare = given.components().count() == 1 && given.extension().is_none();
    if !bare {
        // A path: reading it says what is wrong with it.
        return Ok(given.to_path_buf());
    }
    let p = dir.join(format!("{name}.toml"));
    if p.is_file() {
        return Ok(p);
    }
    let names: Vec<String> = std::fs::read_dir(dir)
        .map(|r| {
            r.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .filter_map(|p| Some(p.file_stem()?.to_string_lossy().into_owned()))
                .collect()
        })
        .unwrap_or_default();
    let stem = given
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let hint = match crate::diag::did_you_mean(&stem, &refs) {
        Some(n) => format!(": did you mean \"{n}\" (experiments/{n}.toml)?"),
        None if names.is_empty() => {
            " (name a manifest by its path, or by its experiment's name from the project \
             root, where experiments/ is)"
                .into()
        }
        None => {
            " (name a manifest by its path, or by the name of one of experiments/*.toml)".into()
        }
    };
    Err(ManifestError {
        file: given.to_path_buf(),
        line: 0,
        col: 0,
        field: String::new(),
        message: format!("no such manifest{hint}"),
    })
}

/// Reads a manifest's text; the error names the file.
pub fn read(path: &Path) -> Result<String, ManifestError> {
    let fail = |message: String| ManifestError {
        file: path.to_path_buf(),
        line: 0,
        col: 0,
        field: String::new(),
        message,
    };
    let meta =
        std::fs::metadata(path).map_err(|e| fail(format!("cannot read the manifest: {e}")))?;
    if !meta.is_file() {
        return Err(fail(
            "not a regular file (a manifest is a TOML file in experiments/)".into(),
        ));
    }
    if meta.len() > MAX_MANIFEST_BYTES {
        return Err(fail(format!(
            "{} bytes is larger than a manifest can be ({MAX_MANIFEST_BYTES} bytes at most)",
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| fail(format!("cannot read the manifest: {e}")))?;
    if let Some(i) = bytes.iter().position(|b| *b == 0) {
        return Err(fail(format!(
            "not a UTF-8 TOML file (a NUL byte at byte {i}: a binary file?)"
        )));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "not a UTF-8 TOML file (invalid UTF-8 at byte {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok(text)
}

/// Parses manifest text strictly with its model's schema; `path` is used in
/// errors only. Nothing is validated beyond the schema: [`crate::load()`] does
/// that.
pub fn parse(path: &Path, text: &str) -> Result<Parsed, ManifestError> {
    let spans = SpanIndex::parse(path, text)?;
    // A first, lenient look at `experiment.model` picks the schema; a file
    // without a readable model is read as slotted, whose strict parse then
    // says what is wrong.
    #[derive(Deserialize)]
    struct Peek {
        experiment: PeekExperiment,
    }
    #[derive(Deserialize)]
    struct PeekExperiment {
        model: String,
    }
    let model = match toml::from_str::<Peek>(text) {
        Ok(p) => match Model::parse(&p.experiment.model) {
            Some(m) => m,
            None => {
                let names: Vec<&str> = Model::ALL.iter().map(|m| m.name()).collect();
                let hint = did_you_mean(&p.experiment.model, &names)
                    .map(|s| format!("did you mean \"{s}\"? "))
                    .unwrap_or_default();
                return Err(spans.error(
                    "experiment.model",
                    format!(
                        "unknown model \"{}\"; {hint}allowed: {}",
                        p.experiment.model,
                        names.join(", ")
                    ),
                ));
            }
        },
        Err(_) => Model::Slotted,
    };
    let manifest = ModelManifest::parse(model, text, &spans)?;
    Ok(Parsed {
        manifest,
        spans,
        older_revision: false,
    })
}
