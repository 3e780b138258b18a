//! What a run did, as text: the counts of `lb run` (and of the rounds of
//! `lb decide`), the damaged records it recomputed, and each point's
//! precision rule, named in words.

use lb_manifest::plan::Plan;
use lb_model::key::Key;
use lb_store::cache::Cache;
use lb_store::run::{Report, status};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Each planned key's name in words: "experiment: policy at axis=value …".
pub fn point_names(cache: &Cache, plans: &[Plan]) -> BTreeMap<Key, String> {
    let mut names = BTreeMap::new();
    for plan in plans {
        for (pp, st) in plan.points.iter().zip(status(cache, plan)) {
            let Some(k) = st.key else { continue };
            let at: Vec<String> = plan
                .axes
                .iter()
                .zip(&pp.axes)
                .map(|(a, v)| format!("{a}={v}"))
                .collect();
            let at = if at.is_empty() {
                String::new()
            } else {
                format!(" at {}", at.join(" "))
            };
            names
                .entry(k)
                .or_insert_with(|| format!("{}: {}{at}", plan.name, pp.label));
        }
    }
    names
}

/// The report of a run: counts, damaged records, precision rules.
pub fn report(
    r: &Report,
    wall: std::time::Duration,
    threads: usize,
    names: &BTreeMap<Key, String>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "done in {:.1}s on {threads} thread(s): {} record(s) computed, {} already cached, \
         {} computed by another process, {} damaged record(s) recomputed",
        wall.as_secs_f64(),
        r.computed,
        r.reused,
        r.by_others,
        r.damaged.len()
    );
    for (path, why) in &r.damaged {
        let _ = writeln!(out, "  damaged: {}: {why}", path.display());
    }
    if !r.waiting.is_empty() {
        let _ = writeln!(
            out,
            "  {} point(s) left for a later stage: their p̂ calibration is not in the cache yet \
             (another shard's); the next stage or the final lb reproduce computes them",
            r.waiting.len()
        );
        for (experiment, label, ck) in &r.waiting {
            let _ = writeln!(
                out,
                "    waiting: {experiment} / {label} (calibration {})",
                &ck.hex()[..12]
            );
        }
    }
    for (k, o) in &r.precision {
        let iv = o
            .interval
            .as_ref()
            .map(|i| {
                format!(
                    ", mean {:.6} ± {:.6} (rel {:.4})",
                    i.mean,
                    i.half_width,
                    i.rel_half_width.unwrap_or(f64::NAN)
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  precision of {} ({}): {:?} after {} replications{iv}",
            names.get(k).map_or("a point", String::as_str),
            k.short(),
            o.stop,
            o.replications
        );
    }
    out
}
