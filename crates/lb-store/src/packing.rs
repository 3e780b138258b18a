//! `lb cache pack`: folding a bucket's loose records into its pack
//! ([`crate::pack`] is the pack's format), and finding the loose records the
//! committed cache must not hold.

use crate::cache::{Cache, CacheError};
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
            for name in names {
                let path = dir.join(&name);
                // The record's own checks, then its checksum and body.
                let packed = match crate::maintain::record_problem(cache, &key, &name) {
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
    let folded = &edited.value;
    for (path, sum) in folded {
        // A loose file rewritten since it was read stays: it wins over the
        // pack until the next packing.
        if packed_of(path).is_some_and(|p| p.checksum == *sum) {
            std::fs::remove_file(path).map_err(|e| CacheError {
                path: path.clone(),
                message: format!("cannot remove a packed loose record: {e}"),
            })?;
        } else {
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
    })
}
