//! Finite numbers everywhere: every number of every shipped
//! manifest, in any section, list or inline table, replaced in turn by
//! `nan`, `inf`, `-inf` and `1e308`. A non-finite one is a located error at
//! that very key; `1e308` is either refused with a located error or loads,
//! and then every point of its plan has a key (canonical JSON) — nothing
//! panics.

use lb_manifest::diag::SpanIndex;
use lb_manifest::{Profile, load_str};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

fn shipped() -> Vec<(PathBuf, String)> {
    let v: Vec<(PathBuf, String)> = lb_test_support::shipped_manifests()
        .into_iter()
        .map(|p| {
            let t = std::fs::read_to_string(&p).unwrap();
            (p, t)
        })
        .collect();
    assert!(v.len() >= 10, "only {} manifests", v.len());
    v
}

#[test]
fn every_number_of_every_manifest_is_checked_for_finiteness() {
    let mut tried = 0;
    let mut loaded_huge = 0;
    for (path, text) in shipped() {
        let idx = SpanIndex::parse(&path, &text).unwrap();
        let numbers: Vec<(String, std::ops::Range<usize>)> = idx
            .numbers()
            .into_iter()
            .map(|(p, r)| (p.to_string(), r))
            .collect();
        assert!(!numbers.is_empty(), "{}", path.display());
        for (at, span) in numbers {
            for bad in ["nan", "inf", "-inf", "1e308"] {
                let t = format!("{}{bad}{}", &text[..span.start], &text[span.end..]);
                tried += 1;
                let r = catch_unwind(AssertUnwindSafe(|| {
                    let e = load_str(&path, &t, Profile::Full)?;
                    for p in &e.plan.points {
                        let _ = p.point().key();
                    }
                    Ok::<(), lb_manifest::ManifestError>(())
                }));
                let r = r.unwrap_or_else(|_| panic!("{}: {at} = {bad} panicked", path.display()));
                match (bad, r) {
                    ("1e308", Ok(())) => loaded_huge += 1,
                    (_, Ok(())) => panic!("{}: {at} = {bad} was accepted", path.display()),
                    ("1e308", Err(e)) => {
                        assert!(e.line > 0, "{}: {at} = 1e308: {e}", path.display())
                    }
                    (_, Err(e)) => {
                        assert_eq!(e.field, at, "{}: {e}", path.display());
                        assert!(e.message.contains("not a finite number"), "{e}");
                    }
                }
            }
        }
    }
    assert!(tried > 400, "only {tried} substitutions");
    // Most numbers of a manifest are bounded (loads below 1, counts,
    // limits): a huge one is mostly refused.
    assert!(
        loaded_huge * 2 < tried / 4,
        "{loaded_huge} of {} accepted 1e308",
        tried / 4
    );
}

/// A non-finite number inside a string a manifest parses (a `where`
/// range) is refused as well.
#[test]
fn a_range_of_nan_selects_nothing_and_says_so() {
    let (path, text) = shipped()
        .into_iter()
        .find(|(p, _)| p.ends_with("led-fig1.toml"))
        .unwrap();
    for bad in ["\">= nan\"", "\"< inf\"", "{ min = nan }"] {
        let was = "where = { load = [0.97, 0.98, 0.99] }";
        assert!(text.contains(was), "led-fig1.toml has no `{was}`");
        let t = text.replacen(was, &format!("where = {{ load = {bad} }}"), 1);
        let e = load_str(&path, &t, Profile::Full).err();
        assert!(e.is_some(), "{bad} was accepted");
    }
}
