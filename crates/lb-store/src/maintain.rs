//! `lb cache ls | verify | gc`: listing, integrity checks and clean-up of a
//! results directory (docs/MODEL.md §4 "Results").

use crate::cache::{Cache, DrawnRecord, FileKind, PrecisionRecord, Read, classify};
use fs4::fs_std::FileExt;
use lb_model::key::Key;
use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

/// One key directory, summarised.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The key.
    pub key: Key,
    /// "point", "calibration", or "?" when neither record is valid.
    pub kind: String,
    /// The policy's name and its p̂ if any; the calibration's description.
    pub what: String,
    /// The profile its point was planned under.
    pub profile: String,
    /// Valid replication records.
    pub replications: u32,
    /// Files that are not valid records (damaged, leftovers).
    pub problems: u32,
    /// Bytes on disk.
    pub bytes: u64,
}

/// Lists every key directory.
pub fn list(cache: &Cache) -> Vec<Entry> {
    cache
        .keys()
        .into_iter()
        .map(|(key, dir)| {
            let mut e = Entry {
                key,
                kind: "?".into(),
                what: String::new(),
                profile: String::new(),
                replications: 0,
                problems: 0,
                bytes: 0,
            };
            if let Read::Valid(p) = cache.read_point(&key) {
                e.kind = "point".into();
                e.what = match p.point.p_hat() {
                    Some(x) => format!("{} p̂={x}", p.point.policy_name()),
                    None => p.point.policy_name(),
                };
                e.profile = p.point.profile.name().into();
            } else if let Read::Valid(c) = cache.read_calibration(&key) {
                e.kind = "calibration".into();
                e.what = format!("{} → p̂={}", c.calibration.describe(), c.result.p_hat);
                e.profile = c.calibration.point.profile.name().into();
            }
            for name in cache.file_names(&key) {
                let path = dir.join(&name);
                e.bytes += fs::metadata(&path)
                    .map(|m| m.len())
                    .ok()
                    .or_else(|| cache.record_text(&path).map(|t| t.len() as u64))
                    .unwrap_or(0);
                match classify(&name) {
                    FileKind::Replication(r) => match cache.read_replication(&key, r) {
                        Read::Valid(_) => e.replications += 1,
                        _ => e.problems += 1,
                    },
                    FileKind::Damaged | FileKind::Temp | FileKind::Other => e.problems += 1,
                    _ => {}
                }
            }
            e
        })
        .collect()
}

/// The integrity verdict on one file.
#[derive(Debug, Clone)]
pub struct RecordCheck {
    /// The file.
    pub path: PathBuf,
    /// None: a valid record; Some(reason): damaged or a leftover.
    pub problem: Option<String>,
    /// Whether the file is a leftover (temporary file, record moved aside, a
    /// file lb does not write) rather than a damaged record.
    pub leftover: bool,
}

/// Checks every record's checksum and place (no recomputation; that is `lb verify`).
/// A pack that cannot be read is damaged as a whole (its records are
/// recomputed by the next run).
pub fn check_all(cache: &Cache) -> Vec<RecordCheck> {
    let mut out: Vec<RecordCheck> = Vec::new();
    for b in cache.buckets() {
        let path = cache.pack_path(&b);
        match cache.pack(&b) {
            None => {}
            Some(Err(why)) => out.push(RecordCheck {
                problem: Some(if crate::pack::is_foreign(&why) {
                    why
                } else {
                    format!("a damaged pack: {why}")
                }),
                path,
                leftover: false,
            }),
            // Records packed in another bucket's pack: no reader looks there.
            Some(Ok(pack)) => out.extend(
                pack.keys()
                    .into_iter()
                    .filter(|k| crate::cache::bucket_of(k) != b)
                    .map(|k| RecordCheck {
                        path: path.clone(),
                        problem: Some(format!(
                            "it holds records of key {k}, whose bucket is {}: no reader looks \
                             for them here (an edited pack?); `lb run` computes them in their \
                             own bucket",
                            crate::cache::bucket_of(&k)
                        )),
                        leftover: false,
                    }),
            ),
        }
    }
    out.extend(cache.misfiled_keys().into_iter().map(|path| {
        RecordCheck {
            path,
            problem: Some(
                "a key directory under another bucket, where no reader looks (a key's bucket is \
             its first two hex digits): move it there or remove it"
                    .into(),
            ),
            leftover: true,
        }
    }));
    out.extend(cache.packs_aside().into_iter().map(|path| {
        RecordCheck {
            path,
            problem: Some(
                "a damaged pack moved aside (its records are recomputed by the next run; \
             `lb cache gc` removes it)"
                    .into(),
            ),
            leftover: true,
        }
    }));
    out.extend(
        cache
            .keys()
            .into_iter()
            .flat_map(|(key, _)| check_key(cache, &key)),
    );
    out
}

/// Checks the files of one key directory.
pub(crate) fn check_key(cache: &Cache, key: &Key) -> Vec<RecordCheck> {
    let dir = cache.key_dir(key);
    let mut out = Vec::new();
    // Loose files and packed records alike.
    for name in cache.file_names(key) {
        let kind = classify(&name);
        let problem = match kind {
            FileKind::Lock => continue,
            FileKind::Temp => Some("a temporary file (an interrupted or running write)".into()),
            FileKind::Aside => match crate::cache::aside_of(&name) {
                Some((_, true)) => continue,
                _ => Some(
                    "a loose record a killed packing moved aside: the next `lb cache pack` puts \
                     it back"
                        .into(),
                ),
            },
            FileKind::Damaged => Some("a damaged record moved aside".into()),
            FileKind::Other => Some("not a file lb writes".into()),
            _ => cache.record_problem(key, &name).flatten(),
        };
        // A copy under another name is a leftover: nothing reads it.
        let leftover = matches!(kind, FileKind::Temp | FileKind::Damaged | FileKind::Other)
            || problem.as_deref().is_some_and(crate::cache::is_misnamed);
        out.push(RecordCheck {
            path: dir.join(&name),
            problem,
            leftover,
        });
    }
    out
}

/// What `gc` removed (or would remove, with `dry_run`).
#[derive(Debug, Default, Clone)]
pub struct Gc {
    /// Each file removed, with why.
    pub removed: Vec<(PathBuf, String)>,
}

/// Removes leftovers: temporary files of dead processes, damaged records moved
/// aside, damaged records in place, unheld lock files; and, if `keep` is given,
/// every key directory not in it (results no manifest refers to).
pub fn gc(cache: &Cache, keep: Option<&BTreeSet<Key>>, dry_run: bool) -> std::io::Result<Gc> {
    let mut g = Gc::default();
    let rm = |p: PathBuf, why: &str, g: &mut Gc| -> std::io::Result<()> {
        if !dry_run {
            if p.is_dir() {
                fs::remove_dir_all(&p)?;
            } else if p.exists() {
                fs::remove_file(&p)?;
            }
        }
        g.removed.push((p, why.to_string()));
        Ok(())
    };
    // Packed records to drop, each pack rewritten once at the end.
    let mut unpack: Vec<(Key, String)> = Vec::new();
    for t in cache.stale_temps() {
        rm(t, "temporary file of an interrupted write", &mut g)?;
    }
    for (key, dir) in cache.keys() {
        if let Some(keep) = keep
            && !keep.contains(&key)
        {
            // Its packed records go too, loose copies or not.
            for name in cache.file_names(&key) {
                if cache.in_pack(&key, &name) {
                    unpack.push((key, name));
                }
            }
            rm(dir, "no manifest refers to this key", &mut g)?;
            continue;
        }
        for c in check_key(cache, &key) {
            // Temporary files go by their owner (above); a record set aside
            // is put back by packing, never removed.
            let kind = c.path.file_name().map(|n| classify(&n.to_string_lossy()));
            if let Some(why) = c.problem
                && !matches!(kind, Some(FileKind::Temp | FileKind::Aside))
            {
                if cache.is_packed(&c.path) {
                    let name = c.path.file_name().unwrap().to_string_lossy().to_string();
                    unpack.push((key, name));
                }
                rm(c.path, &why, &mut g)?;
            }
        }
        for f in fs::read_dir(&dir).into_iter().flatten().flatten() {
            // Removed while held, so that no one else locks it meanwhile.
            if let Some(_held) = unheld_lock(&f.path()) {
                rm(f.path(), "unheld lock file", &mut g)?;
            }
        }
    }
    for p in cache.packs_aside() {
        rm(p, "a damaged pack moved aside", &mut g)?;
    }
    for p in cache.misfiled_keys() {
        rm(p, "a key directory under another bucket", &mut g)?;
    }
    // A pack's lock, left by a packing that was killed.
    for b in cache.buckets() {
        let lock = crate::cache::lock_path(&cache.pack_path(&b));
        if let Some(_held) = unheld_lock(&lock) {
            rm(lock, "unheld lock file", &mut g)?;
        }
    }
    if !dry_run {
        cache.drop_packed(&unpack).map_err(std::io::Error::other)?;
    }
    Ok(g)
}

/// A lock file nobody holds, locked now: the lock to hold while removing
/// it. A process that opened the file before the removal finds, once it
/// gets the lock, that the file is no longer at its path, and locks the one
/// there ([`crate::cache::still_at`]), so the removal never lets two
/// processes hold one lock.
fn unheld_lock(path: &std::path::Path) -> Option<fs::File> {
    let name = path.file_name()?.to_string_lossy().to_string();
    if classify(&name) != FileKind::Lock {
        return None;
    }
    let file = fs::File::open(path).ok()?;
    (file.try_lock_exclusive().unwrap_or(false) && crate::cache::still_at(&file, path))
        .then_some(file)
}

/// Where the records of a cache came from: whether each leads
/// to a commit in the repository's history, computed from a clean tree,
/// with the hash of the manifests that planned it — or was re-verified so
/// (`lb stamp`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lineage {
    /// Replication, calibration and precision records read.
    pub records: usize,
    /// Computed from a clean tree at a commit in HEAD's history: the record
    /// leads to its code and manifest.
    pub clean_in_history: usize,
    /// Computed from a tree with modified tracked files or manifests.
    pub dirty: usize,
    /// Naming a commit that is not in HEAD's history (a branch since
    /// rewritten or never merged).
    pub not_in_history: usize,
    /// Naming no commit (outside a git repository).
    pub no_commit: usize,
    /// Carrying the hash of the manifests of their run.
    pub with_manifest_hash: usize,
    /// Recomputed bit for bit at a clean commit of HEAD's history, with the
    /// manifests that plan them (`lb stamp`).
    pub verified_in_history: usize,
    /// The records that lead nowhere, with why: what `lb cache lineage
    /// --strict` fails on.
    pub nowhere: Vec<(PathBuf, String)>,
    /// The repository is a shallow clone: a commit missing from it may be
    /// in the project's history all the same.
    pub shallow: bool,
}

/// The provenance of every valid record of a key directory that has one:
/// replications, the calibration, precision outcomes.
pub fn provenances(cache: &Cache, key: &Key) -> Vec<(PathBuf, crate::provenance::Provenance)> {
    let mut out = Vec::new();
    for name in cache.file_names(key) {
        let path = cache.key_dir(key).join(&name);
        let p = match classify(&name) {
            FileKind::Replication(r) => {
                cache.read_replication(key, r).valid().map(|x| x.provenance)
            }
            FileKind::Calibration => cache.read_calibration(key).valid().map(|x| x.provenance),
            FileKind::Precision => cache
                .read_at::<PrecisionRecord>(&path)
                .valid()
                .map(|x| x.provenance),
            FileKind::Drawn => cache
                .read_at::<DrawnRecord>(&path)
                .valid()
                .map(|x| x.provenance),
            _ => None,
        };
        if let Some(p) = p {
            out.push((path, p));
        }
    }
    out
}

/// The lineage of every valid record of `cache`, against the history of
/// the repository at `repo`.
pub fn lineage(cache: &Cache, repo: &std::path::Path) -> Lineage {
    use std::collections::BTreeMap;
    let mut known: BTreeMap<String, bool> = BTreeMap::new();
    let mut in_history = |commit: &str| {
        *known
            .entry(commit.to_string())
            .or_insert_with(|| crate::provenance::in_history(repo, commit).unwrap_or(false))
    };
    let mut l = Lineage {
        shallow: crate::provenance::is_shallow(repo),
        ..Lineage::default()
    };
    for (key, _) in cache.keys() {
        for (path, p) in provenances(cache, &key) {
            l.records += 1;
            l.with_manifest_hash += usize::from(!p.manifest_sha256.is_empty());
            match &p.git_commit {
                None => l.no_commit += 1,
                Some(c) if !in_history(c) => l.not_in_history += 1,
                Some(_) if p.git_dirty == Some(true) => l.dirty += 1,
                Some(_) => l.clean_in_history += 1,
            }
            match crate::provenance::leads_nowhere(&p, &mut in_history) {
                None if p.verified.is_some() => l.verified_in_history += 1,
                None => {}
                Some(why) => l.nowhere.push((path, why)),
            }
        }
    }
    l
}

/// What [`adopt`] did with the records of a recompute.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Adopted {
    /// Records whose body, provenance aside, is the cache's own: the
    /// cache's file is kept as it is, byte for byte.
    pub kept: usize,
    /// Records whose numbers differ from the cache's, or whose cache record
    /// is damaged: the recompute's file replaces it.
    pub replaced: Vec<PathBuf>,
    /// Records the cache did not have.
    pub new: usize,
    /// Files of the recompute that are not valid records, with why: left
    /// where they are.
    pub skipped: Vec<(PathBuf, String)>,
}

/// Takes the records of `from` — a recompute of the same keys, such as
/// `lb reproduce --fresh` writes — into `cache`, rewriting only what
/// changed: a record whose body (its point, summary, outcome or result)
/// is the cache's, provenance aside, leaves the cache's file untouched, so
/// a recompute that reproduces its numbers bit for bit adds nothing to a
/// repository's history (each rewritten record would add its new
/// provenance: about 5 MiB for today's cache). Writes are atomic, as every
/// cache write.
pub fn adopt(cache: &Cache, from: &Cache) -> Result<Adopted, crate::cache::CacheError> {
    let mut a = Adopted::default();
    for (key, dir) in from.keys() {
        for name in from.file_names(&key) {
            let src = dir.join(&name);
            let dst = cache.key_dir(&key).join(&name);
            // The recompute's record must be valid where it stands; it is
            // the cache's when its body, provenance aside, is. Replications
            // are compared as records, whatever each file's format: one of
            // format 1 (its point inside) is the same replication as the
            // recompute's format 2.
            let same_body =
                || matches!((body(from, &src), body(cache, &dst)), (Some(b), Some(c)) if b == c);
            let same = match classify(&name) {
                FileKind::Replication(r) => read_ok(from.read_replication(&key, r)).map(|x| {
                    matches!(cache.read_replication(&key, r), Read::Valid(y)
                        if (&x.key, x.replication, &x.point) == (&y.key, y.replication, &y.point)
                            && serde_json::to_value(&x.summary).ok()
                                == serde_json::to_value(&y.summary).ok())
                }),
                FileKind::Point => read_ok(from.read_point(&key)).map(|_| same_body()),
                FileKind::Calibration => read_ok(from.read_calibration(&key)).map(|_| same_body()),
                FileKind::Precision => {
                    read_ok(from.read_at::<PrecisionRecord>(&src)).map(|_| same_body())
                }
                FileKind::Drawn => read_ok(from.read_at::<DrawnRecord>(&src)).map(|_| same_body()),
                _ => continue,
            };
            let same = match same {
                Ok(same) => same,
                Err(why) => {
                    a.skipped.push((src, why));
                    continue;
                }
            };
            if same {
                a.kept += 1;
                continue;
            }
            // A record that differs, or a damaged one, is replaced.
            let existed = dst.exists() || cache.is_packed(&dst);
            let text = from
                .record_text(&src)
                .ok_or_else(|| crate::cache::CacheError {
                    path: src.clone(),
                    message: "cannot read: it vanished".into(),
                })?;
            crate::cache::atomic_write(&dst, text.as_bytes())?;
            if existed {
                a.replaced.push(dst);
            } else {
                a.new += 1;
            }
        }
    }
    Ok(a)
}

fn read_ok<T>(r: Read<T>) -> Result<T, String> {
    match r {
        Read::Valid(t) => Ok(t),
        Read::Missing => Err("missing".into()),
        Read::Damaged(why) => Err(why),
    }
}

/// A record's body without its provenance, if it is a record whose
/// checksum holds (None: missing or damaged).
fn body(cache: &Cache, path: &std::path::Path) -> Option<serde_json::Value> {
    let mut v = cache.read_at::<serde_json::Value>(path).valid()?;
    v.as_object_mut()?.remove("provenance");
    Some(v)
}
