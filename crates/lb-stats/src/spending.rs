//! Alpha spending over repeated looks at one claim: the j-th look spends
//! α·6/(π² j²) of the claim's α, so the error over every look stays ≤ α.

/// α_j / α at look `j` ≥ 1: 6/(π² j²), whose sum over j is 1.
pub fn spending(j: u32) -> f64 {
    6.0 / (std::f64::consts::PI * std::f64::consts::PI * (j as f64) * (j as f64))
}
