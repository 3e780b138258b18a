//! `lb reproduce`, `lb export`, `lb stamp` and `lb archive` end to end: byte-stable
//! outputs, one experiment's commands leaving the report alone, provenance to a clean
//! commit, an archive that audits where it is unpacked.

mod common;

use common::*;

/// `lb reproduce` writes figures, tables, the report and the audit, and a
/// second (warm) run leaves every byte as it was.
#[test]
fn reproduce_is_byte_stable_when_warm() {
    let d = Dir::new(&audited_manifest(false));
    ok(d.run(&["reproduce", "m.toml", "--out", "pf"]));
    let first = snapshot(&d.path.join("pf"));
    for f in [
        "README.md",
        "audit.md",
        "many/f.svg",
        "many/f.png",
        "many/f.keys.csv",
        "many/table.md",
    ] {
        assert!(
            first.contains_key(&d.path.join("pf").join(f)),
            "{f} missing"
        );
    }
    ok(d.run(&["reproduce", "m.toml", "--out", "pf", "--threads", "1"]));
    assert_eq!(first, snapshot(&d.path.join("pf")));
}

/// Commands on one experiment never rewrite the committed report:
/// `lb audit X` prints and writes nothing; `lb reproduce X` and `lb
/// audit X --out` rewrite X's parts only, so with X unchanged every byte of
/// the report stays as it was, and with X changed the other experiments'
/// sections do.
#[test]
fn commands_on_one_experiment_leave_the_committed_report_alone() {
    let d = two_experiments();
    let pf = d.path.join("paper-figures");
    let before = snapshot(&pf);
    let readme = String::from_utf8(before[&pf.join("README.md")].clone()).unwrap();
    // The report opens with the verdict summary of every experiment.
    let summary = readme
        .find("## What was audited, and how it came out")
        .expect("a summary");
    assert!(summary < readme.find("<a id=\"a\">").unwrap(), "{readme}");
    assert!(readme.contains("| [a](#a) — many small pairs (with lb's required checks) | 1 | [1](audit.md#a) | 0 | 0 |"), "{readme}");
    assert!(readme.contains("[b](#b)"), "{readme}");

    let out = ok(d.run(&["audit", "experiments/a.toml"]));
    assert!(out.contains("**confirmed** (required)"), "{out}");
    assert_eq!(before, snapshot(&pf), "lb audit X wrote files");

    ok(d.run(&["reproduce", "experiments/a.toml"]));
    assert_eq!(before, snapshot(&pf), "lb reproduce X changed the report");

    ok(d.run(&["audit", "experiments/a.toml", "--out", "paper-figures"]));
    assert_eq!(before, snapshot(&pf), "lb audit X --out changed the report");

    // Change a: its section changes, b's does not, and both remain.
    let a = d.path.join("experiments/a.toml");
    let text = std::fs::read_to_string(&a).unwrap();
    std::fs::write(
        &a,
        text.replacen("title = \"many small pairs\"", "title = \"renamed\"", 1),
    )
    .unwrap();
    ok(d.run(&["reproduce", "experiments/a.toml"]));
    let after = snapshot(&pf);
    let readme2 = String::from_utf8(after[&pf.join("README.md")].clone()).unwrap();
    assert!(readme2.contains("## a — renamed"), "{readme2}");
    assert_eq!(section_of(&readme, "b"), section_of(&readme2, "b"));
    let audit = String::from_utf8(before[&pf.join("audit.md")].clone()).unwrap();
    let audit2 = String::from_utf8(after[&pf.join("audit.md")].clone()).unwrap();
    assert_eq!(section_of(&audit, "b"), section_of(&audit2, "b"));
    for f in [
        "b/f.svg",
        "b/f.png",
        "b/table.md",
        "b/report.md",
        "b/audit.md",
    ] {
        assert_eq!(before[&pf.join(f)], after[&pf.join(f)], "{f} changed");
    }
}

/// The tidy outputs read back: `long.parquet` equals `long.csv`, axes and
/// fixed parameters are numbers, `lb export` holds every replication of
/// every metric, and the JSON outputs hold numbers, not strings.
#[test]
fn tidy_tables_and_the_export_read_back() {
    use lb_analysis::tidy::read_parquet;
    use polars::prelude::*;
    let d = Dir::new(&audited_manifest(false));
    ok(d.run(&["reproduce", "m.toml", "--out", "pf"]));
    let long = read_parquet(&d.path.join("pf/many/long.parquet")).unwrap();
    let csv = CsvReadOptions::default()
        .with_has_header(true)
        .try_into_reader_with_file_path(Some(d.path.join("pf/many/long.csv")))
        .unwrap()
        .finish()
        .unwrap();
    assert_eq!(long.shape(), csv.shape());
    // 4 loads × 3 policies, one row per table metric.
    let metrics = long.column("metric").unwrap().n_unique().unwrap();
    assert_eq!(long.height(), 12 * metrics);
    for (name, dtype) in [
        ("load", DataType::Float64),
        ("servers", DataType::Int64),
        ("dispatchers", DataType::Int64),
        ("mean", DataType::Float64),
        ("level", DataType::Float64),
    ] {
        assert_eq!(long.column(name).unwrap().dtype(), &dtype, "{name}");
    }
    let means: Vec<Option<f64>> = long.column("mean").unwrap().f64().unwrap().to_vec();
    let from_csv: Vec<Option<f64>> = csv.column("mean").unwrap().f64().unwrap().to_vec();
    assert_eq!(means, from_csv);
    assert!(means.iter().flatten().count() > 0);

    // The whole cache: every replication × every metric of the model.
    ok(d.run(&["export", "m.toml", "--out", "all.parquet"]));
    let all = read_parquet(&d.path.join("all.parquet")).unwrap();
    let reps = count_replications(&d.cache("results"));
    let per = lb_manifest::Model::Slotted.metrics().len();
    assert_eq!(all.height(), reps * per);
    let exp = all.column("experiment").unwrap().str().unwrap();
    assert!(exp.iter().all(|e| e == Some("many")));

    // Numbers in JSON.
    let table: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.path.join("pf/many/table.json")).unwrap()).unwrap();
    assert!(table[0]["load"].is_f64(), "{}", table[0]);
    let audit = d.run(&["audit", "m.toml", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&audit.stdout).unwrap();
    assert!(v[0]["checks"][0]["at"]["load"].is_f64(), "{}", v[0]);
    // CSV is CSV: a header and one row per claim.
    let audit = ok(d.run(&["audit", "m.toml", "--format", "csv"]));
    let mut lines = audit.lines();
    assert!(lines.next().unwrap().starts_with("experiment,id,verdict,"));
    assert_eq!(lines.count(), 1);
}

/// Provenance that leads to a commit: records computed from a
/// modified tree fail `lb cache lineage --strict`; `lb stamp`
/// refuses a modified tree, and at a clean commit recomputes them bit for
/// bit and stamps the commit and the manifest's hash into them without
/// touching a number; the gate then passes. A record stamped at a commit
/// that leaves the history fails the gate again.
#[test]
fn stamped_records_lead_to_a_clean_commit_and_the_gate_checks_it() {
    let d = Dir::new(&manifest(2000, 1));
    let git = |args: &[&str]| git_in(&d.path, args);
    git(&["init", "-q"]);
    std::fs::write(d.path.join(".gitignore"), "results/\n").unwrap();
    git(&["add", "m.toml", ".gitignore"]);
    git(&["commit", "-q", "-m", "manifest"]);
    // Computed from a modified manifest: dirty.
    let text0 = std::fs::read_to_string(d.path.join("m.toml")).unwrap();
    std::fs::write(d.path.join("m.toml"), format!("{text0}\n# edited\n")).unwrap();
    ok(d.run(&["run", "m.toml"]));
    let c = d.cache("results");
    let before = records(&c);
    let o = d.run(&["cache", "lineage", "--strict"]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("never verified at a clean commit"),
        "{}",
        text(&o).1
    );
    // A modified tree cannot stamp.
    let o = d.run(&["stamp"]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("modified tracked files"),
        "{}",
        text(&o).1
    );
    // Commit, stamp: every record recomputes identical and leads to the commit.
    git(&["commit", "-q", "-am", "edited"]);
    let out = ok(d.run(&["stamp", "m.toml"]));
    assert!(out.contains("0 not identical"), "{out}");
    assert!(out.contains("0 already leading"), "{out}");
    ok(d.run(&["cache", "lineage", "--strict"]));
    assert_eq!(records(&c), before, "a stamp changed a number");
    assert_eq!(
        all_present_valid(&c),
        total_records(1),
        "stamped records reseal"
    );
    let (k, _) = c
        .keys()
        .into_iter()
        .find(|(k, _)| !c.replication_files(k).is_empty())
        .unwrap();
    // A stamp ends in packs; the record reads through them.
    assert!(lb_store::packing::loose_records(&c).is_empty());
    let v: serde_json::Value =
        serde_json::from_str(&c.record_text(&c.replication_path(&k, 0)).unwrap()).unwrap();
    let sha = lb_store::provenance::sha256_hex(&std::fs::read(d.path.join("m.toml")).unwrap());
    assert_eq!(
        v["provenance"]["verified"]["manifest_sha256"]["m.toml"],
        sha
    );
    // A second stamp finds nothing to do.
    let out = ok(d.run(&["stamp", "m.toml"]));
    assert!(out.contains(": 0 stamped"), "{out}");
    // A shallow clone one commit past the stamp lacks the stamped commit:
    // the gate fails and says to fetch the history, not to stamp again.
    std::fs::write(d.path.join("NOTES"), "later\n").unwrap();
    git(&["add", "NOTES"]);
    git(&["commit", "-q", "-m", "later"]);
    let shallow = tempfile::tempdir().unwrap();
    let url = format!("file://{}", d.path.display());
    git_in(shallow.path(), &["clone", "-q", "--depth", "1", &url, "c"]);
    let o = Command::new(LB)
        .current_dir(shallow.path().join("c"))
        .arg("--results")
        .arg(d.path.join("results"))
        .args(["cache", "lineage", "--strict"])
        .output()
        .unwrap();
    let err = text(&o).1;
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("this clone is shallow") && err.contains("git fetch --unshallow"),
        "{err}"
    );
    assert!(!err.contains("run `lb stamp`"), "{err}");
    ok(d.run(&["cache", "lineage", "--strict"]));
    git(&["reset", "-q", "--hard", "HEAD~1"]);
    // History rewritten under the stamp: the gate fails again.
    git(&["commit", "-q", "--amend", "-m", "rewritten"]);
    let o = d.run(&["cache", "lineage", "--strict"]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("not in HEAD's history"),
        "{}",
        text(&o).1
    );
}

/// `lb archive` writes a self-contained artifact: the manifest, every record
/// it reads, the report, the source and lock file, CITATION.cff and RO-Crate
/// metadata naming the Workflow Run Crate profiles; in the unpacked archive
/// `lb audit` gives the verdicts it gives here, and `lb verify` recomputes
/// its records bit for bit. (CI validates the metadata with roc-validator:
/// scripts/rocrate-validate.py.)
#[test]
fn an_archive_reproduces_its_verdicts_where_it_is_unpacked() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let t = tempfile::tempdir().unwrap();
    let arch = t.path().join("arch");
    let lb = |dir: &Path, args: &[&str]| {
        Command::new(LB)
            .current_dir(dir)
            .args(args)
            .output()
            .unwrap()
    };
    ok(lb(
        &root,
        &["archive", "experiments/validation.toml", "--out"]
            .into_iter()
            .chain([arch.to_str().unwrap()])
            .collect::<Vec<_>>(),
    ));
    for f in [
        "experiments/validation.toml",
        "paper-figures/README.md",
        "paper-figures/audit.md",
        "Cargo.lock",
        "CITATION.cff",
        "TOOLCHAIN.txt",
        "crates/lb-cli/src/main.rs",
        "ro-crate-metadata.json",
    ] {
        assert!(arch.join(f).is_file(), "{f} missing from the archive");
    }
    let audit = |dir: &Path| {
        ok(lb(
            dir,
            &["audit", "experiments/validation.toml", "--format", "csv"],
        ))
    };
    assert_eq!(audit(&arch), audit(&root), "the archive's verdicts differ");
    let v = ok(lb(&arch, &["verify", "--sample", "5"]));
    assert!(v.contains("5 identical"), "{v}");
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(arch.join("ro-crate-metadata.json")).unwrap(),
    )
    .unwrap();
    let graph = m["@graph"].as_array().unwrap();
    let root_entity = graph.iter().find(|e| e["@id"] == "./").unwrap();
    let profiles = root_entity["conformsTo"].to_string();
    assert!(
        profiles.contains("https://w3id.org/ro/wfrun/workflow/0.5"),
        "{profiles}"
    );
    assert_eq!(root_entity["mainEntity"]["@id"], "justfile");
    // Never over an existing archive.
    let again = lb(
        &root,
        &[
            "archive",
            "experiments/validation.toml",
            "--out",
            arch.to_str().unwrap(),
        ],
    );
    assert!(!again.status.success());
}

/// A manifest removed from experiments/ takes its report folder with it at
/// the next `lb reproduce` of every manifest (a newcomer's stumble), and the
/// run says so; a reproduce of one manifest removes nothing.
#[test]
fn a_removed_manifest_takes_its_report_folder_with_it() {
    let d = two_experiments();
    assert!(d.path.join("paper-figures/b/claims.json").is_file());
    std::fs::remove_file(d.path.join("experiments/b.toml")).unwrap();
    let one = d.run(&["reproduce", "experiments/a.toml"]);
    assert!(one.status.success());
    assert!(
        d.path.join("paper-figures/b").is_dir(),
        "removed by a partial reproduce"
    );
    let all = d.run(&["reproduce"]);
    let (out, err) = text(&all);
    assert!(all.status.success(), "{err}");
    assert!(!d.path.join("paper-figures/b").exists());
    assert!(d.path.join("paper-figures/a/claims.json").is_file());
    assert!(
        out.contains("no manifest in experiments/ names this experiment"),
        "{out}"
    );
    let page = std::fs::read_to_string(d.path.join("paper-figures/README.md")).unwrap();
    assert!(!page.contains("(#b)"), "the page still links b");
}
