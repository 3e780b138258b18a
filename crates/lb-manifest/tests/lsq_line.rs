//! The LSQ line's policy variants in a manifest: `spec = "LSQ"`
//! (L-JSQ-Push with destination sync, every Push key) and
//! `spec = "JIQ-Spread"` (JIQ with batch spreading, `job` granularity).

use lb_core::slotted::{PolicyConfig, PushWhen, TieBreak};
use lb_manifest::plan::Target;
use lb_manifest::{PointConfig, Profile, load_str};
use std::path::Path;

const LSQ_LINE: &str = r#"[experiment]
name = "lsq-line"
title = "The LSQ line's variants"
model = "slotted"

[system]
dispatchers = 2
servers = { rates = [0.3, 0.5, 0.9] }
service = "bernoulli"
arrivals = "poisson"
granularity = "job"
load = 0.8

[[policy]]
spec = "LSQ"
d = 2
p_hat = 1.0
push_when = "always"

[[policy]]
spec = "lsq"
label = "LSQ budget"
budget = { same_as = "LSQ" }

[[policy]]
spec = "JIQ-Spread"

[run]
slots = 2000
warmup = 200
replications = 1
seed = 3
"#;

fn policies(text: &str) -> Result<Vec<PolicyConfig>, String> {
    let plan = load_str(Path::new("lsq-line.toml"), text, Profile::Full)
        .map_err(|e| e.to_string())?
        .plan;
    Ok(plan
        .points
        .iter()
        .map(|p| match &p.target {
            Target::Fixed(point) => match &point.config {
                PointConfig::Slotted(c) => c.policy,
                _ => unreachable!(),
            },
            Target::Calibrated { .. } => PolicyConfig::Random,
        })
        .collect())
}

#[test]
fn lsq_and_jiq_spread_are_named_in_the_manifest() {
    let ps = policies(LSQ_LINE).unwrap();
    assert_eq!(
        ps[0],
        PolicyConfig::Lsq {
            d: 2,
            p_hat: 1.0,
            when: PushWhen::Always,
            tie_break: TieBreak::Random,
            revision: lb_core::slotted::LSQ_REVISION,
        }
    );
    assert_eq!(ps[0].name(), "LSQ");
    assert_eq!(
        ps[2],
        PolicyConfig::JiqSpread {
            revision: lb_core::slotted::JIQ_SPREAD_REVISION
        }
    );
    assert_eq!(ps[2].name(), "JIQ-Spread");
}

#[test]
fn jiq_spread_needs_job_granularity_and_lsq_takes_push_keys_only() {
    let batch = LSQ_LINE.replace("granularity = \"job\"", "granularity = \"batch\"");
    let e = policies(&batch).unwrap_err();
    assert!(e.contains("policy[2]") && e.contains("job"), "{e}");
    let pull_key = LSQ_LINE.replace(
        "spec = \"JIQ-Spread\"",
        "spec = \"JIQ-Spread\"\np_hat = 0.5",
    );
    let e = policies(&pull_key).unwrap_err();
    assert!(e.contains("p_hat"), "{e}");
}
