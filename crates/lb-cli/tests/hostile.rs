//! A corpus of hostile manifests (`tests/hostile/*.toml`): sizes beyond every
//! limit, samplers out of range, non-finite claims, special files. `lb plan`
//! on each must fail with a clear, located error naming the field — no panic,
//! no hang, no memory blow-up. Each file's first line says which field the
//! error must name (`# expect: <field>`); files with no such line are not
//! TOML text at all and must be called so.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const LB: &str = env!("CARGO_BIN_EXE_lb");
/// Per manifest: lb plan on a 2-core machine takes milliseconds on a sane
/// file; a hang or a slow path shows as a multiple of this.
const TIME: Duration = Duration::from_secs(20);
/// Virtual memory granted to each `lb plan` (KiB): a manifest that makes lb
/// allocate gigabytes fails the test instead of the machine.
const MEMORY_KIB: u64 = 4 << 20;

struct Outcome {
    code: Option<i32>,
    stderr: String,
    took: Duration,
}

/// `lb plan FILE` under a memory limit and a time limit.
fn plan(file: &Path, results: &Path) -> Outcome {
    let t0 = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_KIB}; exec \"$0\" \"$@\""))
        .arg(LB)
        .arg("--results")
        .arg(results)
        .arg("plan")
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn lb");
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let mut stderr = String::new();
            use std::io::Read;
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut stderr)
                .unwrap();
            return Outcome {
                code: status.code(),
                stderr,
                took: t0.elapsed(),
            };
        }
        if t0.elapsed() > TIME {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{}: lb plan still running after {TIME:?}", file.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/hostile")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

fn check(file: &Path, expect: &str, results: &Path) -> Result<(), String> {
    let o = plan(file, results);
    let name = file.display();
    if o.stderr.contains("panicked") || o.code.is_none() {
        return Err(format!("{name}: crashed ({:?}):\n{}", o.code, o.stderr));
    }
    if o.code == Some(0) {
        return Err(format!(
            "{name}: accepted; expected an error naming {expect}"
        ));
    }
    if !o.stderr.contains("error:") || !o.stderr.contains(expect) {
        return Err(format!(
            "{name}: the error does not name `{expect}`:\n{}",
            o.stderr
        ));
    }
    if o.took > TIME / 2 {
        return Err(format!("{name}: took {:?}", o.took));
    }
    Ok(())
}

#[test]
fn every_hostile_manifest_gets_a_clear_error() {
    let files = corpus();
    assert!(files.len() >= 40, "the corpus has {} files", files.len());
    let results = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for file in &files {
        let first = std::fs::read(file).unwrap_or_default();
        let first = String::from_utf8_lossy(&first);
        let expect = first
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# expect: "))
            .map(str::to_string)
            .unwrap_or_else(|| "not a UTF-8 TOML file".to_string());
        if let Err(e) = check(file, &expect, results.path()) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn special_files_are_refused_without_reading_them() {
    let results = tempfile::tempdir().unwrap();
    // A device that never ends, and a named pipe nobody writes to.
    check(Path::new("/dev/zero"), "not a regular file", results.path()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.toml");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        check(&fifo, "not a regular file", results.path()).unwrap();
    }
    check(dir.path(), "not a regular file", results.path()).unwrap();
}

#[test]
fn thread_counts_beyond_the_machine_are_refused() {
    let results = tempfile::tempdir().unwrap();
    let bad = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/zero-slots.toml"),
    )
    .unwrap();
    let file = results.path().join("ok.toml");
    std::fs::write(&file, bad.replace("slots = 0", "slots = 10_000")).unwrap();
    let out = Command::new(LB)
        .arg("--results")
        .arg(results.path())
        .args(["run", "--threads", "100000"])
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("--threads 100000"), "{stderr}");
}
