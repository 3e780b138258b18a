//! Robustness maps: the expansion of `[[robustness]]` combinations into the
//! points their claims read.

use lb_manifest::plan::Target;
use lb_manifest::robustness::{fingerprint, restrict};
use lb_manifest::{Profile, load_str};
use std::collections::BTreeSet;
use std::path::Path;

const MANIFEST: &str = r#"[experiment]
name = "t"
title = "test"
model = "slotted"

[system]
dispatchers = 2
servers = { classes = [{ count = 2, rate = 0.4 }, { count = 2, rate = 0.8 }] }
service = "bernoulli"
arrivals = "poisson"

[sweep]
load = [0.5, 0.9]

[[policy]]
spec = "JSQ"

[[policy]]
label = "JSQ (lowest-index ties)"
spec = "JSQ"
tie_break = "lowest"

[[policy]]
spec = "L-JSQ-Push"
budget = { same_as = "Power-of-2" }

[[policy]]
spec = "Power-of-2"

[[policy]]
spec = "Random"

[run]
slots = 2000
warmup = 200
replications = 2
seed = 1

[[claim]]

origin = "check"
id = "push-beats-jsq"
statement = "s"
source = "§1, p. 1"
kind = "ordering"
metric = "mean_response"
better = "L-JSQ-Push"
worse = "JSQ"
where = { load = 0.9 }

[[robustness]]
name = "m"
claims = ["push-beats-jsq"]
count_own = [true, false]
servers = [
  { classes = [{ count = 2, rate = 0.4 }, { count = 2, rate = 0.8 }] },
  { count = 4, rate = 0.6 },
]
tie_break = ["random", "lowest"]
policies = ["JSQ"]
"#;

/// [`MANIFEST`] sweeping `count_own`, its claim pinned to `false`.
fn swept_count_own() -> String {
    MANIFEST
        .replace(
            "load = [0.5, 0.9]",
            "load = [0.5, 0.9]\ncount_own = [true, false]",
        )
        .replace(
            "where = { load = 0.9 }",
            "where = { load = 0.9, count_own = false }",
        )
}

#[test]
fn the_manifests_own_combination_plans_the_experiments_own_keys() {
    let e = load_str(Path::new("t.toml"), MANIFEST, Profile::Full).unwrap();
    let (plan, vs) = (&e.plan, &e.variants);
    assert_eq!(vs.len(), 8);
    // Combinations in order, the last setting fastest.
    assert_eq!(
        vs[1].describe(),
        "count_own=true servers=2×0.4 + 2×0.8 tie_break=lowest"
    );
    let base: Vec<_> = vs.iter().filter(|v| v.base).collect();
    assert_eq!(base.len(), 1);
    assert_eq!(
        base[0].describe(),
        "count_own=true servers=2×0.4 + 2×0.8 tie_break=random"
    );
    // Its points are the experiment's, key for key.
    let own: BTreeSet<_> = fingerprint(plan).into_iter().map(|f| (f.1, f.2)).collect();
    for f in fingerprint(&base[0].plan) {
        assert!(own.contains(&(f.1, f.2)), "{f:?}");
    }
    let claims: Vec<_> = e.loaded.claims().iter().collect();
    assert_eq!(
        fingerprint(&restrict(plan, &claims)),
        fingerprint(&base[0].plan)
    );
    // JSQ with lowest-index ties at the manifest's other settings is the
    // point of the policy labelled "JSQ (lowest-index ties)": no work twice.
    let lowest = plan
        .points
        .iter()
        .find(|p| p.label == "JSQ (lowest-index ties)" && p.axes == ["0.9"])
        .unwrap();
    let Target::Fixed(lowest) = &lowest.target else {
        panic!()
    };
    let jsq = vs[1].plan.points.iter().find(|p| p.label == "JSQ").unwrap();
    let Target::Fixed(jsq) = &jsq.target else {
        panic!()
    };
    assert_eq!(jsq.key(), lowest.key());
    // Other combinations plan other keys, but for a policy that does not
    // read the setting they vary: JSQ under `batch` sends a dispatcher's
    // batch to one server whatever count_own says, so its point at
    // count_own = false is its twin's at true (one law, one record).
    let (mut shared, mut new) = (0, 0);
    for v in vs
        .iter()
        .filter(|v| !v.base && v.describe().contains("count_own=false"))
    {
        let twin = v.describe().replace("count_own=false", "count_own=true");
        let twin = vs.iter().find(|t| t.describe() == twin).unwrap();
        let twin: BTreeSet<_> = fingerprint(&twin.plan)
            .into_iter()
            .map(|f| (f.1, f.2))
            .collect();
        for f in fingerprint(&v.plan) {
            let jsq = f.0.starts_with("JSQ");
            assert_eq!(twin.contains(&(f.1, f.2)), jsq, "{} {f:?}", v.describe());
            assert!(jsq || !own.contains(&(f.1, f.2)), "{} {f:?}", v.describe());
            if jsq {
                shared += 1;
            } else {
                new += 1;
            }
        }
    }
    assert!(shared > 0 && new > 0, "{shared} shared, {new} new");
}

#[test]
fn a_combination_plans_only_what_its_claims_read() {
    let e = load_str(Path::new("t.toml"), MANIFEST, Profile::Full).unwrap();
    for v in e.variants {
        // The two policies of the claim, at load 0.9 only: not Random, not
        // Power-of-2, whose messages the calibration measures on its own.
        let labels: Vec<&str> = v.plan.points.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(labels, ["JSQ", "L-JSQ-Push"], "{}", v.describe());
        assert!(v.plan.points.iter().all(|p| p.axes == ["0.9"]));
        // L-JSQ-Push keeps its budget: one calibration, on this combination's system.
        assert_eq!(v.plan.calibrations.len(), 1);
        assert!(matches!(
            v.plan.points[1].target,
            Target::Calibrated { calibration: 0, .. }
        ));
    }
}

#[test]
fn a_value_that_makes_the_manifest_invalid_is_located_at_the_value() {
    let text = MANIFEST.replace("{ count = 4, rate = 0.6 }", "{ count = 4, rate = 1.6 }");
    let e = load_str(Path::new("t.toml"), &text, Profile::Full).unwrap_err();
    assert_eq!(e.field, "robustness[0].servers[1]", "{e}");
    assert!(e.message.contains("rate in [0, 1]"), "{e}");
    let line = text[..text.find("{ count = 4, rate = 1.6 }").unwrap()]
        .matches('\n')
        .count()
        + 1;
    assert_eq!(e.line, line, "{e}");
}

/// A map's combinations are checked only once the rest of the manifest is
/// valid: a manifest without a replication rule gets that located error,
/// not a failure inside a combination's expansion.
#[test]
fn the_maps_are_checked_after_the_rest_of_the_manifest() {
    let text = MANIFEST.replace("replications = 2\n", "");
    assert_ne!(text, MANIFEST);
    let e = load_str(Path::new("t.toml"), &text, Profile::Full).unwrap_err();
    assert_eq!(e.field, "run.replications", "{e}");
    assert!(e.message.contains("give exactly one of"), "{e}");
}

/// L-JBA breaks no ties (a server at or below the mean estimate, drawn ∝ μ):
/// a map that varies `tie_break` for every policy that breaks ties plans
/// L-JBA's own key at both values, not the same process twice on other
/// seeds. A `tie_break` on L-JBA, in a policy or in a
/// map's `policies`, is an error that says why.
#[test]
fn tie_break_leaves_l_jba_alone() {
    let text = MANIFEST
        .replace(
            "[[policy]]\nspec = \"Random\"",
            "[[policy]]\nspec = \"L-JBA-Push\"\np_hat = 0.5\n\n[[policy]]\nspec = \"Random\"",
        )
        .replace("claims = [\"push-beats-jsq\"]", "claims = [\"jba\"]")
        .replace("policies = [\"JSQ\"]\n", "")
        .replace(
            "[[robustness]]",
            "[[claim]]\norigin = \"check\"\nid = \"jba\"\nstatement = \"s\"\nsource = \"src\"\n\
             kind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"L-JBA-Push\"\n\
             worse = \"L-JSQ-Push\"\nwhere = { load = 0.9 }\n\n[[robustness]]",
        )
        .replace(
            "servers = [\n  { classes = [{ count = 2, rate = 0.4 }, { count = 2, rate = 0.8 }] },\n  { count = 4, rate = 0.6 },\n]\n",
            "",
        )
        .replace("count_own = [true, false]\n", "");
    let e = load_str(Path::new("t.toml"), &text, Profile::Full).unwrap();
    let vs = &e.variants;
    assert_eq!(vs.len(), 2, "tie_break random and lowest");
    let key = |v: usize, label: &str| {
        let p = vs[v]
            .plan
            .points
            .iter()
            .find(|p| p.label == label)
            .unwrap_or_else(|| panic!("{label} in {}", vs[v].describe()));
        match &p.target {
            Target::Fixed(c) => format!("{:?}", c.key()),
            Target::Calibrated { .. } => format!("calibrated {label}"),
        }
    };
    assert_eq!(key(0, "L-JBA-Push"), key(1, "L-JBA-Push"));
    let own = e
        .plan
        .points
        .iter()
        .find(|p| p.label == "L-JBA-Push" && p.axes == ["0.9"])
        .unwrap();
    let Target::Fixed(own) = &own.target else {
        panic!()
    };
    assert_eq!(key(1, "L-JBA-Push"), format!("{:?}", own.key()));
    // A tie_break on L-JBA: refused, located, with the reason.
    let refused = |from: &str, to: &str| {
        load_str(Path::new("t.toml"), &text.replace(from, to), Profile::Full)
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    let err = refused(
        "spec = \"L-JBA-Push\"\n",
        "spec = \"L-JBA-Push\"\ntie_break = \"lowest\"\n",
    );
    assert!(
        err.contains("tie_break") && err.contains("L-JBA") && err.contains("remove it"),
        "{err}"
    );
    let err = refused(
        "tie_break = [\"random\", \"lowest\"]\n",
        "tie_break = [\"random\", \"lowest\"]\npolicies = [\"L-JBA-Push\"]\n",
    );
    assert!(err.contains("breaks no ties"), "{err}");
}

/// `manifest` with its map's settings (MANIFEST's) replaced by `settings`.
fn with_map_settings(manifest: &str, settings: &str) -> String {
    let own = "count_own = [true, false]\nservers = [\n  { classes = [{ count = 2, rate = 0.4 }, { count = 2, rate = 0.8 }] },\n  { count = 4, rate = 0.6 },\n]\ntie_break = [\"random\", \"lowest\"]\npolicies = [\"JSQ\"]\n";
    assert!(manifest.contains(own));
    manifest.replace(own, settings)
}

/// A map of two values: the manifest's own first (its own keys), then the
/// other, described with `other`.
fn own_then_other(text: &str, other: &str) {
    let e = load_str(Path::new("t.toml"), text, Profile::Full).unwrap();
    let vs = &e.variants;
    assert_eq!(vs.len(), 2);
    assert!(vs[0].base, "{}", vs[0].describe());
    assert!(!vs[1].base, "{}", vs[1].describe());
    assert!(vs[1].describe().contains(other), "{}", vs[1].describe());
}

/// A map may vary the unit of a message budget for the policies that set
/// one: the manifest's own budget plans its own keys, the other writes the
/// budget into those policies only; a map whose policies set none is an
/// error located at its `budget`.
#[test]
fn a_budget_map_varies_the_budget_of_the_policies_that_set_one() {
    let text = with_map_settings(
        MANIFEST,
        "budget = [{ same_as = \"Power-of-2\" }, { messages_per_arrival = 0.5 }]\n",
    );
    own_then_other(&text, "budget=0.5 messages per arrival");
    let err = load_str(
        Path::new("t.toml"),
        &text.replace(
            "budget = [{ same_as",
            "policies = [\"JSQ\"]\nbudget = [{ same_as",
        ),
        Profile::Full,
    )
    .map(|_| ())
    .unwrap_err();
    assert_eq!(err.field, "robustness[0].budget", "{err}");
    assert!(err.message.contains("sets a message budget"), "{err}");
}

/// A map may vary the p̂ of the LED policies that fix one (a value the held
/// text lost): the manifest's own p̂ plans its own keys, the other writes it
/// into those policies; a map whose policies fix none, or a value outside
/// (0, 1], is an error located at its key.
#[test]
fn a_p_hat_map_varies_the_p_hat_of_the_policies_that_fix_one() {
    let text = with_map_settings(
        &MANIFEST.replace("budget = { same_as = \"Power-of-2\" }", "p_hat = 0.01"),
        "p_hat = [0.01, 0.1]\n",
    );
    own_then_other(&text, "p_hat=0.1");
    let located = |from: &str, to: &str| {
        load_str(Path::new("t.toml"), &text.replace(from, to), Profile::Full)
            .map(|_| ())
            .unwrap_err()
    };
    let none = located(
        "p_hat = [0.01, 0.1]",
        "policies = [\"JSQ\"]\np_hat = [0.01, 0.1]",
    );
    assert_eq!(none.field, "robustness[0].p_hat", "{none}");
    assert!(none.message.contains("fixes p̂"), "{none}");
    let above_one = located("p_hat = [0.01, 0.1]", "p_hat = [0.01, 1.5]");
    assert_eq!(above_one.field, "robustness[0].p_hat[1]", "{above_one}");
}

/// A map may vary a setting the manifest sweeps where each of its claims
/// pins it to one value: each combination re-reads the claims at another
/// value, planning only points the experiment plans already; where a claim
/// does not pin it, the map is refused.
#[test]
fn a_map_over_a_swept_setting_re_reads_its_claims() {
    let swept = swept_count_own();
    let map = |settings: &str| {
        let head = &swept[..swept.find("[[robustness]]").unwrap()];
        format!("{head}[[robustness]]\nname = \"m\"\nclaims = [\"push-beats-jsq\"]\n{settings}")
    };
    let e = load_str(
        Path::new("t.toml"),
        &map("count_own = [false, true]\n"),
        Profile::Full,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(e.variants.len(), 2);
    assert!(e.variants[0].base);
    assert!(!e.variants[1].base);
    assert_eq!(
        e.variants[1].pins,
        [("count_own".to_string(), "true".to_string())]
    );
    // The other reading's points are the experiment's own.
    let own: BTreeSet<_> = fingerprint(&e.plan).into_iter().collect();
    let other = fingerprint(&e.variants[1].plan);
    assert_eq!(other.len(), 2);
    assert!(other.iter().all(|p| own.contains(p)), "{other:?}");
    assert!(
        e.variants[1]
            .plan
            .points
            .iter()
            .all(|p| p.axes == ["0.9", "true"])
    );
    // A claim that reads both values does not pin it: the sweep already
    // holds both, and a map would say nothing new.
    let text = map("count_own = [false, true]\n").replace(
        "where = { load = 0.9, count_own = false }",
        "where = { load = 0.9 }",
    );
    let e = load_str(Path::new("t.toml"), &text, Profile::Full).unwrap_err();
    assert_eq!(e.field, "robustness[0].count_own", "{e}");
    assert!(e.message.contains("pins it to one value"), "{e}");
}

/// Where a map varies `count_own`, a claim that reads an LED policy and is
/// named by no such map is refused, naming it; one that reads none is not
/// asked to be.
#[test]
fn a_claim_reading_an_led_policy_is_mapped_over_count_own_where_others_are() {
    let claim = |id: &str, better: &str| {
        format!(
            "\n[[claim]]\norigin = \"check\"\nid = \"{id}\"\nstatement = \"s\"\nsource = \
             \"src\"\nkind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"{better}\"\n\
             worse = \"Random\"\nwhere = {{ load = 0.9 }}\n"
        )
    };
    let with = |extra: String| {
        let (head, maps) = MANIFEST.split_once("\n[[robustness]]").unwrap();
        format!("{head}{extra}\n[[robustness]]{maps}")
    };
    let unmapped = with(claim("led-beats-random", "L-JSQ-Push"));
    let e = load_str(Path::new("exp/bad.toml"), &unmapped, Profile::Full)
        .map(|_| ())
        .expect_err("an LED claim outside every count_own map must be refused");
    assert_eq!(e.field, "claim[1].id", "{e}");
    assert!(e.message.contains("led-beats-random"), "{e}");
    // A claim that reads no LED policy is left alone.
    let plain = with(claim("jsq-beats-random", "JSQ"));
    load_str(Path::new("exp/ok.toml"), &plain, Profile::Full).unwrap_or_else(|e| panic!("{e}"));
}

/// A map may name values the text rules out (`excluded`), with the sentence
/// that does: each names one of the map's settings and one of its values,
/// never the manifest's own, and quotes a sentence stating the manifest's
/// own value; the combinations holding one carry that reason.
#[test]
fn a_value_the_text_rules_out_is_named_checked_and_carried() {
    let with = |x: &str| format!("{MANIFEST}\n[[robustness.excluded]]\n{x}\n");
    let ok = with(
        "setting = \"tie_break\"\nvalue = \"lowest\"\nsays = \"§1: \\\"ties are broken at random\\\"\"",
    );
    let e = load_str(Path::new("t.toml"), &ok, Profile::Full).unwrap();
    let maps = e.loaded.manifest.robustness_maps();
    let ruled: Vec<bool> = e
        .variants
        .iter()
        .map(|v| maps[v.map].excluded_by(&v.values).is_some())
        .collect();
    assert_eq!(ruled.iter().filter(|r| **r).count(), 4, "{ruled:?}");
    for v in &e.variants {
        let why = maps[v.map].excluded_by(&v.values);
        assert_eq!(why.is_some(), v.describe().contains("tie_break=lowest"));
        assert!(why.is_none_or(|w| w.starts_with("tie_break = lowest: §1")));
    }
    let e = load_str(
        Path::new("t.toml"),
        &with("setting = \"tie_break\"\nvalue = \"shared\"\nsays = \"s\""),
        Profile::Full,
    )
    .unwrap_err();
    assert_eq!(e.field, "robustness[0].excluded[0].value", "{e}");
    assert!(e.message.contains("random, lowest"), "{e}");
    let e = load_str(
        Path::new("t.toml"),
        &with("setting = \"budget\"\nvalue = \"x\"\nsays = \"s\""),
        Profile::Full,
    )
    .unwrap_err();
    assert_eq!(e.field, "robustness[0].excluded[0].setting", "{e}");
    let e = load_str(
        Path::new("t.toml"),
        &with("setting = \"tie_break\"\nvalue = \"lowest\"\nsays = \" \""),
        Profile::Full,
    )
    .unwrap_err();
    assert_eq!(e.field, "robustness[0].excluded[0].says", "{e}");
    // Ruling out lowest-index ties by the sentence `says`: an error at `says`.
    let refused = |says: &str| {
        let e = load_str(
            Path::new("t.toml"),
            &with(&format!(
                "setting = \"tie_break\"\nvalue = \"lowest\"\nsays = \"{says}\""
            )),
            Profile::Full,
        )
        .unwrap_err();
        assert_eq!(e.field, "robustness[0].excluded[0].says", "{e}");
        e
    };
    // A sentence rules a value out only where it states the value the claims
    // are read at: one about what the other value would do leaves it open.
    let e = refused("§1: \\\"all the dispatchers route to one queue\\\"");
    assert!(e.message.contains("does not state"), "{e}");
    // The sentence is one of the section the claims read: another
    // section's speaks of another setting.
    let e = refused("§3, p. 8: \\\"ties are broken at random\\\"");
    assert!(
        e.message.contains("§3") && e.message.contains("push-beats-jsq"),
        "{e}"
    );
    // The manifest's own reading is one the text allows.
    let e = load_str(
        Path::new("t.toml"),
        &with("setting = \"tie_break\"\nvalue = \"random\"\nsays = \"s\""),
        Profile::Full,
    )
    .unwrap_err();
    assert_eq!(e.field, "robustness[0].excluded[0].value", "{e}");
    assert!(e.message.contains("manifest's own setting"), "{e}");
    // A setting the manifest sweeps is its claims' where they pin it:
    // `count_own = false` here, so `true` may be ruled out and `false` may not.
    let swept = |value: &str| {
        swept_count_own()
            + &format!(
                "\n[[robustness.excluded]]\nsetting = \"count_own\"\nvalue = \"{value}\"\n\
                 says = \"§1: \\\"count_own = false\\\"\"\n"
            )
    };
    load_str(Path::new("t.toml"), &swept("true"), Profile::Full).unwrap_or_else(|e| panic!("{e}"));
    let e = load_str(Path::new("t.toml"), &swept("false"), Profile::Full).unwrap_err();
    assert!(e.message.contains("manifest's own setting"), "{e}");
}
