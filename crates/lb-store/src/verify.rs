//! `lb verify`: recompute cached records and compare them bit for bit
//! (docs/MODEL.md §4: "Same key, same numbers: bit for bit, whatever the thread count,
//! machine, or order of execution").

use crate::cache::{Cache, DrawnRecord, FileKind, PrecisionRecord, Read, classify};
use crate::run::Progress;
use lb_model::canonical::canonical;
use lb_model::key::{Key, sha256};
use lb_model::precision::{Decision, Paired, decide_paired};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::path::PathBuf;

/// A record to recompute.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Item {
    /// A replication record.
    Replication(Key, u64),
    /// A calibration record.
    Calibration(Key),
    /// A precision rule's outcome (the file's name): its decision is
    /// recomputed from the cached replications it rests on.
    Precision(Key, String),
    /// A reference drawn on a replication's random numbers (the file's
    /// name): drawn again and compared.
    Drawn(Key, String),
}

/// The verdict on one record.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// The record's file.
    pub path: PathBuf,
    /// What was recomputed.
    pub item: Item,
    /// None: recomputed identical. Some(reason): differs or unreadable.
    pub problem: Option<String>,
}

/// The records that can be recomputed, in a fixed order; those whose key
/// starts with `prefix` if given.
pub fn items(cache: &Cache, prefix: Option<&str>) -> Vec<Item> {
    let mut out = Vec::new();
    for (key, _) in cache.keys() {
        if prefix.is_some_and(|p| !key.hex().starts_with(&p.to_ascii_lowercase())) {
            continue;
        }
        for n in cache.file_names(&key) {
            match classify(&n) {
                FileKind::Replication(r) => out.push(Item::Replication(key, r)),
                FileKind::Calibration => out.push(Item::Calibration(key)),
                FileKind::Precision => out.push(Item::Precision(key, n.clone())),
                FileKind::Drawn => out.push(Item::Drawn(key, n.clone())),
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
        Item::Drawn(key, name) => {
            let path = cache.key_dir(key).join(name);
            let problem = drawn(cache, key, &path).err();
            (path, problem)
        }
    };
    Verdict {
        path,
        item: item.clone(),
        problem,
    }
}

/// A drawn reference, read and drawn again: its record, or why it differs.
fn drawn(cache: &Cache, key: &Key, path: &std::path::Path) -> Result<DrawnRecord, String> {
    // Read where it lies, then held to its place (name, replication).
    let read = match cache.read_at::<DrawnRecord>(path) {
        Read::Valid(rec) => cache.read_drawn(key, &rec.name, rec.replication),
        other => other,
    };
    let rec = match read {
        Read::Valid(rec) => rec,
        Read::Damaged(why) => return Err(format!("damaged: {why}")),
        Read::Missing => return Err("vanished".into()),
    };
    let point = match cache.read_point(key) {
        Read::Valid(p) => p.point,
        _ => return Err("its point record is missing or damaged".into()),
    };
    let again = point.reference(&rec.name, "", rec.replication)?;
    match differ(&rec.value, &again) {
        None => Ok(rec),
        Some(why) => Err(why),
    }
}

/// A precision record is a decision on replications 0..n of its key (and its
/// pilot's, for the pilot procedure): decide
/// again on the cached replications (each verifiable on its own) and compare.
fn verify_precision(cache: &Cache, key: &Key, path: &std::path::Path) -> Option<String> {
    let rule = match cache.read_at::<PrecisionRecord>(path) {
        Read::Valid(rec) => rec.rule,
        Read::Damaged(why) => return Some(format!("damaged: {why}")),
        Read::Missing => return Some("vanished".into()),
    };
    let rec = match cache.read_precision(key, &rule) {
        Read::Valid(rec) => rec,
        Read::Damaged(why) => return Some(format!("damaged: {why}")),
        Read::Missing => return Some("not where its rule puts it".into()),
    };
    let read = |key: &Key, rs: std::ops::Range<u64>| -> Result<Vec<_>, String> {
        rs.map(|r| match cache.read_replication(key, r) {
            Read::Valid(x) => Ok(x.summary),
            _ => Err(format!(
                "replication {r} of {}, on which it rests, is missing or damaged",
                key.short()
            )),
        })
        .collect()
    };
    let n = rec.outcome.replications as u64;
    let (summaries, pilot) = match (read(key, 0..n), read(key, rule.pilot())) {
        (Ok(s), Ok(p)) => (s, p),
        (Err(why), _) | (_, Err(why)) => return Some(why),
    };
    // A control variate's records, with the same indices: those present
    // (an unpaired point reads none past the control's pilot or first
    // stage, and the control need not have run them; were any missing that
    // the rule reads, it would ask for them below).
    let control = match lb_manifest::plan::control_key(&rule) {
        None => None,
        Some(c) => match read(&c, rule.pilot()) {
            Ok(p) => Some((crate::run::contiguous(cache, &c, 0, n as u32), p)),
            Err(why) => return Some(why),
        },
    };
    let paired = control
        .as_ref()
        .map(|(summaries, pilot)| Paired { summaries, pilot });
    match decide_paired(&rule, &summaries, &pilot, paired) {
        Decision::Done(again) => differ(&rec.outcome, &again),
        Decision::Need { main, .. } => Some(format!(
            "the rule needs {main} replications before deciding, but the record says it stopped at {}",
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

/// What `lb stamp` did to one record.
#[derive(Debug, Clone, PartialEq)]
pub enum Stamped {
    /// Recomputed identical; the verification is now in the record.
    Stamped,
    /// It already leads to a commit of the history: left as it is.
    Leads,
    /// No manifest plans its key: nothing to stamp it with.
    Unplanned,
    /// Recomputed different, damaged or vanished: left as it is.
    Problem(String),
}

/// Re-verifies the records of `items` that do not lead to a commit of the
/// history ([`crate::provenance::leads_nowhere`]) and stamps those that
/// recompute bit for bit with `at` and the manifests that plan their key
/// (`planned`: key → path → SHA-256). The record's numbers are not touched:
/// only its provenance gains the verification, and the file is resealed.
#[allow(clippy::too_many_arguments)]
pub fn stamp(
    cache: &Cache,
    items: &[Item],
    planned: &std::collections::BTreeMap<Key, std::collections::BTreeMap<String, String>>,
    at: &crate::provenance::Verification,
    in_history: &(dyn Fn(&str) -> bool + Sync),
    retime: bool,
    progress: &dyn Progress,
) -> Vec<(Item, Stamped)> {
    progress.start("verify and stamp", items.len() as u64);
    let out = items
        .par_iter()
        .map(|item| {
            let s = stamp_one(cache, item, planned, at, in_history, retime);
            progress.inc(1);
            (item.clone(), s)
        })
        .collect();
    progress.finish();
    out
}

fn stamp_one(
    cache: &Cache,
    item: &Item,
    planned: &std::collections::BTreeMap<Key, std::collections::BTreeMap<String, String>>,
    at: &crate::provenance::Verification,
    in_history: &(dyn Fn(&str) -> bool + Sync),
    retime: bool,
) -> Stamped {
    let key = match item {
        Item::Replication(k, _)
        | Item::Calibration(k)
        | Item::Precision(k, _)
        | Item::Drawn(k, _) => *k,
    };
    let mut history = |c: &str| in_history(c);
    let leads = |p: &crate::provenance::Provenance, h: &mut dyn FnMut(&str) -> bool| {
        crate::provenance::leads_nowhere(p, h).is_none()
    };
    let verification =
        planned
            .get(&key)
            .filter(|m| !m.is_empty())
            .map(|m| crate::provenance::Verification {
                manifest_sha256: m.clone(),
                ..at.clone()
            });
    // Read, decide, recompute, then reseal with the verification.
    let written = match item {
        Item::Replication(k, r) => match cache.read_replication(k, *r) {
            // A record with no CPU time of its own or of a re-timed
            // recompute is re-timed under `--retime`, leading or not.
            Read::Valid(rec)
                if leads(&rec.provenance, &mut history)
                    && !(retime && rec.provenance.cpu().is_none()) =>
            {
                return Stamped::Leads;
            }
            Read::Valid(_) if verification.is_none() => return Stamped::Unplanned,
            Read::Valid(mut rec) => {
                let start = crate::provenance::thread_cpu();
                let again = rec.point.run(*r);
                let cpu = crate::provenance::thread_cpu_since(start);
                if let Some(why) = differ(&rec.summary, &again) {
                    return Stamped::Problem(why);
                }
                rec.provenance.verified = verification.map(|v| crate::provenance::Verification {
                    cpu_seconds: cpu.map(|d| d.as_secs_f64()),
                    ..v
                });
                cache.write_replication(&rec)
            }
            Read::Damaged(why) => return Stamped::Problem(format!("damaged: {why}")),
            Read::Missing => return Stamped::Problem("vanished".into()),
        },
        Item::Calibration(k) => match cache.read_calibration(k) {
            Read::Valid(rec) if leads(&rec.provenance, &mut history) => return Stamped::Leads,
            Read::Valid(_) if verification.is_none() => return Stamped::Unplanned,
            Read::Valid(mut rec) => {
                if let Some(why) = differ(&rec.result, &rec.calibration.run()) {
                    return Stamped::Problem(why);
                }
                rec.provenance.verified = verification;
                cache.write_calibration(&rec)
            }
            Read::Damaged(why) => return Stamped::Problem(format!("damaged: {why}")),
            Read::Missing => return Stamped::Problem("vanished".into()),
        },
        Item::Precision(k, name) => {
            let path = cache.key_dir(k).join(name);
            match cache.read_at::<PrecisionRecord>(&path) {
                Read::Valid(rec) if leads(&rec.provenance, &mut history) => {
                    return Stamped::Leads;
                }
                Read::Valid(_) if verification.is_none() => return Stamped::Unplanned,
                Read::Valid(mut rec) => {
                    if let Some(why) = verify_precision(cache, k, &path) {
                        return Stamped::Problem(why);
                    }
                    rec.provenance.verified = verification;
                    cache.write_precision(&rec)
                }
                Read::Damaged(why) => return Stamped::Problem(format!("damaged: {why}")),
                Read::Missing => return Stamped::Problem("vanished".into()),
            }
        }
        Item::Drawn(k, name) => match drawn(cache, k, &cache.key_dir(k).join(name)) {
            Ok(rec) if leads(&rec.provenance, &mut history) => return Stamped::Leads,
            Ok(_) if verification.is_none() => return Stamped::Unplanned,
            Ok(mut rec) => {
                rec.provenance.verified = verification;
                cache.write_drawn(&rec)
            }
            Err(why) => return Stamped::Problem(why),
        },
    };
    match written {
        Ok(()) => Stamped::Stamped,
        Err(e) => Stamped::Problem(format!(
            "cannot write the stamp: {}: {}",
            e.path.display(),
            e.message
        )),
    }
}

#[cfg(test)]
mod retime_tests {
    use super::*;
    use crate::cache::ReplicationRecord;
    use std::time::{Duration, SystemTime};

    /// `lb stamp --retime` recomputes a replication that keeps no CPU time
    /// of its own, keeps the recompute's beside its wall time (which the
    /// cost reads from then on) and touches no number; without `--retime`
    /// a record that leads to a commit is left as it is.
    #[test]
    fn a_retimed_record_keeps_the_recomputes_cpu_time_and_its_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let plan = lb_test_support::plan(
            "tiny.toml",
            lb_test_support::fixtures::TINY,
            lb_manifest::Profile::Full,
        );
        let point = match &plan.points[0].target {
            lb_manifest::plan::Target::Fixed(p) => p.clone(),
            lb_manifest::plan::Target::Calibrated { .. } => panic!("a fixed point"),
        };
        let key = point.key();
        let mut provenance = crate::provenance::Context::capture(1, vec!["test".into()]).stamp(
            SystemTime::now(),
            Duration::from_secs(40),
            None,
        );
        provenance.git_commit = Some("c0ffee".into());
        provenance.git_dirty = Some(false);
        provenance.manifest_sha256 = [("tiny.toml".to_string(), "ab".to_string())].into();
        let rec = ReplicationRecord {
            format: crate::cache::FORMAT,
            kind: "replication".into(),
            key: key.hex(),
            replication: 0,
            point: point.clone(),
            summary: point.run(0),
            provenance,
        };
        cache.write_replication(&rec).unwrap();
        let planned = std::collections::BTreeMap::from([(
            key,
            std::collections::BTreeMap::from([("tiny.toml".to_string(), "ab".to_string())]),
        )]);
        let at = crate::provenance::Verification {
            commit: "c0ffee".into(),
            manifest_sha256: Default::default(),
            lb_version: "0".into(),
            rustc: "r".into(),
            host: "h".into(),
            at: "t".into(),
            cpu_seconds: None,
        };
        let items = [Item::Replication(key, 0)];
        let every = |_: &str| true;
        let read = || match cache.read_replication(&key, 0) {
            Read::Valid(r) => r,
            _ => panic!("the record reads"),
        };
        let stamp_with = |retime| {
            stamp(
                &cache,
                &items,
                &planned,
                &at,
                &every,
                retime,
                &crate::run::Silent,
            )
        };
        // It leads to a commit: a plain stamp leaves it, wall-timed.
        let done = stamp_with(false);
        assert!(matches!(done[0].1, Stamped::Leads));
        assert_eq!(read().provenance.seconds(), 40.0);
        // Re-timed: the recompute's CPU time, the same numbers.
        let done = stamp_with(true);
        assert!(matches!(done[0].1, Stamped::Stamped), "{:?}", done[0].1);
        let after = read();
        assert_eq!(after.summary, rec.summary);
        let cpu = after
            .provenance
            .verified
            .as_ref()
            .and_then(|v| v.cpu_seconds);
        assert!(cpu.is_some_and(|c| c < 40.0), "{cpu:?}");
        assert_eq!(after.provenance.seconds(), cpu.unwrap());
        assert_eq!(after.provenance.wall_seconds, 40.0);
        // Once re-timed, a second pass finds nothing to do.
        let done = stamp_with(true);
        assert!(matches!(done[0].1, Stamped::Leads));
    }
}
