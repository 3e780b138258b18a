//! Room for a claim's region: every value and limit claim of the shipped
//! manifests gets a share of some figure's y axis ([`lb_audit::room`]), and
//! a figure stretched past its data breaks the rule.

use lb_analysis::collect;
use lb_manifest::{Profile, load};
use lb_store::cache::Cache;
use lb_test_support::shipped_manifests;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// No figure squeezes the region where a claim is decided
/// ([`lb_audit::room::squeezed`], the rule `lb check` applies
/// where records exist).
#[test]
fn every_value_and_limit_claims_region_has_room_in_some_figure() {
    let cache = Cache::new(repo().join("results"));
    let (mut squeezed, mut read) = (Vec::new(), 0);
    for m in shipped_manifests() {
        let e = load(&m, Profile::Full).unwrap_or_else(|e| panic!("{e}"));
        let results = collect(&cache, &e.plan);
        let (n, bad) = lb_audit::room::squeezed(&e, &results);
        read += n;
        squeezed.extend(bad);
    }
    assert!(read >= 10, "only {read} claims are drawn in a figure");
    assert!(
        squeezed.is_empty(),
        "claims whose decisive region no figure gives room (set `y_range`, or add a \
         companion figure of the region):\n{}",
        squeezed.join("\n")
    );
}

/// The room rule fails where a figure squeezes a claim's region: the
/// N-network's figure stretched to a y axis a hundred times its data's.
#[test]
fn a_squeezed_region_breaks_the_room_rule() {
    let path = repo().join("experiments/max-pressure-heavy-traffic.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("y_range = [0.38, 0.56]"));
    let cache = Cache::new(repo().join("results"));
    let squeeze = |t: &str| {
        let e = lb_manifest::load_str(&path, t, Profile::Full).unwrap_or_else(|e| panic!("{e}"));
        let results = collect(&cache, &e.plan);
        lb_audit::room::squeezed(&e, &results)
    };
    let (read, ok) = squeeze(&text);
    assert!(read > 0 && ok.is_empty(), "{read} {ok:?}");
    let (_, bad) = squeeze(&text.replace("y_range = [0.38, 0.56]", "y_range = [0.0, 40.0]"));
    assert!(
        !bad.is_empty(),
        "a region squeezed to a fiftieth of the axis passed"
    );
}
