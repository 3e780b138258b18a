//! The result cache (docs/MODEL.md §4 "Results"), by default `results/`:
//!
//! ```text
//! results/<k0k1>/<key>/point.json            the resolved point
//! results/<k0k1>/<key>/r0000.json            replication 0 of the point (format 2:
//!                                             without the point, which point.json holds)
//! results/<k0k1>/<key>/precision-<h>.json    outcome of a precision rule (h: its hash)
//! results/<k0k1>/<key>/calibration.json      a message-budget calibration (its own key)
//! results/<k0k1>/<key>/drawn-<name>-r0000.json  a reference drawn on replication 0's own
//!                                             random numbers (the slotted model's `pooled`)
//! results/<k0k1>/pack.zst                     the bucket's packed records ([`crate::pack`])
//! ```
//!
//! - Two tiers, as git stores objects: a record is written loose, one file;
//!   `lb cache pack` folds a bucket's loose records into its pack. Every
//!   reader asks for a record by its place (`results/<k0k1>/<key>/<name>`)
//!   and gets the loose file or, if there is none, the packed record: a
//!   loose record wins, so one written after packing (a recompute, a stamp)
//!   is the one read until the next `lb cache pack` folds it in.
//! - Writes are atomic: a temporary file in the same directory (named
//!   `.<name>.<pid>.<nanos>.tmp`), fsync, rename, fsync of the directory. A kill
//!   at any moment leaves either the old state or the whole new record.
//! - A record carries `checksum`, the SHA-256 of the canonical JSON of the rest
//!   of its body. A record that does not parse, fails its checksum, or does not
//!   match its place (key, replication) is *damaged*: it is reported, moved
//!   aside to `<name>.damaged`, and recomputed — never read.
//! - Concurrent runs: the computation of each record holds an advisory lock
//!   (`flock`) on `<name>.lock`; a second `lb run` skips records locked by the
//!   first, waits for them at the end, and re-checks before computing anything.
//!   Locks are released by the kernel when a process dies; a lock file is
//!   removed once its record is valid.

use crate::pack::{PACK_FILE, Pack, Packed};
use crate::provenance::Provenance;
use fs4::fs_std::FileExt;
use lb_model::canonical::{canonical, canonical_value};
use lb_model::config::Summary;
use lb_model::key::{Key, hex, sha256};
use lb_model::point::Point;
use lb_model::precision::{Outcome, PrecisionRule};
use lb_model::slotted::calibrate::{Calibration, CalibrationResult};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The record format this lb writes and reads.
pub(crate) const FORMAT: u32 = 1;

/// `point.json`: the resolved configuration of a key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointRecord {
    /// The record format's version.
    pub format: u32,
    /// The record's kind, as written in it.
    pub kind: String,
    /// The key of the point it belongs to, in hex.
    pub key: String,
    /// The resolved point.
    pub point: Point,
    /// Where, when and by what it was computed.
    pub provenance: Provenance,
}

/// The format of the replication records this lb writes: 2 leaves out the
/// point's configuration, which `point.json` of the same key directory
/// holds once (format 1, which lb still reads, repeated it in every
/// replication: about 4 KB of a 10 KB record).
pub const REPLICATION_FORMAT: u32 = 2;

/// One replication of a point, as readers see it (with its point, read
/// from `point.json` for a record of format 2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplicationRecord {
    /// The record format's version.
    pub format: u32,
    /// The record's kind, as written in it.
    pub kind: String,
    /// The key of the point it belongs to, in hex.
    pub key: String,
    /// The replication index.
    pub replication: u64,
    /// The resolved point.
    pub point: Point,
    /// The run's summary.
    pub summary: lb_model::config::Summary,
    /// Where, when and by what it was computed.
    pub provenance: Provenance,
}

/// `rNNNN.json` as format 2 stores it: a replication without its point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplicationFile {
    format: u32,
    kind: String,
    key: String,
    replication: u64,
    summary: lb_model::config::Summary,
    provenance: Provenance,
}

/// A replication record as its packed text: the summary kept as text until
/// the point's model says which type it is; the point is the record's own
/// in format 1, its point record's in format 2.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplicationText<'a> {
    format: u32,
    kind: String,
    key: String,
    replication: u64,
    #[serde(default)]
    point: Option<Point>,
    #[serde(borrow)]
    summary: &'a serde_json::value::RawValue,
    provenance: Provenance,
}

/// Why a format-2 replication record cannot be read without its point.
const NO_POINT: &str =
    "its configuration is its key directory's point.json, which is missing or damaged";

/// A record's body with its checksum checked: a loose file's, parsed to a
/// JSON value to be checked; a packed record's canonical text.
enum Body<'a> {
    Value(serde_json::Value),
    Text(&'a str),
}

impl Body<'_> {
    /// The body as a `T`, or why it does not match the record schema.
    fn parse<T: DeserializeOwned>(self) -> Result<T, String> {
        match self {
            Body::Value(v) => serde_json::from_value(v),
            Body::Text(t) => serde_json::from_str(t),
        }
        .map_err(schema)
    }
}

/// Why a record does not match its schema, in the store's words.
fn schema(e: serde_json::Error) -> String {
    format!("it does not match the record schema: {e}")
}

/// `precision-<h>.json`: how a precision rule ended at a point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrecisionRecord {
    /// The record format's version.
    pub format: u32,
    /// The record's kind, as written in it.
    pub kind: String,
    /// The key of the point it belongs to, in hex.
    pub key: String,
    /// The precision rule it decided.
    pub rule: PrecisionRule,
    /// What the rule decided.
    pub outcome: Outcome,
    /// Where, when and by what it was computed.
    pub provenance: Provenance,
}

/// `calibration.json`: a message-budget calibration and the p̂ it chose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalibrationRecord {
    /// The record format's version.
    pub format: u32,
    /// The record's kind, as written in it.
    pub kind: String,
    /// The key of the point it belongs to, in hex.
    pub key: String,
    /// What was calibrated.
    pub calibration: Calibration,
    /// The calibrated value and what it achieved.
    pub result: CalibrationResult,
    /// Where, when and by what it was computed.
    pub provenance: Provenance,
}

/// `drawn-<name>-rNNNN.json`: a named reference drawn on a replication's
/// own random numbers (the slotted model's `pooled`: the resource-pooled
/// queue fed the replication's arrivals and service), computed once with
/// the point's replications for the claims and figures that read it, so
/// that reading it simulates nothing. One number per replication,
/// whatever the metric it is compared with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawnRecord {
    /// The record format's version.
    pub format: u32,
    /// The record's kind, as written in it.
    pub kind: String,
    /// The key of the point it belongs to, in hex.
    pub key: String,
    /// The reference's name.
    pub name: String,
    /// The replication index.
    pub replication: u64,
    /// The reference's value on that replication's random numbers.
    pub value: f64,
    /// Where, when and by what it was computed.
    pub provenance: Provenance,
}

/// The result of looking a record up.
#[derive(Debug, Clone, PartialEq)]
pub enum Read<T> {
    /// No record there.
    Missing,
    /// A record that passed its checks.
    Valid(T),
    /// Present but unusable; the reason says why.
    Damaged(String),
}

impl<T> From<Result<T, String>> for Read<T> {
    fn from(r: Result<T, String>) -> Read<T> {
        match r {
            Ok(t) => Read::Valid(t),
            Err(why) => Read::Damaged(why),
        }
    }
}

impl<T> Read<T> {
    /// The record, if valid.
    pub fn valid(self) -> Option<T> {
        match self {
            Read::Valid(t) => Some(t),
            _ => None,
        }
    }

    /// The part `f` takes of a valid record, the rest as it is.
    pub fn map<U>(&self, f: impl FnOnce(&T) -> U) -> Read<U> {
        match self {
            Read::Valid(t) => Read::Valid(f(t)),
            Read::Missing => Read::Missing,
            Read::Damaged(w) => Read::Damaged(w.clone()),
        }
    }
}

/// An I/O failure of the cache, with the path and a hint.
#[derive(Debug)]
pub struct CacheError {
    /// The file it concerns.
    pub path: PathBuf,
    /// What went wrong, with a hint.
    pub message: String,
}

impl std::fmt::Display for CacheError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for CacheError {}

fn io_err(path: &Path, what: &str, e: io::Error) -> CacheError {
    CacheError {
        path: path.to_path_buf(),
        message: format!("{what}: {e}"),
    }
}

/// How many times [`Cache::acquire`] takes a lock whose file was replaced
/// before it gives up: a holder removes the file once per record, so a
/// live cache needs a few; thousands mean the filesystem cannot tell.
const LOCK_ATTEMPTS: usize = 10_000;

/// A held record lock; released on drop.
#[derive(Debug)]
pub struct LockGuard {
    _file: File,
    path: PathBuf,
    /// False where the filesystem has no file locks: the guard holds
    /// nothing ([`locks_unsupported`]).
    held: bool,
}

/// Whether the open file `f` is the file at `path` now (same device and
/// inode): false once it was removed or replaced.
pub(crate) fn still_at(f: &File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // The path is opened, not only stat'ed: an NFS client revalidates
        // on open, where a stat may answer from its attribute cache.
        let there = File::open(path).and_then(|g| g.metadata());
        matches!((f.metadata(), there),
            (Ok(a), Ok(b)) if a.dev() == b.dev() && a.ino() == b.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = (f, path);
        true
    }
}

impl LockGuard {
    /// Removes the lock file, then releases the lock. Call it once the record
    /// is valid: a process that opened the file before the removal gets the
    /// lock on the orphaned file, finds the record, and computes nothing; one
    /// that comes later creates a fresh lock file and finds the record too.
    pub fn remove(self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// Whether a lock failed because the filesystem has no file locks (ENOLCK,
/// as an NFS mount without a lock manager says; EOPNOTSUPP; ENOSYS), not
/// because of the lock itself.
pub(crate) fn locks_unsupported(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Unsupported
        || e.raw_os_error().is_some_and(|n| NO_LOCKS.contains(&n))
}

/// ENOLCK, ENOSYS and EOPNOTSUPP, as Linux numbers them.
#[cfg(target_os = "linux")]
const NO_LOCKS: [i32; 3] = [37, 38, 95];
#[cfg(not(target_os = "linux"))]
const NO_LOCKS: [i32; 0] = [];

/// How [`Cache::record_problem`] begins for a record file under a name not
/// its own: a copy nothing reads.
const MISNAMED: &str = "misnamed";

/// Whether a record's problem is that it lies under a name not its own
/// (a leftover for `lb cache check`, a failure of `lb cache pack --check`).
pub fn is_misnamed(why: &str) -> bool {
    why.starts_with(MISNAMED)
}

/// What a file in the cache is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A key's `point.json`.
    Point,
    /// A replication record, `rNNNN.json`.
    Replication(u64),
    /// A precision rule's outcome, `precision-*.json`.
    Precision,
    /// A calibration record, `calibration.json`.
    Calibration,
    /// A reference drawn on a replication's random numbers, `drawn-*.json`.
    Drawn,
    /// A lock file, `*.lock`.
    Lock,
    /// A temporary file of a write in progress, `.*.tmp`.
    Temp,
    /// A loose record the packer moved to a name of its own to check it
    /// (`.<name>.<pid>.<nanos>.<host>.aside`): put back by the next
    /// packing if its packer died before it could.
    Aside,
    /// A record moved aside as damaged, `*.damaged`.
    Damaged,
    /// Anything else.
    Other,
}

impl FileKind {
    /// Whether a file of this kind is a record (point, replication,
    /// precision outcome, calibration, drawn reference): what is checked,
    /// read and packed.
    pub fn is_record(self) -> bool {
        matches!(
            self,
            FileKind::Point
                | FileKind::Replication(_)
                | FileKind::Precision
                | FileKind::Calibration
                | FileKind::Drawn
        )
    }
}

/// Classifies a file name of a key directory.
pub fn classify(name: &str) -> FileKind {
    if name.ends_with(".tmp") && name.starts_with('.') {
        FileKind::Temp
    } else if name.ends_with(".aside") && name.starts_with('.') {
        FileKind::Aside
    } else if name.ends_with(".lock") {
        FileKind::Lock
    } else if name.ends_with(".damaged") {
        FileKind::Damaged
    } else if name == "point.json" {
        FileKind::Point
    } else if name == "calibration.json" {
        FileKind::Calibration
    } else if name.starts_with("precision-") && name.ends_with(".json") {
        FileKind::Precision
    } else if name.starts_with("drawn-") && name.ends_with(".json") {
        FileKind::Drawn
    } else if let Some(r) = name
        .strip_prefix('r')
        .and_then(|s| s.strip_suffix(".json"))
        .filter(|s| s.len() >= 4 && s.bytes().all(|b| b.is_ascii_digit()))
    {
        FileKind::Replication(r.parse().unwrap_or(u64::MAX))
    } else {
        FileKind::Other
    }
}

/// A results directory.
#[derive(Debug, Clone)]
pub struct Cache {
    root: PathBuf,
    /// The packs this process has read, by bucket.
    packs: Arc<Mutex<HashMap<String, Loaded>>>,
    /// The points this process has read from valid point records, by key.
    /// A key pins its point (the point hashes to it), so a point once read
    /// is the point of every later replication record of that key.
    points: Arc<Mutex<HashMap<Key, ReadPoint>>>,
    /// The replication records this process has read, by key and index,
    /// with the stamp of the file they were read from: a command that
    /// reads a record several times parses and checks it once, and one
    /// written, moved or packed since is read again.
    replications: Memo<(Key, u64), ReplicationRecord>,
    /// The calibration records this process has read, as `replications`.
    calibrations: Memo<Key, CalibrationRecord>,
    /// The point records this process has read, as `replications`.
    point_records: Memo<Key, PointRecord>,
    /// How many replication records this process has parsed and checked.
    parses: Arc<std::sync::atomic::AtomicU64>,
    /// In a snapshot ([`Cache::snapshot`]), each file's stamp as first
    /// taken, by path; None reads every stamp from the file system.
    stamps: Option<Stamps>,
}

/// A snapshot's stamps, by path (None: no file there).
type Stamps = Arc<Mutex<HashMap<PathBuf, Option<FileStamp>>>>;

/// A point as read from its record, with where it was read from: its
/// loose file (true) or its bucket's pack (false), and that file's stamp.
type ReadPoint = (Point, Option<(bool, FileStamp)>);

/// Records read in this process, each with the stamp of the file it was
/// read from (its loose file, or else its bucket's pack): read again once
/// that file is written, moved or packed.
struct Memo<K, T>(Arc<Mutex<HashMap<K, Stamped<T>>>>);

/// A record as read, with the stamp of the file it was read from.
type Stamped<T> = (Read<T>, Option<(bool, FileStamp)>);

impl<K, T> Default for Memo<K, T> {
    fn default() -> Self {
        Memo(Arc::default())
    }
}

impl<K, T> std::fmt::Debug for Memo<K, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Memo({} records)", self.0.lock().map_or(0, |m| m.len()))
    }
}

impl<K, T> Clone for Memo<K, T> {
    fn clone(&self) -> Self {
        Memo(Arc::clone(&self.0))
    }
}

impl<K: std::hash::Hash + Eq, T: Clone> Memo<K, T> {
    /// The part `f` takes of the record read at `stamp`: from memory if it
    /// was read at that stamp before (no copy of the whole record), else by
    /// `read` (true: it parsed the file).
    fn get<U>(
        &self,
        k: K,
        stamp: Option<(bool, FileStamp)>,
        read: impl FnOnce() -> Read<T>,
        f: impl FnOnce(&T) -> U,
    ) -> (Read<U>, bool) {
        if let Some((r, s)) = self.0.lock().unwrap().get(&k)
            && *s == stamp
        {
            return (r.map(f), false);
        }
        let r = read();
        let part = r.map(f);
        self.0.lock().unwrap().insert(k, (r, stamp));
        (part, true)
    }
}

/// A file's identity as far as a reader needs it: length, modification
/// time, device, inode and change time to the nanosecond (a record or pack
/// rewritten, moved aside or packed changes it: every write is a new file
/// renamed into place).
type FileStamp = (u64, std::time::SystemTime, u64, u64, i64, i64);

/// The stamp of the file at `path`; None if there is none.
fn file_stamp(path: &Path) -> Option<FileStamp> {
    stamp_of(&fs::metadata(path).ok()?).ok()
}

fn stamp_of(m: &fs::Metadata) -> io::Result<FileStamp> {
    #[cfg(unix)]
    let (dev, ino, ctime, ctime_ns) = {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino(), m.ctime(), m.ctime_nsec())
    };
    #[cfg(not(unix))]
    let (dev, ino, ctime, ctime_ns) = (0, 0, 0, 0);
    Ok((m.len(), m.modified()?, dev, ino, ctime, ctime_ns))
}

/// A bucket's pack as this process last read it: the file's stamp and its
/// decoding, so that a pack rewritten by another process is read again.
#[derive(Debug, Clone)]
struct Loaded {
    stamp: FileStamp,
    pack: Result<Arc<Pack>, String>,
}

/// A bucket's pack edited under its lock ([`Cache::edit_pack`]): what the
/// edit returned, whether the pack was written, and where an unreadable
/// pack was moved aside. The lock is held, and its file removed, until this
/// is dropped.
pub(crate) struct Edited<T> {
    pub value: T,
    pub rewritten: bool,
    pub aside: Option<PathBuf>,
    lock: LockGuard,
}

/// What [`Cache::edit_pack`] did: the edit, or why it left the pack alone
/// (a pack of another format; a filesystem without file locks).
pub(crate) enum PackEdit<T> {
    Edited(Edited<T>),
    Refused { path: PathBuf, why: String },
}

impl<T> PackEdit<T> {
    /// The edit, or its refusal as an error.
    pub(crate) fn done(self) -> Result<Edited<T>, CacheError> {
        match self {
            PackEdit::Edited(e) => Ok(e),
            PackEdit::Refused { path, why } => Err(CacheError {
                path,
                message: format!("the pack is left as it is: {why}"),
            }),
        }
    }
}

impl<T> Drop for Edited<T> {
    fn drop(&mut self) {
        // The lock file goes first, then the lock (as LockGuard::remove).
        let _ = fs::remove_file(&self.lock.path);
    }
}

impl Cache {
    /// The cache at `root` (nothing is touched until used).
    pub fn new(root: impl Into<PathBuf>) -> Cache {
        Cache {
            root: root.into(),
            packs: Arc::default(),
            points: Arc::default(),
            replications: Memo::default(),
            calibrations: Memo::default(),
            point_records: Memo::default(),
            parses: Arc::default(),
            stamps: None,
        }
    }

    /// The same cache read as a snapshot: each file's stamp is taken once,
    /// so a record read before is not checked against its file again, and a
    /// record another process writes meanwhile is not seen. For the phases
    /// of a command that only read (tables, figures, the audit, the cost),
    /// after its runs: they then read one state of the store. A write,
    /// a move or a lock through the snapshot forgets every stamp it took.
    pub fn snapshot(&self) -> Cache {
        Cache {
            stamps: Some(Arc::default()),
            ..self.clone()
        }
    }

    /// The stamp of the file at `path` (None: no file), as a snapshot first
    /// took it.
    fn stamp(&self, path: &Path) -> Option<FileStamp> {
        let Some(stamps) = &self.stamps else {
            return file_stamp(path);
        };
        if let Some(s) = stamps.lock().unwrap().get(path) {
            return *s;
        }
        let s = file_stamp(path);
        stamps.lock().unwrap().insert(path.to_path_buf(), s);
        s
    }

    /// Forgets the stamps a snapshot took: the store is being changed.
    fn forget_stamps(&self) {
        if let Some(stamps) = &self.stamps {
            stamps.lock().unwrap().clear();
        }
    }

    /// The results directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Creates the directory if needed and proves it writable, or says why not.
    pub(crate) fn ensure_writable(&self) -> Result<(), CacheError> {
        let hint = "choose a writable results directory with --results DIR";
        ensure_dir(&self.root).map_err(|e| CacheError {
            path: self.root.clone(),
            message: format!("cannot create the results directory ({e}); {hint}"),
        })?;
        let probe = self
            .root
            .join(format!(".write-probe.{}.tmp", std::process::id()));
        let res = File::create(&probe).and_then(|mut f| f.write_all(b"probe"));
        let _ = fs::remove_file(&probe);
        res.map_err(|e| CacheError {
            path: self.root.clone(),
            message: format!("the results directory is not writable ({e}); {hint}"),
        })
    }

    /// The directory of a key.
    pub fn key_dir(&self, key: &Key) -> PathBuf {
        let h = key.hex();
        self.root.join(&h[..2]).join(h)
    }

    /// Where `key`'s point record lives when loose.
    pub fn point_path(&self, key: &Key) -> PathBuf {
        self.key_dir(key).join("point.json")
    }

    /// Where replication `r` of `key` lives when loose.
    pub fn replication_path(&self, key: &Key, r: u64) -> PathBuf {
        self.key_dir(key).join(format!("r{r:04}.json"))
    }

    pub(crate) fn precision_path(&self, key: &Key, rule: &PrecisionRule) -> PathBuf {
        let h = Key::of(rule).expect("finite").hex();
        self.key_dir(key)
            .join(format!("precision-{}.json", &h[..12]))
    }

    pub(crate) fn drawn_path(&self, key: &Key, name: &str, r: u64) -> PathBuf {
        self.key_dir(key).join(format!("drawn-{name}-r{r:04}.json"))
    }

    /// The reference `name` drawn on replication `r` of `key`.
    pub fn read_drawn(&self, key: &Key, name: &str, r: u64) -> Read<DrawnRecord> {
        check(
            self.read_at(&self.drawn_path(key, name, r)),
            |rec: &DrawnRecord| {
                expect_kind(rec.format, &rec.kind, "drawn")?;
                expect_key(&rec.key, key)?;
                if rec.name != name || rec.replication != r {
                    return Err(format!(
                        "it holds {} of replication {} in the place of {name} of {r}",
                        rec.name, rec.replication
                    ));
                }
                if !rec.value.is_finite() {
                    return Err(format!("its value {} is not a number", rec.value));
                }
                Ok(())
            },
        )
    }

    pub(crate) fn write_drawn(&self, rec: &DrawnRecord) -> Result<(), CacheError> {
        let key = Key::parse(&rec.key).expect("a record's key is a key");
        self.forget_stamps();
        write_record(&self.drawn_path(&key, &rec.name, rec.replication), rec)
    }

    /// Where `key`'s calibration record lives when loose.
    pub fn calibration_path(&self, key: &Key) -> PathBuf {
        self.key_dir(key).join("calibration.json")
    }

    /// Reads replication `r` of `key`, checking it belongs there and that
    /// its numbers are ones a correct run can give (the checks of `lb cache
    /// check`, [`lb_model::Summary::consistency`]): a record edited and
    /// resealed with a fresh checksum is damaged to every reader — `lb run`
    /// moves it aside and recomputes it; tables, figures and verdicts never
    /// read it.
    pub fn read_replication(&self, key: &Key, r: u64) -> Read<ReplicationRecord> {
        self.read_replication_part(key, r, ReplicationRecord::clone)
    }

    /// The part `f` takes of replication `r` of `key`, read as
    /// [`Cache::read_replication`] reads it, without copying the whole
    /// record (its point, trace and provenance) where only a part is asked.
    pub fn read_replication_part<U>(
        &self,
        key: &Key,
        r: u64,
        f: impl FnOnce(&ReplicationRecord) -> U,
    ) -> Read<U> {
        let path = self.replication_path(key, r);
        let (read, parsed) = self.kept(
            &self.replications,
            ((*key, r), key, &path),
            || self.parse_replication(key, r, &path),
            f,
        );
        if parsed {
            self.parses
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        read
    }

    /// How many replication records this process has parsed and checked
    /// (a record read again unchanged is not parsed again).
    pub fn replication_parses(&self) -> u64 {
        self.parses.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// [`Cache::read_replication`] from the record's bytes. A packed record
    /// is parsed straight from its text, its summary as the type of its
    /// point's model; a loose one (or a packed one that does not parse so)
    /// through a JSON value.
    fn parse_replication(&self, key: &Key, r: u64, path: &Path) -> Read<ReplicationRecord> {
        let with_point = |f: ReplicationFile| match self.point_of(key) {
            Some(point) => Ok(ReplicationRecord {
                format: f.format,
                kind: f.kind,
                key: f.key,
                replication: f.replication,
                point,
                summary: f.summary,
                provenance: f.provenance,
            }),
            None => Err(NO_POINT.into()),
        };
        let from_value = |v: serde_json::Value| {
            if v.get("format") == Some(&REPLICATION_FORMAT.into()) {
                with_point(serde_json::from_value::<ReplicationFile>(v).map_err(schema)?)
            } else {
                serde_json::from_value::<ReplicationRecord>(v).map_err(schema)
            }
        };
        let read = self.read_body(path, |body| match body {
            Body::Value(v) => from_value(v),
            Body::Text(text) => match serde_json::from_str::<ReplicationText<'_>>(text) {
                Ok(t) if (t.format == REPLICATION_FORMAT) == t.point.is_none() => {
                    let point = match t.point {
                        Some(p) => p,
                        None => self.point_of(key).ok_or(NO_POINT)?,
                    };
                    let summary =
                        Summary::from_json_for(point.model, t.summary.get()).map_err(schema)?;
                    Ok(ReplicationRecord {
                        format: t.format,
                        kind: t.kind,
                        key: t.key,
                        replication: t.replication,
                        point,
                        summary,
                        provenance: t.provenance,
                    })
                }
                _ => from_value(serde_json::from_str(text).map_err(schema)?),
            },
        });
        check(read, |rec| {
            expect_kind_in(
                rec.format,
                &[FORMAT, REPLICATION_FORMAT],
                &rec.kind,
                "replication",
            )?;
            expect_key(&rec.key, key)?;
            // Format 2 took its point from the point record, whose point
            // hashes to the key; format 1 carries its own: the same as the
            // point record's, or else hashing to the key.
            let own = rec.format == FORMAT
                && self.point_of(key).as_ref() != Some(&rec.point)
                && rec.point.key() != *key;
            if own {
                return Err("its configuration does not hash to its key (edited?)".into());
            }
            if rec.replication != r || rec.summary.replication() != r {
                return Err(format!(
                    "it holds replication {} (summary: {}) in the place of {r}",
                    rec.replication,
                    rec.summary.replication()
                ));
            }
            rec.summary
                .consistency()
                .map_err(|why| format!("inconsistent summary: {why}"))
        })
    }

    /// The point of `key`, from its valid point record (read once per
    /// process); None if the record is missing or damaged.
    fn point_of(&self, key: &Key) -> Option<Point> {
        let stamp = self.point_stamp(key);
        if let Some((p, s)) = self.points.lock().unwrap().get(key)
            && *s == stamp
        {
            return Some(p.clone());
        }
        let point = self.read_point(key).valid()?.point;
        self.points
            .lock()
            .unwrap()
            .insert(*key, (point.clone(), stamp));
        Some(point)
    }

    /// Where `key`'s point record is read from now: its loose file, or else
    /// its bucket's pack (None: neither), so that a point record changed,
    /// moved aside or packed is read again.
    fn point_stamp(&self, key: &Key) -> Option<(bool, FileStamp)> {
        self.record_stamp(&self.point_path(key), key)
    }

    /// Where a record of `key` at `path` is read from now: its loose file,
    /// or else its bucket's pack (None: neither).
    fn record_stamp(&self, path: &Path, key: &Key) -> Option<(bool, FileStamp)> {
        let loose = self.stamp(path).map(|s| (true, s));
        loose.or_else(|| {
            self.stamp(&self.pack_path(&bucket_of(key)))
                .map(|s| (false, s))
        })
    }

    /// `key`'s point record, from either tier, parsed once per version of its file.
    pub fn read_point(&self, key: &Key) -> Read<PointRecord> {
        let path = self.point_path(key);
        self.kept(
            &self.point_records,
            (*key, key, &path),
            || self.parse_point(key, &path),
            PointRecord::clone,
        )
        .0
    }

    /// The part `part` takes of a record of `key` at `path`: from `memo` if
    /// the file it was read from is unchanged, else by `parse` (true: it
    /// parsed).
    fn kept<K: std::hash::Hash + Eq, T: Clone, U>(
        &self,
        memo: &Memo<K, T>,
        (k, key, path): (K, &Key, &Path),
        parse: impl FnOnce() -> Read<T>,
        part: impl FnOnce(&T) -> U,
    ) -> (Read<U>, bool) {
        memo.get(k, self.record_stamp(path, key), parse, part)
    }

    /// [`Cache::read_point`] from the record's bytes.
    fn parse_point(&self, key: &Key, path: &Path) -> Read<PointRecord> {
        check(self.read_at::<PointRecord>(path), |rec| {
            expect_kind(rec.format, &rec.kind, "point")?;
            expect_key(&rec.key, key)?;
            if rec.point.key() != *key {
                return Err("its configuration does not hash to its key (edited?)".into());
            }
            Ok(())
        })
    }

    pub(crate) fn read_precision(&self, key: &Key, rule: &PrecisionRule) -> Read<PrecisionRecord> {
        let path = self.precision_path(key, rule);
        check(self.read_at::<PrecisionRecord>(&path), |rec| {
            expect_kind(rec.format, &rec.kind, "precision")?;
            expect_key(&rec.key, key)?;
            if rec.rule != *rule {
                return Err("it holds another precision rule".into());
            }
            Ok(())
        })
    }

    /// `key`'s calibration record, from either tier, parsed once per version of its file.
    pub fn read_calibration(&self, key: &Key) -> Read<CalibrationRecord> {
        let path = self.calibration_path(key);
        self.kept(
            &self.calibrations,
            (*key, key, &path),
            || self.parse_calibration(key, &path),
            CalibrationRecord::clone,
        )
        .0
    }

    /// [`Cache::read_calibration`] from the record's bytes.
    fn parse_calibration(&self, key: &Key, path: &Path) -> Read<CalibrationRecord> {
        check(self.read_at::<CalibrationRecord>(path), |rec| {
            expect_kind(rec.format, &rec.kind, "calibration")?;
            expect_key(&rec.key, key)?;
            if rec.calibration.key() != *key {
                return Err("its calibration does not hash to its key (edited?)".into());
            }
            Ok(())
        })
    }

    pub(crate) fn write_point(
        &self,
        point: &Point,
        provenance: Provenance,
    ) -> Result<(), CacheError> {
        let key = point.key();
        let rec = PointRecord {
            format: FORMAT,
            kind: "point".into(),
            key: key.hex(),
            point: point.clone(),
            provenance,
        };
        self.forget_stamps();
        write_record(&self.point_path(&key), &rec)
    }

    /// Writes a replication in format 2: its point goes to the key
    /// directory's `point.json` (written first, from the replication's
    /// provenance, where missing or damaged), not into the record.
    pub(crate) fn write_replication(&self, rec: &ReplicationRecord) -> Result<(), CacheError> {
        let key = Key::parse(&rec.key).expect("a record's key is a key");
        if rec.point.key() != key {
            return Err(CacheError {
                path: self.replication_path(&key, rec.replication),
                message: "refusing to write a replication whose point does not hash to its key"
                    .into(),
            });
        }
        if !matches!(self.read_point(&key), Read::Valid(_)) {
            self.write_point(&rec.point, rec.provenance.clone())?;
        }
        let file = ReplicationFile {
            format: REPLICATION_FORMAT,
            kind: rec.kind.clone(),
            key: rec.key.clone(),
            replication: rec.replication,
            summary: rec.summary.clone(),
            provenance: rec.provenance.clone(),
        };
        self.forget_stamps();
        write_record(&self.replication_path(&key, rec.replication), &file)
    }

    pub(crate) fn write_precision(&self, rec: &PrecisionRecord) -> Result<(), CacheError> {
        let key = Key::parse(&rec.key).expect("a record's key is a key");
        self.forget_stamps();
        write_record(&self.precision_path(&key, &rec.rule), rec)
    }

    pub(crate) fn write_calibration(&self, rec: &CalibrationRecord) -> Result<(), CacheError> {
        let key = Key::parse(&rec.key).expect("a record's key is a key");
        self.forget_stamps();
        write_record(&self.calibration_path(&key), rec)
    }

    /// Moves a damaged record aside to `<name>.damaged` (replacing an older
    /// one), so that it is kept for inspection and never read again.
    /// A packed record is taken out of its pack and written there; a pack
    /// that cannot be read at all is moved aside whole.
    /// Where it went: None if there was nothing left to move (another
    /// process moved it or replaced it first, or its pack cannot be edited
    /// here, in which case the recomputed record, written loose, is read
    /// over it).
    pub(crate) fn quarantine(&self, path: &Path) -> Result<Option<PathBuf>, CacheError> {
        self.forget_stamps();
        let to = damaged_path(path);
        match fs::rename(path, &to) {
            Ok(()) => Ok(Some(to)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => match self.place(path) {
                Some((key, name)) => self.unpack_damaged(&key, &name, &to),
                None => Ok(None),
            },
            Err(e) => Err(io_err(path, "cannot move a damaged record aside", e)),
        }
    }

    /// Takes `key`'s record `name` out of its pack into `to`, under the
    /// pack's lock, if it is damaged there now and no loose file stands
    /// over it (a valid record another process packed since, or one the
    /// loose file hides, is left where it is); moves the pack aside if it
    /// cannot be read.
    fn unpack_damaged(
        &self,
        key: &Key,
        name: &str,
        to: &Path,
    ) -> Result<Option<PathBuf>, CacheError> {
        let loose = self.key_dir(key).join(name);
        let bucket = bucket_of(key);
        let edited = self.edit_pack(&bucket, |pack| {
            // Judged on the pack as it is under the lock: what this process
            // reads of it must be the record in hand, and damaged.
            let now = pack.get(key, name);
            let read = match self.pack(&bucket) {
                Some(Ok(p)) => p.get(key, name).cloned(),
                _ => None,
            };
            if now.is_none()
                || read.as_ref() != now
                || loose.exists()
                || !matches!(self.record_problem(key, name), Some(Some(_)))
            {
                return Ok(false);
            }
            let p = pack.remove(key, name).expect("just found");
            atomic_write(to, loose_text(&p).as_bytes())?;
            Ok(true)
        })?;
        Ok(match edited {
            PackEdit::Refused { .. } => None,
            PackEdit::Edited(e) => e
                .aside
                .clone()
                .or_else(|| e.value.then(|| to.to_path_buf())),
        })
    }

    /// Edits `bucket`'s pack under its lock: reads it as on disk (one that
    /// does not decode is moved aside to `pack.zst.damaged` and read as
    /// empty), lets `edit` change it, writes it back if it changed (removes
    /// it if empty), and forgets what this process had read of it. The
    /// lock is held until the result is dropped.
    pub(crate) fn edit_pack<T>(
        &self,
        bucket: &str,
        edit: impl FnOnce(&mut Pack) -> Result<T, CacheError>,
    ) -> Result<PackEdit<T>, CacheError> {
        let path = self.pack_path(bucket);
        let lock = self.lock(&path)?;
        if !lock.held {
            lock.remove();
            return Ok(PackEdit::Refused {
                path,
                why: "this filesystem has no file locks (an NFS mount without a lock \
                      manager?), and a pack is read, changed and written whole, so two \
                      unlocked edits could lose records. The records stay loose and are read \
                      as they are; pack them where the results directory has file locks \
                      (`lb cache pack`)"
                    .into(),
            });
        }
        let (mut pack, aside) = match fs::read(&path) {
            Ok(bytes) => match Pack::decode(&bytes) {
                Ok(pack) => (pack, None),
                Err(why) => {
                    if crate::pack::is_foreign(&why) {
                        lock.remove();
                        return Ok(PackEdit::Refused { path, why });
                    }
                    let aside = unused_damaged_path(&path);
                    fs::rename(&path, &aside).map_err(|e| {
                        io_err(
                            &path,
                            &format!("cannot move a damaged pack aside ({why})"),
                            e,
                        )
                    })?;
                    (Pack::default(), Some(aside))
                }
            },
            Err(e) if e.kind() == io::ErrorKind::NotFound => (Pack::default(), None),
            Err(e) => return Err(io_err(&path, "cannot read a pack", e)),
        };
        let before = pack.clone();
        let value = edit(&mut pack)?;
        let rewritten = pack != before;
        if rewritten {
            self.write_pack(bucket, &pack)?;
        }
        self.forget_stamps();
        self.packs.lock().unwrap().remove(bucket);
        Ok(PackEdit::Edited(Edited {
            value,
            rewritten,
            aside,
            lock,
        }))
    }

    /// The record `name` of `key`, read from either tier and held to its own
    /// checks (checksum, place, consistency): `Some(None)` if valid,
    /// `Some(Some(why))` if damaged; None if `name` is no record (a lock, a
    /// temporary file, a record moved aside). What `lb cache check` reports
    /// and what `lb cache pack` packs.
    pub(crate) fn record_problem(&self, key: &Key, name: &str) -> Option<Option<String>> {
        let path = self.key_dir(key).join(name);
        let kind = classify(name);
        if !kind.is_record() {
            return None;
        }
        // A name lb writes is one word of printable characters: a space or
        // a control character would break a pack's line.
        if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Some(Some(format!(
                "{MISNAMED}: no record of lb has a space or control character in its name; \
                 remove the copy"
            )));
        }
        // A record is read at its own name only: a copy under another name
        // (`r00003.json`, `precision-… copy.json`) is no record of this self.
        let named = |own: PathBuf, read: &dyn Fn() -> Option<String>| {
            let own = own.file_name().map(|n| n.to_string_lossy().to_string());
            match own {
                Some(own) if own != name => Some(format!(
                    "{MISNAMED}: the record it holds is named {own}; remove the copy"
                )),
                _ => read(),
            }
        };
        Some(match kind {
            FileKind::Point => damaged(self.read_point(key)),
            FileKind::Replication(r) => named(self.replication_path(key, r), &|| {
                damaged(self.read_replication(key, r))
            }),
            FileKind::Calibration => damaged(self.read_calibration(key)),
            FileKind::Precision => match self.read_at::<PrecisionRecord>(&path) {
                Read::Valid(rec) if rec.key == key.hex() => {
                    named(self.precision_path(key, &rec.rule), &|| {
                        damaged(self.read_precision(key, &rec.rule))
                    })
                }
                Read::Valid(rec) => Some(format!("it names key {}", rec.key)),
                Read::Damaged(why) => Some(why),
                Read::Missing => None,
            },
            FileKind::Drawn => match self.read_at::<DrawnRecord>(&path) {
                Read::Valid(rec) => {
                    named(self.drawn_path(key, &rec.name, rec.replication), &|| {
                        damaged(self.read_drawn(key, &rec.name, rec.replication))
                    })
                }
                Read::Damaged(why) => Some(why),
                Read::Missing => None,
            },
            FileKind::Lock
            | FileKind::Temp
            | FileKind::Aside
            | FileKind::Damaged
            | FileKind::Other => return None,
        })
    }

    /// What is wrong with the record file at `path`, by its place
    /// ([`Cache::record_problem`]); None if it is valid or not a record.
    pub fn place_problem(&self, path: &Path) -> Option<String> {
        let (key, name) = self.place(path)?;
        self.record_problem(&key, &name).flatten()
    }

    /// Key directories filed under a bucket not their own
    /// (`results/<kk>/<key>` with `<kk>` not the key's first two hex
    /// digits): no reader looks there.
    pub fn misfiled_keys(&self) -> Vec<PathBuf> {
        self.bucket_entries()
            .into_iter()
            .filter(|(b, name, _)| Key::parse(name).is_some_and(|k| bucket_of(&k) != *b))
            .map(|(_, _, path)| path)
            .collect()
    }

    /// Every entry of every bucket directory (key directories, packs and
    /// what lies beside them): (bucket, name, path), sorted by path.
    fn bucket_entries(&self) -> Vec<(String, String, PathBuf)> {
        let mut out: Vec<(String, String, PathBuf)> = self
            .buckets()
            .into_iter()
            .flat_map(|b| {
                fs::read_dir(self.root.join(&b))
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(move |e| {
                        let name = e.file_name().to_string_lossy().to_string();
                        (b.clone(), name, e.path())
                    })
            })
            .collect();
        out.sort_by(|x, y| x.2.cmp(&y.2));
        out
    }

    /// The pack file of a bucket (the first two hex digits of its keys).
    pub fn pack_path(&self, bucket: &str) -> PathBuf {
        self.root.join(bucket).join(PACK_FILE)
    }

    /// Every bucket directory, sorted.
    pub fn buckets(&self) -> Vec<String> {
        let mut out: Vec<String> = fs::read_dir(&self.root)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| n.len() == 2 && n.bytes().all(|b| b.is_ascii_hexdigit()))
            .collect();
        out.sort();
        out
    }

    /// The pack of `bucket` as the file is now, read once per version of
    /// the file: None without a pack, an error if it cannot be read.
    pub fn pack(&self, bucket: &str) -> Option<Result<Arc<Pack>, String>> {
        let path = self.pack_path(bucket);
        let stamp = self.stamp(&path)?;
        if let Some(l) = self.packs.lock().unwrap().get(bucket)
            && l.stamp == stamp
        {
            return Some(l.pack.clone());
        }
        // The stamp and the bytes of one open file.
        let read = File::open(&path).and_then(|mut f| {
            let stamp = stamp_of(&f.metadata()?)?;
            let mut bytes = Vec::new();
            io::Read::read_to_end(&mut f, &mut bytes)?;
            Ok((stamp, bytes))
        });
        let (stamp, pack) = match read {
            Ok((stamp, bytes)) => (stamp, Pack::decode(&bytes).map(Arc::new)),
            // Not kept: a read that failed (too many open files, say) says
            // nothing of the pack, and the next reader tries again.
            Err(e) => return Some(Err(format!("cannot read it: {e}"))),
        };
        let loaded = Loaded {
            stamp,
            pack: pack.clone(),
        };
        self.packs
            .lock()
            .unwrap()
            .insert(bucket.to_string(), loaded);
        Some(pack)
    }

    /// Writes a bucket's pack atomically (removes it when empty).
    fn write_pack(&self, bucket: &str, pack: &Pack) -> Result<(), CacheError> {
        let path = self.pack_path(bucket);
        if pack.is_empty() {
            return match fs::remove_file(&path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => {
                    Err(io_err(&path, "cannot remove an empty pack", e))
                }
                _ => Ok(()),
            };
        }
        atomic_write(&path, &pack.encode())
    }

    /// The key and record name of a place in this cache
    /// (`<root>/<k0k1>/<key>/<name>`).
    fn place(&self, path: &Path) -> Option<(Key, String)> {
        let rel = path.strip_prefix(&self.root).ok()?;
        let parts: Vec<&str> = rel.iter().map(|c| c.to_str()).collect::<Option<_>>()?;
        match parts[..] {
            [bucket, key, name] => {
                let key = Key::parse(key).filter(|k| bucket_of(k) == bucket)?;
                Some((key, name.to_string()))
            }
            _ => None,
        }
    }

    /// Reads the record at `path` (checksum first, then its schema): the
    /// loose file, or else the packed record of that place.
    pub fn read_at<T: DeserializeOwned>(&self, path: &Path) -> Read<T> {
        self.read_body(path, |b| b.parse())
    }

    /// The record at `path` with its checksum checked, turned into a `T` by
    /// `parse` (which says why it does not match the record schema): a loose
    /// file gives its body as a JSON value, a pack its canonical text.
    fn read_body<T>(
        &self,
        path: &Path,
        parse: impl FnOnce(Body<'_>) -> Result<T, String>,
    ) -> Read<T> {
        if let Some(body) = loose_body(path) {
            return Read::from(body.and_then(|v| parse(Body::Value(v))));
        }
        let Some((key, name)) = self.place(path) else {
            return Read::Missing;
        };
        let pack = match self.pack(&bucket_of(&key)) {
            None => return Read::Missing,
            Some(Err(why)) => return Read::Damaged(format!("its pack is damaged: {why}")),
            Some(Ok(pack)) => pack,
        };
        let Some(p) = pack.get(&key, &name) else {
            return Read::Missing;
        };
        if let Err(why) = p.sound() {
            return Read::Damaged(why);
        }
        Read::from(parse(Body::Text(&p.body)))
    }

    /// The record at `path` as its loose file's text (with its checksum),
    /// from either tier; None if there is no such record.
    pub fn record_text(&self, path: &Path) -> Option<String> {
        if let Ok(text) = fs::read_to_string(path) {
            return Some(text);
        }
        let (key, name) = self.place(path)?;
        let pack = self.pack(&bucket_of(&key))?.ok()?;
        pack.get(&key, &name).map(loose_text)
    }

    /// Whether `key`'s record `name` is in its bucket's pack (whether or
    /// not a loose file stands over it).
    pub(crate) fn in_pack(&self, key: &Key, name: &str) -> bool {
        matches!(self.pack(&bucket_of(key)), Some(Ok(p)) if p.get(key, name).is_some())
    }

    /// Damaged packs moved aside (`<kk>/pack.zst*.damaged`).
    pub fn packs_aside(&self) -> Vec<PathBuf> {
        self.bucket_entries()
            .into_iter()
            .filter(|(_, name, _)| name.starts_with(PACK_FILE) && name.ends_with(".damaged"))
            .map(|(_, _, path)| path)
            .collect()
    }

    /// Whether the record at `path` is packed (and has no loose file).
    pub(crate) fn is_packed(&self, path: &Path) -> bool {
        !path.exists()
            && self
                .place(path)
                .is_some_and(|(key, name)| self.in_pack(&key, &name))
    }

    /// Drops records from their packs (`lb cache gc`), a pack rewritten
    /// once under its lock.
    pub fn drop_packed(&self, records: &[(Key, String)]) -> Result<(), CacheError> {
        self.forget_stamps();
        let mut by_bucket: std::collections::BTreeMap<String, Vec<&(Key, String)>> =
            Default::default();
        for r in records {
            by_bucket.entry(bucket_of(&r.0)).or_default().push(r);
        }
        for (bucket, rs) in by_bucket {
            self.edit_pack(&bucket, |pack| {
                for (key, name) in rs {
                    pack.remove(key, name);
                }
                Ok(())
            })?
            .done()?;
        }
        Ok(())
    }

    fn lock_file(&self, record: &Path) -> Result<(File, PathBuf), CacheError> {
        let dir = record.parent().expect("records live in key directories");
        let p = lock_path(record);
        let open = || {
            ensure_dir(dir)?;
            OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&p)
        };
        // A key directory `lb cache pack` removed in between is made again.
        let f = open()
            .or_else(|_| open())
            .map_err(|e| io_err(&p, "cannot open a lock file", e))?;
        Ok((f, p))
    }

    /// Tries to take the lock of the record at `record`; None if another
    /// process holds it. On a filesystem without file locks (some NFS
    /// mounts: [`locks_unsupported`]) it goes on unlocked: records are
    /// written atomically whatever happens, so two processes computing the
    /// same record only waste work, and shards never do (each owns its own).
    pub(crate) fn try_lock(&self, record: &Path) -> Result<Option<LockGuard>, CacheError> {
        self.forget_stamps();
        self.acquire(record, false)
    }

    /// Waits for the lock of the record at `record` (unlocked where the
    /// filesystem has no locks, as [`Cache::try_lock`]).
    pub fn lock(&self, record: &Path) -> Result<LockGuard, CacheError> {
        self.forget_stamps();
        Ok(self
            .acquire(record, true)?
            .expect("a lock waited for is taken"))
    }

    /// Takes the lock of `record`, waiting for it if `wait`. A lock is
    /// held only on the lock file that is at its path: a holder removes the
    /// file before it lets go ([`LockGuard::remove`], [`Edited`], `lb cache
    /// gc`), so a process that was waiting on the removed file gets a lock
    /// on nothing, while a newcomer locks a fresh file. Such a lock is let
    /// go and taken again on the file now there, so no two processes ever
    /// hold the lock of one record or pack at once.
    fn acquire(&self, record: &Path, wait: bool) -> Result<Option<LockGuard>, CacheError> {
        for _ in 0..LOCK_ATTEMPTS {
            let (f, path) = self.lock_file(record)?;
            let taken = if wait {
                f.lock_exclusive().map(|()| true)
            } else {
                f.try_lock_exclusive()
            };
            match taken {
                Ok(true) if still_at(&f, &path) => {
                    return Ok(Some(LockGuard {
                        _file: f,
                        path,
                        held: true,
                    }));
                }
                // The file was removed under us: lock the one there now.
                Ok(true) => continue,
                Ok(false) => return Ok(None),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
                Err(e) if locks_unsupported(&e) => {
                    return Ok(Some(LockGuard {
                        _file: f,
                        path,
                        held: false,
                    }));
                }
                Err(e) => return Err(io_err(record, "cannot lock", e)),
            }
        }
        Err(CacheError {
            path: lock_path(record),
            message: format!(
                "cannot lock: {LOCK_ATTEMPTS} times the lock file was no longer the file at its \
                 path once locked. Either it is removed and made again without pause, or this \
                 filesystem does not keep a file's identity (some CIFS or overlay mounts): use \
                 a results directory on a local filesystem (--results DIR)"
            ),
        })
    }

    /// The names of the files of a key's directory, sorted (none if it
    /// does not exist).
    pub fn file_names(&self, key: &Key) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.key_dir(key))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        if let Some(Ok(pack)) = self.pack(&bucket_of(key)) {
            names.extend(pack.names(key));
        }
        names.sort();
        names.dedup();
        names
    }

    /// Every key directory: (key, directory).
    pub fn keys(&self) -> Vec<(Key, PathBuf)> {
        let mut out = Vec::new();
        let Ok(tops) = fs::read_dir(&self.root) else {
            return out;
        };
        for top in tops.flatten() {
            let Ok(subs) = fs::read_dir(top.path()) else {
                continue;
            };
            let bucket = top.file_name().to_string_lossy().to_string();
            for sub in subs.flatten() {
                // A key filed under another bucket is no key of this cache
                // (`lb cache check` names it).
                if let Some(k) = sub.file_name().to_str().and_then(Key::parse)
                    && bucket_of(&k) == bucket
                {
                    out.push((k, sub.path()));
                }
            }
            if let Some(Ok(pack)) = self.pack(&bucket) {
                out.extend(
                    pack.keys()
                        .into_iter()
                        .filter(|k| bucket_of(k) == bucket)
                        .map(|k| (k, self.key_dir(&k))),
                );
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Keys whose hex starts with `prefix`.
    pub fn find_prefix(&self, prefix: &str) -> Vec<Key> {
        let p = prefix.to_ascii_lowercase();
        self.keys()
            .into_iter()
            .map(|(k, _)| k)
            .filter(|k| k.hex().starts_with(&p))
            .collect()
    }

    /// The replication indices present as files for `key` (valid or not).
    pub fn replication_files(&self, key: &Key) -> Vec<u64> {
        self.file_names(key)
            .iter()
            .filter_map(|n| match classify(n) {
                FileKind::Replication(r) => Some(r),
                _ => None,
            })
            .collect()
    }

    /// Temporary files left by processes that no longer run.
    pub(crate) fn stale_temps(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut consider = |p: PathBuf| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if classify(name) == FileKind::Temp && !owner_alive(name) {
                out.push(p);
            }
        };
        for e in fs::read_dir(&self.root).into_iter().flatten().flatten() {
            consider(e.path());
        }
        for (_, _, path) in self.bucket_entries() {
            consider(path);
        }
        for (_, dir) in self.keys() {
            for e in fs::read_dir(dir).into_iter().flatten().flatten() {
                consider(e.path());
            }
        }
        out
    }
}

/// The bucket of a key: its first two hex digits.
pub fn bucket_of(key: &Key) -> String {
    key.hex()[..2].to_string()
}

/// Where a damaged record or pack is moved aside: `<name>.damaged`.
fn damaged_path(path: &Path) -> PathBuf {
    let mut to = path.as_os_str().to_owned();
    to.push(".damaged");
    PathBuf::from(to)
}

/// Where a damaged pack is moved aside: `pack.zst.damaged`, or
/// `pack.zst.<n>.damaged` when earlier ones are there (each keeps records
/// that are in no other file).
fn unused_damaged_path(path: &Path) -> PathBuf {
    std::iter::once(damaged_path(path))
        .chain((2..).map(|n| {
            let mut p = path.as_os_str().to_owned();
            p.push(format!(".{n}.damaged"));
            PathBuf::from(p)
        }))
        .find(|p| !p.exists())
        .expect("some name is free")
}

/// The lock file of a record or pack: `<name>.lock` beside it.
pub(crate) fn lock_path(record: &Path) -> PathBuf {
    let mut p = record.as_os_str().to_owned();
    p.push(".lock");
    PathBuf::from(p)
}

/// A packed record as its loose file is written ([`write_record`]): the
/// body with its checksum, pretty-printed. The text of a loose record
/// packed and taken out again is the file's, byte for byte.
pub(crate) fn loose_text(p: &Packed) -> String {
    let Ok(serde_json::Value::Object(v)) = serde_json::from_str(&p.body) else {
        // A body that no longer parses: kept as found, for inspection.
        return format!("{}\n{}\n", p.checksum, p.body);
    };
    sealed_text(v, &p.checksum)
}

/// A record's body with its checksum, as a loose file holds it: pretty
/// JSON, keys in order, and a final newline.
fn sealed_text(mut body: serde_json::Map<String, serde_json::Value>, checksum: &str) -> String {
    body.insert("checksum".into(), checksum.into());
    let mut text = serde_json::to_string_pretty(&body).expect("a JSON value prints");
    text.push('\n');
    text
}

/// A loose record file as a packed record: its checksum and canonical body.
/// None if it is not a record whose checksum holds.
pub(crate) fn packed_of(path: &Path) -> Option<Packed> {
    unseal(&fs::read(path).ok()?).ok().map(|(_, packed)| packed)
}

/// Whether the process that owns a temporary file
/// (`.<name>.<pid>.<nanos>.<host>.tmp`, or `.<name>.<pid>.<nanos>.tmp` as
/// lb wrote them before the host tag) still runs. Owners on another
/// machine, and unknown owners, count as alive: this machine cannot see
/// their processes.
fn owner_alive(name: &str) -> bool {
    let Some(rest) = name
        .strip_suffix(".tmp")
        .or_else(|| name.strip_suffix(".aside"))
    else {
        return true;
    };
    let parts: Vec<&str> = rest.rsplitn(4, '.').collect();
    let tagged = parts.len() == 4
        && parts[0].len() == 8
        && parts[0].bytes().all(|b| b.is_ascii_hexdigit())
        && parts[1].bytes().all(|b| b.is_ascii_digit());
    if tagged && parts[0] != crate::provenance::host_tag() {
        return true;
    }
    // [nanos, pid, …] untagged; [tag, nanos, pid, …] tagged.
    let Some(pid) = parts
        .get(if tagged { 2 } else { 1 })
        .and_then(|s| s.parse::<u32>().ok())
    else {
        return true;
    };
    if !Path::new("/proc/self").exists() {
        return true;
    }
    pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists()
}

fn expect_kind(format: u32, kind: &str, want: &str) -> Result<(), String> {
    expect_kind_in(format, &[FORMAT], kind, want)
}

/// [`expect_kind`] for a kind this lb reads in several formats.
fn expect_kind_in(format: u32, readable: &[u32], kind: &str, want: &str) -> Result<(), String> {
    if !readable.contains(&format) {
        let formats: Vec<String> = readable.iter().map(u32::to_string).collect();
        return Err(format!(
            "record format {format}, but this lb reads format {}",
            formats.join(" or ")
        ));
    }
    if kind != want {
        return Err(format!(
            "it is a {kind} record where a {want} record belongs"
        ));
    }
    Ok(())
}

fn expect_key(found: &str, key: &Key) -> Result<(), String> {
    if found != key.hex() {
        return Err(format!("it names key {found} but lies under {key}"));
    }
    Ok(())
}

fn check<T>(r: Read<T>, f: impl FnOnce(&T) -> Result<(), String>) -> Read<T> {
    match r {
        Read::Valid(t) => match f(&t) {
            Ok(()) => Read::Valid(t),
            Err(e) => Read::Damaged(e),
        },
        other => other,
    }
}

/// The checksum of a record body: SHA-256 of its canonical JSON, in hex.
pub fn checksum_of(body: &serde_json::Value) -> String {
    hex(&sha256(canonical_value(body).as_bytes()))
}

/// Reads a record: parses it, verifies its checksum, then its schema.
pub fn read_record<T: DeserializeOwned>(path: &Path) -> Read<T> {
    match loose_body(path) {
        None => Read::Missing,
        Some(body) => Read::from(body.and_then(|v| Body::Value(v).parse())),
    }
}

/// The body of the loose record at `path`, its checksum checked; None if
/// there is no such file, or why it cannot be read or is damaged.
fn loose_body(path: &Path) -> Option<Result<serde_json::Value, String>> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
        Err(e) => return Some(Err(format!("unreadable: {e}"))),
    };
    Some(unseal(&bytes).map(|(v, _)| v))
}

/// A loose record's bytes checked against their checksum: the body (the
/// record without its checksum) as a value and as its packed form; or why
/// they are damaged.
fn unseal(bytes: &[u8]) -> Result<(serde_json::Value, Packed), String> {
    let mut v: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("not valid JSON (truncated?): {e}"))?;
    let obj = v.as_object_mut().ok_or("not a JSON object")?;
    let Some(serde_json::Value::String(checksum)) = obj.remove("checksum") else {
        return Err("it has no checksum".into());
    };
    let packed = Packed {
        checksum,
        body: canonical_value(&v),
    };
    packed.sound().map_err(|_| {
        let actual = checksum_of(&v);
        format!(
            "checksum mismatch (stored {}…, body hashes to {}…): the body was modified",
            packed.checksum.chars().take(12).collect::<String>(),
            &actual[..12]
        )
    })?;
    Ok((v, packed))
}

/// Writes a record atomically with its checksum; refuses a body that would
/// not read back as itself.
pub(crate) fn write_record<T: Serialize + DeserializeOwned + PartialEq>(
    path: &Path,
    body: &T,
) -> Result<(), CacheError> {
    let canon = canonical(body).map_err(|e| CacheError {
        path: path.to_path_buf(),
        message: format!("cannot write a record: {e}"),
    })?;
    let text = sealed_text(
        serde_json::from_str(&canon).expect("a record is a JSON object"),
        &hex(&sha256(canon.as_bytes())),
    );
    match read_back::<T>(&text) {
        Some(back) if back == *body => {}
        _ => {
            return Err(CacheError {
                path: path.to_path_buf(),
                message: "refusing to write a record that does not read back as itself".into(),
            });
        }
    }
    atomic_write(path, text.as_bytes())
}

fn read_back<T: DeserializeOwned>(text: &str) -> Option<T> {
    let mut v: serde_json::Value = serde_json::from_str(text).ok()?;
    v.as_object_mut()?.remove("checksum");
    serde_json::from_value(v).ok()
}

/// Makes `dir` and its missing ancestors, each made durable in its parent
/// (fsync of the parent), or a power cut could take a new key directory,
/// and the records in it, away.
fn ensure_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let missing: Vec<&Path> = dir
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && !d.is_dir())
        .collect();
    fs::create_dir_all(dir)?;
    for d in missing.iter().rev() {
        let parent = match d.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        // Durability is best effort above what lb could open.
        let _ = File::open(parent).and_then(|p| p.sync_all());
    }
    Ok(())
}

/// A temporary file of this process beside `path`:
/// `.<name>.<pid>.<nanos>.<host>.tmp`, `<host>` this machine's tag
/// (`lb cache gc` removes those of this machine's processes that no longer
/// run).
pub(crate) fn temp_path(path: &Path) -> PathBuf {
    own_path(path, "tmp")
}

/// Where the packer moves a loose record to check it
/// (`.<name>.<pid>.<nanos>.<host>.aside`, [`FileKind::Aside`]).
pub(crate) fn aside_path(path: &Path) -> PathBuf {
    own_path(path, "aside")
}

/// The record name an aside file was moved from, and whether the process
/// that moved it still runs.
pub(crate) fn aside_of(name: &str) -> Option<(String, bool)> {
    let rest = name.strip_prefix('.')?.strip_suffix(".aside")?;
    let parts: Vec<&str> = rest.rsplitn(4, '.').collect();
    (parts.len() == 4).then(|| (parts[3].to_string(), owner_alive(name)))
}

fn own_path(path: &Path, suffix: &str) -> PathBuf {
    let dir = path.parent().expect("a record path has a directory");
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("record");
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    dir.join(format!(
        ".{name}.{}.{nanos}.{}.{suffix}",
        std::process::id(),
        crate::provenance::host_tag()
    ))
}

/// Writes `bytes` to `path` atomically: temporary file in the same directory,
/// fsync, rename over `path`, fsync of the directory.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), CacheError> {
    let dir = path.parent().expect("a record path has a directory");
    ensure_dir(dir).map_err(|e| io_err(dir, "cannot create directory", e))?;
    let tmp = temp_path(path);
    let result = (|| {
        // `lb cache pack` removes key directories it emptied: one removed
        // between the ensure_dir above and this open is made again.
        let open = || OpenOptions::new().write(true).create_new(true).open(&tmp);
        let mut f = match open() {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                ensure_dir(dir)?;
                open()?
            }
            f => f?,
        };
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fault_pause();
        fs::rename(&tmp, path)?;
        File::open(dir)?.sync_all()
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(io_err(path, "cannot write", e));
    }
    Ok(())
}

/// Fault injection for the kill-during-write test: when the environment
/// variable `LB_FAULT_PAUSE_BEFORE_RENAME_MS` is set, every atomic write sleeps
/// that long between writing its temporary file and renaming it, so that a test
/// can kill `lb` in the middle of a write.
fn fault_pause() {
    static PAUSE: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    let pause = PAUSE.get_or_init(|| {
        std::env::var("LB_FAULT_PAUSE_BEFORE_RENAME_MS")
            .ok()
            .and_then(|s| s.parse().ok())
    });
    if let Some(ms) = pause {
        std::thread::sleep(std::time::Duration::from_millis(*ms));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_kinds() {
        assert_eq!(classify("r0012.json"), FileKind::Replication(12));
        assert_eq!(classify("r12.json"), FileKind::Other);
        assert_eq!(classify(".r0012.json.77.123.tmp"), FileKind::Temp);
        assert_eq!(classify("r0012.json.lock"), FileKind::Lock);
        assert_eq!(classify("r0012.json.damaged"), FileKind::Damaged);
        assert_eq!(classify("precision-abc.json"), FileKind::Precision);
    }

    #[test]
    fn temp_owner() {
        let me = format!(".r0000.json.{}.5.tmp", std::process::id());
        assert!(owner_alive(&me));
        assert!(!owner_alive(".r0000.json.4000000000.5.tmp"));
        // Tagged: this machine's dead process, another machine's process.
        let here = crate::provenance::host_tag();
        assert!(!owner_alive(&format!(
            ".r0000.json.4000000000.5.{here}.tmp"
        )));
        let there = if here == "0000abcd" {
            "1111abcd"
        } else {
            "0000abcd"
        };
        assert!(owner_alive(&format!(
            ".r0000.json.4000000000.5.{there}.tmp"
        )));
        // What this process writes is recognised as its own.
        let mine = temp_path(Path::new("/x/r0000.json"));
        let mine = mine.file_name().unwrap().to_str().unwrap();
        assert_eq!(classify(mine), FileKind::Temp);
        assert!(owner_alive(mine));
    }
}

#[cfg(test)]
mod lock_tests {
    use super::locks_unsupported;
    use std::io;

    /// A filesystem without locks is told from a lock that failed: ENOLCK
    /// (NFS without a lock manager) and an unsupported operation go on
    /// unlocked; a permission error or a would-block does not.
    #[test]
    fn no_lock_filesystems_are_recognised() {
        assert!(locks_unsupported(&io::Error::from(
            io::ErrorKind::Unsupported
        )));
        #[cfg(target_os = "linux")]
        {
            assert!(locks_unsupported(&io::Error::from_raw_os_error(37)));
            assert!(locks_unsupported(&io::Error::from_raw_os_error(95)));
        }
        assert!(!locks_unsupported(&io::Error::from(
            io::ErrorKind::PermissionDenied
        )));
        assert!(!locks_unsupported(&io::Error::from(
            io::ErrorKind::WouldBlock
        )));
        assert!(!locks_unsupported(&io::Error::from_raw_os_error(13)));
    }
}

fn damaged<T>(r: Read<T>) -> Option<String> {
    match r {
        Read::Valid(_) => None,
        Read::Damaged(why) => Some(why),
        Read::Missing => Some("vanished while checking".into()),
    }
}
