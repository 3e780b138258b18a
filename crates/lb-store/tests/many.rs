//! Many-server (docs/MODEL.md §2) manifests: they plan, run, cache and are
//! deterministic across thread counts; bad input gives located errors.

mod common;

use common::{records, run};
use lb_manifest::plan::Target;
use lb_manifest::{ManifestError, Profile, load_str};
use lb_manifest::{Model, PointConfig, Summary};
use lb_store::cache::Cache;
use lb_store::run::{State, status};
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

fn plan(text: &str) -> lb_manifest::Plan {
    load_str(Path::new("many.toml"), text, Profile::Full)
        .unwrap_or_else(|e| panic!("{e}"))
        .plan
}

fn err(text: &str) -> ManifestError {
    load_str(Path::new("exp/bad.toml"), text, Profile::Full)
        .map(|_| ())
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
    assert!(status(&c1, &p).iter().all(|s| s.state() == State::Cached));
    let key = pt.key();
    let rec = c1.read_replication(&key, 1).valid().expect("cached");
    let Summary::Many(s) = &rec.summary else {
        panic!("a many-server summary")
    };
    assert_eq!(s.replication, 1);
    assert!(s.p_to_busy.is_some());
    // Verification recomputes the same bits.
    let items = lb_store::verify::items(&c1, None);
    assert_eq!(items.len(), 16);
    let v = lb_store::verify::verify(&c1, &items, &lb_store::run::Silent);
    assert!(v.iter().all(|x| x.problem.is_none()), "{v:?}");
}

#[test]
fn quick_many_points_have_keys_of_their_own() {
    let plan = |p| load_str(Path::new("many.toml"), MANY, p).unwrap().plan;
    let (f, q) = (plan(Profile::Full), plan(Profile::Quick));
    let key = |p: &lb_manifest::Plan| match &p.points[0].target {
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

/// Mukherjee, Borst and van Leeuwaarden's d(N) → ∞: an Erdős–Rényi mean degree N^β is resolved per point;
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

/// The points of a plan, as many-server configurations.
fn configs(p: &lb_manifest::Plan) -> Vec<lb_core::many::ManyConfig> {
    p.points
        .iter()
        .map(|pp| match &pp.target {
            Target::Fixed(Point {
                config: PointConfig::Many(c),
                ..
            }) => c.clone(),
            _ => panic!("a fixed many-server point"),
        })
        .collect()
}

use lb_manifest::Point;

const POD_D: &str = r#"[experiment]
name = "pod-d"
title = "Power-of-d, d swept"
model = "many"

[system]
servers = 50
lambda = 0.9

[sweep]
d = [1, 2, 5]

[[policy]]
spec = "Pod"

[[policy]]
spec = "Pod"
d = 3
label = "Pod(3)"

[run]
horizon = 40.0
warmup = 4.0
batches = 16
replications = 2
seed = 4
"#;

/// `sweep.d` reaches the Pod policies that set no d of their own; a d < 1,
/// an axis no policy takes, or a d > N at some point are located errors.
#[test]
fn the_d_axis_sweeps_pod_and_is_checked_at_every_point() {
    use lb_core::many::{ManyPolicy, PodD};
    let p = plan(POD_D);
    assert_eq!(p.axes, vec!["d"]);
    let ds: Vec<(String, usize)> = p
        .points
        .iter()
        .zip(configs(&p))
        .map(|(pp, c)| match c.policy {
            ManyPolicy::Pod {
                d: PodD::Fixed { d },
            } => (pp.label.clone(), d),
            other => panic!("{other:?}"),
        })
        .collect();
    let want: Vec<(String, usize)> = [1, 2, 5]
        .iter()
        .flat_map(|&d| [("Pod".to_string(), d), ("Pod(3)".to_string(), 3)])
        .collect();
    assert_eq!(ds, want);
    // d = 0.
    let e = err(&POD_D.replace("d = [1, 2, 5]", "d = [1, 0]"));
    assert_eq!(e.field, "sweep.d[1]", "{e}");
    // d > N at the point N = 60 of a servers sweep.
    let t = POD_D
        .replace("servers = 50\n", "")
        .replace("d = [1, 2, 5]", "servers = [80, 60]\nd = [2, 70]");
    let e = err(&t);
    assert_eq!(e.field, "sweep.d[1]", "{e}");
    assert!(e.message.contains("N = 60"), "{e}");
    // No policy takes the axis.
    let t = POD_D.replace("spec = \"Pod\"\n\n", "spec = \"JSQ\"\n\n");
    let e = err(&t);
    assert_eq!(e.field, "sweep.d", "{e}");
}

/// Pod's `alpha = "load"` takes the α of each point's load (Liu and Ying's
/// Pod(N^α ln N) in a sweep over α); other words, or a load not given by α,
/// are located errors.
#[test]
fn pod_alpha_can_follow_the_load() {
    use lb_core::many::{ManyPolicy, PodD};
    let t = MANY
        .replace("alpha = 0.3\nbuffer = 4", "buffer = 4")
        .replace(
            "servers = [20, 50]",
            "servers = [20, 50]\nalpha = [0.3, 0.4]",
        )
        .replace(
            "spec = \"Pod\"\nalpha = 0.3",
            "spec = \"Pod\"\nalpha = \"load\"",
        );
    let p = plan(&t);
    let alphas: Vec<f64> = configs(&p)
        .iter()
        .filter_map(|c| match c.policy {
            ManyPolicy::Pod {
                d: PodD::Scaled { alpha },
            } => Some(alpha),
            _ => None,
        })
        .collect();
    assert_eq!(alphas, vec![0.3, 0.4, 0.3, 0.4]);
    let e = err(&t.replace("alpha = \"load\"", "alpha = \"lod\""));
    assert_eq!(e.field, "policy[1].alpha", "{e}");
    let e = err(&MANY
        .replace("alpha = 0.3\nbuffer = 4", "lambda = 0.9\nbuffer = 4")
        .replace(
            "spec = \"Pod\"\nalpha = 0.3",
            "spec = \"Pod\"\nalpha = \"load\"",
        ));
    assert_eq!(e.field, "policy[1].alpha", "{e}");
}

/// A claim appended to the tiny manifest.
fn with_claim(claim: &str) -> String {
    format!(
        "{MANY}\n[[claim]]\norigin = \"check\"\nid = \"c\"\nstatement = \"s\"\nsource = \"t\"\n{claim}\n"
    )
}

/// Occupancy metrics `s1` … `s16` are metrics; `s0`, `s17`, `s02` are not.
/// A reference that does not define the claim's metric, or does not apply to
/// the system, or (`pod_mean_field`) to the policy, is a located error.
#[test]
fn references_are_checked_against_the_metric_and_the_system() {
    for ok in [
        "kind = \"value\"\nmetric = \"s7\"\npolicies = [\"Random\"]\nexpected = \"mm1\"",
        "kind = \"value\"\nmetric = \"loss_fraction\"\npolicies = [\"Random\"]\nexpected = \"mm1\"",
        "kind = \"bound\"\nmetric = \"shw_excess\"\npolicies = [\"JSQ\"]\nbound = \"sub_halfin_whitt_excess\"\nside = \"le\"",
    ] {
        plan(&with_claim(ok));
    }
    for bad in ["s0", "s17", "s02"] {
        let e = err(&with_claim(&format!(
            "kind = \"value\"\nmetric = \"{bad}\"\npolicies = [\"Random\"]\nexpected = \"mm1\""
        )));
        assert_eq!(e.field, "claim[0].metric", "{bad}: {e}");
        assert!(e.message.contains("s16"), "{e}");
    }
    let e = err(&with_claim(
        "kind = \"bound\"\nmetric = \"shw_excess\"\npolicies = [\"JSQ\"]\nbound = \"mm1\"\nside = \"le\"",
    ));
    assert_eq!(e.field, "claim[0].bound", "{e}");
    assert!(
        e.message.contains("does not define metric shw_excess"),
        "{e}"
    );
    // The Erlang C bound and the mean field are for unbounded buffers.
    let e = err(&with_claim(
        "kind = \"bound\"\nmetric = \"mean_jobs\"\npolicies = [\"JSQ\"]\nbound = \"erlang_c\"\nside = \"ge\"",
    ));
    assert_eq!(e.field, "claim[0].bound", "{e}");
    assert!(e.message.contains("unbounded"), "{e}");
    let unbounded = POD_D.to_string();
    let e = err(&format!(
        "{unbounded}\n[[claim]]\norigin = \"check\"\nid = \"c\"\nstatement = \"s\"\nsource = \"t\"\nkind = \"bound\"\nmetric = \"shw_excess\"\npolicies = [\"Pod\"]\nbound = \"sub_halfin_whitt_excess\"\nside = \"le\"\n"
    ));
    assert!(e.message.contains("needs a buffer"), "{e}");
    // pod_mean_field of JSQ.
    let t = format!(
        "{}\n[[policy]]\nspec = \"JSQ\"\n\n[[claim]]\norigin = \"check\"\nid = \"c\"\nstatement = \"s\"\nsource = \"t\"\nkind = \"value\"\nmetric = \"s2\"\npolicies = [\"Pod\", \"JSQ\"]\nexpected = \"pod_mean_field\"\ntolerance = 0.1\n",
        POD_D.replace("\n[run]", "\n[[policy]]\nspec = \"Random\"\n\n[run]")
    );
    let e = err(&t);
    assert_eq!(e.field, "claim[0].policies[1]", "{e}");
    // A figure's reference against its y.
    let e = err(&format!(
        "{MANY}\n[[figure]]\nname = \"f\"\ntitle = \"t\"\nx = \"servers\"\ny = \"s2\"\ncaption = \"c\"\n[[figure.reference]]\nvalue = \"sub_halfin_whitt\"\n"
    ));
    assert_eq!(e.field, "figure[0].reference[0].value", "{e}");
}

/// Each reference evaluated for each metric it defines, at a point, against
/// lb-core's theory (the values themselves are tested there against solved
/// chains, the mean-field ODE and direct sums).
#[test]
fn references_are_functions_of_the_point_and_the_metric() {
    use lb_core::many::theory;
    let p = plan(POD_D);
    let pts: Vec<Point> = p
        .points
        .iter()
        .map(|pp| match &pp.target {
            Target::Fixed(pt) => pt.clone(),
            _ => unreachable!(),
        })
        .collect();
    let r = |pt: &Point, name: &str, metric: &str| pt.reference(name, metric, 0);
    let (n, lambda) = (50, 0.9f64);
    // d = 5 (Pod, third d).
    let pod5 = &pts[4];
    assert_eq!(
        r(pod5, "pod_mean_field", "s3").unwrap(),
        lambda.powf((125.0 - 1.0) / 4.0)
    );
    assert_eq!(
        r(pod5, "pod_mean_field", "mean_response").unwrap(),
        theory::pod_mean_field_mean_jobs(lambda, 5) / lambda
    );
    // d = 1: the mean field is M/M/1.
    assert!((r(&pts[0], "pod_mean_field", "s4").unwrap() - lambda.powi(4)).abs() < 1e-15);
    assert!((r(&pts[0], "mm1", "s4").unwrap() - lambda.powi(4)).abs() < 1e-15);
    assert_eq!(
        r(&pts[0], "mm1", "mean_jobs").unwrap(),
        lambda / (1.0 - lambda)
    );
    assert_eq!(
        r(&pts[0], "mm1", "sum_s_b").unwrap(),
        lambda / (1.0 - lambda)
    );
    assert!((r(&pts[0], "mm1", "mean_response").unwrap() - 10.0).abs() < 1e-12);
    assert_eq!(r(&pts[0], "mm1", "p_to_busy").unwrap(), lambda);
    assert_eq!(
        r(&pts[0], "erlang_c", "mean_jobs").unwrap(),
        theory::erlang_c_mean_jobs(n, lambda)
    );
    assert!(r(&pts[0], "erlang_c", "mean_jobs").unwrap() < lambda / (1.0 - lambda));
    assert!(r(&pts[0], "erlang_c", "s2").is_err());
    assert!(r(&pts[0], "mm1", "shw_excess").is_err());
    assert!(r(&pts[0], "sub_halfin_whitt_excess", "shw_excess").is_err());
    // With a buffer: M/M/1/b and the excess bound 29b/(√N ln N).
    let b = plan(MANY);
    let pt = match &b.points[2].target {
        Target::Fixed(pt) => pt.clone(),
        _ => unreachable!(),
    };
    let PointConfig::Many(c) = &pt.config else {
        unreachable!()
    };
    let q = theory::Mm1 {
        lambda: c.lambda,
        buffer: Some(4),
    };
    assert_eq!(r(&pt, "mm1", "loss_fraction").unwrap(), q.loss());
    assert_eq!(r(&pt, "mm1", "s5").unwrap(), 0.0);
    assert_eq!(
        r(&pt, "sub_halfin_whitt_excess", "shw_excess").unwrap(),
        116.0 / (20f64.sqrt() * 20f64.ln())
    );
    assert_eq!(r(&pt, "lambda", "shw_excess").unwrap(), c.lambda);
}

#[test]
fn a_horizon_follows_its_sweep_axis_and_a_fixed_one_keeps_its_key() {
    let scaled = MANY.replace(
        "horizon = 40.0\nwarmup = 4.0",
        "horizon = { scale = 2, of = \"servers\", power = 1, min = 50 }\n\
         warmup = { scale = 0.2, of = \"servers\", power = 1 }",
    );
    let p = plan(&scaled);
    let run = |i: usize| match &p.points[i].target {
        Target::Fixed(pt) => match &pt.config {
            PointConfig::Many(c) => (c.run.horizon, c.run.warmup),
            _ => unreachable!(),
        },
        _ => unreachable!(),
    };
    // N = 20: 2·20 = 40 → the minimum 50, warm-up 4; N = 50: 100 and 10.
    assert_eq!(run(0), (50.0, 4.0));
    assert_eq!(run(4), (100.0, 10.0));
    // The point at N = 50 is the point of a fixed horizon of 100.
    let fixed = MANY
        .replace("servers = [20, 50]", "servers = [50]")
        .replace(
            "horizon = 40.0\nwarmup = 4.0",
            "horizon = 100.0\nwarmup = 10.0",
        );
    let key = |p: &lb_manifest::Plan, i: usize| match &p.points[i].target {
        Target::Fixed(pt) => pt.key(),
        _ => unreachable!(),
    };
    assert_eq!(key(&plan(&fixed), 0), key(&p, 4));
    // A warm-up that reaches the horizon at some value of the axis is an error there.
    let e = err(&MANY.replace(
        "warmup = 4.0",
        "warmup = { scale = 1, of = \"servers\", power = 1 }",
    ));
    assert!(e.message.contains("servers = 50"), "{e}");
}
