//! Helpers the `lb` binary's end-to-end tests share: a project in a temporary
//! directory, the manifests they run, and readers of what a run leaves.

// Each test file uses some of these.
#![allow(dead_code, unused_imports)]

pub(crate) use lb_store::cache::{Cache, FileKind, Read, classify};
pub(crate) use lb_test_support::records;
pub(crate) use std::collections::BTreeMap;
pub(crate) use std::path::{Path, PathBuf};
pub(crate) use std::process::{Command, Output, Stdio};
pub(crate) use std::time::{Duration, Instant};

pub(crate) const LB: &str = env!("CARGO_BIN_EXE_lb");

/// A manifest of many small (point, replication) pairs: 4 loads × 3 policies ×
/// `reps` replications of `slots` slots, and one message-budget calibration
/// per load.
pub(crate) fn manifest(slots: u64, reps: u32) -> String {
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

pub(crate) struct Dir {
    pub _tmp: tempfile::TempDir,
    pub path: PathBuf,
}

impl Dir {
    pub(crate) fn new(manifest_text: &str) -> Dir {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().to_path_buf();
        std::fs::write(path.join("m.toml"), manifest_text).unwrap();
        Dir { _tmp: tmp, path }
    }
    pub(crate) fn lb(&self, args: &[&str]) -> Command {
        let mut c = Command::new(LB);
        c.current_dir(&self.path).args(args);
        c
    }
    pub(crate) fn run(&self, args: &[&str]) -> Output {
        self.lb(args).output().unwrap()
    }
    pub(crate) fn cache(&self, results: &str) -> Cache {
        Cache::new(self.path.join(results))
    }
}

pub(crate) fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

pub(crate) fn ok(o: Output) -> String {
    let (out, err) = text(&o);
    assert!(
        o.status.success(),
        "lb failed\nstdout:\n{out}\nstderr:\n{err}"
    );
    out
}

/// Every file named like a record is a valid record.
pub(crate) fn all_present_valid(c: &Cache) -> usize {
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

pub(crate) fn count_replications(c: &Cache) -> usize {
    c.keys()
        .iter()
        .map(|(k, _)| c.replication_files(k).len())
        .sum()
}

/// 12 points × reps replications + 12 point.json + 4 calibrations.
pub(crate) fn total_records(reps: usize) -> usize {
    12 * reps + 12 + 4
}

/// The key of the WR point at load 0.9 in `lb plan`'s listing (its row's
/// first field).
pub(crate) fn wr_key_at_09(plan: &str) -> String {
    plan.lines()
        .find(|l| l.contains(" WR ") && l.split_whitespace().any(|w| w == "0.9"))
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

/// `lb run m.toml` on one thread in `d`, its stderr to `stderr`, returned
/// once 10 of its replications are written (a run long enough to stop
/// mid-way).
pub(crate) fn started_run(d: &Dir, stderr: Stdio) -> std::process::Child {
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

/// A manifest with a figure and two required claims: one true by theory
/// (Little's law), one false on purpose.
pub(crate) fn audited_manifest(false_claim: bool) -> String {
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

/// Every file under `dir`, with its bytes.
pub(crate) fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
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
pub(crate) fn section_of(page: &str, name: &str) -> String {
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
pub(crate) fn two_experiments() -> Dir {
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

/// A tiny manifest with a robustness map: Power-of-2 sends the slow servers
/// at least the jobs whose two samples are both slow (45 of 190 pairs), more
/// than they can take at load 0.95 with half the servers at rate 0.2; on
/// identical servers of the same total rate it is stable.
pub(crate) fn robustness_manifest() -> String {
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

/// `git ARGS` in `dir`, as a user named t, without signing; fails the test
/// on an error.
pub(crate) fn git_in(dir: &Path, args: &[&str]) {
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

/// Every file under `dir` by its path relative to `dir`, with its bytes.
pub(crate) fn relative_snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    snapshot(dir)
        .into_iter()
        .map(|(p, b)| (p.strip_prefix(dir).unwrap().to_path_buf(), b))
        .collect()
}
