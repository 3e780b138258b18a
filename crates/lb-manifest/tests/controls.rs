//! A precision rule's control variate: the control's own points.

mod common;
use common::*;
use lb_manifest::plan::Replications;

/// A control policy's points that no figure draws stop their own rule at its
/// first stage (`control_only`); drawn by a figure, they keep the plain rule.
#[test]
fn a_control_no_figure_draws_runs_its_first_stage() {
    let manifest = |figure_policies: &str| {
        let t = replace(
            "replications = 2",
            "precision = { metric = \"mean_sum_q\", rel_half_width = 0.05, min = 4, max = 8, \
             step = 4, procedure = \"stein\", control = { policy = \"Pooled\", mean = \
             \"pooled_exact\" } }",
        )
        .replace(
            "[[policy]]\nspec = \"JSQ\"\n",
            "[[policy]]\nspec = \"JSQ\"\n\n[[policy]]\nspec = \"Pooled\"\n",
        );
        format!(
            "{t}\n[[figure]]\nname = \"f\"\ntitle = \"f\"\nx = \"load\"\ny = \"mean_sum_q\"\n\
             policies = [{figure_policies}]\ncaption = \"c\"\n"
        )
    };
    let control_only = |figure_policies: &str| -> Vec<(String, bool)> {
        accepted(&manifest(figure_policies))
            .plan
            .points
            .iter()
            .map(|pp| match &pp.replications {
                Replications::Precision(r) => (pp.label.clone(), r.control_only),
                Replications::Fixed(_) => (pp.label.clone(), false),
            })
            .collect()
    };
    let undrawn = control_only("\"JSQ\", \"L-JSQ-Push\"");
    assert!(
        undrawn
            .iter()
            .all(|(label, only)| *only == (label == "Pooled")),
        "{undrawn:?}"
    );
    let drawn = control_only("\"JSQ\", \"Pooled\"");
    assert!(drawn.iter().all(|(_, only)| !only), "{drawn:?}");
}
