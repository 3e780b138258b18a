//! The packed tier of the results store, end to end: every record reads
//! the same through both tiers; packs are deterministic; a kill during
//! packing, two packers at once, a truncated pack and a packed record
//! edited and resealed lose nothing and are never read as valid.

use lb_store::cache::{Cache, Read};
use lb_store::pack::{Pack, Packed};
use lb_store::packing::loose_records;
use lb_test_support::{records, texts};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const LB: &str = env!("CARGO_BIN_EXE_lb");

/// Two policies at three loads, three replications each.
const MANIFEST: &str = r#"[experiment]
name = "packed"
title = "records to pack"
model = "slotted"

[system]
dispatchers = 2
servers = { classes = [{ count = 2, rate = 0.4 }, { count = 2, rate = 0.8 }] }
service = "bernoulli"
arrivals = "poisson"

[sweep]
load = [0.5, 0.7, 0.9]

[[policy]]
spec = "Power-of-2"

[[policy]]
spec = "WR"

[run]
slots = 3000
warmup = 300
replications = 3
seed = 5
"#;

fn project() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().to_path_buf();
    std::fs::write(path.join("m.toml"), MANIFEST).unwrap();
    (tmp, path)
}

/// A project whose manifest has run and whose records are packed.
fn packed_project() -> (tempfile::TempDir, PathBuf) {
    let (t, dir) = project();
    ok(lb(&dir, &["run", "m.toml"]).output().unwrap());
    ok(lb(&dir, &["cache", "pack"]).output().unwrap());
    (t, dir)
}

fn lb(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(LB);
    c.current_dir(dir).args(args);
    c
}

fn ok(o: Output) -> String {
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    );
    assert!(o.status.success(), "{out}\n{err}");
    out
}

/// A bucket that has a pack.
fn packed_bucket(c: &Cache) -> String {
    c.buckets()
        .into_iter()
        .find(|b| c.pack_path(b).exists())
        .expect("a packed bucket")
}

/// Every pack file of the cache, with its bytes.
fn packs(c: &Cache) -> Vec<(String, Vec<u8>)> {
    c.buckets()
        .into_iter()
        .filter_map(|b| Some((b.clone(), std::fs::read(c.pack_path(&b)).ok()?)))
        .collect()
}

/// A run's records read loose, then packed: the same text, record for
/// record (checksum and provenance included), the same typed reads; loose
/// files gone; packing again rewrites nothing.
#[test]
fn every_record_reads_the_same_through_both_tiers() {
    let (_t, dir) = project();
    ok(lb(&dir, &["run", "m.toml", "--threads", "2"])
        .output()
        .unwrap());
    let c = Cache::new(dir.join("results"));
    let loose = texts(&c);
    assert_eq!(
        loose.len(),
        6 * 4,
        "6 points: a point record and 3 replications each"
    );
    let typed: Vec<_> = c
        .keys()
        .iter()
        .flat_map(|(k, _)| {
            (0..3)
                .map(|r| c.read_replication(k, r).valid().unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    let out = ok(lb(&dir, &["cache", "pack"]).output().unwrap());
    assert!(out.contains("packed 24 loose record(s)"), "{out}");
    assert!(loose_records(&c).is_empty());
    let c = Cache::new(dir.join("results"));
    assert_eq!(texts(&c), loose, "packing changes no record's text");
    let typed_packed: Vec<_> = c
        .keys()
        .iter()
        .flat_map(|(k, _)| {
            (0..3)
                .map(|r| c.read_replication(k, r).valid().unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(typed, typed_packed);
    ok(lb(&dir, &["cache", "check"]).output().unwrap());
    ok(lb(&dir, &["cache", "pack", "--check"]).output().unwrap());
    // Deterministic: the same records give the same bytes.
    let before = packs(&c);
    let out = ok(lb(&dir, &["cache", "pack"]).output().unwrap());
    assert!(out.contains("0 of"), "{out}");
    assert_eq!(packs(&c), before);
    // A recompute into another cache packs to the very same numbers.
    ok(lb(
        &dir,
        &["--results", "again", "run", "m.toml", "--threads", "1"],
    )
    .output()
    .unwrap());
    ok(lb(&dir, &["--results", "again", "cache", "pack"])
        .output()
        .unwrap());
    assert_eq!(records(&Cache::new(dir.join("again"))), records(&c));
}

/// `lb cache pack --check` fails on a loose record, and names it.
#[test]
fn pack_check_fails_on_loose_records() {
    let (_t, dir) = project();
    ok(lb(&dir, &["run", "m.toml"]).output().unwrap());
    let o = lb(&dir, &["cache", "pack", "--check"]).output().unwrap();
    assert!(!o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("LOOSE") && out.contains("24 loose record(s)"),
        "{out}"
    );
}

/// A kill -9 while the pack is being written (between its temporary file
/// and the rename) leaves every record readable; the next packing finishes.
#[test]
fn a_kill_during_packing_loses_nothing() {
    let (_t, dir) = project();
    ok(lb(&dir, &["run", "m.toml"]).output().unwrap());
    let c = Cache::new(dir.join("results"));
    let before = texts(&c);
    let mut child = lb(&dir, &["cache", "pack"])
        .env("LB_FAULT_PAUSE_BEFORE_RENAME_MS", "3000")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for a pack's temporary file: the pack is being written.
    let t0 = std::time::Instant::now();
    loop {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no pack write started"
        );
        let writing = c.buckets().iter().any(|b| {
            std::fs::read_dir(dir.join("results").join(b))
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with(".pack.zst."))
        });
        if writing {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let c = Cache::new(dir.join("results"));
    assert_eq!(texts(&c), before, "a kill during packing loses no record");
    // What the killed packing left (its temporary pack, its lock) is
    // removed by gc, and nothing else.
    let leftovers = |root: &Path| -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let (p, n) = (e.path(), e.file_name().to_string_lossy().to_string());
                if p.is_dir() {
                    stack.push(p);
                } else if n.ends_with(".tmp") || n.ends_with(".lock") {
                    out.push(p);
                }
            }
        }
        out
    };
    let left = leftovers(&dir.join("results"));
    assert!(
        left.iter().any(|p| p.ends_with("pack.zst.lock")),
        "the kill left no pack lock: {left:?}"
    );
    ok(lb(&dir, &["cache", "gc"]).output().unwrap());
    assert_eq!(leftovers(&dir.join("results")), Vec::<PathBuf>::new());
    assert_eq!(texts(&Cache::new(dir.join("results"))), before);
    ok(lb(&dir, &["cache", "pack"]).output().unwrap());
    assert_eq!(texts(&Cache::new(dir.join("results"))), before);
    ok(lb(&dir, &["cache", "pack", "--check"]).output().unwrap());
}

/// Two packers at once: each bucket is packed under its lock, so both
/// finish, and the cache is the one packer's.
#[test]
fn two_packers_at_once() {
    let (_t, dir) = project();
    ok(lb(&dir, &["run", "m.toml"]).output().unwrap());
    let before = texts(&Cache::new(dir.join("results")));
    let a = lb(&dir, &["cache", "pack"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let b = lb(&dir, &["cache", "pack"]).output().unwrap();
    assert!(a.wait_with_output().unwrap().status.success());
    ok(b);
    let c = Cache::new(dir.join("results"));
    assert_eq!(texts(&c), before);
    assert!(loose_records(&c).is_empty());
    ok(lb(&dir, &["cache", "check"]).output().unwrap());
}

/// A truncated pack is damaged to every reader (`lb cache check` fails);
/// `lb run` recomputes its records, the same numbers; `lb cache pack`
/// moves the damaged pack aside and packs them again.
#[test]
fn a_truncated_pack_is_recomputed() {
    let (_t, dir) = packed_project();
    let c = Cache::new(dir.join("results"));
    let before = records(&c);
    let b = packed_bucket(&c);
    let p = c.pack_path(&b);
    let bytes = std::fs::read(&p).unwrap();
    std::fs::write(&p, &bytes[..bytes.len() / 2]).unwrap();
    let o = lb(&dir, &["cache", "check"]).output().unwrap();
    assert!(!o.status.success(), "a truncated pack must fail the check");
    let o = lb(&dir, &["cache", "pack", "--check"]).output().unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("BAD"));
    ok(lb(&dir, &["run", "m.toml"]).output().unwrap());
    let out = ok(lb(&dir, &["cache", "pack"]).output().unwrap());
    assert!(out.contains("packed"), "{out}");
    assert!(
        dir.join("results")
            .join(&b)
            .join("pack.zst.damaged")
            .exists()
    );
    let c = Cache::new(dir.join("results"));
    assert_eq!(records(&c), before, "recomputed to the same numbers");
    ok(lb(&dir, &["cache", "check"]).output().unwrap());
}

/// A packed replication edited and resealed (its checksum recomputed, the
/// pack recompressed) fails the record's own checks: it is never read as
/// valid, `lb run` takes it out of its pack to `<name>.damaged` and
/// recomputes it.
#[test]
fn a_packed_record_edited_and_resealed_is_damaged() {
    let (_t, dir) = packed_project();
    let c = Cache::new(dir.join("results"));
    let before = records(&c);
    let (key, _) = c.keys()[0];
    let b = lb_store::cache::bucket_of(&key);
    let mut pack = Pack::decode(&std::fs::read(c.pack_path(&b)).unwrap()).unwrap();
    let old = pack.remove(&key, "r0001.json").unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&old.body).unwrap();
    let q = v["summary"]["mean_sum_q"].as_f64().unwrap();
    v["summary"]["mean_sum_q"] = (q + 1.0).into();
    let body = lb_model::canonical::canonical_value(&v);
    let checksum = lb_model::key::hex(&lb_model::key::sha256(body.as_bytes()));
    pack.insert(key, "r0001.json".into(), Packed { checksum, body });
    std::fs::write(c.pack_path(&b), pack.encode()).unwrap();
    let c = Cache::new(dir.join("results"));
    assert!(
        matches!(c.read_replication(&key, 1), Read::Damaged(ref why) if why.contains("inconsistent")),
        "{:?}",
        c.read_replication(&key, 1)
    );
    assert!(
        !lb(&dir, &["cache", "check"])
            .output()
            .unwrap()
            .status
            .success()
    );
    let out =
        String::from_utf8_lossy(&lb(&dir, &["run", "m.toml"]).output().unwrap().stderr).to_string();
    assert!(out.contains("damaged record"), "{out}");
    let aside = c.key_dir(&key).join("r0001.json.damaged");
    assert!(
        aside.exists(),
        "the edited record is kept aside for inspection"
    );
    ok(lb(&dir, &["cache", "pack"]).output().unwrap());
    assert_eq!(records(&Cache::new(dir.join("results"))), before);
}

/// A shard's loose records packed while another shard writes its own: the
/// packer takes only what it read, the writer's records stay loose for the
/// next packing, and the cache ends with the records of one unsharded run.
#[test]
fn packing_while_a_shard_writes() {
    let (_t, dir) = project();
    ok(lb(&dir, &["run", "m.toml", "--shard", "0/2"])
        .output()
        .unwrap());
    let mut writer = lb(&dir, &["run", "m.toml", "--shard", "1/2", "--threads", "1"])
        .env("LB_FAULT_PAUSE_BEFORE_RENAME_MS", "30")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut rounds = 0;
    while writer.try_wait().unwrap().is_none() {
        ok(lb(&dir, &["cache", "pack"]).output().unwrap());
        rounds += 1;
    }
    assert!(writer.wait().unwrap().success());
    assert!(
        rounds >= 2,
        "the shard finished before packing overlapped it"
    );
    ok(lb(&dir, &["run", "m.toml"]).output().unwrap());
    ok(lb(&dir, &["cache", "pack"]).output().unwrap());
    ok(lb(&dir, &["--results", "one", "run", "m.toml"])
        .output()
        .unwrap());
    let c = Cache::new(dir.join("results"));
    assert_eq!(records(&c), records(&Cache::new(dir.join("one"))));
    assert!(loose_records(&c).is_empty());
    ok(lb(&dir, &["cache", "check"]).output().unwrap());
}

/// A reference drawn per replication (`pooled`) that a claim reads is a
/// record, computed by the run with the replications; its value is the one
/// the model computes, and it is packed with the rest.
#[test]
fn references_drawn_per_replication_are_records() {
    let (_t, dir) = project();
    let claim = r#"
[[claim]]
id = "above-pooled"
statement = "No policy beats the resource-pooled queue"
source = "Zhou, Shroff and Wierman, Lemma 1"
origin = "check"
kind = "bound"
metric = "mean_sum_q"
policies = ["WR"]
bound = "pooled"
side = "ge"
required = true
"#;
    std::fs::write(dir.join("m.toml"), format!("{MANIFEST}{claim}")).unwrap();
    ok(lb(&dir, &["run", "m.toml"]).output().unwrap());
    let c = Cache::new(dir.join("results"));
    let plan = lb_manifest::load(&dir.join("m.toml"), lb_manifest::Profile::Full)
        .unwrap()
        .plan;
    // The claim reads WR's three points; Power-of-2's are not drawn.
    assert_eq!(plan.drawn.len(), 3, "{:?}", plan.drawn);
    for (&i, names) in &plan.drawn {
        assert_eq!(plan.points[i].label, "WR");
        let point = plan.points[i].point();
        for r in 0..3 {
            let rec = c.read_drawn(&point.key(), "pooled", r).valid().unwrap();
            assert_eq!(names.iter().next().unwrap(), "pooled");
            assert_eq!(rec.value, point.reference("pooled", "", r).unwrap());
        }
    }
    let texts_before = texts(&c);
    assert_eq!(
        texts_before
            .keys()
            .filter(|p| p.contains("/drawn-pooled-r"))
            .count(),
        9
    );
    ok(lb(&dir, &["cache", "pack"]).output().unwrap());
    assert_eq!(texts(&Cache::new(dir.join("results"))), texts_before);
    ok(lb(&dir, &["audit", "m.toml"]).output().unwrap());
    ok(lb(&dir, &["cache", "check"]).output().unwrap());
}

/// `lb cache gc --unreferenced` drops packed keys no manifest plans, each
/// pack rewritten once; the records it keeps read as before.
#[test]
fn gc_drops_unreferenced_keys_from_packs() {
    let (_t, dir) = packed_project();
    let before = texts(&Cache::new(dir.join("results")));
    let only_wr = MANIFEST.replace("[[policy]]\nspec = \"Power-of-2\"\n\n", "");
    std::fs::write(dir.join("wr.toml"), only_wr).unwrap();
    let out = ok(lb(&dir, &["cache", "gc", "--unreferenced", "wr.toml"])
        .output()
        .unwrap());
    assert!(out.contains("removed 3 item(s)"), "{out}");
    let after = texts(&Cache::new(dir.join("results")));
    assert_eq!(after.len(), before.len() / 2);
    assert!(after.iter().all(|(p, t)| before[p] == *t));
    ok(lb(&dir, &["cache", "check"]).output().unwrap());
    ok(lb(&dir, &["cache", "pack", "--check"]).output().unwrap());
}

/// Copies of records under names that are not their own (a replication's
/// `r00001.json`, a precision outcome's `… copy.json`, a name with a
/// newline) are never packed: each stays loose, named as misnamed, every
/// pack still decodes, and `lb cache check` fails until they are removed.
/// (A name with a space or a newline once went into a pack line as it
/// was: the first misread its checksum, the second made the pack
/// unreadable, and the next packing moved the whole bucket aside.)
#[test]
fn records_under_other_names_are_never_packed() {
    let (_t, dir) = project();
    let rule = "precision = { metric = \"mean_sum_q\", rel_half_width = 0.02, min = 2, max = 6, step = 2 }";
    std::fs::write(
        dir.join("m.toml"),
        MANIFEST.replace("replications = 3", rule),
    )
    .unwrap();
    ok(lb(&dir, &["run", "m.toml"]).output().unwrap());
    let c = Cache::new(dir.join("results"));
    let (key, kdir) = c.keys()[0].clone();
    let precision = c
        .file_names(&key)
        .into_iter()
        .find(|n| n.starts_with("precision-"))
        .expect("a precision outcome");
    let stem = precision.trim_end_matches(".json");
    let copies = [
        ("r0001.json".to_string(), "r00001.json".to_string()),
        (precision.clone(), format!("{stem} copy.json")),
        (precision.clone(), format!("{stem}\n.json")),
    ];
    for (from, to) in &copies {
        std::fs::copy(kdir.join(from), kdir.join(to)).unwrap();
    }
    let o = lb(&dir, &["cache", "pack"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{err}");
    assert_eq!(err.matches("misnamed").count(), 3, "{err}");
    for b in c.buckets() {
        if let Ok(bytes) = std::fs::read(c.pack_path(&b)) {
            Pack::decode(&bytes).expect("every pack decodes");
        }
    }
    assert!(c.packs_aside().is_empty(), "no pack moved aside");
    for (_, to) in &copies {
        assert!(kdir.join(to).exists(), "{to:?} stays loose");
    }
    // Leftovers for check (nothing reads them), a failure for the
    // committed cache's gate.
    let out = ok(lb(&dir, &["cache", "check"]).output().unwrap());
    assert_eq!(out.matches("LEFTOVER").count(), 3, "{out}");
    let o = lb(&dir, &["cache", "pack", "--check"]).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(!o.status.success(), "{out}");
    assert_eq!(out.matches("MISNAMED").count(), 3, "{out}");
    for (_, to) in &copies {
        std::fs::remove_file(kdir.join(to)).unwrap();
    }
    // A key directory under another bucket: read by no one, packed by no
    // one, named by check and the gate.
    let other = if key.hex().starts_with("00") {
        "01"
    } else {
        "00"
    };
    let misfiled = dir.join("results").join(other).join(key.hex());
    std::fs::create_dir_all(&misfiled).unwrap();
    let text = c.record_text(&c.replication_path(&key, 1)).unwrap();
    std::fs::write(misfiled.join("r0001.json"), text).unwrap();
    ok(lb(&dir, &["cache", "pack"]).output().unwrap());
    assert!(misfiled.join("r0001.json").exists());
    let out = ok(lb(&dir, &["cache", "check"]).output().unwrap());
    assert!(out.contains("under another bucket"), "{out}");
    let o = lb(&dir, &["cache", "pack", "--check"]).output().unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("MISFILED"));
    let out = ok(lb(&dir, &["cache", "gc"]).output().unwrap());
    assert!(out.contains("under another bucket"), "{out}");
    assert!(!misfiled.exists());
    ok(lb(&dir, &["cache", "pack"]).output().unwrap());
    ok(lb(&dir, &["cache", "check"]).output().unwrap());
    ok(lb(&dir, &["cache", "pack", "--check"]).output().unwrap());
}

/// A pack of a format this lb does not read (written by a later lb) is
/// not damaged: a run recomputes its records loose beside it, packing
/// refuses to touch it, both say which format it is, and its bytes stay as
/// they are.
#[test]
fn a_pack_of_another_format_is_left_alone() {
    let (_t, dir) = packed_project();
    let c = Cache::new(dir.join("results"));
    let b = packed_bucket(&c);
    let before = records(&c);
    let foreign = zstd::encode_all(&b"lb-pack 2\nwhatever a later lb writes\n"[..], 3).unwrap();
    std::fs::write(c.pack_path(&b), &foreign).unwrap();
    let o = lb(&dir, &["run", "m.toml"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{err}");
    assert!(err.contains("`lb-pack 2`"), "{err}");
    let o = lb(&dir, &["cache", "pack"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("not packed") && err.contains("`lb-pack 2`"),
        "{err}"
    );
    assert!(err.contains("another version of lb"), "{err}");
    // Its records were recomputed loose, the same numbers, and are read.
    assert!(!loose_records(&c).is_empty());
    assert_eq!(records(&Cache::new(dir.join("results"))), before);
    assert_eq!(std::fs::read(c.pack_path(&b)).unwrap(), foreign);
    assert!(c.packs_aside().is_empty());
}

/// A loose record whose stored checksum is not hex (here, multibyte
/// characters) is damaged, reported as such, never a crash.
#[test]
fn a_checksum_that_is_not_hex_is_damage_not_a_crash() {
    let (_t, dir) = project();
    ok(lb(&dir, &["run", "m.toml"]).output().unwrap());
    let c = Cache::new(dir.join("results"));
    let (key, _) = c.keys()[0];
    let path = c.replication_path(&key, 1);
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["checksum"] = "xéééééééééééééééé".into();
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let o = lb(&dir, &["cache", "check"]).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(o.status.code(), Some(1), "{out}");
    let shown: String = "xéééééééééééééééé".chars().take(12).collect();
    assert!(
        out.contains(&format!("checksum mismatch (stored {shown}…")),
        "{out}"
    );
}
