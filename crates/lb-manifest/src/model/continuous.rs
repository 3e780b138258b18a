//! The `[run]` and `[quick]` sections of the continuous-time models (the
//! many-server model and networks): a horizon and a warm-up in the model's
//! time units instead of slots. Shared by [`super::many`] and [`super::spn`].

use super::length::TimeLength;
use super::sweep::Sweep;
use crate::diag::{ManifestError, SpanIndex};
use crate::plan::Replications;
use lb_core::many::TimeRun;
use lb_model::limits::{MAX_BATCHES, MAX_REPLICATIONS};
use lb_model::model::Profile;

run_sections! {
    /// `[run]` of a continuous-time model.
    run {
        /// Time simulated per replication, warm-up included: a number, or a time
        /// that follows a sweep axis ([`TimeLength`]).
        horizon: TimeLength,
        /// Time discarded at the start (a number or a [`TimeLength`] too).
        warmup: TimeLength,
        /// Networks only: points of the recorded sample path of the total jobs
        /// (default 64).
        path_points: Option<u32>,
    }
    /// `[quick]` of a continuous-time model: what `lb run --quick` uses.
    quick {
        /// Time simulated per replication.
        horizon: Option<f64>,
        /// Time discarded at the start.
        warmup: Option<f64>,
    }
}

/// The static checks of the two sections (the replication rule is checked
/// with every model's, in `crate::validate`).
pub fn validate(
    l: &SpanIndex,
    m: &dyn Sweep,
    r: &RunSpec,
    q: &QuickSpec,
) -> Result<(), ManifestError> {
    let keys = [
        ("horizon", r.horizon.scaled()),
        ("warmup", r.warmup.scaled()),
    ];
    for (at, xh, xw) in super::length::samples(l, m, keys)? {
        let (h, w) = (r.horizon.at(xh), r.warmup.at(xw));
        if !(h.is_finite() && w.is_finite() && w >= 0.0 && h > w) {
            return Err(l.error(
                "run.horizon",
                format!("needs 0 ≤ run.warmup < run.horizon, got warmup {w} and horizon {h}{at}"),
            ));
        }
    }
    if let Some(b) = r.batches
        && !(6..=MAX_BATCHES).contains(&(b as u64))
    {
        return Err(l.error(
            "run.batches",
            format!(
                "batches must lie in 6..={MAX_BATCHES} (lb's limit; see \"Limits\" in \
                 experiments/README.md), got {b}"
            ),
        ));
    }
    if let Some(h) = q.horizon
        && !(h.is_finite() && h > q.warmup.unwrap_or(0.0))
    {
        return Err(l.error("quick.horizon", "needs quick.horizon > quick.warmup ≥ 0"));
    }
    if let Some(n) = q.replications
        && !(1..=MAX_REPLICATIONS).contains(&(n as u64))
    {
        return Err(l.error(
            "quick.replications",
            format!(
                "replications = {n} must lie in 1..={MAX_REPLICATIONS} (lb's limit; see \
                 \"Limits\" in experiments/README.md)"
            ),
        ));
    }
    Ok(())
}

/// The run length and replications of `profile`, and the key path that sets
/// the horizon (for errors): `[quick]` defaults to a twentieth of the horizon,
/// the same warm-up fraction and at most two replications.
///
/// `x` gives a point's value of a sweep axis, for lengths that follow one.
pub fn resolve(
    r: &RunSpec,
    q: &QuickSpec,
    profile: Profile,
    x: &dyn Fn(&str) -> Option<f64>,
) -> (TimeRun, Replications, &'static str) {
    let batches = r.batches.unwrap_or(64);
    let full = Replications::from_run(r.replications, r.precision.as_ref());
    let at = |len: &TimeLength| len.at(len.axis().and_then(x));
    let (full_horizon, full_warmup) = (at(&r.horizon), at(&r.warmup));
    match profile {
        Profile::Full => (
            TimeRun {
                horizon: full_horizon,
                warmup: full_warmup,
                batches,
            },
            full,
            "run.horizon",
        ),
        Profile::Quick => {
            let horizon = q.horizon.unwrap_or(full_horizon / 20.0);
            let warmup = q.warmup.unwrap_or(full_warmup * horizon / full_horizon);
            let reps = q.replications.unwrap_or(match full {
                Replications::Fixed(n) => n.min(2),
                Replications::Precision(ref p) => p.min.min(2),
            });
            (
                TimeRun {
                    horizon,
                    warmup,
                    batches,
                },
                Replications::Fixed(reps),
                if q.horizon.is_some() {
                    "quick.horizon"
                } else {
                    "run.horizon"
                },
            )
        }
    }
}
