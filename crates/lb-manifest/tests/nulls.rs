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
                        spec = \"L-JSQ-Push\"\nd = 2\np_hat = 1.0\npush_when = \"always\"\n";

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

/// A claim crediting the herd of the policy it beats is held to that policy
/// with its dispatchers breaking ties each on its own; the loader asks for
/// it by name.
#[test]
fn a_herd_credit_is_held_to_independent_ties() {
    let e = err(&format!("{GOOD}{CLAIM}"));
    assert_eq!(e.field, "claim[0].credits", "{e}");
    assert!(
        e.message.contains("label = \"JSQ (independent ties)\""),
        "{e}"
    );
    assert_eq!(
        nulls(CLAIM),
        [(
            "L-JSQ-Push".to_string(),
            "JSQ (independent ties)".to_string()
        )]
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
            (
                "L-JSQ-Push".to_string(),
                "JSQ (independent ties)".to_string()
            ),
            ("L-JSQ-Push (fresh)".to_string(), "JSQ (fresh)".to_string()),
        ]
    );
    let alone = CLAIM.replace("credits = \"herd\"\n", "also_credits = \"delay\"\n");
    let e = err(&format!("{GOOD}{alone}"));
    assert_eq!(e.field, "claim[0].also_credits", "{e}");
}
