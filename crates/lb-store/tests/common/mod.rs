//! Shared helpers of lb-store's integration tests.
#![allow(dead_code)]

use lb_manifest::{Plan, Profile};

/// A tiny experiment: 2 dispatchers, 3 servers, 2 loads × 3 policies, 3
/// replications of 3000 slots.
pub(crate) const TINY: &str = r#"[experiment]
name = "tiny"
title = "tiny"
model = "slotted"

[system]
dispatchers = 2
servers = { rates = [0.3, 0.5, 0.9] }
service = "bernoulli"
arrivals = "poisson"

[sweep]
load = [0.6, 0.9]

[[policy]]
spec = "JSQ"

[[policy]]
spec = "L-JBA-Pull"
p_hat = 0.3

[[policy]]
spec = "Power-of-2"

[run]
slots = 3000
warmup = 300
replications = 3
seed = 7
"#;

pub(crate) use lb_test_support::{records, run};

/// The plan of manifest text (named `tiny.toml` in errors).
pub(crate) fn plan(text: &str, profile: Profile) -> Plan {
    lb_test_support::plan("tiny.toml", text, profile)
}

/// The point of a target that needs no calibration.
pub(crate) fn fixed(t: &lb_manifest::plan::Target) -> &lb_manifest::Point {
    match t {
        lb_manifest::plan::Target::Fixed(p) => p,
        lb_manifest::plan::Target::Calibrated { .. } => panic!("not a fixed point"),
    }
}
