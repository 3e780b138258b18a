//! `lb cache pack`: folding a bucket's loose records into its pack
//! ([`crate::pack`] is the pack's format), and finding the loose records the
//! committed cache must not hold.

use crate::cache::{Cache, CacheError};
use crate::pack::Pack;
use lb_model::key::Key;

/// What `lb cache pack` did to a bucket.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Packing {
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
                if matches!(
                    classify(&name),
                    FileKind::Point
                        | FileKind::Replication(_)
                        | FileKind::Precision
                        | FileKind::Calibration
                        | FileKind::Drawn
                ) {
                    out.push(e.path());
                }
            }
        }
    }
    out.sort();
    out
}

/// The key directories of a bucket, sorted.
fn key_dirs(cache: &Cache, bucket: &str) -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<std::path::PathBuf> = std::fs::read_dir(cache.root().join(bucket))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_str().and_then(Key::parse).is_some())
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
    use crate::cache::{FileKind, classify, packed_of};
    let mut out = Packing {
        bucket: bucket.to_string(),
        ..Packing::default()
    };
    let pack_path = cache.pack_path(bucket);
    let lock = cache.lock(&pack_path)?;
    let mut pack = match cache.pack_on_disk(bucket)? {
        Ok(p) => p,
        Err(why) => {
            let mut aside = pack_path.as_os_str().to_owned();
            aside.push(".damaged");
            let aside = std::path::PathBuf::from(aside);
            std::fs::rename(&pack_path, &aside).map_err(|e| CacheError {
                path: pack_path.clone(),
                message: format!("cannot move a damaged pack aside ({why}): {e}"),
            })?;
            out.damaged_pack = Some(aside);
            Pack::default()
        }
    };
    let before = pack.clone();
    let mut folded = Vec::new();
    for dir in key_dirs(cache, bucket) {
        let key = Key::parse(&dir.file_name().unwrap().to_string_lossy()).expect("listed as keys");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        names.sort();
        for name in names {
            let path = dir.join(&name);
            // The record's own checks (its place, key, consistency), then
            // its checksum and canonical body.
            let valid = match classify(&name) {
                FileKind::Point => ok(cache.read_point(&key)),
                FileKind::Replication(r) => ok(cache.read_replication(&key, r)),
                FileKind::Calibration => ok(cache.read_calibration(&key)),
                FileKind::Precision => {
                    match cache.read_at::<crate::cache::PrecisionRecord>(&path) {
                        crate::cache::Read::Valid(rec) => ok(cache.read_precision(&key, &rec.rule)),
                        crate::cache::Read::Damaged(why) => Err(why),
                        crate::cache::Read::Missing => Err("vanished".into()),
                    }
                }
                FileKind::Drawn => match cache.read_at::<crate::cache::DrawnRecord>(&path) {
                    crate::cache::Read::Valid(rec) => {
                        ok(cache.read_drawn(&key, &rec.name, rec.replication))
                    }
                    crate::cache::Read::Damaged(why) => Err(why),
                    crate::cache::Read::Missing => Err("vanished".into()),
                },
                _ => continue,
            };
            match valid.and_then(|()| packed_of(&path).ok_or_else(|| "unreadable".to_string())) {
                Ok(p) => {
                    folded.push((path, p.checksum.clone()));
                    pack.insert(key, name, p);
                }
                Err(why) => out.left.push((path, why)),
            }
        }
    }
    out.packed = folded.len();
    if pack != before {
        cache.write_pack(bucket, &pack)?;
        out.rewritten = true;
    }
    for (path, sum) in folded {
        // A loose file rewritten since it was read stays: it wins over the
        // pack until the next packing.
        if packed_of(&path).is_some_and(|p| p.checksum == sum) {
            std::fs::remove_file(&path).map_err(|e| CacheError {
                path: path.clone(),
                message: format!("cannot remove a packed loose record: {e}"),
            })?;
        } else {
            out.left.push((path, "rewritten while packing".into()));
        }
    }
    for dir in key_dirs(cache, bucket) {
        // Only an empty directory goes; one that still holds files stays.
        let _ = std::fs::remove_dir(&dir);
    }
    lock.remove();
    Ok(out)
}

fn ok<T>(r: crate::cache::Read<T>) -> Result<(), String> {
    match r {
        crate::cache::Read::Valid(_) => Ok(()),
        crate::cache::Read::Damaged(why) => Err(why),
        crate::cache::Read::Missing => Err("vanished while packing".into()),
    }
}
