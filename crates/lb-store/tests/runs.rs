//! Runs: keys, common random numbers, thread-count independence, resumption,
//! damaged records, unwritable results, precision and calibration (docs/MODEL.md §4).

mod common;

use common::{TINY, fixed, plan, records, run};
use lb_manifest::plan::Target;
use lb_manifest::{Key, Profile};
use lb_store::cache::{Cache, Read};
use lb_store::provenance::Context;
use lb_store::run::{Silent, State, run_plans, status};

#[test]
fn a_key_is_pinned() {
    // If this changes, every cached result's key changes: a change of the
    // point schema, of expansion defaults or of canonical JSON. Update it
    // knowingly. (The engine's MODEL_VERSION is part of every key too; it is
    // held at 1 here so that bumping it does not trip this test.)
    let p = plan(TINY, Profile::Full);
    let mut point = fixed(&p.points[0].target).clone();
    assert_eq!(point.model_version, lb_core::MODEL_VERSION);
    let bumped = {
        let mut q = point.clone();
        q.model_version += 1;
        q.key()
    };
    point.model_version = 1;
    assert_ne!(point.key(), bumped, "the model version is part of the key");
    let canon = lb_model::canonical::canonical(&point).unwrap();
    assert_eq!(
        canon,
        concat!(
            r#"{"config":{"count_own":true,"granularity":"batch","#,
            r#""policy":{"policy":"jsq","tie_break":"random"},"#,
            r#""run":{"batches":64,"slots":3000,"warmup":300},"#,
            r#""system":{"arrivals":[{"law":"poisson","mean":0.51},{"law":"poisson","mean":0.51}],"#,
            r#""service":[{"law":"bernoulli","p":0.3},{"law":"bernoulli","p":0.5},{"law":"bernoulli","p":0.9}]}},"#,
            r#""model":"slotted","model_version":1,"profile":"full","seed":7}"#
        )
    );
    assert_eq!(
        point.key().hex(),
        "41b0f4b730c9e7f1f1af7c763b2581ecd0185ee1d2e8e9e01c5f8fc437106b13"
    );
}

#[test]
fn policies_at_a_point_share_arrivals_and_service() {
    let p = plan(TINY, Profile::Full);
    let seeds: Vec<_> = p
        .points
        .iter()
        .map(|pp| fixed(&pp.target).seeds())
        .collect();
    // 2 loads × 3 policies, in that order.
    for load in 0..2 {
        let at = &seeds[3 * load..3 * load + 3];
        assert!(at.iter().all(|s| s.system == at[0].system));
        assert!(at[0].policy != at[1].policy && at[1].policy != at[2].policy);
    }
    assert_ne!(seeds[0].system, seeds[3].system);
    // Quick points have keys of their own.
    let q = plan(TINY, Profile::Quick);
    let full: Vec<Key> = p.points.iter().map(|pp| fixed(&pp.target).key()).collect();
    assert!(
        q.points
            .iter()
            .all(|pp| !full.contains(&fixed(&pp.target).key()))
    );
}

#[test]
fn records_do_not_depend_on_the_thread_count() {
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (c1, c2) = (Cache::new(d1.path()), Cache::new(d2.path()));
    let p = plan(TINY, Profile::Full);
    let r1 = run(&c1, std::slice::from_ref(&p), 1);
    let r2 = run(&c2, std::slice::from_ref(&p), 2);
    assert_eq!((r1.computed, r2.computed), (18, 18));
    let (a, b) = (records(&c1), records(&c2));
    assert_eq!(a.len(), 6 * 3 + 6);
    assert_eq!(a, b);
}

#[test]
fn a_second_run_computes_nothing_and_plan_says_cached() {
    let d = tempfile::tempdir().unwrap();
    let c = Cache::new(d.path());
    let p = plan(TINY, Profile::Full);
    assert!(status(&c, &p).iter().all(|s| s.state() == State::Missing));
    run(&c, std::slice::from_ref(&p), 2);
    let again = run(&c, std::slice::from_ref(&p), 2);
    assert_eq!((again.computed, again.reused), (0, 18));
    assert!(status(&c, &p).iter().all(|s| s.state() == State::Cached));
    // No lock or temporary files are left behind.
    for (_, dir) in c.keys() {
        for f in std::fs::read_dir(dir).unwrap() {
            let n = f.unwrap().file_name().to_string_lossy().to_string();
            assert!(n.ends_with(".json"), "{n}");
        }
    }
}

#[test]
fn truncated_and_edited_records_are_detected_and_recomputed() {
    let d = tempfile::tempdir().unwrap();
    let c = Cache::new(d.path());
    let p = plan(TINY, Profile::Full);
    run(&c, std::slice::from_ref(&p), 2);
    let before = records(&c);
    let key = fixed(&p.points[0].target).key();
    let key2 = fixed(&p.points[1].target).key();
    // Truncate one record, hand-edit another (a plausible number, same JSON shape).
    let r0 = c.replication_path(&key, 0);
    let bytes = std::fs::read(&r0).unwrap();
    std::fs::write(&r0, &bytes[..bytes.len() / 2]).unwrap();
    let r1 = c.replication_path(&key2, 1);
    let text = std::fs::read_to_string(&r1).unwrap();
    let edited = text.replacen("\"mean_sum_q\": ", "\"mean_sum_q\": 1", 1);
    assert_ne!(edited, text);
    std::fs::write(&r1, edited).unwrap();
    assert!(matches!(c.read_replication(&key, 0), Read::Damaged(ref w) if w.contains("truncated")));
    assert!(matches!(c.read_replication(&key2, 1), Read::Damaged(ref w) if w.contains("checksum")));
    let words: Vec<_> = status(&c, &p).iter().map(|s| s.word()).collect();
    assert_eq!(&words[..2], &["partial", "partial"]);

    let rep = run(&c, std::slice::from_ref(&p), 2);
    assert_eq!(rep.computed, 2);
    assert_eq!(rep.damaged.len(), 2);
    assert_eq!(records(&c), before, "recomputed records are identical");
    // The damaged files were kept aside for inspection.
    assert!(r0.with_extension("json.damaged").exists());
}

#[test]
fn an_unwritable_results_directory_is_a_clear_error() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let c = Cache::new(file.join("results"));
    let p = plan(TINY, Profile::Full);
    let ctx = Context::capture(1, vec![]);
    let e = run_plans(&c, &[p], &ctx, &Silent).unwrap_err().to_string();
    assert!(e.contains("not-a-dir/results"), "{e}");
    assert!(e.contains("--results DIR"), "{e}");
}

#[test]
fn calibration_meets_a_budget_and_says_when_it_cannot() {
    let text = TINY
        .replace("load = [0.6, 0.9]", "load = [0.9]")
        .replace("p_hat = 0.3", "budget = { messages_per_arrival = 0.4 }")
        .replace(
            "spec = \"Power-of-2\"",
            "spec = \"L-JSQ-Push\"\nbudget = { same_as = \"JSQ\" }",
        );
    let p = plan(&text, Profile::Full);
    assert_eq!(p.calibrations.len(), 2);
    let d = tempfile::tempdir().unwrap();
    let c = Cache::new(d.path());
    let rep = run(&c, std::slice::from_ref(&p), 2);
    use lb_model::slotted::calibrate::CalibrationStatus::*;
    let pull = &rep
        .calibrations
        .iter()
        .find(|(d, _, _)| d.contains("L-JBA-Pull"))
        .unwrap()
        .2;
    assert!(matches!(pull.status, Met | Closest), "{pull:?}");
    assert!((pull.achieved - 0.4).abs() < 0.05, "{pull:?}");
    assert!(pull.p_hat > 0.0 && pull.p_hat < 1.0);
    // JSQ costs 2N = 6 messages per dispatch decision: a Push(1) cannot match it.
    let push = &rep
        .calibrations
        .iter()
        .find(|(d, _, _)| d.contains("L-JSQ-Push"))
        .unwrap()
        .2;
    assert_eq!(push.status, OutOfReach, "{push:?}");
    assert_eq!(push.p_hat, 1.0);
    // The calibrated points carry the chosen p̂ and are cached under their keys.
    let st = status(&c, &p);
    assert!(st.iter().all(|s| s.state() == State::Cached), "{st:?}");
    // A second run reuses the calibrations.
    assert!(run(&c, std::slice::from_ref(&p), 2).calibrations.is_empty());
}

#[test]
fn drawn_rates_are_fixed_by_the_seed_and_nested_in_n() {
    use lb_manifest::model::slotted::expansion::uniform_rates;
    let a = uniform_rates(4, 0.3, 0.9, 3);
    let b = uniform_rates(4, 0.3, 0.9, 5);
    assert_eq!(a[..], b[..3]);
    assert!(b.iter().all(|r| (0.3..=0.9).contains(r)));
    assert_ne!(uniform_rates(5, 0.3, 0.9, 3), a);
}

/// A record whose numbers no correct run can give (more jobs completed than
/// arrived), resealed so that its checksum holds, is reported by the cache
/// check.
#[test]
fn cache_check_reads_a_record_for_consistency_not_only_its_checksum() {
    let p = plan(TINY, Profile::Full);
    let d = tempfile::tempdir().unwrap();
    let c = Cache::new(d.path());
    run(&c, std::slice::from_ref(&p), 1);
    assert!(
        lb_store::maintain::check_all(&c)
            .iter()
            .all(|x| x.problem.is_none())
    );
    let Target::Fixed(point) = &p.points[0].target else {
        unreachable!()
    };
    let path = c.replication_path(&point.key(), 0);
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let obj = v.as_object_mut().unwrap();
    obj.remove("checksum");
    let arrivals = obj["summary"]["arrivals"].as_u64().unwrap();
    obj.get_mut("summary").unwrap()["completed"] = serde_json::json!(arrivals + 1);
    let sum = lb_store::cache::checksum_of(&v);
    v.as_object_mut()
        .unwrap()
        .insert("checksum".into(), sum.into());
    std::fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let problems: Vec<String> = lb_store::maintain::check_all(&c)
        .into_iter()
        .filter_map(|x| x.problem)
        .collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("exceeds arrivals"), "{}", problems[0]);
    // Every reader applies the same check: the record is damaged
    // to the reader of replications, so the status counts it damaged, and a
    // run moves it aside and recomputes it, after which the cache is clean
    // and the record is what an untouched run gives.
    let key = point.key();
    assert!(matches!(
        c.read_replication(&key, 0),
        lb_store::cache::Read::Damaged(ref why) if why.contains("exceeds arrivals")
    ));
    let st = lb_store::run::status(&c, &p);
    assert_eq!(st[0].damaged, 1, "{}", st[0].damaged);
    let report = run(&c, std::slice::from_ref(&p), 1);
    assert_eq!(report.damaged.len(), 1, "{:?}", report.damaged);
    assert!(
        lb_store::maintain::check_all(&c)
            .iter()
            .all(|x| x.problem.is_none() || x.leftover)
    );
    let fresh = tempfile::tempdir().unwrap();
    let f = Cache::new(fresh.path());
    run(&f, std::slice::from_ref(&p), 1);
    let a = c.read_replication(&key, 0);
    let b = f.read_replication(&key, 0);
    match (a, b) {
        (lb_store::cache::Read::Valid(a), lb_store::cache::Read::Valid(b)) => {
            assert_eq!(
                serde_json::to_value(&a.summary).unwrap(),
                serde_json::to_value(&b.summary).unwrap()
            )
        }
        _ => panic!("not both valid"),
    }
}

#[test]
fn a_policy_sets_its_own_granularity_and_keeps_its_pairing() {
    let m = TINY.replace(
        "spec = \"Power-of-2\"",
        "spec = \"Power-of-2\"\nlabel = \"Power-of-2 (per job)\"\ngranularity = \"job\"",
    );
    let p = plan(&m, Profile::Full);
    let config = |i: usize| match &fixed(&p.points[i].target).config {
        lb_manifest::PointConfig::Slotted(c) => c.clone(),
        _ => unreachable!(),
    };
    use lb_core::slotted::Granularity;
    assert_eq!(config(0).granularity, Granularity::Batch);
    assert_eq!(config(2).granularity, Granularity::Job);
    // Same arrivals and service as the others at its load: still paired.
    let seeds = |i: usize| fixed(&p.points[i].target).seeds();
    assert_eq!(seeds(2).system, seeds(0).system);
}

#[test]
fn a_run_length_follows_its_sweep_axis() {
    let m = TINY
        .replace("load = [0.6, 0.9]", "epsilon_frac = [0.4, 0.1, 0.05]")
        .replace(
            "slots = 3000\nwarmup = 300",
            "slots = { scale = 10, of = \"epsilon_frac\", power = -2, min = 500 }\n\
             warmup = { scale = 1, of = \"epsilon_frac\", power = -2, min = 50 }",
        );
    let p = plan(&m, Profile::Full);
    let run = |i: usize| match &fixed(&p.points[i].target).config {
        lb_manifest::PointConfig::Slotted(c) => (c.run.slots, c.run.warmup),
        _ => unreachable!(),
    };
    // 10/0.4² = 62.5 → the minimum 500; 10/0.1² = 1000; 10/0.05² = 4000.
    assert_eq!(run(0), (500, 50));
    assert_eq!(run(3), (1000, 100));
    assert_eq!(run(6), (4000, 400));
    // A fixed length written as that number gives the same key.
    let fixed_len = TINY
        .replace("load = [0.6, 0.9]", "epsilon_frac = [0.05]")
        .replace("slots = 3000\nwarmup = 300", "slots = 4000\nwarmup = 400");
    let q = plan(&fixed_len, Profile::Full);
    assert_eq!(
        fixed(&q.points[0].target).key(),
        fixed(&p.points[6].target).key()
    );
}

/// A record carries the SHA-256 of the text of the manifests of its run
/// (a record leads to the manifest that planned it), and `lb
/// cache lineage` counts it.
#[test]
fn a_record_carries_its_manifests_hash() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("tiny.toml");
    std::fs::write(&path, TINY).unwrap();
    let e = lb_manifest::load(&path, Profile::Full).unwrap();
    let c = Cache::new(d.path().join("results"));
    let ctx = Context::capture(1, vec!["test".into()]).for_manifests(std::slice::from_ref(&path));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    pool.install(|| run_plans(&c, std::slice::from_ref(&e.plan), &ctx, &Silent))
        .unwrap();
    let Target::Fixed(point) = &e.plan.points[0].target else {
        unreachable!()
    };
    let Read::Valid(rec) = c.read_replication(&point.key(), 0) else {
        panic!("no record")
    };
    let want = lb_store::provenance::sha256_hex(TINY.as_bytes());
    assert_eq!(
        rec.provenance
            .manifest_sha256
            .get(&path.display().to_string()),
        Some(&want)
    );
    let l = lb_store::maintain::lineage(&c, d.path());
    assert!(l.records > 0);
    assert_eq!(l.with_manifest_hash, l.records);
}

/// A shard does not compute a point whose p̂ calibration another shard of
/// its stage owns and has not written: it reports it as waiting (never a
/// silent skip), and once the calibration is in the cache, nothing waits.
#[test]
fn a_shard_reports_the_points_waiting_for_a_calibration() {
    use lb_store::run::{Shard, run_plans_sharded};
    let text = r#"[experiment]
name = "waiting"
title = "A calibrated point under sharding"
model = "slotted"

[system]
dispatchers = 2
servers = { rates = [0.3, 0.5, 0.9] }
service = "bernoulli"
arrivals = "poisson"
granularity = "job"
load = 0.8

[[policy]]
spec = "Power-of-2"

[[policy]]
spec = "L-JSQ-Push"
label = "L-JSQ-Push budget"
d = 2
budget = { same_as = "Power-of-2" }

[run]
slots = 2000
warmup = 200
replications = 1
seed = 3
"#;
    let e =
        lb_manifest::load_str(std::path::Path::new("waiting.toml"), text, Profile::Full).unwrap();
    let plan = e.plan;
    assert_eq!(plan.calibrations.len(), 1);
    let ck = plan.calibrations[0].key();
    let d = tempfile::tempdir().unwrap();
    let cache = Cache::new(d.path());
    let ctx = Context::capture(1, vec![]);
    let owner = (0..2)
        .find(|&i| Shard { index: i, count: 2 }.owns(&ck, 0))
        .unwrap();
    let other = Shard {
        index: 1 - owner,
        count: 2,
    };
    let r = run_plans_sharded(
        &cache,
        std::slice::from_ref(&plan),
        &ctx,
        &Silent,
        Some(other),
    )
    .unwrap();
    assert_eq!(r.waiting.len(), 1, "{:?}", r.waiting);
    assert_eq!(r.waiting[0].0, "waiting");
    assert_eq!(r.waiting[0].1, "L-JSQ-Push budget");
    assert_eq!(r.waiting[0].2, ck);
    let mine = Shard {
        index: owner,
        count: 2,
    };
    run_plans_sharded(
        &cache,
        std::slice::from_ref(&plan),
        &ctx,
        &Silent,
        Some(mine),
    )
    .unwrap();
    let again = run_plans_sharded(
        &cache,
        std::slice::from_ref(&plan),
        &ctx,
        &Silent,
        Some(other),
    )
    .unwrap();
    assert!(again.waiting.is_empty(), "{:?}", again.waiting);
    // Each shard counts as reused only its own pairs: together, every
    // replication once (two points, one replication each).
    let a = run_plans_sharded(
        &cache,
        std::slice::from_ref(&plan),
        &ctx,
        &Silent,
        Some(mine),
    )
    .unwrap();
    let b = run_plans_sharded(
        &cache,
        std::slice::from_ref(&plan),
        &ctx,
        &Silent,
        Some(other),
    )
    .unwrap();
    assert_eq!((a.computed, b.computed), (0, 0));
    assert_eq!(a.reused + b.reused, 2, "{} + {}", a.reused, b.reused);
}

/// `lb plan --why`: a missing point is never computed (an empty cache), or
/// differs from the closest cached point in the fields named, or only in
/// its engine version.
#[test]
fn why_a_point_is_missing() {
    use lb_store::why::Cached;
    let d = tempfile::tempdir().unwrap();
    let cache = Cache::new(d.path());
    let p = plan(TINY, Profile::Full);
    let Target::Fixed(first) = &p.points[0].target else {
        unreachable!("TINY has no calibration")
    };
    let why = Cached::read(&cache).why(first);
    assert!(why.starts_with("never computed"), "{why}");
    let ctx = Context::capture(1, vec![]);
    run_plans(&cache, std::slice::from_ref(&p), &ctx, &Silent).unwrap();
    let cached = Cached::read(&cache);
    let longer = plan(&TINY.replace("slots = 3000", "slots = 4000"), Profile::Full);
    let Target::Fixed(edited) = &longer.points[0].target else {
        unreachable!()
    };
    let why = cached.why(edited);
    assert!(
        why.contains("differs in one field: config.run.slots: 3000 → 4000"),
        "{why}"
    );
    let mut moved = first.clone();
    moved.model_version += 1;
    let why = cached.why(&moved);
    assert!(why.contains("version moved"), "{why}");
    assert!(
        why.contains(&format!(
            "{} → {}",
            first.model_version,
            first.model_version + 1
        )),
        "{why}"
    );
}

/// Sharded runs need no file locks: where no lock file can be
/// made — here every record's `.lock` path is a directory, as good as a
/// filesystem that refuses locks — an unsharded run fails clearly, and the
/// shards of a run compute every record, identical to an unsharded run's
/// elsewhere.
#[test]
fn shards_need_no_file_locks() {
    use lb_store::run::{Shard, run_plans_sharded};
    let p = plan(TINY, Profile::Full);
    let d = tempfile::tempdir().unwrap();
    let cache = Cache::new(d.path().join("locked"));
    for pp in &p.points {
        let key = fixed(&pp.target).key();
        for r in 0..3 {
            let mut lock = cache.replication_path(&key, r).into_os_string();
            lock.push(".lock");
            std::fs::create_dir_all(&lock).unwrap();
        }
    }
    let ctx = Context::capture(1, vec![]);
    let e = run_plans(&cache, std::slice::from_ref(&p), &ctx, &Silent)
        .expect_err("an unsharded run locks each record");
    assert!(e.to_string().contains("lock"), "{e}");
    let mut computed = 0;
    for index in 0..3 {
        let r = run_plans_sharded(
            &cache,
            std::slice::from_ref(&p),
            &ctx,
            &Silent,
            Some(Shard { index, count: 3 }),
        )
        .unwrap_or_else(|e| panic!("shard {index}: {e}"));
        computed += r.computed;
    }
    assert_eq!(computed as usize, p.points.len() * 3);
    let free = Cache::new(d.path().join("free"));
    run_plans(&free, std::slice::from_ref(&p), &ctx, &Silent).unwrap();
    assert_eq!(records(&cache), records(&free));
}

/// Rewrites the replication record at `path` as format 1 wrote it: its
/// point inside, its checksum resealed.
fn as_format_1(path: &std::path::Path, point: &lb_manifest::Point) {
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("checksum");
    o.insert("format".into(), 1.into());
    o.insert("point".into(), serde_json::to_value(point).unwrap());
    let sum = lb_store::cache::checksum_of(&v);
    v.as_object_mut()
        .unwrap()
        .insert("checksum".into(), sum.into());
    std::fs::write(path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
}

/// Replication records of format 2 leave the point's configuration to
/// their key directory's `point.json`: none repeats it, each reads back
/// with it, a record of format 1 (which repeats it) reads as the same
/// record, and without a valid `point.json` a replication is damaged.
#[test]
fn replication_records_leave_the_configuration_to_point_json() {
    use lb_store::cache::REPLICATION_FORMAT;
    let p = plan(TINY, Profile::Full);
    let d = tempfile::tempdir().unwrap();
    let c = Cache::new(d.path());
    run(&c, std::slice::from_ref(&p), 1);
    let key = fixed(&p.points[0].target).key();
    let path = c.replication_path(&key, 0);
    let on_disk: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(on_disk["format"], REPLICATION_FORMAT);
    assert!(on_disk.get("point").is_none(), "{on_disk}");
    let Read::Valid(rec) = c.read_replication(&key, 0) else {
        panic!("not valid")
    };
    assert_eq!(rec.point.key(), key);
    // The same replication as format 1 wrote it: its point inside.
    as_format_1(&path, &rec.point);
    let Read::Valid(old) = c.read_replication(&key, 0) else {
        panic!("format 1 not read")
    };
    assert_eq!(old.point, rec.point);
    assert_eq!(
        serde_json::to_value(&old.summary).unwrap(),
        serde_json::to_value(&rec.summary).unwrap()
    );
    // Format 2 without its point.json: damaged, and a run repairs both.
    std::fs::write(&path, serde_json::to_vec_pretty(&on_disk).unwrap()).unwrap();
    std::fs::remove_file(c.point_path(&key)).unwrap();
    assert!(matches!(
        c.read_replication(&key, 0),
        Read::Damaged(ref why) if why.contains("point.json")
    ));
    let before = records(&c);
    run(&c, std::slice::from_ref(&p), 1);
    assert!(matches!(c.read_replication(&key, 0), Read::Valid(_)));
    assert_eq!(
        records(&c).len(),
        before.len() + 1,
        "point.json written again"
    );
}

/// `lb cache adopt` keeps a cache record of format 1 when the recompute's
/// format 2 record holds the same replication: a change of format alone
/// rewrites nothing.
#[test]
fn adopting_keeps_a_format_1_record_of_the_same_numbers() {
    let p = plan(TINY, Profile::Full);
    let (d, e) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (c, fresh) = (Cache::new(d.path()), Cache::new(e.path()));
    run(&c, std::slice::from_ref(&p), 1);
    run(&fresh, std::slice::from_ref(&p), 2);
    let key = fixed(&p.points[0].target).key();
    let Read::Valid(rec) = c.read_replication(&key, 0) else {
        panic!("not valid")
    };
    let path = c.replication_path(&key, 0);
    as_format_1(&path, &rec.point);
    let old = std::fs::read(&path).unwrap();
    let before = records(&c);
    let a = lb_store::maintain::adopt(&c, &fresh).unwrap();
    assert!(
        a.replaced.is_empty() && a.new == 0 && a.skipped.is_empty(),
        "{a:?}"
    );
    assert_eq!(a.kept, before.len());
    assert_eq!(std::fs::read(&path).unwrap(), old);
}

/// A command reads a record as often as it needs and parses it once: a
/// second read of an unchanged record is the first's; a record written
/// since is read again.
#[test]
fn a_record_is_parsed_once_per_process_until_it_changes() {
    let d = tempfile::tempdir().unwrap();
    let p = plan(TINY, Profile::Full);
    run(&Cache::new(d.path()), std::slice::from_ref(&p), 2);
    let c = Cache::new(d.path());
    let key = fixed(&p.points[0].target).key();
    let first = c.read_replication(&key, 0);
    assert!(matches!(first, Read::Valid(_)));
    assert_eq!(c.replication_parses(), 1);
    for _ in 0..3 {
        assert_eq!(c.read_replication(&key, 0), first);
    }
    assert_eq!(c.replication_parses(), 1);
    c.read_replication(&key, 1);
    assert_eq!(c.replication_parses(), 2);
    // Edited on disk: read again, and found damaged.
    let path = c.replication_path(&key, 0);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replacen("\"mean_sum_q\": ", "\"mean_sum_q\": 1", 1),
    )
    .unwrap();
    assert!(matches!(c.read_replication(&key, 0), Read::Damaged(ref w) if w.contains("checksum")));
    assert_eq!(c.replication_parses(), 3);
}

/// A snapshot reads one state of the store: a record changed on disk since
/// the snapshot stamped it is read as it was, until the snapshot writes,
/// locks or packs; the cache it came from reads each file as it is now.
#[test]
fn a_snapshot_reads_one_state_until_it_changes_the_store() {
    let d = tempfile::tempdir().unwrap();
    let p = plan(TINY, Profile::Full);
    run(&Cache::new(d.path()), std::slice::from_ref(&p), 2);
    let live = Cache::new(d.path());
    let snap = live.snapshot();
    let key = fixed(&p.points[0].target).key();
    let first = snap.read_replication(&key, 0);
    assert!(matches!(first, Read::Valid(_)));
    let path = snap.replication_path(&key, 0);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replacen("\"mean_sum_q\": ", "\"mean_sum_q\": 1", 1),
    )
    .unwrap();
    // The snapshot keeps what it read; the live cache sees the edit.
    assert_eq!(snap.read_replication(&key, 0), first);
    assert!(matches!(live.read_replication(&key, 0), Read::Damaged(_)));
    // A lock taken through the snapshot forgets its stamps.
    drop(snap.lock(&path).unwrap());
    assert!(matches!(snap.read_replication(&key, 0), Read::Damaged(_)));
}
