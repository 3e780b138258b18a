//! Many-server (SPEC §2) manifests: they plan, run, cache and are
//! deterministic across thread counts; bad input gives located errors.

mod common;

use common::{records, run};
use lb_runner::cache::Cache;
use lb_runner::expand::Target;
use lb_runner::run::status;
use lb_runner::{ManifestError, Profile, expand, manifest};
use lb_runner::{Model, PointConfig, Summary};
use std::path::Path;

const MANY: &str = r#"[experiment]
name = "tiny-many"
title = "tiny many-server"
model = "many"

[system]
alpha = 0.3
buffer = 4

[sweep]
servers = [20, 50]

[[policy]]
spec = "JSQ"

[[policy]]
spec = "Pod"
alpha = 0.3

[[policy]]
spec = "Random"

[[policy]]
spec = "Graph"
graph = { kind = "random_regular", degree = 4 }

[run]
horizon = 40.0
warmup = 4.0
batches = 16
replications = 2
seed = 4
"#;

fn plan(text: &str) -> lb_runner::Plan {
    let l = manifest::parse(Path::new("many.toml"), text).unwrap_or_else(|e| panic!("{e}"));
    expand(&l, Profile::Full).unwrap_or_else(|e| panic!("{e}"))
}

fn err(text: &str) -> ManifestError {
    manifest::parse(Path::new("exp/bad.toml"), text)
        .and_then(|l| expand(&l, Profile::Full).map(|_| ()))
        .expect_err("the manifest must be rejected")
}

#[test]
fn a_many_manifest_plans_runs_caches_and_is_deterministic() {
    let p = plan(MANY);
    assert_eq!(p.axes, vec!["servers"]);
    assert_eq!(p.points.len(), 8);
    let Target::Fixed(pt) = &p.points[0].target else {
        panic!("fixed")
    };
    assert_eq!(pt.model, Model::Many);
    let PointConfig::Many(c) = &pt.config else {
        panic!("a many-server point")
    };
    assert_eq!(c.servers, 20);
    assert!((c.lambda - (1.0 - 20f64.powf(-0.3))).abs() < 1e-15);
    // The system part (common random numbers) is the same for every policy
    // at a point, the key is not.
    let sys: Vec<_> = p.points[..4]
        .iter()
        .map(|pp| match &pp.target {
            Target::Fixed(p) => (p.seeds().system, p.key()),
            _ => unreachable!(),
        })
        .collect();
    assert!(sys.iter().all(|s| s.0 == sys[0].0));
    assert!(sys[1..].iter().all(|s| s.1 != sys[0].1));

    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (c1, c2) = (Cache::new(d1.path()), Cache::new(d2.path()));
    let r1 = run(&c1, std::slice::from_ref(&p), 1);
    let r2 = run(&c2, std::slice::from_ref(&p), 2);
    assert_eq!((r1.computed, r2.computed), (16, 16));
    assert_eq!(records(&c1), records(&c2));
    let again = run(&c1, std::slice::from_ref(&p), 2);
    assert_eq!((again.computed, again.reused), (0, 16));
    assert!(status(&c1, &p).iter().all(|s| s.word() == "cached"));
    let key = pt.key();
    let rec = c1.read_replication(&key, 1).valid().expect("cached");
    let Summary::Many(s) = &rec.summary else {
        panic!("a many-server summary")
    };
    assert_eq!(s.replication, 1);
    assert!(s.p_to_busy.is_some());
    // Verification recomputes the same bits.
    let items = lb_runner::verify::items(&c1, None);
    assert_eq!(items.len(), 16);
    let v = lb_runner::verify::verify(&c1, &items, &lb_runner::run::Silent);
    assert!(v.iter().all(|x| x.problem.is_none()), "{v:?}");
}

#[test]
fn quick_many_points_have_keys_of_their_own() {
    let l = manifest::parse(Path::new("many.toml"), MANY).unwrap();
    let (f, q) = (
        expand(&l, Profile::Full).unwrap(),
        expand(&l, Profile::Quick).unwrap(),
    );
    let key = |p: &lb_runner::Plan| match &p.points[0].target {
        Target::Fixed(p) => p.key(),
        _ => unreachable!(),
    };
    assert_ne!(key(&f), key(&q));
}

#[test]
fn an_unknown_many_key_is_located_and_suggests_the_close_one() {
    let t = MANY.replacen("buffer = 4", "bufer = 4", 1);
    let e = err(&t);
    assert_eq!(e.file, Path::new("exp/bad.toml"));
    assert_eq!(e.line, 8, "{e}");
    assert!(e.message.contains("unknown key `bufer`"), "{e}");
    assert!(e.message.contains("did you mean `buffer`"), "{e}");
}

#[test]
fn an_unknown_many_policy_is_located_and_lists_the_names() {
    let t = MANY.replacen("spec = \"Random\"", "spec = \"Randm\"", 1);
    let e = err(&t);
    assert_eq!(e.field, "policy[2].spec", "{e}");
    assert_eq!((e.line, e.col), (21, 8), "{e}");
    assert!(e.message.contains("did you mean \"Random\""), "{e}");
    assert!(
        e.message.contains("JSQ, JIQ, I1F, Pod, Random, Graph"),
        "{e}"
    );
}

#[test]
fn slotted_keys_on_a_many_policy_and_twice_set_loads_are_refused() {
    let t = MANY.replacen("spec = \"JSQ\"", "spec = \"JSQ\"\np_hat = 0.1", 1);
    let e = err(&t);
    assert!(e.message.contains("unknown key `p_hat`"), "{e}");
    let t = MANY.replacen(
        "alpha = 0.3\nbuffer",
        "alpha = 0.3\nlambda = 0.9\nbuffer",
        1,
    );
    let e = err(&t);
    assert_eq!(e.field, "system.alpha", "{e}");
    assert!(e.message.contains("the load is set twice"), "{e}");
}

#[test]
fn a_graph_the_engine_cannot_build_is_located_at_the_point() {
    let t = MANY.replacen("degree = 4", "degree = 3", 1);
    // 3-regular on N = 20 is fine; on an odd N it is not.
    let t = t.replacen("servers = [20, 50]", "servers = [20, 21]", 1);
    let e = err(&t);
    assert_eq!(e.field, "policy[3].graph", "{e}");
    assert!(e.message.contains("N = 21"), "{e}");
}

/// Seed 003's d(N) → ∞: an Erdős–Rényi mean degree N^β is resolved per point;
/// giving it with a fixed mean degree, or β outside (0, 1], is refused.
#[test]
fn an_erdos_renyi_degree_can_grow_with_n() {
    use lb_core::many::{GraphSpec, ManyPolicy};
    let text = MANY.replace(
        "graph = { kind = \"random_regular\", degree = 4 }",
        "graph = { kind = \"erdos_renyi\", degree_exponent = 0.5 }",
    );
    let p = plan(&text);
    let degrees: Vec<(usize, f64)> = p
        .points
        .iter()
        .filter_map(|pp| {
            let Target::Fixed(point) = &pp.target else {
                return None;
            };
            let PointConfig::Many(c) = &point.config else {
                return None;
            };
            match c.policy {
                ManyPolicy::Graph {
                    graph: GraphSpec::ErdosRenyi { mean_degree },
                } => Some((c.servers, mean_degree)),
                _ => None,
            }
        })
        .collect();
    assert_eq!(degrees.len(), 2);
    for (n, d) in degrees {
        assert!((d - (n as f64).sqrt()).abs() < 1e-12, "N = {n}: {d}");
    }
    let both = text.replace(
        "degree_exponent = 0.5",
        "degree_exponent = 0.5, mean_degree = 3",
    );
    assert!(
        err(&both)
            .to_string()
            .contains("policy[3].graph.degree_exponent"),
        "{}",
        err(&both)
    );
    let big = text.replace("degree_exponent = 0.5", "degree_exponent = 1.5");
    assert!(err(&big).to_string().contains("0 < β ≤ 1"), "{}", err(&big));
}
