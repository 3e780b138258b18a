//! `lb diff` end to end: verdicts and values that moved, against another cache, a
//! revision or another report.

mod common;

use common::*;

/// `lb diff`: a cache against itself moves no verdict (exit 0); against an
/// empty results directory every required check of validation.toml moves
/// (exit non-zero), each named with why (missing data).
#[test]
fn lb_diff_names_the_verdicts_that_moved() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let empty = tempfile::tempdir().unwrap();
    let run = |against: &Path| {
        Command::new(LB)
            .current_dir(&root)
            .args(["diff", "experiments/validation.toml", "--against"])
            .arg(against)
            .output()
            .unwrap()
    };
    let same = run(&root.join("results"));
    let (out, _) = text(&same);
    assert!(same.status.success(), "{out}");
    assert!(out.contains(": 0 verdict(s) moved"), "{out}");
    let gone = run(empty.path());
    let (out, _) = text(&gone);
    assert!(!gone.status.success(), "{out}");
    assert!(out.contains("validation:\n  REQUIRED claim "), "{out}");
    assert!(out.contains("missing data"), "{out}");
}

/// `lb diff --against REVISION` compares with a git revision's manifests
/// and committed results: a change of the servers' rates moves the table
/// values beyond their intervals, and each is named; against the same
/// revision nothing moves; a name that is neither a directory nor a
/// revision is an error that says what to give.
#[test]
fn lb_diff_against_a_revision_names_the_values_that_moved() {
    let d = Dir::new(&manifest(2000, 3));
    let git = |args: &[&str]| git_in(&d.path, args);
    git(&["init", "-q"]);
    std::fs::create_dir(d.path.join("experiments")).unwrap();
    std::fs::rename(d.path.join("m.toml"), d.path.join("experiments/m.toml")).unwrap();
    ok(d.run(&["run", "experiments/m.toml"]));
    git(&["add", "experiments", "results"]);
    git(&["commit", "-q", "-m", "first"]);
    let same = ok(d.run(&["diff", "--against", "HEAD"]));
    assert!(same.contains("0 table value(s) moved"), "{same}");
    let m = d.path.join("experiments/m.toml");
    let t = std::fs::read_to_string(&m).unwrap();
    std::fs::write(
        &m,
        t.replace("count = 2, rate = 0.8", "count = 2, rate = 0.2"),
    )
    .unwrap();
    ok(d.run(&["run", "experiments/m.toml"]));
    let out = ok(d.run(&["diff", "--against", "HEAD"]));
    assert!(out.contains("many:"), "{out}");
    assert!(
        out.contains("  value WR mean_response at load=0.5: "),
        "{out}"
    );
    assert!(!out.contains(" 0 table value(s) moved"), "{out}");
    let bad = d.run(&["diff", "--against", "no-such-thing"]);
    assert!(!bad.status.success());
    assert!(
        text(&bad)
            .1
            .contains("neither a results directory nor a git revision"),
        "{}",
        text(&bad).1
    );
}

/// `lb diff --against REVISION` with exactly one verdict planted: a
/// required bound claim's bound moves across the data, nothing is
/// recomputed. The diff names that verdict and nothing else (no table
/// value, no figure), and exits non-zero because the claim is required;
/// the same change to a claim that is not required exits 0.
#[test]
fn lb_diff_shows_one_planted_verdict_and_nothing_else() {
    let claim = |bound: &str, required: bool| {
        let origin = if required { "check" } else { "ours" };
        format!(
            "\n[[claim]]\nid = \"wr-bounded\"\nstatement = \"WR holds few jobs\"\nsource = \"a test\"\n\
             origin = \"{origin}\"\nkind = \"bound\"\nmetric = \"mean_sum_q\"\n\
             policies = [\"WR\"]\nbound = {bound}\nside = \"le\"\nrequired = {required}\n"
        )
    };
    for required in [true, false] {
        let d = Dir::new(&format!(
            "{}{}",
            manifest(2000, 3),
            claim("1000.0", required)
        ));
        let git = |args: &[&str]| git_in(&d.path, args);
        git(&["init", "-q"]);
        std::fs::create_dir(d.path.join("experiments")).unwrap();
        let m = d.path.join("experiments/m.toml");
        std::fs::rename(d.path.join("m.toml"), &m).unwrap();
        ok(d.run(&["run", "experiments/m.toml"]));
        git(&["add", "experiments", "results"]);
        git(&["commit", "-q", "-m", "first"]);
        let t = std::fs::read_to_string(&m).unwrap();
        std::fs::write(&m, t.replace("bound = 1000.0", "bound = 0.001")).unwrap();
        let o = d.run(&["diff", "--against", "HEAD"]);
        let (out, err) = text(&o);
        assert_eq!(o.status.success(), !required, "{out}{err}");
        assert!(out.contains(": 1 verdict(s) moved"), "{out}");
        assert!(out.contains("wr-bounded"), "{out}");
        assert!(
            out.contains(" 0 table value(s) moved")
                && out.contains(" 0 figure(s) whose data moved"),
            "{out}"
        );
    }
}

/// `lb diff --report A --against B` compares two reports as written: the
/// verdicts of their claims.json, their table values beyond the intervals,
/// their figures' sidecars; a required verdict that moved fails it.
#[test]
fn lb_diff_of_two_reports_names_what_moved() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let t = tempfile::tempdir().unwrap();
    let make = |side: &str| {
        let d = t.path().join(side);
        std::fs::create_dir_all(d.join("validation")).unwrap();
        for f in ["README.md", "audit.md"] {
            std::fs::write(d.join(f), "report\n").unwrap();
        }
        for f in ["claims.json", "table.csv", "validation.keys.csv"] {
            std::fs::copy(
                root.join("paper-figures/validation").join(f),
                d.join("validation").join(f),
            )
            .unwrap();
        }
        d
    };
    let (a, b) = (make("a"), make("b"));
    let run = || {
        Command::new(LB)
            .args(["diff", "--report"])
            .arg(&a)
            .arg("--against")
            .arg(&b)
            .output()
            .unwrap()
    };
    let same = ok(run());
    assert!(
        same.contains("0 verdict(s) moved") && same.contains("0 table value(s)"),
        "{same}"
    );
    // The other report: a required check refuted, a value far off, a
    // figure's point moved.
    let claims = b.join("validation/claims.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&claims).unwrap()).unwrap();
    v["claims"][0]["verdict"] = "refuted".into();
    std::fs::write(&claims, v.to_string()).unwrap();
    let table = b.join("validation/table.csv");
    let csv = std::fs::read_to_string(&table).unwrap();
    let mut lines: Vec<String> = csv.lines().map(String::from).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = header.iter().position(|c| *c == "mean_sum_q").unwrap();
    let mut row: Vec<String> = lines[1].split(',').map(String::from).collect();
    row[col] = "1000".into();
    lines[1] = row.join(",");
    std::fs::write(&table, lines.join("\n") + "\n").unwrap();
    let keys = b.join("validation/validation.keys.csv");
    let k = std::fs::read_to_string(&keys).unwrap();
    std::fs::write(&keys, k.replacen(",true,", ",false,", 1)).unwrap();
    let o = run();
    let (out, _) = text(&o);
    assert!(!o.status.success(), "{out}");
    assert!(out.contains("REQUIRED claim"), "{out}");
    assert!(out.contains("mean_sum_q: 1000 → "), "{out}");
    assert!(out.contains("figure validation: its points"), "{out}");
}
