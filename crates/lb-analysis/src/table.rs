//! Tables of mean ± 95% half-width per (policy, axis values) (issue 4).
//!
//! The records of an experiment are loaded into a long polars DataFrame, one
//! row per (point, replication) with the point's key; the summary table is
//! built from its partitions, one row per point. Both are written as CSV, and
//! the summary also as Markdown and JSON. Columns are documented in
//! [`COLUMNS`].

use crate::metric::Metric;
use crate::results::PointResult;
use crate::stats::{LEVEL, MetricKind, batch_means, estimate, interval, mser};
use polars::prelude::*;

/// The columns of a summary table, for `lb table --help` and the docs.
pub const COLUMNS: &str = "\
policy          the policy's label in the manifest
<axis>          one column per sweep axis (load, epsilon_frac, count_own, p_hat, …)
p_hat           the update probability p̂ used (calibrated to a message budget where the manifest asks)
n               replications present in the cache; needed: replications the plan asks for
stable          replications judged stable (SPEC §1: no significant growth of ΣQ over the second half)
<metric>        mean over replications; <metric>_hw: half-width of its 95% Student-t interval (empty when n < 2)
                a fraction or proportion (values in [0, 1]) has <metric>_lo, <metric>_hi instead, and
                <metric>_interval: wilson (events pooled over replications, Wilson interval on the
                effective number of trials), upper-bound (no event seen: 0, with the one-sided 95%
                Clopper-Pearson bound as _hi), student-t, student-t-clipped (cut to [0, 1]),
                none-seen (a fraction that was 0 in every replication), single (n = 1)
<metric>_events, <metric>_trials   (per replication, proportions) the counts behind the proportion
bm_lag1         worst |lag-1 autocorrelation| of within-run batch means of ΣQ; bm_ok: all within 2/√k
mser_cut        largest fraction of a run's measured window that MSER-5 would still cut as warm-up
key             the point's key (lb show KEY); every replication's record is under it";

/// The long frame: one row per (point, replication).
pub fn replications_frame(
    experiment: &str,
    results: &[PointResult],
    metrics: &[Metric],
) -> PolarsResult<DataFrame> {
    let axes = axis_names(results);
    let mut point_idx = Vec::new();
    let mut exp = Vec::new();
    let mut policy = Vec::new();
    let mut axis_vals: Vec<Vec<String>> = vec![Vec::new(); axes.len()];
    let mut p_hat = Vec::new();
    let mut rep = Vec::new();
    let mut key = Vec::new();
    let mut stable = Vec::new();
    let mut lag1 = Vec::new();
    let mut bm_ok = Vec::new();
    let mut cut = Vec::new();
    let mut vals: Vec<Vec<Option<f64>>> = vec![Vec::new(); metrics.len()];
    let mut counts: Vec<Vec<(Option<u64>, Option<u64>)>> = vec![Vec::new(); metrics.len()];
    for (i, r) in results.iter().enumerate() {
        let (Some(point), Some(k)) = (&r.point, &r.key) else {
            continue;
        };
        for s in &r.summaries {
            point_idx.push(i as u32);
            exp.push(experiment.to_string());
            policy.push(r.label.clone());
            for (j, (_, v)) in r.axes.iter().enumerate() {
                axis_vals[j].push(v.clone());
            }
            p_hat.push(point.p_hat());
            rep.push(s.replication());
            key.push(k.hex());
            stable.push(s.stable());
            let bm = batch_means(s.trace());
            lag1.push(bm.lag1.abs());
            bm_ok.push(bm.independent);
            cut.push(mser(s.trace()) as f64 / s.trace().len() as f64);
            for (j, m) in metrics.iter().enumerate() {
                vals[j].push(m.value(point, s));
                let c = s.counts(m.name());
                counts[j].push((c.map(|c| c.0), c.map(|c| c.1)));
            }
        }
    }
    let mut cols = vec![
        Column::new("point".into(), point_idx),
        Column::new("experiment".into(), exp),
    ];
    cols.extend(identity(policy, &axes, axis_vals, p_hat));
    cols.push(Column::new("replication".into(), rep));
    cols.push(Column::new("stable".into(), stable));
    cols.push(Column::new("bm_lag1".into(), lag1));
    cols.push(Column::new("bm_ok".into(), bm_ok));
    cols.push(Column::new("mser_cut".into(), cut));
    for ((m, v), c) in metrics.iter().zip(vals).zip(counts) {
        cols.push(Column::new(m.name().into(), v));
        if m.kind() == MetricKind::Proportion {
            let (e, t): (Vec<Option<u64>>, Vec<Option<u64>>) = c.into_iter().unzip();
            cols.push(Column::new(format!("{}_events", m.name()).into(), e));
            cols.push(Column::new(format!("{}_trials", m.name()).into(), t));
        }
    }
    cols.push(Column::new("key".into(), key));
    DataFrame::new_infer_height(cols)
}

/// The sweep axes of a plan's results, in plan order.
fn axis_names(results: &[PointResult]) -> Vec<String> {
    results
        .first()
        .map(|r| r.axes.iter().map(|(a, _)| a.clone()).collect())
        .unwrap_or_default()
}

/// The columns that say which point a row is: policy, one per axis, p̂ (a
/// swept p̂ is already an axis column).
fn identity(
    policy: Vec<String>,
    axes: &[String],
    axis_vals: Vec<Vec<String>>,
    p_hat: Vec<Option<f64>>,
) -> Vec<Column> {
    let mut cols = vec![Column::new("policy".into(), policy)];
    for (a, v) in axes.iter().zip(axis_vals) {
        cols.push(Column::new(a.as_str().into(), v));
    }
    if !axes.iter().any(|a| a == "p_hat") {
        cols.push(Column::new("p_hat".into(), p_hat));
    }
    cols
}

fn f64s(df: &DataFrame, name: &str) -> PolarsResult<Vec<f64>> {
    Ok(df.column(name)?.f64()?.iter().flatten().collect())
}

/// The summary table: one row per point, from the partitions of the long
/// frame. Points with no records yet appear with n = 0.
pub fn summary_frame(
    results: &[PointResult],
    long: &DataFrame,
    metrics: &[Metric],
) -> PolarsResult<DataFrame> {
    let axes = axis_names(results);
    let parts = if long.height() > 0 {
        long.partition_by_stable(["point"], true)?
    } else {
        Vec::new()
    };
    let mut by_point: Vec<Option<&DataFrame>> = vec![None; results.len()];
    for p in &parts {
        let i = p
            .column("point")?
            .u32()?
            .get(0)
            .expect("non-empty partition") as usize;
        by_point[i] = Some(p);
    }
    let mut policy = Vec::new();
    let mut axis_vals: Vec<Vec<String>> = vec![Vec::new(); axes.len()];
    let (mut p_hat, mut n, mut needed, mut stable) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut means: Vec<Vec<Option<f64>>> = vec![Vec::new(); metrics.len()];
    let mut hws: Vec<Vec<Option<f64>>> = vec![Vec::new(); metrics.len()];
    let mut los: Vec<Vec<Option<f64>>> = vec![Vec::new(); metrics.len()];
    let mut his: Vec<Vec<Option<f64>>> = vec![Vec::new(); metrics.len()];
    let mut kinds: Vec<Vec<Option<String>>> = vec![Vec::new(); metrics.len()];
    let (mut lag1, mut bm_ok, mut cut, mut key) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (r, part) in results.iter().zip(by_point) {
        policy.push(r.label.clone());
        for (j, (_, v)) in r.axes.iter().enumerate() {
            axis_vals[j].push(v.clone());
        }
        p_hat.push(r.point.as_ref().and_then(|p| p.p_hat()));
        needed.push(r.needed);
        key.push(r.key.as_ref().map(|k| k.hex()));
        let Some(df) = part else {
            n.push(0u32);
            stable.push(0u32);
            for j in 0..metrics.len() {
                means[j].push(None);
                hws[j].push(None);
                los[j].push(None);
                his[j].push(None);
                kinds[j].push(None);
            }
            lag1.push(None);
            bm_ok.push(None);
            cut.push(None);
            continue;
        };
        n.push(df.height() as u32);
        stable.push(
            df.column("stable")?
                .bool()?
                .iter()
                .flatten()
                .filter(|&b| b)
                .count() as u32,
        );
        for (j, m) in metrics.iter().enumerate() {
            let xs = f64s(df, m.name())?;
            if m.kind() == MetricKind::Real {
                let (mean, hw) = match xs.len() {
                    0 => (None, None),
                    1 => (Some(xs[0]), None),
                    _ => {
                        let iv = interval(&xs, LEVEL);
                        (Some(iv.mean), Some(iv.half_width))
                    }
                };
                means[j].push(mean);
                hws[j].push(hw);
                los[j].push(None);
                his[j].push(None);
                kinds[j].push(None);
                continue;
            }
            let counts: Option<Vec<(u64, u64)>> = if m.kind() == MetricKind::Proportion {
                let e = df.column(&format!("{}_events", m.name()))?.u64()?.clone();
                let t = df.column(&format!("{}_trials", m.name()))?.u64()?.clone();
                e.iter()
                    .zip(t.iter())
                    .map(|(e, t)| Some((e?, t?)))
                    .collect()
            } else {
                None
            };
            let est = estimate(m.kind(), &xs, counts.as_deref(), LEVEL);
            means[j].push(est.map(|e| e.mean));
            hws[j].push(None);
            los[j].push(est.and_then(|e| e.lo));
            his[j].push(est.and_then(|e| e.hi));
            kinds[j].push(est.map(|e| e.kind.word().to_string()));
        }
        lag1.push(f64s(df, "bm_lag1")?.into_iter().reduce(f64::max));
        bm_ok.push(Some(
            df.column("bm_ok")?.bool()?.iter().flatten().all(|b| b),
        ));
        cut.push(f64s(df, "mser_cut")?.into_iter().reduce(f64::max));
    }
    let mut cols = identity(policy, &axes, axis_vals, p_hat);
    cols.push(Column::new("n".into(), n));
    cols.push(Column::new("needed".into(), needed));
    cols.push(Column::new("stable".into(), stable));
    for (j, m) in metrics.iter().enumerate() {
        cols.push(Column::new(m.name().into(), std::mem::take(&mut means[j])));
        if m.kind() == MetricKind::Real {
            cols.push(Column::new(
                format!("{}_hw", m.name()).into(),
                std::mem::take(&mut hws[j]),
            ));
        } else {
            cols.push(Column::new(
                format!("{}_lo", m.name()).into(),
                std::mem::take(&mut los[j]),
            ));
            cols.push(Column::new(
                format!("{}_hi", m.name()).into(),
                std::mem::take(&mut his[j]),
            ));
            cols.push(Column::new(
                format!("{}_interval", m.name()).into(),
                std::mem::take(&mut kinds[j]),
            ));
        }
    }
    cols.push(Column::new("bm_lag1".into(), lag1));
    cols.push(Column::new("bm_ok".into(), bm_ok));
    cols.push(Column::new("mser_cut".into(), cut));
    cols.push(Column::new("key".into(), key));
    DataFrame::new_infer_height(cols)
}

/// CSV text of a frame.
pub fn csv(df: &DataFrame) -> PolarsResult<String> {
    let mut buf = Vec::new();
    CsvWriter::new(&mut buf)
        .include_header(true)
        .finish(&mut df.clone())?;
    Ok(String::from_utf8(buf).expect("CSV is UTF-8"))
}

/// A number with `sig` significant digits, no exponent for ordinary sizes
/// (an exponent below 10⁻⁴: 2.54e-6).
pub fn fmt_sig(x: f64, sig: usize) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let mag = x.abs().log10().floor() as i32;
    if mag < -4 {
        return format!("{:.*e}", sig.saturating_sub(1), x);
    }
    let decimals = (sig as i32 - 1 - mag).max(0) as usize;
    format!("{x:.decimals$}")
}

fn cell(c: &Column, i: usize) -> PolarsResult<String> {
    Ok(match c.get(i)? {
        AnyValue::Null => String::new(),
        AnyValue::Float64(x) => fmt_sig(x, 4),
        AnyValue::String(s) => s.to_string(),
        AnyValue::StringOwned(s) => s.to_string(),
        v => v.to_string(),
    })
}

/// Markdown: `metric` and `metric_hw` columns are printed as one
/// "mean ± hw" cell; keys are shortened to 12 hex digits (`lb show` takes a
/// prefix).
pub fn markdown(df: &DataFrame) -> PolarsResult<String> {
    let names: Vec<String> = df
        .get_column_names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    let paired = |n: &String, suffix: &str| {
        n.strip_suffix(suffix)
            .is_some_and(|base| names.contains(&base.to_string()))
    };
    let shown: Vec<&String> = names
        .iter()
        .filter(|n| {
            !["_hw", "_lo", "_hi", "_interval"]
                .iter()
                .any(|s| paired(n, s))
        })
        .collect();
    let mut out = String::new();
    out.push_str(&format!(
        "| {} |\n",
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(" | ")
    ));
    out.push_str(&format!("|{}\n", " --- |".repeat(shown.len())));
    for i in 0..df.height() {
        let mut cells = Vec::new();
        for name in &shown {
            let c = df.column(name)?;
            let mut s = cell(c, i)?;
            let hw_name = format!("{name}_hw");
            if let Ok(hw) = df.column(&hw_name)
                && let AnyValue::Float64(h) = hw.get(i)?
            {
                s = format!("{s} ± {}", fmt_sig(h, 2));
            }
            if let Ok(kind) = df.column(&format!("{name}_interval")) {
                let f = |suffix: &str| -> PolarsResult<Option<f64>> {
                    Ok(match df.column(&format!("{name}_{suffix}"))?.get(i)? {
                        AnyValue::Float64(x) => Some(x),
                        _ => None,
                    })
                };
                let (lo, hi) = (f("lo")?, f("hi")?);
                let kind = match kind.get(i)? {
                    AnyValue::String(k) => k.to_string(),
                    AnyValue::StringOwned(k) => k.to_string(),
                    _ => String::new(),
                };
                s = match (kind.as_str(), lo, hi) {
                    ("upper-bound", _, Some(h)) => format!("0 (≤ {})", fmt_sig(h, 2)),
                    ("none-seen", _, _) => "0 (none seen)".to_string(),
                    (_, Some(l), Some(h)) => {
                        format!("{s} [{}, {}]", fmt_sig(l, 3), fmt_sig(h, 3))
                    }
                    _ => s,
                };
            }
            if name.as_str() == "key" && s.len() > 12 {
                s.truncate(12);
            }
            cells.push(s);
        }
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    Ok(out)
}

/// JSON: an array of row objects (nulls kept).
pub fn json(df: &DataFrame) -> PolarsResult<String> {
    let names: Vec<String> = df
        .get_column_names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut rows = Vec::new();
    for i in 0..df.height() {
        let mut obj = serde_json::Map::new();
        for name in &names {
            let v = match df.column(name)?.get(i)? {
                AnyValue::Null => serde_json::Value::Null,
                AnyValue::Boolean(b) => b.into(),
                AnyValue::Float64(x) => serde_json::Number::from_f64(x)
                    .map(serde_json::Value::Number)
                    .unwrap_or(serde_json::Value::Null),
                AnyValue::UInt32(x) => x.into(),
                AnyValue::UInt64(x) => x.into(),
                AnyValue::String(s) => s.into(),
                AnyValue::StringOwned(s) => s.to_string().into(),
                v => v.to_string().into(),
            };
            obj.insert(name.clone(), v);
        }
        rows.push(serde_json::Value::Object(obj));
    }
    Ok(serde_json::to_string_pretty(&rows).expect("JSON") + "\n")
}
