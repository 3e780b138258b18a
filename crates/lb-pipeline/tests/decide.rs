//! `lb decide` from Rust: a claim inconclusive with the manifest's
//! replications is decided by doubling them, with alpha spending over its
//! looks; the ledger beside the manifest makes a fresh clone (a new results
//! directory, plain runs) audit it to the same verdict at the same level;
//! the outcome does not depend on the thread count; and a budget of 0 runs
//! nothing.

use lb_audit::{ClaimResult, Verdict};
use lb_manifest::{Profile, load_all};
use lb_pipeline::audit::audit;
use lb_pipeline::compute::{RunOptions, plans, run};
use lb_pipeline::decide::{Decided, Options, Stop, decide};
use lb_store::cache::Cache;
use lb_store::run::Silent;
use std::path::{Path, PathBuf};

/// Weighted random on three identical Bernoulli servers, whose E[ΣQ] is
/// exact (`wr_sum_q`): with 2 replications the interval (t with one degree
/// of freedom) is far wider than 3%, so `wr-close` is inconclusive; more
/// replications decide it. `wr-loose` reads the same point and is
/// confirmed from the start: a round that extends the point is a look at
/// its data too.
const MANIFEST: &str = lb_test_support::fixtures::WR_DECIDE;

const LEDGER: &str = "decide/wr-decide.json";

/// A manifest in its own directory ("a clone"), and its results directory.
fn clone(dir: &Path) -> (PathBuf, Cache) {
    std::fs::create_dir_all(dir).unwrap();
    let manifest = dir.join("wr-decide.toml");
    std::fs::write(&manifest, MANIFEST).unwrap();
    (manifest, Cache::new(dir.join("results")))
}

fn options(manifest: &Path, threads: usize, budget: f64) -> Options {
    Options {
        budget_cpu: budget,
        run: RunOptions {
            threads: Some(threads),
            force: false,
            shard: None,
            args: vec!["test".into()],
            manifests: vec![manifest.to_path_buf()],
        },
        cpu_clock: None,
    }
}

/// The claims' audit on a fresh load of the manifest (and its ledger).
fn audited(manifest: &Path, cache: &Cache) -> Vec<ClaimResult> {
    let loaded = load_all(&[manifest.to_path_buf()], Profile::Full).unwrap();
    audit(cache, &loaded).claims.remove(0)
}

fn decided(dir: &Path, threads: usize) -> (Decided, Vec<u8>) {
    let (manifest, cache) = clone(dir);
    let loaded = load_all(std::slice::from_ref(&manifest), Profile::Full).unwrap();
    let d = decide(&cache, &loaded, &options(&manifest, threads, 1e6), &Silent).unwrap();
    let ledger = std::fs::read(dir.join(LEDGER)).unwrap();
    (d, ledger)
}

/// 1 − α·6/(π² j²), α the manifest's 5% as the coverage certificate
/// calibrates it (the level a claim of 95% is decided at).
fn level_at(j: u32) -> f64 {
    1.0 - (1.0 - decided_at()) * 6.0 / (std::f64::consts::PI.powi(2) * (j * j) as f64)
}

fn decided_at() -> f64 {
    use lb_manifest::calibration::{DecideAt, decision_level};
    decision_level(0.95, DecideAt::Calibrated)
}

#[test]
fn an_inconclusive_claim_is_decided_and_a_fresh_clone_audits_it_the_same() {
    let tmp = tempfile::tempdir().unwrap();

    // Before: inconclusive with the manifest's 2 replications, at 95% as
    // calibrated.
    let (manifest, cache) = clone(&tmp.path().join("a"));
    let loaded = load_all(std::slice::from_ref(&manifest), Profile::Full).unwrap();
    run(
        &cache,
        &plans(&loaded),
        &options(&manifest, 2, 0.0).run,
        &Silent,
    )
    .unwrap();
    let before = audited(&manifest, &cache);
    assert_eq!(before[0].verdict, Verdict::Inconclusive, "{:?}", before[0]);
    assert_eq!(
        (before[0].level, before[0].checks[0].replications),
        (decided_at(), 2)
    );
    assert_eq!(before[1].verdict, Verdict::Confirmed);

    // Decided, by doubling: 2 → 4 → 8 → …, look j held at 1 − α·6/(π²j²).
    let (d, ledger) = decided(&tmp.path().join("a"), 2);
    let close = d.claims.iter().find(|c| c.id == "wr-close").unwrap();
    assert!(close.targeted);
    assert_eq!(close.stop, Stop::Decided);
    assert_eq!(close.verdict, Verdict::Confirmed);
    let j = close.looks;
    assert!(
        j >= 2 && close.rounds.len() == (j - 1) as usize,
        "{close:?}"
    );
    assert_eq!(close.level, level_at(j));
    for (i, r) in close.rounds.iter().enumerate() {
        assert_eq!(r.look, i as u32 + 2);
        assert_eq!((r.points[0].from, r.points[0].to), (2 << i, 4 << i));
    }
    // The confirmed claim on the same point was looked at as often, and
    // is held at the same level.
    let loose = d.claims.iter().find(|c| c.id == "wr-loose").unwrap();
    assert!(!loose.targeted && loose.rounds.is_empty());
    assert_eq!((loose.looks, loose.level), (j, level_at(j)));
    assert_eq!(loose.verdict, Verdict::Confirmed);

    // `lb audit` on the same results reads the ledger: the same verdicts.
    let after = audited(&manifest, &cache);
    assert_eq!(after[0].verdict, Verdict::Confirmed);
    assert_eq!(after[0].level, level_at(j));
    assert_eq!(after[0].checks[0].replications, 2 << (j - 1));
    assert_eq!(
        (after[1].verdict, after[1].level),
        (Verdict::Confirmed, level_at(j))
    );

    // A fresh clone: the manifest and its ledger, an empty results
    // directory, a plain run (not lb decide) — the same verdicts, numbers and
    // levels.
    let (fresh, fresh_cache) = clone(&tmp.path().join("fresh"));
    std::fs::create_dir_all(tmp.path().join("fresh/decide")).unwrap();
    std::fs::write(tmp.path().join("fresh").join(LEDGER), &ledger).unwrap();
    let loaded = load_all(std::slice::from_ref(&fresh), Profile::Full).unwrap();
    let ran = run(
        &fresh_cache,
        &plans(&loaded),
        &options(&fresh, 1, 0.0).run,
        &Silent,
    )
    .unwrap();
    assert_eq!(ran.report.computed, 2 << (j - 1));
    let again = audited(&fresh, &fresh_cache);
    for (a, b) in after.iter().zip(&again) {
        assert_eq!((a.verdict, a.level), (b.verdict, b.level));
        assert_eq!(a.checks[0].measured, b.checks[0].measured);
        assert_eq!(a.checks[0].half_width, b.checks[0].half_width);
    }

    // Another thread count: the same ledger, byte for byte, and verdict.
    let (d1, ledger1) = decided(&tmp.path().join("one-thread"), 1);
    assert_eq!(ledger1, ledger);
    let c1 = d1.claims.iter().find(|c| c.id == "wr-close").unwrap();
    assert_eq!(
        (c1.verdict, c1.looks, c1.level),
        (close.verdict, j, close.level)
    );
}

#[test]
fn a_budget_of_nothing_runs_nothing_and_writes_no_ledger() {
    let tmp = tempfile::tempdir().unwrap();
    let (manifest, cache) = clone(tmp.path());
    let loaded = load_all(std::slice::from_ref(&manifest), Profile::Full).unwrap();
    let d = decide(&cache, &loaded, &options(&manifest, 1, 0.0), &Silent).unwrap();
    let close = d.claims.iter().find(|c| c.id == "wr-close").unwrap();
    assert!(
        matches!(close.stop, Stop::Budget { .. }),
        "{:?}",
        close.stop
    );
    assert_eq!((close.verdict, close.looks), (Verdict::Inconclusive, 1));
    assert_eq!(d.charged, 0.0);
    assert!(d.ledgers.is_empty() && !tmp.path().join(LEDGER).exists());
}
