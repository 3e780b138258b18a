//! `lb verify`: recompute cached records and compare them bit for bit
//! (SPEC §4: "Same key, same numbers: bit for bit, whatever the thread count,
//! machine, or order of execution").

use crate::cache::{Cache, FileKind, PrecisionRecord, Read, classify, read_record};
use crate::run::Progress;
use lb_model::canonical::canonical;
use lb_model::key::{Key, sha256};
use lb_model::precision::{Decision, decide};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::path::PathBuf;

/// A record to recompute.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Item {
    Replication(Key, u64),
    Calibration(Key),
    /// A precision rule's outcome (the file's name): its decision is
    /// recomputed from the cached replications it rests on.
    Precision(Key, String),
}

/// The verdict on one record.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub path: PathBuf,
    pub item: Item,
    /// None: recomputed identical. Some(reason): differs or unreadable.
    pub problem: Option<String>,
}

/// The records that can be recomputed, in a fixed order; those whose key
/// starts with `prefix` if given.
pub fn items(cache: &Cache, prefix: Option<&str>) -> Vec<Item> {
    let mut out = Vec::new();
    for (key, dir) in cache.keys() {
        if prefix.is_some_and(|p| !key.hex().starts_with(&p.to_ascii_lowercase())) {
            continue;
        }
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        names.sort();
        for n in names {
            match classify(&n) {
                FileKind::Replication(r) => out.push(Item::Replication(key, r)),
                FileKind::Calibration => out.push(Item::Calibration(key)),
                FileKind::Precision => out.push(Item::Precision(key, n.clone())),
                _ => {}
            }
        }
    }
    out
}

/// `k` of `items` chosen by a seeded shuffle (all if k ≥ len).
pub fn sample(mut items: Vec<Item>, k: usize, seed: u64) -> Vec<Item> {
    let mut rng = ChaCha8Rng::from_seed(sha256(format!("lb verify {seed}").as_bytes()));
    let k = k.min(items.len());
    for i in 0..k {
        let j = i + (rng.next_u64() % (items.len() - i) as u64) as usize;
        items.swap(i, j);
    }
    items.truncate(k);
    items.sort();
    items
}

/// Recomputes each item and compares it with its record.
pub fn verify(cache: &Cache, items: &[Item], progress: &dyn Progress) -> Vec<Verdict> {
    progress.start("verify", items.len() as u64);
    let out = items
        .par_iter()
        .map(|item| {
            let v = verify_one(cache, item);
            progress.inc(1);
            v
        })
        .collect();
    progress.finish();
    out
}

fn verify_one(cache: &Cache, item: &Item) -> Verdict {
    let (path, problem) = match item {
        Item::Replication(key, r) => {
            let path = cache.replication_path(key, *r);
            let problem = match cache.read_replication(key, *r) {
                Read::Valid(rec) => {
                    let again = rec.point.run(*r);
                    differ(&rec.summary, &again)
                }
                Read::Damaged(why) => Some(format!("damaged: {why}")),
                Read::Missing => Some("vanished".into()),
            };
            (path, problem)
        }
        Item::Calibration(key) => {
            let path = cache.calibration_path(key);
            let problem = match cache.read_calibration(key) {
                Read::Valid(rec) => differ(&rec.result, &rec.calibration.run()),
                Read::Damaged(why) => Some(format!("damaged: {why}")),
                Read::Missing => Some("vanished".into()),
            };
            (path, problem)
        }
        Item::Precision(key, name) => {
            let path = cache.key_dir(key).join(name);
            let problem = verify_precision(cache, key, &path);
            (path, problem)
        }
    };
    Verdict {
        path,
        item: item.clone(),
        problem,
    }
}

/// A precision record is a decision on replications 0..n of its key: decide
/// again on the cached replications (each verifiable on its own) and compare.
fn verify_precision(cache: &Cache, key: &Key, path: &std::path::Path) -> Option<String> {
    let rule = match read_record::<PrecisionRecord>(path) {
        Read::Valid(rec) => rec.rule,
        Read::Damaged(why) => return Some(format!("damaged: {why}")),
        Read::Missing => return Some("vanished".into()),
    };
    let rec = match cache.read_precision(key, &rule) {
        Read::Valid(rec) => rec,
        Read::Damaged(why) => return Some(format!("damaged: {why}")),
        Read::Missing => return Some("not where its rule puts it".into()),
    };
    let mut summaries = Vec::new();
    for r in 0..rec.outcome.replications as u64 {
        match cache.read_replication(key, r) {
            Read::Valid(x) => summaries.push(x.summary),
            _ => {
                return Some(format!(
                    "replication {r}, on which it rests, is missing or damaged"
                ));
            }
        }
    }
    match decide(&rule, &summaries) {
        Decision::Done(again) => differ(&rec.outcome, &again),
        Decision::Need(n) => Some(format!(
            "the rule needs {n} replications before deciding, but the record says it stopped at {}",
            rec.outcome.replications
        )),
    }
}

/// Compares canonical bytes; None if identical.
fn differ<T: serde::Serialize>(stored: &T, again: &T) -> Option<String> {
    let (a, b) = (canonical(stored), canonical(again));
    match (a, b) {
        (Ok(a), Ok(b)) if a == b => None,
        (Ok(a), Ok(b)) => {
            let at = a
                .bytes()
                .zip(b.bytes())
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            let lo = at.saturating_sub(40);
            Some(format!(
                "recomputed result differs at byte {at}: stored …{}… vs recomputed …{}…",
                &a[lo..(at + 40).min(a.len())],
                &b[lo..(at + 40).min(b.len())]
            ))
        }
        (Err(e), _) | (_, Err(e)) => Some(e.to_string()),
    }
}
