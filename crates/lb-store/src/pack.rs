//! Packs: the committed tier of the cache (ARCHITECTURE.md "The results
//! store"). New records are written loose, one file each
//! ([`crate::cache`]); `lb cache pack` ([`crate::packing`]) folds the loose records of a bucket
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

/// A bucket's pack file, in its bucket directory.
pub(crate) const PACK_FILE: &str = "pack.zst";

/// The first line of a pack.
pub(crate) const MAGIC: &str = "lb-pack 1";

/// The zstd level packs are written at. A pack is written once per change
/// of its bucket and read at every run: the strongest level costs seconds
/// when packing and nothing when reading.
const LEVEL: i32 = 19;

/// One record of a pack: its checksum and canonical body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packed {
    /// Its checksum, as a loose record carries it.
    pub checksum: String,
    /// Its canonical JSON without the checksum.
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
            self.checksum.chars().take(12).collect::<String>(),
            &actual[..12]
        ))
    }
}

/// How [`Pack::decode`]'s error begins for a pack whose first line names
/// another pack format (`lb-pack 2`, written by a later lb).
const FOREIGN: &str = "a pack of format";

/// Why a pack of another format is not read or edited.
fn foreign_pack(format: &str) -> String {
    format!(
        "{FOREIGN} `{format}`, which this lb does not read (it reads `{MAGIC}`): it was \
         written by another version of lb; use that version, or a later one"
    )
}

/// Whether a [`Pack::decode`] error is that of a pack of another format:
/// such a pack is not damaged, only foreign, and is left alone.
pub(crate) fn is_foreign(why: &str) -> bool {
    why.starts_with(FOREIGN)
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
        match lines.next() {
            Some(MAGIC) => {}
            Some(other) if other.starts_with("lb-pack ") => {
                return Err(foreign_pack(other));
            }
            _ => return Err(format!("it does not begin with {MAGIC:?}")),
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

    /// The record `name` of `key`, if the pack holds it.
    pub fn get(&self, key: &Key, name: &str) -> Option<&Packed> {
        self.records.get(&(*key, name.to_string()))
    }

    /// Adds or replaces a record. Its name and checksum are single words
    /// (a line is `<key> <name> <checksum> <body>`); the packer only packs
    /// records at their own names, which are.
    pub fn insert(&mut self, key: Key, name: String, packed: Packed) {
        assert!(
            !name.is_empty()
                && !packed.checksum.is_empty()
                && !(name.chars().chain(packed.checksum.chars())).any(char::is_whitespace),
            "a packed record's name and checksum are single words: {name:?} {:?}",
            packed.checksum
        );
        self.records.insert((key, name), packed);
    }

    /// Takes the record `name` of `key` out of the pack.
    pub fn remove(&mut self, key: &Key, name: &str) -> Option<Packed> {
        self.records.remove(&(*key, name.to_string()))
    }

    /// Whether it holds no record.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
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
