//! Scale-out: `lb run --shard I/N` covers the work exactly once between its N
//! shards, stage by stage, and gives the records of one unsharded run; and,
//! on a machine with a Slurm cluster (`just slurm-test` sets one up), `lb
//! slurm --submit` runs a manifest as job arrays with the same result.

use lb_store::cache::Cache;
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

/// What `squeue` says of job `id` in `format` ("%T": its state), trimmed;
/// empty once it has left the queue.
fn squeue(id: &str, format: &str) -> String {
    let q = Command::new("squeue")
        .args(["-h", "-j", id, "-o", format])
        .output()
        .unwrap();
    String::from_utf8_lossy(&q.stdout).trim().to_string()
}

/// Waits (at most 10 minutes) until Slurm job `id` has left the queue;
/// fails if a stage it depends on failed.
fn wait_gone(id: &str) {
    let t0 = Instant::now();
    loop {
        let state = squeue(id, "%T %R");
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
/// the last round's precision decisions) computes nothing. Stages: one for
/// the calibrations, then the pilot's and the point's replications.
#[test]
fn shards_run_one_after_another_give_the_records_of_one_run() {
    shards_match_one_run(MANIFEST, 1 + 2);
}

/// The same with the sequential precision rule: one stage per checkpoint
/// (2, 4, 6).
#[test]
fn sequential_shards_run_one_after_another_give_the_records_of_one_run() {
    let m = MANIFEST.replace("step = 2 }", "step = 2, procedure = \"sequential\" }");
    assert_ne!(m, MANIFEST);
    shards_match_one_run(&m, 1 + 3);
}

fn shards_match_one_run(manifest: &str, stages: usize) {
    let (_t, dir) = setup();
    std::fs::write(dir.join("m.toml"), manifest).unwrap();
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
    let mut sharded = 0usize;
    for stage in 1..=stages {
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
                    "--stage",
                    &stage.to_string(),
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
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    ok(o);
    assert!(stdout.contains("runs: 0 computed"), "{stdout}");
    assert_eq!(sharded, whole, "each pair once");
    assert_eq!(
        records_in(&dir.join("whole")),
        records_in(&dir.join("sharded"))
    );
    // A shard index must lie below the count.
    let bad = lb(&dir, &["--results", "r", "run", "m.toml", "--shard", "3/3"]);
    assert!(!bad.status.success());
}

/// A stage after the first whose calibrations are missing — every task of
/// the first stage failed before writing one — fails clearly, naming what
/// it lacks, instead of leaving the work for later; in the first stage, the
/// same wait is no failure (another shard of the stage is computing it).
#[test]
fn a_later_stage_without_its_calibrations_fails_clearly() {
    let (_t, dir) = setup();
    let shard = |results: &str, i: u32, stage: &str| {
        lb(
            &dir,
            &[
                "--results",
                results,
                "run",
                "m.toml",
                "--shard",
                &format!("{i}/2"),
                "--stage",
                stage,
            ],
        )
    };
    // Each shard alone at stage 2, as if every other task of stage 1 had
    // failed: whichever lacks a calibration the other owns fails, saying so
    // (the three calibrations cannot all be owned by both).
    let mut failed = 0;
    for i in 0..2 {
        let o = shard(&format!("alone-{i}"), i, "2");
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        if !o.status.success() {
            assert!(
                err.contains("stage 2:") && err.contains("lack the p̂ calibration"),
                "{err}"
            );
            failed += 1;
        }
    }
    assert!(failed >= 1, "a stage 2 went on without its calibrations");
    // In the first stage the same wait is no failure.
    for i in 0..2 {
        ok(shard(&format!("first-{i}"), i, "1"));
    }
    let bad = lb(&dir, &["--results", "r", "run", "m.toml", "--stage", "2"]);
    assert!(!bad.status.success(), "--stage without --shard");
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
            "--out",
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
    ok(lb(&dir, &["--results", "cluster", "cache", "check"]));
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
                "--out",
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
        ok(lb(&dir, &["--results", "cluster", "cache", "check"]));
    }
    let again = submit("jobs-2");
    let last = ids(&again).pop().expect("the final job id");
    wait_gone(&last);
    ok(lb(&dir, &["--results", "cluster", "cache", "check"]));
    assert_eq!(
        records_in(&dir.join("local")),
        records_in(&dir.join("cluster"))
    );
}

/// Cluster faults inside one array: in the first stage, task 1 fails (`exit
/// 1`, injected into the generated script) and task 2 is killed while it
/// runs (`scancel` of that one array element). The later stages and the
/// final reproduce then never start (each depends on the one before
/// succeeding); they are cancelled. What the other tasks wrote is valid; the
/// resubmission computes exactly the missing records — every record present
/// before it is left byte for byte — and the records are bit-identical to a
/// local run's. Runs where `LB_SLURM_TEST=1`, like the tests above.
#[test]
fn a_failed_and_a_killed_task_then_a_resubmission_give_the_records_of_a_local_run() {
    if std::env::var("LB_SLURM_TEST").as_deref() != Ok("1") {
        eprintln!("skipped: set LB_SLURM_TEST=1 on a machine with Slurm (just slurm-test)");
        return;
    }
    let (_t, dir) = setup();
    ok(lb(&dir, &["--results", "local", "run", "m.toml"]));
    let slurm = |jobs: &str, submit: bool| {
        let mut args = vec![
            "--results",
            "cluster",
            "slurm",
            "m.toml",
            "--tasks",
            "4",
            "--out",
            jobs,
        ];
        if submit {
            args.push("--submit");
        }
        ok(lb(&dir, &args))
    };
    // The scripts, with the faults injected into every stage's task 1
    // (fails at once) and task 2 (runs until it is killed).
    slurm("jobs-1", false);
    let shard = dir.join("jobs-1/shard.sbatch");
    let text = std::fs::read_to_string(&shard).unwrap();
    let at = text.find("\nexec ").expect("the shard's exec line") + 1;
    let faulty = format!(
        "{}if [ \"$SLURM_ARRAY_TASK_ID\" = 1 ]; then echo injected fault >&2; exit 1; fi\n\
         if [ \"$SLURM_ARRAY_TASK_ID\" = 2 ]; then sleep 600; fi\n{}",
        &text[..at],
        &text[at..]
    );
    std::fs::write(&shard, faulty).unwrap();
    let o = Command::new("bash")
        .arg(dir.join("jobs-1/submit.sh"))
        .current_dir(&dir)
        .output()
        .unwrap();
    let out = ok(o);
    let ids: Vec<String> = out
        .lines()
        .filter_map(|l| l.rsplit_once(' ').map(|(_, id)| id.trim().to_string()))
        .filter(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
        .collect();
    assert!(ids.len() >= 2, "{out}");
    let first = &ids[0];
    // Kill task 2 once it runs; wait for the rest of the first stage.
    let t0 = Instant::now();
    let task2 = format!("{first}_2");
    loop {
        let state = squeue(&task2, "%T");
        if state == "RUNNING" {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(600), "task 2: {state:?}");
        std::thread::sleep(Duration::from_millis(300));
    }
    let s = Command::new("scancel").arg(&task2).output().unwrap();
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    let t0 = Instant::now();
    loop {
        if squeue(first, "%T").is_empty() {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(600),
            "the first stage lingers"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    // The first stage failed, so nothing after it ran: cancel what waits.
    let later: Vec<&String> = ids[1..].iter().collect();
    let s = Command::new("scancel").args(&later).output().unwrap();
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    for id in &later {
        wait_gone(id);
    }
    assert!(
        !dir.join("paper-figures/README.md").exists(),
        "the final reproduce ran after a failed stage"
    );
    let err1 = std::fs::read_dir(dir.join("jobs-1"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with("_1.out"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect::<String>();
    assert!(err1.contains("injected fault"), "{err1}");
    // What tasks 0 and 3 wrote is valid; keep its bytes (read through
    // either tier: the final reproduce packs them).
    let snapshot = |root: &Path| lb_test_support::texts(&Cache::new(root));
    let before = snapshot(&dir.join("cluster"));
    assert!(!before.is_empty(), "the healthy tasks wrote nothing");
    ok(lb(&dir, &["--results", "cluster", "cache", "check"]));
    let again = slurm("jobs-2", true);
    let last = again
        .lines()
        .find_map(|l| l.strip_prefix("reproduce: job "))
        .expect("the final job id")
        .trim()
        .to_string();
    wait_gone(&last);
    ok(lb(&dir, &["--results", "cluster", "cache", "check"]));
    let after = snapshot(&dir.join("cluster"));
    for (p, bytes) in &before {
        assert_eq!(after.get(p), Some(bytes), "{p} was rewritten");
    }
    assert!(
        after.len() > before.len(),
        "the resubmission computed nothing"
    );
    assert_eq!(
        records_in(&dir.join("local")),
        records_in(&dir.join("cluster"))
    );
}
