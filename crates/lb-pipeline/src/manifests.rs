//! Which manifests a command reads, and whether a results directory exists.

use crate::Error;
use lb_store::cache::Cache;
use std::path::{Path, PathBuf};

/// The manifests named, or every `experiments/*.toml` in name order.
pub fn manifests_or_all(given: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    if !given.is_empty() {
        return Ok(given.to_vec());
    }
    let dir = Path::new("experiments");
    let mut all: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| {
            format!(
                "cannot list {}: {e} (run lb from the repository root, or name the manifests)",
                dir.display()
            )
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    all.sort();
    if all.is_empty() {
        return Err(format!("no manifests in {}", dir.display()).into());
    }
    Ok(all)
}

/// The results directory must exist for commands that only read it (a
/// mistyped `--results` is an error, not an empty audit).
pub fn existing(cache: &Cache) -> Result<(), Error> {
    let root = cache.root();
    match std::fs::metadata(root) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(format!(
            "{}: not a directory; --results names a results directory",
            root.display()
        )
        .into()),
        Err(e) => Err(format!(
            "{}: no results directory ({e}); --results names one (default: results)",
            root.display()
        )
        .into()),
    }
}
