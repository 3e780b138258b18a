//! A network record's internal consistency, beyond its checksum.

use lb_core::spn::SpnSummary;

/// Why `s` cannot be a network run's summary, if it cannot.
pub(crate) fn check(s: &SpnSummary) -> Result<(), String> {
    let sum: f64 = s.mean_jobs.iter().sum();
    if !(s.mean_total.is_finite() && s.mean_total >= 0.0)
        || (sum - s.mean_total).abs() > 1e-6 * s.mean_total.max(1.0)
    {
        return Err(format!(
            "mean_total = {} is not the sum of the buffers' means {sum}",
            s.mean_total
        ));
    }
    if s.path.len() != s.path_times.len() {
        return Err(format!(
            "the sample path has {} values at {} times",
            s.path.len(),
            s.path_times.len()
        ));
    }
    if s.path.last().is_some_and(|z| *z != s.in_system_end) {
        return Err("the sample path does not end at in_system_end".into());
    }
    Ok(())
}
