//! Bad claims: each gives an error naming the file, line, column and field, and
//! saying what is allowed: claim kinds and their keys, origins and foils, nulls,
//! controls, quotes, sources and inventories.

mod common;

use common::*;

/// A key of another kind of claim is an error at the key, naming the kinds
/// it belongs to and the keys of the claim's own kind — in a claim and in a
/// check of its `why`.
#[test]
fn a_key_of_another_kind_of_claim() {
    let t = format!(
        "{GOOD}{CLAIM}kind = \"value\"\nmetric = \"mean_sum_q\"\npolicies = [\"JSQ\"]\n\
         expected = 1.0\nbetter = \"JSQ\"\n"
    );
    check_last(
        &err(&t),
        &t,
        "\"JSQ\"\n",
        "claim[0].better",
        "`better` belongs to ordering claims, not to a value claim (whose own keys are \
         metric, policies, expected, tolerance, abs_tolerance, control); remove it",
    );
    let t = format!(
        "{GOOD}{CLAIM}kind = \"stability\"\npolicies = [\"JSQ\"]\nstable = true\n\
         metric = \"mean_sum_q\"\n"
    );
    check(
        &err(&t),
        &t,
        "\"mean_sum_q\"",
        "claim[0].metric",
        "`metric` belongs to ordering, value, bound, trend and limit claims, not to a \
         stability claim (whose own keys are policies, stable)",
    );
    let t = format!(
        "{GOOD}{CLAIM}kind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"JSQ\"\n\
         worse = \"L-JSQ-Push\"\nwhy = \"w\"\n\n[[claim.why_check]]\nsays = \"it is so\"\n\
         kind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"JSQ\"\n\
         worse = \"L-JSQ-Push\"\npolicies = []\n"
    );
    check_last(
        &err(&t),
        &t,
        "[]",
        "claim[0].why_check[0].policies",
        "not to an ordering claim (whose own keys are metric, better, worse, equivalence, \
         overhead_ratio)",
    );
}

/// A key a kind needs, missing, is named with the kind.
#[test]
fn an_ordering_claim_without_worse() {
    let t =
        format!("{GOOD}{CLAIM}kind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"JSQ\"\n");
    check(
        &err(&t),
        &t,
        "[[claim]]",
        "claim[0].worse",
        "an ordering claim needs `worse`",
    );
}

#[test]
fn a_path_figure_takes_no_axis_or_metric() {
    let t = format!(
        "{GOOD}\n[[figure]]\nname = \"f\"\ntitle = \"t\"\nkind = \"path\"\nx = \"load\"\ncaption = \"c\"\n"
    );
    let e = err(&t);
    assert_eq!(e.field, "figure[0].x", "{e}");
    assert!(e.message.contains("sample paths against time"), "{e}");
    let ok = format!(
        "{GOOD}\n[[figure]]\nname = \"f\"\ntitle = \"t\"\nkind = \"path\"\nwhere = {{ load = 0.9 }}\npaths = 3\ny_label = \"jobs\"\ncaption = \"c\"\n"
    );
    load_str(Path::new("exp/ok.toml"), &ok, Profile::Full).unwrap_or_else(|e| panic!("{e}"));
}

/// A reference drawn per replication (the slotted model's pooled queue) is
/// already paired with the metric: a control variate on it is refused at
/// `control`, and the same claim without one loads.
#[test]
fn a_control_variate_on_a_per_replication_reference_is_refused() {
    let ok = format!("{GOOD}{POOLED_CLAIM}");
    load_str(Path::new("exp/ok.toml"), &ok, Profile::Full).unwrap_or_else(|e| panic!("{e}"));
    let t = format!("{ok}control = {{ policy = \"JSQ\", mean = \"wr_sum_q\" }}\n");
    let e = err(&t);
    check_last(
        &e,
        &t,
        "{ policy = \"JSQ\"",
        "claim[0].control",
        "the pooled reference is drawn per replication",
    );
}

/// Two manifests with one experiment name would overwrite each other's
/// outputs: the one loader refuses the second, located at its name, for every
/// command (lb run used to load without this check).
#[test]
fn two_manifests_with_one_name_are_refused_at_the_second() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.toml"), dir.path().join("b.toml"));
    std::fs::write(&a, GOOD).unwrap();
    std::fs::write(&b, GOOD).unwrap();
    let e = lb_manifest::load_all(&[a.clone(), b.clone()], Profile::Full).unwrap_err();
    assert_eq!(e.file, b, "{e}");
    assert_eq!(e.field, "experiment.name", "{e}");
    assert_eq!((e.line, e.col), pos(GOOD, "\"t\""), "{e}");
    assert!(e.message.contains("also the name of"), "{e}");
    assert!(e.message.contains(&a.display().to_string()), "{e}");
    // Each on its own loads.
    assert_eq!(lb_manifest::load_all(&[a], Profile::Full).unwrap().len(), 1);
}

/// Who claimed it: a claim without `origin` is refused with the three
/// choices; a stand-in must name what it tests, and `tests` must name a
/// paper's statement of the manifest.
#[test]
fn a_claim_says_who_claimed_it() {
    let body = "kind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"JSQ\"\n\
                worse = \"L-JSQ-Push\"\n";
    let bare = format!("{GOOD}\n[[claim]]\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\n{body}");
    let e = err(&bare);
    assert_eq!(e.field, "claim[0].origin", "{e}");
    assert!(e.message.contains("\"stand-in\""), "{e}");
    let standin = format!(
        "{GOOD}\n[[claim]]\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\norigin = \
         \"stand-in\"\npaper = \"P\"\n{body}"
    );
    let e = err(&standin);
    assert_eq!(e.field, "claim[0].tests", "{e}");
    let to_check = format!(
        "{GOOD}\n[[claim]]\nid = \"a\"\nstatement = \"s\"\nsource = \"x\"\norigin = \
         \"check\"\n{body}\n[[claim]]\nid = \"b\"\nstatement = \"s\"\nsource = \"x\"\n\
         origin = \"stand-in\"\npaper = \"P\"\ntests = \"a\"\nno_foil = \"f\"\n{body}"
    );
    let e = err(&to_check);
    assert_eq!(e.field, "claim[1].tests", "{e}");
    assert!(e.message.contains("not a paper's statement"), "{e}");
    let no_paper = format!(
        "{GOOD}\n[[claim]]\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\norigin = \
         \"paper\"\n{body}"
    );
    assert_eq!(err(&no_paper).field, "claim[0].paper");
    // A stand-in that reads what its statement's claim reads, at the same
    // points, restates it; at other points it is a stand-in.
    let restated = |extra: &str| {
        format!(
            "{GOOD}\n[[claim]]\nid = \"a\"\nstatement = \"s\"\nsource = \"x\"\norigin = \
             \"paper\"\npaper = \"P\"\nreading = \"r (\\\"q\\\")\"\nno_foil = \"f\"\n{body}\n\
             [[claim]]\nid = \"b\"\nstatement = \"s\"\nsource = \"x\"\norigin = \"stand-in\"\n\
             paper = \"P\"\ntests = \"a\"\nno_foil = \"f\"\n{body}{extra}"
        )
    };
    let e = err(&restated(""));
    assert_eq!(e.field, "claim[1].tests", "{e}");
    assert!(e.message.contains("restates"), "{e}");
    load_str(
        Path::new("exp/ok.toml"),
        &restated("where = { load = \">= 0.9\" }\n"),
        Profile::Full,
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// A claim that reads what another claim's foil reads, at the same points,
/// is that foil: refused, since the foil's line reports it already and a
/// verdict of its own would count the same records twice.
#[test]
fn a_claim_that_restates_a_foil_is_refused() {
    let text = |extra: &str| {
        format!(
            "{GOOD}\n[[policy]]\nspec = \"Random\"\n\n[[claim]]\nid = \"a\"\nstatement = \"s\"\n\
             source = \"x\"\norigin = \"ours\"\nkind = \"ordering\"\nmetric = \"mean_response\"\n\
             better = \"L-JSQ-Push\"\nworse = \"JSQ\"\n\n[claim.foil]\nsays = \"f\"\n\
             kind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"Random\"\n\
             worse = \"JSQ\"\n\n[[claim]]\nid = \"b\"\nstatement = \"s\"\nsource = \"x\"\n\
             origin = \"ours\"\nkind = \"ordering\"\nmetric = \"mean_response\"\n\
             better = \"Random\"\nworse = \"JSQ\"\n{extra}"
        )
    };
    let e = err(&text(""));
    assert_eq!(e.field, "claim[1]", "{e}");
    assert!(e.message.contains("the foil of \"a\""), "{e}");
    // At other points it reads something the foil does not.
    load_str(
        Path::new("exp/ok.toml"),
        &text("where = { load = 0.9 }\n"),
        Profile::Full,
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// A stand-in in an experiment its statement's claim `reads`, with the
/// claim's check, restates it on the same records: refused at its `tests`.
#[test]
fn a_stand_in_on_records_its_statement_reads_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let body = "kind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"L-JSQ-Push\"\n\
                worse = \"JSQ\"\n";
    let a = GOOD.replacen("name = \"t\"", "name = \"a\"", 1)
        + &format!(
            "\n[[claim]]\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\norigin = \"paper\"\n\
             paper = \"P\"\nreading = \"r (\\\"q\\\")\"\nno_foil = \"f\"\nreads = [\"b\"]\n{body}"
        );
    let b = |extra: &str| {
        GOOD.replacen("name = \"t\"", "name = \"b\"", 1)
            + &format!(
                "\n[[claim]]\nid = \"d\"\nstatement = \"s\"\nsource = \"x\"\n\
                 origin = \"stand-in\"\npaper = \"P\"\ntests = \"a/c\"\nno_foil = \"f\"\n\
                 {body}{extra}"
            )
    };
    let (pa, pb) = (dir.path().join("a.toml"), dir.path().join("b.toml"));
    std::fs::write(&pa, &a).unwrap();
    std::fs::write(&pb, b("")).unwrap();
    let e = lb_manifest::load_all(&[pa.clone(), pb.clone()], Profile::Full).unwrap_err();
    assert_eq!(e.file, pb, "{e}");
    assert_eq!(e.field, "claim[0].tests", "{e}");
    assert!(e.message.contains("restates it on the same records"), "{e}");
    // Another check (the opposite ordering) reads something the claim does not.
    let opposite = b("").replace(
        "better = \"L-JSQ-Push\"\nworse = \"JSQ\"",
        "better = \"JSQ\"\nworse = \"L-JSQ-Push\"",
    );
    std::fs::write(&pb, opposite).unwrap();
    lb_manifest::load_all(&[pa, pb], Profile::Full).unwrap_or_else(|e| panic!("{e}"));
}

/// The good manifest sweeping `loads` and 1 or 2 dispatchers, with an
/// ordering claim (L-JSQ-Push beats JSQ) at `claim_where` and its foil, the
/// same check, at `foil_where`.
fn with_foil(loads: &str, claim_where: &str, foil_where: &str) -> String {
    replace(
        "load = [0.5, 0.9]",
        &format!("load = {loads}\ndispatchers = [1, 2]"),
    )
    .replacen("dispatchers = 2\n", "", 1)
        + &format!(
            "\n[[claim]]\nid = \"a\"\nstatement = \"s\"\nsource = \"x\"\norigin = \"ours\"\n\
             kind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"L-JSQ-Push\"\n\
             worse = \"JSQ\"\nwhere = {{ {claim_where} }}\n\n[claim.foil]\n\
             says = \"f\"\nkind = \"ordering\"\nmetric = \"mean_response\"\n\
             better = \"L-JSQ-Push\"\nworse = \"JSQ\"\nwhere = {{ {foil_where} }}\n"
        )
}

/// A foil that changes a setting changes one: its `where` may differ from
/// the claim's in one key only.
#[test]
fn a_setting_foil_changes_one_setting() {
    let text =
        |foil_where: &str| with_foil("[0.5, 0.9]", "load = 0.5, dispatchers = 2", foil_where);
    let e = err(&text("load = 0.9, dispatchers = 1"));
    assert_eq!(e.field, "claim[0].foil.where", "{e}");
    assert!(e.message.contains("`dispatchers` and `load`"), "{e}");
    load_str(
        Path::new("exp/ok.toml"),
        &text("load = 0.5, dispatchers = 1"),
        Profile::Full,
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// A foil of the claim's own policies never leaves the claim's range: on an
/// axis the claim reads at several values, the foil reads only those (the
/// same policies elsewhere on the range are another part of the claim); a
/// foil at one of them, or one that moves a setting the claim pins, loads.
#[test]
fn a_foil_is_not_read_off_the_claims_range() {
    let text =
        |claim_where: &str, foil_where: &str| with_foil("[0.5, 0.7, 0.9]", claim_where, foil_where);
    let e = err(&text(
        "load = [0.5, 0.7], dispatchers = 2",
        "load = 0.9, dispatchers = 2",
    ));
    assert_eq!(e.field, "claim[0].foil.where", "{e}");
    assert!(
        e.message.contains("reads `load` over its range (0.5, 0.7)"),
        "{e}"
    );
    for (claim, foil) in [
        (
            "load = [0.5, 0.7], dispatchers = 2",
            "load = 0.7, dispatchers = 2",
        ),
        ("load = 0.5, dispatchers = 2", "load = 0.5, dispatchers = 1"),
    ] {
        load_str(Path::new("exp/ok.toml"), &text(claim, foil), Profile::Full)
            .unwrap_or_else(|e| panic!("{claim} / {foil}: {e}"));
    }
}

/// A foil that changes only a setting the paper leaves open (one a map may
/// vary) is another reading, not a foil: refused, whether its `where` moves
/// the setting or it names the same policy with another tie rule; a foil of
/// another policy is not.
#[test]
fn a_reading_is_not_a_foil() {
    let claim = |foil: &str| {
        replace(
            "load = [0.5, 0.9]",
            "load = [0.5, 0.9]\ncount_own = [true, false]",
        ) + "\n[[policy]]\nlabel = \"JSQ (lowest)\"\nspec = \"JSQ\"\ntie_break = \"lowest\"\n\n\
             [[policy]]\nspec = \"Random\"\n\n[[claim]]\nid = \"a\"\nstatement = \"s\"\n\
             source = \"x\"\norigin = \"ours\"\nkind = \"ordering\"\n\
             metric = \"mean_response\"\nbetter = \"L-JSQ-Push\"\nworse = \"JSQ\"\n\
             where = { count_own = false }\n\n[claim.foil]\nsays = \"f\"\nkind = \"ordering\"\n\
             metric = \"mean_response\"\n"
            + foil
    };
    let e = err(&claim(
        "better = \"L-JSQ-Push\"\nworse = \"JSQ\"\nwhere = { count_own = true }\n",
    ));
    assert_eq!(e.field, "claim[0].foil", "{e}");
    assert!(e.message.contains("changes only count_own"), "{e}");
    assert!(e.message.contains("[[robustness]] map"), "{e}");
    let e = err(&claim(
        "better = \"L-JSQ-Push\"\nworse = \"JSQ (lowest)\"\nwhere = { count_own = false }\n",
    ));
    assert!(e.message.contains("changes only tie_break of JSQ"), "{e}");
    load_str(
        Path::new("exp/ok.toml"),
        &claim("better = \"Random\"\nworse = \"JSQ\"\nwhere = { count_own = false }\n"),
        Profile::Full,
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// A paper's statement names a foil, says why none can fail it, or credits
/// its property, whose nulls could fail it.
#[test]
fn a_claim_that_credits_needs_no_foil() {
    let claim = |extra: &str| {
        GOOD.to_string()
            + "\n[[policy]]\nspec = \"Random\"\n\n[[policy]]\nspec = \"WR\"\n\n[[claim]]\n\
               id = \"a\"\nstatement = \"s\"\nsource = \"x\"\norigin = \"stand-in\"\n\
               paper = \"P\"\nstands_for = \"P, p. 1: \\\"q\\\"\"\nkind = \"ordering\"\n\
               metric = \"mean_response\"\nbetter = \"L-JSQ-Push\"\nworse = \"JSQ\"\n"
            + extra
    };
    let e = err(&claim(""));
    assert_eq!(e.field, "claim[0].foil", "{e}");
    assert!(e.message.contains("`credits`"), "{e}");
    load_str(
        Path::new("exp/ok.toml"),
        &claim("credits = \"information\"\n"),
        Profile::Full,
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// A difference figure names two policies of the manifest and a linear
/// axis (a difference can be negative).
#[test]
fn a_difference_figure_names_two_policies_on_a_linear_axis() {
    let fig = |extra: &str| {
        format!(
            "{GOOD}\n[[figure]]\nname = \"f\"\ntitle = \"t\"\nx = \"load\"\ny = \"mean_response\"\n\
             caption = \"c\"\n{extra}\n"
        )
    };
    let e = err(&fig(
        "difference = { better = \"JSQ\", worse = \"Nobody\" }",
    ));
    assert_eq!(e.field, "figure[0].difference.worse", "{e}");
    let e = err(&fig("difference = { better = \"JSQ\", worse = \"JSQ\" }"));
    assert_eq!(e.field, "figure[0].difference", "{e}");
    let e = err(&fig(
        "log_y = true\ndifference = { better = \"JSQ\", worse = \"L-JSQ-Push\" }",
    ));
    assert_eq!(e.field, "figure[0].log_y", "{e}");
    let ok = fig("difference = { better = \"JSQ\", worse = \"L-JSQ-Push\" }");
    load_str(Path::new("exp/ok.toml"), &ok, Profile::Full).unwrap_or_else(|e| panic!("{e}"));
}

/// A quote of a measured value in prose (`{{…}}`) names a policy, a metric
/// and a `where` of the manifest, and selects exactly one point (or, for a
/// `range`, at least one): otherwise a located error names the quote.
#[test]
fn a_quote_in_prose_is_checked_against_the_plan() {
    let fig = |caption: &str| {
        format!(
            "{GOOD}\n[[figure]]\nname = \"f\"\ntitle = \"t\"\nx = \"load\"\ny = \"mean_response\"\n\
             caption = \"{caption}\"\n"
        )
    };
    for (caption, says) in [
        (
            "JSQ has {{mean_response of JSQ}} slots",
            "selects 2 points (load = 0.5; load = 0.9)",
        ),
        (
            "{{mean_response of JSQ where load = 0.7}}",
            "0.7 is not a value of the sweep axis `load`",
        ),
        (
            "{{mean_response of JQS where load = 0.5}}",
            "did you mean \"JSQ\"",
        ),
        (
            "{{mean_respons of JSQ where load = 0.5}}",
            "did you mean \"mean_response\"",
        ),
        ("{{mean_response where load = 0.5}}", "names no policy"),
    ] {
        let t = fig(caption);
        let e = err(&t);
        assert_eq!(e.field, "figure[0].caption", "{caption}: {e}");
        assert!(e.message.contains(says), "{caption}: {e}");
        assert!(e.message.contains("quote"), "{caption}: {e}");
    }
    // A range of several points, a quote of one, and the seconds a run took.
    let t = fig(
        "JSQ: {{range mean_response of JSQ}}; {{mean_response of JSQ where load = 0.9}}; \
         {{mean cpu of JSQ where load = 0.5}} s",
    );
    load_str(Path::new("exp/ok.toml"), &t, Profile::Full).unwrap_or_else(|e| panic!("{e}"));
}

/// A policy's `spec` is read ignoring case, and its default label is the
/// canonical spelling, so a claim naming "JSQ" finds `spec = "jsq"`
/// (a newcomer's stumble).
#[test]
fn a_lower_case_spec_is_labelled_by_its_canonical_name() {
    let t = format!(
        "{}{CLAIM}kind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"JSQ\"\n\
         worse = \"L-JSQ-Push\"\n",
        replace("spec = \"JSQ\"", "spec = \"jsq\"")
    );
    let e = load_str(Path::new("exp/ok.toml"), &t, Profile::Full).unwrap_or_else(|e| panic!("{e}"));
    assert!(e.plan.points.iter().any(|p| p.label == "JSQ"));
}

/// A precision rule's control variate: a label that is no policy of the
/// manifest, a pilot too small to fit β, the sequential procedure and a
/// reference that is not an exact mean of the control are each refused at
/// their field; the rule with the pooled queue as control loads.
#[test]
fn a_precision_rules_control_is_checked() {
    let rule = |extra: &str| {
        replace(
            "replications = 2",
            &format!(
                "precision = {{ metric = \"mean_sum_q\", rel_half_width = 0.05, min = 4, max = 8, \
                 step = 4, {extra} }}"
            ),
        )
        .replace(
            "[[policy]]\nspec = \"JSQ\"\n",
            "[[policy]]\nspec = \"JSQ\"\n\n[[policy]]\nspec = \"Pooled\"\n",
        )
    };
    let pooled = "control = { policy = \"Pooled\", mean = \"pooled_exact\" }";
    load_str(Path::new("exp/ok.toml"), &rule(pooled), Profile::Full)
        .unwrap_or_else(|e| panic!("{e}"));
    let t = rule("control = { policy = \"WR\", mean = \"wr_sum_q\" }");
    let e = err(&t);
    check(
        &e,
        &t,
        "\"WR\"",
        "run.precision.control.policy",
        "no policy labelled \"WR\"",
    );
    let t = rule(pooled).replace("min = 4", "min = 3");
    let e = err(&t);
    check(&e, &t, "3, max", "run.precision.min", "at least 4");
    let t = rule(&format!("procedure = \"sequential\", {pooled}"));
    check(
        &err(&t),
        &t,
        "{ policy = \"Pooled\"",
        "run.precision.control",
        "drop procedure = \"sequential\"",
    );
    // Stein's first stage decides with it too, on at least 4 pairs.
    load_str(
        Path::new("exp/ok.toml"),
        &rule(&format!("procedure = \"stein\", {pooled}")),
        Profile::Full,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let t = rule(&format!("procedure = \"stein\", {pooled}")).replace("min = 4", "min = 3");
    check(
        &err(&t),
        &t,
        "3, max",
        "run.precision.min",
        "Stein's first stage",
    );
    let t = rule("control = { policy = \"Pooled\", mean = \"wr_sum_q\" }");
    let e = err(&t);
    check(
        &e,
        &t,
        "\"wr_sum_q\"",
        "run.precision.control.mean",
        "wr_sum_q",
    );
}

/// A claim's control variate loads under Stein's procedure as under the
/// pilot (its interval is then Stein's form of the control variate).
#[test]
fn a_claims_control_variate_loads_under_stein() {
    let claim = "\n[[claim]]\norigin = \"check\"\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\n\
        kind = \"value\"\nmetric = \"mean_sum_q\"\npolicies = [\"L-JSQ-Push\"]\nexpected = 1.0\n\
        tolerance = 0.5\ncontrol = { policy = \"WR\", mean = \"wr_sum_q\" }\n";
    let rule = |procedure: &str| {
        let t = replace(
            "replications = 2",
            &format!(
                "precision = {{ metric = \"mean_sum_q\", rel_half_width = 0.05, min = 4, max = 8, \
                 step = 4{procedure} }}"
            ),
        )
        .replace(
            "[[policy]]\nspec = \"JSQ\"\n",
            "[[policy]]\nspec = \"JSQ\"\n\n[[policy]]\nspec = \"WR\"\n",
        );
        format!("{t}{claim}")
    };
    for procedure in ["", ", procedure = \"stein\""] {
        load_str(Path::new("exp/ok.toml"), &rule(procedure), Profile::Full)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// A claim is decided at its level as the coverage certificate calibrated
/// it, or as stated with `decide_at = "nominal"`; another word is an error
/// at the key that says what is allowed.
#[test]
fn decide_at_is_calibrated_nominal_or_an_error() {
    use lb_manifest::calibration::{DecideAt, decision_level};
    let claim = |extra: &str| {
        format!(
            "{GOOD}\n[[claim]]\norigin = \"check\"\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\n\
             kind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"JSQ\"\n\
             worse = \"L-JSQ-Push\"\n{extra}"
        )
    };
    let level = |extra: &str| {
        let e = load_str(Path::new("exp/c.toml"), &claim(extra), Profile::Full).unwrap();
        let c = &e.loaded.claims()[0];
        (c.level, c.stated_level, c.decide_at)
    };
    let calibrated = decision_level(0.95, DecideAt::Calibrated);
    assert!(calibrated > 0.95);
    assert_eq!(level(""), (calibrated, 0.95, DecideAt::Calibrated));
    assert_eq!(
        level("decide_at = \"nominal\"\n"),
        (0.95, 0.95, DecideAt::Nominal)
    );
    assert_eq!(
        level("level = 0.999\ndecide_at = \"calibrated\"\n").0,
        decision_level(0.999, DecideAt::Calibrated)
    );
    let t = claim("decide_at = \"strict\"\n");
    let e = err(&t);
    assert_eq!(e.field, "claim[0].decide_at", "{e}");
    assert!(
        e.message.contains("calibrated") && e.message.contains("nominal"),
        "{e}"
    );
}

/// A paper's statement or a stand-in names a foil (the claim's own check
/// where the property should fail) or says in `no_foil` why none can fail;
/// the foil is of the claim's kind, and not both are given.
#[test]
fn a_statement_names_its_foil() {
    let body = "kind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"JSQ\"\n\
                worse = \"L-JSQ-Push\"\n";
    let head = format!(
        "{GOOD}\n[[claim]]\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\norigin = \
         \"stand-in\"\npaper = \"P\"\nstands_for = \"q\"\n{body}"
    );
    let e = err(&head);
    assert_eq!(e.field, "claim[0].foil", "{e}");
    assert!(e.message.contains("no_foil"), "{e}");
    let foil = |kind: &str| {
        format!(
            "\n[claim.foil]\nsays = \"L-JSQ-Push should not lose\"\nkind = \"{kind}\"\n\
             metric = \"mean_response\"\nbetter = \"L-JSQ-Push\"\nworse = \"JSQ\"\n"
        )
    };
    let e = err(&format!("{head}{}", foil("trend")));
    assert_eq!(e.field, "claim[0].foil.kind", "{e}");
    let e = err(&format!(
        "{head}no_foil = \"a floor\"\n{}",
        foil("ordering")
    ));
    assert_eq!(e.field, "claim[0].no_foil", "{e}");
    let e = err(&format!(
        "{head}\n[claim.foil]\nsays = \"x\"\nkind = \"ordering\"\nmetric = \"mean_response\"\n\
         better = \"Nobody\"\nworse = \"JSQ\"\n"
    ));
    assert_eq!(e.field, "claim[0].foil.better", "{e}");
    for ok in [
        format!("{head}{}", foil("ordering")),
        format!("{head}no_foil = \"a floor every policy meets\"\n"),
    ] {
        load_str(Path::new("exp/ok.toml"), &ok, Profile::Full).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// A statement inventory names claims that exist and are its paper's, and
/// every paper's statement of a paper with an inventory is in it: each
/// mistake is refused with the file, the field and the fix.
#[test]
fn an_inventory_keeps_the_papers_statements_honest() {
    let d = std::env::temp_dir().join(format!("lb-inventory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("inventory")).unwrap();
    let claim = "\n[[claim]]\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\norigin = \"paper\"\n\
                 paper = \"P\"\nreading = \"r (\\\"q\\\")\"\nno_foil = \"n\"\nkind = \"ordering\"\n\
                 metric = \"mean_response\"\nbetter = \"JSQ\"\nworse = \"L-JSQ-Push\"\n";
    let manifest = d.join("exp.toml");
    std::fs::write(&manifest, format!("{GOOD}{claim}")).unwrap();
    let name = load(&manifest, Profile::Full)
        .unwrap_or_else(|e| panic!("{e}"))
        .name()
        .to_string();
    let inv = |claims: &str| {
        format!(
            "[paper]\nauthors = \"P\"\ntitle = \"T\"\n\n[[statement]]\nid = \"theorem-1-main\"\n\
             kind = \"theorem\"\nwhere = \"§1\"\nquote = \"q\"\nsetting = \"s\"\n{claims}\n"
        )
    };
    let load = |text: &str| {
        std::fs::write(d.join("inventory/p.toml"), text).unwrap();
        lb_manifest::load_all(std::slice::from_ref(&manifest), Profile::Full)
    };
    // Named: loads.
    load(&inv(&format!("claims = [\"{name}/c\"]"))).unwrap_or_else(|e| panic!("{e}"));
    // A claim that does not exist.
    let e = load(&inv(&format!("claims = [\"{name}/nope\"]"))).unwrap_err();
    assert_eq!(e.field, "statement[0].claims[0]", "{e}");
    assert!(e.message.contains("no claim \"nope\""), "{e}");
    // Neither claims nor a reason.
    let e = load(&inv("")).unwrap_err();
    assert_eq!(e.field, "statement[0].claims", "{e}");
    // "not yet" says how.
    let e = load(&inv("out_of_reach = \"not yet\"")).unwrap_err();
    assert_eq!(e.field, "statement[0].could_audit", "{e}");
    // What no claim reads is said of a statement claims audit, not of one
    // no claim does.
    load(&inv(&format!(
        "claims = [\"{name}/c\"]\nunread = \"the moments\""
    )))
    .unwrap_or_else(|e| panic!("{e}"));
    let e = load(&inv(
        "out_of_reach = \"a proof device\"\nunread = \"the moments\"",
    ))
    .unwrap_err();
    assert_eq!(e.field, "statement[0].unread", "{e}");
    // Why no run would decide it is said beside claims that test nothing,
    // not in place of them, and not beside what lb could add.
    load(&inv(&format!(
        "claims = [\"{name}/c\"]\nunreachable = \"every point at the floor\""
    )))
    .unwrap_or_else(|e| panic!("{e}"));
    let e = load(&inv(
        "out_of_reach = \"a proof device\"\nunreachable = \"every point at the floor\"",
    ))
    .unwrap_err();
    assert_eq!(e.field, "statement[0].unreachable", "{e}");
    let e = load(&inv(&format!(
        "claims = [\"{name}/c\"]\nunreachable = \"at the floor\"\ncould_audit = \"a policy\""
    )))
    .unwrap_err();
    assert_eq!(e.field, "statement[0].unreachable", "{e}");
    // An exact check names rules `lb preference` knows and systems it can
    // visit state by state.
    let exact = |rules: &str, rates: &str| {
        inv(&format!(
            "claims = [\"{name}/c\"]\n[statement.exact]\nrules = [{rules}]\nrates = [{rates}]\n\
             delta = \"1/N\""
        ))
    };
    load(&exact("\"l-pod:2:lowest\"", "[0.5, 0.5, 0.5]")).unwrap_or_else(|e| panic!("{e}"));
    let e = load(&exact("\"l-jsk\"", "[0.5, 0.5, 0.5]")).unwrap_err();
    assert_eq!(e.field, "statement[0].exact", "{e}");
    assert!(e.message.contains("not a rule"), "{e}");
    let e = load(&exact("\"l-jsq\"", "[0.5, 0.5, 0.5, 0.5, 0.5, 0.5]")).unwrap_err();
    assert!(e.message.contains("2 to 5 servers"), "{e}");
    // The paper's statement is in no entry.
    let e = load(&inv("out_of_reach = \"a proof device\"")).unwrap_err();
    assert_eq!(e.field, "claim[0]", "{e}");
    assert!(e.message.contains("does not list"), "{e}");
    // A name in the free text that is close to a claim's but is none (a
    // claim renamed since the text was written) is refused; a name that is
    // one, and a compound word that is close to none, are not.
    let said = |setting: &str| {
        inv(&format!("claims = [\"{name}/c\"]"))
            .replace("setting = \"s\"", &format!("setting = \"{setting}\""))
    };
    load(&said(&format!(
        "read by {name}/c; state-space-collapse; theorem-1-main"
    )))
    .unwrap_or_else(|e| panic!("{e}"));
    let e = load(&said(&format!("read by {name}/c and theorem-1-mian"))).unwrap_err();
    assert_eq!(e.field, "statement[0].setting", "{e}");
    assert!(e.message.contains("did you mean \"theorem-1-main\""), "{e}");
    // A stand-in for the paper that no statement lists is refused; listed,
    // it loads.
    let stand_in = "\n[[claim]]\nid = \"s\"\nstatement = \"s\"\nsource = \"x\"\n\
                    origin = \"stand-in\"\npaper = \"P\"\nstands_for = \"P: q\"\n\
                    no_foil = \"n\"\nkind = \"ordering\"\nmetric = \"mean_response\"\n\
                    better = \"JSQ\"\nworse = \"L-JSQ-Push\"\n";
    std::fs::write(&manifest, format!("{GOOD}{claim}{stand_in}")).unwrap();
    let e = load(&inv(&format!("claims = [\"{name}/c\"]"))).unwrap_err();
    assert_eq!(e.field, "claim[1]", "{e}");
    assert!(e.message.contains("no statement of its inventory"), "{e}");
    load(&inv(&format!("claims = [\"{name}/c\", \"{name}/s\"]"))).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&d);
}

/// A claim cites its paper by key from references.bib beside the manifest:
/// a key the file does not hold is refused with the nearest, a paper's
/// statement that names no key is refused, and a cited key is written out
/// as the work's shortname with its year.
#[test]
fn sources_cite_the_references_by_key() {
    let d = std::env::temp_dir().join(format!("lb-references-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("references.bib"),
        "@article{weber-1978, author = {Weber, R. R.}, title = {On the optimal assignment}, \
         year = {1978}, shortname = {Weber}}\n",
    )
    .unwrap();
    let manifest = |source: &str, paper: &str| {
        format!(
            "{GOOD}\n[[claim]]\nid = \"c\"\nstatement = \"s\"\nsource = \"{source}\"\n\
             origin = \"paper\"\npaper = \"{paper}\"\nreading = \"r (\\\"q\\\")\"\n\
             no_foil = \"n\"\nkind = \"ordering\"\nmetric = \"mean_response\"\n\
             better = \"JSQ\"\nworse = \"L-JSQ-Push\"\n"
        )
    };
    let load = |text: &str| {
        let p = d.join("exp.toml");
        std::fs::write(&p, text).unwrap();
        lb_manifest::load(&p, Profile::Full)
    };
    let e = load(&manifest("@webber-1978, Thm. 1", "Weber")).unwrap_err();
    assert_eq!(e.field, "claim[0].source", "{e}");
    assert!(e.message.contains("did you mean @weber-1978?"), "{e}");
    let e = load(&manifest("Weber (1978), Thm. 1", "Weber")).unwrap_err();
    assert_eq!(e.field, "claim[0].source", "{e}");
    assert!(e.message.contains("names no work by key"), "{e}");
    let e = load(&manifest("@weber-1978, Thm. 1", "Webber")).unwrap_err();
    assert_eq!(e.field, "claim[0].paper", "{e}");
    assert!(e.message.contains("did you mean \"Weber\""), "{e}");
    let x = load(&manifest("@weber-1978, Thm. 1", "Weber")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(x.loaded.claims()[0].source, "Weber (1978), Thm. 1");
    let _ = std::fs::remove_dir_all(&d);
}

/// A stand-in of the held paper that serves only sentences reporting other
/// papers' results belongs to those papers.
#[test]
fn a_stand_in_for_cited_results_is_theirs() {
    let d = std::env::temp_dir().join(format!("lb-cited-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("inventory")).unwrap();
    let claim = |paper: &str| {
        format!(
            "\n[[claim]]\nid = \"s\"\nstatement = \"s\"\nsource = \"x\"\norigin = \"stand-in\"\n\
             paper = \"{paper}\"\nstands_for = \"P, §1: \\\"q\\\"\"\nno_foil = \"n\"\n\
             kind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"JSQ\"\n\
             worse = \"L-JSQ-Push\"\n"
        )
    };
    let manifest = d.join("exp.toml");
    std::fs::write(
        d.join("inventory/p.toml"),
        "[paper]\nauthors = \"P\"\ntitle = \"T\"\n\n[[statement]]\nid = \"cites-q\"\n\
         kind = \"headline\"\nwhere = \"§1\"\nquote = \"q\"\nsetting = \"s\"\ncited = \"Q\"\n\
         claims = [\"t/s\"]\n",
    )
    .unwrap();
    let load = |paper: &str| {
        std::fs::write(&manifest, format!("{GOOD}{}", claim(paper))).unwrap();
        lb_manifest::load_all(std::slice::from_ref(&manifest), Profile::Full)
    };
    let e = load("P").unwrap_err();
    assert_eq!(e.field, "claim[0].paper", "{e}");
    assert!(e.message.contains("paper = \"Q\""), "{e}");
    load("Q").unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&d);
}

/// A claim that credits the delay is held to its two policies with fresh
/// estimates, labelled "<label> (fresh)": the loader asks for them by name,
/// and the null reads them in the claim's places.
#[test]
fn a_delay_credit_is_held_to_fresh_estimates() {
    let claim = "\n[[claim]]\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\norigin = \"ours\"\n\
                 kind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"JSQ\"\n\
                 worse = \"L-JSQ-Push\"\ncredits = \"delay\"\n";
    let e = err(&format!("{GOOD}{claim}"));
    assert_eq!(e.field, "claim[0].credits", "{e}");
    assert!(e.message.contains("label = \"L-JSQ-Push (fresh)\""), "{e}");
    let fresh = "\n[[policy]]\nlabel = \"JSQ (fresh)\"\nspec = \"JSQ\"\n\n[[policy]]\n\
                 label = \"L-JSQ-Push (fresh)\"\nspec = \"L-JSQ-Push\"\nd = 2\np_hat = 1.0\n\
                 push_when = \"always\"\n";
    let text = GOOD.replacen("[run]", &format!("{fresh}\n[run]"), 1);
    let e = accepted(&format!("{text}{claim}"));
    let nulls = e.loaded.claims()[0].nulls();
    assert_eq!(nulls.len(), 1);
    match &nulls[0].check {
        lb_manifest::claim::Check::Ordering(o) => {
            assert_eq!(
                (o.better.as_str(), o.worse.as_str()),
                ("JSQ (fresh)", "L-JSQ-Push (fresh)")
            )
        }
        c => panic!("{c:?}"),
    }
}

/// A limit credited to a refresh bounded away from 0 is held to its policies
/// with p̂ ∝ ε, labelled "<label> (p̂ ∝ ε)": the loader asks for them by
/// name, and for a rate to decide; a scaled p̂ follows a numeric sweep axis
/// and stays a probability at each of its values.
#[test]
fn a_refresh_credit_is_held_to_a_vanishing_p_hat() {
    let claim = "\n[[claim]]\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\norigin = \"ours\"\n\
                 kind = \"limit\"\nmetric = \"mean_response\"\npolicies = [\"L-JSQ-Push\"]\n\
                 along = \"load\"\ntoward = \"zero\"\nexpected = 1.0\ntolerance = 0.1\n\
                 credits = \"refresh\"\n";
    let e = err(&format!("{GOOD}{claim}"));
    assert_eq!(e.field, "claim[0].credits", "{e}");
    assert!(e.message.contains("min_rate"), "{e}");
    let claim = format!("{claim}min_rate = 0.9\nrate_from = \"ours: a test\"\n");
    let e = err(&format!("{GOOD}{claim}"));
    assert_eq!(e.field, "claim[0].credits", "{e}");
    assert!(e.message.contains("label = \"L-JSQ-Push (p̂ ∝ ε)\""), "{e}");
    let null = |p_hat: &str| {
        format!(
            "\n[[policy]]\nlabel = \"L-JSQ-Push (p̂ ∝ ε)\"\nspec = \"L-JSQ-Push\"\n\
             p_hat = {p_hat}\n"
        )
    };
    let with = |p_hat: &str| GOOD.replacen("[run]", &format!("{}\n[run]", null(p_hat)), 1);
    let e = err(&format!(
        "{}{claim}",
        with("{ scale = 2, of = \"load\", power = 1 }")
    ));
    assert_eq!(e.field, "policy[2].p_hat", "{e}");
    assert!(e.message.contains("at load = 0.9 this one is 1.8"), "{e}");
    let e = err(&format!(
        "{}{claim}",
        with("{ scale = 1, of = \"servers\", power = 1 }")
    ));
    assert_eq!(e.field, "policy[2].p_hat.of", "{e}");
    let text = with("{ scale = 1, of = \"load\", power = 1 }");
    let loaded = load_str(
        Path::new("exp/ok.toml"),
        &format!("{text}{claim}"),
        Profile::Full,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let nulls = loaded.loaded.claims()[0].nulls();
    assert_eq!(nulls.len(), 1);
    assert_eq!(nulls[0].id, "c/null-p-hat-to-0");
    assert_eq!(nulls[0].check.policies(), ["L-JSQ-Push (p̂ ∝ ε)"]);
    // p̂ follows the load: 0.5 and 0.9 at the two points.
    let p_hats: Vec<f64> = loaded
        .plan
        .points
        .iter()
        .filter(|p| p.label == "L-JSQ-Push (p̂ ∝ ε)")
        .filter_map(|p| match &p.point().config {
            lb_model::PointConfig::Slotted(c) => c.policy.p_hat(),
            _ => None,
        })
        .collect();
    assert_eq!(p_hats, [0.5, 0.9]);
}

/// A null of the claim's own counterparts over several policies is one null
/// per policy: each must fail on its own for the claim to discriminate.
#[test]
fn counterpart_nulls_are_one_per_policy() {
    let claim = "\n[[claim]]\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\norigin = \"ours\"\n\
                 kind = \"limit\"\nmetric = \"mean_response\"\n\
                 policies = [\"JSQ\", \"L-JSQ-Push\"]\nalong = \"load\"\ntoward = \"zero\"\n\
                 expected = 1.0\ntolerance = 0.1\nmin_rate = 0.9\nrate_from = \"ours: a test\"\n\
                 credits = \"refresh\"\n";
    let nulls = "\n[[policy]]\nlabel = \"JSQ (p̂ ∝ ε)\"\nspec = \"JSQ\"\n\n[[policy]]\n\
                 label = \"L-JSQ-Push (p̂ ∝ ε)\"\nspec = \"L-JSQ-Push\"\n\
                 p_hat = { scale = 1, of = \"load\", power = 1 }\n";
    let text = GOOD.replacen("[run]", &format!("{nulls}\n[run]"), 1);
    let loaded = load_str(
        Path::new("exp/ok.toml"),
        &format!("{text}{claim}"),
        Profile::Full,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let nulls = loaded.loaded.claims()[0].nulls();
    let got: Vec<(&str, Vec<String>)> = nulls
        .iter()
        .map(|n| (n.id.as_str(), n.check.policies().to_vec()))
        .collect();
    assert_eq!(
        got,
        [
            ("c/null-p-hat-to-0-1", vec!["JSQ (p̂ ∝ ε)".to_string()]),
            (
                "c/null-p-hat-to-0-2",
                vec!["L-JSQ-Push (p̂ ∝ ε)".to_string()]
            ),
        ]
    );
    assert!(
        nulls[1]
            .statement
            .contains("(L-JSQ-Push (p̂ ∝ ε) in the subject's place")
    );
}

/// A slowest rate of approach says where it comes from: the paper (cited
/// by key) or us (with why); a foil at the claim's rate reads the claim's
/// source, one at another rate names its own.
#[test]
fn a_slowest_rate_names_its_source() {
    let claim = "\n[[claim]]\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\norigin = \"ours\"\n\
                 kind = \"limit\"\nmetric = \"mean_response\"\npolicies = [\"JSQ\"]\n\
                 along = \"load\"\ntoward = \"zero\"\nexpected = 1.0\ntolerance = 0.1\n\
                 min_rate = 0.5\n";
    let e = err(&format!("{GOOD}{claim}"));
    assert_eq!(e.field, "claim[0].rate_from", "{e}");
    assert!(e.message.contains("ours: <why this rate>"), "{e}");
    for (written, says) in [
        ("\"because\"", "either"),
        ("\"ours:  \"", "why this rate"),
        ("\"@no-such-key, §1\"", "references.bib"),
    ] {
        let e = err(&format!("{GOOD}{claim}rate_from = {written}\n"));
        assert_eq!(e.field, "claim[0].rate_from", "{e}");
        assert!(e.message.contains(says), "{written}: {e}");
    }
    let sourced = format!("{claim}rate_from = \"ours: a test\"\n");
    let foil = |rate: &str| {
        format!(
            "{sourced}\n[claim.foil]\nsays = \"f\"\nkind = \"limit\"\n\
             metric = \"mean_response\"\npolicies = [\"L-JSQ-Push\"]\nalong = \"load\"\n\
             toward = \"zero\"\nexpected = 1.0\ntolerance = 0.1\nmin_rate = {rate}\n"
        )
    };
    let e = err(&format!("{GOOD}{}", foil("0.9")));
    assert_eq!(e.field, "claim[0].foil.rate_from", "{e}");
    let loaded = load_str(
        Path::new("exp/ok.toml"),
        &format!("{GOOD}{}", foil("0.5")),
        Profile::Full,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let c = &loaded.loaded.claims()[0];
    let source = |k: &lb_manifest::claim::Check| match k {
        lb_manifest::claim::Check::Limit(l) => l.rate_from.clone(),
        k => panic!("{k:?}"),
    };
    let ours = Some(lb_manifest::claim::RateSource::Ours("a test".into()));
    assert_eq!(source(&c.check), ours);
    assert_eq!(source(&c.foil.as_ref().unwrap().check), ours);
    let e = err(&format!(
        "{GOOD}{claim}rate_from = \"ours: t\"\nrate_decides = false\n\
                          [claim.foil]\nsays = \"f\"\nkind = \"limit\"\n\
                          metric = \"mean_response\"\npolicies = [\"L-JSQ-Push\"]\n\
                          along = \"load\"\ntoward = \"zero\"\nexpected = 1.0\n\
                          tolerance = 0.1\nrate_from = \"ours: t\"\n"
    ));
    assert_eq!(e.field, "claim[0].foil.rate_from", "{e}");
}

/// An ordering claim compares two policies at one dispatch granularity: a
/// policy that splits a slot's batch against one that cannot is refused in
/// the claim, and allowed in a check it carries.
#[test]
fn an_ordering_compares_policies_at_one_granularity() {
    let per_job = GOOD.replacen(
        "[run]",
        "[[policy]]\nlabel = \"JSQ (per job)\"\nspec = \"JSQ\"\ngranularity = \"job\"\n\n[run]",
        1,
    );
    let claim = |worse: &str| {
        format!(
            "\n[[claim]]\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\norigin = \"ours\"\n\
             kind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"L-JSQ-Push\"\n\
             worse = \"{worse}\"\n"
        )
    };
    let e = err(&format!("{per_job}{}", claim("JSQ (per job)")));
    assert_eq!(e.field, "claim[0].worse", "{e}");
    assert!(e.message.contains("one granularity"), "{e}");
    let carried = format!(
        "{per_job}{}\n[[claim.why_check]]\nsays = \"w\"\nkind = \"ordering\"\n\
         metric = \"mean_response\"\nbetter = \"JSQ (per job)\"\nworse = \"L-JSQ-Push\"\n",
        claim("JSQ")
    );
    load_str(Path::new("exp/ok.toml"), &carried, Profile::Full).unwrap_or_else(|e| panic!("{e}"));
}
