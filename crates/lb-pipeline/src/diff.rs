//! `lb diff [MANIFEST…] --against OTHER`: this checkout's results against
//! another results directory or another git revision (its manifests and its
//! committed cache), or (`--report DIR`) one report against another — per
//! experiment, the claims whose verdict moved with
//! the deciding measurement on each side (the why), the table values that
//! moved beyond their intervals, and the figures whose data moved. Exits
//! non-zero when a required claim's verdict moved: a commit that changes
//! numbers says "no verdict moved" with this, not by hand.

use crate::audit::audit;
use crate::git;
use lb_analysis::figure::{Figure, FigureSpec, point_estimate};
use lb_analysis::metric::Metric;
use lb_analysis::{PointResult, collect};
use lb_audit::ClaimResult;
use lb_manifest::{Experiment, Profile};
use lb_store::cache::Cache;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What `lb diff` found: its lines, failing when a required verdict moved.
type Res = crate::Said;

/// One side of the comparison: its name, cache and experiments.
struct Side {
    name: String,
    cache: Cache,
    loaded: Vec<Experiment>,
    /// A revision's files, extracted (kept alive while compared).
    _tmp: Option<tempfile::TempDir>,
}

/// `against`: a results directory (compared with the same manifests), or a
/// git revision of the repository in the working directory, whose
/// `experiments/` and `results/` are extracted and compared as they were.
fn other_side(against: &str, manifests: &[PathBuf], profile: Profile) -> Result<Side, String> {
    let p = Path::new(against);
    if p.is_dir() {
        let loaded = lb_manifest::load_all(manifests, profile).map_err(|e| e.to_string())?;
        return Ok(Side {
            name: p.display().to_string(),
            cache: Cache::new(p),
            loaded,
            _tmp: None,
        });
    }
    let commit =
        git(&["rev-parse", "--verify", &format!("{against}^{{commit}}")]).ok_or_else(|| {
            let shallow =
                std::env::current_dir().is_ok_and(|d| lb_store::provenance::is_shallow(&d));
            format!(
                "--against {against}: neither a results directory nor a git revision of the \
                 repository here (give a directory such as results-before/, or a revision such \
                 as HEAD~1 or a commit){}",
                if shallow {
                    "; this clone is shallow (`git clone --depth`): `git fetch --unshallow` \
                     brings the revisions it left out"
                } else {
                    ""
                }
            )
        })?;
    let tmp = tempfile::tempdir().map_err(|e| format!("a scratch directory: {e}"))?;
    let tar = tmp.path().join("revision.tar");
    let archive = Command::new("git")
        .args(["archive", "--format=tar", "-o"])
        .arg(&tar)
        .args([commit.as_str(), "--", "experiments", "results"])
        .output()
        .map_err(|e| format!("git archive: {e}"))?;
    if !archive.status.success() {
        return Err(format!(
            "git archive {against}: {}",
            String::from_utf8_lossy(&archive.stderr).trim()
        ));
    }
    let unpack = Command::new("tar")
        .arg("-xf")
        .arg(&tar)
        .arg("-C")
        .arg(tmp.path())
        .output()
        .map_err(|e| format!("tar: {e}"))?;
    if !unpack.status.success() {
        return Err(format!(
            "unpacking {against}'s files: {}",
            String::from_utf8_lossy(&unpack.stderr).trim()
        ));
    }
    // The same manifests as they were at the revision (those it had).
    let theirs: Vec<PathBuf> = manifests
        .iter()
        .map(|m| tmp.path().join(m))
        .filter(|m| m.exists())
        .collect();
    // An older revision's paper claims may predate `reading`.
    let options = lb_manifest::LoadOptions {
        profile,
        older_revision: true,
    };
    let loaded =
        lb_manifest::load_all_with(&theirs, options).map_err(|e| format!("at {against}: {e}"))?;
    Ok(Side {
        name: format!("{against} ({})", &commit[..commit.len().min(10)]),
        cache: Cache::new(tmp.path().join("results")),
        loaded,
        _tmp: Some(tmp),
    })
}

/// `lb diff --against REV`: the verdicts, table values and figure data that moved between `against` and the records of `a`, for `manifests`.
pub fn diff(a: &Cache, against: &str, manifests: &[PathBuf], profile: Profile) -> Res {
    if is_report(Path::new(against)) {
        return Err(format!(
            "--against {against} is a report: compare it with another with `lb diff --report \
             DIR --against {against}`"
        )
        .into());
    }
    let manifests = crate::manifests_or_all(manifests)?;
    let here = Side {
        name: a.root().display().to_string(),
        cache: Cache::new(a.root()),
        loaded: lb_manifest::load_all(&manifests, profile)?,
        _tmp: None,
    };
    let there = other_side(against, &manifests, profile)?;
    let (va, vb) = (
        audit(&here.cache, &here.loaded),
        audit(&there.cache, &there.loaded),
    );
    let index = |side: &Side, claims: &[Vec<ClaimResult>]| {
        let mut m: BTreeMap<String, BTreeMap<String, ClaimResult>> = BTreeMap::new();
        for (e, cs) in side.loaded.iter().zip(claims) {
            let e = m.entry(e.name().to_string()).or_default();
            for c in cs {
                e.insert(c.id.clone(), c.clone());
            }
        }
        m
    };
    let (ca, cb) = (index(&here, &va.claims), index(&there, &vb.claims));
    let mut t = Tally::default();
    for ea in &here.loaded {
        let name = ea.name();
        let eb = there.loaded.iter().find(|e| e.name() == name);
        let mut lines = Vec::new();
        // Verdicts.
        let empty = BTreeMap::new();
        let (xa, xb) = (&ca[name], cb.get(name).unwrap_or(&empty));
        let words = |c: &lb_audit::ClaimResult| {
            lb_audit::verdict_words(c.verdict.word(), c.untested.is_some(), c.no_point())
        };
        for (id, c) in xa {
            t.claims += 1;
            let Some(d) = xb.get(id) else {
                lines.push(format!("  claim {id}: new here ({})", words(c)));
                continue;
            };
            if words(c) == words(d) {
                continue;
            }
            t.moved += 1;
            t.required += usize::from(c.required || d.required);
            lines.push(format!(
                "  {}claim {id}: {} → {}\n      {}: {}\n      {}: {}",
                if c.required || d.required {
                    "REQUIRED "
                } else {
                    ""
                },
                words(d),
                words(c),
                there.name,
                side_words(d),
                here.name,
                side_words(c)
            ));
        }
        for (id, d) in xb {
            if !xa.contains_key(id) {
                lines.push(format!(
                    "  claim {id}: only at {} ({})",
                    there.name,
                    words(d)
                ));
            }
        }
        // Table values and figures, point by point.
        let ra = collect(&here.cache, &ea.plan);
        let rb = eb
            .map(|e| collect(&there.cache, &e.plan))
            .unwrap_or_default();
        let moved_values = moved_values(&ra, &rb);
        t.values += moved_values.len();
        for v in moved_values.iter().take(12) {
            lines.push(format!("  value {v}"));
        }
        if moved_values.len() > 12 {
            lines.push(format!("  … and {} more values", moved_values.len() - 12));
        }
        for f in ea.loaded.figures() {
            let spec = FigureSpec::from_toml(ea.loaded.model(), f);
            let fb = eb.and_then(|e| {
                e.loaded
                    .figures()
                    .iter()
                    .find(|g| g.name == f.name)
                    .map(|g| FigureSpec::from_toml(e.loaded.model(), g))
            });
            let moved = match fb {
                None => Some("new here".to_string()),
                Some(sb) => figure_moved(&Figure::new(&spec, &ra), &Figure::new(&sb, &rb)),
            };
            if let Some(why) = moved {
                t.figures += 1;
                lines.push(format!("  figure {}: {why}", f.name));
            }
        }
        t.section(name, lines);
    }
    t.finish(&there.name, &here.name)
}

/// What moved between the two sides, counted as it is written.
#[derive(Default)]
struct Tally {
    out: String,
    claims: usize,
    moved: usize,
    required: usize,
    values: usize,
    figures: usize,
}

impl Tally {
    /// One experiment's lines under its name (nothing if none moved).
    fn section(&mut self, name: &str, lines: Vec<String>) {
        if lines.is_empty() {
            return;
        }
        self.out += &format!("{name}:\n");
        for l in lines {
            self.out += &format!("{l}\n");
        }
    }

    /// The closing line; non-zero when a required verdict moved.
    fn finish(mut self, there: &str, here: &str) -> Res {
        self.out += &format!(
            "{} claims: {} verdict(s) moved between {there} and {here}{}; {} table value(s) \
             moved beyond their intervals; {} figure(s) whose data moved",
            self.claims,
            self.moved,
            if self.required > 0 {
                format!(", {} of them required", self.required)
            } else {
                String::new()
            },
            self.values,
            self.figures
        );
        self.out.push('\n');
        Ok(crate::Text {
            out: self.out,
            err: String::new(),
            ok: self.required == 0,
        })
    }
}

/// The deciding measurement of a claim on one side, or what it lacks.
fn side_words(c: &ClaimResult) -> String {
    match (c.deciding(), c.missing.first()) {
        (Some(k), _) => lb_audit::describe(c, k),
        (None, Some(m)) => format!(
            "missing data ({m}{})",
            if c.missing.len() > 1 {
                format!(" and {} more", c.missing.len() - 1)
            } else {
                String::new()
            }
        ),
        (None, None) => "no deciding point".into(),
    }
}

/// The table values (a point's metric) that moved beyond their intervals:
/// the two estimates differ by more than the half-width of their difference
/// (√(h_a² + h_b²), the two sides being independent replications unless the
/// records are the same). A point whose records are bit-identical on both
/// sides moved nothing.
fn moved_values(a: &[PointResult], b: &[PointResult]) -> Vec<String> {
    let mut out = Vec::new();
    for ra in a {
        let Some(rb) = b
            .iter()
            .find(|rb| rb.label == ra.label && rb.axes == ra.axes)
        else {
            continue;
        };
        let (Some(pa), Some(pb)) = (&ra.point, &rb.point) else {
            continue;
        };
        if ra.key == rb.key && ra.summaries == rb.summaries {
            continue;
        }
        let axes: Vec<String> = ra.axes.iter().map(|(x, _)| x.clone()).collect();
        for m in Metric::table_metrics_for(pa.model, &axes) {
            let (Some(x), Some(y)) = (point_estimate(m, pa, ra), point_estimate(m, pb, rb)) else {
                continue;
            };
            let h = |e: &lb_analysis::stats::Estimate| match (e.lo, e.hi) {
                (Some(lo), Some(hi)) => (hi - lo) / 2.0,
                _ => 0.0,
            };
            let width = (h(&x).powi(2) + h(&y).powi(2)).sqrt();
            let d = x.mean - y.mean;
            if d.abs() > width && d.abs() > 0.0 {
                let at: Vec<String> = ra.axes.iter().map(|(k, v)| format!("{k}={v}")).collect();
                out.push(format!(
                    "{} {} at {}: {} → {} (moved {}, beyond ±{})",
                    ra.label,
                    m.name(),
                    at.join(" "),
                    lb_analysis::table::fmt_sig(y.mean, 4),
                    lb_analysis::table::fmt_sig(x.mean, 4),
                    lb_analysis::table::fmt_sig(d, 2),
                    lb_analysis::table::fmt_sig(width, 2)
                ));
            }
        }
    }
    out
}

/// Why a figure's data differ between the sides, or None: the points each
/// series draws (x, estimate, interval, stability) and its references.
fn figure_moved(a: &Figure, b: &Figure) -> Option<String> {
    if a.spec.y != b.spec.y {
        let name = |f: &Figure| f.spec.y.map_or("paths", |m| m.name());
        return Some(format!("draws {} where it drew {}", name(a), name(b)));
    }
    let dots = |f: &Figure| -> BTreeMap<(String, String), String> {
        let mut m = BTreeMap::new();
        for s in &f.series {
            for d in &s.dots {
                m.insert(
                    (s.name.clone(), format!("{}", d.x)),
                    format!(
                        "{:?} {:?} {:?} {}",
                        d.est.mean, d.est.lo, d.est.hi, d.stable
                    ),
                );
            }
        }
        m
    };
    let (da, db) = (dots(a), dots(b));
    let changed = da.iter().filter(|(k, v)| db.get(*k) != Some(*v)).count()
        + db.keys().filter(|k| !da.contains_key(*k)).count();
    if changed > 0 {
        return Some(format!(
            "{changed} of {} point(s) drawn differ",
            da.len().max(db.len())
        ));
    }
    if format!("{:?}", a.references) != format!("{:?}", b.references) {
        return Some("its reference curves differ".into());
    }
    None
}

/// Whether `dir` holds a report (`lb reproduce --out`): its pages and the
/// experiments' parts.
pub fn is_report(dir: &Path) -> bool {
    dir.join("README.md").is_file() && dir.join("audit.md").is_file()
}

/// `lb diff --report HERE --against THERE` with two reports: the verdicts
/// of their `claims.json`, the values of their `table.csv` (a value and its
/// `_hw` half-width), and their figures' `*.keys.csv` sidecars, experiment
/// by experiment. Non-zero when a required verdict moved.
pub fn diff_reports(here: &Path, there: &Path) -> Res {
    let exps = |d: &Path| -> BTreeMap<String, PathBuf> {
        std::fs::read_dir(d)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("claims.json").is_file())
            .map(|p| (p.file_name().unwrap().to_string_lossy().to_string(), p))
            .collect()
    };
    let (ea, eb) = (exps(here), exps(there));
    let mut t = Tally::default();
    for (name, pa) in &ea {
        let mut lines = Vec::new();
        let Some(pb) = eb.get(name) else {
            t.out += &format!("{name}: only in {}\n", here.display());
            continue;
        };
        let verdicts = |p: &Path| -> Result<BTreeMap<String, serde_json::Value>, String> {
            let text = std::fs::read_to_string(p.join("claims.json"))
                .map_err(|e| format!("{}: {e}", p.display()))?;
            let v: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))?;
            Ok(v["claims"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| Some((c["id"].as_str()?.to_string(), c.clone())))
                .collect())
        };
        let (va, vb) = (verdicts(pa)?, verdicts(pb)?);
        for (id, c) in &va {
            t.claims += 1;
            // A confirmation that stopped (or started) discriminating moved too.
            let word = |c: &serde_json::Value| {
                let v = c["verdict"].as_str().unwrap_or("?");
                let informative = (
                    c["informative"][0].as_u64().unwrap_or(1) as usize,
                    c["informative"][1].as_u64().unwrap_or(1) as usize,
                );
                let matched = c["matched"].as_bool().unwrap_or(false);
                // A word of an older report that names no verdict lb has
                // now is shown as it is, and taken as undecided.
                let verdict =
                    lb_audit::Verdict::from_word(v).unwrap_or(lb_audit::Verdict::Inconclusive);
                lb_audit::verdict_words(
                    v,
                    c["untested"].as_str().is_some(),
                    lb_audit::no_point(informative, matched, verdict),
                )
            };
            match vb.get(id) {
                None => lines.push(format!("  claim {id}: new here ({})", word(c))),
                Some(d) if word(c) != word(d) => {
                    t.moved += 1;
                    let req = c["required"].as_bool() == Some(true);
                    t.required += usize::from(req);
                    lines.push(format!(
                        "  {}claim {id}: {} → {}\n      {}: {}\n      {}: {}",
                        if req { "REQUIRED " } else { "" },
                        word(d),
                        word(c),
                        there.display(),
                        d["deciding"].as_str().unwrap_or("—"),
                        here.display(),
                        c["deciding"].as_str().unwrap_or("—")
                    ));
                }
                Some(_) => {}
            }
        }
        let ta = csv_rows(&pa.join("table.csv"));
        let tb = csv_rows(&pb.join("table.csv"));
        let mut n = 0;
        for (id, row) in &ta.rows {
            let Some(other) = tb.rows.get(id) else {
                continue;
            };
            for (j, col) in ta.header.iter().enumerate() {
                let Some(k) = tb.header.iter().position(|c| c == col) else {
                    continue;
                };
                let hw = |h: &[String], r: &[String]| {
                    h.iter()
                        .position(|c| *c == format!("{col}_hw"))
                        .and_then(|i| r.get(i)?.parse::<f64>().ok())
                };
                let (Some(ha), Some(hb)) = (hw(&ta.header, row), hw(&tb.header, other)) else {
                    continue;
                };
                let (Ok(x), Ok(y)) = (row[j].parse::<f64>(), other[k].parse::<f64>()) else {
                    continue;
                };
                let width = (ha * ha + hb * hb).sqrt();
                if (x - y).abs() > width {
                    n += 1;
                    if n <= 12 {
                        lines.push(format!(
                            "  value {} {col}: {} → {} (beyond ±{})",
                            id,
                            lb_analysis::table::fmt_sig(y, 4),
                            lb_analysis::table::fmt_sig(x, 4),
                            lb_analysis::table::fmt_sig(width, 2)
                        ));
                    }
                }
            }
        }
        if n > 12 {
            lines.push(format!("  … and {} more values", n - 12));
        }
        t.values += n;
        let sidecars = |p: &Path| -> BTreeMap<String, String> {
            std::fs::read_dir(p)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|f| f.to_string_lossy().ends_with(".keys.csv"))
                .filter_map(|f| {
                    let name = f.file_name()?.to_string_lossy().replace(".keys.csv", "");
                    Some((name, std::fs::read_to_string(&f).ok()?))
                })
                .collect()
        };
        let (sa, sb) = (sidecars(pa), sidecars(pb));
        for (fig, text) in &sa {
            if sb.get(fig) != Some(text) {
                t.figures += 1;
                lines.push(format!(
                    "  figure {fig}: {}",
                    if sb.contains_key(fig) {
                        "its points or their records differ"
                    } else {
                        "new here"
                    }
                ));
            }
        }
        t.section(name, lines);
    }
    t.finish(&there.display().to_string(), &here.display().to_string())
}

/// A table's rows by their identity (the columns before `n`: the policy,
/// the axes, p̂), as written by `lb reproduce` (CSV with quoted fields).
struct Rows {
    header: Vec<String>,
    rows: BTreeMap<String, Vec<String>>,
}

fn csv_rows(path: &Path) -> Rows {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut lines = text.lines().map(csv_fields);
    let header = lines.next().unwrap_or_default();
    let id_cols = header.iter().position(|c| c == "n").unwrap_or(1);
    let rows = lines
        .map(|r| {
            let id: Vec<String> = header
                .iter()
                .zip(&r)
                .take(id_cols)
                .filter(|(_, v)| !v.is_empty())
                .map(|(h, v)| {
                    if h == "policy" {
                        v.clone()
                    } else {
                        format!("{h}={v}")
                    }
                })
                .collect();
            (id.join(" "), r)
        })
        .collect();
    Rows { header, rows }
}

/// The fields of one CSV line ("" escapes a quote inside quotes).
fn csv_fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    out.push(cur);
    out
}
