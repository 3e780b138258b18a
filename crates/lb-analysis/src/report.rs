//! Writes an experiment's outputs under `paper-figures/<experiment>/` and the
//! report page `paper-figures/README.md` (issue 4). Everything written is a
//! function of the cached records and the manifests: no timestamps, no host
//! names, so a warm `lb reproduce` leaves every file byte-identical.

use crate::figure::{FigureSpec, Series, render, series, zeta_points};
use crate::metric::Metric;
use crate::results::PointResult;
use crate::table::{csv, json, markdown, replications_frame, summary_frame};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What the report needs of one experiment.
pub struct Experiment<'a> {
    pub name: &'a str,
    pub title: &'a str,
    pub source: Option<&'a str>,
    pub notes: Option<&'a str>,
    /// The manifest, relative to the repository root.
    pub manifest: &'a Path,
    pub results: &'a [PointResult],
    pub figures: &'a [FigureSpec],
}

/// What was written for one experiment.
pub struct Written {
    pub files: Vec<PathBuf>,
    /// Figures with their series (for the report and for checks).
    pub figures: Vec<(FigureSpec, Vec<Series>)>,
    /// Points that miss the precision target: (figure, series, x, rel. hw).
    pub imprecise: Vec<(String, String, f64, f64)>,
    /// Points not yet in the cache.
    pub missing: usize,
}

/// Writes a file only if its content changed (keeps mtimes of unchanged
/// outputs, and makes a warm run a no-op on disk).
pub fn write_if_changed(path: &Path, body: &[u8]) -> std::io::Result<()> {
    if std::fs::read(path).ok().as_deref() == Some(body) {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, body)?;
    std::fs::rename(&tmp, path)
}

/// Writes tables and figures of `exp` under `out/<name>/`.
pub fn write_experiment(
    out: &Path,
    exp: &Experiment,
) -> Result<Written, Box<dyn std::error::Error>> {
    let dir = out.join(exp.name);
    std::fs::create_dir_all(&dir)?;
    let mut files = Vec::new();
    let metrics = Metric::table_metrics(crate::results::model(exp.results));
    let long = replications_frame(exp.name, exp.results, &metrics)?;
    let summary = summary_frame(exp.results, &long, &metrics)?;
    for (file, body) in [
        ("replications.csv", csv(&long)?),
        ("table.csv", csv(&summary)?),
        ("table.md", markdown(&summary)?),
        ("table.json", json(&summary)?),
    ] {
        let p = dir.join(file);
        write_if_changed(&p, body.as_bytes())?;
        files.push(p);
    }
    let mut figures = Vec::new();
    let mut imprecise = Vec::new();
    for spec in exp.figures {
        let s = series(spec, exp.results);
        let z = if spec.zeta_line {
            zeta_points(spec, exp.results)
        } else {
            Vec::new()
        };
        // Render into a scratch stem, then move only changed files into place.
        let scratch = std::env::temp_dir().join(format!(
            "lb-fig-{}-{}-{}",
            std::process::id(),
            exp.name,
            spec.name
        ));
        render(spec, &s, &z, &scratch)?;
        for ext in ["svg", "png"] {
            let from = scratch.with_extension(ext);
            let to = dir.join(&spec.name).with_extension(ext);
            let body = std::fs::read(&from)?;
            std::fs::remove_file(&from)?;
            write_if_changed(&to, &body)?;
            files.push(to);
        }
        // Sidecar: the keys of every plotted point, for `lb show`.
        let mut keys = String::from("series,x,mean,half_width,stable,key\n");
        for ser in &s {
            for d in &ser.dots {
                let _ = writeln!(
                    keys,
                    "\"{}\",{},{},{},{},{}",
                    ser.name,
                    d.x,
                    d.mean,
                    d.half_width.map(|h| h.to_string()).unwrap_or_default(),
                    d.stable,
                    d.key
                );
                let rel = d.half_width.map(|h| h / d.mean.abs());
                if d.stable && rel.is_none_or(|r| r > 0.05) {
                    imprecise.push((
                        spec.name.clone(),
                        ser.name.clone(),
                        d.x,
                        rel.unwrap_or(f64::NAN),
                    ));
                }
            }
        }
        let p = dir.join(format!("{}.keys.csv", spec.name));
        write_if_changed(&p, keys.as_bytes())?;
        files.push(p);
        figures.push((spec.clone(), s));
    }
    let missing = exp.results.iter().filter(|r| !r.complete()).count();
    Ok(Written {
        files,
        figures,
        imprecise,
        missing,
    })
}

/// The report page: every figure with its caption and the seed's claim.
pub fn report_page(exps: &[(&Experiment, &Written)]) -> String {
    let mut s = String::new();
    s.push_str("# lb — reproduced figures and tables\n\n");
    s.push_str(
        "Generated by `lb reproduce` from the manifests in `experiments/` and the records in \
         `results/`; do not edit by hand. Every point is a mean over independent replications \
         with its 95% Student-t interval; a point whose run did not settle is marked unstable \
         (× on the top edge), never plotted as a number. Each figure has a `.keys.csv` sidecar \
         naming the record behind every point (`lb show KEY`).\n\n",
    );
    for (exp, w) in exps {
        let _ = writeln!(s, "## {} — {}\n", exp.name, exp.title);
        if let Some(src) = exp.source {
            let _ = writeln!(
                s,
                "Source: {src}. Manifest: `{}`.\n",
                exp.manifest.display()
            );
        }
        if let Some(n) = exp.notes {
            let _ = writeln!(s, "{}\n", n.trim());
        }
        for (spec, _) in &w.figures {
            let _ = writeln!(s, "### {}\n", spec.title);
            let _ = writeln!(s, "![{}]({}/{}.svg)\n", spec.title, exp.name, spec.name);
            let _ = writeln!(s, "{}\n", spec.caption.trim());
            if let Some(claim) = &spec.claim {
                let _ = writeln!(s, "*The seed claims:* {claim}\n");
            }
        }
        let _ = writeln!(
            s,
            "Table: [`{0}/table.md`]({0}/table.md) ([CSV]({0}/table.csv), [JSON]({0}/table.json), \
             [per replication]({0}/replications.csv)).\n",
            exp.name
        );
        if w.missing > 0 {
            let _ = writeln!(
                s,
                "**{} point(s) not yet computed** (`lb run {}`).\n",
                w.missing,
                exp.manifest.display()
            );
        }
        if !w.imprecise.is_empty() {
            let _ = writeln!(s, "Points above the 5% relative half-width target:\n");
            for (f, ser, x, r) in &w.imprecise {
                let _ = writeln!(s, "- {f}: {ser} at x = {x}: {:.1}%", 100.0 * r);
            }
            s.push('\n');
        }
    }
    s
}
