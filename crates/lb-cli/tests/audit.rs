//! `lb audit`, `lb decide` and robustness maps end to end: the gate's exit codes, claims
//! on missing data, `where` ranges, the ledger of further looks, the markdown audit.

mod common;

use common::*;

#[test]
fn audit_exits_non_zero_only_when_a_required_claim_is_refuted() {
    let d = Dir::new(&audited_manifest(false));
    ok(d.run(&["run", "m.toml"]));
    let out = ok(d.run(&["audit", "m.toml", "--out", "pf"]));
    assert!(out.contains("**confirmed** (required)"), "{out}");
    assert!(d.path.join("pf/audit.md").exists());
    std::fs::write(d.path.join("m.toml"), audited_manifest(true)).unwrap();
    let o = d.run(&["audit", "m.toml", "--out", "pf"]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("required claim refuted: many / false"),
        "{}",
        text(&o).1
    );
    let json = d.run(&["audit", "m.toml", "--format", "json", "--out", "pf"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v[1]["verdict"], "refuted");
}

/// The gate is strict: a required claim that is inconclusive — here a limit
/// read on one point, which cannot decide — fails `lb audit` as a refuted
/// one does, naming its verdict and why.
#[test]
fn an_inconclusive_required_claim_fails_the_audit() {
    let mut m = audited_manifest(false);
    m.push_str(
        r#"
[[claim]]
origin = "check"
id = "one-point"
statement = "WR's E[ΣQ] tends to its exact value as the load grows"
source = "exact theory"
kind = "limit"
metric = "mean_sum_q"
policies = ["WR"]
expected = "wr_sum_q"
tolerance = 0.5
along = "load"
toward = "infinity"
where = { load = 0.5 }
required = true
"#,
    );
    let d = Dir::new(&m);
    ok(d.run(&["run", "m.toml"]));
    let o = d.run(&["audit", "m.toml"]);
    assert!(!o.status.success(), "{}", text(&o).0);
    let err = text(&o).1;
    assert!(
        err.contains("required claim inconclusive: many / one-point"),
        "{err}"
    );
    // lb reproduce reports it and writes the report; it does not gate.
    let r = d.run(&["reproduce", "m.toml", "--out", "pf"]);
    assert!(r.status.success(), "{}", text(&r).1);
    assert!(
        text(&r).1.contains("required claim inconclusive"),
        "{}",
        text(&r).1
    );
}

/// The audit is a gate: it fails, naming what is missing, when a required
/// claim lacks a point, lacks a replication, or has an empty results
/// directory to read — and a damaged record is reported, not dropped.
#[test]
fn the_audit_gate_fails_on_missing_data() {
    let d = Dir::new(&audited_manifest(false));
    ok(d.run(&["run", "m.toml"]));
    let o = d.run(&["audit", "m.toml"]);
    assert!(o.status.success(), "{}", text(&o).1);
    // An empty results directory.
    std::fs::create_dir_all(d.path.join("empty")).unwrap();
    let o = d.run(&["--results", "empty", "audit", "m.toml"]);
    assert!(!o.status.success());
    assert!(text(&o).1.contains("missing data"), "{}", text(&o).1);
    let c = d.cache("results");
    let wr: Vec<_> = c
        .keys()
        .into_iter()
        .filter(|(k, _)| {
            // A WR point the claim reads (load ≤ 0.8).
            matches!(c.read_point(k), lb_store::cache::Read::Valid(p)
            if p.point.policy_name() == "WR"
                && p.point.config.parameters().iter().any(|(n, v)| {
                    *n == "load" && matches!(v, lb_manifest::Param::Number(x) if *x < 0.85)
                }))
        })
        .collect();
    assert!(!wr.is_empty());
    // One replication of one point the claim reads: damaged, then gone.
    let path = c.replication_path(&wr[0].0, 1);
    std::fs::write(&path, b"{ not json").unwrap();
    let o = d.run(&["audit", "m.toml"]);
    let err = text(&o).1;
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("3 of 4 replications present") && err.contains("damaged: r1"),
        "{err}"
    );
    std::fs::remove_file(&path).unwrap();
    let o = d.run(&["audit", "m.toml"]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("3 of 4 replications present"),
        "{}",
        text(&o).1
    );
    // A whole point gone.
    std::fs::remove_dir_all(&wr[0].1).unwrap();
    let o = d.run(&["audit", "m.toml"]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("0 of 4 replications present"),
        "{}",
        text(&o).1
    );
}

/// A claim's `where` may give a range; it selects exactly the sweep values
/// inside it.
#[test]
fn a_where_range_selects_the_values_inside_it() {
    let mut m = manifest(4000, 2);
    m.push_str(
        r#"
[[claim]]
origin = "check"
id = "high"
statement = "s"
source = "src"
kind = "stability"
policies = ["WR"]
stable = true
where = { load = ">= 0.8" }

[[claim]]
origin = "check"
id = "mid"
statement = "s"
source = "src"
kind = "stability"
policies = ["WR"]
stable = true
where = { load = { min = 0.6, max = 0.8 } }
"#,
    );
    let d = Dir::new(&m);
    ok(d.run(&["run", "m.toml"]));
    let audit = d.run(&["audit", "m.toml", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&audit.stdout).unwrap();
    let loads = |i: usize| -> Vec<f64> {
        v[i]["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["at"]["load"].as_f64().unwrap())
            .collect()
    };
    assert_eq!(loads(0), [0.8, 0.9]);
    assert_eq!(loads(1), [0.7, 0.8]);
}

#[test]
fn a_robustness_map_is_planned_run_and_audited() {
    let d = Dir::new(&robustness_manifest());
    let plan = ok(d.run(&["plan", "m.toml"]));
    // The manifest's own combination plans no points of its own: 1 + 3 plans.
    assert_eq!(plan.matches("experiment robust").count(), 4, "{plan}");
    assert!(plan.contains("[robustness mix: servers = 20×0.5, tie_break = lowest]"));
    ok(d.run(&["run", "m.toml"]));
    let c = d.cache("results");
    assert_eq!(count_replications(&c), 4 * 4);
    let out = ok(d.run(&["audit", "m.toml"]));
    assert!(
        out.contains(
            "`pod-stable`: the claim holds if and only if servers = 20×0.5 (2 of 4 combinations)"
        ),
        "{out}"
    );
    assert!(
        out.contains("✗ refuted") && out.contains("✓ holds"),
        "{out}"
    );
    let json = ok(d.run(&["audit", "m.toml", "--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v[0]["verdict"], "refuted");
    assert_eq!(v[0]["robustness"][0]["deciding"][0], "servers");
    assert_eq!(v[0]["robustness"][0]["combinations"][0]["base"], true);
    let csv = ok(d.run(&["audit", "m.toml", "--format", "csv"]));
    assert!(
        csv.lines().next().unwrap().ends_with(",robustness"),
        "{csv}"
    );
    assert!(csv.contains("mix: the claim holds if and only if servers = 20×0.5"));
    ok(d.run(&["reproduce", "m.toml", "--out", "pf"]));
    let report = std::fs::read_to_string(d.path.join("pf/robust/report.md")).unwrap();
    assert!(report.contains("robust/robustness-mix.svg"), "{report}");
    // Its cost says what the map's three other combinations ran: one point
    // of 4 replications each.
    assert!(
        report.contains("beside them, its robustness maps' other combinations: 12 records"),
        "{report}"
    );
    assert!(d.path.join("pf/robust/robustness-mix.png").exists());
}

/// `lb decide`: the claim inconclusive with 2 replications (`wr-close`) is
/// decided; the ledger beside the manifest makes `lb audit` agree; the flag
/// takes no --quick or --shard, and --budget-cpu needs it.
#[test]
fn run_decide_decides_and_audit_reads_the_ledger() {
    let d = Dir::new(lb_test_support::fixtures::WR_DECIDE);
    for bad in [
        &["decide", "--quick", "m.toml"][..],
        &["decide", "--shard", "0/2", "m.toml"],
        &["run", "--budget-cpu", "5", "m.toml"],
        &["run", "--decide", "m.toml"],
        &["run"],
    ] {
        assert!(!d.run(bad).status.success(), "{bad:?} should fail");
    }
    ok(d.run(&["run", "m.toml"]));
    let before = ok(d.run(&["audit", "m.toml"]));
    assert!(before.contains("1 undecided"), "{before}");
    let out = ok(d.run(&["decide", "--budget-cpu", "100", "m.toml"]));
    assert!(
        out.contains("1 of 1 inconclusive claim(s) decided (1 confirmed"),
        "{out}"
    );
    assert!(d.path.join("decide/wr-decide.json").is_file(), "{out}");
    let after = ok(d.run(&["audit", "m.toml", "--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(&after).unwrap();
    assert_eq!(v[0]["verdict"], "confirmed");
    assert!(v[0]["level"].as_f64().unwrap() > 0.99, "{after}");
}

/// `lb audit --format md` prints every section its summary links to
/// (a newcomer's stumble: it printed the summary only).
#[test]
fn the_markdown_audit_holds_the_sections_it_links_to() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let o = Command::new(LB)
        .current_dir(&root)
        .args(["audit", "experiments/validation.toml", "--format", "md"])
        .output()
        .unwrap();
    let md = ok(o);
    let mut links = 0;
    for part in md.split("](#").skip(1) {
        let anchor = &part[..part.find(')').unwrap()];
        links += 1;
        assert!(
            md.contains(&format!("<a id=\"{anchor}\"></a>")),
            "a link to #{anchor} with no section"
        );
    }
    assert!(links >= 5, "{links} links");
}
