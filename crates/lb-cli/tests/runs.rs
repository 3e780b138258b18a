//! The `lb` binary running experiments: plan, run, show, cache, verify; thread-count
//! independence; kills mid-run and mid-write; concurrent runs; interrupts; adopting a recompute.

mod common;

use common::*;

#[test]
fn threads_1_and_2_give_identical_records() {
    let d = Dir::new(&manifest(3000, 2));
    ok(d.run(&["run", "m.toml", "--threads", "1", "--results", "r1"]));
    ok(d.run(&["run", "m.toml", "--threads", "2", "--results", "r2"]));
    let (a, b) = (records(&d.cache("r1")), records(&d.cache("r2")));
    assert_eq!(a.len(), total_records(2));
    assert_eq!(a, b);
}

/// `lb show` summarises a long list of servers in a line ("10 × {…}"),
/// and `--full` prints it whole.
#[test]
fn lb_show_summarises_the_servers() {
    let d = Dir::new(&manifest(1000, 1).replace("count = 2,", "count = 10,"));
    let plan = ok(d.run(&["plan", "m.toml"]));
    ok(d.run(&["run", "m.toml", "--threads", "1"]));
    let plan_after = ok(d.run(&["plan", "m.toml"]));
    assert_ne!(plan, plan_after);
    let key = wr_key_at_09(&plan_after);
    let short = ok(d.run(&["show", &key]));
    let full = ok(d.run(&["show", &key, "--full"]));
    assert!(
        short.contains("\"10 × {\\\"law\\\":\\\"bernoulli\\\",\\\"p\\\":0.4}\""),
        "{short}"
    );
    assert!(short.lines().count() * 2 < full.lines().count(), "{short}");
    assert!(full.contains("\"p\": 0.4"), "{full}");
}

#[test]
fn plan_run_show_cache_verify() {
    let d = Dir::new(&manifest(2000, 2));
    let plan = ok(d.run(&["plan", "m.toml"]));
    assert!(plan.contains("12 points, 4 calibrations"), "{plan}");
    assert!(plan.contains("needs-calibration"), "{plan}");
    let out = ok(d.run(&["run", "m.toml", "--threads", "2"]));
    assert!(out.contains("28 record(s) computed"), "{out}");
    let plan = ok(d.run(&["plan", "m.toml"]));
    assert!(plan.contains("12 cached, 0 partial, 0 missing"), "{plan}");
    // The WR point at load 0.9 is the 12th row; its key opens `lb show`.
    let key = wr_key_at_09(&plan);
    let show = ok(d.run(&["show", &key[..8]]));
    assert!(show.contains("policy WR"), "{show}");
    assert!(show.contains("\"weighted_random\""), "{show}");
    assert!(show.contains("provenance"), "{show}");
    assert!(show.contains("lb verify --key"), "{show}");
    assert!(show.contains("computed by:"), "{show}");
    let ls = ok(d.run(&["cache", "ls"]));
    assert!(
        ls.contains("16 keys, 24 replication records, 0 problem files"),
        "{ls}"
    );
    let v = ok(d.run(&["cache", "check"]));
    assert!(v.contains("0 damaged, 0 leftovers"), "{v}");
    let v = ok(d.run(&["verify", "--sample", "5", "--seed", "3"]));
    assert!(v.contains("5 record(s) recomputed: 5 identical"), "{v}");
    // A calibration record shows its probes.
    let cal = plan
        .lines()
        .find(|l| l.contains("cached   calibrated"))
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let show = ok(d.run(&["show", &cal]));
    assert!(show.contains("probes"), "{show}");
    // Hand-edit a record: cache verify fails, lb verify reports it, run repairs it.
    let c = d.cache("results");
    let (k, _) = &c.keys()[0];
    let victim = if c.replication_files(k).is_empty() {
        c.calibration_path(k)
    } else {
        c.replication_path(k, 0)
    };
    let t = std::fs::read_to_string(&victim).unwrap();
    std::fs::write(&victim, t.replacen("\"key\": \"", "\"key\": \"0", 1)).unwrap();
    let o = d.run(&["cache", "check"]);
    assert!(!o.status.success());
    assert!(text(&o).0.contains("checksum mismatch"), "{}", text(&o).0);
    let out = ok(d.run(&["run", "m.toml"]));
    assert!(out.contains("1 damaged record(s) recomputed"), "{out}");
    let v = ok(d.run(&["cache", "check"]));
    assert!(v.contains("0 damaged, 1 leftovers"), "{v}");
    let gc = ok(d.run(&["cache", "gc"]));
    assert!(gc.contains("removed 1 item(s)"), "{gc}");
    let v = ok(d.run(&["cache", "check"]));
    assert!(v.contains("0 damaged, 0 leftovers"), "{v}");
}

#[test]
fn quick_points_have_their_own_keys() {
    let d = Dir::new(&manifest(20_000, 2));
    ok(d.run(&["run", "m.toml", "--quick"]));
    let plan = ok(d.run(&["plan", "m.toml"]));
    assert!(plan.contains("0 cached"), "{plan}");
    let plan = ok(d.run(&["plan", "m.toml", "--quick"]));
    assert!(plan.contains("12 cached"), "{plan}");
}

#[test]
fn a_kill_mid_run_loses_nothing_and_the_next_run_resumes() {
    let reps = 12;
    let d = Dir::new(&manifest(30_000, reps));
    let mut child = started_run(&d, Stdio::null());
    let c = d.cache("results");
    child.kill().unwrap();
    child.wait().unwrap();
    let present = all_present_valid(&c);
    assert!(
        present < total_records(reps as usize),
        "the run finished before the kill; make it longer"
    );
    // Resume, and compare with an uninterrupted run.
    let out = ok(d.run(&["run", "m.toml", "--threads", "2"]));
    assert!(out.contains("already cached"), "{out}");
    ok(d.run(&["run", "m.toml", "--threads", "2", "--results", "clean"]));
    assert_eq!(all_present_valid(&c), total_records(reps as usize));
    assert_eq!(records(&c), records(&d.cache("clean")));
    ok(d.run(&["cache", "check"]));
}

#[test]
fn a_kill_in_the_middle_of_a_write_leaves_no_damaged_record() {
    let d = Dir::new(&manifest(2000, 2));
    let mut child = d
        .lb(&["run", "m.toml", "--threads", "1"])
        .env("LB_FAULT_PAUSE_BEFORE_RENAME_MS", "400")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let c = d.cache("results");
    let t0 = Instant::now();
    // Wait until a write is under way: a temporary file exists.
    let temp = loop {
        assert!(t0.elapsed() < Duration::from_secs(60), "no write started");
        let found = c.keys().into_iter().find_map(|(_, dir)| {
            std::fs::read_dir(dir).ok()?.flatten().find_map(|e| {
                let n = e.file_name().to_string_lossy().to_string();
                (classify(&n) == FileKind::Temp).then(|| e.path())
            })
        });
        if let Some(t) = found {
            break t;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(temp.exists(), "the kill fell after the rename");
    // The record being written does not exist; nothing present is damaged.
    let name = temp.file_name().unwrap().to_string_lossy().to_string();
    let record =
        temp.with_file_name(name[1..].split(".json").next().unwrap().to_string() + ".json");
    assert!(
        !record.exists()
            || matches!(
                lb_store::cache::read_record::<serde_json::Value>(&record),
                Read::Valid(_)
            )
    );
    all_present_valid(&c);
    let o = d.run(&["cache", "check"]);
    assert!(text(&o).0.contains("temporary file"), "{}", text(&o).0);
    // The next run removes the leftover and completes the cache.
    let out = d.run(&["run", "m.toml"]);
    let (_, err) = text(&out);
    assert!(out.status.success());
    assert!(err.contains("removed a temporary file"), "{err}");
    assert!(!temp.exists());
    assert_eq!(all_present_valid(&c), total_records(2));
    ok(d.run(&["cache", "check"]));
}

#[test]
fn two_concurrent_runs_neither_corrupt_nor_duplicate() {
    let reps = 6;
    let d = Dir::new(&manifest(10_000, reps));
    let spawn = || {
        d.lb(&["run", "m.toml", "--threads", "1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    let computed = |o: &Output| -> usize {
        let out = ok(o.clone());
        let i = out.find(" record(s) computed").expect(&out);
        out[..i].rsplit(' ').next().unwrap().parse().unwrap()
    };
    let c = d.cache("results");
    let total = total_records(reps as usize);
    assert_eq!(all_present_valid(&c), total);
    // Each replication and calibration was computed by exactly one process,
    // and both did part of the work.
    let (ca, cb) = (computed(&a), computed(&b));
    assert_eq!(ca + cb, total - 12, "{:?} {:?}", text(&a), text(&b));
    assert!(ca > 0 && cb > 0, "the runs did not overlap: {ca} and {cb}");
    ok(d.run(&["run", "m.toml", "--results", "clean"]));
    assert_eq!(records(&c), records(&d.cache("clean")));
}

#[test]
fn an_unwritable_results_directory_fails_clearly() {
    let d = Dir::new(&manifest(2000, 2));
    std::fs::write(d.path.join("file"), "x").unwrap();
    let o = d.run(&["run", "m.toml", "--results", "file/results"]);
    assert!(!o.status.success());
    let (_, err) = text(&o);
    assert!(
        err.starts_with("error: file/results: cannot create the results directory"),
        "{err}"
    );
    assert!(err.contains("--results DIR"), "{err}");
    assert!(!Path::new(&d.path.join("file/results")).exists());
}

/// Someone edits numbers in a record, consistently, and recomputes its
/// checksum: the cache check cannot see it, `lb verify` (recomputing the
/// record) does.
#[test]
fn a_resealed_tampered_record_is_caught_by_verify() {
    let d = Dir::new(&manifest(2000, 1));
    ok(d.run(&["run", "m.toml", "--threads", "2"]));
    let c = d.cache("results");
    let (k, _) = c
        .keys()
        .into_iter()
        .find(|(k, _)| !c.replication_files(k).is_empty())
        .unwrap();
    let path = c.replication_path(&k, 0);
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let obj = v.as_object_mut().unwrap();
    obj.remove("checksum");
    // Scaled consistently (the per-server means too), so that the cache
    // check's consistency rules cannot see it either.
    let summary = obj.get_mut("summary").unwrap();
    let q = summary["mean_sum_q"].as_f64().unwrap();
    summary["mean_sum_q"] = serde_json::json!(q * 0.9);
    for x in summary["mean_queue"].as_array_mut().unwrap() {
        *x = serde_json::json!(x.as_f64().unwrap() * 0.9);
    }
    let sum = lb_store::cache::checksum_of(&v);
    v.as_object_mut()
        .unwrap()
        .insert("checksum".into(), sum.into());
    std::fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let v = ok(d.run(&["cache", "check"]));
    assert!(v.contains("0 damaged"), "{v}");
    let o = d.run(&["verify", "--key", &k.hex()[..12]]);
    assert!(
        !o.status.success(),
        "verify passed a tampered record: {}",
        text(&o).0
    );
    assert!(text(&o).0.contains("differs"), "{}", text(&o).0);
}

/// Ctrl-C (SIGINT) says what was kept and that a rerun resumes, and ends
/// with status 130; what it kept is valid, and the rerun gives the records
/// of an uninterrupted run (a newcomer's stumble: it was silent).
#[test]
fn an_interrupt_says_what_was_kept_and_a_rerun_resumes() {
    let reps = 12;
    let d = Dir::new(&manifest(30_000, reps));
    let child = started_run(&d, Stdio::piped());
    let c = d.cache("results");
    // SAFETY: a signal to the child this test spawned.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted") && err.contains("run the same command again"),
        "{err}"
    );
    assert!(all_present_valid(&c) < total_records(reps as usize));
    ok(d.run(&["run", "m.toml", "--threads", "2"]));
    ok(d.run(&["run", "m.toml", "--threads", "2", "--results", "clean"]));
    assert_eq!(records(&c), records(&d.cache("clean")));
}

/// `lb cache adopt` takes a recompute into the cache rewriting only what
/// changed, then packs: a recompute of the same records keeps every record
/// of the cache byte for byte (their provenance differs, their numbers do
/// not), and the packs too; a record the cache lacks is added, a damaged one
/// replaced, and a damaged record of the recompute is left out with a
/// failing status.
#[test]
fn cache_adopt_rewrites_only_what_changed() {
    use lb_test_support::texts;
    let d = Dir::new(&manifest(1000, 2));
    ok(d.run(&["run", "m.toml", "--threads", "1"]));
    ok(d.run(&["--results", "fresh", "run", "m.toml", "--threads", "2"]));
    let (cache, fresh_cache) = (d.cache("results"), d.cache("fresh"));
    let before = texts(&cache);
    let fresh = texts(&fresh_cache);
    assert_eq!(before.len(), fresh.len());
    assert_ne!(before, fresh, "a recompute writes its own provenance");
    let out = ok(d.run(&["cache", "adopt", "fresh"]));
    assert!(
        out.contains(&format!("{} record(s) kept as they are", before.len()))
            && out.contains("0 replaced, 0 new"),
        "{out}"
    );
    assert_eq!(
        texts(&cache),
        before,
        "adopting the same numbers changes no record"
    );
    assert!(
        lb_store::packing::loose_records(&cache).is_empty(),
        "adopt ends in packs"
    );
    let packs = relative_snapshot(&d.path.join("results"));
    ok(d.run(&["cache", "adopt", "fresh"]));
    assert_eq!(
        relative_snapshot(&d.path.join("results")),
        packs,
        "nor any pack"
    );
    // One replication missing from the cache, another damaged there (a
    // loose file over its packed record).
    let reps: Vec<&String> = before.keys().filter(|p| p.contains("/r0")).collect();
    let key_of = |rel: &str| lb_model::Key::parse(rel.split('/').nth(1).unwrap()).unwrap();
    let name_of = |rel: &str| rel.rsplit('/').next().unwrap().to_string();
    cache
        .drop_packed(&[(key_of(reps[0]), name_of(reps[0]))])
        .unwrap();
    let damaged = d.path.join("results").join(reps[1]);
    std::fs::create_dir_all(damaged.parent().unwrap()).unwrap();
    std::fs::write(
        &damaged,
        before[reps[1]]
            .replacen("\"replication\"", "\"replication\" ", 1)
            .replacen('1', "2", 1),
    )
    .unwrap();
    let out = ok(d.run(&["cache", "adopt", "fresh"]));
    assert!(out.contains("1 replaced, 1 new"), "{out}");
    let after = texts(&cache);
    assert_eq!(after[reps[0]], fresh[reps[0]]);
    assert_eq!(after[reps[1]], fresh[reps[1]]);
    all_present_valid(&cache);
    // A damaged record of the recompute is not taken.
    let bad = d.path.join("fresh").join(reps[2]);
    std::fs::write(&bad, "{").unwrap();
    let o = d.run(&["cache", "adopt", "fresh"]);
    assert!(!o.status.success());
    let (_, err) = text(&o);
    assert!(
        err.contains("skipped") && err.contains("cache check"),
        "{err}"
    );
    assert_eq!(texts(&cache)[reps[2]], before[reps[2]]);
}

/// A reproduce that adds records says which packs it rewrote and how to
/// leave the cache as it was; one that adds none says nothing of packs.
#[test]
fn a_reproduce_says_which_packs_it_rewrote() {
    let d = Dir::new(&manifest(2_000, 1));
    let first = d.run(&["reproduce", "m.toml", "--out", "report"]);
    let (out, err) = text(&first);
    assert!(first.status.success(), "{out}{err}");
    assert!(out.contains("new record(s) into"), "{out}");
    assert!(out.contains("To leave results as it was"), "{out}");
    let again = d.run(&["reproduce", "m.toml", "--out", "report"]);
    let (out, err) = text(&again);
    assert!(again.status.success(), "{out}{err}");
    assert!(!out.contains("pack(s) of"), "{out}");
    assert!(!out.contains("CPU-seconds"), "{out}");
    let cost = d.run(&["reproduce", "m.toml", "--out", "report", "--cost"]);
    assert!(text(&cost).0.contains("CPU-seconds"));
}
