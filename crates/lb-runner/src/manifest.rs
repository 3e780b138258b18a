//! The manifest: one experiment in TOML (SPEC §4; schema in
//! `experiments/README.md`).
//!
//! The top level is shared by every model: `[experiment]` (whose `model` key
//! picks the schema of the rest), `[[figure]]` and `[[claim]]`
//! ([`crate::outputs`]), and the replication rule (`run.replications` or
//! `run.precision`). Everything else belongs to the model's own module under
//! [`crate::model`].
//!
//! Parsing is strict. Every table denies unknown keys; every value is checked
//! against what is allowed, and every error names the file, line, column and
//! field ([`ManifestError`]). [`load`] parses and validates everything that does
//! not depend on the sweep; the model's expansion checks what does (d ≤ N at
//! each swept N, a Bernoulli arrival mean ≤ 1 at each load, …) with the same
//! located errors.

use crate::diag::{ManifestError, SpanIndex, did_you_mean};
use crate::model::{Model, ModelManifest};
use crate::outputs::{ClaimToml, FigureToml};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A parsed and validated manifest, with the spans of its text for errors.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The model's manifest (its own schema, with the shared sections).
    pub manifest: ModelManifest,
    pub spans: SpanIndex,
}

impl Loaded {
    pub fn model(&self) -> Model {
        self.manifest.model()
    }
    pub fn experiment(&self) -> &ExperimentSpec {
        self.manifest.experiment()
    }
    pub fn figures(&self) -> &[FigureToml] {
        self.manifest.figures()
    }
    pub fn claims(&self) -> &[ClaimToml] {
        self.manifest.claims()
    }
    /// The sweep axes the manifest sets, in expansion order.
    pub fn axes(&self) -> Vec<&'static str> {
        self.manifest.axes()
    }
    /// The labels of its policies, in manifest order.
    pub fn labels(&self) -> Vec<String> {
        self.manifest.labels()
    }

    /// A located error at key path `path`.
    pub fn error(&self, path: &str, message: impl Into<String>) -> ManifestError {
        self.spans.error(path, message)
    }
    pub fn file(&self) -> &Path {
        self.spans.file()
    }
}

/// `[experiment]`: what the experiment is and where it comes from.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    /// Unique name, used for output file names: `[a-z0-9-_]+`.
    pub name: String,
    pub title: String,
    /// The paper, figure and page the experiment reproduces.
    #[serde(default)]
    pub source: Option<String>,
    /// The model: one of [`Model::ALL`] (`"slotted"`, SPEC §1; `"many"`,
    /// SPEC §2). It decides which schema the rest of the file is read with.
    pub model: Model,
    /// The figures and tables this experiment feeds.
    #[serde(default)]
    pub feeds: Vec<String>,
    #[serde(default)]
    pub notes: Option<String>,
}

/// Target precision: replications are added until the relative half-width of
/// the 95% Student-t interval of `metric` is at most `rel_half_width`, or `max`
/// replications have run.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PrecisionSpec {
    #[serde(default = "default_metric")]
    pub metric: crate::precision::MetricName,
    pub rel_half_width: f64,
    pub min: u32,
    pub max: u32,
    /// Replications added per round (default: `min`).
    #[serde(default)]
    pub step: Option<u32>,
}

fn default_metric() -> crate::precision::MetricName {
    crate::precision::MetricName("mean_response".into())
}

/// The largest manifest file lb reads (a manifest is a page of TOML).
pub const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// Reads, parses and validates a manifest file. Only a regular file of at most
/// [`MAX_MANIFEST_BYTES`] of UTF-8 text is read: a device, a pipe or a
/// directory is refused before it is opened for reading.
pub fn load(path: &Path) -> Result<Loaded, ManifestError> {
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
    parse(path, &text)
}

/// Parses and validates manifest text; `path` is used in errors only.
pub fn parse(path: &Path, text: &str) -> Result<Loaded, ManifestError> {
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
    let loaded = Loaded { manifest, spans };
    crate::validate::validate(&loaded)?;
    crate::robustness::validate(&loaded)?;
    Ok(loaded)
}

/// A located, explained error from the TOML deserializer.
pub(crate) fn serde_error(spans: &SpanIndex, e: &toml::de::Error) -> ManifestError {
    let mut msg = e.message().trim_end().to_string();
    // Say what is allowed in words rather than Rust types.
    for (ty, words) in [
        ("expected u64", "expected a whole number ≥ 0"),
        ("expected u32", "expected a whole number ≥ 0"),
        ("expected f64", "expected a number"),
        ("expected a sequence", "expected a list [ … ]"),
        ("expected a map", "expected a table { … }"),
    ] {
        if let Some(head) = msg.strip_suffix(ty) {
            msg = format!("{head}{words}");
        }
    }
    let span = e.span().unwrap_or(0..0);
    let at = spans.path_at(&span).unwrap_or("").to_string();
    if let Some(rest) = msg.strip_prefix("unknown field `") {
        let (word, tail) = rest.split_once('`').unwrap_or((rest, ""));
        let allowed: Vec<&str> = tail
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|s| !s.is_empty())
            .collect();
        let hint = did_you_mean(word, &allowed)
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_default();
        let allowed = if allowed.is_empty() {
            "no keys here".to_string()
        } else {
            allowed.join(", ")
        };
        return spans.error_at_span(
            span,
            &at,
            format!("unknown key `{word}`{hint} (allowed keys: {allowed})"),
        );
    }
    if let Some(rest) = msg.strip_prefix("missing field `") {
        let word = rest.split('`').next().unwrap_or(rest);
        let field = if at.is_empty() {
            word.to_string()
        } else {
            format!("{at}.{word}")
        };
        return spans.error_at_span(span, &field, format!("required key `{word}` is missing"));
    }
    // "expected struct ServersSpec" names a Rust type: say what the manifest
    // may write instead.
    if let Some(i) = msg.find("expected struct ") {
        let ty = msg[i + "expected struct ".len()..].trim();
        let forms = match ty {
            "ServersSpec" => "a table: { count = N, rate = μ }, { count = N, uniform = [a, b] }, \
                 { rates = [μ_1, …] } or { classes = [{ count = N, rate = μ }, …] }"
                .to_string(),
            _ => "a table { … }".to_string(),
        };
        msg = format!("{}expected {forms}", &msg[..i]);
    }
    if let Some(rest) = msg.strip_prefix("invalid type: ") {
        return spans.error_at_span(span, &at, format!("wrong type: found {rest}"));
    }
    if let Some(rest) = msg.strip_prefix("unknown variant `") {
        let (word, tail) = rest.split_once('`').unwrap_or((rest, ""));
        return spans.error_at_span(
            span,
            &at,
            format!("unknown value `{word}`; {}", tail.trim_start_matches(", ")),
        );
    }
    spans.error_at_span(span, &at, msg)
}
