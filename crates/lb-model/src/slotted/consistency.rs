//! A slotted record's internal consistency, beyond its checksum: what a
//! correct run cannot produce (`lb cache check`).

use lb_core::slotted::RunSummary;

/// Why `s` cannot be a slotted run's summary, if it cannot.
pub fn check(s: &RunSummary) -> Result<(), String> {
    if s.completed > s.arrivals {
        return Err(format!(
            "completed = {} exceeds arrivals = {}",
            s.completed, s.arrivals
        ));
    }
    let finite_nonneg = |name: &str, v: f64| {
        if v.is_finite() && v >= 0.0 {
            Ok(())
        } else {
            Err(format!("{name} = {v} is not a finite number ≥ 0"))
        }
    };
    finite_nonneg("mean_sum_q", s.mean_sum_q)?;
    finite_nonneg("mean_sum_q_after_arrivals", s.mean_sum_q_after_arrivals)?;
    finite_nonneg("imbalance", s.imbalance)?;
    for (name, v) in [
        ("mean_response", s.mean_response),
        ("little_response", s.little_response),
        ("messages_per_arrival", s.messages_per_arrival),
    ] {
        if let Some(v) = v {
            finite_nonneg(name, v)?;
        }
    }
    if let Some(r) = s.mean_response
        && r < 1.0
    {
        return Err(format!(
            "mean_response = {r} is below one slot, the least a job spends"
        ));
    }
    for (i, q) in s.mean_queue.iter().enumerate() {
        finite_nonneg(&format!("mean_queue[{i}]"), *q)?;
    }
    let sum: f64 = s.mean_queue.iter().sum();
    if (sum - s.mean_sum_q).abs() > 1e-6 * s.mean_sum_q.max(1.0) {
        return Err(format!(
            "the per-server mean queues sum to {sum}, not to mean_sum_q = {}",
            s.mean_sum_q
        ));
    }
    if let (Some(p50), Some(p99)) = (s.p50, s.p99)
        && (p50 > p99 || p99 > s.max_response)
    {
        return Err(format!(
            "percentiles out of order: p50 = {p50}, p99 = {p99}, max = {}",
            s.max_response
        ));
    }
    Ok(())
}
