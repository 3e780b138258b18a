//! Packs: the committed tier of the cache (ARCHITECTURE.md "The results
//! store"). New records are written loose, one file each
//! ([`crate::cache`]); `lb cache pack` folds the loose records of a bucket
//! (the keys whose hex starts with the same two digits) into its pack,
//! `results/<k0k1>/pack.zst`, and removes the loose files it packed.
//!
//! A pack is a zstd frame (with its content checksum) of text lines:
//!
//! ```text
//! lb-pack 1
//! <key> <name> <checksum> <body>
//! …
//! ```
//!
//! - `<name>` is the record's loose file name (`point.json`, `r0003.json`,
//!   `precision-<h>.json`, `calibration.json`): a packed record keeps its
//!   place, `results/<k0k1>/<key>/<name>`, as a path that readers ask for.
//! - `<body>` is the canonical JSON of the record without its checksum, the
//!   very text its checksum is the SHA-256 of: a reader verifies a packed
//!   record by hashing its line, without re-serialising it.
//! - Lines are sorted by key, then name, and the level is fixed: the same
//!   records give the same bytes, so a pack whose records did not change is
//!   not rewritten and does not churn git.
//!
//! Packing never changes a record: its body, checksum and provenance are
//! the loose file's, bit for bit.

use lb_model::key::{Key, hex, sha256};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A bucket's pack file, in its bucket directory.
pub(crate) const PACK_FILE: &str = "pack.zst";

/// The first line of a pack.
const MAGIC: &str = "lb-pack 1";

/// The zstd level packs are written at. A pack is written once per change
/// of its bucket and read at every run: the strongest level costs seconds
/// when packing and nothing when reading.
const LEVEL: i32 = 19;

/// One record of a pack: its checksum and canonical body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packed {
    pub checksum: String,
    pub body: String,
}

impl Packed {
    /// Whether the body still hashes to the checksum.
    pub(crate) fn sound(&self) -> Result<(), String> {
        let actual = hex(&sha256(self.body.as_bytes()));
        if actual == self.checksum {
            return Ok(());
        }
        Err(format!(
            "checksum mismatch in its pack (stored {}…, body hashes to {}…): the body was \
             modified",
            &self.checksum[..self.checksum.len().min(12)],
            &actual[..12]
        ))
    }
}

/// A bucket's pack, decoded: (key, name) → record.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pack {
    records: BTreeMap<(Key, String), Packed>,
}

impl Pack {
    /// Decodes a pack file's bytes; an error says what is wrong with it
    /// (truncated, not a pack, a malformed line).
    pub fn decode(bytes: &[u8]) -> Result<Pack, String> {
        let text = zstd::stream::decode_all(bytes)
            .map_err(|e| format!("it does not decompress (truncated?): {e}"))?;
        let text = String::from_utf8(text).map_err(|_| "it is not UTF-8 text".to_string())?;
        let mut lines = text.lines();
        if lines.next() != Some(MAGIC) {
            return Err(format!("it does not begin with {MAGIC:?}"));
        }
        let mut records = BTreeMap::new();
        for (i, line) in lines.enumerate() {
            let bad = |what: &str| format!("line {}: {what}", i + 2);
            let mut parts = line.splitn(4, ' ');
            let (Some(k), Some(name), Some(checksum), Some(body)) =
                (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                return Err(bad("not `<key> <name> <checksum> <body>`"));
            };
            let key = Key::parse(k).ok_or_else(|| bad("not a key"))?;
            let packed = Packed {
                checksum: checksum.to_string(),
                body: body.to_string(),
            };
            if records.insert((key, name.to_string()), packed).is_some() {
                return Err(bad("a record packed twice"));
            }
        }
        Ok(Pack { records })
    }

    /// The pack's bytes: its lines in order, compressed at [`LEVEL`].
    /// Deterministic: the same records give the same bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut text =
            String::with_capacity(self.records.values().map(|p| p.body.len() + 160).sum());
        text.push_str(MAGIC);
        text.push('\n');
        for ((key, name), p) in &self.records {
            for part in [
                key.hex().as_str(),
                " ",
                name,
                " ",
                &p.checksum,
                " ",
                &p.body,
                "\n",
            ] {
                text.push_str(part);
            }
        }
        let mut c = zstd::bulk::Compressor::new(LEVEL).expect("a zstd level in range");
        c.include_checksum(true).expect("a zstd parameter");
        c.compress(text.as_bytes())
            .expect("zstd compresses in memory")
    }

    pub fn get(&self, key: &Key, name: &str) -> Option<&Packed> {
        self.records.get(&(*key, name.to_string()))
    }

    pub fn insert(&mut self, key: Key, name: String, packed: Packed) {
        self.records.insert((key, name), packed);
    }

    pub fn remove(&mut self, key: &Key, name: &str) -> Option<Packed> {
        self.records.remove(&(*key, name.to_string()))
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// The keys with a record here, in order.
    pub fn keys(&self) -> Vec<Key> {
        let mut keys: Vec<Key> = self.records.keys().map(|(k, _)| *k).collect();
        keys.dedup();
        keys
    }

    /// The names of `key`'s records, in order.
    pub fn names(&self, key: &Key) -> Vec<String> {
        self.records
            .range((*key, String::new())..)
            .take_while(|((k, _), _)| k == key)
            .map(|((_, n), _)| n.clone())
            .collect()
    }

    /// Every record, in order.
    pub fn records(&self) -> impl Iterator<Item = (&Key, &str, &Packed)> {
        self.records.iter().map(|((k, n), p)| (k, n.as_str(), p))
    }
}

/// A bucket's pack as a process last read it: the file's identity (length,
/// modification time) and its decoding, so that a pack rewritten by
/// another process is read again.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    pub stamp: (u64, std::time::SystemTime),
    pub pack: Result<Arc<Pack>, String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packed(body: &str) -> Packed {
        Packed {
            checksum: hex(&sha256(body.as_bytes())),
            body: body.to_string(),
        }
    }

    #[test]
    fn round_trip_and_determinism() {
        let k = Key::parse(&"ab".repeat(32)).unwrap();
        let mut a = Pack::default();
        a.insert(k, "r0001.json".into(), packed(r#"{"x":1}"#));
        a.insert(k, "point.json".into(), packed(r#"{"p":[1,2]}"#));
        let mut b = Pack::default();
        b.insert(k, "point.json".into(), packed(r#"{"p":[1,2]}"#));
        b.insert(k, "r0001.json".into(), packed(r#"{"x":1}"#));
        assert_eq!(a.encode(), b.encode(), "insertion order must not matter");
        let back = Pack::decode(&a.encode()).unwrap();
        assert_eq!(back, a);
        assert_eq!(back.names(&k), ["point.json", "r0001.json"]);
        assert!(back.get(&k, "point.json").unwrap().sound().is_ok());
    }

    #[test]
    fn damage_is_named() {
        let k = Key::parse(&"cd".repeat(32)).unwrap();
        let mut a = Pack::default();
        a.insert(k, "r0000.json".into(), packed(r#"{"x":1}"#));
        let bytes = a.encode();
        let cut = Pack::decode(&bytes[..bytes.len() - 3]).unwrap_err();
        assert!(cut.contains("does not decompress"), "{cut}");
        let mut edited = a.clone();
        edited.records.values_mut().next().unwrap().body = r#"{"x":2}"#.into();
        let e = edited.get(&k, "r0000.json").unwrap().sound().unwrap_err();
        assert!(e.contains("checksum mismatch"), "{e}");
    }
}

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
pub fn loose_records(cache: &crate::cache::Cache) -> Vec<std::path::PathBuf> {
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
fn key_dirs(cache: &crate::cache::Cache, bucket: &str) -> Vec<std::path::PathBuf> {
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
pub fn pack_all(cache: &crate::cache::Cache) -> Result<Vec<Packing>, crate::cache::CacheError> {
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
pub(crate) fn pack_bucket(
    cache: &crate::cache::Cache,
    bucket: &str,
) -> Result<Packing, crate::cache::CacheError> {
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
            std::fs::rename(&pack_path, &aside).map_err(|e| crate::cache::CacheError {
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
            std::fs::remove_file(&path).map_err(|e| crate::cache::CacheError {
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
