//! The audit: every claim of the experiments held against the records
//! (lb-analysis's `audit`), every robustness map audited at each of its
//! combinations, the audit's pages, and the gate that fails on a required
//! claim that is refuted or lacks data.
//!
//! A claim is held at the level its experiment's decide ledger leaves it
//! ([`lb_manifest::Experiment::claims_as_audited`]: stricter after more than
//! one look, [`crate::decide`]); a robustness map's row of the manifest's
//! own settings shows the claims' verdicts at those levels, as the audit
//! does, and its other rows the manifest's levels.

use crate::Error;
use lb_analysis::{PointResult, collect};
use lb_audit::robustness::{MapResult, audit_maps};
use lb_audit::{ClaimResult, ExperimentClaims, Verdict, audit_experiment};
use lb_manifest::Experiment;
use lb_report::{assemble, claims_json, experiments_in, write_if_changed};
use lb_store::cache::Cache;
use std::path::Path;

/// The verdicts on a set of experiments, in their order.
pub struct Audited {
    /// Each experiment's claims.
    pub claims: Vec<Vec<ClaimResult>>,
    /// Each experiment's robustness maps.
    pub maps: Vec<Vec<MapResult>>,
}

/// Audits the experiments' claims and robustness maps on the records in
/// `cache`, from each experiment's own records (`results`, collected by the
/// caller, in the experiments' order).
pub(crate) fn audit_with(
    cache: &Cache,
    loaded: &[Experiment],
    results: &[Vec<PointResult>],
) -> Audited {
    let claims = audit_all(loaded, results);
    let mut maps = maps_of(cache, loaded, results);
    for ((e, cs), ms) in loaded.iter().zip(&claims).zip(&mut maps) {
        if !e.ledger.claims.is_empty() {
            base_rows_as_audited(ms, cs);
        }
    }
    Audited { claims, maps }
}

/// The row of the manifest's own settings of each map holds the claims'
/// verdicts as the audit gives them (at the levels of the decide ledger),
/// and each claim's summary across the map is decided again with them.
fn base_rows_as_audited(maps: &mut [MapResult], claims: &[ClaimResult]) {
    for m in maps {
        let mut changed = false;
        for combo in m.combinations.iter_mut().filter(|c| c.base) {
            for (k, mc) in m.claims.iter().enumerate() {
                if let Some(c) = claims.iter().find(|c| c.id == mc.id)
                    && combo.verdicts[k] != c.verdict
                {
                    combo.verdicts[k] = c.verdict;
                    changed = true;
                }
            }
        }
        if changed {
            for (k, mc) in m.claims.iter_mut().enumerate() {
                let combos: Vec<(Vec<String>, Verdict)> = m
                    .combinations
                    .iter()
                    .map(|x| (x.values.clone(), x.verdicts[k]))
                    .collect();
                mc.decision = lb_audit::robustness::decide(&m.settings, &combos);
            }
        }
    }
}

/// Audits the experiments on the records in `cache`.
pub fn audit(cache: &Cache, loaded: &[Experiment]) -> Audited {
    let results: Vec<Vec<PointResult>> = loaded.iter().map(|e| collect(cache, &e.plan)).collect();
    audit_with(cache, loaded, &results)
}

/// The audit's mutation check ([`lb_audit::mutants`]) of every
/// claim of the experiments, on the records in `cache`.
pub fn mutants(cache: &Cache, loaded: &[Experiment]) -> Vec<lb_audit::mutants::Mutants> {
    let all: Vec<Vec<PointResult>> = loaded.iter().map(|e| collect(cache, &e.plan)).collect();
    loaded
        .iter()
        .zip(&all)
        .flat_map(|(e, results)| {
            e.claims_as_audited()
                .iter()
                .map(|c| {
                    let best = evidence(loaded, &all, c, results);
                    lb_audit::mutants::mutants(e.name(), c, &best)
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The records a claim is audited on: its experiment's, or where it
/// `reads` others, the best evidence lb holds of its reading
/// ([`lb_analysis::results::best_evidence`]). Borrowed where it reads only
/// its own: most claims, which need no copy of their experiment's records.
fn evidence<'a>(
    loaded: &[Experiment],
    all: &[Vec<PointResult>],
    c: &lb_manifest::claim::Claim,
    rs: &'a [PointResult],
) -> std::borrow::Cow<'a, [PointResult]> {
    let others: Vec<&[PointResult]> = c
        .reads
        .iter()
        .filter_map(|n| loaded.iter().position(|x| x.name() == n))
        .map(|i| &all[i][..])
        .collect();
    if others.is_empty() {
        return std::borrow::Cow::Borrowed(rs);
    }
    // What the claim, its foil and each null read: each a group whose
    // policies pair with one another, so each group's points come from one
    // experiment; a null's group may come from another than the claim's.
    let mut groups: Vec<Vec<String>> =
        vec![c.check.labels().iter().map(|l| l.to_string()).collect()];
    if let Some(f) = &c.foil {
        groups.push(f.check.labels().iter().map(|l| l.to_string()).collect());
    }
    for n in c.nulls() {
        groups.push(n.check.labels().iter().map(|l| l.to_string()).collect());
    }
    let mut out = rs.to_vec();
    for g in &groups {
        let labels: Vec<&str> = g.iter().map(String::as_str).collect();
        out = lb_analysis::results::best_evidence(&out, &others, &labels);
    }
    std::borrow::Cow::Owned(out)
}

/// Each manifest's robustness maps, audited on the records in `cache`. A
/// combination's records are read as its claims read theirs: where a claim
/// `reads` other experiments, the best evidence lb holds of the
/// combination's reading ([`evidence`]), so the row of the manifest's own
/// settings reads what the claim reads.
fn maps_of(
    cache: &Cache,
    loaded: &[Experiment],
    results: &[Vec<PointResult>],
) -> Vec<Vec<MapResult>> {
    loaded
        .iter()
        .map(|e| {
            let rs: Vec<Vec<PointResult>> = e
                .variants
                .iter()
                .map(|v| {
                    let mut rs = collect(cache, &v.plan);
                    for c in e.loaded.claims().iter().filter(|c| !c.reads.is_empty()) {
                        rs = evidence(loaded, results, c, &rs).into_owned();
                    }
                    rs
                })
                .collect();
            audit_maps(&e.loaded, &e.variants, &rs)
        })
        .collect()
}

impl Audited {
    /// Each experiment's claims (for the terminal) and its section of
    /// `audit.md`.
    pub fn parts(&self, loaded: &[Experiment]) -> Vec<(ExperimentClaims, String)> {
        loaded
            .iter()
            .zip(&self.claims)
            .zip(&self.maps)
            .map(|((x, cs), ms)| {
                let e = x.loaded.experiment();
                (
                    lb_audit::robustness::with_maps(
                        ExperimentClaims::new(&e.name, &e.title, cs),
                        ms,
                    ),
                    lb_report::fragment(&e.name, &e.title, cs)
                        + &lb_audit::robustness::markdown(ms, None),
                )
            })
            .collect()
    }

    /// The audit in Markdown as `lb audit --format md` prints it: the
    /// summary, then every experiment's section (each claim's, which the
    /// summary links to, and its robustness maps).
    pub fn markdown(&self, loaded: &[Experiment]) -> String {
        let parts = self.parts(loaded);
        let mut s = lb_report::terminal(&parts, &inventories(loaded));
        for (_, section) in &parts {
            s.push('\n');
            s.push_str(section);
        }
        s
    }

    /// The claims as JSON, each with the robustness maps it is in.
    pub fn json(&self) -> Result<serde_json::Value, Error> {
        claims_with_maps(&self.claims, &self.maps)
    }

    /// The claims as CSV, with the robustness summary of each.
    pub fn csv(&self) -> Result<String, Error> {
        csv_with_maps(&self.claims, &self.maps)
    }

    /// Writes each experiment's section of `out/audit.md` (and its
    /// `claims.json`), then reassembles the page from the sections under
    /// `out`: every experiment's when `all` (so a removed one drops out),
    /// else the ones there plus these.
    pub fn write(&self, loaded: &[Experiment], out: &Path, all: bool) -> Result<(), Error> {
        for (c, frag) in &self.parts(loaded) {
            let dir = out.join(&c.experiment);
            write_if_changed(&dir.join("audit.md"), frag.as_bytes())?;
            write_if_changed(&dir.join("claims.json"), claims_json(c).as_bytes())?;
        }
        assemble(
            out,
            &page_names(all, loaded, out),
            false,
            &inventories(loaded),
        )?;
        Ok(())
    }

    /// The required claims that are not confirmed (refuted, inconclusive —
    /// an interval that straddles, a point not settled —, no practical
    /// difference), each with why in words.
    pub fn required_not_confirmed(&self) -> Vec<(&ClaimResult, String)> {
        required_not_confirmed(&self.claims)
    }

    /// The gate: the lines to say (errors and warnings), and whether it
    /// fails — a required claim that is not confirmed (refuted,
    /// inconclusive, decided on no settled point), or lacking any of the
    /// points or replications it reads (a gate does not pass on missing
    /// data). Every gap is said, required or not.
    pub fn gate(&self) -> Gate {
        let mut lines = Vec::new();
        let mut fail = false;
        for c in self.claims.iter().flatten() {
            for m in &c.missing {
                lines.push(format!(
                    "{}: {} / {}: missing data: {m}",
                    if c.required { "error" } else { "warning" },
                    c.experiment,
                    c.id
                ));
            }
            fail |= c.required && !c.missing.is_empty();
        }
        for (c, why) in self.required_not_confirmed() {
            lines.push(format!(
                "error: required claim {}: {} / {}: {} ({why})",
                c.verdict.word(),
                c.experiment,
                c.id,
                c.statement
            ));
            fail = true;
        }
        Gate { lines, fail }
    }
}

/// The audit's gate ([`Audited::gate`]).
pub struct Gate {
    /// What the gate says, a line each.
    pub lines: Vec<String>,
    /// Whether `lb audit` fails (a required claim refuted).
    pub fail: bool,
}

/// The experiments whose parts make up the report pages under `out`: every
/// manifest's when all were given (so a removed experiment drops out),
/// else the ones already there plus those just written.
/// The statement inventories beside the loaded manifests
/// (`experiments/inventory/`); none when there are none, or when they do
/// not read (loading the manifests checked them).
pub fn inventories(loaded: &[Experiment]) -> Vec<lb_manifest::inventory::Inventory> {
    let files: Vec<std::path::PathBuf> = loaded
        .iter()
        .map(|e| e.loaded.file().to_path_buf())
        .collect();
    lb_manifest::inventory::beside(&files)
        .and_then(|d| lb_manifest::inventory::load_dir(&d).ok())
        .unwrap_or_default()
}

pub(crate) fn page_names(all: bool, loaded: &[Experiment], out: &Path) -> Vec<String> {
    if all {
        let mut v: Vec<String> = loaded.iter().map(|e| e.name().to_string()).collect();
        v.sort();
        v
    } else {
        experiments_in(out)
    }
}

/// Every experiment's claims audited; a claim that `reads` other
/// experiments reads the best evidence lb holds of its reading
/// ([`lb_analysis::results::best_evidence`]).
fn audit_all(loaded: &[Experiment], results: &[Vec<PointResult>]) -> Vec<Vec<ClaimResult>> {
    loaded
        .iter()
        .zip(results)
        .map(|(e, rs)| {
            e.claims_as_audited()
                .iter()
                .map(|c| {
                    let best = evidence(loaded, results, c, rs);
                    audit_experiment(e.name(), std::slice::from_ref(c), &best).remove(0)
                })
                .collect()
        })
        .collect()
}

fn required_not_confirmed(claims: &[Vec<ClaimResult>]) -> Vec<(&ClaimResult, String)> {
    claims
        .iter()
        .flatten()
        .filter(|c| c.required && c.verdict != Verdict::Confirmed)
        .map(|c| {
            let d = c.deciding();
            let why = match (d.and_then(|k| k.unsettled.clone()), d) {
                (Some(u), _) => u,
                (None, Some(k)) => lb_audit::describe(c, k),
                (None, None) => "no point read".into(),
            };
            (c, why)
        })
        .collect()
}

/// The claims as JSON, each with the robustness maps it is in.
fn claims_with_maps(
    claims: &[Vec<ClaimResult>],
    maps: &[Vec<MapResult>],
) -> Result<serde_json::Value, Error> {
    let mut out = Vec::new();
    for (cs, ms) in claims.iter().zip(maps) {
        for c in cs {
            let mut v = serde_json::to_value(c)?;
            let m = lb_audit::robustness::claim_json(ms, &c.id);
            if let (Some(o), false) = (v.as_object_mut(), m.is_empty()) {
                o.insert("robustness".into(), serde_json::Value::Array(m));
            }
            out.push(v);
        }
    }
    Ok(serde_json::Value::Array(out))
}

/// The claims as CSV with a last column, `robustness`: the summary of each
/// map the claim is in ("map: the claim holds if and only if …").
fn csv_with_maps(claims: &[Vec<ClaimResult>], maps: &[Vec<MapResult>]) -> Result<String, Error> {
    let flat: Vec<&ClaimResult> = claims.iter().flatten().collect();
    let lines: Vec<String> = claims
        .iter()
        .zip(maps)
        .flat_map(|(cs, ms)| {
            cs.iter()
                .map(|c| lb_audit::robustness::claim_line(ms, &c.id))
        })
        .collect();
    let text = lb_audit::csv(&flat)?;
    let records = csv_records(&text);
    if records.len() != flat.len() + 1 {
        return Err("the audit CSV has an unexpected shape".into());
    }
    let quote = |s: &str| {
        if s.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let mut out = String::new();
    for (i, r) in records.iter().enumerate() {
        out.push_str(r);
        out.push(',');
        out.push_str(&if i == 0 {
            "robustness".to_string()
        } else {
            quote(&lines[i - 1])
        });
        out.push('\n');
    }
    Ok(out)
}

/// The records of CSV text, each without its line end (a quoted field may
/// hold line ends).
fn csv_records(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, ch) in text.char_indices() {
        match ch {
            '"' => quoted = !quoted,
            '\n' if !quoted => {
                out.push(text[start..i].trim_end_matches('\r'));
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}
