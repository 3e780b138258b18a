//! Tables of mean ± 95% half-width per (policy, axis values).
//!
//! The records of an experiment are loaded into a long polars DataFrame, one
//! row per (point, replication) with the point's key; the summary table is
//! built from its partitions, one row per point. Both are written as CSV, and
//! the summary also as Markdown and JSON. Columns are documented in
//! [`COLUMNS`].

use crate::metric::Metric;
use crate::results::{PointResult, axis_names};
use crate::stats::{IntervalKind, LEVEL, MetricKind, batch_means, estimate, interval_of, mser};
use lb_core::stability::PointStability;
use polars::prelude::*;

/// The columns of a summary table, for `lb table --help` and the docs.
pub const COLUMNS: &str = "\
table.csv, table.md, table.json: one row per point
policy          the policy's label in the manifest
<axis>          one column per sweep axis (load, epsilon_frac, count_own, p_hat, …), numbers as numbers
p_hat           the update probability p̂ used, where a policy has one (calibrated to a message budget
                where the manifest asks)
n               replications present in the cache; needed: replications the plan asks for
stable          replications judged stable (no significant growth of ΣQ over the second half of the run)
stability       stable (no more replications flagged by the trend test than its 2% false alarms allow),
                unstable (most flagged and ΣQ growing at a steady rate through the run: divergence;
                steady-state metrics are left empty, Markdown says unstable), rising (flagged, but the
                growth slowing: a run that has not relaxed, not divergence; it has not settled)
<metric>        mean over replications; <metric>_hw: half-width of its 95% Student-t interval (empty when n < 2)
                a fraction or proportion (values in [0, 1]) has <metric>_lo, <metric>_hi instead, and
                <metric>_interval: wilson (events pooled over replications, Wilson interval on the
                effective number of trials), upper-bound (no event seen: 0, with the one-sided 95%
                Clopper-Pearson bound as _hi), student-t, student-t-clipped (cut to [0, 1]),
                none-seen (a fraction that was 0 in every replication), single (n = 1)
                only the metrics that apply appear: a metric no point defines is left out, and
                eps_sum_q and zeta_ratio appear only in heavy-traffic sweeps (epsilon, epsilon_frac)
bm_lag1         worst |lag-1 autocorrelation| of within-run batch means of ΣQ; bm_ok: all within 2/√k
mser_cut        largest fraction of a run's measured window that MSER-5 would still cut as warm-up
settled         yes, or no: ≥×k (the runs have not settled — MSER-5 at its cap or batch means still
                correlated in more replications than chance allows — and runs at least k times as long
                are needed), or no: rising, ≥×k (ΣQ still rising but slowing: a transient; at least k
                times as long is needed to settle it or show it diverging); a point not settled decides
                no claim
key             the point's key (lb show KEY); every replication's record is under it

replications.csv: one row per (point, replication): point (row index), experiment, the point's
columns above, replication, stable (this replication), bm_lag1, bm_ok, mser_cut, every metric,
<metric>_events and <metric>_trials (proportions: the counts behind them), key

long.csv, long.parquet: one row per (point, metric), tidy
experiment, policy; the point's fixed parameters (slotted: dispatchers M, servers N, lambda_sum λ_Σ,
mu_sum μ_Σ, load ρ, epsilon ε, zeta ζ, arrivals and service laws, granularity, count_own, slots,
warmup; many-server: servers N, lambda λ, buffer b, horizon, warmup; networks: buffers, stations,
activities, lambda_sum, load of the first workload resource, horizon, warmup), a parameter that is
also a sweep axis given once as the axis; the sweep axes; p_hat; metric; mean; half_width
(Student-t, real metrics); lo, hi (the interval, every kind); interval (how it was made); level
(0.95); n; stability; key";

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

/// The columns that say which point a row is: policy, one per axis (typed:
/// numbers as numbers), p̂ where some point has one (a swept p̂ is already an
/// axis column).
fn identity(
    policy: Vec<String>,
    axes: &[String],
    axis_vals: Vec<Vec<String>>,
    p_hat: Vec<Option<f64>>,
) -> Vec<Column> {
    let mut cols = vec![Column::new("policy".into(), policy)];
    for (a, v) in axes.iter().zip(axis_vals) {
        cols.push(typed_column(a, v.into_iter().map(Some).collect()));
    }
    if !axes.iter().any(|a| a == "p_hat") && p_hat.iter().any(Option::is_some) {
        cols.push(Column::new("p_hat".into(), p_hat));
    }
    cols
}

/// A column of values written as text (sweep values): integers, numbers or
/// booleans when every value reads as one, else text.
pub(crate) fn typed_column(name: &str, values: Vec<Option<String>>) -> Column {
    let present = || values.iter().flatten();
    if present().all(|v| v.parse::<i64>().is_ok()) {
        let v: Vec<Option<i64>> = values.iter().map(|v| v.as_ref()?.parse().ok()).collect();
        Column::new(name.into(), v)
    } else if present().all(|v| v.parse::<f64>().is_ok()) {
        let v: Vec<Option<f64>> = values.iter().map(|v| v.as_ref()?.parse().ok()).collect();
        Column::new(name.into(), v)
    } else if present().all(|v| v == "true" || v == "false") {
        let v: Vec<Option<bool>> = values
            .iter()
            .map(|v| v.as_ref().map(|v| v == "true"))
            .collect();
        Column::new(name.into(), v)
    } else {
        Column::new(name.into(), values)
    }
}

fn f64s(df: &DataFrame, name: &str) -> PolarsResult<Vec<f64>> {
    Ok(df.column(name)?.f64()?.iter().flatten().collect())
}

/// A metric's estimate at one point: mean, Student-t half-width (real
/// metrics), interval [lo, hi] and how it was made.
#[derive(Debug, Clone, Copy)]
pub struct Cell {
    /// The mean.
    pub mean: f64,
    /// The Student-t half-width, for a real metric.
    pub half_width: Option<f64>,
    /// The interval's lower end.
    pub lo: Option<f64>,
    /// Its upper end.
    pub hi: Option<f64>,
    /// How the interval was made, in the table's words.
    pub interval: &'static str,
}

/// What the summary table says of one point.
#[derive(Debug, Clone)]
pub struct PointSummary {
    /// Replications read, and how many of them were judged stable.
    pub n: u32,
    /// (See `n`.)
    pub stable: u32,
    /// `stable` (no more replications flagged than the trend test's false
    /// alarms allow), `unstable` (most flagged, growing at a steady rate:
    /// divergence), `rising` (flagged, but slowing: not relaxed yet), or
    /// empty with no replication
    /// ([`lb_core::stability::point_stability`]).
    pub stability: &'static str,
    /// One per metric; None where undefined, and for steady-state metrics at
    /// an unstable point (its numbers describe no steady state).
    pub cells: Vec<Option<Cell>>,
    /// The worst |lag-1 autocorrelation| of within-run batch means of ΣQ.
    pub bm_lag1: Option<f64>,
    /// Whether every replication's is within 2/√k (k batches).
    pub bm_ok: Option<bool>,
    /// The largest fraction of a run's measured window MSER-5 would still
    /// cut as warm-up.
    pub mser_cut: Option<f64>,
    /// Where the experiment's precision rule reads a control variate that
    /// pairs here: the control and the fitted β, and the cells of the
    /// metrics it has an exact mean of are its control-variate intervals
    /// ([`with_control`]).
    pub control: Option<String>,
}

/// Reads a point's summary from its partition of the long frame.
/// `first`: the point's first stage under Stein's precision rule, whose
/// intervals read their variance there ([`crate::stats::estimate`]).
fn point_summary(
    df: Option<&DataFrame>,
    metrics: &[Metric],
    r: &PointResult,
) -> PolarsResult<PointSummary> {
    let first = r.first_stage;
    let Some(df) = df else {
        return Ok(PointSummary {
            n: 0,
            stable: 0,
            stability: "",
            cells: vec![None; metrics.len()],
            bm_lag1: None,
            bm_ok: None,
            mser_cut: None,
            control: None,
        });
    };
    let n = df.height() as u32;
    let stable = df
        .column("stable")?
        .bool()?
        .iter()
        .flatten()
        .filter(|&b| b)
        .count() as u32;
    let stability = match lb_model::config::point_stability(&r.summaries).0 {
        PointStability::Stable => "stable",
        PointStability::Unstable => "unstable",
        PointStability::Rising => "rising",
    };
    let mut cells = Vec::with_capacity(metrics.len());
    for m in metrics {
        if stability == "unstable" && !m.transient() {
            cells.push(None);
            continue;
        }
        let xs = f64s(df, m.name())?;
        let cell = if m.kind() == MetricKind::Real {
            match xs.len() {
                0 => None,
                1 => Some(Cell {
                    mean: xs[0],
                    half_width: None,
                    lo: None,
                    hi: None,
                    interval: "single",
                }),
                _ => {
                    let iv = interval_of(&xs, first, LEVEL);
                    Some(Cell {
                        mean: iv.mean,
                        half_width: Some(iv.half_width),
                        lo: Some(iv.mean - iv.half_width),
                        hi: Some(iv.mean + iv.half_width),
                        interval: IntervalKind::t_on(first, xs.len()).word(),
                    })
                }
            }
        } else {
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
            estimate(m.kind(), &xs, counts.as_deref(), first, LEVEL).map(|e| Cell {
                mean: e.mean,
                half_width: None,
                lo: e.lo,
                hi: e.hi,
                interval: e.kind.word(),
            })
        };
        cells.push(cell);
    }
    Ok(PointSummary {
        n,
        stable,
        stability,
        cells,
        bm_lag1: f64s(df, "bm_lag1")?.into_iter().reduce(f64::max),
        bm_ok: Some(df.column("bm_ok")?.bool()?.iter().flatten().all(|b| b)),
        mser_cut: f64s(df, "mser_cut")?.into_iter().reduce(f64::max),
        control: None,
    })
}

/// Replaces, at each point whose precision rule pairs it with a control
/// variate, the cells of the metrics the control has an exact mean of by
/// their control-variate intervals (β fitted): what the rule decided the
/// point's precision on ([`crate::paired::controlled`]).
fn with_control(sums: &mut [PointSummary], results: &[PointResult], metrics: &[Metric]) {
    for (s, r) in sums.iter_mut().zip(results) {
        for (j, m) in metrics.iter().enumerate() {
            if s.cells[j].is_none() {
                continue;
            }
            if let Some(c) = crate::paired::controlled(*m, r) {
                let e = c.estimate;
                s.cells[j] = Some(Cell {
                    mean: e.mean,
                    half_width: e.half_width(),
                    lo: e.lo,
                    hi: e.hi,
                    interval: e.kind.word(),
                });
                s.control = Some(format!("{} (β = {})", c.control, fmt_sig(c.beta, 3)));
            }
        }
    }
}

/// Every point's summary, in plan order, from the long frame; a point its
/// precision rule pairs with a control variate carries the control-variate
/// intervals ([`with_control`]).
pub fn point_summaries(
    results: &[PointResult],
    long: &DataFrame,
    metrics: &[Metric],
) -> PolarsResult<Vec<PointSummary>> {
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
    let mut sums = by_point
        .into_iter()
        .zip(results)
        .map(|(df, r)| point_summary(df, metrics, r))
        .collect::<PolarsResult<Vec<_>>>()?;
    with_control(&mut sums, results, metrics);
    Ok(sums)
}

/// The summary table: one row per point, from the points' summaries
/// ([`point_summaries`]). Points with no records yet appear with n = 0. A
/// metric no point defines is left out.
pub fn summary_frame(
    results: &[PointResult],
    sums: &[PointSummary],
    metrics: &[Metric],
) -> PolarsResult<DataFrame> {
    let axes = axis_names(results);
    let mut policy = Vec::new();
    let mut axis_vals: Vec<Vec<String>> = vec![Vec::new(); axes.len()];
    let (mut p_hat, mut needed, mut key) = (Vec::new(), Vec::new(), Vec::new());
    for r in results {
        policy.push(r.label.clone());
        for (j, (_, v)) in r.axes.iter().enumerate() {
            axis_vals[j].push(v.clone());
        }
        p_hat.push(r.point.as_ref().and_then(|p| p.p_hat()));
        needed.push(r.needed);
        key.push(r.key.as_ref().map(|k| k.hex()));
    }
    let mut cols = identity(policy, &axes, axis_vals, p_hat);
    cols.push(Column::new(
        "n".into(),
        sums.iter().map(|s| s.n).collect::<Vec<_>>(),
    ));
    cols.push(Column::new("needed".into(), needed));
    cols.push(Column::new(
        "stable".into(),
        sums.iter().map(|s| s.stable).collect::<Vec<_>>(),
    ));
    cols.push(Column::new(
        "stability".into(),
        sums.iter()
            .map(|s| (!s.stability.is_empty()).then_some(s.stability))
            .collect::<Vec<_>>(),
    ));
    if sums.iter().any(|s| s.control.is_some()) {
        cols.push(Column::new(
            "control".into(),
            sums.iter().map(|s| s.control.clone()).collect::<Vec<_>>(),
        ));
    }
    for (j, m) in metrics.iter().enumerate() {
        let cells: Vec<Option<Cell>> = sums.iter().map(|s| s.cells[j]).collect();
        // A metric this experiment's points do not define (none gave a
        // value, and not because a point did not settle) is no column.
        let has_data = sums.iter().any(|s| s.n > 0);
        if has_data
            && cells
                .iter()
                .zip(sums)
                .all(|(c, s)| c.is_none() && s.stability != "unstable")
        {
            continue;
        }
        let col = |f: fn(&Cell) -> Option<f64>| -> Vec<Option<f64>> {
            cells.iter().map(|c| c.as_ref().and_then(f)).collect()
        };
        cols.push(Column::new(m.name().into(), col(|c| Some(c.mean))));
        if m.kind() == MetricKind::Real {
            cols.push(Column::new(
                format!("{}_hw", m.name()).into(),
                col(|c| c.half_width),
            ));
        } else {
            cols.push(Column::new(
                format!("{}_lo", m.name()).into(),
                col(|c| c.lo),
            ));
            cols.push(Column::new(
                format!("{}_hi", m.name()).into(),
                col(|c| c.hi),
            ));
            cols.push(Column::new(
                format!("{}_interval", m.name()).into(),
                cells
                    .iter()
                    .map(|c| c.as_ref().map(|c| c.interval))
                    .collect::<Vec<_>>(),
            ));
        }
    }
    cols.push(Column::new(
        "bm_lag1".into(),
        sums.iter().map(|s| s.bm_lag1).collect::<Vec<_>>(),
    ));
    cols.push(Column::new(
        "bm_ok".into(),
        sums.iter().map(|s| s.bm_ok).collect::<Vec<_>>(),
    ));
    cols.push(Column::new(
        "mser_cut".into(),
        sums.iter().map(|s| s.mser_cut).collect::<Vec<_>>(),
    ));
    cols.push(Column::new(
        "settled".into(),
        results.iter().map(settled_word).collect::<Vec<_>>(),
    ));
    cols.push(Column::new("key".into(), key));
    DataFrame::new_infer_height(cols)
}

/// Whether a point's runs have settled ([`lb_model::settle`]), in a
/// table cell ([`lb_model::settle::Settling::cell`]); empty with no
/// replication. A point not settled decides no claim.
fn settled_word(r: &PointResult) -> Option<String> {
    if r.summaries.is_empty() {
        return None;
    }
    Some(lb_model::settle::Settling::of(&r.summaries).cell())
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
        // Short numbers as written (sweep values: 0.3, not 0.3000).
        AnyValue::Float64(x) if format!("{x}").len() <= 6 => format!("{x}"),
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
    let unstable = |i: usize| -> PolarsResult<bool> {
        Ok(match df.column("stability") {
            Ok(c) => matches!(c.get(i)?, AnyValue::String("unstable")),
            Err(_) => false,
        })
    };
    // A metric's column: one with a `_hw` or `_interval` companion.
    let metric_column =
        |n: &str| names.contains(&format!("{n}_hw")) || names.contains(&format!("{n}_interval"));
    // A point whose runs have not settled: its numbers carry a mark, and
    // the note under the table says what the mark means.
    let unsettled = |i: usize| -> PolarsResult<bool> {
        Ok(match df.column("settled") {
            Ok(c) => match c.get(i)? {
                AnyValue::String(w) => w.starts_with("no"),
                AnyValue::StringOwned(w) => w.starts_with("no"),
                _ => false,
            },
            Err(_) => false,
        })
    };
    let mut marked = false;
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
            if s.is_empty() && metric_column(name) && unstable(i)? {
                cells.push("unstable".to_string());
                continue;
            }
            let hw_name = format!("{name}_hw");
            if let Ok(hw) = df.column(&hw_name)
                && let AnyValue::Float64(h) = hw.get(i)?
            {
                // A half-width at rounding level of the mean is none.
                let h = if h.abs() <= 1e-12 * s.parse::<f64>().unwrap_or(0.0).abs() {
                    0.0
                } else {
                    h
                };
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
            if metric_column(name) && !s.is_empty() && unsettled(i)? {
                s.push_str(" †");
                marked = true;
            }
            cells.push(s);
        }
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    if marked {
        out.push_str(
            "\n† Not settled: the point's runs have not reached steady state (MSER-5 would \
             still cut half a run's window, or its batch means stay correlated, in more \
             replications than chance allows), or its ΣQ is still rising but slowing (a run \
             that has not relaxed, not divergence). Its numbers are shown but decide no claim; \
             the settled column says what would settle it (≥×k: runs at least k times as long; \
             rising, ≥×k: ΣQ still rising, and runs at least k times as long are needed to \
             settle it or show it diverging). k is a lower bound read off the runs themselves: a run too short to have \
             relaxed cannot show how slowly it relaxes.\n",
        );
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

#[cfg(test)]
mod tests {
    use polars::prelude::*;

    /// A point whose runs have not settled never shows a bare number: its
    /// values carry † and the note under the table says what it means and
    /// what would settle it; a settled point's are left as they are.
    #[test]
    fn unsettled_numbers_carry_the_diagnosis() {
        let df = df!(
            "policy" => ["WR", "JSQ"],
            "mean_sum_q" => [1003.0, 30.2],
            "mean_sum_q_hw" => [39.0, 0.08],
            "settled" => ["no: ≥×2", "yes"],
        )
        .unwrap();
        let md = super::markdown(&df).unwrap();
        let rows: Vec<&str> = md.lines().collect();
        assert!(rows[2].contains("1003 ± 39 †"), "{md}");
        assert!(rows[2].contains("no: ≥×2"), "{md}");
        assert!(!rows[3].contains('†'), "{md}");
        assert!(
            md.contains("† Not settled") && md.contains("decide no claim"),
            "{md}"
        );
        let settled = df!(
            "policy" => ["JSQ"],
            "mean_sum_q" => [30.2],
            "mean_sum_q_hw" => [0.08],
            "settled" => ["yes"],
        )
        .unwrap();
        assert!(!super::markdown(&settled).unwrap().contains('†'));
    }
}
