//! `lb show`: one record of the cache in full, as text.

use crate::existing;
use lb_model::key::Key;
use lb_store::cache::{Cache, Read};
use lb_store::run::calibration_line;
use std::fmt::Write as _;

/// A line into the text (writing to a String cannot fail).
macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!($($t)*);
    }};
}

/// Finds exactly one key by prefix.
pub(crate) fn find_key(cache: &Cache, prefix: &str) -> Result<Key, Box<dyn std::error::Error>> {
    if prefix.is_empty() || !prefix.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("\"{prefix}\" is not a key prefix (hex digits)").into());
    }
    let found = cache.find_prefix(prefix);
    match found.len() {
        0 => Err(format!(
            "no record with a key starting with {prefix} in {}: the keys are in a figure's \
             .keys.csv, a table's key column and `lb plan MANIFEST`; a point not yet computed \
             has none until `lb run MANIFEST`",
            cache.root().display()
        )
        .into()),
        1 => Ok(found[0]),
        n => Err(format!(
            "{n} keys start with {prefix}: {}; give more digits",
            found
                .iter()
                .take(8)
                .map(|k| k.short())
                .collect::<Vec<_>>()
                .join(", ")
        )
        .into()),
    }
}

fn pretty<T: serde::Serialize>(t: &T) -> String {
    serde_json::to_string_pretty(t).unwrap_or_else(|e| format!("<{e}>"))
}

/// `t` as pretty JSON, each list of more than [`LIST`] entries in one line
/// (unless `full`): the entry repeated ("10 × {…}"), or a list of numbers
/// as its count, range and first values. A configuration of 50 servers
/// reads in a screen instead of 279 lines.
fn summarised<T: serde::Serialize>(t: &T, full: bool) -> String {
    if full {
        return pretty(t);
    }
    match serde_json::to_value(t) {
        Ok(v) => pretty(&summarise(v)),
        Err(e) => format!("<{e}>"),
    }
}

/// Lists longer than this are summarised by [`summarised`].
const LIST: usize = 6;

fn summarise(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, summarise(v))).collect()),
        Value::Array(a) if a.len() > LIST => {
            let n = a.len();
            // Runs of equal entries ("50 × {…}").
            let mut runs: Vec<(usize, &Value)> = Vec::new();
            for x in &a {
                match runs.last_mut() {
                    Some((k, y)) if *y == x => *k += 1,
                    _ => runs.push((1, x)),
                }
            }
            let run = |(k, x): (usize, &Value)| format!("{k} × {}", compact(&summarise(x.clone())));
            if runs.len() == 1 {
                return Value::String(run(runs[0]));
            }
            let nums: Option<Vec<f64>> = a.iter().map(|x| x.as_f64()).collect();
            if let Some(xs) = nums {
                let (lo, hi) = xs
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
                        (l.min(*x), h.max(*x))
                    });
                let first: Vec<String> = a.iter().take(3).map(compact).collect();
                return Value::String(format!(
                    "{n} values in [{lo}, {hi}]: {}, … (lb show --full lists them)",
                    first.join(", ")
                ));
            }
            if runs.len() <= LIST {
                return Value::Array(runs.into_iter().map(|r| Value::String(run(r))).collect());
            }
            // Distinct entries: the first few and how many more.
            let mut kept: Vec<Value> = a.into_iter().take(3).map(summarise).collect();
            kept.push(Value::String(format!(
                "… {} more (lb show --full lists them)",
                n - 3
            )));
            Value::Array(kept)
        }
        Value::Array(a) => Value::Array(a.into_iter().map(summarise).collect()),
        other => other,
    }
}

fn compact(v: &serde_json::Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn opt(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.4}"))
}

/// `lb show KEY-PREFIX`: a record in full — its configuration (long lists
/// summarised unless `full`), every replication, its provenance, and the
/// command that recomputes it.
pub fn show(cache: &Cache, prefix: &str, full: bool) -> Result<String, Box<dyn std::error::Error>> {
    let mut out = String::new();
    existing(cache)?;
    let key = find_key(cache, prefix)?;
    let dir = cache.key_dir(&key);
    if let Read::Valid(c) = cache.read_calibration(&key) {
        say!(out, "calibration {key}");
        say!(out, "{}", calibration_line(&c.calibration, &c.result));
        say!(out, "\ncalibration:\n{}", summarised(&c.calibration, full));
        say!(out, "\nprobes (p̂ → messages per arrival):");
        for p in &c.result.probes {
            say!(out, "  {:.8} → {:.6}", p.p_hat, p.messages_per_arrival);
        }
        say!(out, "\nprovenance:\n{}", pretty(&c.provenance));
        say!(
            out,
            "\nrecompute and compare: lb verify --key {}",
            key.short()
        );
        return Ok(out);
    }
    let point = match cache.read_point(&key) {
        Read::Valid(p) => p.point,
        Read::Damaged(why) => {
            return Err(format!(
                "{}: damaged point record: {why}",
                cache.point_path(&key).display()
            )
            .into());
        }
        Read::Missing => return Err(format!("{}: no point.json", dir.display()).into()),
    };
    say!(out, "point {key}");
    say!(
        out,
        "policy {}, profile {}",
        point.policy_name(),
        point.profile.name()
    );
    for line in point.config.describe() {
        say!(out, "{line}");
    }
    say!(out, "\nconfiguration:\n{}", summarised(&point, full));
    say!(
        out,
        "\nreplications (p0, p1, …: a precision rule's pilot, read by the rule only):"
    );
    // The model's metrics that a replication defines on its own.
    let columns: Vec<&str> = point
        .model
        .metrics()
        .iter()
        .filter(|m| m.precision)
        .map(|m| m.name)
        .collect();
    let width = |c: &str| c.chars().count().max(10);
    let mut head = format!("  {:>5}", "r");
    for c in &columns {
        head += &format!("  {c:>w$}", w = width(c));
    }
    say!(out, "{head}  {:>6}", "stable");
    let mut provs = Vec::new();
    for r in cache.replication_files(&key) {
        match cache.read_replication(&key, r) {
            Read::Valid(rec) => {
                // A precision rule's pilot replications: p0, p1, …
                let name = if lb_model::precision::is_pilot(r) {
                    format!("p{}", r - lb_model::precision::PILOT_BASE)
                } else {
                    r.to_string()
                };
                let mut row = format!("  {name:>5}");
                for c in &columns {
                    let v = rec.summary.precision_value(c);
                    row += &format!("  {:>w$}", opt(v), w = width(c));
                }
                say!(out, "{row}  {:>6}", rec.summary.stable());
                if let Some(path) = rec.summary.path()
                    && r == 0
                {
                    let shown: Vec<String> = path
                        .iter()
                        .map(|(t, z)| format!("{}:{z}", lb_model::canonical::number_to_string(*t)))
                        .collect();
                    say!(out, "         sample path (time:jobs): {}", shown.join(" "));
                }
                provs.push((r, rec.provenance));
            }
            Read::Damaged(why) => {
                say!(out, "  {r:>5}  DAMAGED: {why}");
            }
            Read::Missing => {}
        }
    }
    for name in cache.file_names(&key) {
        if name.starts_with("precision-")
            && name.ends_with(".json")
            && let Read::Valid(p) =
                cache.read_at::<lb_store::cache::PrecisionRecord>(&dir.join(&name))
        {
            say!(
                out,
                "\nprecision rule {}:\n{}",
                pretty(&p.rule),
                pretty(&p.outcome)
            );
        }
    }
    if let Some((r, p)) = provs.first() {
        say!(out, "\nprovenance (replication {r}):\n{}", pretty(p));
        let others: Vec<String> = provs
            .iter()
            .filter(|(_, q)| {
                q.git_commit != p.git_commit || q.host != p.host || q.lb_version != p.lb_version
            })
            .map(|(r, q)| {
                format!(
                    "  r{r}: lb {} commit {} host {}",
                    q.lb_version,
                    q.git_commit.as_deref().unwrap_or("?"),
                    q.host
                )
            })
            .collect();
        if !others.is_empty() {
            say!(
                out,
                "replications computed elsewhere:\n{}",
                others.join("\n")
            );
        }
        say!(
            out,
            "\nrecompute and compare: lb verify --key {}",
            key.short()
        );
        say!(out, "computed by: {}", p.command.join(" "));
    } else {
        say!(out, "  (none yet)");
    }
    Ok(out)
}
