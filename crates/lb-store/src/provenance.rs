//! Provenance of a record (docs/MODEL.md §4): kept in the record, out of the key and out
//! of the summary — it never changes a simulated number.

use serde::{Deserialize, Serialize};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Where and how a record was computed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// The lb version (the workspace's package version).
    pub lb_version: String,
    /// `git rev-parse HEAD` of the repository holding the manifests (else of
    /// the working directory), if it is a git checkout.
    pub git_commit: Option<String>,
    /// Whether tracked files differed from that commit (`git status --porcelain
    /// --untracked-files=no` non-empty), or a manifest of the run is untracked
    /// or modified.
    pub git_dirty: Option<bool>,
    /// The manifests of the run that the commit does not hold as they are:
    /// "experiments/x.toml (untracked)", "… (modified)", "… (outside a git
    /// repository)".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub manifests: Vec<String>,
    /// The SHA-256 of the text of each manifest of the run, by path: the
    /// manifest that planned the record among them, as it was read.
    /// Absent in records computed before lb stored it.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub manifest_sha256: std::collections::BTreeMap<String, String>,
    /// `rustc -V` of the compiler that built lb.
    pub rustc: String,
    /// The host name of the machine.
    pub host: String,
    /// UTC, RFC 3339, when the computation started.
    pub started_at: String,
    /// Wall seconds the computation took, on one thread.
    pub wall_seconds: f64,
    /// CPU seconds its thread spent on it (`CLOCK_THREAD_CPUTIME_ID`): the
    /// same work as `wall_seconds` without the time other processes took
    /// the core. Absent in records computed before lb kept it, and where
    /// the computation spreads over threads (a calibration's probes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_seconds: Option<f64>,
    /// Worker threads of the run.
    pub threads: usize,
    /// The command line of the run.
    pub command: Vec<String>,
    /// A later re-verification (`lb stamp`): the record recomputed
    /// bit for bit at a clean commit, with the manifests that plan it. A
    /// record computed from a modified tree leads to its code and manifest
    /// through it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<Verification>,
}

/// A record recomputed bit for bit by `lb stamp` at `commit`, a
/// clean tree: what a record computed from a modified tree, or before lb
/// kept manifest hashes, needs to lead to its code and its manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verification {
    /// `git rev-parse HEAD` of the clean tree it was recomputed at.
    pub commit: String,
    /// The SHA-256 of the text of every manifest that plans the record's
    /// key at that commit, by path.
    pub manifest_sha256: std::collections::BTreeMap<String, String>,
    /// The version of lb.
    pub lb_version: String,
    /// `rustc -V` of the compiler that built the lb that recomputed it.
    pub rustc: String,
    /// The host name of the machine.
    pub host: String,
    /// UTC, RFC 3339, when it was recomputed.
    pub at: String,
    /// CPU seconds the recompute's thread spent on it, where `lb stamp
    /// --retime` kept them: a record computed before lb kept its own CPU
    /// time is then costed at this one ([`Provenance::seconds`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_seconds: Option<f64>,
}

impl Verification {
    /// A verification at the clean commit of the repository at `dir`, with
    /// no manifest yet; an error says why the tree cannot stamp (modified
    /// tracked files, no repository).
    pub fn at_clean_commit(dir: &Path) -> Result<Verification, String> {
        let (commit, dirty) = repo_state(dir);
        let Some(commit) = commit else {
            return Err(format!(
                "{} is not in a git repository: a verification names the commit it was made at",
                dir.display()
            ));
        };
        if dirty != Some(false) {
            return Err(format!(
                "the tree at {} has modified tracked files: a verification is made at a clean \
                 commit (commit or stash the changes, then stamp)",
                dir.display()
            ));
        }
        Ok(Verification {
            commit,
            manifest_sha256: Default::default(),
            lb_version: env!("CARGO_PKG_VERSION").to_string(),
            rustc: env!("LB_RUSTC_VERSION").to_string(),
            host: hostname(),
            at: rfc3339(SystemTime::now()),
            cpu_seconds: None,
        })
    }
}

/// Why a record's provenance does not lead to a commit of the history and
/// to the manifests that planned it, or None when it does: computed from a
/// clean tree at a commit `in_history`, with its manifests' hashes; or
/// re-verified so (`verified`).
pub(crate) fn leads_nowhere(
    p: &Provenance,
    in_history: &mut dyn FnMut(&str) -> bool,
) -> Option<String> {
    if let Some(v) = &p.verified {
        return match (in_history(&v.commit), v.manifest_sha256.is_empty()) {
            (true, false) => None,
            (false, _) => Some(format!(
                "verified at {}, a commit not in HEAD's history",
                short(&v.commit)
            )),
            (true, true) => Some("verified with no manifest that plans it".into()),
        };
    }
    let Some(commit) = &p.git_commit else {
        return Some("computed outside a git repository, never verified".into());
    };
    if !in_history(commit) {
        return Some(format!(
            "computed at {}, a commit not in HEAD's history, never verified",
            short(commit)
        ));
    }
    if p.git_dirty != Some(false) {
        return Some(format!(
            "computed from a modified tree at {}, never verified at a clean commit",
            short(commit)
        ));
    }
    if p.manifest_sha256.is_empty() {
        return Some("computed before lb kept manifest hashes, never verified".into());
    }
    None
}

fn short(commit: &str) -> &str {
    &commit[..commit.len().min(10)]
}

/// What is the same for every record of one process.
#[derive(Debug, Clone)]
pub struct Context {
    lb_version: String,
    git_commit: Option<String>,
    git_dirty: Option<bool>,
    manifests: Vec<String>,
    manifest_sha256: std::collections::BTreeMap<String, String>,
    rustc: String,
    host: String,
    /// Worker threads of the run.
    pub threads: usize,
    command: Vec<String>,
}

impl Context {
    /// Captures git state (of the working directory's repository), host and
    /// compiler once.
    pub fn capture(threads: usize, command: Vec<String>) -> Context {
        let dir = std::env::current_dir().unwrap_or_else(|_| ".".into());
        let (git_commit, git_dirty) = repo_state(&dir);
        Context {
            lb_version: env!("CARGO_PKG_VERSION").to_string(),
            git_commit,
            git_dirty,
            manifests: Vec::new(),
            manifest_sha256: Default::default(),
            rustc: env!("LB_RUSTC_VERSION").to_string(),
            host: hostname(),
            threads,
            command,
        }
    }

    /// The git state of the repository holding `manifests` (the first one's),
    /// with every manifest the commit does not hold as it is named. Read-only:
    /// git runs with its optional locks off, so the repository's index is not
    /// touched.
    pub fn for_manifests(mut self, manifests: &[std::path::PathBuf]) -> Context {
        let Some(first) = manifests.first() else {
            return self;
        };
        let dir = first
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let (commit, dirty) = repo_state(dir);
        self.git_commit = commit;
        self.git_dirty = dirty;
        self.manifests.clear();
        self.manifest_sha256 = manifests
            .iter()
            .filter_map(|m| {
                let text = std::fs::read(m).ok()?;
                Some((m.display().to_string(), sha256_hex(&text)))
            })
            .collect();
        for m in manifests {
            let d = m
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let name = m.file_name().map(|n| n.to_string_lossy().to_string());
            let Some(name) = name else { continue };
            let state = if git(d, &["rev-parse", "--git-dir"]).is_none() {
                Some("outside a git repository")
            } else if git(d, &["ls-files", "--error-unmatch", "--", &name]).is_none() {
                // Untracked, ignored ones included.
                Some("untracked")
            } else {
                match git(d, &["status", "--porcelain", "--", &name]) {
                    Some(s) if !s.is_empty() => Some("modified"),
                    _ => None,
                }
            };
            if let Some(state) = state {
                self.manifests.push(format!("{} ({state})", m.display()));
                self.git_dirty = Some(true);
            }
        }
        self
    }

    /// The provenance of a computation that started at `start` and took
    /// `wall`, `cpu` of its thread's CPU time where it ran on one thread.
    pub fn stamp(&self, start: SystemTime, wall: Duration, cpu: Option<Duration>) -> Provenance {
        Provenance {
            lb_version: self.lb_version.clone(),
            git_commit: self.git_commit.clone(),
            git_dirty: self.git_dirty,
            manifests: self.manifests.clone(),
            manifest_sha256: self.manifest_sha256.clone(),
            rustc: self.rustc.clone(),
            host: self.host.clone(),
            started_at: rfc3339(start),
            wall_seconds: wall.as_secs_f64(),
            cpu_seconds: cpu.map(|d| d.as_secs_f64()),
            threads: self.threads,
            command: self.command.clone(),
            verified: None,
        }
    }
}

impl Provenance {
    /// What the computation cost on one thread: its CPU time where the record
    /// keeps it, else the CPU time of a re-timed recompute (`lb stamp
    /// --retime`), else its wall time (older records, calibrations).
    pub fn seconds(&self) -> f64 {
        self.cpu().unwrap_or(self.wall_seconds)
    }

    /// Its CPU time, its own or a re-timed recompute's, if it keeps one.
    pub fn cpu(&self) -> Option<f64> {
        self.cpu_seconds
            .or(self.verified.as_ref().and_then(|v| v.cpu_seconds))
    }
}

/// The CPU time the calling thread has used since `start` (a reading of
/// [`thread_cpu`] it took before the work), where the system reports it.
pub fn thread_cpu_since(start: Option<Duration>) -> Option<Duration> {
    start.zip(thread_cpu()).map(|(a, b)| b.saturating_sub(a))
}

/// The CPU time the calling thread has used, where the system reports it.
pub fn thread_cpu() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes one timespec through a valid pointer.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
        ok.then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// `rustc -V` of the compiler that built lb.
pub fn rustc_version() -> &'static str {
    env!("LB_RUSTC_VERSION")
}

/// The SHA-256 of `bytes`, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `commit` is in the history of HEAD of the repository at `dir`
/// (`git merge-base --is-ancestor`): None without git or outside a
/// repository.
pub fn in_history(dir: &Path, commit: &str) -> Option<bool> {
    git(dir, &["rev-parse", "--git-dir"])?;
    Some(
        Command::new("git")
            .arg("--no-optional-locks")
            .arg("-C")
            .arg(dir)
            .args(["merge-base", "--is-ancestor", commit, "HEAD"])
            .env("GIT_OPTIONAL_LOCKS", "0")
            .output()
            .ok()?
            .status
            .success(),
    )
}

/// Whether the repository at `dir` is a shallow clone (`git clone
/// --depth`): its history stops short, so a commit a record names may be
/// missing from it though it is in the project's history.
pub fn is_shallow(dir: &Path) -> bool {
    git(dir, &["rev-parse", "--is-shallow-repository"]).is_some_and(|s| s.trim() == "true")
}

/// `git ARGS` in `dir`, read-only (`--no-optional-locks`): its output, or
/// None outside a repository or without git.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    Command::new("git")
        .arg("--no-optional-locks")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// The commit of the repository at `dir` and whether its tracked files differ.
fn repo_state(dir: &Path) -> (Option<String>, Option<bool>) {
    let commit = git(dir, &["rev-parse", "HEAD"]);
    let dirty = commit
        .as_ref()
        .and_then(|_| git(dir, &["status", "--porcelain", "--untracked-files=no"]))
        .map(|s| !s.is_empty());
    (commit, dirty)
}

/// This machine's tag in the names of its temporary files: the first 8
/// hex digits of the SHA-256 of its host name. On a results directory
/// shared between nodes (a Slurm cluster's), a temporary file is judged
/// abandoned only by the machine whose process wrote it.
pub(crate) fn host_tag() -> &'static str {
    static TAG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TAG.get_or_init(|| {
        lb_model::key::hex(&lb_model::key::sha256(hostname().as_bytes()))[..8].to_string()
    })
}

fn hostname() -> String {
    for f in ["/proc/sys/kernel/hostname", "/etc/hostname"] {
        if let Ok(s) = std::fs::read_to_string(f) {
            let s = s.trim();
            if !s.is_empty() {
                return s.to_string();
            }
        }
    }
    std::env::var("HOSTNAME").unwrap_or_else(|_| "unknown".into())
}

/// `YYYY-MM-DDThh:mm:ssZ` (UTC).
pub fn rfc3339(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil from days (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(951_782_400 + 3_661); // 2000-02-29
        assert_eq!(rfc3339(t), "2000-02-29T01:01:01Z");
    }

    /// A thread's CPU time grows with its own work and not while it sleeps:
    /// what a record's `cpu_seconds` keeps apart from its wall time.
    #[cfg(unix)]
    #[test]
    fn thread_cpu_counts_work_not_waiting() {
        let c0 = thread_cpu().unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let c1 = thread_cpu().unwrap();
        // Work until the clock has counted 10 ms of it (however the
        // machine shares its cores), within a generous bound.
        let t0 = std::time::Instant::now();
        let mut x = 1u64;
        let mut c2 = c1;
        while c2 - c1 < Duration::from_millis(10) && t0.elapsed() < Duration::from_secs(30) {
            for _ in 0..10_000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
            c2 = thread_cpu().unwrap();
        }
        assert!(c1 - c0 < Duration::from_millis(20), "{:?} asleep", c1 - c0);
        assert!(c2 - c1 >= Duration::from_millis(10), "{:?} busy", c2 - c1);
        let p = Provenance {
            cpu_seconds: None,
            wall_seconds: 2.0,
            ..serde_json::from_value(serde_json::json!({
                "lb_version": "0", "git_commit": null, "git_dirty": null, "rustc": "r",
                "host": "h", "started_at": "t", "wall_seconds": 2.0, "threads": 1,
                "command": []
            }))
            .unwrap()
        };
        assert_eq!(p.seconds(), 2.0);
        let p = Provenance {
            cpu_seconds: Some(1.5),
            ..p
        };
        assert_eq!(p.seconds(), 1.5);
    }
}
