//! The `lb` binary end to end: plan, run, show, cache, verify; thread-count
//! independence; kills mid-run and mid-write; concurrent runs; bad input.

use lb_store::cache::{Cache, FileKind, Read, classify};
use lb_test_support::records;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const LB: &str = env!("CARGO_BIN_EXE_lb");

/// A manifest of many small (point, replication) pairs: 4 loads × 3 policies ×
/// `reps` replications of `slots` slots, and one message-budget calibration
/// per load.
fn manifest(slots: u64, reps: u32) -> String {
    format!(
        r#"[experiment]
name = "many"
title = "many small pairs"
model = "slotted"

[system]
dispatchers = 2
servers = {{ classes = [{{ count = 2, rate = 0.4 }}, {{ count = 2, rate = 0.8 }}] }}
service = "bernoulli"
arrivals = "poisson"

[sweep]
load = [0.5, 0.7, 0.8, 0.9]

[[policy]]
spec = "Power-of-2"

[[policy]]
spec = "L-JBA-Pull"
budget = {{ messages_per_arrival = 0.3 }}

[[policy]]
spec = "WR"

[run]
slots = {slots}
warmup = {}
replications = {reps}
seed = 11

[calibration]
slots = 4000
iterations = 6
"#,
        slots / 10
    )
}

struct Dir {
    _tmp: tempfile::TempDir,
    path: PathBuf,
}

impl Dir {
    fn new(manifest_text: &str) -> Dir {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().to_path_buf();
        std::fs::write(path.join("m.toml"), manifest_text).unwrap();
        Dir { _tmp: tmp, path }
    }
    fn lb(&self, args: &[&str]) -> Command {
        let mut c = Command::new(LB);
        c.current_dir(&self.path).args(args);
        c
    }
    fn run(&self, args: &[&str]) -> Output {
        self.lb(args).output().unwrap()
    }
    fn cache(&self, results: &str) -> Cache {
        Cache::new(self.path.join(results))
    }
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

fn ok(o: Output) -> String {
    let (out, err) = text(&o);
    assert!(
        o.status.success(),
        "lb failed\nstdout:\n{out}\nstderr:\n{err}"
    );
    out
}

/// Every file named like a record is a valid record.
fn all_present_valid(c: &Cache) -> usize {
    let checks = lb_store::maintain::check_all(c);
    let mut n = 0;
    for ch in &checks {
        let name = ch.path.file_name().unwrap().to_string_lossy().to_string();
        match classify(&name) {
            FileKind::Temp | FileKind::Lock => {}
            _ => {
                assert!(
                    ch.problem.is_none(),
                    "{}: {:?}",
                    ch.path.display(),
                    ch.problem
                );
                n += 1;
            }
        }
    }
    n
}

fn count_replications(c: &Cache) -> usize {
    c.keys()
        .iter()
        .map(|(k, _)| c.replication_files(k).len())
        .sum()
}

/// 12 points × reps replications + 12 point.json + 4 calibrations.
fn total_records(reps: usize) -> usize {
    12 * reps + 12 + 4
}

#[test]
fn threads_1_and_2_give_identical_records() {
    let d = Dir::new(&manifest(3000, 2));
    ok(d.run(&["run", "m.toml", "--threads", "1", "--results", "r1"]));
    ok(d.run(&["run", "m.toml", "--threads", "2", "--results", "r2"]));
    let (a, b) = (records(&d.cache("r1")), records(&d.cache("r2")));
    assert_eq!(a.len(), total_records(2));
    assert_eq!(a, b);
}

/// The key of the WR point at load 0.9 in `lb plan`'s listing (its row's
/// first field).
fn wr_key_at_09(plan: &str) -> String {
    plan.lines()
        .find(|l| l.contains(" WR ") && l.split_whitespace().any(|w| w == "0.9"))
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

/// `lb show` summarises a long list of servers in a line ("10 × {…}"),
/// and `--full` prints it whole.
#[test]
fn lb_show_summarises_the_servers() {
    let d = Dir::new(&manifest(1000, 1).replace("count = 2,", "count = 10,"));
    let plan = ok(d.run(&["plan", "m.toml"]));
    ok(d.run(&["run", "m.toml", "--threads", "1"]));
    let plan_after = ok(d.run(&["plan", "m.toml"]));
    assert_ne!(plan, plan_after);
    let key = wr_key_at_09(&plan_after);
    let short = ok(d.run(&["show", &key]));
    let full = ok(d.run(&["show", &key, "--full"]));
    assert!(
        short.contains("\"10 × {\\\"law\\\":\\\"bernoulli\\\",\\\"p\\\":0.4}\""),
        "{short}"
    );
    assert!(short.lines().count() * 2 < full.lines().count(), "{short}");
    assert!(full.contains("\"p\": 0.4"), "{full}");
}

#[test]
fn plan_run_show_cache_verify() {
    let d = Dir::new(&manifest(2000, 2));
    let plan = ok(d.run(&["plan", "m.toml"]));
    assert!(plan.contains("12 points, 4 calibrations"), "{plan}");
    assert!(plan.contains("needs-calibration"), "{plan}");
    let out = ok(d.run(&["run", "m.toml", "--threads", "2"]));
    assert!(out.contains("28 record(s) computed"), "{out}");
    let plan = ok(d.run(&["plan", "m.toml"]));
    assert!(plan.contains("12 cached, 0 partial, 0 missing"), "{plan}");
    // The WR point at load 0.9 is the 12th row; its key opens `lb show`.
    let key = wr_key_at_09(&plan);
    let show = ok(d.run(&["show", &key[..8]]));
    assert!(show.contains("policy WR"), "{show}");
    assert!(show.contains("\"weighted_random\""), "{show}");
    assert!(show.contains("provenance"), "{show}");
    assert!(show.contains("lb verify --key"), "{show}");
    assert!(show.contains("computed by:"), "{show}");
    let ls = ok(d.run(&["cache", "ls"]));
    assert!(
        ls.contains("16 keys, 24 replication records, 0 problem files"),
        "{ls}"
    );
    let v = ok(d.run(&["cache", "check"]));
    assert!(v.contains("0 damaged, 0 leftovers"), "{v}");
    let v = ok(d.run(&["verify", "--sample", "5", "--seed", "3"]));
    assert!(v.contains("5 record(s) recomputed: 5 identical"), "{v}");
    // A calibration record shows its probes.
    let cal = plan
        .lines()
        .find(|l| l.contains("cached   calibrated"))
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let show = ok(d.run(&["show", &cal]));
    assert!(show.contains("probes"), "{show}");
    // Hand-edit a record: cache verify fails, lb verify reports it, run repairs it.
    let c = d.cache("results");
    let (k, _) = &c.keys()[0];
    let victim = if c.replication_files(k).is_empty() {
        c.calibration_path(k)
    } else {
        c.replication_path(k, 0)
    };
    let t = std::fs::read_to_string(&victim).unwrap();
    std::fs::write(&victim, t.replacen("\"key\": \"", "\"key\": \"0", 1)).unwrap();
    let o = d.run(&["cache", "check"]);
    assert!(!o.status.success());
    assert!(text(&o).0.contains("checksum mismatch"), "{}", text(&o).0);
    let out = ok(d.run(&["run", "m.toml"]));
    assert!(out.contains("1 damaged record(s) recomputed"), "{out}");
    let v = ok(d.run(&["cache", "check"]));
    assert!(v.contains("0 damaged, 1 leftovers"), "{v}");
    let gc = ok(d.run(&["cache", "gc"]));
    assert!(gc.contains("removed 1 item(s)"), "{gc}");
    let v = ok(d.run(&["cache", "check"]));
    assert!(v.contains("0 damaged, 0 leftovers"), "{v}");
}

#[test]
fn quick_points_have_their_own_keys() {
    let d = Dir::new(&manifest(20_000, 2));
    ok(d.run(&["run", "m.toml", "--quick"]));
    let plan = ok(d.run(&["plan", "m.toml"]));
    assert!(plan.contains("0 cached"), "{plan}");
    let plan = ok(d.run(&["plan", "m.toml", "--quick"]));
    assert!(plan.contains("12 cached"), "{plan}");
}

/// `lb run m.toml` on one thread in `d`, its stderr to `stderr`, returned
/// once 10 of its replications are written (a run long enough to stop
/// mid-way).
fn started_run(d: &Dir, stderr: Stdio) -> std::process::Child {
    let child = d
        .lb(&["run", "m.toml", "--threads", "1"])
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let c = d.cache("results");
    let t0 = Instant::now();
    while count_replications(&c) < 10 {
        assert!(t0.elapsed() < Duration::from_secs(60), "no progress");
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

#[test]
fn a_kill_mid_run_loses_nothing_and_the_next_run_resumes() {
    let reps = 12;
    let d = Dir::new(&manifest(30_000, reps));
    let mut child = started_run(&d, Stdio::null());
    let c = d.cache("results");
    child.kill().unwrap();
    child.wait().unwrap();
    let present = all_present_valid(&c);
    assert!(
        present < total_records(reps as usize),
        "the run finished before the kill; make it longer"
    );
    // Resume, and compare with an uninterrupted run.
    let out = ok(d.run(&["run", "m.toml", "--threads", "2"]));
    assert!(out.contains("already cached"), "{out}");
    ok(d.run(&["run", "m.toml", "--threads", "2", "--results", "clean"]));
    assert_eq!(all_present_valid(&c), total_records(reps as usize));
    assert_eq!(records(&c), records(&d.cache("clean")));
    ok(d.run(&["cache", "check"]));
}

#[test]
fn a_kill_in_the_middle_of_a_write_leaves_no_damaged_record() {
    let d = Dir::new(&manifest(2000, 2));
    let mut child = d
        .lb(&["run", "m.toml", "--threads", "1"])
        .env("LB_FAULT_PAUSE_BEFORE_RENAME_MS", "400")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let c = d.cache("results");
    let t0 = Instant::now();
    // Wait until a write is under way: a temporary file exists.
    let temp = loop {
        assert!(t0.elapsed() < Duration::from_secs(60), "no write started");
        let found = c.keys().into_iter().find_map(|(_, dir)| {
            std::fs::read_dir(dir).ok()?.flatten().find_map(|e| {
                let n = e.file_name().to_string_lossy().to_string();
                (classify(&n) == FileKind::Temp).then(|| e.path())
            })
        });
        if let Some(t) = found {
            break t;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(temp.exists(), "the kill fell after the rename");
    // The record being written does not exist; nothing present is damaged.
    let name = temp.file_name().unwrap().to_string_lossy().to_string();
    let record =
        temp.with_file_name(name[1..].split(".json").next().unwrap().to_string() + ".json");
    assert!(
        !record.exists()
            || matches!(
                lb_store::cache::read_record::<serde_json::Value>(&record),
                Read::Valid(_)
            )
    );
    all_present_valid(&c);
    let o = d.run(&["cache", "check"]);
    assert!(text(&o).0.contains("temporary file"), "{}", text(&o).0);
    // The next run removes the leftover and completes the cache.
    let out = d.run(&["run", "m.toml"]);
    let (_, err) = text(&out);
    assert!(out.status.success());
    assert!(err.contains("removed a temporary file"), "{err}");
    assert!(!temp.exists());
    assert_eq!(all_present_valid(&c), total_records(2));
    ok(d.run(&["cache", "check"]));
}

#[test]
fn two_concurrent_runs_neither_corrupt_nor_duplicate() {
    let reps = 6;
    let d = Dir::new(&manifest(10_000, reps));
    let spawn = || {
        d.lb(&["run", "m.toml", "--threads", "1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    let computed = |o: &Output| -> usize {
        let out = ok(o.clone());
        let i = out.find(" record(s) computed").expect(&out);
        out[..i].rsplit(' ').next().unwrap().parse().unwrap()
    };
    let c = d.cache("results");
    let total = total_records(reps as usize);
    assert_eq!(all_present_valid(&c), total);
    // Each replication and calibration was computed by exactly one process,
    // and both did part of the work.
    let (ca, cb) = (computed(&a), computed(&b));
    assert_eq!(ca + cb, total - 12, "{:?} {:?}", text(&a), text(&b));
    assert!(ca > 0 && cb > 0, "the runs did not overlap: {ca} and {cb}");
    ok(d.run(&["run", "m.toml", "--results", "clean"]));
    assert_eq!(records(&c), records(&d.cache("clean")));
}

#[test]
fn bad_input_is_reported_with_file_line_column_and_field() {
    let d = Dir::new(&manifest(2000, 2).replace("spec = \"WR\"", "spec = \"WRR\""));
    let o = d.run(&["plan", "m.toml"]);
    assert!(!o.status.success());
    let (_, err) = text(&o);
    assert!(
        err.starts_with(
            "error: m.toml:23:8: policy[2].spec: unknown policy \"WRR\"; did you mean \"WR\"?"
        ),
        "{err}"
    );
    let o = d.run(&["run", "nope.toml"]);
    assert!(!o.status.success());
    assert!(
        text(&o)
            .1
            .contains("error: nope.toml: cannot read the manifest"),
        "{}",
        text(&o).1
    );
}

#[test]
fn an_unwritable_results_directory_fails_clearly() {
    let d = Dir::new(&manifest(2000, 2));
    std::fs::write(d.path.join("file"), "x").unwrap();
    let o = d.run(&["run", "m.toml", "--results", "file/results"]);
    assert!(!o.status.success());
    let (_, err) = text(&o);
    assert!(
        err.starts_with("error: file/results: cannot create the results directory"),
        "{err}"
    );
    assert!(err.contains("--results DIR"), "{err}");
    assert!(!Path::new(&d.path.join("file/results")).exists());
}

/// Someone edits numbers in a record, consistently, and recomputes its
/// checksum: the cache check cannot see it, `lb verify` (recomputing the
/// record) does.
#[test]
fn a_resealed_tampered_record_is_caught_by_verify() {
    let d = Dir::new(&manifest(2000, 1));
    ok(d.run(&["run", "m.toml", "--threads", "2"]));
    let c = d.cache("results");
    let (k, _) = c
        .keys()
        .into_iter()
        .find(|(k, _)| !c.replication_files(k).is_empty())
        .unwrap();
    let path = c.replication_path(&k, 0);
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let obj = v.as_object_mut().unwrap();
    obj.remove("checksum");
    // Scaled consistently (the per-server means too), so that the cache
    // check's consistency rules cannot see it either.
    let summary = obj.get_mut("summary").unwrap();
    let q = summary["mean_sum_q"].as_f64().unwrap();
    summary["mean_sum_q"] = serde_json::json!(q * 0.9);
    for x in summary["mean_queue"].as_array_mut().unwrap() {
        *x = serde_json::json!(x.as_f64().unwrap() * 0.9);
    }
    let sum = lb_store::cache::checksum_of(&v);
    v.as_object_mut()
        .unwrap()
        .insert("checksum".into(), sum.into());
    std::fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let v = ok(d.run(&["cache", "check"]));
    assert!(v.contains("0 damaged"), "{v}");
    let o = d.run(&["verify", "--key", &k.hex()[..12]]);
    assert!(
        !o.status.success(),
        "verify passed a tampered record: {}",
        text(&o).0
    );
    assert!(text(&o).0.contains("differs"), "{}", text(&o).0);
}

/// A manifest with a figure and two required claims: one true by theory
/// (Little's law), one false on purpose.
fn audited_manifest(false_claim: bool) -> String {
    let mut m = manifest(20000, 4);
    m.push_str(
        r#"
[[figure]]
name = "f"
title = "t"
x = "load"
y = "mean_response"
caption = "a caption"

[[claim]]
origin = "check"
id = "little"
statement = "Little's law"
source = "docs/MODEL.md §1"
kind = "value"
metric = "little_gap"
policies = ["WR"]
expected = 0.0
# Over a finite window the FIFO-measured and Little's means differ by an edge
# term of order (jobs present at the window's ends)/(jobs measured): about 0.01
# slots in these 18,000-slot runs, systematic, so a narrow interval can
# exclude 0. The claim is Little's law up to that term, where the intervals
# are narrow enough to say it (load ≤ 0.8).
abs_tolerance = 0.1
where = { load = "<= 0.8" }
required = true
"#,
    );
    if false_claim {
        m.push_str(
            r#"
[[claim]]
origin = "check"
id = "false"
statement = "WR queues are empty"
source = "nobody"
kind = "value"
metric = "mean_sum_q"
policies = ["WR"]
expected = 0.0
tolerance = 0.0
required = true
"#,
        );
    }
    m
}

#[test]
fn audit_exits_non_zero_only_when_a_required_claim_is_refuted() {
    let d = Dir::new(&audited_manifest(false));
    ok(d.run(&["run", "m.toml"]));
    let out = ok(d.run(&["audit", "m.toml", "--out", "pf"]));
    assert!(out.contains("**confirmed** (required)"), "{out}");
    assert!(d.path.join("pf/audit.md").exists());
    std::fs::write(d.path.join("m.toml"), audited_manifest(true)).unwrap();
    let o = d.run(&["audit", "m.toml", "--out", "pf"]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("required claim refuted: many / false"),
        "{}",
        text(&o).1
    );
    let json = d.run(&["audit", "m.toml", "--format", "json", "--out", "pf"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v[1]["verdict"], "refuted");
}

/// The gate is strict: a required claim that is inconclusive — here a limit
/// read on one point, which cannot decide — fails `lb audit` as a refuted
/// one does, naming its verdict and why.
#[test]
fn an_inconclusive_required_claim_fails_the_audit() {
    let mut m = audited_manifest(false);
    m.push_str(
        r#"
[[claim]]
origin = "check"
id = "one-point"
statement = "WR's E[ΣQ] tends to its exact value as the load grows"
source = "exact theory"
kind = "limit"
metric = "mean_sum_q"
policies = ["WR"]
expected = "wr_sum_q"
tolerance = 0.5
along = "load"
toward = "infinity"
where = { load = 0.5 }
required = true
"#,
    );
    let d = Dir::new(&m);
    ok(d.run(&["run", "m.toml"]));
    let o = d.run(&["audit", "m.toml"]);
    assert!(!o.status.success(), "{}", text(&o).0);
    let err = text(&o).1;
    assert!(
        err.contains("required claim inconclusive: many / one-point"),
        "{err}"
    );
    // lb reproduce reports it and writes the report; it does not gate.
    let r = d.run(&["reproduce", "m.toml", "--out", "pf"]);
    assert!(r.status.success(), "{}", text(&r).1);
    assert!(
        text(&r).1.contains("required claim inconclusive"),
        "{}",
        text(&r).1
    );
}

/// `lb reproduce` writes figures, tables, the report and the audit, and a
/// second (warm) run leaves every byte as it was.
#[test]
fn reproduce_is_byte_stable_when_warm() {
    let d = Dir::new(&audited_manifest(false));
    ok(d.run(&["reproduce", "m.toml", "--out", "pf"]));
    let snapshot = |dir: &Path| -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(p) = stack.pop() {
            for e in std::fs::read_dir(&p).unwrap() {
                let e = e.unwrap().path();
                if e.is_dir() {
                    stack.push(e);
                } else {
                    out.insert(e.clone(), std::fs::read(&e).unwrap());
                }
            }
        }
        out
    };
    let first = snapshot(&d.path.join("pf"));
    for f in [
        "README.md",
        "audit.md",
        "many/f.svg",
        "many/f.png",
        "many/f.keys.csv",
        "many/table.md",
    ] {
        assert!(
            first.contains_key(&d.path.join("pf").join(f)),
            "{f} missing"
        );
    }
    ok(d.run(&["reproduce", "m.toml", "--out", "pf", "--threads", "1"]));
    assert_eq!(first, snapshot(&d.path.join("pf")));
}

/// Commands that find nothing to do because their input is wrong exit
/// non-zero and say why.
#[test]
fn wrong_input_is_an_error_not_an_empty_success() {
    let d = Dir::new(&manifest(2000, 1));
    ok(d.run(&["run", "m.toml"]));
    for args in [
        vec!["verify", "--key", "zz"],
        vec!["verify", "--key", "../"],
        vec!["verify", "--key", "ffffffffffff"],
        vec!["verify", "--sample", "0"],
        vec!["--results", "nowhere", "cache", "ls"],
        vec!["--results", "nowhere", "cache", "check"],
        vec!["--results", "m.toml", "cache", "check"],
        vec!["--results", "nowhere", "show", "ab"],
    ] {
        let o = d.run(&args);
        let (_, err) = text(&o);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(err.contains("error:"), "{args:?}: {err}");
    }
}

/// Provenance describes the manifest's own repository and marks a manifest
/// the commit does not hold (here: no repository at all).
#[test]
fn provenance_marks_a_manifest_outside_version_control() {
    let d = Dir::new(&manifest(2000, 1));
    ok(d.run(&["run", "m.toml"]));
    let c = d.cache("results");
    let (k, _) = c
        .keys()
        .into_iter()
        .find(|(k, _)| !c.replication_files(k).is_empty())
        .unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&c.record_text(&c.replication_path(&k, 0)).unwrap()).unwrap();
    let manifests = v["provenance"]["manifests"].as_array().expect("manifests");
    assert!(
        manifests
            .iter()
            .any(|m| m.as_str().unwrap().contains("outside a git repository")),
        "{manifests:?}"
    );
}

/// Every file under `dir`, with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(p) = stack.pop() {
        for e in std::fs::read_dir(&p).unwrap() {
            let e = e.unwrap().path();
            if e.is_dir() {
                stack.push(e);
            } else {
                out.insert(e.clone(), std::fs::read(&e).unwrap());
            }
        }
    }
    out
}

/// An experiment's section of a report page: from its anchor to the next
/// experiment's.
fn section_of(page: &str, name: &str) -> String {
    let head = format!("<a id=\"{name}\"></a>\n\n## ");
    let start = page
        .find(&head)
        .unwrap_or_else(|| panic!("no section {name}"));
    let rest = &page[start + head.len()..];
    let end = rest
        .find("></a>\n\n## ")
        .map(|i| rest[..i].rfind("<a id=").unwrap())
        .unwrap_or(rest.len());
    page[start..start + head.len() + end].to_string()
}

/// A repository layout: experiments/a.toml and experiments/b.toml, each
/// with a figure and a claim, reproduced into the committed report.
fn two_experiments() -> Dir {
    let d = Dir::new("");
    std::fs::create_dir(d.path.join("experiments")).unwrap();
    for (name, seed) in [("a", 11), ("b", 12)] {
        let m = audited_manifest(false)
            .replace("name = \"many\"", &format!("name = \"{name}\""))
            .replace("seed = 11", &format!("seed = {seed}"));
        std::fs::write(d.path.join(format!("experiments/{name}.toml")), m).unwrap();
    }
    ok(d.run(&["reproduce", "--threads", "2"]));
    d
}

/// Commands on one experiment never rewrite the committed report (issue
/// 10): `lb audit X` prints and writes nothing; `lb reproduce X` and `lb
/// audit X --out` rewrite X's parts only, so with X unchanged every byte of
/// the report stays as it was, and with X changed the other experiments'
/// sections do.
#[test]
fn commands_on_one_experiment_leave_the_committed_report_alone() {
    let d = two_experiments();
    let pf = d.path.join("paper-figures");
    let before = snapshot(&pf);
    let readme = String::from_utf8(before[&pf.join("README.md")].clone()).unwrap();
    // The report opens with the verdict summary of every experiment.
    let summary = readme.find("## What reproduced").expect("a summary");
    assert!(summary < readme.find("<a id=\"a\">").unwrap(), "{readme}");
    assert!(readme.contains("| [a](#a) — many small pairs (with lb's required checks) | 1 | [1](audit.md#a) | 0 | 0 |"), "{readme}");
    assert!(readme.contains("[b](#b)"), "{readme}");

    let out = ok(d.run(&["audit", "experiments/a.toml"]));
    assert!(out.contains("**confirmed** (required)"), "{out}");
    assert_eq!(before, snapshot(&pf), "lb audit X wrote files");

    ok(d.run(&["reproduce", "experiments/a.toml"]));
    assert_eq!(before, snapshot(&pf), "lb reproduce X changed the report");

    ok(d.run(&["audit", "experiments/a.toml", "--out", "paper-figures"]));
    assert_eq!(before, snapshot(&pf), "lb audit X --out changed the report");

    // Change a: its section changes, b's does not, and both remain.
    let a = d.path.join("experiments/a.toml");
    let text = std::fs::read_to_string(&a).unwrap();
    std::fs::write(
        &a,
        text.replacen("title = \"many small pairs\"", "title = \"renamed\"", 1),
    )
    .unwrap();
    ok(d.run(&["reproduce", "experiments/a.toml"]));
    let after = snapshot(&pf);
    let readme2 = String::from_utf8(after[&pf.join("README.md")].clone()).unwrap();
    assert!(readme2.contains("## a — renamed"), "{readme2}");
    assert_eq!(section_of(&readme, "b"), section_of(&readme2, "b"));
    let audit = String::from_utf8(before[&pf.join("audit.md")].clone()).unwrap();
    let audit2 = String::from_utf8(after[&pf.join("audit.md")].clone()).unwrap();
    assert_eq!(section_of(&audit, "b"), section_of(&audit2, "b"));
    for f in [
        "b/f.svg",
        "b/f.png",
        "b/table.md",
        "b/report.md",
        "b/audit.md",
    ] {
        assert_eq!(before[&pf.join(f)], after[&pf.join(f)], "{f} changed");
    }
}

/// The audit is a gate: it fails, naming what is missing, when a required
/// claim lacks a point, lacks a replication, or has an empty results
/// directory to read — and a damaged record is reported, not dropped.
#[test]
fn the_audit_gate_fails_on_missing_data() {
    let d = Dir::new(&audited_manifest(false));
    ok(d.run(&["run", "m.toml"]));
    let o = d.run(&["audit", "m.toml"]);
    assert!(o.status.success(), "{}", text(&o).1);
    // An empty results directory.
    std::fs::create_dir_all(d.path.join("empty")).unwrap();
    let o = d.run(&["--results", "empty", "audit", "m.toml"]);
    assert!(!o.status.success());
    assert!(text(&o).1.contains("missing data"), "{}", text(&o).1);
    let c = d.cache("results");
    let wr: Vec<_> = c
        .keys()
        .into_iter()
        .filter(|(k, _)| {
            // A WR point the claim reads (load ≤ 0.8).
            matches!(c.read_point(k), lb_store::cache::Read::Valid(p)
            if p.point.policy_name() == "WR"
                && p.point.config.parameters().iter().any(|(n, v)| {
                    *n == "load" && matches!(v, lb_manifest::Param::Number(x) if *x < 0.85)
                }))
        })
        .collect();
    assert!(!wr.is_empty());
    // One replication of one point the claim reads: damaged, then gone.
    let path = c.replication_path(&wr[0].0, 1);
    std::fs::write(&path, b"{ not json").unwrap();
    let o = d.run(&["audit", "m.toml"]);
    let err = text(&o).1;
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("3 of 4 replications present") && err.contains("damaged: r1"),
        "{err}"
    );
    std::fs::remove_file(&path).unwrap();
    let o = d.run(&["audit", "m.toml"]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("3 of 4 replications present"),
        "{}",
        text(&o).1
    );
    // A whole point gone.
    std::fs::remove_dir_all(&wr[0].1).unwrap();
    let o = d.run(&["audit", "m.toml"]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("0 of 4 replications present"),
        "{}",
        text(&o).1
    );
}

/// The tidy outputs read back: `long.parquet` equals `long.csv`, axes and
/// fixed parameters are numbers, `lb export` holds every replication of
/// every metric, and the JSON outputs hold numbers, not strings.
#[test]
fn tidy_tables_and_the_export_read_back() {
    use lb_analysis::tidy::read_parquet;
    use polars::prelude::*;
    let d = Dir::new(&audited_manifest(false));
    ok(d.run(&["reproduce", "m.toml", "--out", "pf"]));
    let long = read_parquet(&d.path.join("pf/many/long.parquet")).unwrap();
    let csv = CsvReadOptions::default()
        .with_has_header(true)
        .try_into_reader_with_file_path(Some(d.path.join("pf/many/long.csv")))
        .unwrap()
        .finish()
        .unwrap();
    assert_eq!(long.shape(), csv.shape());
    // 4 loads × 3 policies, one row per table metric.
    let metrics = long.column("metric").unwrap().n_unique().unwrap();
    assert_eq!(long.height(), 12 * metrics);
    for (name, dtype) in [
        ("load", DataType::Float64),
        ("servers", DataType::Int64),
        ("dispatchers", DataType::Int64),
        ("mean", DataType::Float64),
        ("level", DataType::Float64),
    ] {
        assert_eq!(long.column(name).unwrap().dtype(), &dtype, "{name}");
    }
    let means: Vec<Option<f64>> = long.column("mean").unwrap().f64().unwrap().to_vec();
    let from_csv: Vec<Option<f64>> = csv.column("mean").unwrap().f64().unwrap().to_vec();
    assert_eq!(means, from_csv);
    assert!(means.iter().flatten().count() > 0);

    // The whole cache: every replication × every metric of the model.
    ok(d.run(&["export", "m.toml", "--out", "all.parquet"]));
    let all = read_parquet(&d.path.join("all.parquet")).unwrap();
    let reps = count_replications(&d.cache("results"));
    let per = lb_manifest::Model::Slotted.metrics().len();
    assert_eq!(all.height(), reps * per);
    let exp = all.column("experiment").unwrap().str().unwrap();
    assert!(exp.iter().all(|e| e == Some("many")));

    // Numbers in JSON.
    let table: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.path.join("pf/many/table.json")).unwrap()).unwrap();
    assert!(table[0]["load"].is_f64(), "{}", table[0]);
    let audit = d.run(&["audit", "m.toml", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&audit.stdout).unwrap();
    assert!(v[0]["checks"][0]["at"]["load"].is_f64(), "{}", v[0]);
    // CSV is CSV: a header and one row per claim.
    let audit = ok(d.run(&["audit", "m.toml", "--format", "csv"]));
    let mut lines = audit.lines();
    assert!(lines.next().unwrap().starts_with("experiment,id,verdict,"));
    assert_eq!(lines.count(), 1);
}

/// A claim's `where` may give a range; it selects exactly the sweep values
/// inside it.
#[test]
fn a_where_range_selects_the_values_inside_it() {
    let mut m = manifest(4000, 2);
    m.push_str(
        r#"
[[claim]]
origin = "check"
id = "high"
statement = "s"
source = "src"
kind = "stability"
policies = ["WR"]
stable = true
where = { load = ">= 0.8" }

[[claim]]
origin = "check"
id = "mid"
statement = "s"
source = "src"
kind = "stability"
policies = ["WR"]
stable = true
where = { load = { min = 0.6, max = 0.8 } }
"#,
    );
    let d = Dir::new(&m);
    ok(d.run(&["run", "m.toml"]));
    let audit = d.run(&["audit", "m.toml", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&audit.stdout).unwrap();
    let loads = |i: usize| -> Vec<f64> {
        v[i]["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["at"]["load"].as_f64().unwrap())
            .collect()
    };
    assert_eq!(loads(0), [0.8, 0.9]);
    assert_eq!(loads(1), [0.7, 0.8]);
}

/// A tiny manifest with a robustness map: Power-of-2 sends the slow servers
/// at least the jobs whose two samples are both slow (45 of 190 pairs), more
/// than they can take at load 0.95 with half the servers at rate 0.2; on
/// identical servers of the same total rate it is stable.
fn robustness_manifest() -> String {
    r#"[experiment]
name = "robust"
title = "a robustness map"
model = "slotted"

[system]
dispatchers = 2
servers = { classes = [{ count = 10, rate = 0.2 }, { count = 10, rate = 0.8 }] }
service = "bernoulli"
arrivals = "poisson"
load = 0.95

[[policy]]
spec = "Power-of-2"

[run]
slots = 20000
warmup = 2000
replications = 4
seed = 5

[[claim]]
origin = "check"
id = "pod-stable"
statement = "Power-of-2 is stable"
source = "test"
kind = "stability"
policies = ["Power-of-2"]
stable = true

[[robustness]]
name = "mix"
claims = ["pod-stable"]
servers = [
  { classes = [{ count = 10, rate = 0.2 }, { count = 10, rate = 0.8 }] },
  { count = 20, rate = 0.5 },
]
tie_break = ["random", "lowest"]
"#
    .to_string()
}

#[test]
fn a_robustness_map_is_planned_run_and_audited() {
    let d = Dir::new(&robustness_manifest());
    let plan = ok(d.run(&["plan", "m.toml"]));
    // The manifest's own combination plans no points of its own: 1 + 3 plans.
    assert_eq!(plan.matches("experiment robust").count(), 4, "{plan}");
    assert!(plan.contains("[robustness mix: servers = 20×0.5, tie_break = lowest]"));
    ok(d.run(&["run", "m.toml"]));
    let c = d.cache("results");
    assert_eq!(count_replications(&c), 4 * 4);
    let out = ok(d.run(&["audit", "m.toml"]));
    assert!(
        out.contains(
            "`pod-stable`: the claim holds if and only if servers = 20×0.5 (2 of 4 combinations)"
        ),
        "{out}"
    );
    assert!(
        out.contains("✗ refuted") && out.contains("✓ holds"),
        "{out}"
    );
    let json = ok(d.run(&["audit", "m.toml", "--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v[0]["verdict"], "refuted");
    assert_eq!(v[0]["robustness"][0]["deciding"][0], "servers");
    assert_eq!(v[0]["robustness"][0]["combinations"][0]["base"], true);
    let csv = ok(d.run(&["audit", "m.toml", "--format", "csv"]));
    assert!(
        csv.lines().next().unwrap().ends_with(",robustness"),
        "{csv}"
    );
    assert!(csv.contains("mix: the claim holds if and only if servers = 20×0.5"));
    ok(d.run(&["reproduce", "m.toml", "--out", "pf"]));
    let report = std::fs::read_to_string(d.path.join("pf/robust/report.md")).unwrap();
    assert!(report.contains("robust/robustness-mix.svg"), "{report}");
    // Its cost says what the map's three other combinations ran: one point
    // of 4 replications each.
    assert!(
        report.contains("beside them, its robustness maps' other combinations: 12 records"),
        "{report}"
    );
    assert!(d.path.join("pf/robust/robustness-mix.png").exists());
}

/// `lb decide`: the one claim, inconclusive with 2 replications, is
/// decided; the ledger beside the manifest makes `lb audit` agree; the flag
/// takes no --quick or --shard, and --budget-cpu needs it.
#[test]
fn run_decide_decides_and_audit_reads_the_ledger() {
    let d = Dir::new(
        r#"[experiment]
name = "wr-decide"
title = "WR against its closed form, decided"
model = "slotted"

[system]
dispatchers = 1
servers = { count = 3, rate = 0.5 }
service = "bernoulli"
arrivals = "bernoulli"
granularity = "batch"

[sweep]
load = [0.6]

[[policy]]
spec = "WR"

[run]
slots = 20_000
warmup = 1_000
replications = 2
seed = 3

[[claim]]
origin = "check"
id = "wr-close"
statement = "WR's E[ΣQ] is within 3% of three independent single-server queues"
source = "exact theory"
kind = "value"
metric = "mean_sum_q"
policies = ["WR"]
expected = "wr_sum_q"
tolerance = 0.03
"#,
    );
    for bad in [
        &["decide", "--quick", "m.toml"][..],
        &["decide", "--shard", "0/2", "m.toml"],
        &["run", "--budget-cpu", "5", "m.toml"],
        &["run", "--decide", "m.toml"],
        &["run"],
    ] {
        assert!(!d.run(bad).status.success(), "{bad:?} should fail");
    }
    ok(d.run(&["run", "m.toml"]));
    let before = ok(d.run(&["audit", "m.toml"]));
    assert!(before.contains("1 undecided"), "{before}");
    let out = ok(d.run(&["decide", "--budget-cpu", "100", "m.toml"]));
    assert!(
        out.contains("1 of 1 inconclusive claim(s) decided (1 confirmed"),
        "{out}"
    );
    assert!(d.path.join("decide/wr-decide.json").is_file(), "{out}");
    let after = ok(d.run(&["audit", "m.toml", "--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(&after).unwrap();
    assert_eq!(v[0]["verdict"], "confirmed");
    assert!(v[0]["level"].as_f64().unwrap() > 0.99, "{after}");
}

/// One guard for plan and run: work beyond lb's soft limits is
/// refused by `lb plan` exactly as by `lb run`, with the same words, and
/// both pass it with --force (plan then warns). Before, `lb plan` printed
/// the estimate and exited 0 on a plan `lb run` refused.
#[test]
fn plan_refuses_what_run_refuses() {
    let d = Dir::new(&manifest(1_000_000_000_000_000, 2));
    let plan = d.run(&["plan", "m.toml"]);
    let run = d.run(&["run", "m.toml"]);
    assert!(!plan.status.success(), "{}", text(&plan).0);
    assert!(!run.status.success(), "{}", text(&run).0);
    let said = |o: &Output| {
        text(o)
            .1
            .lines()
            .find(|l| l.contains("soft limit") || l.contains("lb runs without asking"))
            .map(|l| l.trim_start_matches("error: ").to_string())
    };
    assert!(said(&plan).is_some(), "{}", text(&plan).1);
    assert_eq!(said(&plan), said(&run));
    let forced = d.run(&["plan", "m.toml", "--force"]);
    assert!(forced.status.success(), "{}", text(&forced).1);
    assert!(text(&forced).1.contains("warning:"), "{}", text(&forced).1);
}

/// `lb new` writes a manifest that `lb plan`, `lb run` and `lb reproduce`
/// take at once, for each model; it never overwrites one, and a policy lb does not know is a
/// located error with nothing written.
#[test]
fn lb_new_scaffolds_a_manifest_that_plans_at_once() {
    let d = Dir::new("");
    for (name, model, policies) in [
        ("s1", "slotted", "JSQ,Random"),
        ("m1", "many", "JSQ,Random"),
        ("n1", "spn", "FIFO,max-pressure"),
    ] {
        ok(d.run(&[
            "new",
            name,
            "--model",
            model,
            "--policies",
            policies,
            "--out",
            "exp",
        ]));
        let file = format!("exp/{name}.toml");
        let plan = ok(d.run(&["plan", &file]));
        assert!(plan.contains("4 missing"), "{plan}");
        let text = std::fs::read_to_string(d.path.join(&file)).unwrap();
        assert!(
            text.contains("[[claim]]") && text.contains("origin = \"ours\""),
            "{text}"
        );
    }
    // new → plan → run → reproduce, for each model, with no hand edit.
    for name in ["s1", "m1", "n1"] {
        ok(d.run(&["run", &format!("exp/{name}.toml"), "--threads", "1"]));
    }
    let audit = ok(d.run(&["audit", "exp/s1.toml"]));
    assert!(audit.contains("jsq-beats-random"), "{audit}");
    let rep = d.run(&[
        "reproduce",
        "exp/s1.toml",
        "exp/m1.toml",
        "exp/n1.toml",
        "--out",
        "rep",
    ]);
    let (out, err) = text(&rep);
    assert!(rep.status.success(), "{err}");
    // What reproduce produces goes to stdout (`lb reproduce > log` keeps it).
    assert!(
        out.contains("runs: 0 computed") && out.contains("wrote rep"),
        "{out}"
    );
    assert!(!err.contains("runs: "), "{err}");
    for name in ["s1", "m1", "n1"] {
        let page = std::fs::read_to_string(d.path.join(format!("rep/{name}/report.md")))
            .unwrap_or_else(|e| panic!("rep/{name}/report.md: {e}"));
        assert!(page.contains("beats"), "{name}: {page}");
        assert!(d.path.join(format!("rep/{name}/table.csv")).is_file());
    }
    let again = d.run(&["new", "s1", "--policies", "JSQ", "--out", "exp"]);
    assert!(!again.status.success());
    assert!(
        text(&again).1.contains("never overwrites"),
        "{:?}",
        text(&again)
    );
    let bad = d.run(&["new", "bad", "--policies", "NoSuch", "--out", "exp"]);
    assert!(!bad.status.success());
    let err = text(&bad).1;
    assert!(
        err.contains("policy[0].spec") && err.contains("nothing written"),
        "{err}"
    );
    assert!(!d.path.join("exp/bad.toml").exists());
}

/// `lb diff`: a cache against itself moves no verdict (exit 0); against an
/// empty results directory every required check of validation.toml moves
/// (exit non-zero), each named with why (missing data).
#[test]
fn lb_diff_names_the_verdicts_that_moved() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let empty = tempfile::tempdir().unwrap();
    let run = |against: &Path| {
        Command::new(LB)
            .current_dir(&root)
            .args(["diff", "experiments/validation.toml", "--against"])
            .arg(against)
            .output()
            .unwrap()
    };
    let same = run(&root.join("results"));
    let (out, _) = text(&same);
    assert!(same.status.success(), "{out}");
    assert!(out.contains(": 0 verdict(s) moved"), "{out}");
    let gone = run(empty.path());
    let (out, _) = text(&gone);
    assert!(!gone.status.success(), "{out}");
    assert!(out.contains("validation:\n  REQUIRED claim "), "{out}");
    assert!(out.contains("missing data"), "{out}");
}

/// `git ARGS` in `dir`, as a user named t, without signing; fails the test
/// on an error.
fn git_in(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "git {args:?}: {}", text(&o).1);
}

/// Provenance that leads to a commit: records computed from a
/// modified tree fail `lb cache lineage --strict`; `lb stamp`
/// refuses a modified tree, and at a clean commit recomputes them bit for
/// bit and stamps the commit and the manifest's hash into them without
/// touching a number; the gate then passes. A record stamped at a commit
/// that leaves the history fails the gate again.
#[test]
fn stamped_records_lead_to_a_clean_commit_and_the_gate_checks_it() {
    let d = Dir::new(&manifest(2000, 1));
    let git = |args: &[&str]| git_in(&d.path, args);
    git(&["init", "-q"]);
    std::fs::write(d.path.join(".gitignore"), "results/\n").unwrap();
    git(&["add", "m.toml", ".gitignore"]);
    git(&["commit", "-q", "-m", "manifest"]);
    // Computed from a modified manifest: dirty.
    let text0 = std::fs::read_to_string(d.path.join("m.toml")).unwrap();
    std::fs::write(d.path.join("m.toml"), format!("{text0}\n# edited\n")).unwrap();
    ok(d.run(&["run", "m.toml"]));
    let c = d.cache("results");
    let before = records(&c);
    let o = d.run(&["cache", "lineage", "--strict"]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("never verified at a clean commit"),
        "{}",
        text(&o).1
    );
    // A modified tree cannot stamp.
    let o = d.run(&["stamp"]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("modified tracked files"),
        "{}",
        text(&o).1
    );
    // Commit, stamp: every record recomputes identical and leads to the commit.
    git(&["commit", "-q", "-am", "edited"]);
    let out = ok(d.run(&["stamp", "m.toml"]));
    assert!(out.contains("0 not identical"), "{out}");
    assert!(out.contains("0 already leading"), "{out}");
    ok(d.run(&["cache", "lineage", "--strict"]));
    assert_eq!(records(&c), before, "a stamp changed a number");
    assert_eq!(
        all_present_valid(&c),
        total_records(1),
        "stamped records reseal"
    );
    let (k, _) = c
        .keys()
        .into_iter()
        .find(|(k, _)| !c.replication_files(k).is_empty())
        .unwrap();
    // A stamp ends in packs; the record reads through them.
    assert!(lb_store::packing::loose_records(&c).is_empty());
    let v: serde_json::Value =
        serde_json::from_str(&c.record_text(&c.replication_path(&k, 0)).unwrap()).unwrap();
    let sha = lb_store::provenance::sha256_hex(&std::fs::read(d.path.join("m.toml")).unwrap());
    assert_eq!(
        v["provenance"]["verified"]["manifest_sha256"]["m.toml"],
        sha
    );
    // A second stamp finds nothing to do.
    let out = ok(d.run(&["stamp", "m.toml"]));
    assert!(out.contains(": 0 stamped"), "{out}");
    // A shallow clone one commit past the stamp lacks the stamped commit:
    // the gate fails and says to fetch the history, not to stamp again.
    std::fs::write(d.path.join("NOTES"), "later\n").unwrap();
    git(&["add", "NOTES"]);
    git(&["commit", "-q", "-m", "later"]);
    let shallow = tempfile::tempdir().unwrap();
    let url = format!("file://{}", d.path.display());
    git_in(shallow.path(), &["clone", "-q", "--depth", "1", &url, "c"]);
    let o = Command::new(LB)
        .current_dir(shallow.path().join("c"))
        .arg("--results")
        .arg(d.path.join("results"))
        .args(["cache", "lineage", "--strict"])
        .output()
        .unwrap();
    let err = text(&o).1;
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("this clone is shallow") && err.contains("git fetch --unshallow"),
        "{err}"
    );
    assert!(!err.contains("run `lb stamp`"), "{err}");
    ok(d.run(&["cache", "lineage", "--strict"]));
    git(&["reset", "-q", "--hard", "HEAD~1"]);
    // History rewritten under the stamp: the gate fails again.
    git(&["commit", "-q", "--amend", "-m", "rewritten"]);
    let o = d.run(&["cache", "lineage", "--strict"]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("not in HEAD's history"),
        "{}",
        text(&o).1
    );
}

/// `lb diff --against REVISION` compares with a git revision's manifests
/// and committed results: a change of the servers' rates moves the table
/// values beyond their intervals, and each is named; against the same
/// revision nothing moves; a name that is neither a directory nor a
/// revision is an error that says what to give.
#[test]
fn lb_diff_against_a_revision_names_the_values_that_moved() {
    let d = Dir::new(&manifest(2000, 3));
    let git = |args: &[&str]| git_in(&d.path, args);
    git(&["init", "-q"]);
    std::fs::create_dir(d.path.join("experiments")).unwrap();
    std::fs::rename(d.path.join("m.toml"), d.path.join("experiments/m.toml")).unwrap();
    ok(d.run(&["run", "experiments/m.toml"]));
    git(&["add", "experiments", "results"]);
    git(&["commit", "-q", "-m", "first"]);
    let same = ok(d.run(&["diff", "--against", "HEAD"]));
    assert!(same.contains("0 table value(s) moved"), "{same}");
    let m = d.path.join("experiments/m.toml");
    let t = std::fs::read_to_string(&m).unwrap();
    std::fs::write(
        &m,
        t.replace("count = 2, rate = 0.8", "count = 2, rate = 0.2"),
    )
    .unwrap();
    ok(d.run(&["run", "experiments/m.toml"]));
    let out = ok(d.run(&["diff", "--against", "HEAD"]));
    assert!(out.contains("many:"), "{out}");
    assert!(
        out.contains("  value WR mean_response at load=0.5: "),
        "{out}"
    );
    assert!(!out.contains(" 0 table value(s) moved"), "{out}");
    let bad = d.run(&["diff", "--against", "no-such-thing"]);
    assert!(!bad.status.success());
    assert!(
        text(&bad)
            .1
            .contains("neither a results directory nor a git revision"),
        "{}",
        text(&bad).1
    );
}

/// `lb diff --against REVISION` with exactly one verdict planted: a
/// required bound claim's bound moves across the data, nothing is
/// recomputed. The diff names that verdict and nothing else (no table
/// value, no figure), and exits non-zero because the claim is required;
/// the same change to a claim that is not required exits 0.
#[test]
fn lb_diff_shows_one_planted_verdict_and_nothing_else() {
    let claim = |bound: &str, required: bool| {
        let origin = if required { "check" } else { "ours" };
        format!(
            "\n[[claim]]\nid = \"wr-bounded\"\nstatement = \"WR holds few jobs\"\nsource = \"a test\"\n\
             origin = \"{origin}\"\nkind = \"bound\"\nmetric = \"mean_sum_q\"\n\
             policies = [\"WR\"]\nbound = {bound}\nside = \"le\"\nrequired = {required}\n"
        )
    };
    for required in [true, false] {
        let d = Dir::new(&format!(
            "{}{}",
            manifest(2000, 3),
            claim("1000.0", required)
        ));
        let git = |args: &[&str]| git_in(&d.path, args);
        git(&["init", "-q"]);
        std::fs::create_dir(d.path.join("experiments")).unwrap();
        let m = d.path.join("experiments/m.toml");
        std::fs::rename(d.path.join("m.toml"), &m).unwrap();
        ok(d.run(&["run", "experiments/m.toml"]));
        git(&["add", "experiments", "results"]);
        git(&["commit", "-q", "-m", "first"]);
        let t = std::fs::read_to_string(&m).unwrap();
        std::fs::write(&m, t.replace("bound = 1000.0", "bound = 0.001")).unwrap();
        let o = d.run(&["diff", "--against", "HEAD"]);
        let (out, err) = text(&o);
        assert_eq!(o.status.success(), !required, "{out}{err}");
        assert!(out.contains(": 1 verdict(s) moved"), "{out}");
        assert!(out.contains("wr-bounded"), "{out}");
        assert!(
            out.contains(" 0 table value(s) moved")
                && out.contains(" 0 figure(s) whose data moved"),
            "{out}"
        );
    }
}

/// `lb diff --report A --against B` compares two reports as written: the
/// verdicts of their claims.json, their table values beyond the intervals,
/// their figures' sidecars; a required verdict that moved fails it.
#[test]
fn lb_diff_of_two_reports_names_what_moved() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let t = tempfile::tempdir().unwrap();
    let make = |side: &str| {
        let d = t.path().join(side);
        std::fs::create_dir_all(d.join("validation")).unwrap();
        for f in ["README.md", "audit.md"] {
            std::fs::write(d.join(f), "report\n").unwrap();
        }
        for f in ["claims.json", "table.csv", "validation.keys.csv"] {
            std::fs::copy(
                root.join("paper-figures/validation").join(f),
                d.join("validation").join(f),
            )
            .unwrap();
        }
        d
    };
    let (a, b) = (make("a"), make("b"));
    let run = || {
        Command::new(LB)
            .args(["diff", "--report"])
            .arg(&a)
            .arg("--against")
            .arg(&b)
            .output()
            .unwrap()
    };
    let same = ok(run());
    assert!(
        same.contains("0 verdict(s) moved") && same.contains("0 table value(s)"),
        "{same}"
    );
    // The other report: a required check refuted, a value far off, a
    // figure's point moved.
    let claims = b.join("validation/claims.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&claims).unwrap()).unwrap();
    v["claims"][0]["verdict"] = "refuted".into();
    std::fs::write(&claims, v.to_string()).unwrap();
    let table = b.join("validation/table.csv");
    let csv = std::fs::read_to_string(&table).unwrap();
    let mut lines: Vec<String> = csv.lines().map(String::from).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = header.iter().position(|c| *c == "mean_sum_q").unwrap();
    let mut row: Vec<String> = lines[1].split(',').map(String::from).collect();
    row[col] = "1000".into();
    lines[1] = row.join(",");
    std::fs::write(&table, lines.join("\n") + "\n").unwrap();
    let keys = b.join("validation/validation.keys.csv");
    let k = std::fs::read_to_string(&keys).unwrap();
    std::fs::write(&keys, k.replacen(",true,", ",false,", 1)).unwrap();
    let o = run();
    let (out, _) = text(&o);
    assert!(!o.status.success(), "{out}");
    assert!(out.contains("REQUIRED claim"), "{out}");
    assert!(out.contains("mean_sum_q: 1000 → "), "{out}");
    assert!(out.contains("figure validation: its points"), "{out}");
}

/// `lb archive` writes a self-contained artifact: the manifest, every record
/// it reads, the report, the source and lock file, CITATION.cff and RO-Crate
/// metadata naming the Workflow Run Crate profiles; in the unpacked archive
/// `lb audit` gives the verdicts it gives here, and `lb verify` recomputes
/// its records bit for bit. (CI validates the metadata with roc-validator:
/// scripts/rocrate-validate.py.)
#[test]
fn an_archive_reproduces_its_verdicts_where_it_is_unpacked() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let t = tempfile::tempdir().unwrap();
    let arch = t.path().join("arch");
    let lb = |dir: &Path, args: &[&str]| {
        Command::new(LB)
            .current_dir(dir)
            .args(args)
            .output()
            .unwrap()
    };
    ok(lb(
        &root,
        &["archive", "experiments/validation.toml", "--out"]
            .into_iter()
            .chain([arch.to_str().unwrap()])
            .collect::<Vec<_>>(),
    ));
    for f in [
        "experiments/validation.toml",
        "paper-figures/README.md",
        "paper-figures/audit.md",
        "Cargo.lock",
        "CITATION.cff",
        "TOOLCHAIN.txt",
        "crates/lb-cli/src/main.rs",
        "ro-crate-metadata.json",
    ] {
        assert!(arch.join(f).is_file(), "{f} missing from the archive");
    }
    let audit = |dir: &Path| {
        ok(lb(
            dir,
            &["audit", "experiments/validation.toml", "--format", "csv"],
        ))
    };
    assert_eq!(audit(&arch), audit(&root), "the archive's verdicts differ");
    let v = ok(lb(&arch, &["verify", "--sample", "5"]));
    assert!(v.contains("5 identical"), "{v}");
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(arch.join("ro-crate-metadata.json")).unwrap(),
    )
    .unwrap();
    let graph = m["@graph"].as_array().unwrap();
    let root_entity = graph.iter().find(|e| e["@id"] == "./").unwrap();
    let profiles = root_entity["conformsTo"].to_string();
    assert!(
        profiles.contains("https://w3id.org/ro/wfrun/workflow/0.5"),
        "{profiles}"
    );
    assert_eq!(root_entity["mainEntity"]["@id"], "justfile");
    // Never over an existing archive.
    let again = lb(
        &root,
        &[
            "archive",
            "experiments/validation.toml",
            "--out",
            arch.to_str().unwrap(),
        ],
    );
    assert!(!again.status.success());
}

/// Newcomer's stumbles: `lb --help` points to the manifest
/// documentation; `lb show` with no matching record says where keys are;
/// `lb verify` over a whole cache says what it costs and how to sample.
#[test]
fn the_messages_a_newcomer_meets_say_what_to_do() {
    let d = Dir::new(&format!(
        "{}\n[[claim]]\nid = \"wr-bounded\"\nstatement = \"WR holds few jobs\"\n\
         source = \"a test\"\norigin = \"ours\"\nkind = \"bound\"\nmetric = \"mean_sum_q\"\n\
         policies = [\"WR\"]\nbound = 1000.0\nside = \"le\"\n",
        manifest(2000, 10)
    ));
    // Auditing before running: the missing data, and the command that
    // computes it.
    std::fs::create_dir(d.path.join("results")).unwrap();
    let a = d.run(&["audit", "m.toml"]);
    let (_, err) = text(&a);
    assert!(err.contains("missing data"), "{err}");
    assert!(
        err.contains("to compute what is missing: lb run m.toml"),
        "{err}"
    );
    let help = ok(d.run(&["--help"]));
    assert!(help.contains("experiments/README.md"), "{help}");
    ok(d.run(&["run", "m.toml"]));
    let show = d.run(&["show", "ffff"]);
    assert!(!show.status.success());
    assert!(
        text(&show).1.contains("lb plan MANIFEST"),
        "{}",
        text(&show).1
    );
    let v = d.run(&["verify"]);
    let (out, err) = text(&v);
    assert!(v.status.success(), "{out}{err}");
    assert!(
        err.contains("verifying all") && err.contains("--sample K"),
        "{err}"
    );
}

/// A manifest removed from experiments/ takes its report folder with it at
/// the next `lb reproduce` of every manifest (a newcomer's stumble), and the
/// run says so; a reproduce of one manifest removes nothing.
#[test]
fn a_removed_manifest_takes_its_report_folder_with_it() {
    let d = two_experiments();
    assert!(d.path.join("paper-figures/b/claims.json").is_file());
    std::fs::remove_file(d.path.join("experiments/b.toml")).unwrap();
    let one = d.run(&["reproduce", "experiments/a.toml"]);
    assert!(one.status.success());
    assert!(
        d.path.join("paper-figures/b").is_dir(),
        "removed by a partial reproduce"
    );
    let all = d.run(&["reproduce"]);
    let (out, err) = text(&all);
    assert!(all.status.success(), "{err}");
    assert!(!d.path.join("paper-figures/b").exists());
    assert!(d.path.join("paper-figures/a/claims.json").is_file());
    assert!(
        out.contains("no manifest in experiments/ names this experiment"),
        "{out}"
    );
    let page = std::fs::read_to_string(d.path.join("paper-figures/README.md")).unwrap();
    assert!(!page.contains("(#b)"), "the page still links b");
}

/// Every recipe of the justfile carries a one-line `[doc(…)]`, which `just
/// --list` shows whole (a multi-line comment shows its last line only).
#[test]
fn every_just_recipe_has_a_one_line_doc() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("justfile")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut recipes = 0;
    for (i, l) in lines.iter().enumerate() {
        let recipe = !l.starts_with([' ', '\t', '#', '['])
            && !l.is_empty()
            && l.contains(':')
            && !l.contains(":=")
            && !l.starts_with("set ");
        if recipe {
            recipes += 1;
            assert!(
                i > 0 && lines[i - 1].starts_with("[doc(\""),
                "recipe `{l}` has no [doc(\"…\")] line above it"
            );
        }
    }
    assert!(recipes >= 8, "{recipes} recipes");
}

/// `lb audit --format md` prints every section its summary links to
/// (a newcomer's stumble: it printed the summary only).
#[test]
fn the_markdown_audit_holds_the_sections_it_links_to() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let o = Command::new(LB)
        .current_dir(&root)
        .args(["audit", "experiments/validation.toml", "--format", "md"])
        .output()
        .unwrap();
    let md = ok(o);
    let mut links = 0;
    for part in md.split("](#").skip(1) {
        let anchor = &part[..part.find(')').unwrap()];
        links += 1;
        assert!(
            md.contains(&format!("<a id=\"{anchor}\"></a>")),
            "a link to #{anchor} with no section"
        );
    }
    assert!(links >= 5, "{links} links");
}

/// Ctrl-C (SIGINT) says what was kept and that a rerun resumes, and ends
/// with status 130; what it kept is valid, and the rerun gives the records
/// of an uninterrupted run (a newcomer's stumble: it was silent).
#[test]
fn an_interrupt_says_what_was_kept_and_a_rerun_resumes() {
    let reps = 12;
    let d = Dir::new(&manifest(30_000, reps));
    let child = started_run(&d, Stdio::piped());
    let c = d.cache("results");
    // SAFETY: a signal to the child this test spawned.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted") && err.contains("run the same command again"),
        "{err}"
    );
    assert!(all_present_valid(&c) < total_records(reps as usize));
    ok(d.run(&["run", "m.toml", "--threads", "2"]));
    ok(d.run(&["run", "m.toml", "--threads", "2", "--results", "clean"]));
    assert_eq!(records(&c), records(&d.cache("clean")));
}

/// lb finds its project as git finds its repository: run from a
/// subdirectory it reads the project's cache (the points are cached, not
/// missing, and no empty cache starts there); run from outside any project
/// it refuses with the fix; with --results it does as told.
#[test]
fn lb_finds_its_project_from_a_subdirectory_and_refuses_outside_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap();
    let plan = |dir: &Path, args: &[&str]| {
        let o = Command::new(LB)
            .current_dir(dir)
            .args(args)
            .output()
            .unwrap();
        let (out, err) = text(&o);
        // The count of cached and missing points (the listing names the
        // manifest as it was typed).
        let counts: Vec<String> = out
            .lines()
            .filter(|l| l.contains(" cached, "))
            .map(str::to_string)
            .collect();
        (o.status.success(), (counts, err))
    };
    let (ok_root, (at_root, _)) = plan(&root, &["plan", "experiments/validation.toml"]);
    assert!(
        ok_root && at_root.len() == 1 && at_root[0].contains(" 0 missing"),
        "{at_root:?}"
    );
    for sub in [root.join("experiments"), root.join("crates/lb-cli/src")] {
        let named = if sub.ends_with("experiments") {
            "validation.toml"
        } else {
            "experiments/validation.toml"
        };
        let (ok, (out, err)) = plan(&sub, &["plan", named]);
        assert!(ok, "{err}");
        assert_eq!(out, at_root, "from {} lb read another cache", sub.display());
        assert!(!sub.join("results").exists(), "an empty cache was started");
    }
    let outside = tempfile::tempdir().unwrap();
    let manifest = root.join("experiments/validation.toml");
    let (ok, (_, err)) = plan(outside.path(), &["plan", manifest.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("belongs to the lb project at") && err.contains("cd "),
        "{err}"
    );
    let (ok, (_, err)) = plan(outside.path(), &["audit"]);
    assert!(!ok && err.contains("not inside an lb project"), "{err}");
    let results = root.join("results");
    let (ok, (out, err)) = plan(
        outside.path(),
        &[
            "plan",
            manifest.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(out, at_root);
}

/// Every file under `dir` by its path relative to `dir`, with its bytes.
fn relative_snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    snapshot(dir)
        .into_iter()
        .map(|(p, b)| (p.strip_prefix(dir).unwrap().to_path_buf(), b))
        .collect()
}

/// `lb cache adopt` takes a recompute into the cache rewriting only what
/// changed, then packs: a recompute of the same records keeps every record
/// of the cache byte for byte (their provenance differs, their numbers do
/// not), and the packs too; a record the cache lacks is added, a damaged one
/// replaced, and a damaged record of the recompute is left out with a
/// failing status.
#[test]
fn cache_adopt_rewrites_only_what_changed() {
    use lb_test_support::texts;
    let d = Dir::new(&manifest(1000, 2));
    ok(d.run(&["run", "m.toml", "--threads", "1"]));
    ok(d.run(&["--results", "fresh", "run", "m.toml", "--threads", "2"]));
    let (cache, fresh_cache) = (d.cache("results"), d.cache("fresh"));
    let before = texts(&cache);
    let fresh = texts(&fresh_cache);
    assert_eq!(before.len(), fresh.len());
    assert_ne!(before, fresh, "a recompute writes its own provenance");
    let out = ok(d.run(&["cache", "adopt", "fresh"]));
    assert!(
        out.contains(&format!("{} record(s) kept as they are", before.len()))
            && out.contains("0 replaced, 0 new"),
        "{out}"
    );
    assert_eq!(
        texts(&cache),
        before,
        "adopting the same numbers changes no record"
    );
    assert!(
        lb_store::packing::loose_records(&cache).is_empty(),
        "adopt ends in packs"
    );
    let packs = relative_snapshot(&d.path.join("results"));
    ok(d.run(&["cache", "adopt", "fresh"]));
    assert_eq!(
        relative_snapshot(&d.path.join("results")),
        packs,
        "nor any pack"
    );
    // One replication missing from the cache, another damaged there (a
    // loose file over its packed record).
    let reps: Vec<&String> = before.keys().filter(|p| p.contains("/r0")).collect();
    let key_of = |rel: &str| lb_model::Key::parse(rel.split('/').nth(1).unwrap()).unwrap();
    let name_of = |rel: &str| rel.rsplit('/').next().unwrap().to_string();
    cache
        .drop_packed(&[(key_of(reps[0]), name_of(reps[0]))])
        .unwrap();
    let damaged = d.path.join("results").join(reps[1]);
    std::fs::create_dir_all(damaged.parent().unwrap()).unwrap();
    std::fs::write(
        &damaged,
        before[reps[1]]
            .replacen("\"replication\"", "\"replication\" ", 1)
            .replacen('1', "2", 1),
    )
    .unwrap();
    let out = ok(d.run(&["cache", "adopt", "fresh"]));
    assert!(out.contains("1 replaced, 1 new"), "{out}");
    let after = texts(&cache);
    assert_eq!(after[reps[0]], fresh[reps[0]]);
    assert_eq!(after[reps[1]], fresh[reps[1]]);
    all_present_valid(&cache);
    // A damaged record of the recompute is not taken.
    let bad = d.path.join("fresh").join(reps[2]);
    std::fs::write(&bad, "{").unwrap();
    let o = d.run(&["cache", "adopt", "fresh"]);
    assert!(!o.status.success());
    let (_, err) = text(&o);
    assert!(
        err.contains("skipped") && err.contains("cache check"),
        "{err}"
    );
    assert_eq!(texts(&cache)[reps[2]], before[reps[2]]);
}

/// `lb --version` names the commit the binary was built from (with
/// "modified" where its sources differ from it), or says there was none.
#[test]
fn the_version_names_the_build() {
    let out = Command::new(LB).arg("--version").output().unwrap();
    assert!(out.status.success());
    let v = String::from_utf8(out.stdout).unwrap();
    let v = v.trim();
    assert!(
        v.starts_with(&format!("lb {}", env!("CARGO_PKG_VERSION"))),
        "{v}"
    );
    let commit = v
        .split_once("(commit ")
        .map(|(_, c)| c.trim_end_matches(')').trim_end_matches(", modified"));
    match commit {
        Some(c) => assert!(
            c.len() == 12 && c.chars().all(|x| x.is_ascii_hexdigit()),
            "{v}"
        ),
        None => assert!(v.ends_with("(no git: built outside a repository)"), "{v}"),
    }
}

/// Every command names a manifest one way: by its path, or by its
/// experiment's name from the project root; a name that is none is refused
/// with the nearest one.
#[test]
fn a_manifest_is_named_by_path_or_by_name() {
    let d = Dir::new(&manifest(2_000, 1));
    std::fs::create_dir_all(d.path.join("experiments")).unwrap();
    std::fs::rename(d.path.join("m.toml"), d.path.join("experiments/many.toml")).unwrap();
    for args in [
        ["plan", "many"],
        ["plan", "experiments/many.toml"],
        ["run", "many"],
        ["table", "many"],
        ["audit", "many"],
    ] {
        let o = d.run(&args);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{args:?}: {out}{err}");
    }
    let o = d.run(&["table", "mnay"]);
    let (_, err) = text(&o);
    assert!(!o.status.success());
    assert!(
        err.contains("mnay: no such manifest: did you mean \"many\""),
        "{err}"
    );
}

/// A reproduce that adds records says which packs it rewrote and how to
/// leave the cache as it was; one that adds none says nothing of packs.
#[test]
fn a_reproduce_says_which_packs_it_rewrote() {
    let d = Dir::new(&manifest(2_000, 1));
    let first = d.run(&["reproduce", "m.toml", "--out", "report"]);
    let (out, err) = text(&first);
    assert!(first.status.success(), "{out}{err}");
    assert!(out.contains("new record(s) into"), "{out}");
    assert!(out.contains("To leave results as it was"), "{out}");
    let again = d.run(&["reproduce", "m.toml", "--out", "report"]);
    let (out, err) = text(&again);
    assert!(again.status.success(), "{out}{err}");
    assert!(!out.contains("pack(s) of"), "{out}");
    assert!(!out.contains("CPU-seconds"), "{out}");
    let cost = d.run(&["reproduce", "m.toml", "--out", "report", "--cost"]);
    assert!(text(&cost).0.contains("CPU-seconds"));
}

/// `lb check` applies the house rules at authoring time: `lb new`'s
/// manifest passes them; a caption that leans on another figure and a
/// measured number typed in prose are each reported, located, with the
/// rule's name; a rule of the loader is reported as the loader says it.
#[test]
fn lb_check_applies_the_house_rules() {
    let d = Dir::new("");
    std::fs::create_dir_all(d.path.join("experiments")).unwrap();
    let o = d.run(&[
        "new",
        "mine",
        "--model",
        "slotted",
        "--policies",
        "JSQ,Random",
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let o = d.run(&["check", "mine"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(out.contains("all hold"), "{out}");
    // The rule that reads records says it could not, before any run.
    assert!(out.contains("not checked: no records"), "{out}");
    let path = d.path.join("experiments/mine.toml");
    let base = std::fs::read_to_string(&path).unwrap();
    let broken = base.replacen(
        "caption = \"",
        "caption = \"As above; the ratio reaches 1.234. ",
        1,
    );
    assert_ne!(broken, base, "lb new writes a caption");
    std::fs::write(&path, &broken).unwrap();
    let o = d.run(&["check", "mine"]);
    let (out, _) = text(&o);
    assert!(!o.status.success());
    assert!(
        out.contains("figure[0].caption: [captions-stand-alone]"),
        "{out}"
    );
    assert!(out.contains("[numbers-in-prose] 1.234"), "{out}");
    std::fs::write(&path, base.replacen("spec = \"JSQ\"", "spec = \"JSQQ\"", 1)).unwrap();
    let o = d.run(&["check", "mine"]);
    let (_, err) = text(&o);
    assert!(!o.status.success());
    assert!(err.contains("did you mean \"JSQ\""), "{err}");
    // A source whose work references.bib does not hold.
    std::fs::write(
        d.path.join("experiments/references.bib"),
        "@article{weber-1978, author = {Weber, R. R.}, title = {T}, shortname = {Weber}}\n",
    )
    .unwrap();
    std::fs::write(
        &path,
        base.replacen(
            "source = \"(where the claim is made: edit)\"",
            "source = \"@webber-1978, Thm. 1\"",
            1,
        ),
    )
    .unwrap();
    let o = d.run(&["check", "mine"]);
    let (_, err) = text(&o);
    assert!(!o.status.success());
    assert!(err.contains("claim[0].source"), "{err}");
    assert!(err.contains("did you mean @weber-1978?"), "{err}");
}

/// `lb new --paper KEY` writes a stand-in for a work of references.bib that
/// cites it by key and passes `lb check`; a key the file lacks is refused.
#[test]
fn lb_new_writes_a_stand_in_for_a_cited_work() {
    let d = Dir::new("");
    std::fs::create_dir_all(d.path.join("experiments")).unwrap();
    std::fs::write(
        d.path.join("experiments/references.bib"),
        "@article{weber-1978, author = {Weber, R. R.}, title = {T}, year = {1978}, \
         shortname = {Weber}}\n",
    )
    .unwrap();
    let o = d.run(&[
        "new",
        "w",
        "--policies",
        "JSQ,Random",
        "--paper",
        "weber-1978",
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let body = std::fs::read_to_string(d.path.join("experiments/w.toml")).unwrap();
    assert!(
        body.contains("origin = \"stand-in\"\npaper = \"Weber\""),
        "{body}"
    );
    assert!(body.contains("source = \"@weber-1978, "), "{body}");
    let o = d.run(&["check", "w"]);
    assert!(o.status.success(), "{:?}", text(&o));
    let o = d.run(&[
        "new",
        "v",
        "--policies",
        "JSQ,Random",
        "--paper",
        "weber-1987",
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("did you mean @weber-1978?"),
        "{:?}",
        text(&o)
    );
}

/// `lb check` reads records where the cache has them: a figure stretched
/// far beyond its data squeezes its claim's region, located by experiment
/// and claim.
#[test]
fn lb_check_reads_records_for_the_room_rule() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let d = Dir::new("");
    std::fs::create_dir_all(d.path.join("experiments")).unwrap();
    std::fs::copy(
        repo.join("experiments/references.bib"),
        d.path.join("experiments/references.bib"),
    )
    .unwrap();
    let manifest =
        std::fs::read_to_string(repo.join("experiments/max-pressure-heavy-traffic.toml")).unwrap();
    let results = repo.join("results");
    let results = results.to_str().unwrap();
    let put = |t: &str| {
        std::fs::write(
            d.path.join("experiments/max-pressure-heavy-traffic.toml"),
            t,
        )
        .unwrap()
    };
    put(&manifest);
    let o = d.run(&["--results", results, "check", "max-pressure-heavy-traffic"]);
    assert!(o.status.success(), "{:?}", text(&o));
    put(&manifest.replace("y_range = [0.38, 0.56]", "y_range = [0.0, 40.0]"));
    let o = d.run(&["--results", results, "check", "max-pressure-heavy-traffic"]);
    let (out, _) = text(&o);
    assert!(!o.status.success());
    assert!(
        out.contains("[claims-have-room] max-pressure-heavy-traffic/"),
        "{out}"
    );
}
