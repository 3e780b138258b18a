//! `lb cache pack`: folding a bucket's loose records into its pack
//! ([`crate::pack`] is the pack's format), and finding the loose records the
//! committed cache must not hold.

use crate::cache::{Cache, CacheError};
use lb_model::key::Key;

/// What `lb cache pack` did to a bucket.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Packing {
    /// The bucket (the key's first two hex digits).
    pub bucket: String,
    /// Loose records folded into the pack.
    pub packed: usize,
    /// Whether the pack file was written (a pack whose records did not
    /// change keeps its bytes).
    pub rewritten: bool,
    /// Loose record files left as they are, with why: damaged (lb moves
    /// them aside when it reads them), or rewritten while packing.
    pub left: Vec<(std::path::PathBuf, String)>,
    /// A pack that could not be read, moved aside (its records are
    /// recomputed by the next run).
    pub damaged_pack: Option<std::path::PathBuf>,
    /// Why the bucket was not packed, if it was not: its pack is of another
    /// format, or the filesystem has no file locks. Its loose records stay
    /// loose, and are read as they are.
    pub refused: Option<String>,
}

/// The loose record files of a cache (point, replication, precision and
/// calibration records; not locks, temporary files or records moved
/// aside): what `lb cache pack --check` fails on.
pub fn loose_records(cache: &Cache) -> Vec<std::path::PathBuf> {
    use crate::cache::{FileKind, classify};
    let mut out = Vec::new();
    for b in cache.buckets() {
        for dir in key_dirs(cache, &b) {
            for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                let kind = classify(&name);
                if kind.is_record() || kind == FileKind::Aside {
                    out.push(e.path());
                }
            }
        }
    }
    out.sort();
    out
}

/// The key directories of a bucket, sorted: only keys of that bucket (a
/// key directory under another bucket is read by no one, and packed by no
/// one).
fn key_dirs(cache: &Cache, bucket: &str) -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<std::path::PathBuf> = std::fs::read_dir(cache.root().join(bucket))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .and_then(Key::parse)
                .is_some_and(|k| crate::cache::bucket_of(&k) == bucket)
        })
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs
}

/// Folds every bucket's loose records into its pack (buckets in parallel).
pub fn pack_all(cache: &Cache) -> Result<Vec<Packing>, CacheError> {
    use rayon::prelude::*;
    cache
        .buckets()
        .par_iter()
        .map(|b| pack_bucket(cache, b))
        .collect()
}

/// Folds a bucket's loose records into its pack, under the pack's lock:
/// the pack is written whole (atomically) first, and only then are the
/// loose files it holds removed — each only if it still holds the record
/// packed — so a kill at any moment loses nothing, and records a shard
/// writes meanwhile stay loose for the next packing.
pub(crate) fn pack_bucket(cache: &Cache, bucket: &str) -> Result<Packing, CacheError> {
    use crate::cache::packed_of;
    let mut left = Vec::new();
    let edited = cache.edit_pack(bucket, |pack| {
        let mut folded = Vec::new();
        for dir in key_dirs(cache, bucket) {
            let key = Key::parse(&dir.file_name().unwrap().to_string_lossy()).expect("a key");
            let mut names: Vec<String> = std::fs::read_dir(&dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().to_string())
                .collect();
            names.sort();
            restore_asides(&dir, &mut names);
            for name in names {
                let path = dir.join(&name);
                // The record's own checks, then its checksum and body.
                let packed = match cache.record_problem(&key, &name) {
                    None => continue,
                    Some(Some(why)) => Err(why),
                    Some(None) => packed_of(&path).ok_or_else(|| "vanished".to_string()),
                };
                match packed {
                    Ok(p) => {
                        folded.push((path, p.checksum.clone()));
                        pack.insert(key, name, p);
                    }
                    Err(why) => left.push((path, why)),
                }
            }
        }
        Ok(folded)
    })?;
    let edited = match edited {
        crate::cache::PackEdit::Edited(e) => e,
        crate::cache::PackEdit::Refused { why, .. } => {
            return Ok(Packing {
                bucket: bucket.to_string(),
                refused: Some(why),
                ..Packing::default()
            });
        }
    };
    let folded = &edited.value;
    for (path, sum) in folded {
        // A loose file rewritten since it was read stays: it wins over the
        // pack until the next packing.
        if !remove_if_holds(path, sum)? {
            left.push((path.clone(), "rewritten while packing".into()));
        }
    }
    for dir in key_dirs(cache, bucket) {
        // Only an empty directory goes; one that still holds files stays.
        let _ = std::fs::remove_dir(&dir);
    }
    Ok(Packing {
        bucket: bucket.to_string(),
        packed: folded.len(),
        rewritten: edited.rewritten,
        left,
        damaged_pack: edited.aside.clone(),
        refused: None,
    })
}

/// Puts back the loose records a killed packing left aside in `dir`
/// ([`crate::cache::FileKind::Aside`]): one whose own name is free goes
/// back to it; one whose name holds a file now is older than that file
/// (it was moved aside while the name was free) and is removed. Asides
/// of a packing that still runs are left to it. `names` is updated.
fn restore_asides(dir: &std::path::Path, names: &mut Vec<String>) {
    for name in names.clone() {
        let Some((own, false)) = crate::cache::aside_of(&name) else {
            continue;
        };
        let (from, to) = (dir.join(&name), dir.join(&own));
        let Ok(back) = put_back(&from, &to) else {
            continue;
        };
        if std::fs::remove_file(&from).is_ok() {
            names.retain(|n| *n != name);
            if back && !names.contains(&own) {
                names.push(own);
                names.sort();
            }
        }
    }
}

/// Puts the loose record moved to `aside` back at `path`, unless a file
/// stands there now (a newer record, written after it was moved): whether
/// it went back. A hard link never replaces a file; `aside` stays for the
/// caller to remove.
fn put_back(aside: &std::path::Path, path: &std::path::Path) -> std::io::Result<bool> {
    match std::fs::hard_link(aside, path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

/// Removes the loose record at `path` if it holds the record of checksum
/// `sum`, and says whether it did. The file is first renamed to a name of
/// this process's own, then checked there, so that a record another process
/// renames into place meanwhile (a stamp, an adopt) is never the one
/// removed. A file that no longer holds `sum` goes back to `path` unless a
/// newer one stands there already (a hard link fails on an existing name).
fn remove_if_holds(path: &std::path::Path, sum: &str) -> Result<bool, CacheError> {
    use std::io::ErrorKind;
    let err = |what: &str, e: std::io::Error| CacheError {
        path: path.to_path_buf(),
        message: format!("{what}: {e}"),
    };
    let aside = crate::cache::aside_path(path);
    match std::fs::rename(path, &aside) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(err("cannot move a packed loose record aside", e)),
    }
    let holds = crate::cache::packed_of(&aside).is_some_and(|p| p.checksum == sum);
    if !holds {
        match put_back(&aside, path) {
            Ok(_) => {}
            // No hard links here: put it back by renaming.
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::Unsupported | ErrorKind::PermissionDenied
                ) =>
            {
                return std::fs::rename(&aside, path).map(|()| false).map_err(|e| {
                    err(
                        &format!(
                            "cannot put a rewritten loose record back from {}",
                            aside.display()
                        ),
                        e,
                    )
                });
            }
            Err(e) => {
                return Err(err(
                    &format!(
                        "cannot put a rewritten loose record back from {} (move it back by hand)",
                        aside.display()
                    ),
                    e,
                ));
            }
        }
    }
    std::fs::remove_file(&aside).map_err(|e| {
        err(
            &format!(
                "cannot remove a packed loose record, moved to {}",
                aside.display()
            ),
            e,
        )
    })?;
    Ok(holds)
}

#[cfg(test)]
mod tests {
    use super::remove_if_holds;

    fn sealed(body: serde_json::Value) -> (String, String) {
        let sum = crate::cache::checksum_of(&body);
        let mut v = body;
        v["checksum"] = sum.clone().into();
        (v.to_string(), sum)
    }

    /// A loose record is removed only while it holds the record packed; a
    /// rewritten one stays, as it was, and nothing of the packer's is left.
    #[test]
    fn a_loose_record_goes_only_if_it_holds_what_was_packed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r0000.json");
        let (v1, sum1) = sealed(serde_json::json!({"n": 1}));
        let (v2, _) = sealed(serde_json::json!({"n": 2}));
        std::fs::write(&path, &v1).unwrap();
        assert!(remove_if_holds(&path, &sum1).unwrap());
        assert!(!path.exists());
        assert!(!remove_if_holds(&path, &sum1).unwrap(), "gone already");
        std::fs::write(&path, &v2).unwrap();
        assert!(!remove_if_holds(&path, &sum1).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), v2);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("r0000.json")]);
    }

    /// What a packing killed between moving a record aside and putting it
    /// back left: the next packing puts it back if its name is free, and
    /// drops it if a newer record took the name; an aside of a live
    /// packing is left alone.
    #[test]
    fn a_record_left_aside_by_a_killed_packing_is_put_back() {
        let dir = tempfile::tempdir().unwrap();
        let tag = crate::provenance::host_tag();
        let dead = format!(".r0000.json.4000000000.5.{tag}.aside");
        let live = format!(".r0001.json.{}.5.{tag}.aside", std::process::id());
        std::fs::write(dir.path().join(&dead), "v2").unwrap();
        std::fs::write(dir.path().join(&live), "v9").unwrap();
        let mut names = vec![dead.clone(), live.clone()];
        super::restore_asides(dir.path(), &mut names);
        assert_eq!(names, vec![live.clone(), "r0000.json".to_string()]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("r0000.json")).unwrap(),
            "v2"
        );
        assert!(dir.path().join(&live).exists());
        // A newer record holds the name: the aside is the older one.
        std::fs::write(dir.path().join(&dead), "v1").unwrap();
        let mut names = vec![dead.clone(), "r0000.json".to_string()];
        super::restore_asides(dir.path(), &mut names);
        assert_eq!(names, vec!["r0000.json".to_string()]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("r0000.json")).unwrap(),
            "v2"
        );
        assert!(!dir.path().join(&dead).exists());
    }
}
