//! The build's commit, for `lb --version`: `git rev-parse` of the tree the
//! binary is built from, marked "modified" where that tree differs from the
//! commit; "no git" where it is not a repository (a source archive).

use std::path::Path;
use std::process::Command;

/// The crate's folder, as cargo gives it to this run of the script (not as
/// it was when the script was compiled: one build of it may serve another
/// checkout).
fn here() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into())
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(here())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let here = here();
    let root = Path::new(&here).join("../..");
    // The sources a build reads, and the repository's HEAD and index: any
    // change to them reruns this script, so the mark is never stale.
    for p in ["crates", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={}", root.join(p).display());
    }
    let commit = git(&["rev-parse", "--short=12", "HEAD"]);
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        for p in ["HEAD", "index", "refs", "packed-refs"] {
            println!("cargo:rerun-if-changed={dir}/{p}");
        }
    }
    let described = match commit {
        None => "no git: built outside a repository".to_string(),
        Some(c) => {
            // Only the sources a build reads count: a changed report or
            // record does not make the binary another one.
            let dirty = git(&[
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--",
                "../../crates",
                "../../Cargo.toml",
                "../../Cargo.lock",
            ])
            .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("commit {c}, modified")
            } else {
                format!("commit {c}")
            }
        }
    };
    println!(
        "cargo:rustc-env=LB_BUILD_VERSION={} ({described})",
        env!("CARGO_PKG_VERSION")
    );
}
