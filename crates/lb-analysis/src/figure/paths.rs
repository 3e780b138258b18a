//! The sample paths of a path figure: per series a few replications' paths
//! (thinned to what a figure can show) and the mean of all of them.

use super::spec::FigureSpec;
use crate::results::PointResult;

/// The sample paths of one series: a few replications' paths and the mean
/// of all of them.
#[derive(Debug, Clone, PartialEq)]
pub struct PathSeries {
    /// Its legend name.
    pub name: String,
    /// The policy's label.
    pub policy: String,
    /// The values of the figure's series axes, in words.
    pub variant: String,
    /// Each replication's path, (time, value).
    pub paths: Vec<Vec<(f64, f64)>>,
    /// The mean of the paths at each time.
    pub mean: Vec<(f64, f64)>,
    /// The key of the point whose records the paths are (`lb show KEY`).
    pub key: String,
    /// Whether the point was judged stable.
    pub stable: bool,
}

/// The value of a step path at time t (its last sample at or before t).
fn at(path: &[(f64, f64)], t: f64) -> f64 {
    match path.partition_point(|p| p.0 <= t) {
        0 => path.first().map_or(f64::NAN, |p| p.1),
        i => path[i - 1].1,
    }
}

/// The mean of `paths` on a grid of `n` times over their common span.
pub fn mean_path(paths: &[Vec<(f64, f64)>], n: usize) -> Vec<(f64, f64)> {
    let ends: Vec<(f64, f64)> = paths
        .iter()
        .filter_map(|p| Some((p.first()?.0, p.last()?.0)))
        .collect();
    if ends.is_empty() {
        return Vec::new();
    }
    let t0 = ends.iter().map(|e| e.0).fold(f64::NEG_INFINITY, f64::max);
    let t1 = ends.iter().map(|e| e.1).fold(f64::INFINITY, f64::min);
    if t1 < t0 {
        return Vec::new();
    }
    (0..n)
        .map(|i| {
            let t = t0 + (t1 - t0) * i as f64 / (n - 1).max(1) as f64;
            let v = paths.iter().map(|p| at(p, t)).sum::<f64>() / paths.len() as f64;
            (t, v)
        })
        .collect()
}

/// At most about `n` points of a long path, keeping each bin's extremes.
fn thin_path(p: &[(f64, f64)], n: usize) -> Vec<(f64, f64)> {
    if p.len() <= 2 * n {
        return p.to_vec();
    }
    let per = p.len().div_ceil(n);
    let mut out = Vec::new();
    for c in p.chunks(per) {
        let lo = c
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("non-empty");
        let hi = c
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .expect("non-empty");
        if lo.0 <= hi.0 {
            out.extend([*lo, *hi]);
        } else {
            out.extend([*hi, *lo]);
        }
    }
    out.dedup();
    out
}

/// The sample paths of a path figure (`Summary::path`), per series.
pub(crate) fn path_series(spec: &FigureSpec, results: &[PointResult]) -> Vec<PathSeries> {
    let mut out: Vec<PathSeries> = Vec::new();
    for r in results {
        if !spec.selects(r) {
            continue;
        }
        let all: Vec<Vec<(f64, f64)>> = r.summaries.iter().filter_map(|s| s.path()).collect();
        if all.is_empty() {
            continue;
        }
        let Some(key) = &r.key else { continue };
        let (name, variant) = spec.series_of(r);
        let mean = mean_path(&all, 400);
        let paths = all
            .iter()
            .take(spec.paths as usize)
            .map(|p| thin_path(p, 1500))
            .collect();
        out.push(PathSeries {
            name,
            policy: r.label.clone(),
            variant,
            paths,
            mean,
            key: key.hex(),
            stable: !crate::results::point_unstable(&r.summaries),
        });
    }
    out
}
