//! Precision rules in runs: a pilot or Stein's first stage chooses the replications,
//! deterministically; control variates decide on the controlled variance; `lb verify`
//! re-decides precision records.

mod common;

use common::{TINY, fixed, plan, records, run};
use lb_manifest::Profile;
use lb_store::cache::Cache;
use lb_store::provenance::Context;
use lb_store::run::Silent;

/// TINY at one load with the precision rule `rule`, run into two fresh
/// caches on 1 and 2 threads, which must hold the same records and the
/// same decisions: (plan, caches, reports, their directories).
#[allow(clippy::type_complexity)]
fn precision_runs(
    rule: &str,
) -> (
    lb_manifest::plan::Plan,
    (Cache, Cache),
    (lb_store::run::Report, lb_store::run::Report),
    (tempfile::TempDir, tempfile::TempDir),
) {
    let text = TINY
        .replace("replications = 3", &format!("precision = {rule}"))
        .replace("load = [0.6, 0.9]", "load = [0.6]");
    let p = plan(&text, Profile::Full);
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (c1, c2) = (Cache::new(d1.path()), Cache::new(d2.path()));
    let r1 = run(&c1, std::slice::from_ref(&p), 1);
    let r2 = run(&c2, std::slice::from_ref(&p), 2);
    assert_eq!(records(&c1), records(&c2));
    assert_eq!(outcomes(&r1), outcomes(&r2));
    (p, (c1, c2), (r1, r2), (d1, d2))
}

/// The precision outcomes of a run, in its order.
fn outcomes(r: &lb_store::run::Report) -> Vec<lb_model::precision::Outcome> {
    r.precision.iter().map(|x| x.1.clone()).collect()
}

#[test]
fn precision_adds_replications_deterministically() {
    let (_, (c1, _), (r1, _), _dirs) = precision_runs(
        "{ metric = \"mean_sum_q\", rel_half_width = 0.02, min = 2, max = 6, step = 2, procedure = \"sequential\" }",
    );
    assert_eq!(r1.precision.len(), 3);
    for (key, o) in &r1.precision {
        assert!([2, 4, 6].contains(&o.replications));
        // The record says which: met or cap.
        let f = std::fs::read_dir(c1.key_dir(key))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .find(|n| n.starts_with("precision-"))
            .unwrap();
        let text = std::fs::read_to_string(c1.key_dir(key).join(f)).unwrap();
        assert!(
            text.contains("\"stop\": \"met\"") || text.contains("\"stop\": \"cap\""),
            "{text}"
        );
        assert_eq!(c1.replication_files(key).len() as u32, o.replications);
    }
}

/// A precision outcome's stop agrees with its interval: met when the
/// relative half-width is within `target`, else short below `max`
/// replications or capped at it.
fn assert_stop_says_the_target(o: &lb_model::precision::Outcome, target: f64, max: u32) {
    use lb_model::precision::Stop;
    let met = o.interval.as_ref().unwrap().rel_half_width.unwrap() <= target;
    match o.stop {
        Stop::Met => assert!(met, "{o:?}"),
        Stop::Short => assert!(!met && o.replications < max, "{o:?}"),
        Stop::Cap => assert!(!met && o.replications == max, "{o:?}"),
        s => panic!("{s:?}"),
    }
}

/// The pilot procedure: the pilot's own replications (indices from
/// PILOT_BASE) alone choose n, the point runs replications 0..n, and the
/// record says whether the interval on them met the target.
#[test]
fn a_pilot_chooses_the_replications_deterministically() {
    use lb_model::precision::{PILOT_BASE, pilot_replications};
    let (p, (c1, c2), (r1, _), _dirs) = precision_runs(
        "{ metric = \"mean_sum_q\", rel_half_width = 0.02, min = 3, max = 9, step = 2 }",
    );
    assert_eq!(r1.precision.len(), 3);
    let lb_manifest::plan::Replications::Precision(rule) = &p.points[0].replications else {
        unreachable!()
    };
    for (key, o) in &r1.precision {
        let files = c1.replication_files(key);
        let pilot: Vec<_> = (0..3)
            .map(|i| {
                c1.read_replication(key, PILOT_BASE + i)
                    .valid()
                    .unwrap()
                    .summary
            })
            .collect();
        // n is the pilot's choice, on the grid 3, 5, 7, 9.
        assert_eq!(o.replications, pilot_replications(rule, &pilot), "{o:?}");
        assert!([3, 5, 7, 9].contains(&o.replications));
        let main: Vec<u64> = (0..o.replications as u64).collect();
        let mut want = main.clone();
        want.extend(PILOT_BASE..PILOT_BASE + 3);
        assert_eq!(files, want);
        assert_stop_says_the_target(o, 0.02, 9);
    }
    // A second run computes nothing and decides the same.
    let again = run(&c1, std::slice::from_ref(&p), 2);
    assert_eq!(
        again
            .precision
            .iter()
            .map(|x| x.1.clone())
            .collect::<Vec<_>>(),
        r1.precision.iter().map(|x| x.1.clone()).collect::<Vec<_>>()
    );
    assert_eq!(records(&c1), records(&c2));
}

/// Stein's procedure: the point's own replications 0..min choose n (no
/// pilot records), the point runs 0..n, and the rule's interval is Stein's,
/// on the first stage's variance.
#[test]
fn steins_first_stage_is_the_points_own_and_chooses_n() {
    use lb_model::precision::{stein_interval, stein_replications};
    let (p, (c1, _), (r1, _), _dirs) = precision_runs(
        "{ metric = \"mean_sum_q\", rel_half_width = 0.02, min = 3, max = 9, step = 2, procedure = \"stein\" }",
    );
    assert_eq!(r1.precision.len(), 3);
    let lb_manifest::plan::Replications::Precision(rule) = &p.points[0].replications else {
        unreachable!()
    };
    let mut above_first = 0;
    for (key, o) in &r1.precision {
        // No pilot: replications 0..n and nothing else.
        let files = c1.replication_files(key);
        assert_eq!(files, (0..o.replications as u64).collect::<Vec<_>>());
        let all: Vec<_> = files
            .iter()
            .map(|&i| c1.read_replication(key, i).valid().unwrap().summary)
            .collect();
        assert_eq!(o.replications, stein_replications(rule, &all[..3]), "{o:?}");
        let vals: Vec<f64> = all.iter().map(|s| rule.metric.value(s).unwrap()).collect();
        assert_eq!(o.interval.as_ref(), Some(&stein_interval(&vals, 3, 0.95)));
        above_first += usize::from(o.replications > 3);
        assert_stop_says_the_target(o, 0.02, 9);
    }
    // The target is tight enough that some point needs a second stage.
    assert!(above_first > 0, "{:?}", r1.precision);
}

/// `lb verify` re-decides a precision record from the replications it rests
/// on: a record edited and resealed (its checksum recomputed, so the cache
/// check passes it) is caught.
#[test]
fn verify_re_decides_precision_records() {
    use lb_store::verify::{Item, items, verify};
    let text = TINY
        .replace("replications = 3", "precision = { metric = \"mean_sum_q\", rel_half_width = 0.02, min = 2, max = 6, step = 2 }")
        .replace("load = [0.6, 0.9]", "load = [0.6]");
    let p = plan(&text, Profile::Full);
    let d = tempfile::tempdir().unwrap();
    let c = Cache::new(d.path());
    run(&c, std::slice::from_ref(&p), 1);
    let precision: Vec<Item> = items(&c, None)
        .into_iter()
        .filter(|i| matches!(i, Item::Precision(..)))
        .collect();
    assert_eq!(precision.len(), 3);
    assert!(
        verify(&c, &precision, &Silent)
            .iter()
            .all(|v| v.problem.is_none())
    );
    // Claim a tighter interval than the replications give, and reseal.
    let Item::Precision(key, name) = &precision[0] else {
        unreachable!()
    };
    let path = c.key_dir(key).join(name);
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let obj = v.as_object_mut().unwrap();
    obj.remove("checksum");
    let h = obj["outcome"]["interval"]["half_width"].as_f64().unwrap();
    obj.get_mut("outcome").unwrap()["interval"]["half_width"] = serde_json::json!(h / 2.0);
    let sum = lb_store::cache::checksum_of(&v);
    v.as_object_mut()
        .unwrap()
        .insert("checksum".into(), sum.into());
    std::fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let verdicts = verify(&c, &precision, &Silent);
    let bad: Vec<_> = verdicts.iter().filter_map(|v| v.problem.as_ref()).collect();
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].contains("differs"), "{}", bad[0]);
}

/// A precision rule with a control variate (the pooled queue): the pilot
/// chooses n from the pairs' residual variance, the control point runs the
/// replications the pairs need, the record's interval is the control-variate
/// interval of pairs 0..n, and all of it is the same on 1 and 2 threads,
/// sharded stage by stage, and when `lb verify` decides again. Near heavy
/// traffic JSQ follows the pooled queue, so it needs fewer replications
/// than its own variance asks for under the same rule without the control.
#[test]
fn a_control_variate_lets_the_pilot_decide_on_the_controlled_variance() {
    control_variate_decides("");
}

/// The same under Stein's procedure: the first stage's 4 pairs (the
/// point's own replications 0..4 and the control's) choose n, and the
/// interval is Stein's form of the control variate on pairs 0..n.
#[test]
fn a_control_variate_lets_steins_first_stage_decide() {
    control_variate_decides(", procedure = \"stein\"");
}

fn control_variate_decides(procedure: &str) {
    use lb_model::precision::{
        PILOT_BASE, Stop, control_variate_of, controlled_pilot, stein_controlled,
    };
    use lb_store::run::{Shard, run_plans_sharded, stages};
    use lb_store::verify::{Item, items, verify};
    let rule = format!(
        "{{ metric = \"mean_sum_q\", rel_half_width = 0.01, min = 4, max = 64, step = 4{procedure} }}"
    );
    let text = TINY
        .replace("load = [0.6, 0.9]", "load = [0.97]")
        .replace(
            "[[policy]]\nspec = \"L-JBA-Pull\"\np_hat = 0.3\n\n[[policy]]\nspec = \"Power-of-2\"\n",
            "[[policy]]\nspec = \"Pooled\"\n",
        )
        .replace("slots = 3000\nwarmup = 300", "slots = 40000\nwarmup = 4000");
    let controlled = text.replace(
        "replications = 3",
        &format!(
            "precision = {}, control = {{ policy = \"Pooled\", mean = \"pooled_exact\" }} }}",
            &rule[..rule.len() - 2]
        ),
    );
    let plain = plan(
        &text.replace("replications = 3", &format!("precision = {rule}")),
        Profile::Full,
    );
    let p = plan(&controlled, Profile::Full);
    let jsq = &p.points[0];
    let lb_manifest::plan::Replications::Precision(r) = &jsq.replications else {
        unreachable!()
    };
    let c = r.control.clone().expect("JSQ pairs with the pooled queue");
    let ck = lb_manifest::Key::parse(&c.key).unwrap();
    assert_eq!(ck, fixed(&p.points[1].target).key());
    assert!(matches!(&p.points[1].replications,
        lb_manifest::plan::Replications::Precision(r) if r.control.is_none()));
    let key = fixed(&jsq.target).key();

    let (d1, d2, d3, d5) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let (c1, c2) = (Cache::new(d1.path()), Cache::new(d2.path()));
    let r1 = run(&c1, std::slice::from_ref(&p), 1);
    run(&c2, std::slice::from_ref(&p), 2);
    assert_eq!(records(&c1), records(&c2));
    let o = &r1.precision.iter().find(|(k, _)| *k == key).unwrap().1;
    let read = |k: &lb_manifest::Key, rs: std::ops::Range<u64>| -> Vec<_> {
        rs.map(|i| c1.read_replication(k, i).valid().unwrap().summary)
            .collect()
    };
    let n = o.replications;
    let chose = match r.first_stage() {
        Some(_) => stein_controlled(r, c.exact, &read(&key, 0..4), &read(&ck, 0..4)),
        None => controlled_pilot(
            r,
            c.exact,
            &read(&key, PILOT_BASE..PILOT_BASE + 4),
            &read(&ck, PILOT_BASE..PILOT_BASE + 4),
        ),
    };
    assert_eq!(Some(n), chose);
    assert!(o.paired, "{o:?}");
    let v = |s: &Vec<lb_model::config::Summary>| -> Vec<f64> {
        s.iter().map(|s| r.metric.value(s).unwrap()).collect()
    };
    let (ys, cs) = (v(&read(&key, 0..n as u64)), v(&read(&ck, 0..n as u64)));
    let (est, hw, _) = control_variate_of(&ys, &cs, c.exact, r.first_stage(), 0.95, true).unwrap();
    let iv = o.interval.as_ref().unwrap();
    assert_eq!((iv.mean, iv.half_width), (est, hw));
    assert_eq!(o.stop == Stop::Met, hw / est <= 0.01, "{o:?}");
    // Without the control the same rule asks for more of JSQ's replications.
    let c5 = Cache::new(d5.path());
    let r5 = run(&c5, std::slice::from_ref(&plain), 2);
    let direct = &r5.precision.iter().find(|(k, _)| *k == key).unwrap().1;
    eprintln!(
        "JSQ: {} replications direct, {n} with the control ({o:?})",
        direct.replications
    );
    assert!(
        direct.replications > n,
        "direct {} replications, controlled {n}",
        direct.replications
    );

    // Sharded, stage by stage: the same records, and nothing left over.
    let c3 = Cache::new(d3.path());
    let ctx = Context::capture(1, vec![]);
    for _ in 0..stages(std::slice::from_ref(&p)) {
        for index in 0..2 {
            run_plans_sharded(
                &c3,
                std::slice::from_ref(&p),
                &ctx,
                &Silent,
                Some(Shard { index, count: 2 }),
            )
            .unwrap();
        }
    }
    let last = run(&c3, std::slice::from_ref(&p), 1);
    assert_eq!(last.computed, 0, "the stages left work: {last:?}");
    assert_eq!(records(&c3), records(&c1));

    // `lb verify` decides again from both points' records.
    let precision: Vec<Item> = items(&c1, None)
        .into_iter()
        .filter(|i| matches!(i, Item::Precision(..)))
        .collect();
    assert_eq!(precision.len(), 2);
    assert!(
        verify(&c1, &precision, &Silent)
            .iter()
            .all(|v| v.problem.is_none())
    );
}

/// A point whose pilot does not pair with its rule's control (weighted
/// random barely follows the pooled queue) reads none of the control's
/// replications, so the control runs only its own: the point's larger n
/// does not raise it. The same records on 1 and 2 threads.
#[test]
fn an_unpaired_point_leaves_its_control_at_its_own_count() {
    let text = TINY
        .replace("load = [0.6, 0.9]", "load = [0.8]")
        .replace("rates = [0.3, 0.5, 0.9]", "rates = [0.1, 0.2, 0.9]")
        .replace(
            "[[policy]]\nspec = \"JSQ\"\n\n[[policy]]\nspec = \"L-JBA-Pull\"\np_hat = 0.3\n\n[[policy]]\nspec = \"Power-of-2\"\n",
            "[[policy]]\nspec = \"WR\"\n\n[[policy]]\nspec = \"Pooled\"\n",
        )
        .replace("slots = 3000\nwarmup = 300", "slots = 20000\nwarmup = 2000")
        .replace(
            "replications = 3",
            "precision = { metric = \"mean_sum_q\", rel_half_width = 0.03, min = 8, max = 400, \
             step = 4, control = { policy = \"Pooled\", mean = \"pooled_exact\" } }",
        );
    let p = plan(&text, Profile::Full);
    let (wr, pooled) = (
        fixed(&p.points[0].target).key(),
        fixed(&p.points[1].target).key(),
    );
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (c1, c2) = (Cache::new(d1.path()), Cache::new(d2.path()));
    let r = run(&c1, std::slice::from_ref(&p), 1);
    run(&c2, std::slice::from_ref(&p), 2);
    assert_eq!(records(&c1), records(&c2));
    let outcome = |k| &r.precision.iter().find(|(key, _)| *key == k).unwrap().1;
    let (o, own) = (outcome(wr), outcome(pooled));
    eprintln!("weighted random {o:?}, its control {own:?}");
    assert!(!o.paired, "{o:?}");
    assert!(
        o.replications > own.replications,
        "the test needs the unpaired point to run more than its control: {o:?} {own:?}"
    );
    let main: Vec<u64> = c1
        .replication_files(&pooled)
        .into_iter()
        .filter(|r| !lb_model::precision::is_pilot(*r))
        .collect();
    assert_eq!(
        main,
        (0..own.replications as u64).collect::<Vec<_>>(),
        "the control ran replications no interval reads"
    );
}
