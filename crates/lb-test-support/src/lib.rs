//! Helpers shared by lb's integration tests (a dev-dependency only).
//!
//! - [`records`]: every record of a results directory as canonical JSON
//!   without its provenance and checksum, so that two runs of the same keys
//!   compare equal exactly when their numbers do (determinism tests);
//! - [`plan`]: manifest text through the one loader, with a located error
//!   as the panic message;
//! - [`run`]: plans computed on a pool of a given number of threads;
//! - [`shipped_manifests`]: the repository's `experiments/*.toml`;
//! - [`fixtures`]: manifests that more than one test reads, from
//!   `fixtures/`.

use lb_manifest::{Plan, Profile, load_str};
use lb_model::canonical::canonical_value;
use lb_store::cache::Cache;
use lb_store::provenance::Context;
use lb_store::run::{Report, Silent, run_plans};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Manifests that more than one test reads (the files in `fixtures/`).
pub mod fixtures {
    /// Weighted random on three identical Bernoulli servers, whose E\[ΣQ\] is
    /// exact (`wr_sum_q`), at one load with 2 replications: `wr-close` (3%)
    /// is inconclusive until more replications decide it; `wr-loose`
    /// (a factor 3) is confirmed from the start.
    pub const WR_DECIDE: &str = include_str!("../fixtures/wr-decide.toml");
    /// A tiny experiment: 2 dispatchers, 3 servers, 2 loads × 3 policies
    /// (JSQ, L-JBA-Pull, Power-of-2), 3 replications of 3000 slots.
    pub const TINY: &str = include_str!("../fixtures/tiny.toml");
}

/// Every record of `cache`, loose or packed: its place relative to the
/// root → its text as a loose file (checksum and provenance included).
pub fn texts(cache: &Cache) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (key, dir) in cache.keys() {
        for name in cache.file_names(&key) {
            if !name.ends_with(".json") {
                continue;
            }
            let p = dir.join(&name);
            let rel = p
                .strip_prefix(cache.root())
                .unwrap()
                .to_string_lossy()
                .to_string();
            out.insert(rel, cache.record_text(&p).unwrap());
        }
    }
    out
}

/// Every record (`*.json`, loose or packed) of `cache`: its place relative
/// to the root → its canonical JSON without `provenance` and `checksum`
/// (which say where and when it was computed, not what).
pub fn records(cache: &Cache) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (rel, text) in texts(cache) {
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let o = v.as_object_mut().unwrap();
        o.remove("provenance");
        o.remove("checksum");
        out.insert(rel, canonical_value(&v));
    }
    out
}

/// The plan of manifest `text` (named `file` in errors) with `profile`.
pub fn plan(file: &str, text: &str, profile: Profile) -> Plan {
    load_str(Path::new(file), text, profile)
        .unwrap_or_else(|e| panic!("{e}"))
        .plan
}

/// Runs `plans` into `cache` on a pool of `threads`.
pub fn run(cache: &Cache, plans: &[Plan], threads: usize) -> Report {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let ctx = Context::capture(threads, vec!["test".into()]);
    pool.install(|| run_plans(cache, plans, &ctx, &Silent))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The repository's shipped manifests, `experiments/*.toml`, in name order.
pub fn shipped_manifests() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}
