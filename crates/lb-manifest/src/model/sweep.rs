//! What every model's manifest says about its sweep: the axes it sets, their
//! values as plans and `where` tables write them, and how many policies run
//! at each combination. Run lengths that follow an axis ([`super::length`])
//! and the size checks read a manifest through it.

/// A model's manifest, as its sweep.
pub trait Sweep {
    /// The sweep axes the manifest sets, in expansion order.
    fn axes(&self) -> Vec<&'static str>;
    /// The values of sweep axis `axis` as plans and `where` tables write them
    /// ("0.9", "100", "true", "job"); empty for an axis the manifest does not
    /// sweep.
    fn axis_values(&self, axis: &str) -> Vec<String>;
    /// The number of policies (each runs at every combination of the axes).
    fn policies(&self) -> usize;
}

/// The number of points `m` expands into, at most (sweep combinations ×
/// policies; saturating).
pub fn points(m: &dyn Sweep) -> u64 {
    m.axes().iter().fold(m.policies() as u64, |n, a| {
        n.saturating_mul(m.axis_values(a).len() as u64)
    })
}
