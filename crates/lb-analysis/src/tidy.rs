//! Tidy data: one row per observation, every variable a typed column.
//!
//! - [`experiment_frame`]: per experiment, one row per (point, metric) with
//!   the point's fixed parameters and sweep values as numbers, the estimate,
//!   its interval, the confidence level, n, the stability verdict and the
//!   key (`paper-figures/<experiment>/long.csv` and `long.parquet`).
//! - [`cache_frame`]: the whole cache, one row per (record, replication,
//!   metric) (`lb export`).
//!
//! Both are written as Parquet by [`write_parquet`] and read back by
//! [`read_parquet`] (and by pandas or polars: docs/CLI.md, "Tidy data").

use crate::metric::Metric;
use crate::results::PointResult;
use crate::stats::LEVEL;
use crate::table::{PointSummary, typed_column};
use lb_manifest::{Key, Param, Point};
use lb_store::cache::{Cache, Read};
use polars::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// One column per fixed parameter named in `rows` (in order of first
/// appearance), but those in `skip` (sweep axes, which have their own
/// columns), typed as sweep values are ([`typed_column`]): whole numbers
/// Int64, other numbers Float64, flags Boolean, text where any row has text.
fn parameter_columns(rows: &[Vec<(&'static str, Param)>], skip: &[String]) -> Vec<Column> {
    let mut names: Vec<&'static str> = Vec::new();
    for r in rows {
        for (n, _) in r {
            if !names.contains(n) && !skip.iter().any(|s| s == n) {
                names.push(n);
            }
        }
    }
    names
        .into_iter()
        .map(|name| {
            let vals: Vec<Option<String>> = rows
                .iter()
                .map(|r| {
                    r.iter().find(|(n, _)| *n == name).map(|(_, p)| match p {
                        // Rust's shortest round-trip form: parsed back exactly.
                        Param::Number(x) => x.to_string(),
                        Param::Flag(b) => b.to_string(),
                        Param::Text(t) => t.clone(),
                    })
                })
                .collect();
            typed_column(name, vals)
        })
        .collect()
}

/// The tidy table of one experiment: one row per (point, metric), points in
/// plan order, from the points' summaries over `metrics`
/// ([`crate::table::point_summaries`]).
///
/// Columns: `experiment`, `policy`, the fixed parameters (`servers`, `load`,
/// …, as numbers), one per sweep axis (typed), `p_hat` (where a point has
/// one), `metric`, `mean`, `half_width` (Student-t, real metrics), `lo`,
/// `hi`, `interval` (how it was made), `level`, `n`, `stability`, `key`. A
/// steady-state metric at an unstable point has no mean (`stability` says
/// why); a point not computed yet has n = 0.
pub fn experiment_frame(
    experiment: &str,
    results: &[PointResult],
    sums: &[PointSummary],
    metrics: &[Metric],
) -> PolarsResult<DataFrame> {
    let axes: Vec<String> = results
        .first()
        .map(|r| r.axes.iter().map(|(a, _)| a.clone()).collect())
        .unwrap_or_default();
    let rows = results.len() * metrics.len();
    let mut params = Vec::with_capacity(rows);
    let mut axis_vals: Vec<Vec<Option<String>>> = vec![Vec::with_capacity(rows); axes.len()];
    let (mut policy, mut p_hat, mut metric) = (Vec::new(), Vec::new(), Vec::new());
    let (mut mean, mut hw, mut lo, mut hi, mut kind) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut n, mut stability, mut key) = (Vec::new(), Vec::new(), Vec::new());
    for (r, s) in results.iter().zip(sums) {
        let ps = r
            .point
            .as_ref()
            .map(|p| p.config.parameters())
            .unwrap_or_default();
        for (m, c) in metrics.iter().zip(&s.cells) {
            params.push(ps.clone());
            for (j, (_, v)) in r.axes.iter().enumerate() {
                axis_vals[j].push(Some(v.clone()));
            }
            policy.push(r.label.clone());
            p_hat.push(r.point.as_ref().and_then(|p| p.p_hat()));
            metric.push(m.name());
            mean.push(c.map(|c| c.mean));
            hw.push(c.and_then(|c| c.half_width));
            lo.push(c.and_then(|c| c.lo));
            hi.push(c.and_then(|c| c.hi));
            kind.push(c.map(|c| c.interval));
            n.push(s.n);
            stability.push((!s.stability.is_empty()).then_some(s.stability));
            key.push(r.key.as_ref().map(|k| k.hex()));
        }
    }
    let mut cols = vec![
        Column::new("experiment".into(), vec![experiment; policy.len()]),
        Column::new("policy".into(), policy),
    ];
    cols.extend(parameter_columns(&params, &axes));
    for (a, v) in axes.iter().zip(axis_vals) {
        cols.push(typed_column(a, v));
    }
    if !axes.iter().any(|a| a == "p_hat") && p_hat.iter().any(Option::is_some) {
        cols.push(Column::new("p_hat".into(), p_hat));
    }
    let level = vec![LEVEL; metric.len()];
    cols.extend([
        Column::new("metric".into(), metric),
        Column::new("mean".into(), mean),
        Column::new("half_width".into(), hw),
        Column::new("lo".into(), lo),
        Column::new("hi".into(), hi),
        Column::new("interval".into(), kind),
        Column::new("level".into(), level),
        Column::new("n".into(), n),
        Column::new("stability".into(), stability),
        Column::new("key".into(), key),
    ]);
    DataFrame::new_infer_height(cols)
}

/// The whole cache as one tidy frame: one row per (point record, valid
/// replication, metric of its model). `experiments` names, per key, the
/// experiments whose manifests plan it (a key no manifest plans has none).
///
/// Columns: `experiment` (names joined by `;`), `model`, `model_version`,
/// `profile`, `policy`, the fixed parameters of every model (null where a
/// model has no such parameter), `p_hat`, `replication`, `stable`, `metric`,
/// `value`, `key`. Damaged records are left out and counted in the second
/// value returned.
pub fn cache_frame(
    cache: &Cache,
    experiments: &BTreeMap<Key, Vec<String>>,
) -> PolarsResult<(DataFrame, usize)> {
    let mut params = Vec::new();
    let (mut exp, mut model, mut version, mut profile, mut policy, mut p_hat) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    let (mut rep, mut stable, mut metric, mut value, mut key) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut damaged = 0;
    for (k, _) in cache.keys() {
        let point: Point = match cache.read_point(&k) {
            Read::Valid(rec) => rec.point,
            Read::Damaged(_) => {
                damaged += 1;
                continue;
            }
            // Calibration records and points not yet written.
            Read::Missing => continue,
        };
        let ps = point.config.parameters();
        let names = experiments.get(&k).map(|e| e.join(";"));
        let metrics = Metric::all(point.model);
        for r in cache.replication_files(&k) {
            let s = match cache.read_replication(&k, r) {
                Read::Valid(rec) => rec.summary,
                Read::Damaged(_) => {
                    damaged += 1;
                    continue;
                }
                Read::Missing => continue,
            };
            for m in &metrics {
                params.push(ps.clone());
                exp.push(names.clone());
                model.push(point.model.name());
                version.push(point.model_version);
                profile.push(point.profile.name());
                policy.push(point.policy_name());
                p_hat.push(point.p_hat());
                rep.push(r);
                stable.push(s.stable());
                metric.push(m.name());
                value.push(m.value(&point, &s));
                key.push(k.hex());
            }
        }
    }
    let mut cols = vec![
        Column::new("experiment".into(), exp),
        Column::new("model".into(), model),
        Column::new("model_version".into(), version),
        Column::new("profile".into(), profile),
        Column::new("policy".into(), policy),
    ];
    cols.extend(parameter_columns(&params, &[]));
    cols.extend([
        Column::new("p_hat".into(), p_hat),
        Column::new("replication".into(), rep),
        Column::new("stable".into(), stable),
        Column::new("metric".into(), metric),
        Column::new("value".into(), value),
        Column::new("key".into(), key),
    ]);
    Ok((DataFrame::new_infer_height(cols)?, damaged))
}

/// Parquet bytes of a frame (zstd-compressed; the same frame gives the same
/// bytes, so unchanged tables are not rewritten).
pub fn parquet(df: &DataFrame) -> PolarsResult<Vec<u8>> {
    let mut buf = Vec::new();
    ParquetWriter::new(&mut buf).finish(&mut df.clone())?;
    Ok(buf)
}

/// Writes a frame as a Parquet file.
pub fn write_parquet(df: &DataFrame, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let bytes = parquet(df)?;
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}

/// Reads a Parquet file written by [`write_parquet`].
pub fn read_parquet(path: &Path) -> Result<DataFrame, Box<dyn std::error::Error>> {
    let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(ParquetReader::new(f).finish()?)
}
