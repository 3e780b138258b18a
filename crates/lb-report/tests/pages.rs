//! The audit page in words: what lb-report writes of a claim the audit
//! decided.

#[path = "../../lb-audit/tests/common/mod.rs"]
mod common;
use common::*;

/// A claim at 99.9% says so over its table of points and beside each
/// interval, not only in the deciding point's line.
#[test]
fn the_audit_page_carries_a_claims_level() {
    let (strict, rs) = ten_at_level(0.999);
    let a = audit_claim("e", &strict, &rs);
    let page = lb_report::fragment("e", "E", std::slice::from_ref(&a));
    assert!(page.contains("(± 99.9% half-width)"), "{page}");
    assert!(page.contains("; 99.9% intervals"), "{page}");
    let (usual, _) = ten_at_level(claim::DEFAULT_LEVEL);
    let b = audit_claim("e", &usual, &rs);
    let page = lb_report::fragment("e", "E", std::slice::from_ref(&b));
    assert!(!page.contains("99.9%"), "{page}");
}
