//! Scale-out: `lb run --shard I/N` covers the work exactly once between its N
//! shards, stage by stage, and gives the records of one unsharded run; and,
//! on a machine with a Slurm cluster (`just slurm-test` sets one up), `lb
//! slurm --submit` runs a manifest as job arrays with the same result.

use lb_runner::cache::Cache;
use lb_test_support::records;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const LB: &str = env!("CARGO_BIN_EXE_lb");

/// A calibrated policy (a message budget) and a precision rule over three
/// loads: calibrations first, then rounds of replications.
const MANIFEST: &str = r#"[experiment]
name = "shards"
title = "shards"
model = "slotted"

[system]
dispatchers = 2
servers = { classes = [{ count = 2, rate = 0.4 }, { count = 2, rate = 0.8 }] }
service = "bernoulli"
arrivals = "poisson"

[sweep]
load = [0.5, 0.7, 0.9]

[[policy]]
spec = "Power-of-2"

[[policy]]
spec = "L-JBA-Pull"
budget = { same_as = "Power-of-2" }

[run]
slots = 3000
warmup = 300
precision = { metric = "mean_response", rel_half_width = 0.01, min = 2, max = 6, step = 2 }
seed = 5

[calibration]
slots = 2000
iterations = 5
"#;

fn lb(dir: &Path, args: &[&str]) -> Output {
    Command::new(LB)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// Waits (at most 10 minutes) until Slurm job `id` has left the queue;
/// fails if a stage it depends on failed.
fn wait_gone(id: &str) {
    let t0 = Instant::now();
    loop {
        let q = Command::new("squeue")
            .args(["-h", "-j", id, "-o", "%T %R"])
            .output()
            .unwrap();
        let state = String::from_utf8_lossy(&q.stdout).trim().to_string();
        if state.is_empty() {
            return;
        }
        assert!(
            !state.contains("DependencyNeverSatisfied"),
            "a stage failed: {state}"
        );
        assert!(t0.elapsed() < Duration::from_secs(600), "still {state}");
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn ok(o: Output) -> String {
    assert!(
        o.status.success(),
        "lb failed\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// Every record of the results directory at `root` without its provenance
/// and checksum.
fn records_in(root: &Path) -> BTreeMap<String, String> {
    records(&Cache::new(root))
}

fn setup() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    std::fs::write(dir.join("m.toml"), MANIFEST).unwrap();
    (tmp, dir)
}

fn computed(out: &str) -> usize {
    out.split_whitespace()
        .skip_while(|w| *w != "thread(s):")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in: {out}"))
}

/// Three shards run one after another, stage after stage, give exactly the
/// records of one unsharded run, each computed once: the shards' counts add
/// up to the unsharded run's, and the final `lb reproduce` (which records
/// the last round's precision decisions) computes nothing.
#[test]
fn shards_run_one_after_another_give_the_records_of_one_run() {
    let (_t, dir) = setup();
    let whole = computed(&ok(lb(&dir, &["--results", "whole", "run", "m.toml"])));
    ok(lb(
        &dir,
        &[
            "--results",
            "whole",
            "reproduce",
            "m.toml",
            "--out",
            "out-whole",
        ],
    ));
    // Stages: one for the calibrations, one per precision checkpoint (2, 4, 6).
    let mut sharded = 0usize;
    for _ in 0..(1 + 3) {
        for i in 0..3 {
            sharded += computed(&ok(lb(
                &dir,
                &[
                    "--results",
                    "sharded",
                    "run",
                    "m.toml",
                    "--shard",
                    &format!("{i}/3"),
                ],
            )));
        }
    }
    let o = lb(
        &dir,
        &[
            "--results",
            "sharded",
            "reproduce",
            "m.toml",
            "--out",
            "out-sharded",
        ],
    );
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    ok(o);
    assert!(stderr.contains("runs: 0 computed"), "{stderr}");
    assert_eq!(sharded, whole, "each pair once");
    assert_eq!(
        records_in(&dir.join("whole")),
        records_in(&dir.join("sharded"))
    );
    // A shard index must lie below the count.
    let bad = lb(&dir, &["--results", "r", "run", "m.toml", "--shard", "3/3"]);
    assert!(!bad.status.success());
}

/// `lb slurm --submit` on a real cluster: a 4-task array per stage, the
/// final `lb reproduce`; every record present, valid and bit-identical to a
/// local run. Runs where `LB_SLURM_TEST=1` (set by `just slurm-test` after
/// `scripts/slurm-single-node.sh`); elsewhere it says so and passes.
#[test]
fn a_slurm_job_array_gives_the_records_of_a_local_run() {
    if std::env::var("LB_SLURM_TEST").as_deref() != Ok("1") {
        eprintln!("skipped: set LB_SLURM_TEST=1 on a machine with Slurm (just slurm-test)");
        return;
    }
    let (_t, dir) = setup();
    ok(lb(&dir, &["--results", "local", "run", "m.toml"]));
    ok(lb(
        &dir,
        &[
            "--results",
            "local",
            "reproduce",
            "m.toml",
            "--out",
            "out-local",
        ],
    ));
    let out = ok(lb(
        &dir,
        &[
            "--results",
            "cluster",
            "slurm",
            "m.toml",
            "--tasks",
            "4",
            "--dir",
            "jobs",
            "--submit",
        ],
    ));
    let last = out
        .lines()
        .find_map(|l| l.strip_prefix("reproduce: job "))
        .expect("the final job id")
        .trim()
        .to_string();
    // Wait for the final job to leave the queue, then check it succeeded.
    wait_gone(&last);
    let status = ok(lb(&dir, &["--results", "cluster", "status", "m.toml"]));
    assert!(status.contains("shards"), "{status}");
    ok(lb(&dir, &["--results", "cluster", "cache", "verify"]));
    assert!(
        dir.join("paper-figures/README.md").exists(),
        "the final reproduce wrote nothing"
    );
    assert_eq!(
        records_in(&dir.join("local")),
        records_in(&dir.join("cluster"))
    );
}

/// A cluster fault: the whole submission is cancelled (`scancel`) as soon
/// as it is queued, then submitted again. Whatever the cancelled tasks had
/// written stays valid (records are atomic), the resubmission finishes the
/// rest, and the records are bit-identical to a local run's. Runs where
/// `LB_SLURM_TEST=1`, like the test above.
#[test]
fn a_cancelled_submission_resubmitted_gives_the_records_of_a_local_run() {
    if std::env::var("LB_SLURM_TEST").as_deref() != Ok("1") {
        eprintln!("skipped: set LB_SLURM_TEST=1 on a machine with Slurm (just slurm-test)");
        return;
    }
    let (_t, dir) = setup();
    ok(lb(&dir, &["--results", "local", "run", "m.toml"]));
    let submit = |jobs: &str| {
        ok(lb(
            &dir,
            &[
                "--results",
                "cluster",
                "slurm",
                "m.toml",
                "--tasks",
                "4",
                "--dir",
                jobs,
                "--submit",
            ],
        ))
    };
    let ids = |out: &str| -> Vec<String> {
        out.lines()
            .filter_map(|l| {
                l.rsplit_once("job array ")
                    .or_else(|| l.rsplit_once("job "))
                    .map(|(_, id)| id.trim().to_string())
            })
            .filter(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
            .collect()
    };
    let first = submit("jobs-1");
    let cancelled = ids(&first);
    assert!(cancelled.len() >= 2, "{first}");
    let s = Command::new("scancel").args(&cancelled).output().unwrap();
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    for id in &cancelled {
        wait_gone(id);
    }
    // Whatever the cancelled tasks wrote, if anything, is valid.
    if dir.join("cluster").exists() {
        ok(lb(&dir, &["--results", "cluster", "cache", "verify"]));
    }
    let again = submit("jobs-2");
    let last = ids(&again).pop().expect("the final job id");
    wait_gone(&last);
    ok(lb(&dir, &["--results", "cluster", "cache", "verify"]));
    assert_eq!(
        records_in(&dir.join("local")),
        records_in(&dir.join("cluster"))
    );
}
