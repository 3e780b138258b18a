//! The pipeline called from Rust, with no command line: a small experiment
//! reproduced into a scratch results directory and report, audited, and
//! reproduced again from the cache.

use lb_manifest::{Profile, load_all};
use lb_pipeline::audit::audit;
use lb_pipeline::compute::RunOptions;
use lb_pipeline::reproduce::reproduce;
use lb_store::cache::Cache;
use lb_store::run::Silent;
use std::path::{Path, PathBuf};

/// Weighted random on three identical Bernoulli servers is three independent
/// single-server queues, each fed a third of the arrivals: its E[ΣQ] is
/// exact (`wr_sum_q`), and the claim requires the simulation to agree.
const MANIFEST: &str = r#"[experiment]
name = "wr-exact"
title = "WR against its closed form"
model = "slotted"

[system]
dispatchers = 1
servers = { count = 3, rate = 0.5 }
service = "bernoulli"
arrivals = "bernoulli"
granularity = "batch"

[sweep]
load = [0.3, 0.6]

[[policy]]
spec = "WR"

[[policy]]
spec = "JSQ"

[run]
slots = 40_000
warmup = 2_000
replications = 4
seed = 3

[[figure]]
name = "sum-q"
title = "E[ΣQ] against load"
x = "load"
x_label = "Load ρ"
y = "mean_sum_q"
caption = "WR and JSQ on three identical Bernoulli servers."

[[figure.reference]]
value = "wr_sum_q"
label = "WR: independent single queues"
policies = ["WR"]

[[claim]]

origin = "check"
id = "wr-exact"
statement = "WR's E[ΣQ] is the sum of three independent single-server queues"
source = "exact theory"
kind = "value"
metric = "mean_sum_q"
policies = ["WR"]
expected = "wr_sum_q"
tolerance = 0.0
required = true
"#;

fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                out.push((p, bytes));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn reproduce_from_rust_runs_draws_audits_and_then_reuses_the_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let manifest = tmp.path().join("wr-exact.toml");
    std::fs::write(&manifest, MANIFEST).unwrap();
    let (results, out) = (tmp.path().join("results"), tmp.path().join("out"));
    let cache = Cache::new(&results);
    let loaded = load_all(std::slice::from_ref(&manifest), Profile::Full).unwrap();
    let o = RunOptions {
        threads: Some(2),
        force: false,
        shard: None,
        args: vec!["test".into()],
        manifests: vec![manifest.clone()],
    };

    let first = reproduce(&cache, &loaded, &o, &out, true, &Silent).unwrap();
    // 2 loads × 2 policies × 4 replications, nothing cached before.
    assert_eq!(first.ran.report.computed, 16);
    assert_eq!(first.ran.report.reused, 0);
    assert_eq!(first.written.len(), 1);
    assert_eq!(first.written[0].missing, 0);
    assert_eq!(first.written[0].figures.len(), 1);
    for f in ["table.csv", "report.md", "audit.md", "claims.json"] {
        assert!(out.join("wr-exact").join(f).is_file(), "{f} not written");
    }
    assert!(out.join("README.md").is_file() && out.join("audit.md").is_file());
    // The required claim holds on exact theory, so the gate passes.
    let claim = &first.audited.claims[0][0];
    assert_eq!(claim.id, "wr-exact");
    assert_eq!(claim.verdict.word(), "confirmed", "{claim:?}");
    assert!(!first.audited.gate().fail);

    // Again: everything from the cache, and not one output byte rewritten.
    let before = files(&out);
    let again = reproduce(&cache, &loaded, &o, &out, true, &Silent).unwrap();
    assert_eq!(
        (again.ran.report.computed, again.ran.report.reused),
        (0, 16)
    );
    assert_eq!(files(&out), before);
    // A warm reproduce in a new process reads each of the 16 records once,
    // however many of its steps read them.
    let warm = Cache::new(&results);
    reproduce(&warm, &loaded, &o, &out, true, &Silent).unwrap();
    assert_eq!(warm.replication_parses(), 16);
    assert_eq!(files(&out), before);

    // The audit alone, on the same records, gives the same verdicts.
    let audited = audit(&cache, &loaded);
    assert_eq!(
        audited.claims[0][0].verdict.word(),
        first.audited.claims[0][0].verdict.word()
    );
}

/// A precision rule (pilots), a calibrated p̂ and a robustness map, so that a
/// recompute runs every kind of record the cost summary counts.
fn costed_manifest(name: &str, map: bool) -> String {
    let mut m = format!(
        r#"[experiment]
name = "{name}"
title = "every kind of record"
model = "slotted"

[system]
dispatchers = 2
servers = {{ count = 6, rate = 0.5 }}
service = "bernoulli"
arrivals = "poisson"
load = 0.8

[[policy]]
spec = "Power-of-2"

[[policy]]
spec = "L-JSQ-Pull"
budget = {{ same_as = "Power-of-2" }}

[run]
slots = 4_000
warmup = 400
seed = 9
precision = {{ metric = "mean_sum_q", rel_half_width = 0.05, min = 4, max = 8, step = 4 }}

[calibration]
slots = 2_000
warmup = 200
replications = 2

[[claim]]
origin = "check"
id = "stable"
statement = "L-JSQ-Pull is stable"
source = "test"
kind = "stability"
policies = ["L-JSQ-Pull"]
stable = true
"#
    );
    if map {
        m.push_str(
            r#"
[[robustness]]
name = "ties"
claims = ["stable"]
tie_break = ["random", "lowest"]
"#,
        );
    }
    m
}

/// The cost `lb reproduce` prints is what a recompute from an empty cache
/// runs: over two experiments that plan the same points, the own points
/// (pilots included), the robustness combinations and the calibrations add
/// up to every record the run wrote, each once, to the second.
#[test]
fn the_recompute_cost_counts_every_record_the_run_wrote_once() {
    use lb_pipeline::compute::{ExperimentCost, experiment_cost};
    let tmp = tempfile::tempdir().unwrap();
    let paths: Vec<PathBuf> = [("mapped", true), ("copy", false)]
        .iter()
        .map(|&(name, map)| {
            let p = tmp.path().join(format!("{name}.toml"));
            std::fs::write(&p, costed_manifest(name, map)).unwrap();
            p
        })
        .collect();
    let (results, out) = (tmp.path().join("results"), tmp.path().join("out"));
    let cache = Cache::new(&results);
    let loaded = load_all(&paths, Profile::Full).unwrap();
    let o = RunOptions {
        threads: Some(2),
        force: false,
        shard: None,
        args: vec!["test".into()],
        manifests: paths.clone(),
    };
    reproduce(&cache, &loaded, &o, &out, true, &Silent).unwrap();

    // Every record in the cache, by kind.
    let (mut written, mut seconds) = (0u64, 0.0f64);
    for text in lb_test_support::texts(&cache).values() {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        if matches!(v["kind"].as_str(), Some("replication" | "calibration")) {
            written += 1;
            // The thread's CPU time where the record keeps it (a
            // replication), else its wall time (a calibration).
            let p = &v["provenance"];
            seconds += p["cpu_seconds"]
                .as_f64()
                .unwrap_or_else(|| p["wall_seconds"].as_f64().unwrap());
            if v["kind"] == "replication" {
                assert!(p["cpu_seconds"].as_f64().is_some(), "{p}");
            }
        }
    }

    let mut seen = std::collections::BTreeSet::new();
    let costs: Vec<ExperimentCost> = loaded
        .iter()
        .map(|e| experiment_cost(&cache, e, &mut seen))
        .collect();
    let (mapped, copy) = (costs[0], costs[1]);
    // A pilot of 4 and then at least 4 replications at each of the 2 points,
    // and at the claim's point of the map's other combination.
    assert!(mapped.own().records >= 16, "{mapped:?}");
    // Its precision rule sets every count: nothing fixed, no decide ledger.
    assert_eq!(mapped.precision, mapped.own(), "{mapped:?}");
    assert_eq!(mapped.fixed.records + mapped.decide.records, 0);
    assert!(mapped.robustness.records >= 8, "{mapped:?}");
    assert!(mapped.calibrations.records >= 2, "{mapped:?}");
    // The copy plans the very same points and calibration: counted once.
    assert_eq!(copy.total().records, 0, "{copy:?}");
    let total = costs.iter().fold(0.0, |t, c| t + c.total().seconds);
    let records: u64 = costs.iter().map(|c| c.total().records).sum();
    assert_eq!(records, written);
    assert!(
        (total - seconds).abs() <= 1e-9 * seconds.max(1.0),
        "{total} against {seconds}"
    );
}

/// `lb reproduce --fresh` recomputes every record into a new directory but
/// not the coverage certificate's: the new directory takes the cache's
/// coverage records, so that the coverage section it draws is the cache's
/// rather than "not yet certified".
#[test]
fn a_fresh_directory_takes_the_caches_coverage_records() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = Cache::new(tmp.path().join("results"));
    std::fs::create_dir_all(cache.root().join("coverage")).unwrap();
    std::fs::write(cache.root().join("coverage/0123.json"), "{}").unwrap();
    let fresh = Cache::new(lb_pipeline::reproduce::fresh_dir(&cache));
    assert_eq!(
        lb_pipeline::reproduce::seed_fresh(&cache, &fresh).unwrap(),
        1
    );
    assert_eq!(
        std::fs::read_to_string(fresh.root().join("coverage/0123.json")).unwrap(),
        "{}"
    );
    // A cache without coverage records gives the new directory none.
    let bare = Cache::new(tmp.path().join("bare"));
    let fresh = Cache::new(tmp.path().join("bare-fresh"));
    assert_eq!(
        lb_pipeline::reproduce::seed_fresh(&bare, &fresh).unwrap(),
        0
    );
}
