//! `lb archive [MANIFEST…] --out DIR`: a self-contained, citable artifact of
//! an audit — the manifests (with their decide ledgers), every record their
//! plans read, the report with its audit and figures, CITATION.cff, the
//! source, lock file and toolchain that made them, and RO-Crate metadata (a
//! Workflow Run Crate: the `just reproduce` workflow, the run that made the
//! report, its inputs and outputs). Unpacked anywhere, `lb verify` and `lb
//! audit` on it recompute the records and reproduce its verdicts.

use crate::git;
use lb_manifest::Profile;
use lb_store::cache::{Cache, FileKind, classify};
use serde_json::json;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The archive written, or why not; Ok is the line that says what it holds.
type Res = Result<String, Box<dyn std::error::Error>>;

/// The files of the source a user rebuilds lb from (relative to the root).
const SOURCE: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "justfile",
    "README.md",
    "ARCHITECTURE.md",
    "LICENSE-MIT",
    "LICENSE-APACHE",
    "CITATION.cff",
    "crates",
    "docs",
    "schema",
    "scripts",
    // The manifest reference: lb's schemas take their descriptions from it,
    // so the source builds with it.
    "experiments/README.md",
];

/// `lb archive`: the manifests, the records they read, the report and lb's source under `out`, with RO-Crate metadata.
pub fn archive(cache: &Cache, manifests: &[PathBuf], report: &Path, out: &Path) -> Res {
    if out.exists() && std::fs::read_dir(out)?.next().is_some() {
        return Err(format!(
            "{} exists and is not empty: lb archive writes a new directory (choose another \
             --out, or remove it)",
            out.display()
        )
        .into());
    }
    if !report.join("README.md").is_file() {
        return Err(format!(
            "{} holds no report (README.md): run `lb reproduce` first, or name the report \
             with --report",
            report.display()
        )
        .into());
    }
    let manifests = crate::manifests_or_all(manifests)?;
    let loaded = lb_manifest::load_all(&manifests, Profile::Full)?;
    std::fs::create_dir_all(out)?;
    // The manifests and their ledgers, under experiments/ as in the repository.
    let mut inputs = Vec::new();
    for (m, e) in manifests.iter().zip(&loaded) {
        let name = m.file_name().ok_or("a manifest path without a file name")?;
        let to = Path::new("experiments").join(name);
        copy(m, &out.join(&to))?;
        inputs.push(to);
        let ledger = lb_manifest::ledger::path(m, e.name());
        if ledger.is_file() {
            let to = Path::new("experiments/decide").join(ledger.file_name().unwrap());
            copy(&ledger, &out.join(&to))?;
            inputs.push(to);
        }
    }
    // The works the manifests cite by key, beside them as in the repository:
    // without it their sources do not load.
    let refs = match manifests.first() {
        Some(m) => lb_manifest::references::References::beside(m)?,
        None => None,
    };
    if let Some(r) = &refs {
        let to = Path::new("experiments").join(lb_manifest::references::FILE);
        copy(&r.file, &out.join(&to))?;
        inputs.push(to);
    }
    // Every record the plans read: each key's directory, records only.
    let mut keys = BTreeSet::new();
    for e in &loaded {
        for plan in e.all_plans() {
            for st in lb_store::run::status(cache, plan) {
                keys.extend(st.key);
                keys.extend(st.calibration.map(|c| c.0));
            }
        }
    }
    let archived = Cache::new(out.join("results"));
    let mut records = 0usize;
    for k in &keys {
        let dir = cache.key_dir(k);
        // Loose files and packed records alike, written loose.
        for name in cache.file_names(k) {
            if matches!(classify(&name), FileKind::Temp | FileKind::Lock)
                || !name.ends_with(".json")
            {
                continue;
            }
            let Some(text) = cache.record_text(&dir.join(&name)) else {
                continue;
            };
            let to = archived.key_dir(k).join(&name);
            std::fs::create_dir_all(archived.key_dir(k))?;
            std::fs::write(&to, text)?;
            records += 1;
        }
    }
    // The report, the source, the lock file.
    copy_tree(report, &out.join("paper-figures"))?;
    for s in SOURCE {
        let p = Path::new(s);
        if p.is_dir() {
            copy_tree(p, &out.join(p))?;
        } else if p.is_file() {
            copy(p, &out.join(p))?;
        }
    }
    let commit = git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_none_or(|s| !s.is_empty());
    let toolchain = format!(
        "lb {}\n{}\ngit commit {commit}{}\n",
        env!("CARGO_PKG_VERSION"),
        lb_store::provenance::rustc_version(),
        if dirty { " (with modified files)" } else { "" }
    );
    std::fs::write(out.join("TOOLCHAIN.txt"), &toolchain)?;
    std::fs::write(out.join("ARCHIVE.md"), how_to(&loaded))?;
    std::fs::write(
        out.join("ro-crate-metadata.json"),
        serde_json::to_string_pretty(&metadata(&loaded, &inputs, records, &commit, refs.as_ref()))?
            + "\n",
    )?;
    Ok(format!(
        "wrote {}: {} manifest(s), {records} record(s) of {} key(s), the report, the source at \
         {}{}, and its RO-Crate metadata",
        out.display(),
        manifests.len(),
        keys.len(),
        &commit[..commit.len().min(10)],
        if dirty {
            " (modified files: the archive says so)"
        } else {
            ""
        }
    ))
}

fn copy(from: &Path, to: &Path) -> std::io::Result<()> {
    if let Some(d) = to.parent() {
        std::fs::create_dir_all(d)?;
    }
    std::fs::copy(from, to).map(|_| ()).map_err(|e| {
        std::io::Error::new(
            e.kind(),
            format!("{} → {}: {e}", from.display(), to.display()),
        )
    })
}

/// Copies a directory's files, recursively (no symlinks followed).
pub(crate) fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let t = e.file_type()?;
        let (f, g) = (e.path(), to.join(e.file_name()));
        if t.is_dir() {
            copy_tree(&f, &g)?;
        } else if t.is_file() {
            copy(&f, &g)?;
        }
    }
    Ok(())
}

/// What a reader of the archive runs.
fn how_to(loaded: &[lb_manifest::Experiment]) -> String {
    let names: Vec<&str> = loaded.iter().map(|e| e.name()).collect();
    format!(
        "# An lb audit, archived\n\n\
         Experiments: {}. The manifests are in `experiments/`, every record they read in \
         `results/`, the report with its audit and figures in `paper-figures/`, and the source \
         that made them (with `Cargo.lock` and `TOOLCHAIN.txt`) beside them; \
         `ro-crate-metadata.json` describes the run (RO-Crate, Workflow Run Crate profile); \
         `CITATION.cff` says how to cite it.\n\n\
         To check it on any machine with a Rust toolchain:\n\n\
         ```sh\n\
         cargo build --release -p lb-cli\n\
         target/release/lb verify                       # every record recomputed bit for bit\n\
         target/release/lb audit experiments/*.toml     # the verdicts of paper-figures/audit.md\n\
         target/release/lb reproduce experiments/*.toml # the report again, from the records\n\
         ```\n",
        names.join(", ")
    )
}

/// RO-Crate 1.1 metadata conforming to the Workflow Run Crate profile: the
/// workflow (`just reproduce`, the justfile), the run that made the report
/// (a CreateAction with the manifests and records as its objects and the
/// report as its result), and every part.
fn metadata(
    loaded: &[lb_manifest::Experiment],
    inputs: &[PathBuf],
    records: usize,
    commit: &str,
    refs: Option<&lb_manifest::references::References>,
) -> serde_json::Value {
    let now = lb_store::provenance::rfc3339(std::time::SystemTime::now());
    let id = |p: &Path| json!({ "@id": p.display().to_string() });
    let titles: Vec<String> = loaded
        .iter()
        .map(|e| format!("{} ({})", e.name(), e.loaded.experiment().title))
        .collect();
    let mut files = vec![json!({
        "@id": "justfile",
        "@type": ["File", "SoftwareSourceCode", "ComputationalWorkflow"],
        "name": "just reproduce",
        "description": "The workflow: `just reproduce` runs `lb reproduce`, which computes every \
                        point the manifests plan that the results lack, then writes the \
                        figures, tables, report and audit.",
        "programmingLanguage": { "@id": "#just" },
    })];
    let mut parts = vec![json!({ "@id": "justfile" })];
    for i in inputs {
        parts.push(id(i));
        files.push(json!({
            "@id": i.display().to_string(),
            "@type": "File",
            "name": i.file_name().unwrap().to_string_lossy(),
            "encodingFormat": if i.extension().is_some_and(|e| e == "toml") {
                "application/toml"
            } else {
                "application/json"
            },
        }));
    }
    for (p, name, what) in [
        ("results/", "The records", format!("{records} record files (JSON), keyed by the hash of each point's configuration: every replication, calibration and precision decision the manifests' plans read, with its provenance")),
        ("paper-figures/", "The report", "The report (README.md), the audit (audit.md), figures, tables and their sidecars, as lb reproduce wrote them".to_string()),
        ("crates/", "The source of lb", format!("The Rust workspace at commit {commit}, with Cargo.toml, Cargo.lock and TOOLCHAIN.txt beside it")),
    ] {
        parts.push(json!({ "@id": p }));
        files.push(json!({ "@id": p, "@type": "Dataset", "name": name, "description": what }));
    }
    for (p, fmt) in [
        ("paper-figures/README.md", "text/markdown"),
        ("paper-figures/audit.md", "text/markdown"),
        ("Cargo.lock", "text/plain"),
        ("TOOLCHAIN.txt", "text/plain"),
        ("CITATION.cff", "application/x-yaml"),
        ("ARCHIVE.md", "text/markdown"),
    ] {
        parts.push(json!({ "@id": p }));
        files.push(json!({ "@id": p, "@type": "File", "name": p, "encodingFormat": fmt }));
    }
    // The works the claims are about (their `paper`s), from references.bib.
    let mut cited: Vec<&lb_manifest::references::Work> = Vec::new();
    if let Some(r) = refs {
        for e in loaded {
            for c in e.loaded.claims() {
                for name in c.paper.iter().flat_map(|p| p.split(';')) {
                    if let Some(w) = r.by_shortname(name.trim())
                        && !cited.iter().any(|x| x.key == w.key)
                    {
                        cited.push(w);
                    }
                }
            }
        }
    }
    let mut objects: Vec<serde_json::Value> = inputs.iter().map(|i| id(i)).collect();
    objects.push(json!({ "@id": "results/" }));
    let mut graph = vec![
        json!({
            "@id": "ro-crate-metadata.json",
            "@type": "CreativeWork",
            "conformsTo": [
                { "@id": "https://w3id.org/ro/crate/1.1" },
                { "@id": "https://w3id.org/workflowhub/workflow-ro-crate/1.0" }
            ],
            "about": { "@id": "./" }
        }),
        json!({
            "@id": "./",
            "@type": "Dataset",
            "name": format!("lb audit: {}", loaded.iter().map(|e| e.name()).collect::<Vec<_>>().join(", ")),
            "description": format!(
                "An archived lb audit of load-balancing experiments: {}. Rebuild lb from the \
                 source here, then `lb verify` recomputes every record and `lb audit` \
                 reproduces the verdicts (ARCHIVE.md).",
                titles.join("; ")
            ),
            "datePublished": now,
            "license": { "@id": "https://spdx.org/licenses/MIT" },
            "conformsTo": [
                { "@id": "https://w3id.org/ro/wfrun/process/0.5" },
                { "@id": "https://w3id.org/ro/wfrun/workflow/0.5" },
                { "@id": "https://w3id.org/workflowhub/workflow-ro-crate/1.0" }
            ],
            "mainEntity": { "@id": "justfile" },
            "citation": cited.iter().map(|w| json!({ "@id": format!("#{}", w.key) })).collect::<Vec<_>>(),
            "hasPart": parts,
            "mentions": [{ "@id": "#reproduce" }]
        }),
        json!({
            "@id": "#reproduce",
            "@type": "CreateAction",
            "name": "lb reproduce: the records computed, the report and audit written",
            "instrument": { "@id": "justfile" },
            "object": objects,
            "result": [
                { "@id": "paper-figures/" },
                { "@id": "paper-figures/README.md" },
                { "@id": "paper-figures/audit.md" }
            ],
            "endTime": now
        }),
        json!({
            "@id": "#just",
            "@type": "ComputerLanguage",
            "name": "just",
            "url": { "@id": "https://just.systems" }
        }),
        json!({
            "@id": "https://spdx.org/licenses/MIT",
            "@type": "CreativeWork",
            "name": "MIT License (lb is dual-licensed MIT or Apache-2.0)"
        }),
    ];
    for (uri, name) in [
        ("https://w3id.org/ro/wfrun/process/0.5", "Process Run Crate"),
        (
            "https://w3id.org/ro/wfrun/workflow/0.5",
            "Workflow Run Crate",
        ),
        (
            "https://w3id.org/workflowhub/workflow-ro-crate/1.0",
            "Workflow RO-Crate",
        ),
    ] {
        graph.push(json!({ "@id": uri, "@type": "CreativeWork", "name": name, "version": uri.rsplit('/').next() }));
    }
    for w in &cited {
        graph.push(json!({
            "@id": format!("#{}", w.key),
            "@type": "ScholarlyArticle",
            "name": w.title,
            "author": w.authors,
        }));
    }
    graph.extend(files);
    json!({ "@context": "https://w3id.org/ro/crate/1.1/context", "@graph": graph })
}
