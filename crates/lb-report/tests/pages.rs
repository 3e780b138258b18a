//! The audit page in words: what lb-report writes of a claim the audit
//! decided.

#[path = "../../lb-audit/tests/common/mod.rs"]
mod common;
use common::*;

/// A claim at 99.9% says so over its table of points and beside each
/// interval, not only in the deciding point's line.
#[test]
fn the_audit_page_carries_a_claims_level() {
    let rs = [result(
        "A",
        JSQ,
        "0.5",
        &[9.9, 10.1, 10.0, 9.95, 10.05],
        &ALL_STABLE,
    )];
    let mut strict = value_of("mean_response", Reference::Number(10.0), relative(0.05));
    strict.level = 0.999;
    let a = audit_claim("e", &strict, &rs);
    let page = lb_report::fragment("e", "E", std::slice::from_ref(&a));
    assert!(page.contains("(± 99.9% half-width)"), "{page}");
    assert!(page.contains("; 99.9% intervals"), "{page}");
    let usual = value_of("mean_response", Reference::Number(10.0), relative(0.05));
    let b = audit_claim("e", &usual, &rs);
    let page = lb_report::fragment("e", "E", std::slice::from_ref(&b));
    assert!(!page.contains("99.9%"), "{page}");
}
