//! Network manifests (`model = "spn"`): a network written in the manifest is
//! parsed strictly, checked with located errors, expanded into points, run
//! deterministically, and measured against exact references.

mod common;

use common::{records, run};
use lb_manifest::diag::ManifestError;
use lb_manifest::plan::Target;
use lb_manifest::{Model, PointConfig, Profile, load_str};
use lb_store::cache::Cache;
use std::path::Path;

/// A tandem of two exponential stations (a Jackson network), under
/// max-pressure and FIFO, with the first station's workload reported.
const TANDEM: &str = r#"[experiment]
name = "tandem"
title = "tandem"
model = "spn"

[network]
stations = 2
arrivals = [0.5, 0.0]
workload = [[1.0, 0.0]]

[[network.activity]]
station = 0
buffer = 0
rate = 1.0
routing = [{ buffer = 1, probability = 1.0 }]

[[network.activity]]
station = 1
buffer = 1
mean = 1.0

[sweep]
load = [0.5, 0.6]

[[policy]]
spec = "max-pressure"

[[policy]]
spec = "FIFO"

[run]
horizon = 2000.0
warmup = 100.0
replications = 6
seed = 3
"#;

fn plan(text: &str) -> lb_manifest::Plan {
    load_str(Path::new("net.toml"), text, Profile::Full)
        .unwrap_or_else(|e| panic!("{e}"))
        .plan
}

fn err(text: &str) -> ManifestError {
    load_str(Path::new("net.toml"), text, Profile::Full).expect_err("an error")
}

#[test]
fn a_network_manifest_plans_runs_and_is_deterministic() {
    let p = plan(TANDEM);
    assert_eq!(p.axes, vec!["load"]);
    assert_eq!(p.points.len(), 4);
    let Target::Fixed(pt) = &p.points[0].target else {
        panic!("fixed")
    };
    assert_eq!(pt.model, Model::Spn);
    let PointConfig::Spn(c) = &pt.config else {
        panic!("a network point")
    };
    // The tandem as written has station loads 0.5: load 0.5 keeps λ.
    assert_eq!(c.arrivals, vec![0.5, 0.0]);
    let Target::Fixed(pt2) = &p.points[2].target else {
        panic!("fixed")
    };
    let PointConfig::Spn(c2) = &pt2.config else {
        panic!("a network point")
    };
    assert!((c2.arrivals[0] - 0.6).abs() < 1e-15);
    // Both policies at a point share the system part, not the key.
    let sys = |i: usize| match &p.points[i].target {
        Target::Fixed(p) => (lb_manifest::Key::of(&p.system_part()).unwrap(), p.key()),
        _ => unreachable!(),
    };
    assert_eq!(sys(0).0, sys(1).0);
    assert_ne!(sys(0).1, sys(1).1);
    // Thread counts do not change a bit.
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (c1, c2) = (Cache::new(d1.path()), Cache::new(d2.path()));
    run(&c1, std::slice::from_ref(&p), 1);
    run(&c2, std::slice::from_ref(&p), 2);
    assert_eq!(records(&c1), records(&c2));
}

/// Jackson's product form: each station of the tandem is an M/M/1 queue, so
/// E[Z_0] = ρ/(1 − ρ) under a non-idling policy (FIFO here; max-pressure
/// idles station 0 whenever Z_0 ≤ Z_1, so it is no Jackson network); the
/// first station's
/// workload (weight 1 = its mean service) equals E[Z_0], and the pooled
/// reference of a single resource is its Pollaczek–Khinchine value
/// λ·y²/(1 − ρ) = ρ/(1 − ρ) too. Tolerance from the replications' 99.99%
/// interval.
#[test]
fn the_tandem_workload_is_the_m_m_1_value() {
    let p = plan(&TANDEM.replace("replications = 6", "replications = 30"));
    let d = tempfile::tempdir().unwrap();
    let cache = Cache::new(d.path());
    run(&cache, std::slice::from_ref(&p), 2);
    for pp in &p.points {
        let Target::Fixed(pt) = &pp.target else {
            unreachable!()
        };
        let PointConfig::Spn(c) = &pt.config else {
            unreachable!()
        };
        let rho = c.arrivals[0];
        let exact = rho / (1.0 - rho);
        let reference = pt.reference("pooled_workload", "workload", 0).unwrap();
        assert!((reference - exact).abs() < 1e-12, "{reference} vs {exact}");
        if pp.label != "FIFO" {
            continue;
        }
        let xs: Vec<f64> = (0..30)
            .map(|r| match cache.read_replication(&pt.key(), r) {
                lb_store::cache::Read::Valid(rec) => pt.metric("workload", &rec.summary).unwrap(),
                _ => panic!("replication {r} missing"),
            })
            .collect();
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        // t_{0.99995, 29} ≈ 4.53.
        let hw = 4.53 * sd / n.sqrt();
        assert!(
            (mean - exact).abs() < hw,
            "{}: E[W] = {mean} ± {hw}, M/M/1 gives {exact}",
            pp.label
        );
    }
}

#[test]
fn a_buffer_no_activity_serves_is_located() {
    let e = err(&TANDEM.replace("arrivals = [0.5, 0.0]", "arrivals = [0.5, 0.0, 0.2]"));
    assert!(e.field.starts_with("network"), "{e}");
    assert!(e.message.contains("buffer"), "{e}");
}

#[test]
fn routing_probabilities_above_one_are_located() {
    let e = err(&TANDEM.replace(
        "routing = [{ buffer = 1, probability = 1.0 }]",
        "routing = [{ buffer = 1, probability = 0.7 }, { buffer = 0, probability = 0.6 }]",
    ));
    assert_eq!(e.field, "network.activity[0].routing", "{e}");
    assert!(e.line > 0, "{e}");
}

#[test]
fn a_priority_order_that_misses_an_activity_is_located() {
    let e = err(&TANDEM.replace("spec = \"FIFO\"", "spec = \"priority\"\norder = [[0], []]"));
    assert!(e.field.starts_with("policy[1]"), "{e}");
}

#[test]
fn rate_and_mean_together_and_unknown_policies_are_refused() {
    let e = err(&TANDEM.replace("mean = 1.0", "mean = 1.0\nrate = 1.0"));
    assert_eq!(e.field, "network.activity[1].rate", "{e}");
    let e = err(&TANDEM.replace("spec = \"FIFO\"", "spec = \"max-presure\""));
    assert_eq!(e.field, "policy[1].spec", "{e}");
    assert!(e.message.contains("max-pressure"), "{e}");
}

#[test]
fn a_parallel_server_sweep_needs_the_stated_load() {
    let n = r#"[experiment]
name = "n"
title = "n"
model = "spn"

[network]
stations = 2
arrivals = [1.5, 1.0]
workload = [[0.5, 0.25]]

[[network.activity]]
station = 0
buffer = 0
rate = 1.0

[[network.activity]]
station = 1
buffer = 0
rate = 1.0

[[network.activity]]
station = 1
buffer = 1
rate = 2.0

[sweep]
load = [0.9]

[[policy]]
spec = "max-pressure"

[run]
horizon = 2000.0
warmup = 10.0
replications = 2
seed = 1
"#;
    let e = err(n);
    assert_eq!(e.field, "network.load", "{e}");
    let p = plan(&n.replace("workload = ", "load = 1.0\nworkload = "));
    let Target::Fixed(pt) = &p.points[0].target else {
        unreachable!()
    };
    let PointConfig::Spn(c) = &pt.config else {
        unreachable!()
    };
    assert!((c.arrivals[0] - 1.35).abs() < 1e-12 && (c.arrivals[1] - 0.9).abs() < 1e-12);
    // (1 − ρ)·E[W] of the pooled server: (7/16)·ρ.
    let r = pt.reference("pooled_scaled", "scaled_workload", 0).unwrap();
    assert!((r - 7.0 / 16.0 * 0.9).abs() < 1e-12, "{r}");
    // A wrong stated load of a multiclass network is refused.
    let e = err(&TANDEM.replace("workload = ", "load = 0.7\nworkload = "));
    assert_eq!(e.field, "network.load", "{e}");
}

/// Errors of the network as a whole name the exact key and its place.
#[test]
fn network_errors_name_the_exact_key() {
    let e = err(&TANDEM.replace("station = 1\nbuffer = 1", "station = 5\nbuffer = 1"));
    assert_eq!(e.field, "network.activity[1].station", "{e}");
    assert!(e.line > 0 && e.col > 1, "{e}");
    let e = err(&TANDEM.replace("workload = [[1.0, 0.0]]", "workload = [[1.0]]"));
    assert_eq!(e.field, "network.workload[0]", "{e}");
}
