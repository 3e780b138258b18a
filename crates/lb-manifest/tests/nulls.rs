//! Nulls computed from what a claim credits: the herd credit, and a second
//! credit held beside the first.

mod common;
use common::*;
use lb_manifest::claim::Check;

const CLAIM: &str = "\n[[claim]]\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\norigin = \"ours\"\n\
                     kind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"L-JSQ-Push\"\n\
                     worse = \"JSQ\"\ncredits = \"herd\"\n";

const POLICIES: &str = "\n[[policy]]\nlabel = \"JSQ (independent ties)\"\nspec = \"JSQ\"\n\
                        tie_break = \"random\"\n\n[[policy]]\nlabel = \"JSQ (fresh)\"\n\
                        spec = \"JSQ\"\n\n[[policy]]\nlabel = \"L-JSQ-Push (fresh)\"\n\
                        spec = \"L-JSQ-Push\"\nd = 2\np_hat = 1.0\npush_when = \"always\"\n\n\
                        [[policy]]\nspec = \"Random\"\n\n[[policy]]\nspec = \"WR\"\n";

fn nulls(claim: &str) -> Vec<(String, String)> {
    let text = GOOD.replacen("[run]", &format!("{POLICIES}\n[run]"), 1);
    accepted(&format!("{text}{claim}")).loaded.claims()[0]
        .nulls()
        .iter()
        .map(|n| match &n.check {
            Check::Ordering(o) => (o.better.clone(), o.worse.clone()),
            c => panic!("{c:?}"),
        })
        .collect()
}

/// A claim crediting the herd of the policy it beats is held to the policies
/// that use no information in its better's place (the credit carries them),
/// and to no null of its own: the beaten policy with independent ties would
/// change only the beaten policy and take away only part of the herd. The
/// loader asks for each null by name.
#[test]
fn a_herd_credit_is_held_to_the_information_nulls() {
    let e = err(&format!("{GOOD}{CLAIM}"));
    assert_eq!(e.field, "claim[0].credits", "{e}");
    assert!(e.message.contains("spec = \"Random\""), "{e}");
    assert!(!e.message.contains("independent ties"), "{e}");
    assert_eq!(
        nulls(CLAIM),
        [
            ("Random".to_string(), "JSQ".to_string()),
            ("WR".to_string(), "JSQ".to_string()),
        ]
    );
}

/// A second credit, for a sentence that names two causes, adds its nulls
/// to the first's; it needs a first.
#[test]
fn a_second_credit_keeps_its_nulls() {
    let both = format!("{CLAIM}also_credits = \"delay\"\n");
    assert_eq!(
        nulls(&both),
        [
            ("Random".to_string(), "JSQ".to_string()),
            ("WR".to_string(), "JSQ".to_string()),
            ("L-JSQ-Push (fresh)".to_string(), "JSQ (fresh)".to_string()),
        ]
    );
    let alone = CLAIM.replace("credits = \"herd\"\n", "also_credits = \"delay\"\n");
    let e = err(&format!("{GOOD}{alone}"));
    assert_eq!(e.field, "claim[0].also_credits", "{e}");
}

/// A foil whose two policies are one policy in law at its points is
/// refused, naming them: a Pull that reports every completion to a lone
/// dispatcher counting its own jobs knows Q(t) as a Push of every server
/// does. The same Pull at p̂ = 0.1 is stale, and the foil loads; so do two
/// JSQ tie rules with several dispatchers, which one dispatcher makes one.
#[test]
fn a_foil_of_one_policy_in_law_is_refused() {
    let policies = |p_hat: &str, dispatchers: &str| {
        format!(
            "\n[[policy]]\nlabel = \"Pull alone\"\nspec = \"L-JSQ-Pull\"\np_hat = {p_hat}\n\
             dispatchers = {dispatchers}\n\n[[policy]]\nlabel = \"fresh alone\"\n\
             spec = \"L-JSQ-Push\"\nd = 2\np_hat = 1.0\npush_when = \"always\"\n\
             dispatchers = {dispatchers}\n"
        )
    };
    let claim = "\n[[claim]]\nid = \"c\"\nstatement = \"s\"\nsource = \"x\"\n\
                 origin = \"ours\"\nkind = \"ordering\"\nmetric = \"mean_response\"\n\
                 better = \"L-JSQ-Push\"\nworse = \"JSQ\"\n\n[claim.foil]\nsays = \"f\"\n\
                 kind = \"ordering\"\nmetric = \"mean_response\"\nbetter = \"Pull alone\"\n\
                 worse = \"fresh alone\"\n";
    let text = |p: String| GOOD.replacen("[run]", &format!("{p}\n[run]"), 1) + claim;
    let e = err(&text(policies("1.0", "1")));
    assert_eq!(e.field, "claim[0].foil", "{e}");
    assert!(e.message.contains("one policy in law"), "{e}");
    accepted(&text(policies("0.1", "1")));
    // Two dispatchers: each hears half the completions, so the Pull is stale.
    accepted(&text(policies("1.0", "2")));
    let jsq = |dispatchers: &str| {
        format!(
            "\n[[policy]]\nlabel = \"Pull alone\"\nspec = \"JSQ\"\ntie_break = \"shared\"\n\
             dispatchers = {dispatchers}\n\n[[policy]]\nlabel = \"fresh alone\"\n\
             spec = \"JSQ\"\ntie_break = \"random\"\ndispatchers = {dispatchers}\n"
        )
    };
    assert_eq!(err(&text(jsq("1"))).field, "claim[0].foil");
    accepted(&text(jsq("2")));
}
