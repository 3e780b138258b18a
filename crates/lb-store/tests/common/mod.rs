//! Shared helpers of lb-store's integration tests.
#![allow(dead_code)]

use lb_manifest::{Plan, Profile};

/// A tiny experiment: 2 dispatchers, 3 servers, 2 loads × 3 policies, 3
/// replications of 3000 slots.
pub(crate) const TINY: &str = lb_test_support::fixtures::TINY;

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
