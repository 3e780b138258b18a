//! A small coverage certificate: cheap points with exact answers,
//! a few hundred macro-replications each, every interval kind, held to an
//! acceptance region around the nominal 95% that a correct procedure leaves
//! by chance less than once in 10⁴ certificates: the coverage count X of n
//! settled macro-replications must satisfy |X/n − 0.95| ≤ 3.9·√(0.95·0.05/n)
//! (P(|Z| > 3.9) ≈ 10⁻⁴).

use lb_coverage::{Coverage, Procedure};
use lb_manifest::{Profile, load_str};
use lb_model::precision::{MetricName, PrecisionRule};
use lb_pipeline::compute::RunOptions;
use lb_pipeline::coverage::{Certificate, ControlToml, Spec, certify, certify_all, certify_with};
use lb_store::cache::Cache;
use lb_store::run::Silent;
use std::path::Path;

/// Random on two servers, each an M/M/1 (or M/M/1/4 with `buffer`) queue.
fn manifest(lambda: f64, buffer: Option<u32>) -> String {
    format!(
        r#"[experiment]
name = "coverage"
title = "Coverage at an M/M/1 point"
model = "many"

[system]
servers = 2
{}

[sweep]
lambda = [{lambda}]

[[policy]]
spec = "Random"

[run]
horizon = 400.0
warmup = 100.0
batches = 32
replications = 5
seed = 9
"#,
        buffer.map(|b| format!("buffer = {b}")).unwrap_or_default()
    )
}

fn opts() -> RunOptions {
    RunOptions {
        threads: Some(2),
        force: false,
        shard: None,
        args: vec!["test".into()],
        manifests: vec![],
    }
}

/// Geo/Geo/1 in slots: one Bernoulli server, Bernoulli arrivals, whose
/// E[ΣQ] is the `single_server` closed form.
const GEO: &str = r#"[experiment]
name = "coverage-geo"
title = "Coverage at a Geo/Geo/1 point"
model = "slotted"

[system]
dispatchers = 1
servers = { count = 1, rate = 0.5 }
service = "bernoulli"
arrivals = "bernoulli"

[sweep]
load = [0.5]

[[policy]]
spec = "WR"

[run]
slots = 4_000
warmup = 400
batches = 32
replications = 5
seed = 12
"#;

fn within_nominal(c: &Coverage) {
    let n = c.macros as f64;
    assert!(c.macros >= 200, "{c:?}");
    let band = 3.9 * (0.95 * 0.05 / n).sqrt();
    assert!(
        (c.coverage() - 0.95).abs() <= band,
        "{}: coverage {:.3} of {} outside 0.95 ± {band:.3}: {c:?}",
        c.procedure,
        c.coverage(),
        c.macros
    );
}

#[test]
fn intervals_cover_the_exact_value_at_their_level() {
    let d = tempfile::tempdir().unwrap();
    let cache = Cache::new(d.path());
    let e = load_str(Path::new("c.toml"), &manifest(0.5, None), Profile::Full).unwrap();
    let spec = Spec {
        metric: "mean_jobs".into(),
        reference: "mm1".into(),
        procedures: vec![
            Procedure::StudentT { per: 5 },
            Procedure::PrecisionStopped {
                rule: PrecisionRule {
                    metric: MetricName("mean_jobs".into()),
                    rel_half_width: 0.1,
                    level: 0.95,
                    min: 3,
                    max: 12,
                    step: 3,
                    procedure: lb_model::precision::Procedure::Pilot,
                    control: None,
                    also: Vec::new(),
                    settled_first: false,
                    control_only: false,
                },
            },
            Procedure::SkewT { per: 5 },
        ],
        macros: 250,
        level: 0.95,
        strict: None,
    };
    let done = certify(&cache, &e, &spec, &opts(), &Silent).unwrap();
    assert_eq!(done.coverages.len(), 3);
    let t = &done.coverages[0];
    assert_eq!(t.exact, 1.0, "M/M/1 at λ = 0.5 holds 1 job on average");
    within_nominal(t);
    // With the settling rule off, every macro-replication counts: at least
    // the printed ones, and the left-out ones on top.
    let (all, all_covered) = t.ungated.unwrap();
    assert_eq!(all, t.macros + t.unsettled, "{t:?}");
    assert!(all_covered >= t.covered && all_covered <= all, "{t:?}");
    // The precision rule's pilot asks for fewer replications than its max,
    // and the interval on them covers at its level.
    let p = &done.coverages[1];
    assert!(p.mean_replications < 12.0, "{p:?}");
    within_nominal(p);
    // Willink's skewness-adjusted interval over the same replications as
    // the Student-t one: it covers at its level too, and differs from it
    // (the runs' batch means are skewed).
    let w = &done.coverages[2];
    within_nominal(w);
    assert_eq!(w.macros, t.macros);
    assert!(w.mean_half_width != t.mean_half_width, "{w:?}");
    // Read again at higher levels, on the same macro-replications: a
    // wider interval covers at least as often, every one is counted, and
    // Student-t read at 96% is what certifying at 96% finds.
    let levels = lb_coverage::read_levels(0.95);
    for c in &done.coverages {
        assert_eq!(
            c.read_at.iter().map(|a| a.level).collect::<Vec<_>>(),
            levels
        );
        assert!(c.read_at[0].covered >= c.covered, "{c:?}");
        for w in c.read_at.windows(2) {
            assert!(w[1].covered >= w[0].covered, "{c:?}");
        }
        for a in &c.read_at {
            assert_eq!(a.covered + a.above + a.below, c.macros, "{c:?}");
        }
    }
    assert!(t.read_at.last().unwrap().covered > t.covered, "{t:?}");
    let at96 = Spec {
        metric: spec.metric.clone(),
        reference: spec.reference.clone(),
        procedures: vec![Procedure::StudentT { per: 5 }],
        macros: spec.macros,
        level: levels[1],
        strict: None,
    };
    let t96 = &certify(&cache, &e, &at96, &opts(), &Silent)
        .unwrap()
        .coverages[0];
    let r = t.read_at[1];
    assert_eq!(
        (t96.covered, t96.above, t96.below),
        (r.covered, r.above, r.below)
    );
    // Deterministic: the same certificate from the cache, bit for bit.
    let again = certify(&cache, &e, &spec, &opts(), &Silent).unwrap();
    assert_eq!(again.computed, 0);
    assert_eq!(
        serde_json::to_string(&again.coverages).unwrap(),
        serde_json::to_string(&done.coverages).unwrap()
    );
}

#[test]
fn a_proportion_is_covered_by_its_wilson_interval() {
    let d = tempfile::tempdir().unwrap();
    let cache = Cache::new(d.path());
    let e = load_str(Path::new("c.toml"), &manifest(0.7, Some(4)), Profile::Full).unwrap();
    let spec = Spec {
        metric: "loss_fraction".into(),
        reference: "mm1".into(),
        procedures: vec![
            Procedure::Wilson { per: 5 },
            Procedure::ClopperPearson { per: 5 },
        ],
        macros: 250,
        level: 0.95,
        strict: None,
    };
    let done = certify(&cache, &e, &spec, &opts(), &Silent).unwrap();
    let w = &done.coverages[0];
    assert!(w.exact > 0.05 && w.exact < 0.2, "{w:?}");
    within_nominal(w);
    // Clopper–Pearson on the same effective trials: wider than Wilson's.
    let cp = &done.coverages[1];
    within_nominal(cp);
    assert!(cp.mean_half_width >= w.mean_half_width, "{cp:?} {w:?}");
}

/// Random on heterogeneous servers, with weighted random as a control
/// variate: both forms of the control-variate interval cover Random's
/// closed form at their level, and the control itself is not certified.
#[test]
fn control_variate_intervals_cover_at_their_level() {
    let d = tempfile::tempdir().unwrap();
    let cache = Cache::new(d.path());
    let text = r#"[experiment]
name = "coverage-cv"
title = "Coverage of control variates"
model = "slotted"

[system]
dispatchers = 1
servers = { rates = [0.2, 0.3, 0.5] }
service = "bernoulli"
arrivals = "poisson"

[sweep]
load = [0.5]

[[policy]]
spec = "Random"

[[policy]]
spec = "WR"

[run]
slots = 40_000
warmup = 4_000
batches = 32
replications = 5
seed = 14
"#;
    let e = load_str(Path::new("cv.toml"), text, Profile::Full).unwrap();
    let spec = Spec {
        metric: "mean_sum_q".into(),
        reference: "wr_sum_q".into(),
        procedures: vec![
            Procedure::ControlVariate {
                per: 5,
                fitted: false,
            },
            Procedure::ControlVariate {
                per: 5,
                fitted: true,
            },
        ],
        macros: 250,
        level: 0.95,
        strict: None,
    };
    let control = ControlToml {
        policy: "WR".into(),
        mean: "wr_sum_q".into(),
    };
    let done = certify_with(&cache, &e, &spec, Some(&control), &opts(), &Silent).unwrap();
    assert_eq!(done.coverages.len(), 2, "the control is not certified");
    for c in &done.coverages {
        assert_eq!(c.policy, "Random");
        within_nominal(c);
    }
}

/// A Jackson network (two stations in tandem with feedback): the product
/// form E[ΣZ] = Σ ρ/(1 − ρ) is covered by Student-t intervals.
#[test]
fn a_jackson_network_is_covered() {
    let d = tempfile::tempdir().unwrap();
    let cache = Cache::new(d.path());
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/coverage/jackson.toml"),
    )
    .unwrap()
    .replace("horizon = 20000.0", "horizon = 4000.0");
    let e = load_str(Path::new("j.toml"), &text, Profile::Full).unwrap();
    let spec = Spec {
        metric: "mean_total".into(),
        reference: "jackson".into(),
        procedures: vec![Procedure::StudentT { per: 5 }],
        macros: 250,
        level: 0.95,
        strict: None,
    };
    let done = certify(&cache, &e, &spec, &opts(), &Silent).unwrap();
    let t = &done.coverages[0];
    assert!(
        (t.exact - (0.625 / 0.375 + 0.875 / 0.125)).abs() < 1e-9,
        "{t:?}"
    );
    within_nominal(t);
}

/// Why a certificate file `c.toml` in `dir` of the one entry `entry` (its
/// lines after `[[entry]]`) is refused.
fn refused(dir: &Path, entry: &str) -> String {
    let cert = dir.join("c.toml");
    std::fs::write(
        &cert,
        format!("[certificate]\nlevel = 0.95\nmacros = 10\n\n[[entry]]\n{entry}"),
    )
    .unwrap();
    Certificate::read(&cert).err().unwrap().to_string()
}

/// A two-stage procedure can choose n on another metric's first stage
/// (`precision.metric`), so that the certified metric is a column the rule
/// did not read: naming the certified metric itself changes nothing, naming
/// another changes the n chosen (and so the intervals), and a metric the
/// model lacks, or `precision.metric` on the pilot rule, is refused naming
/// the field.
#[test]
fn a_two_stage_rule_chooses_n_on_the_metric_it_names() {
    let d = tempfile::tempdir().unwrap();
    let cache = Cache::new(d.path());
    let e = load_str(Path::new("g.toml"), GEO, Profile::Full).unwrap();
    let two = |by: Option<&str>| Procedure::TwoStage {
        rule: PrecisionRule {
            metric: MetricName("mean_sum_q".into()),
            rel_half_width: 0.05,
            level: 0.95,
            min: 4,
            max: 12,
            step: 4,
            procedure: lb_model::precision::Procedure::Sequential,
            control: None,
            also: Vec::new(),
            settled_first: false,
            control_only: false,
        },
        stein: true,
        chosen_by: by.map(String::from),
    };
    let spec = Spec {
        metric: "mean_sum_q".into(),
        reference: "single_server".into(),
        procedures: vec![two(None), two(Some("mean_sum_q")), two(Some("p99"))],
        macros: 40,
        level: 0.95,
        strict: None,
    };
    let done = certify(&cache, &e, &spec, &opts(), &Silent).unwrap();
    let [own, same, other] = &done.coverages[..] else {
        panic!("{:?}", done.coverages)
    };
    assert!(
        other.procedure.contains("n chosen on p99"),
        "{}",
        other.procedure
    );
    assert_eq!(
        (own.covered, own.mean_replications, own.mean_half_width),
        (same.covered, same.mean_replications, same.mean_half_width)
    );
    assert_ne!(own.mean_replications, other.mean_replications);
    let spec = Spec {
        procedures: vec![two(Some("no_such_metric"))],
        ..spec
    };
    let err = certify(&cache, &e, &spec, &opts(), &Silent)
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("precision.metric") && err.contains("no_such_metric"),
        "{err}"
    );
    let err = refused(
        d.path(),
        r#"label = "x"
manifest = "m.toml"
metric = "mean_sum_q"
reference = "single_server"
per = 5
procedures = ["precision"]
precision = { rel_half_width = 0.05, min = 4, step = 4, max = 12, procedure = "pilot", metric = "p99" }
"#,
    );
    assert!(
        err.contains("c.toml") && err.contains("precision.metric") && err.contains("two-stage"),
        "{err}"
    );
}

/// The certificate file: a bad procedure is refused naming the file, the
/// entry and the field; the shipped certificate reads.
#[test]
fn certificate_errors_name_the_entry_and_field() {
    let d = tempfile::tempdir().unwrap();
    let err = refused(
        d.path(),
        r#"label = "x"
manifest = "m.toml"
metric = "mean_jobs"
reference = "mm1"
per = 5
procedures = ["t", "cv-one"]
"#,
    );
    assert!(err.contains("c.toml") && err.contains("entry 1"), "{err}");
    assert!(err.contains("cv-one needs control"), "{err}");
    let shipped =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/coverage/certificate.toml");
    let c = Certificate::read(&shipped).unwrap();
    assert!(c.toml.entries.len() >= 8);
    for e in &c.toml.entries {
        assert!(c.manifest(e).is_file(), "{}", e.manifest.display());
    }
}

/// A metric the trace is not the series of cannot be read by batch means:
/// refused before anything runs.
#[test]
fn batch_means_need_the_trace_of_the_metric() {
    let d = tempfile::tempdir().unwrap();
    let cache = Cache::new(d.path());
    let e = load_str(Path::new("c.toml"), &manifest(0.7, Some(4)), Profile::Full).unwrap();
    let spec = Spec {
        metric: "loss_fraction".into(),
        reference: "mm1".into(),
        procedures: vec![Procedure::BatchMeans],
        macros: 10,
        level: 0.95,
        strict: None,
    };
    let err = certify(&cache, &e, &spec, &opts(), &Silent).err().unwrap();
    assert!(err.to_string().contains("read a run's trace"), "{err}");
    // The skewness adjustment reads the same trace.
    let spec = Spec {
        procedures: vec![Procedure::SkewT { per: 2 }],
        ..spec
    };
    let err = certify(&cache, &e, &spec, &opts(), &Silent).err().unwrap();
    assert!(err.to_string().contains("t-skew"), "{err}");
}

/// The slotted model too: Geo/Geo/1 against its closed form, and the
/// audit's errors at the truth — a value claim of the exact value refuted,
/// a bound set at it confirmed — at about 5% and 2.5%.
#[test]
fn the_slotted_single_server_is_covered_and_the_audit_errs_at_its_level() {
    let d = tempfile::tempdir().unwrap();
    let cache = Cache::new(d.path());
    let e = load_str(Path::new("g.toml"), GEO, Profile::Full).unwrap();
    let spec = Spec {
        metric: "mean_sum_q".into(),
        reference: "single_server".into(),
        procedures: vec![Procedure::StudentT { per: 5 }],
        macros: 250,
        level: 0.95,
        strict: None,
    };
    let done = certify(&cache, &e, &spec, &opts(), &Silent).unwrap();
    let t = &done.coverages[0];
    within_nominal(t);
    let (refuted, confirmed) = t.audit_errors();
    assert!((refuted - (1.0 - t.coverage())).abs() < 1e-12);
    let n = t.macros as f64;
    assert!(
        confirmed <= 0.025 + 3.9 * (0.025 * 0.975 / n).sqrt(),
        "{t:?}"
    );
}

/// The committed certificate is current: every entry has a record at its
/// entry's and points' keys in the committed results, with 1,000
/// macro-replications behind every coverage it states (a changed manifest,
/// reference or engine version must be recertified: `just certify`).
#[test]
fn the_committed_certificate_is_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let c = Certificate::read(&root.join("experiments/coverage/certificate.toml")).unwrap();
    let cache = Cache::new(root.join("results"));
    let mut keys = std::collections::BTreeSet::new();
    for e in &c.toml.entries {
        let rec = c
            .read_record(&cache, e)
            .unwrap()
            .unwrap_or_else(|| panic!("{}: no record at its current key", e.label));
        assert_eq!(rec.macros, c.toml.certificate.macros);
        keys.insert(format!("{}.json", &rec.key[..16]));
        for cov in &rec.coverages {
            assert_eq!(
                cov.macros + cov.unsettled,
                rec.macros,
                "{}: {}",
                e.label,
                cov.procedure
            );
        }
    }
    // And no record that no entry reads.
    for f in std::fs::read_dir(Certificate::dir(&cache))
        .unwrap()
        .flatten()
    {
        let name = f.file_name().to_string_lossy().to_string();
        assert!(keys.contains(&name), "{name}: no entry is at its key");
    }
}

/// The audit decides a claim of level 1 − α at 1 − f·α
/// (lb-manifest's `calibration`): f is what the committed certificate
/// measured, at each level it certifies — the lowest level read again at
/// which a true value claim is refuted in at most α of the pooled printed
/// macro-replications.
#[test]
fn the_calibration_is_the_certificates() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let c = Certificate::read(&root.join("experiments/coverage/certificate.toml")).unwrap();
    let views = c.views(&Cache::new(root.join("results"))).unwrap();
    let h = &c.toml.certificate;
    let levels: Vec<f64> = std::iter::once(h.level).chain(h.strict).collect();
    assert_eq!(
        levels,
        lb_manifest::calibration::CALIBRATION
            .iter()
            .map(|c| c.0)
            .collect::<Vec<_>>()
    );
    for (level, f) in lb_manifest::calibration::CALIBRATION {
        let rows = lb_coverage::decided_at(&views, level);
        // Every printed row carries its reading at the higher levels: the
        // calibration pools all of them, none left out.
        let without: Vec<String> = rows
            .iter()
            .filter(|c| c.read_at.is_empty())
            .map(|c| format!("{} at {}", c.policy, c.at))
            .collect();
        assert!(
            without.is_empty(),
            "{level}: records without their reading again: {without:?} (rerun `lb coverage \
             --certificate experiments/coverage/certificate.toml --again`)"
        );
        let (_, measured, k, n) = lb_coverage::calibration(&rows, level)
            .unwrap_or_else(|| panic!("{level}: no level read keeps the refutations within α"));
        assert!(
            (measured - f).abs() < 1e-9,
            "{level}: the certificate's factor is {measured} ({k} of {n} refuted), lb decides at {f}"
        );
    }
}

/// `lb coverage --certificate` removes the records of entries that changed
/// or went, and keeps the current ones.
#[test]
fn certifying_removes_records_no_entry_reads() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("m.toml"), manifest(0.5, None)).unwrap();
    let cert = d.path().join("c.toml");
    std::fs::write(
        &cert,
        "[certificate]\nlevel = 0.95\nmacros = 10\n\n[[entry]]\nlabel = \"x\"\n\
         manifest = \"m.toml\"\nmetric = \"mean_jobs\"\nreference = \"mm1\"\nper = 2\n\
         procedures = [\"t\"]\n",
    )
    .unwrap();
    let c = Certificate::read(&cert).unwrap();
    let cache = Cache::new(d.path().join("results"));
    let scratch = Cache::new(d.path().join("scratch"));
    let stale = Certificate::dir(&cache).join("0123456789abcdef.json");
    std::fs::create_dir_all(stale.parent().unwrap()).unwrap();
    std::fs::write(&stale, "{}").unwrap();
    let recs = certify_all(&cache, &scratch, &c, &opts(), false, &Silent).unwrap();
    assert_eq!(recs.len(), 1);
    assert!(!stale.exists(), "the stale record is gone");
    assert!(c.read_record(&cache, &c.toml.entries[0]).unwrap().is_some());
}
