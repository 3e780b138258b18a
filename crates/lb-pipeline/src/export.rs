//! `export`: the whole cache as one tidy Parquet file (lb-analysis's
//! `tidy::cache_frame`), keys mapped to the experiments whose full or quick
//! profiles plan them.

use crate::Error;
use lb_model::Key;
use lb_model::model::Profile;
use lb_store::cache::Cache;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What `export` wrote.
pub struct Exported {
    /// Rows written.
    pub rows: usize,
    /// Points read.
    pub points: usize,
    /// Damaged records left out.
    pub damaged: usize,
}

/// Writes every record of `cache` to the Parquet file `out`, each key named
/// by the experiments of `manifests` that plan it.
pub fn export(cache: &Cache, manifests: &[PathBuf], out: &Path) -> Result<Exported, Error> {
    let mut experiments: BTreeMap<Key, Vec<String>> = BTreeMap::new();
    for p in [Profile::Full, Profile::Quick] {
        for e in lb_manifest::load_all(manifests, p)? {
            for st in lb_store::run::status(cache, &e.plan) {
                if let Some(k) = st.key {
                    let names = experiments.entry(k).or_default();
                    if !names.iter().any(|n| n == e.name()) {
                        names.push(e.name().to_string());
                    }
                }
            }
        }
    }
    let (frame, damaged) = lb_analysis::tidy::cache_frame(cache, &experiments)?;
    lb_analysis::tidy::write_parquet(&frame, out)?;
    Ok(Exported {
        rows: frame.height(),
        points: frame.column("key")?.n_unique()?,
        damaged,
    })
}
