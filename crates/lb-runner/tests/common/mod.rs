//! Shared helpers of lb-runner's integration tests.
#![allow(dead_code)]

use lb_runner::cache::Cache;
use lb_runner::provenance::Context;
use lb_runner::run::{Report, Silent, run_plans};
use lb_runner::{Plan, Profile, load_str};
use std::path::Path;

/// A tiny experiment: 2 dispatchers, 3 servers, 2 loads × 3 policies, 3
/// replications of 3000 slots.
pub const TINY: &str = r#"[experiment]
name = "tiny"
title = "tiny"
model = "slotted"

[system]
dispatchers = 2
servers = { rates = [0.3, 0.5, 0.9] }
service = "bernoulli"
arrivals = "poisson"

[sweep]
load = [0.6, 0.9]

[[policy]]
spec = "JSQ"

[[policy]]
spec = "L-JBA-Pull"
p_hat = 0.3

[[policy]]
spec = "Power-of-2"

[run]
slots = 3000
warmup = 300
replications = 3
seed = 7
"#;

pub fn plan(text: &str, profile: Profile) -> Plan {
    load_str(Path::new("tiny.toml"), text, profile)
        .unwrap_or_else(|e| panic!("{e}"))
        .plan
}

/// Runs plans on a pool of `threads`.
pub fn run(cache: &Cache, plans: &[Plan], threads: usize) -> Report {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let ctx = Context::capture(threads, vec!["test".into()]);
    pool.install(|| run_plans(cache, plans, &ctx, &Silent))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Every record file of a cache with its bytes minus provenance: path
/// relative to the root → canonical JSON of the record without provenance.
pub fn records(cache: &Cache) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    for (_, dir) in cache.keys() {
        for f in std::fs::read_dir(&dir).unwrap() {
            let p = f.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if !name.ends_with(".json") {
                continue;
            }
            let mut v: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
            let o = v.as_object_mut().unwrap();
            o.remove("provenance");
            o.remove("checksum");
            let rel = p
                .strip_prefix(cache.root())
                .unwrap()
                .to_string_lossy()
                .to_string();
            out.insert(rel, lb_model::canonical::canonical_value(&v));
        }
    }
    out
}
