//! The results of a manifest, read from the cache: one [`PointResult`] per
//! planned point, with every valid replication's summary (docs/MODEL.md §4).

use lb_manifest::plan::{Plan, Target};
use lb_manifest::{Key, Point};
use lb_manifest::{Model, Summary};
use lb_store::cache::Cache;

/// A planned point and what the cache holds for it.
#[derive(Debug, Clone)]
pub struct PointResult {
    /// The policy's label ("L-JSQ-Push", …).
    pub label: String,
    /// (axis, value) for each sweep axis of the plan.
    pub axes: Vec<(String, String)>,
    /// The resolved point and its key; `None` until its p̂ calibration exists.
    pub point: Option<Point>,
    /// The point's key (see `point`).
    pub key: Option<Key>,
    /// Valid summaries of replications 0..needed (a missing one is skipped).
    pub summaries: Vec<Summary>,
    /// The seconds each of those replications took to compute, on one
    /// thread (their records' provenance): what a quote of `cpu` reads.
    pub seconds: Vec<f64>,
    /// Replications the plan needs now.
    pub needed: u32,
    /// Damaged records among replications 0..needed: (replication, why).
    /// They are not read; `lb run` moves them aside and recomputes them.
    pub damaged: Vec<(u64, String)>,
    /// The message-budget calibration that set its p̂, if any: p̂, the
    /// target and achieved messages per arrival, and whether the budget was
    /// met.
    pub calibration: Option<lb_model::slotted::calibrate::CalibrationResult>,
    /// Pilot replications of its precision rule still missing: until they
    /// exist the rule has not chosen the replications, so the point is not
    /// complete whatever is present.
    pub pilot_missing: u32,
    /// The pilot replications of its precision rule present, and the
    /// seconds they took (no interval reads them; a recompute runs them).
    pub pilot: (usize, f64),
    /// The first stage of its precision rule when that is Stein's
    /// ([`lb_model::precision::PrecisionRule::first_stage`]): every
    /// interval on its replications is then Stein's, on the first stage's
    /// variance ([`crate::stats::estimate`]'s `first`).
    pub first_stage: Option<usize>,
    /// The control variate its precision rule pairs it with, if any
    /// ([`lb_model::precision::RuleControl`]): tables, figures and quotes
    /// then print its control-variate interval ([`crate::paired`]).
    pub control: Option<ControlPoint>,
    /// The references drawn per replication its claims and figures read,
    /// from their records: (name, replication) → value. One missing here is
    /// drawn as it is read ([`PointResult::drawn`]).
    pub drawn: std::collections::BTreeMap<(String, u64), f64>,
}

/// A precision rule's control point as a paired point reads it.
#[derive(Debug, Clone)]
pub struct ControlPoint {
    /// The control policy's label.
    pub label: String,
    /// The control's resolved point.
    pub point: Point,
    /// The name of its exact mean.
    pub mean: String,
    /// Its valid summaries of replications 0..needed.
    pub summaries: Vec<Summary>,
}

impl PointResult {
    /// The named reference `name` of metric `metric` at replication `r`:
    /// its record if the run drew it, or else computed from the point.
    pub fn reference(&self, name: &str, metric: &str, r: u64) -> Result<f64, String> {
        match (self.drawn.get(&(name.to_string(), r)), &self.point) {
            (Some(v), _) => Ok(*v),
            (None, Some(point)) => point.reference(name, metric, r),
            (None, None) => Err("the point is not resolved yet (its calibration)".into()),
        }
    }

    /// The value of sweep axis `name`, if the plan has it.
    pub fn axis(&self, name: &str) -> Option<&str> {
        self.axes
            .iter()
            .find(|(a, _)| a == name)
            .map(|(_, v)| v.as_str())
    }

    /// What is missing from the point, in words ("3 of 10 replications
    /// present, 1 damaged: r4 (checksum mismatch)"), or None when complete.
    pub fn gap(&self) -> Option<String> {
        let at: Vec<String> = self.axes.iter().map(|(a, v)| format!("{a}={v}")).collect();
        let at = if at.is_empty() {
            String::new()
        } else {
            format!(" at {}", at.join(", "))
        };
        if self.key.is_none() {
            return Some(format!(
                "{}{at}: not computed (its message-budget calibration is missing)",
                self.label
            ));
        }
        if self.complete() && self.damaged.is_empty() {
            return None;
        }
        let mut s = format!(
            "{}{at}: {} of {} replications present",
            self.label,
            self.summaries.len(),
            self.needed
        );
        if self.pilot_missing > 0 {
            s.push_str(&format!(
                ", {} of its precision rule's pilot replications missing",
                self.pilot_missing
            ));
        }
        if !self.damaged.is_empty() {
            let d: Vec<String> = self
                .damaged
                .iter()
                .map(|(r, why)| format!("r{r} ({why})"))
                .collect();
            s.push_str(&format!(", damaged: {}", d.join("; ")));
        }
        Some(s)
    }

    /// Every needed replication is present.
    pub fn complete(&self) -> bool {
        self.key.is_some() && self.summaries.len() as u32 >= self.needed && self.pilot_missing == 0
    }
}

pub use lb_model::config::point_unstable;

/// The sweep axes of an experiment's points, in plan order.
pub fn axis_names(results: &[PointResult]) -> Vec<String> {
    results
        .first()
        .map(|r| r.axes.iter().map(|(a, _)| a.clone()).collect())
        .unwrap_or_default()
}

/// The best evidence lb holds for a claim that reads other experiments
/// (`reads`): `own`, with every point at a combination of axis values
/// replaced by a settled point of one experiment of `others` of the same
/// reading — the same policy label and the same resolved configuration apart
/// from run length, replication count and master seed ([`same_reading`]) —
/// where some point there has not settled, or where that experiment's runs
/// are longer at every point there (settled runs of the same reading, the
/// longer the better). All points of a combination come from one
/// experiment, so the policies there still share their random numbers and
/// pair. Only the points of `labels` (those the claim reads) are replaced. A
/// replaced point keeps its own label and axes and carries the other's
/// records and keys.
pub fn best_evidence(
    own: &[PointResult],
    others: &[&[PointResult]],
    labels: &[&str],
) -> Vec<PointResult> {
    let settled = |r: &PointResult| {
        !r.summaries.is_empty() && lb_model::settle::Settling::of(&r.summaries).why().is_none()
    };
    let mut out = own.to_vec();
    let mut combos: Vec<&Vec<(String, String)>> = Vec::new();
    for r in own {
        if !combos.contains(&&r.axes) {
            combos.push(&r.axes);
        }
    }
    for axes in combos {
        let here: Vec<usize> = (0..own.len())
            .filter(|&i| &own[i].axes == axes && labels.contains(&own[i].label.as_str()))
            .collect();
        if here.is_empty() {
            continue;
        }
        let all_settled = here.iter().all(|&i| settled(&own[i]));
        for other in others {
            let found: Option<Vec<&PointResult>> = here
                .iter()
                .map(|&i| {
                    let p = own[i].point.as_ref()?;
                    other.iter().find(|q| {
                        q.label == own[i].label
                            && settled(q)
                            && q.point.as_ref().is_some_and(|qp| {
                                same_reading(p, qp)
                                    && (!all_settled
                                        || run_length(qp)
                                            .zip(run_length(p))
                                            .is_some_and(|(theirs, mine)| theirs > mine))
                            })
                    })
                })
                .collect();
            if let Some(found) = found {
                for (&i, q) in here.iter().zip(found) {
                    out[i] = PointResult {
                        label: own[i].label.clone(),
                        axes: own[i].axes.clone(),
                        ..q.clone()
                    };
                }
                break;
            }
        }
    }
    out
}

/// Whether two points are the same reading: the same model, engine version
/// and configuration, apart from run length (`run`), replication count and
/// master seed.
pub fn same_reading(a: &Point, b: &Point) -> bool {
    let strip = |p: &Point| {
        let mut v = serde_json::to_value(&p.config).unwrap_or_default();
        strip_run(&mut v);
        v
    };
    a.model == b.model && a.model_version == b.model_version && strip(a) == strip(b)
}

/// A point's run length: its configuration's `run.slots` (the slotted
/// model) or `run.horizon` (the many-server model), where it has one.
fn run_length(p: &Point) -> Option<f64> {
    fn find(v: &serde_json::Value) -> Option<f64> {
        match v {
            serde_json::Value::Object(m) => match m.get("run") {
                Some(r) => r
                    .get("slots")
                    .or_else(|| r.get("horizon"))
                    .and_then(serde_json::Value::as_f64),
                None => m.values().find_map(find),
            },
            serde_json::Value::Array(a) => a.iter().find_map(find),
            _ => None,
        }
    }
    find(&serde_json::to_value(&p.config).ok()?)
}

/// A configuration's JSON without its run length, at any depth.
fn strip_run(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.remove("run");
            m.values_mut().for_each(strip_run);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_run),
        _ => {}
    }
}

/// The model of an experiment's points (slotted when none is resolved yet).
pub fn model(results: &[PointResult]) -> Model {
    results
        .iter()
        .find_map(|r| r.point.as_ref().map(|p| p.model))
        .unwrap_or(Model::Slotted)
}

/// Reads every point of `plan` from `cache` (read-only).
pub fn collect(cache: &Cache, plan: &Plan) -> Vec<PointResult> {
    let status = lb_store::run::status(cache, plan);
    let valid = |k: &Key, n: u32| -> Vec<Summary> {
        (0..n as u64)
            .filter_map(|r| {
                cache
                    .read_replication_part(k, r, |rec| rec.summary.clone())
                    .valid()
            })
            .collect()
    };
    // A precision rule's control, where the rule decided to pair with it:
    // the planned point of that key and its replications.
    let control_of = |(pp, st): (
        &lb_manifest::plan::PlannedPoint,
        &lb_store::run::PointStatus,
    )| {
        let lb_manifest::plan::Replications::Precision(rule) = &pp.replications else {
            return None;
        };
        if !st.outcome.as_ref().is_some_and(|o| o.paired) {
            return None;
        }
        let c = rule.control.as_ref()?;
        let key = lb_manifest::plan::control_key(rule)?;
        let (q, cst) = plan
            .points
            .iter()
            .zip(&status)
            .find(|(_, cst)| cst.key == Some(key))?;
        let Target::Fixed(point) = &q.target else {
            return None;
        };
        // The pairs the rule decided on: as many of the control's
        // replications as the point has, beyond the control's own count if
        // the point ran more.
        Some(ControlPoint {
            label: q.label.clone(),
            point: point.clone(),
            mean: c.mean.clone(),
            summaries: valid(&key, cst.needed.max(st.needed)),
        })
    };
    let controls: Vec<Option<ControlPoint>> =
        plan.points.iter().zip(&status).map(control_of).collect();
    plan.points
        .iter()
        .zip(&status)
        .zip(controls)
        .enumerate()
        .map(|(i, ((pp, st), control))| {
            let cal = st.calibration.as_ref().and_then(|(_, r)| r.clone());
            let point = match (&pp.target, &cal) {
                (Target::Fixed(p), _) => Some(p.clone()),
                (Target::Calibrated { template, .. }, Some(r)) => {
                    Some(template.clone().with_p_hat(r.p_hat))
                }
                (Target::Calibrated { .. }, None) => None,
            };
            debug_assert_eq!(point.as_ref().map(Point::key), st.key);
            let mut damaged = Vec::new();
            let (summaries, seconds) = match &st.key {
                Some(k) => (0..st.needed as u64)
                    .filter_map(|r| {
                        match cache.read_replication_part(k, r, |rec| {
                            (rec.summary.clone(), rec.provenance.seconds())
                        }) {
                            lb_store::cache::Read::Valid(read) => Some(read),
                            lb_store::cache::Read::Damaged(why) => {
                                damaged.push((r, why));
                                None
                            }
                            lb_store::cache::Read::Missing => None,
                        }
                    })
                    .unzip(),
                None => (Vec::new(), Vec::new()),
            };
            let drawn = drawn(cache, st.key.as_ref(), plan.drawn.get(&i), &summaries);
            PointResult {
                label: pp.label.clone(),
                axes: plan
                    .axes
                    .iter()
                    .map(|a| a.to_string())
                    .zip(pp.axes.iter().cloned())
                    .collect(),
                point,
                key: st.key,
                summaries,
                seconds,
                needed: st.needed,
                damaged,
                calibration: cal,
                pilot_missing: st.pilot_missing,
                pilot: st.key.as_ref().map_or((0, 0.0), |k| {
                    pp.replications
                        .pilot()
                        .filter_map(|r| {
                            cache
                                .read_replication_part(k, r, |rec| rec.provenance.seconds())
                                .valid()
                        })
                        .fold((0, 0.0), |(n, t), seconds| (n + 1, t + seconds))
                }),
                first_stage: pp.replications.first_stage(),
                control,
                drawn,
            }
        })
        .collect()
}

/// The drawn references `names` of the replications of `summaries`, from
/// their records.
fn drawn(
    cache: &Cache,
    key: Option<&Key>,
    names: Option<&std::collections::BTreeSet<String>>,
    summaries: &[Summary],
) -> std::collections::BTreeMap<(String, u64), f64> {
    let (Some(key), Some(names)) = (key, names) else {
        return Default::default();
    };
    let mut out = std::collections::BTreeMap::new();
    for name in names {
        for r in summaries.iter().map(Summary::replication) {
            if let Some(rec) = cache.read_drawn(key, name, r).valid() {
                out.insert((name.clone(), r), rec.value);
            }
        }
    }
    out
}

/// The first stage the intervals of paired differences between `a` and `b`
/// read their variance on: Stein's, where either point's precision rule
/// chose its replications so (the larger, were both to).
pub fn pair_first_stage(a: &PointResult, b: &PointResult) -> Option<usize> {
    a.first_stage.max(b.first_stage)
}

/// The differences `b − a` of metric `m`, replication by replication
/// (replication r of one point with replication r of the other, in `a`'s
/// order): the pairs an ordering, a trend step and a difference figure are
/// read on. None until both points are resolved.
pub fn paired_differences(
    m: crate::metric::Metric,
    a: &PointResult,
    b: &PointResult,
) -> Option<Vec<f64>> {
    let (pa, pb) = (a.point.as_ref()?, b.point.as_ref()?);
    let vb: Vec<(u64, f64)> = b
        .summaries
        .iter()
        .filter_map(|s| Some((s.replication(), m.value(pb, s)?)))
        .collect();
    Some(
        a.summaries
            .iter()
            .filter_map(|s| {
                let x = m.value(pa, s)?;
                let y = vb.iter().find(|(r, _)| *r == s.replication())?.1;
                Some(y - x)
            })
            .collect(),
    )
}
