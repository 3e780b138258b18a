//! Writing outputs to disk: the one place that decides whether a file is
//! rewritten. A leaf module, used by the pages (lb-report) and the
//! robustness maps (lb-audit) alike.

use std::path::Path;

/// Writes a file only if its content changed (keeps mtimes of unchanged
/// outputs, and makes a warm run a no-op on disk).
pub fn write_if_changed(path: &Path, body: &[u8]) -> std::io::Result<()> {
    if std::fs::read(path).ok().as_deref() == Some(body) {
        return Ok(());
    }
    // Every failure names the path it failed on; a partial temporary file
    // (a full disk) is removed.
    let named = |p: &Path, e: std::io::Error| {
        std::io::Error::new(e.kind(), format!("{}: {e}", p.display()))
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| named(dir, e))?;
    }
    let tmp = path.with_extension("tmp");
    if let Err(e) = std::fs::write(&tmp, body) {
        let _ = std::fs::remove_file(&tmp);
        return Err(named(&tmp, e));
    }
    std::fs::rename(&tmp, path).map_err(|e| named(path, e))
}
