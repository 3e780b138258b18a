//! Bad manifests: each gives an error naming the file, line, column and field,
//! and saying what is allowed ("Bad input and faults"): the system, policies,
//! sweeps, runs, precision rules and figures. Claims' errors are in claim_errors.rs.

mod common;

use common::*;

#[test]
fn the_good_manifest_parses() {
    let p = load_str(Path::new("exp/good.toml"), GOOD, Profile::Full)
        .unwrap()
        .plan;
    assert_eq!(p.points.len(), 4);
}

#[test]
fn malformed_toml() {
    let t = replace("seed = 1", "seed = = 1");
    let e = err(&t);
    assert_eq!(e.line, pos(&t, "seed = = 1").0);
    assert!(e.message.starts_with("malformed TOML"), "{e}");
}

#[test]
fn unknown_key_suggests_the_close_one() {
    let t = replace("arrivals = \"poisson\"", "arivals = \"poisson\"");
    let e = err(&t);
    check(
        &e,
        &t,
        "arivals",
        "system.arivals",
        "did you mean `arrivals`?",
    );
    assert!(e.message.contains("allowed keys"), "{e}");
}

#[test]
fn unknown_table() {
    let t = format!("{GOOD}\n[runn]\nslots = 3\n");
    let e = err(&t);
    assert!(e.message.contains("unknown key `runn`"), "{e}");
    assert_eq!(e.line, pos(&t, "[runn]").0);
}

#[test]
fn wrong_type() {
    let t = replace("slots = 2000", "slots = \"many\"");
    let e = err(&t);
    check(&e, &t, "\"many\"", "run.slots", "wrong type");
}

#[test]
fn probability_out_of_range() {
    let t = replace("p_hat = 0.5", "p_hat = 1.5");
    let e = err(&t);
    check(&e, &t, "1.5", "policy[1].p_hat", "must lie in [0, 1]");
}

#[test]
fn negative_rate() {
    let t = replace("rates = [0.5, 0.8]", "rates = [0.5, -0.8]");
    let e = err(&t);
    check(&e, &t, "-0.8", "system.servers.rates[1]", "≥ 0");
}

#[test]
fn load_at_or_above_one_needs_allow_unstable() {
    let t = replace("load = [0.5, 0.9]", "load = [0.5, 1.0]");
    let e = err(&t);
    check(&e, &t, "1.0]", "sweep.load[1]", "allow_unstable = true");
    let ok = t.replace(
        "arrivals = \"poisson\"",
        "arrivals = \"poisson\"\nallow_unstable = true",
    );
    load_str(Path::new("exp/ok.toml"), &ok, Profile::Full).unwrap();
}

#[test]
fn d_larger_than_n() {
    let t = replace("p_hat = 0.5", "p_hat = 0.5\nd = 3");
    let e = err(&t);
    check(&e, &t, "3\n", "policy[1].d", "exceeds N = 2");
}

#[test]
fn d_larger_than_a_swept_n() {
    let t = GOOD
        .replace(
            "servers = { rates = [0.5, 0.8] }",
            "servers = { rate = 0.5 }",
        )
        .replace("load = [0.5, 0.9]", "load = [0.5]\nservers_count = [4, 2]")
        .replace("spec = \"JSQ\"", "spec = \"Power-of-3\"");
    let e = err(&t);
    check(
        &e,
        &t,
        "\"Power-of-3\"",
        "policy[0].spec",
        "d = 3 exceeds N = 2",
    );
}

#[test]
fn empty_sweep() {
    let t = replace("load = [0.5, 0.9]", "load = []");
    let e = err(&t);
    check(&e, &t, "[]", "sweep.load", "empty sweep");
}

#[test]
fn unknown_policy_lists_the_valid_names() {
    let t = replace("spec = \"JSQ\"", "spec = \"JSQQ\"");
    let e = err(&t);
    check(
        &e,
        &t,
        "\"JSQQ\"",
        "policy[0].spec",
        "unknown policy \"JSQQ\"",
    );
    assert!(e.message.contains("did you mean \"JSQ\"?"), "{e}");
    assert!(e.message.contains("L-JBA-Pull"), "{e}");
}

#[test]
fn missing_key() {
    let t = replace("seed = 1\n", "");
    let e = err(&t);
    assert_eq!(e.field, "run.seed", "{e}");
    assert!(e.message.contains("required key `seed` is missing"), "{e}");
    assert!(e.line > 0);
}

#[test]
fn a_bernoulli_arrival_mean_above_one() {
    let t = replace("arrivals = \"poisson\"", "arrivals = \"bernoulli\"")
        .replace("dispatchers = 2", "dispatchers = 1");
    let e = err(&t);
    check(
        &e,
        &t,
        "0.9]",
        "sweep.load[1]",
        "bernoulli law needs a mean in [0, 1]",
    );
}

#[test]
fn unknown_law_family() {
    let t = replace("service = \"bernoulli\"", "service = \"bernouli\"");
    let e = err(&t);
    check(
        &e,
        &t,
        "\"bernouli\"",
        "system.service",
        "did you mean \"bernoulli\"?",
    );
}

#[test]
fn budget_naming_an_unknown_policy() {
    let t = replace("p_hat = 0.5", "budget = { same_as = \"Power-of-2\" }");
    let e = err(&t);
    assert_eq!(e.field, "policy[1].budget.same_as", "{e}");
    assert!(e.message.contains("labels: JSQ, L-JSQ-Push"), "{e}");
}

#[test]
fn led_without_p_hat() {
    let t = replace("p_hat = 0.5\n", "");
    let e = err(&t);
    assert_eq!(e.field, "policy[1].p_hat", "{e}");
    assert!(e.message.contains("a `budget`"), "{e}");
}

#[test]
fn a_claim_without_a_statement() {
    let t = format!(
        "{GOOD}\n[[claim]]\norigin = \"check\"\nid = \"c\"\nsource = \"x\"\nkind = \"ordering\"\n"
    );
    let e = err(&t);
    assert_eq!(e.field, "claim[0].statement", "{e}");
}

#[test]
fn an_ordering_claim_naming_an_unknown_policy() {
    let t = format!(
        "{GOOD}\n[[claim]]\norigin = \"check\"\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\nkind = \"ordering\"\n\
         metric = \"mean_response\"\nbetter = \"L-JSQ-Psuh\"\nworse = \"JSQ\"\n"
    );
    let e = err(&t);
    assert_eq!(e.field, "claim[0].better", "{e}");
    assert!(e.message.contains("did you mean \"L-JSQ-Push\""), "{e}");
}

#[test]
fn a_figure_on_an_axis_the_manifest_does_not_sweep() {
    let t = format!(
        "{GOOD}\n[[figure]]\nname = \"f\"\ntitle = \"t\"\nx = \"epsilon\"\ny = \"mean_response\"\ncaption = \"c\"\n"
    );
    let e = err(&t);
    assert_eq!(e.field, "figure[0].x", "{e}");
    assert!(e.message.contains("unknown sweep axis"), "{e}");
}

#[test]
fn a_value_claim_without_its_reference() {
    let t = format!(
        "{GOOD}\n[[claim]]\norigin = \"check\"\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\nkind = \"value\"\n\
         metric = \"mean_sum_q\"\npolicies = [\"JSQ\"]\n"
    );
    let e = err(&t);
    assert_eq!(e.field, "claim[0].expected", "{e}");
}

#[test]
fn every_shipped_manifest_parses_and_expands() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let mut n = 0;
    for f in std::fs::read_dir(&dir).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|e| e == "toml") {
            for profile in [Profile::Full, Profile::Quick] {
                let plan = load(&p, profile).unwrap_or_else(|e| panic!("{e}")).plan;
                assert!(!plan.points.is_empty());
            }
            n += 1;
        }
    }
    assert!(n >= 5, "only {n} manifests in {}", dir.display());
}

#[test]
fn the_annotated_example_of_the_readme_parses() {
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/README.md");
    let text = std::fs::read_to_string(readme).unwrap();
    let section = &text[text.find("## The complete annotated example").unwrap()..];
    let start = section.find("```toml\n").unwrap() + "```toml\n".len();
    let example = &section[start..start + section[start..].find("```").unwrap()];
    // Read as a manifest in experiments/ is: beside references.bib.
    let plan = load_str(&readme_dir().join("README.md"), example, Profile::Full)
        .unwrap_or_else(|e| panic!("{e}"))
        .plan;
    assert_eq!(plan.calibrations.len(), 2);
    assert!(plan.points.len() >= 12);
}

/// A precision target on a metric the model's summaries do not define (here
/// the many-server model's `p_to_busy` on a slotted run) is refused, located.
#[test]
fn a_precision_metric_of_the_other_model_is_refused() {
    let t = replace(
        "replications = 2",
        "precision = { metric = \"p_to_busy\", rel_half_width = 0.05, min = 2, max = 4 }",
    );
    check(
        &err(&t),
        &t,
        "\"p_to_busy\"",
        "run.precision.metric",
        "not a precision metric of the slotted model",
    );
}

/// More metrics held to a precision target (`also`) are read by Stein's
/// procedure only, and each must be a precision metric of the model.
#[test]
fn a_precision_rules_other_metrics_are_checked() {
    let t = replace(
        "replications = 2",
        "precision = { metric = \"mean_sum_q\", rel_half_width = 0.05, min = 2, max = 4, also = [\"mean_response\"] }",
    );
    check(
        &err(&t),
        &t,
        "[\"mean_response\"]",
        "run.precision.also",
        "Stein's procedure only",
    );
    let t = replace(
        "replications = 2",
        "precision = { metric = \"mean_sum_q\", rel_half_width = 0.05, min = 2, max = 4, procedure = \"stein\", also = [\"p_to_busy\"] }",
    );
    check(
        &err(&t),
        &t,
        "[\"p_to_busy\"]",
        "run.precision.also",
        "not a precision metric of the slotted model",
    );
    let t = replace(
        "replications = 2",
        "precision = { metric = \"mean_sum_q\", rel_half_width = 0.05, min = 2, max = 4, procedure = \"stein\", also = [\"mean_response\"] }",
    );
    load_str(Path::new("exp/ok.toml"), &t, Profile::Full).unwrap_or_else(|e| panic!("{e}"));
}

/// A figure that shows a claim's metric for its policy must draw the
/// claim's reference.
#[test]
fn a_figure_must_draw_the_reference_of_a_claim_it_shows() {
    let t = format!("{GOOD}{FIGURE}{POOLED_CLAIM}");
    let e = err(&t);
    assert_eq!(e.field, "figure[0]", "{e}");
    assert!(e.message.contains("shows claim `c`"), "{e}");
    assert!(e.message.contains("value = \"pooled\""), "{e}");
    let ok = format!(
        "{GOOD}{FIGURE}\n[[figure.reference]]\nvalue = \"pooled\"\nlabel = \"pooled queue\"\n{POOLED_CLAIM}"
    );
    let l =
        load_str(Path::new("exp/ok.toml"), &ok, Profile::Full).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(l.loaded.figures()[0].references.len(), 1);
    // A figure of other policies does not show the claim.
    let other = format!("{GOOD}{FIGURE}policies = [\"L-JSQ-Push\"]\n{POOLED_CLAIM}");
    load_str(Path::new("exp/ok.toml"), &other, Profile::Full).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_reference_naming_no_exact_result() {
    let t = format!("{GOOD}{FIGURE}\n[[figure.reference]]\nvalue = \"zeat\"\n");
    let e = err(&t);
    assert_eq!(e.field, "figure[0].reference[0].value", "{e}");
    assert!(e.message.contains("did you mean \"zeta\""), "{e}");
}

/// The checks of a claim's `why` are checked as claims are.
#[test]
fn a_why_check_naming_an_unknown_policy() {
    let t = format!(
        "{GOOD}\n[[claim]]\norigin = \"check\"\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\nkind = \"ordering\"\n\
         metric = \"mean_response\"\nbetter = \"L-JSQ-Push\"\nworse = \"JSQ\"\nwhy = \"because\"\n\
         \n[[claim.why_check]]\nsays = \"it is so\"\nkind = \"ordering\"\nmetric = \"mean_response\"\n\
         better = \"L-JSQ-Psuh\"\nworse = \"JSQ\"\n"
    );
    let e = err(&t);
    assert_eq!(e.field, "claim[0].why_check[0].better", "{e}");
    assert!(e.message.contains("did you mean \"L-JSQ-Push\""), "{e}");
}

/// Liu and Ying's least class member sets its own d, needs the buffer that
/// defines the class, and is planned only where the hypothesis leaves room
/// for a member (λ + k ln N/√N < 1): at α = 0.1 at N = 10⁴, not at α = 0.3.
#[test]
fn the_least_class_member_is_planned_only_inside_the_hypothesis() {
    let text = |system: &str, pod: &str| {
        format!(
            "[experiment]\nname = \"least\"\ntitle = \"t\"\nsource = \"s\"\nmodel = \"many\"\n\n\
             [system]\n{system}\n\n[sweep]\nservers = [10000]\nalpha = [0.1, 0.3]\n\n\
             [[policy]]\nspec = \"JSQ\"\n\n[[policy]]\nspec = \"Pod\"\n{pod}\n\n\
             [run]\nhorizon = 10.0\nwarmup = 1.0\nreplications = 2\nseed = 1\n"
        )
    };
    let ok = load_str(
        Path::new("exp/least.toml"),
        &text("buffer = 4", "least_in_class = true"),
        Profile::Full,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // JSQ at both α, the least member at α = 0.1 only.
    assert_eq!(ok.plan.points.len(), 3);
    let e = load_str(
        Path::new("exp/least.toml"),
        &text("buffer = 4", "least_in_class = true\nd = 3"),
        Profile::Full,
    )
    .unwrap_err();
    assert_eq!(e.field, "policy[1].least_in_class", "{e}");
    let e = load_str(
        Path::new("exp/least.toml"),
        &text("", "least_in_class = true"),
        Profile::Full,
    )
    .unwrap_err();
    assert_eq!(e.field, "policy[1].least_in_class", "{e}");
    assert!(e.message.contains("buffer"), "{e}");
}
