//! The manifest the error tests edit, and the checks of where an error points.

// Each test file uses some of these.
#![allow(dead_code, unused_imports)]

pub(crate) use lb_manifest::{ManifestError, Profile, load, load_str};
pub(crate) use std::path::Path;

pub(crate) const GOOD: &str = r#"[experiment]
name = "t"
title = "test"
model = "slotted"

[system]
dispatchers = 2
servers = { rates = [0.5, 0.8] }
service = "bernoulli"
arrivals = "poisson"

[sweep]
load = [0.5, 0.9]

[[policy]]
spec = "JSQ"

[[policy]]
spec = "L-JSQ-Push"
p_hat = 0.5

[run]
slots = 2000
warmup = 200
replications = 2
seed = 1
"#;

/// Parses `text` and expands it, which must succeed.
pub(crate) fn accepted(text: &str) -> lb_manifest::Experiment {
    load_str(Path::new("exp/ok.toml"), text, Profile::Full).unwrap_or_else(|e| panic!("{e}"))
}

/// Parses `text` (after `edit`) and expands it; returns the error.
pub(crate) fn err(text: &str) -> ManifestError {
    let r = load_str(Path::new("exp/bad.toml"), text, Profile::Full).map(|_| ());
    r.expect_err("the manifest must be rejected")
}

pub(crate) fn replace(from: &str, to: &str) -> String {
    assert!(GOOD.contains(from), "{from}");
    GOOD.replacen(from, to, 1)
}

/// The 1-based (line, column) of the first occurrence of `needle`.
pub(crate) fn pos(text: &str, needle: &str) -> (usize, usize) {
    let i = text.find(needle).expect(needle);
    let line = text[..i].matches('\n').count() + 1;
    let col = i - text[..i].rfind('\n').map_or(0, |j| j + 1) + 1;
    (line, col)
}

pub(crate) fn check(e: &ManifestError, text: &str, at: &str, field: &str, says: &str) {
    assert_eq!(e.file, Path::new("exp/bad.toml"));
    assert_eq!((e.line, e.col), pos(text, at), "{e}");
    assert_eq!(e.field, field, "{e}");
    assert!(e.message.contains(says), "{e}");
    // The rendered form is file:line:col: field: message.
    let shown = e.to_string();
    assert!(
        shown.starts_with(&format!("exp/bad.toml:{}:{}: {field}: ", e.line, e.col)),
        "{shown}"
    );
}

pub(crate) fn readme_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments")
}

pub(crate) const CLAIM: &str =
    "\n[[claim]]\norigin = \"check\"\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\n";

/// `check`, at the last occurrence of `at` (a value the manifest also has
/// before the claim).
pub(crate) fn check_last(e: &ManifestError, text: &str, at: &str, field: &str, says: &str) {
    let i = text.rfind(at).expect(at);
    let line = text[..i].matches('\n').count() + 1;
    let col = i - text[..i].rfind('\n').map_or(0, |j| j + 1) + 1;
    assert_eq!((e.line, e.col), (line, col), "{e}");
    assert_eq!(e.field, field, "{e}");
    assert!(e.message.contains(says), "{e}");
    assert!(
        e.to_string()
            .starts_with(&format!("exp/bad.toml:{line}:{col}: {field}: ")),
        "{e}"
    );
}

pub(crate) const FIGURE: &str = "\n[[figure]]\nname = \"f\"\ntitle = \"t\"\nx = \"load\"\ny = \"mean_sum_q\"\ncaption = \"c\"\n";
pub(crate) const POOLED_CLAIM: &str = "\n[[claim]]\norigin = \"check\"\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\nkind = \"bound\"\n\
    metric = \"mean_sum_q\"\npolicies = [\"JSQ\"]\nbound = \"pooled\"\nside = \"ge\"\n";
