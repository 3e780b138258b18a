//! What a slotted run reports (docs/MODEL.md §1 "Metrics of a run"; Zhou, Shroff and
//! Wierman, §4).

use crate::stability::Stability;
use serde::{Deserialize, Serialize};

/// The summary of one replication. Time averages are over the measured
/// window (after warm-up); response times are of jobs that arrived in it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSummary {
    /// The replication index r.
    pub replication: u64,
    /// Slots after warm-up.
    pub measured_slots: u64,
    /// Jobs that arrived in the window.
    pub arrivals: u64,
    /// Of those, how many departed before the end (the rest are censored).
    pub completed: u64,
    /// ΣQ at the end of the run.
    pub in_system_end: u64,
    /// Time-average ΣQ at the start of a slot: E[Σ_n Q_n] of Zhou, Shroff and Wierman.
    pub mean_sum_q: f64,
    /// Time-average ΣQ after the slot's arrivals (what Little's law counts).
    pub mean_sum_q_after_arrivals: f64,
    /// Mean response time (departure − arrival + 1 slots) from the FIFOs.
    pub mean_response: Option<f64>,
    /// Mean response time by Little's law: mean ΣQ after arrivals / arrival rate.
    pub little_response: Option<f64>,
    /// Median response time (slots).
    pub p50: Option<u64>,
    /// 90th percentile response time.
    pub p90: Option<u64>,
    /// 99th percentile response time.
    pub p99: Option<u64>,
    /// Largest response time.
    pub max_response: u64,
    /// Messages in the window (docs/MODEL.md §1 costs).
    pub messages: u64,
    /// Dispatch decisions in the window: one per dispatcher-slot with arrivals
    /// in `batch` granularity, one per job in `job` granularity.
    pub decisions: u64,
    /// Server-slots in the window with D_n(t) > 0.
    pub completion_events: u64,
    /// Messages per arriving job.
    pub messages_per_arrival: Option<f64>,
    /// Time-average Q_n per server.
    pub mean_queue: Vec<f64>,
    /// Degree of queue imbalance E[max_n Q_n − min_n Q_n] (Zhou, Shroff and Wierman §4.3, \[28\]).
    pub imbalance: f64,
    /// ΣQ (start of slot) averaged over equal batches of the window.
    pub trace: Vec<f64>,
    /// Whether ΣQ settled.
    pub stability: Stability,
    /// Present when the run advanced in blocks of slots
    /// ([`crate::slotted::blocks`]): its time averages are conditional
    /// expectations given each block's totals, and it measured no response
    /// times and no imbalance (`imbalance` is 0 and means nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Blocks>,
    /// Present when the run read its dispatching preference
    /// (`run.preference`, [`crate::slotted::preference::Watch`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preference: Option<PreferenceSummary>,
    /// Present when the run read its estimation error (`run.estimation`,
    /// [`crate::slotted::estimation::ErrorWatch`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimation: Option<EstimationSummary>,
}

/// The estimation error X_mn(t) = |Q_n(t) − Q̃_mn(t)| of Zhou, Shroff and
/// Wierman's Lemma 3 at the states a run visited, over its measured slots.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EstimationSummary {
    /// Measured slots read.
    pub slots: u64,
    /// The time average of X_mn, averaged over dispatchers and servers.
    pub mean: f64,
    /// The largest time average of X_mn over the pairs (m, n): what the
    /// lemma bounds, "for all m and n".
    pub max: f64,
}

/// The dispatching preference at the estimate states a run visited (Zhou,
/// Shroff and Wierman, Definitions 4–6), over its measured dispatcher-slots.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreferenceSummary {
    /// Dispatcher-slots read (M per measured slot).
    pub dispatcher_slots: u64,
    /// Of those, how many were not tilted (Definition 5).
    pub untilted: u64,
    /// Of those, how many had every estimate equal.
    pub all_tied: u64,
    /// The least δ = min(∆_m1, −∆_mN) over them, 0 at a state that is not
    /// tilted, to 12 significant digits.
    pub delta_min: f64,
    /// The same over the dispatcher-slots where some estimates differ; None
    /// if every one tied.
    pub untied_delta_min: Option<f64>,
}

impl RunSummary {
    /// The summary of a run that follows no job (the pooled queue, a run
    /// advanced in blocks): its window, arrivals and time averages, with
    /// Little's law for the response time, and no FIFO response times, no
    /// messages and no imbalance. Set the rest by struct update.
    pub fn unfollowed(
        (replication, measured_slots, arrivals): (u64, u64, u64),
        (mean_sum_q, mean_after): (f64, f64),
        trace: Vec<f64>,
    ) -> RunSummary {
        let w = measured_slots as f64;
        RunSummary {
            replication,
            measured_slots,
            arrivals,
            completed: 0,
            in_system_end: 0,
            mean_sum_q,
            mean_sum_q_after_arrivals: mean_after,
            mean_response: None,
            little_response: (arrivals > 0).then(|| mean_after / (arrivals as f64 / w)),
            p50: None,
            p90: None,
            p99: None,
            max_response: 0,
            messages: 0,
            decisions: 0,
            completion_events: 0,
            messages_per_arrival: None,
            mean_queue: Vec::new(),
            imbalance: 0.0,
            stability: crate::stability::stability(&trace),
            trace,
            blocks: None,
            preference: None,
            estimation: None,
        }
    }
}

/// How a block run advanced ([`crate::slotted::blocks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Blocks {
    /// Steps of two slots or more.
    pub blocks: u64,
    /// Steps of one slot, drawn in full (some queue below 2).
    pub single_slots: u64,
}

/// A point is judged unstable when its replications show divergence
/// ([`crate::stability::point_stability`]): more than half flagged by the
/// trend test, and their growth keeping its rate through the run. A stable
/// but slowly mixing system is flagged now and then by chance, and one that
/// has not relaxed grows ever more slowly.
pub fn point_unstable(summaries: &[RunSummary]) -> bool {
    crate::stability::point_stability(
        summaries
            .iter()
            .map(|s| (s.stability.stable, s.trace.as_slice())),
    )
    .0 == crate::stability::PointStability::Unstable
}
