//! Writing manifests and finding one's way: errors that name the file, field and fix;
//! `lb new`, `lb check`; the project root; the version; the recipes' docs.

mod common;

use common::*;

#[test]
fn bad_input_is_reported_with_file_line_column_and_field() {
    let d = Dir::new(&manifest(2000, 2).replace("spec = \"WR\"", "spec = \"WRR\""));
    let o = d.run(&["plan", "m.toml"]);
    assert!(!o.status.success());
    let (_, err) = text(&o);
    assert!(
        err.starts_with(
            "error: m.toml:23:8: policy[2].spec: unknown policy \"WRR\"; did you mean \"WR\"?"
        ),
        "{err}"
    );
    let o = d.run(&["run", "nope.toml"]);
    assert!(!o.status.success());
    assert!(
        text(&o)
            .1
            .contains("error: nope.toml: cannot read the manifest"),
        "{}",
        text(&o).1
    );
}

/// Commands that find nothing to do because their input is wrong exit
/// non-zero and say why.
#[test]
fn wrong_input_is_an_error_not_an_empty_success() {
    let d = Dir::new(&manifest(2000, 1));
    ok(d.run(&["run", "m.toml"]));
    for args in [
        vec!["verify", "--key", "zz"],
        vec!["verify", "--key", "../"],
        vec!["verify", "--key", "ffffffffffff"],
        vec!["verify", "--sample", "0"],
        vec!["--results", "nowhere", "cache", "ls"],
        vec!["--results", "nowhere", "cache", "check"],
        vec!["--results", "m.toml", "cache", "check"],
        vec!["--results", "nowhere", "show", "ab"],
    ] {
        let o = d.run(&args);
        let (_, err) = text(&o);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(err.contains("error:"), "{args:?}: {err}");
    }
}

/// Provenance describes the manifest's own repository and marks a manifest
/// the commit does not hold (here: no repository at all).
#[test]
fn provenance_marks_a_manifest_outside_version_control() {
    let d = Dir::new(&manifest(2000, 1));
    ok(d.run(&["run", "m.toml"]));
    let c = d.cache("results");
    let (k, _) = c
        .keys()
        .into_iter()
        .find(|(k, _)| !c.replication_files(k).is_empty())
        .unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&c.record_text(&c.replication_path(&k, 0)).unwrap()).unwrap();
    let manifests = v["provenance"]["manifests"].as_array().expect("manifests");
    assert!(
        manifests
            .iter()
            .any(|m| m.as_str().unwrap().contains("outside a git repository")),
        "{manifests:?}"
    );
}

/// One guard for plan and run: work beyond lb's soft limits is
/// refused by `lb plan` exactly as by `lb run`, with the same words, and
/// both pass it with --force (plan then warns). Before, `lb plan` printed
/// the estimate and exited 0 on a plan `lb run` refused.
#[test]
fn plan_refuses_what_run_refuses() {
    let d = Dir::new(&manifest(1_000_000_000_000_000, 2));
    let plan = d.run(&["plan", "m.toml"]);
    let run = d.run(&["run", "m.toml"]);
    assert!(!plan.status.success(), "{}", text(&plan).0);
    assert!(!run.status.success(), "{}", text(&run).0);
    let said = |o: &Output| {
        text(o)
            .1
            .lines()
            .find(|l| l.contains("soft limit") || l.contains("lb runs without asking"))
            .map(|l| l.trim_start_matches("error: ").to_string())
    };
    assert!(said(&plan).is_some(), "{}", text(&plan).1);
    assert_eq!(said(&plan), said(&run));
    let forced = d.run(&["plan", "m.toml", "--force"]);
    assert!(forced.status.success(), "{}", text(&forced).1);
    assert!(text(&forced).1.contains("warning:"), "{}", text(&forced).1);
}

/// `lb new` writes a manifest that `lb plan`, `lb run` and `lb reproduce`
/// take at once, for each model; it never overwrites one, and a policy lb does not know is a
/// located error with nothing written.
#[test]
fn lb_new_scaffolds_a_manifest_that_plans_at_once() {
    let d = Dir::new("");
    for (name, model, policies) in [
        ("s1", "slotted", "JSQ,Random"),
        ("m1", "many", "JSQ,Random"),
        ("n1", "spn", "FIFO,max-pressure"),
    ] {
        ok(d.run(&[
            "new",
            name,
            "--model",
            model,
            "--policies",
            policies,
            "--out",
            "exp",
        ]));
        let file = format!("exp/{name}.toml");
        let plan = ok(d.run(&["plan", &file]));
        assert!(plan.contains("4 missing"), "{plan}");
        let text = std::fs::read_to_string(d.path.join(&file)).unwrap();
        assert!(
            text.contains("[[claim]]") && text.contains("origin = \"ours\""),
            "{text}"
        );
    }
    // new → plan → run → reproduce, for each model, with no hand edit.
    for name in ["s1", "m1", "n1"] {
        ok(d.run(&["run", &format!("exp/{name}.toml"), "--threads", "1"]));
    }
    let audit = ok(d.run(&["audit", "exp/s1.toml"]));
    assert!(audit.contains("jsq-beats-random"), "{audit}");
    let rep = d.run(&[
        "reproduce",
        "exp/s1.toml",
        "exp/m1.toml",
        "exp/n1.toml",
        "--out",
        "rep",
    ]);
    let (out, err) = text(&rep);
    assert!(rep.status.success(), "{err}");
    // What reproduce produces goes to stdout (`lb reproduce > log` keeps it).
    assert!(
        out.contains("runs: 0 computed") && out.contains("wrote rep"),
        "{out}"
    );
    assert!(!err.contains("runs: "), "{err}");
    for name in ["s1", "m1", "n1"] {
        let page = std::fs::read_to_string(d.path.join(format!("rep/{name}/report.md")))
            .unwrap_or_else(|e| panic!("rep/{name}/report.md: {e}"));
        assert!(page.contains("beats"), "{name}: {page}");
        assert!(d.path.join(format!("rep/{name}/table.csv")).is_file());
    }
    let again = d.run(&["new", "s1", "--policies", "JSQ", "--out", "exp"]);
    assert!(!again.status.success());
    assert!(
        text(&again).1.contains("never overwrites"),
        "{:?}",
        text(&again)
    );
    let bad = d.run(&["new", "bad", "--policies", "NoSuch", "--out", "exp"]);
    assert!(!bad.status.success());
    let err = text(&bad).1;
    assert!(
        err.contains("policy[0].spec") && err.contains("nothing written"),
        "{err}"
    );
    assert!(!d.path.join("exp/bad.toml").exists());
}

/// Newcomer's stumbles: `lb --help` points to the manifest
/// documentation; `lb show` with no matching record says where keys are;
/// `lb verify` over a whole cache says what it costs and how to sample.
#[test]
fn the_messages_a_newcomer_meets_say_what_to_do() {
    let d = Dir::new(&format!(
        "{}\n[[claim]]\nid = \"wr-bounded\"\nstatement = \"WR holds few jobs\"\n\
         source = \"a test\"\norigin = \"ours\"\nkind = \"bound\"\nmetric = \"mean_sum_q\"\n\
         policies = [\"WR\"]\nbound = 1000.0\nside = \"le\"\n",
        manifest(2000, 10)
    ));
    // Auditing before running: the missing data, and the command that
    // computes it.
    std::fs::create_dir(d.path.join("results")).unwrap();
    let a = d.run(&["audit", "m.toml"]);
    let (_, err) = text(&a);
    assert!(err.contains("missing data"), "{err}");
    assert!(
        err.contains("to compute what is missing: lb run m.toml"),
        "{err}"
    );
    let help = ok(d.run(&["--help"]));
    assert!(help.contains("experiments/README.md"), "{help}");
    ok(d.run(&["run", "m.toml"]));
    let show = d.run(&["show", "ffff"]);
    assert!(!show.status.success());
    assert!(
        text(&show).1.contains("lb plan MANIFEST"),
        "{}",
        text(&show).1
    );
    let v = d.run(&["verify"]);
    let (out, err) = text(&v);
    assert!(v.status.success(), "{out}{err}");
    assert!(
        err.contains("verifying all") && err.contains("--sample K"),
        "{err}"
    );
}

/// Every recipe of the justfile carries a one-line `[doc(…)]`, which `just
/// --list` shows whole (a multi-line comment shows its last line only).
#[test]
fn every_just_recipe_has_a_one_line_doc() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("justfile")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut recipes = 0;
    for (i, l) in lines.iter().enumerate() {
        let recipe = !l.starts_with([' ', '\t', '#', '['])
            && !l.is_empty()
            && l.contains(':')
            && !l.contains(":=")
            && !l.starts_with("set ");
        if recipe {
            recipes += 1;
            assert!(
                i > 0 && lines[i - 1].starts_with("[doc(\""),
                "recipe `{l}` has no [doc(\"…\")] line above it"
            );
        }
    }
    assert!(recipes >= 8, "{recipes} recipes");
}

/// lb finds its project as git finds its repository: run from a
/// subdirectory it reads the project's cache (the points are cached, not
/// missing, and no empty cache starts there); run from outside any project
/// it refuses with the fix; with --results it does as told.
#[test]
fn lb_finds_its_project_from_a_subdirectory_and_refuses_outside_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap();
    let plan = |dir: &Path, args: &[&str]| {
        let o = Command::new(LB)
            .current_dir(dir)
            .args(args)
            .output()
            .unwrap();
        let (out, err) = text(&o);
        // The count of cached and missing points (the listing names the
        // manifest as it was typed).
        let counts: Vec<String> = out
            .lines()
            .filter(|l| l.contains(" cached, "))
            .map(str::to_string)
            .collect();
        (o.status.success(), (counts, err))
    };
    let (ok_root, (at_root, _)) = plan(&root, &["plan", "experiments/validation.toml"]);
    assert!(
        ok_root && at_root.len() == 1 && at_root[0].contains(" 0 missing"),
        "{at_root:?}"
    );
    for sub in [root.join("experiments"), root.join("crates/lb-cli/src")] {
        let named = if sub.ends_with("experiments") {
            "validation.toml"
        } else {
            "experiments/validation.toml"
        };
        let (ok, (out, err)) = plan(&sub, &["plan", named]);
        assert!(ok, "{err}");
        assert_eq!(out, at_root, "from {} lb read another cache", sub.display());
        assert!(!sub.join("results").exists(), "an empty cache was started");
    }
    let outside = tempfile::tempdir().unwrap();
    let manifest = root.join("experiments/validation.toml");
    let (ok, (_, err)) = plan(outside.path(), &["plan", manifest.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("belongs to the lb project at") && err.contains("cd "),
        "{err}"
    );
    let (ok, (_, err)) = plan(outside.path(), &["audit"]);
    assert!(!ok && err.contains("not inside an lb project"), "{err}");
    let results = root.join("results");
    let (ok, (out, err)) = plan(
        outside.path(),
        &[
            "plan",
            manifest.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(out, at_root);
}

/// `lb --version` names the commit the binary was built from (with
/// "modified" where its sources differ from it), or says there was none.
#[test]
fn the_version_names_the_build() {
    let out = Command::new(LB).arg("--version").output().unwrap();
    assert!(out.status.success());
    let v = String::from_utf8(out.stdout).unwrap();
    let v = v.trim();
    assert!(
        v.starts_with(&format!("lb {}", env!("CARGO_PKG_VERSION"))),
        "{v}"
    );
    let commit = v
        .split_once("(commit ")
        .map(|(_, c)| c.trim_end_matches(')').trim_end_matches(", modified"));
    match commit {
        Some(c) => assert!(
            c.len() == 12 && c.chars().all(|x| x.is_ascii_hexdigit()),
            "{v}"
        ),
        None => assert!(v.ends_with("(no git: built outside a repository)"), "{v}"),
    }
}

/// Every command names a manifest one way: by its path, or by its
/// experiment's name from the project root; a name that is none is refused
/// with the nearest one.
#[test]
fn a_manifest_is_named_by_path_or_by_name() {
    let d = Dir::new(&manifest(2_000, 1));
    std::fs::create_dir_all(d.path.join("experiments")).unwrap();
    std::fs::rename(d.path.join("m.toml"), d.path.join("experiments/many.toml")).unwrap();
    for args in [
        ["plan", "many"],
        ["plan", "experiments/many.toml"],
        ["run", "many"],
        ["table", "many"],
        ["audit", "many"],
    ] {
        let o = d.run(&args);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{args:?}: {out}{err}");
    }
    let o = d.run(&["table", "mnay"]);
    let (_, err) = text(&o);
    assert!(!o.status.success());
    assert!(
        err.contains("mnay: no such manifest: did you mean \"many\""),
        "{err}"
    );
}

/// `lb check` applies the house rules at authoring time: `lb new`'s
/// manifest passes them; a caption that leans on another figure and a
/// measured number typed in prose are each reported, located, with the
/// rule's name; a rule of the loader is reported as the loader says it.
#[test]
fn lb_check_applies_the_house_rules() {
    let d = Dir::new("");
    std::fs::create_dir_all(d.path.join("experiments")).unwrap();
    let o = d.run(&[
        "new",
        "mine",
        "--model",
        "slotted",
        "--policies",
        "JSQ,Random",
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let o = d.run(&["check", "mine"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(out.contains("all hold"), "{out}");
    // The rule that reads records says it could not, before any run.
    assert!(out.contains("not checked: no records"), "{out}");
    let path = d.path.join("experiments/mine.toml");
    let base = std::fs::read_to_string(&path).unwrap();
    let broken = base.replacen(
        "caption = \"",
        "caption = \"As above; the ratio reaches 1.234. ",
        1,
    );
    assert_ne!(broken, base, "lb new writes a caption");
    std::fs::write(&path, &broken).unwrap();
    let o = d.run(&["check", "mine"]);
    let (out, _) = text(&o);
    assert!(!o.status.success());
    assert!(
        out.contains("figure[0].caption: [captions-stand-alone]"),
        "{out}"
    );
    assert!(out.contains("[numbers-in-prose] 1.234"), "{out}");
    std::fs::write(&path, base.replacen("spec = \"JSQ\"", "spec = \"JSQQ\"", 1)).unwrap();
    let o = d.run(&["check", "mine"]);
    let (_, err) = text(&o);
    assert!(!o.status.success());
    assert!(err.contains("did you mean \"JSQ\""), "{err}");
    // A source whose work references.bib does not hold.
    std::fs::write(
        d.path.join("experiments/references.bib"),
        "@article{weber-1978, author = {Weber, R. R.}, title = {T}, shortname = {Weber}}\n",
    )
    .unwrap();
    std::fs::write(
        &path,
        base.replacen(
            "source = \"(where the claim is made: edit)\"",
            "source = \"@webber-1978, Thm. 1\"",
            1,
        ),
    )
    .unwrap();
    let o = d.run(&["check", "mine"]);
    let (_, err) = text(&o);
    assert!(!o.status.success());
    assert!(err.contains("claim[0].source"), "{err}");
    assert!(err.contains("did you mean @weber-1978?"), "{err}");
}

/// `lb new --paper KEY` writes a stand-in for a work of references.bib that
/// cites it by key and passes `lb check`; a key the file lacks is refused.
#[test]
fn lb_new_writes_a_stand_in_for_a_cited_work() {
    let d = Dir::new("");
    std::fs::create_dir_all(d.path.join("experiments")).unwrap();
    std::fs::write(
        d.path.join("experiments/references.bib"),
        "@article{weber-1978, author = {Weber, R. R.}, title = {T}, year = {1978}, \
         shortname = {Weber}}\n",
    )
    .unwrap();
    let o = d.run(&[
        "new",
        "w",
        "--policies",
        "JSQ,Random",
        "--paper",
        "weber-1978",
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let body = std::fs::read_to_string(d.path.join("experiments/w.toml")).unwrap();
    assert!(
        body.contains("origin = \"stand-in\"\npaper = \"Weber\""),
        "{body}"
    );
    assert!(body.contains("source = \"@weber-1978, "), "{body}");
    let o = d.run(&["check", "w"]);
    assert!(o.status.success(), "{:?}", text(&o));
    let o = d.run(&[
        "new",
        "v",
        "--policies",
        "JSQ,Random",
        "--paper",
        "weber-1987",
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("did you mean @weber-1978?"),
        "{:?}",
        text(&o)
    );
}

/// `lb check` reads records where the cache has them: a figure stretched
/// far beyond its data squeezes its claim's region, located by experiment
/// and claim.
#[test]
fn lb_check_reads_records_for_the_room_rule() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let d = Dir::new("");
    std::fs::create_dir_all(d.path.join("experiments")).unwrap();
    std::fs::copy(
        repo.join("experiments/references.bib"),
        d.path.join("experiments/references.bib"),
    )
    .unwrap();
    let manifest =
        std::fs::read_to_string(repo.join("experiments/max-pressure-heavy-traffic.toml")).unwrap();
    let results = repo.join("results");
    let results = results.to_str().unwrap();
    let put = |t: &str| {
        std::fs::write(
            d.path.join("experiments/max-pressure-heavy-traffic.toml"),
            t,
        )
        .unwrap()
    };
    put(&manifest);
    let o = d.run(&["--results", results, "check", "max-pressure-heavy-traffic"]);
    assert!(o.status.success(), "{:?}", text(&o));
    put(&manifest.replace("y_range = [0.38, 0.56]", "y_range = [0.0, 40.0]"));
    let o = d.run(&["--results", results, "check", "max-pressure-heavy-traffic"]);
    let (out, _) = text(&o);
    assert!(!o.status.success());
    assert!(
        out.contains("[claims-have-room] max-pressure-heavy-traffic/"),
        "{out}"
    );
}

/// `lb preference` gives Example 3's δ = 1/N for L-Pod with ties to the lowest
/// index and δ = 0 with uniform ties (every estimate equal), and names the flag
/// and the fix for a rule it does not know.
#[test]
fn the_preference_of_a_rule_is_computed_and_a_bad_rule_named() {
    let out = Command::new(LB)
        .args(["preference", "--rates", "1,1,1,1"])
        .args(["--rule", "l-pod:2:lowest", "--rule", "l-pod:2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v = String::from_utf8(out.stdout).unwrap();
    assert!(
        v.contains("| L-Pod(d = 2) (ties to the lowest index) | 75 | yes | 0.2500 |"),
        "{v}"
    );
    assert!(
        v.contains("| L-Pod(d = 2) (uniform ties) | 75 | yes | 0.0000 | (0, 0, 0, 0) | 0.0833 |"),
        "{v}"
    );
    let out = Command::new(LB)
        .args(["preference", "--rule", "l-pod"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(e.contains("--rule `l-pod`: not a rule; write l-jsq"), "{e}");
}
