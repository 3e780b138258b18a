//! A many-server record's internal consistency, beyond its checksum: what a
//! correct run cannot produce (`lb cache check`).

use lb_core::many::ManySummary;

/// Why `s` cannot be a many-server run's summary, if it cannot.
pub fn check(s: &ManySummary) -> Result<(), String> {
    if s.lost > s.arrivals || s.to_busy > s.arrivals {
        return Err(format!(
            "lost = {} or to_busy = {} exceeds arrivals = {}",
            s.lost, s.to_busy, s.arrivals
        ));
    }
    let mut prev = 1.0;
    for (i, x) in s.occupancy.iter().enumerate() {
        if !(x.is_finite() && *x >= 0.0 && *x <= prev + 1e-12) {
            return Err(format!(
                "occupancy S_{} = {x} is not in [0, S_{}] (S_i is non-increasing in [0, 1])",
                i + 1,
                i
            ));
        }
        prev = *x;
    }
    let sum: f64 = s.occupancy.iter().sum();
    if !(s.mean_jobs.is_finite() && (sum - s.mean_jobs).abs() <= 1e-6 * s.mean_jobs.max(1.0)) {
        return Err(format!("mean_jobs = {} is not Σ S_i = {sum}", s.mean_jobs));
    }
    if let Some(x) = s.shw_excess
        && !(x.is_finite() && x >= 0.0)
    {
        return Err(format!(
            "shw_excess = {x} is not ≥ 0 (a mean of positive parts)"
        ));
    }
    for (name, v) in [
        ("loss_fraction", s.loss_fraction),
        ("p_to_busy", s.p_to_busy),
    ] {
        if let Some(v) = v
            && !(0.0..=1.0).contains(&v)
        {
            return Err(format!("{name} = {v} is not a probability"));
        }
    }
    Ok(())
}
