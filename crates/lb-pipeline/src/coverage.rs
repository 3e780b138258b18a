//! `lb coverage`: measured coverage of lb's intervals at points whose exact
//! answer is known ([`lb_coverage`]). The experiment's
//! points are run with as many replications as the macro-replications need
//! (the replications beyond the manifest's are lb's usual ones, seeded by
//! their index, so they are cached and reused like any other), then every
//! procedure is applied to every macro-replication and held to the exact
//! value, a named reference of the model at the point.

use crate::Error;
use crate::compute::{RunOptions, run};
use lb_analysis::{Metric, collect};
use lb_coverage::{Coverage, Procedure, coverage};
use lb_manifest::Experiment;
use lb_manifest::Profile;
use lb_manifest::plan::Target;
use lb_model::precision::{MetricName, PrecisionRule};
use lb_store::cache::Cache;
use lb_store::run::Progress;
use std::path::{Path, PathBuf};

/// What to certify: the metric, the exact reference it is held to, the
/// procedures, and how many macro-replications each.
pub struct Spec {
    /// The metric certified.
    pub metric: String,
    /// The exact reference it is held to.
    pub reference: String,
    /// The interval procedures measured.
    pub procedures: Vec<Procedure>,
    /// Macro-replications of each procedure.
    pub macros: usize,
    /// The nominal level.
    pub level: f64,
    /// A second level the same macro-replications are read at.
    pub strict: Option<f64>,
}

/// What `certify` found, and the work it took.
pub struct Certified {
    /// Each procedure's coverage, with its interval.
    pub coverages: Vec<Coverage>,
    /// Records computed for it (0 when the cache held them all).
    pub computed: usize,
    /// Wall time of the runs.
    pub wall: std::time::Duration,
    /// The replications read, their CPU and commits.
    pub provenance: Sources,
}

/// Runs the experiment's points with the replications `spec` needs, then
/// measures each procedure's coverage at each point.
pub fn certify(
    cache: &Cache,
    e: &Experiment,
    spec: &Spec,
    o: &RunOptions,
    progress: &dyn Progress,
) -> Result<Certified, Error> {
    certify_with(cache, e, spec, None, o, progress)
}

/// What a coverage `spec` asks of the experiment, checked: its metric and
/// every procedure's exist in the model, batch-means procedures read the
/// model's trace metric, and the replications it needs at a point
/// (macro-replications × the most a procedure reads) are within lb's limit.
fn checked(e: &Experiment, spec: &Spec) -> Result<(Metric, u32), Error> {
    let model = e.loaded.model();
    let metric = Metric::parse(model, &spec.metric).ok_or_else(|| {
        format!(
            "{} has no metric \"{}\" (lb table prints the metrics a model has)",
            model.name(),
            spec.metric
        )
    })?;
    for p in &spec.procedures {
        if let Procedure::TwoStage {
            chosen_by: Some(by),
            ..
        } = p
            && Metric::parse(model, by).is_none()
        {
            return Err(format!(
                "precision.metric: {} has no metric \"{by}\" (lb table prints the metrics a \
                 model has)",
                model.name()
            )
            .into());
        }
    }
    if spec.procedures.iter().any(|p| {
        matches!(
            p,
            Procedure::BatchMeans
                | Procedure::BatchMeansTestBatches
                | Procedure::SkewT { .. }
                | Procedure::SkewPrecision { .. }
        )
    }) && model.trace_metric() != Some(spec.metric.as_str())
    {
        return Err(format!(
            "batch means (bm, and the skewness of t-skew and precision-skew) read a run's \
             trace, which in the {} model is the series of {}: not of {}; drop them from the \
             procedures",
            model.name(),
            model.trace_metric().unwrap_or("no per-replication metric"),
            spec.metric
        )
        .into());
    }
    let per = spec
        .procedures
        .iter()
        .map(Procedure::per)
        .max()
        .unwrap_or(1);
    let needed = u32::try_from(spec.macros * per)
        .ok()
        .filter(|n| u64::from(*n) <= lb_model::limits::MAX_REPLICATIONS)
        .ok_or_else(|| {
            format!(
                "{} macro-replications of {per} replications are beyond lb's {} replications a \
                 point",
                spec.macros,
                lb_model::limits::MAX_REPLICATIONS
            )
        })?;
    Ok((metric, needed))
}

/// [`certify`], with a control policy for control-variate procedures: its
/// points (same axes) are run and paired, not certified.
pub fn certify_with(
    cache: &Cache,
    e: &Experiment,
    spec: &Spec,
    control: Option<&ControlToml>,
    o: &RunOptions,
    progress: &dyn Progress,
) -> Result<Certified, Error> {
    let (metric, needed) = checked(e, spec)?;
    let mut plan = e.plan.clone();
    for pp in &plan.points {
        let Target::Fixed(point) = &pp.target else {
            return Err(format!(
                "{}: {} is calibrated; coverage needs points whose exact answer is known, \
                 without calibration",
                plan.name, pp.label
            )
            .into());
        };
        // The exact value must exist at every point before anything runs
        // (the control's points are held to their own exact mean instead).
        if control.is_some_and(|k| k.policy == pp.label) {
            continue;
        }
        point
            .reference(&spec.reference, &spec.metric, 0)
            .map_err(|why| format!("{}: {}: {why}", plan.name, pp.label))?;
    }
    let keys: Vec<_> = plan.points.iter().map(|pp| pp.point().key()).collect();
    for k in keys {
        plan.extended.insert(k, needed);
    }
    let ran = run(cache, std::slice::from_ref(&plan), o, progress)?;
    let results = collect(cache, &plan);
    if let Some(k) = control
        && !results.iter().any(|r| r.label == k.policy)
    {
        return Err(format!(
            "{}: control = {{ policy = \"{}\" }} is not a policy of the manifest",
            plan.name, k.policy
        )
        .into());
    }
    let mut coverages = Vec::new();
    for r in &results {
        let Some(point) = &r.point else { continue };
        if control.is_some_and(|k| k.policy == r.label) {
            continue;
        }
        let exact = point.reference(&spec.reference, &spec.metric, 0)?;
        let paired = match control {
            Some(k) => {
                let w = results
                    .iter()
                    .find(|w| w.label == k.policy && w.axes == r.axes)
                    .ok_or_else(|| {
                        format!("{}: no {} point at {:?}", plan.name, k.policy, r.axes)
                    })?;
                let wp = w.point.as_ref().ok_or("control point not computed")?;
                Some((w, wp.config.exact_mean(&spec.metric, &k.mean)?))
            }
            None => None,
        };
        for p in &spec.procedures {
            if matches!(p, Procedure::ControlVariate { .. }) && paired.is_none() {
                continue;
            }
            let strict = spec.strict.filter(|_| {
                !matches!(
                    p,
                    Procedure::PrecisionStopped { .. }
                        | Procedure::TwoStage { .. }
                        | Procedure::SkewPrecision { .. }
                )
            });
            // Each level's macro-replications are read again at higher
            // levels too (a decision level's calibration).
            for level in std::iter::once(spec.level).chain(strict) {
                let again = lb_coverage::read_levels(level);
                coverages.push(coverage(
                    p,
                    metric,
                    r,
                    exact,
                    (level, spec.macros),
                    paired,
                    &again,
                ));
            }
        }
    }
    let mut provenance = Sources::default();
    for r in &results {
        let Some(k) = &r.key else { continue };
        for s in &r.summaries {
            if let Some(rec) = cache.read_replication(k, s.replication()).valid() {
                provenance.replications += 1;
                provenance.cpu_seconds += rec.provenance.seconds();
                if let Some(c) = &rec.provenance.git_commit {
                    provenance.commits.insert(c.clone());
                }
                provenance.dirty |= rec.provenance.git_dirty.unwrap_or(true);
            }
        }
    }
    Ok(Certified {
        coverages,
        computed: ran.report.computed as usize,
        wall: ran.wall,
        provenance,
    })
}

/// The coverage certificate: a file of entries, each a manifest of points
/// with an exact answer, the metric and reference it is held to, and the
/// procedures measured there (`experiments/coverage/certificate.toml`).
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct CertificateToml {
    /// `[certificate]`.
    pub certificate: CertificateHead,
    #[serde(rename = "entry")]
    /// The `[[entry]]` tables.
    pub entries: Vec<EntryToml>,
}

/// `[certificate]`: the level and macro-replications of every entry.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct CertificateHead {
    /// The nominal level of the intervals certified.
    pub level: f64,
    /// A stricter level the same macro-replications are also read at (the
    /// audit's error rates at 99.9%); not for the precision rule, whose
    /// level is its own.
    pub strict: Option<f64>,
    /// Macro-replications of each procedure.
    pub macros: usize,
}

/// `[[entry]]`: one manifest's points, one metric, its procedures.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct EntryToml {
    /// The family of points, as the report and figure name it.
    pub label: String,
    /// A "before": a setting the certificate shows failing (a run length
    /// or procedure lb no longer recommends), kept apart from the verdict.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub before: bool,
    /// The manifest, relative to the certificate file.
    pub manifest: PathBuf,
    /// The metric certified.
    pub metric: String,
    /// The exact reference it is held to.
    pub reference: String,
    /// Replications per Student-t, Wilson, Clopper–Pearson or control-
    /// variate interval.
    pub per: usize,
    /// t, bm, wilson, cp, precision, cv-one, cv-fitted.
    pub procedures: Vec<String>,
    /// The precision rule's relative half-width and looks (`precision`).
    pub precision: Option<RuleToml>,
    /// The control policy and its exact mean (`cv-one`, `cv-fitted`); the
    /// control's own points are run but not certified.
    pub control: Option<ControlToml>,
}

#[derive(Debug, Clone, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
/// An entry's precision rule (`precision`).
pub struct RuleToml {
    /// The target half-width, relative to the mean.
    pub rel_half_width: f64,
    /// Its first look (or pilot size).
    pub min: u32,
    /// Replications added per look.
    pub step: u32,
    /// The most replications.
    pub max: u32,
    /// "pilot", "stein" or "sequential" (the default here: the
    /// certificate's first entries measured the sequential rule, and their
    /// keys stay).
    #[serde(
        default = "sequential",
        skip_serializing_if = "lb_model::precision::Procedure::is_sequential"
    )]
    pub procedure: lb_model::precision::Procedure,
    /// The metric whose first stage chooses n, for the two-stage procedures
    /// only (default: the entry's own): the entry's metric is then a column
    /// the rule did not read, as a table's other columns are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
}

fn sequential() -> lb_model::precision::Procedure {
    lb_model::precision::Procedure::Sequential
}

#[derive(Debug, Clone, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
/// An entry's control variate (`cv-one`, `cv-fitted`).
pub struct ControlToml {
    /// The control policy's label.
    pub policy: String,
    /// The name of its exact mean.
    pub mean: String,
}

/// A certificate file read and checked: every entry's procedures parsed.
pub struct Certificate {
    /// The certificate file.
    pub path: PathBuf,
    /// Its contents.
    pub toml: CertificateToml,
}

/// What one entry certified, as kept in `results/coverage/`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct EntryRecord {
    /// The entry's key: SHA-256 of the entry, the level, the macro-
    /// replications and its points' keys (a changed manifest or model
    /// version makes a new record).
    pub key: String,
    /// The entry as the certificate states it.
    pub entry: EntryToml,
    /// The nominal level.
    pub level: f64,
    /// Macro-replications of each procedure.
    pub macros: usize,
    /// Each procedure's coverage, with its interval.
    pub coverages: Vec<Coverage>,
    /// Replications read, and the CPU seconds their records took.
    pub replications: usize,
    /// The CPU seconds their records took.
    pub cpu_seconds: f64,
    /// The commit the replications were computed at (their provenance),
    /// with whether any was computed from a modified tree.
    pub commits: Vec<String>,
    /// Whether any was computed from a modified tree.
    pub dirty: bool,
}

impl Certificate {
    /// Reads `path`; errors name the file, the entry and the field.
    pub fn read(path: &Path) -> Result<Certificate, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read the certificate: {e}", path.display()))?;
        let toml: CertificateToml =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let c = Certificate {
            path: path.to_path_buf(),
            toml,
        };
        let h = &c.toml.certificate;
        if !(h.level > 0.0 && h.level < 1.0) {
            return Err(format!(
                "{}: certificate.level must lie in (0, 1), got {}",
                path.display(),
                h.level
            )
            .into());
        }
        if h.macros == 0 {
            return Err(
                format!("{}: certificate.macros must be at least 1", path.display()).into(),
            );
        }
        for (i, e) in c.toml.entries.iter().enumerate() {
            c.procedures(e).map_err(|why| {
                format!(
                    "{}: entry {} ({}): {why}",
                    path.display(),
                    i + 1,
                    e.manifest.display()
                )
            })?;
        }
        Ok(c)
    }

    /// The manifest of an entry, as a path.
    pub fn manifest(&self, e: &EntryToml) -> PathBuf {
        self.path
            .parent()
            .unwrap_or(Path::new("."))
            .join(&e.manifest)
    }

    /// An entry's procedures, or what is wrong with them (the field named).
    pub fn procedures(&self, e: &EntryToml) -> Result<Vec<Procedure>, String> {
        if e.per < 2 {
            return Err(format!("per must be at least 2, got {}", e.per));
        }
        e.procedures
            .iter()
            .map(|p| {
                use lb_coverage::ProcedureWord as W;
                let allowed = || {
                    "allowed: t, bm, bm-test-batches, wilson, wilson-floored, cp, precision, \
                     two-stage, two-stage-t, cv-one, cv-fitted, t-skew, precision-skew"
                };
                let w: W = p
                    .parse()
                    .map_err(|e| format!("procedures: {e}; {}", allowed()))?;
                Ok(match w {
                    W::T => Procedure::StudentT { per: e.per },
                    W::TSkew => Procedure::SkewT { per: e.per },
                    W::Bm => Procedure::BatchMeans,
                    W::BmTestBatches => Procedure::BatchMeansTestBatches,
                    W::Wilson => Procedure::Wilson { per: e.per },
                    W::WilsonFloored => Procedure::WilsonFloored { per: e.per },
                    W::Cp => Procedure::ClopperPearson { per: e.per },
                    W::CvOne | W::CvFitted => {
                        if e.control.is_none() {
                            return Err(format!(
                                "procedures: {p} needs control = {{ policy = \"…\", mean = \"…\" }}"
                            ));
                        }
                        Procedure::ControlVariate {
                            per: e.per,
                            fitted: w == W::CvFitted,
                        }
                    }
                    W::Precision | W::PrecisionSkew | W::TwoStage | W::TwoStageT => {
                        let Some(r) = &e.precision else {
                            return Err(format!(
                                "procedures: {p} needs precision = {{ rel_half_width, min, \
                                 step, max }}"
                            ));
                        };
                        // With the entry's control, `precision` decides as a
                        // manifest's rule with that control does (its exact
                        // mean is the control point's, filled in there).
                        let control = e.control.as_ref().filter(|_| w == W::Precision).map(|c| {
                            lb_model::precision::RuleControl {
                                key: String::new(),
                                mean: c.mean.clone(),
                                exact: f64::NAN,
                            }
                        });
                        let rule = PrecisionRule {
                            metric: MetricName(e.metric.clone()),
                            rel_half_width: r.rel_half_width,
                            level: self.toml.certificate.level,
                            min: r.min,
                            max: r.max,
                            step: r.step,
                            procedure: r.procedure,
                            control,
                            also: Vec::new(),
                            settled_first: false,
                            control_only: false,
                        };
                        match (w, &r.metric) {
                            (W::Precision | W::PrecisionSkew, Some(by)) => {
                                return Err(format!(
                                    "precision.metric = \"{by}\": {p} chooses n on the \
                                     entry's own metric, only two-stage and two-stage-t on \
                                     another; drop `metric` from precision, or move the \
                                     two-stage procedures to an entry of their own"
                                ));
                            }
                            (W::Precision, None) => Procedure::PrecisionStopped { rule },
                            (W::PrecisionSkew, None) => Procedure::SkewPrecision { rule },
                            _ => Procedure::TwoStage {
                                rule,
                                stein: w == W::TwoStage,
                                chosen_by: r.metric.clone(),
                            },
                        }
                    }
                    W::Sequential | W::Stein => {
                        return Err(format!(
                            "procedures: {p} is a precision rule's procedure: write \
                             precision = {{ …, procedure = \"{p}\" }}; {}",
                            allowed()
                        ));
                    }
                })
            })
            .collect()
    }

    /// The directory of the entries' records in a cache.
    pub fn dir(cache: &Cache) -> PathBuf {
        cache.root().join("coverage")
    }

    /// The key of an entry at its loaded experiment.
    pub fn key(&self, e: &EntryToml, x: &Experiment) -> String {
        let keys: Vec<String> = x
            .plan
            .points
            .iter()
            .map(|pp| pp.point().key().hex())
            .collect();
        let body = serde_json::json!({
            "entry": e,
            "level": self.toml.certificate.level,
            "strict": self.toml.certificate.strict,
            "macros": self.toml.certificate.macros,
            "points": keys,
        });
        lb_store::provenance::sha256_hex(body.to_string().as_bytes())
    }

    /// The record of an entry, if the cache holds one at its current key.
    pub fn read_record(&self, cache: &Cache, e: &EntryToml) -> Result<Option<EntryRecord>, Error> {
        let x = lb_manifest::load(&self.manifest(e), Profile::Full)?;
        let key = self.key(e, &x);
        let path = Certificate::dir(cache).join(format!("{}.json", &key[..16]));
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(None);
        };
        let rec: EntryRecord = serde_json::from_str(&text)
            .map_err(|err| format!("{}: not a coverage record: {err}", path.display()))?;
        Ok((rec.key == key).then_some(rec))
    }
}

impl Certificate {
    /// Each entry with its record in `cache` (None: not yet certified), as
    /// the report reads them.
    pub fn views(&self, cache: &Cache) -> Result<Vec<lb_coverage::EntryView>, Error> {
        let mut views = Vec::new();
        for e in &self.toml.entries {
            let rec = self.read_record(cache, e)?;
            views.push(lb_coverage::EntryView {
                label: e.label.clone(),
                before: e.before,
                manifest: self.manifest(e).display().to_string(),
                replications: rec.as_ref().map_or(0, |r| r.replications),
                cpu_seconds: rec.as_ref().map_or(0.0, |r| r.cpu_seconds),
                coverages: rec.map(|r| r.coverages),
            });
        }
        Ok(views)
    }
}

/// Certifies every entry of `c` whose record is missing (or all, with
/// `again`): runs its replications in `scratch` (a cache of their own: a
/// certificate reads about 10⁵ replications, which the results directory
/// does not keep) and writes the entry's record to `cache`'s `coverage/`.
pub fn certify_all(
    cache: &Cache,
    scratch: &Cache,
    c: &Certificate,
    o: &RunOptions,
    again: bool,
    progress: &dyn Progress,
) -> Result<Vec<EntryRecord>, Error> {
    let mut out = Vec::new();
    for e in &c.toml.entries {
        if !again && let Some(rec) = c.read_record(cache, e)? {
            out.push(rec);
            continue;
        }
        let path = c.manifest(e);
        let x = lb_manifest::load(&path, Profile::Full)?;
        let spec = Spec {
            metric: e.metric.clone(),
            reference: e.reference.clone(),
            procedures: c.procedures(e)?,
            macros: c.toml.certificate.macros,
            level: c.toml.certificate.level,
            strict: c.toml.certificate.strict,
        };
        let o = RunOptions {
            threads: o.threads,
            force: o.force,
            shard: None,
            args: o.args.clone(),
            manifests: vec![path.clone()],
        };
        let done = certify_with(scratch, &x, &spec, e.control.as_ref(), &o, progress)?;
        let key = c.key(e, &x);
        let rec = EntryRecord {
            key: key.clone(),
            entry: e.clone(),
            level: spec.level,
            macros: spec.macros,
            coverages: done.coverages,
            replications: done.provenance.replications,
            cpu_seconds: done.provenance.cpu_seconds,
            commits: done.provenance.commits.into_iter().collect(),
            dirty: done.provenance.dirty,
        };
        let dir = Certificate::dir(cache);
        std::fs::create_dir_all(&dir)
            .map_err(|err| format!("{}: cannot create: {err}", dir.display()))?;
        let file = dir.join(format!("{}.json", &key[..16]));
        lb_store::cache::atomic_write(&file, serde_json::to_string_pretty(&rec)?.as_bytes())
            .map_err(|err| format!("{}: {err}", file.display()))?;
        out.push(rec);
    }
    // Records of entries that changed or went: no entry reads them.
    let keep: std::collections::BTreeSet<String> = out
        .iter()
        .map(|r| format!("{}.json", &r.key[..16]))
        .collect();
    let dir = Certificate::dir(cache);
    for f in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let name = f.file_name().to_string_lossy().to_string();
        if name.ends_with(".json") && !keep.contains(&name) {
            std::fs::remove_file(f.path())
                .map_err(|err| format!("{}: cannot remove: {err}", f.path().display()))?;
            progress.log(&format!(
                "removed {}: no entry of the certificate is at its key any more",
                f.path().display()
            ));
        }
    }
    Ok(out)
}

/// Where the replications a certificate read came from.
#[derive(Default)]
pub struct Sources {
    /// Replications read.
    pub replications: usize,
    /// The CPU seconds their records took.
    pub cpu_seconds: f64,
    /// The commits they were computed at.
    pub commits: std::collections::BTreeSet<String>,
    /// Whether any was computed from a modified tree.
    pub dirty: bool,
}

/// Where the shipped certificate lives.
pub(crate) const CERTIFICATE: &str = "experiments/coverage/certificate.toml";

/// Writes the certificate's section of the report under `out/coverage/`
/// from the records in `cache` (computing nothing: an entry without a
/// record is listed as not yet certified). Nothing when `path` is absent.
pub(crate) fn write_section(cache: &Cache, path: &Path, out: &Path) -> Result<Vec<PathBuf>, Error> {
    if !path.is_file() {
        return Ok(Vec::new());
    }
    let c = Certificate::read(path)?;
    let views = c.views(cache)?;
    let h = &c.toml.certificate;
    lb_coverage::write_report(
        &out.join("coverage"),
        &views,
        (h.level, h.strict, h.macros),
        "just certify",
    )
}

/// The interval procedures `lb coverage --procedures` names, each with `per`
/// replications or the precision `rule` it applies.
pub fn procedures(
    names: &[String],
    per: usize,
    rule: &lb_model::precision::PrecisionRule,
) -> Result<Vec<lb_coverage::Procedure>, String> {
    use lb_coverage::Procedure;
    use lb_model::precision::PrecisionRule;
    names
        .iter()
        .map(|p| {
            use lb_coverage::ProcedureWord as W;
            let allowed = "allowed: t, bm, wilson, cp, precision, sequential, stein, two-stage, \
                           two-stage-t, t-skew, precision-skew (control variates: a \
                           --certificate entry with a control)";
            let w: W = p
                .parse()
                .map_err(|e| format!("--procedures: {e}; {allowed}"))?;
            match w {
                W::T => Ok(Procedure::StudentT { per }),
                W::TSkew => Ok(Procedure::SkewT { per }),
                W::Bm => Ok(Procedure::BatchMeans),
                W::Wilson => Ok(Procedure::Wilson { per }),
                W::Precision => Ok(Procedure::PrecisionStopped { rule: rule.clone() }),
                W::PrecisionSkew => Ok(Procedure::SkewPrecision { rule: rule.clone() }),
                W::Sequential | W::Stein => Ok(Procedure::PrecisionStopped {
                    rule: PrecisionRule {
                        procedure: if w == W::Stein {
                            lb_model::precision::Procedure::Stein
                        } else {
                            lb_model::precision::Procedure::Sequential
                        },
                        ..rule.clone()
                    },
                }),
                W::Cp => Ok(Procedure::ClopperPearson { per }),
                W::TwoStage | W::TwoStageT => Ok(Procedure::TwoStage {
                    rule: rule.clone(),
                    stein: w == W::TwoStage,
                    chosen_by: None,
                }),
                W::BmTestBatches | W::WilsonFloored | W::CvOne | W::CvFitted => Err(format!(
                    "--procedures: \"{p}\" is read only from a --certificate entry; {allowed}"
                )),
            }
        })
        .collect()
}
