//! Claim robustness maps: a map's claims audited at every
//! combination of the settings it varies (lb-manifest's `robustness`), the
//! verdicts as a table and a figure, and which settings decide them.
//!
//! Each combination's claims are audited by [`crate::audit_claim`],
//! unchanged, on the points that combination planned. The summary of a claim
//! says when it holds: the smallest set of settings whose values decide
//! whether it holds, written as "the claim holds if and only if tie_break =
//! lowest and count_own = true" — when the combinations where it holds are
//! exactly those where each of these settings takes one of some values. When
//! no set of settings does (the claim holds at, say, (a, x) and (b, y) but
//! not at (a, y) or (b, x)), it says "holds at k of n combinations".

use crate::{ExperimentClaims, Verdict, audit_claim};
use lb_analysis::results::PointResult;
use lb_draw::canvas::{Anchor, BLACK, Canvas, Png, Rgb, Stroke, Svg, TextStyle, text_width, wrap};
use lb_manifest::manifest::Loaded;
use lb_manifest::model::slotted::robustness::RobustnessToml;
use lb_manifest::robustness::Variant;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One combination of a map and its claims' verdicts.
#[derive(Debug, Clone, Serialize)]
pub struct Combination {
    /// The value of each of the map's settings, as shown.
    pub values: Vec<String>,
    /// The manifest's own settings: its verdicts are the experiment's.
    pub base: bool,
    /// One verdict per claim of the map, in the map's order.
    pub verdicts: Vec<Verdict>,
    /// Per claim, where it holds except at some points: each failing
    /// point with its effect size, in words ([`crate::ClaimResult::except`]).
    #[serde(skip_serializing_if = "no_exceptions")]
    pub except: Vec<Vec<String>>,
    /// Points the claims read that lack replications or records.
    pub missing: usize,
    /// Why the paper's text rules this combination out, where it does
    /// (the map's `excluded`): shown, and read by no decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excluded: Option<String>,
    /// Of the points its claims read, (how many are at the configuration
    /// their statements name, how many in all): a point is not where a
    /// policy's message budget was out of its calibration's reach.
    pub built: (usize, usize),
}

fn no_exceptions(e: &[Vec<String>]) -> bool {
    e.iter().all(Vec::is_empty)
}

/// What decides one claim across the map.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Decision {
    /// "the claim holds if and only if …" or "holds at k of n combinations".
    pub summary: String,
    /// The settings that decide it (empty when none or when it is constant).
    pub deciding: Vec<String>,
    /// Where settings decide it, the values of each at which it holds
    /// (`deciding`'s settings, in order).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<crate::Need>,
    /// Where it holds except at some points at a combination: the values of
    /// the settings that decide whether it holds at least in part (empty
    /// when none do). A reading at which a claim holds except at some
    /// points is not one it fails at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_part: Option<Vec<crate::Need>>,
    /// Combinations where the claim holds.
    pub holds: usize,
    /// Combinations where it fails.
    pub refuted: usize,
    /// Combinations where it is undecided.
    pub inconclusive: usize,
    /// Combinations in all.
    pub combinations: usize,
}

/// A claim's row of a map.
#[derive(Debug, Clone, Serialize)]
pub struct MapClaim {
    /// The claim's id.
    pub id: String,
    /// What it claims.
    pub statement: String,
    /// What the map decides of it.
    pub decision: Decision,
}

/// A robustness map, audited.
#[derive(Debug, Clone, Serialize)]
pub struct MapResult {
    /// The experiment whose manifest declares the map.
    pub experiment: String,
    /// The map's name.
    pub name: String,
    /// The settings varied, in combination order ("tie_break of JSQ" names
    /// the policies a policy key is varied for).
    pub settings: Vec<String>,
    /// Its claims' rows.
    pub claims: Vec<MapClaim>,
    /// Each combination of the settings' values, with its claims' verdicts.
    pub combinations: Vec<Combination>,
}

impl MapResult {
    /// Why the text rules out some of its combinations, each reason once,
    /// in order.
    pub fn ruled_out(&self) -> Vec<&str> {
        let mut why: Vec<&str> = self
            .combinations
            .iter()
            .filter_map(|c| c.excluded.as_deref())
            .collect();
        why.sort_unstable();
        why.dedup();
        why
    }
}

/// How a map names a setting: policy keys with the policies they vary for.
fn setting_label(r: &RobustnessToml, s: &str) -> String {
    match (&r.policies, s) {
        (Some(ps), "tie_break" | "granularity") => format!("{s} of {}", ps.join(", ")),
        _ => s.to_string(),
    }
}

/// Audits every map of `l`: `variants` are its combinations
/// (lb-manifest's `robustness::variants`) and `results` their points, read
/// from the cache (one list per variant).
pub fn audit_maps(
    l: &Loaded,
    variants: &[Variant],
    results: &[Vec<PointResult>],
) -> Vec<MapResult> {
    let experiment = &l.experiment().name;
    l.manifest
        .robustness_maps()
        .iter()
        .enumerate()
        .map(|(i, r)| {
            // A map varies the settings the paper leaves open, not the nulls
            // or the foil: its variants run the claims' own policies only, so
            // a map says where a claim holds, not where it discriminates.
            let claims: Vec<_> = r
                .claims
                .iter()
                .filter_map(|id| l.claims().iter().find(|c| c.id == *id))
                .map(|c| lb_manifest::claim::Claim {
                    credits: None,
                    also_credits: None,
                    foil: None,
                    ..c.clone()
                })
                .collect();
            let combinations: Vec<Combination> = variants
                .iter()
                .zip(results)
                .filter(|(v, _)| v.map == i)
                .map(|(v, rs)| {
                    let audited: Vec<_> = claims
                        .iter()
                        .map(|c| lb_manifest::robustness::repinned(c, &v.pins))
                        .map(|c| audit_claim(experiment, &c, rs))
                        .collect();
                    let decided: Vec<bool> = audited
                        .iter()
                        .map(|a| !crate::summary::no_point(a.informative, false, a.verdict))
                        .collect();
                    Combination {
                        values: v.values.iter().map(|(_, x)| x.clone()).collect(),
                        base: v.base,
                        // A combination none of whose points could decide
                        // the claim (each outside what its statement names,
                        // at a floor, or without effect) decides nothing
                        // there, whatever its points read.
                        verdicts: audited
                            .iter()
                            .zip(&decided)
                            .map(|(a, d)| if *d { a.verdict } else { Verdict::Inconclusive })
                            .collect(),
                        except: audited
                            .iter()
                            .zip(&decided)
                            .map(|(a, d)| match a.verdict {
                                Verdict::Partly if *d => a.except.clone(),
                                _ => Vec::new(),
                            })
                            .collect(),
                        missing: audited.iter().map(|a| a.missing.len()).sum(),
                        built: audited
                            .iter()
                            .flat_map(|a| &a.checks)
                            .fold((0, 0), |(b, n), k| {
                                let unbuilt = crate::claim::reads_unmet_budget(k, rs);
                                (b + usize::from(!unbuilt), n + 1)
                            }),
                        excluded: r.excluded_by(&v.values),
                    }
                })
                .collect();
            let settings: Vec<String> = r
                .setting_names()
                .iter()
                .map(|s| setting_label(r, s))
                .collect();
            let excluded = combinations.iter().filter(|x| x.excluded.is_some()).count();
            let claims = claims
                .iter()
                .enumerate()
                .map(|(k, c)| MapClaim {
                    id: c.id.clone(),
                    statement: c.statement.clone(),
                    decision: ruled_out(
                        decide(
                            &settings,
                            &combinations
                                .iter()
                                .filter(|x| x.excluded.is_none())
                                .map(|x| (x.values.clone(), x.verdicts[k]))
                                .collect::<Vec<_>>(),
                        ),
                        excluded,
                    ),
                })
                .collect();
            MapResult {
                experiment: experiment.clone(),
                name: r.name.clone(),
                settings,
                claims,
                combinations,
            }
        })
        .collect()
}

/// A decision over the combinations the text allows, saying how many it
/// rules out (`ruled_out`), which it does not read.
fn ruled_out(mut d: Decision, ruled_out: usize) -> Decision {
    if ruled_out > 0 {
        d.summary = format!(
            "{} (over the {} combinations the text allows; the {ruled_out} it rules out are \
             shown and decide nothing)",
            d.summary, d.combinations
        );
    }
    d
}

/// Subsets of 0..n of size k, in lexicographic order.
fn subsets(n: usize, k: usize) -> Vec<Vec<usize>> {
    fn go(start: usize, n: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in start..n {
            cur.push(i);
            go(i + 1, n, k, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    go(0, n, k, &mut Vec::new(), &mut out);
    out
}

/// Which settings decide whether a claim holds, from its verdict at each
/// combination ((values, verdict), values in the order of `settings`).
///
/// The smallest set S of settings (the first in the settings' order among
/// sets of that size) such that the combinations where the claim holds are
/// exactly those whose value of each setting s ∈ S lies in a set V_s: then
/// "the claim holds if and only if s = v and s' ∈ {v', v''} …". "Holds"
/// means confirmed; refuted and inconclusive both count as not holding.
pub fn decide(settings: &[String], combos: &[(Vec<String>, Verdict)]) -> Decision {
    let mut d = decide_by(settings, combos, |v| v == Verdict::Confirmed);
    if combos.iter().any(|(_, v)| *v == Verdict::Partly) {
        let lenient = decide_by(settings, combos, |v| {
            matches!(v, Verdict::Confirmed | Verdict::Partly)
        });
        d.in_part = Some(lenient.needs);
    }
    d
}

/// [`decide`] with "holds" meaning what `holds` says of a verdict.
fn decide_by(
    settings: &[String],
    combos: &[(Vec<String>, Verdict)],
    holds: fn(Verdict) -> bool,
) -> Decision {
    let n = combos.len();
    let k = combos.iter().filter(|(_, v)| holds(*v)).count();
    let refuted = combos
        .iter()
        .filter(|(_, v)| *v == Verdict::Refuted)
        .count();
    let partly = combos
        .iter()
        .filter(|(_, v)| *v == Verdict::Partly && !holds(*v))
        .count();
    let inconclusive = n - k - refuted - partly;
    let rest = || {
        let mut parts = Vec::new();
        if partly > 0 {
            parts.push(format!("holds except at some points at {partly}"));
        }
        if refuted > 0 {
            parts.push(format!("refuted at {refuted}"));
        }
        if inconclusive > 0 {
            parts.push(format!("inconclusive at {inconclusive}"));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join(", "))
        }
    };
    let done = |summary: String, deciding: Vec<String>, needs: Vec<crate::Need>| Decision {
        summary,
        deciding,
        needs,
        in_part: None,
        holds: k,
        refuted,
        inconclusive,
        combinations: n,
    };
    if n == 0 {
        return done("no combination".into(), Vec::new(), Vec::new());
    }
    if k == n {
        return done(
            format!("the claim holds at every combination ({n} of {n})"),
            Vec::new(),
            Vec::new(),
        );
    }
    if k == 0 {
        return done(
            format!("the claim holds at none of the {n} combinations{}", rest()),
            Vec::new(),
            Vec::new(),
        );
    }
    for size in 1..=settings.len() {
        for s in subsets(settings.len(), size) {
            // V_i: the values of setting i where the claim holds.
            let vals: Vec<Vec<&String>> = s
                .iter()
                .map(|&i| {
                    let mut v: Vec<&String> = combos
                        .iter()
                        .filter(|(_, x)| holds(*x))
                        .map(|(c, _)| &c[i])
                        .collect();
                    v.sort();
                    v.dedup();
                    v
                })
                .collect();
            let inside = |c: &Vec<String>| s.iter().zip(&vals).all(|(&i, v)| v.contains(&&c[i]));
            if combos.iter().all(|(c, v)| holds(*v) == inside(c)) {
                // The values of each setting as the combinations list them
                // (first seen first).
                let ordered: Vec<Vec<&String>> = s
                    .iter()
                    .zip(&vals)
                    .map(|(&i, v)| {
                        let mut order: Vec<&String> = Vec::new();
                        for (c, _) in combos {
                            if v.contains(&&c[i]) && !order.contains(&&c[i]) {
                                order.push(&c[i]);
                            }
                        }
                        order
                    })
                    .collect();
                let needs: Vec<crate::Need> = s
                    .iter()
                    .zip(&ordered)
                    .map(|(&i, order)| crate::Need {
                        setting: settings[i].clone(),
                        values: order.iter().map(|x| x.to_string()).collect(),
                    })
                    .collect();
                let terms: Vec<String> = s
                    .iter()
                    .zip(&ordered)
                    .map(|(&i, order)| {
                        if order.len() == 1 {
                            format!("{} = {}", settings[i], order[0])
                        } else {
                            format!(
                                "{} ∈ {{{}}}",
                                settings[i],
                                order
                                    .iter()
                                    .map(|x| x.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )
                        }
                    })
                    .collect();
                // A setting decides it only where the claim is decided
                // outside those values: an inconclusive combination may hold.
                if inconclusive > 0 {
                    return done(
                        format!(
                            "the claim holds at {k} of {n} combinations, those where {}{}",
                            terms.join(" and "),
                            rest()
                        ),
                        Vec::new(),
                        Vec::new(),
                    );
                }
                let mut in_part = String::new();
                if partly > 0 {
                    in_part.push_str(&format!("; it holds except at some points at {partly}"));
                }
                if refuted > 0 && refuted < n - k {
                    in_part.push_str(&format!("; refuted at {refuted}"));
                }
                return done(
                    format!(
                        "the claim holds if and only if {} ({k} of {n} combinations{in_part})",
                        terms.join(" and ")
                    ),
                    s.iter().map(|&i| settings[i].clone()).collect(),
                    needs,
                );
            }
        }
    }
    done(
        format!(
            "no setting decides it: the claim holds at {k} of {n} combinations{}",
            rest()
        ),
        Vec::new(),
        Vec::new(),
    )
}

fn mark(v: Verdict) -> &'static str {
    match v {
        Verdict::Confirmed => "✓ holds",
        Verdict::Refuted => "✗ refuted",
        Verdict::Inconclusive => "? inconclusive",
        Verdict::NoPracticalDifference => "≈ no practical difference",
        Verdict::Partly => "◐ partly",
    }
}

fn md(s: &str) -> String {
    s.replace('|', "\\|")
}

/// Where a map varies a budget's unit and its combinations differ in how
/// many of their points are at the configuration the claims' statements
/// name (every policy at the message budget it is calibrated to:
/// docs/AUDITING.md, "Uninformative points"), each combination's count: at
/// a unit where fewer are, more of the claims' points decide nothing.
pub fn built_line(m: &MapResult) -> Option<String> {
    let counts: Vec<(usize, usize)> = m.combinations.iter().map(|c| c.built).collect();
    if !m.settings.iter().any(|x| x.starts_with("budget")) || counts.iter().all(|(b, n)| b == n) {
        return None;
    }
    let each: Vec<String> = m
        .combinations
        .iter()
        .map(|c| {
            let at = setting_words(m, c);
            format!(
                "{}{} {} of {}",
                at.join(", "),
                if c.base { " (the manifest's)" } else { "" },
                c.built.0,
                c.built.1
            )
        })
        .collect();
    Some(format!(
        "- Points at the configuration the statements name (every policy at the message budget \
         it is calibrated to; the others decide nothing): {}.",
        md(&each.join("; "))
    ))
}

/// A combination's settings in words: "budget = 4 messages per arrival".
fn setting_words(m: &MapResult, c: &Combination) -> Vec<String> {
    m.settings
        .iter()
        .zip(&c.values)
        .map(|(k, v)| format!("{k} = {v}"))
        .collect()
}

/// The maps of an experiment as Markdown: per map its table (a row per
/// combination, a column per claim) and each claim's summary. `figures`
/// names each map's figure (relative to the page), if drawn.
pub fn markdown(maps: &[MapResult], figures: Option<&Path>) -> String {
    let mut s = String::new();
    if maps.is_empty() {
        return s;
    }
    for m in maps {
        let _ = writeln!(s, "### Robustness map `{}`\n", m.name);
        let _ = writeln!(
            s,
            "The claims below, audited at every combination of settings the paper leaves \
             unstated ({}); the row marked *manifest* is the experiment's own setting. A map says \
             where a claim holds: it reads neither nulls nor foils, so a verdict above that does \
             not discriminate may differ from its manifest row. Where a claim reads another \
             experiment's settled runs of its reading, each combination reads those of its own \
             reading, where there are any.\n",
            m.settings.join(" × ")
        );
        if let Some(dir) = figures {
            let f = dir.join(format!("robustness-{}.svg", m.name));
            let _ = writeln!(
                s,
                "![Robustness map {} of {}]({})\n",
                m.name,
                m.experiment,
                f.display()
            );
        }
        let mut head: Vec<String> = m.settings.iter().map(|x| md(x)).collect();
        head.push(String::new());
        head.extend(m.claims.iter().map(|c| format!("`{}`", c.id)));
        let _ = writeln!(s, "| {} |", head.join(" | "));
        let _ = writeln!(s, "|{}", " --- |".repeat(head.len()));
        for c in &m.combinations {
            let mut row: Vec<String> = c.values.iter().map(|x| md(x)).collect();
            row.push(match (c.base, &c.excluded) {
                (true, _) => "*manifest*".into(),
                (false, Some(_)) => "*ruled out by the text*".into(),
                (false, None) => String::new(),
            });
            row.extend(c.verdicts.iter().map(|v| mark(*v).to_string()));
            let _ = writeln!(s, "| {} |", row.join(" | "));
        }
        s.push('\n');
        for c in &m.claims {
            let _ = writeln!(s, "- `{}`: {}.", c.id, c.decision.summary);
        }
        // Where a claim holds except at some points, which points fail.
        for c in m
            .combinations
            .iter()
            .filter(|c| !c.base && !no_exceptions(&c.except))
        {
            let at = setting_words(m, c);
            for (claim, except) in m.claims.iter().zip(&c.except) {
                if !except.is_empty() {
                    let _ = writeln!(
                        s,
                        "- At {}, `{}` fails at: {}.",
                        md(&at.join(", ")),
                        claim.id,
                        md(&except.join("; "))
                    );
                }
            }
        }
        if let Some(line) = built_line(m) {
            let _ = writeln!(s, "{line}");
        }
        for w in m.ruled_out() {
            let _ = writeln!(s, "- Ruled out by the text: {}", md(w));
        }
        let missing: usize = m.combinations.iter().map(|c| c.missing).sum();
        if missing > 0 {
            let _ = writeln!(
                s,
                "- {missing} point(s) of the map lack records (`lb run` the manifest): their \
                 verdicts are inconclusive until then."
            );
        }
        s.push('\n');
    }
    s
}

/// The JSON of a claim's maps, for `lb audit --format json`.
pub fn claim_json(maps: &[MapResult], id: &str) -> Vec<serde_json::Value> {
    maps.iter()
        .filter_map(|m| {
            let k = m.claims.iter().position(|c| c.id == id)?;
            Some(serde_json::json!({
                "map": m.name,
                "settings": m.settings,
                "summary": m.claims[k].decision.summary,
                "deciding": m.claims[k].decision.deciding,
                "combinations": m.combinations.iter().map(|c| serde_json::json!({
                    "values": c.values,
                    "base": c.base,
                    "verdict": c.verdicts[k],
                    "excluded": c.excluded,
                })).collect::<Vec<_>>(),
            }))
        })
        .collect()
}

/// The claims' rows with the line of each robustness map they are in
/// ("map: summary"), one per map.
pub fn with_maps(mut rows: ExperimentClaims, maps: &[MapResult]) -> ExperimentClaims {
    for r in &mut rows.claims {
        let lines = claim_lines(maps, &r.id);
        if !lines.is_empty() {
            r.robustness = lines;
        }
    }
    rows
}

/// A claim's line of each map it is in.
fn claim_lines(maps: &[MapResult], id: &str) -> Vec<crate::MapLine> {
    maps.iter()
        .filter_map(|m| {
            let c = m.claims.iter().find(|c| c.id == id)?;
            let d = &c.decision;
            // It holds at none of the combinations, failing at some.
            let partly = d.combinations - d.holds - d.refuted - d.inconclusive;
            let nowhere = d.combinations > 0 && d.holds == 0 && (d.refuted > 0 || partly > 0);
            Some(crate::MapLine {
                map: m.name.clone(),
                summary: d.summary.clone(),
                decides: !d.needs.is_empty() || nowhere,
                needs: d.needs.clone(),
                in_part: d.in_part.clone(),
                inconclusive: d.inconclusive,
                holds: d.holds,
                refuted: d.refuted,
                combinations: d.combinations,
            })
        })
        .collect()
}

/// The summaries of a claim's maps in one line ("map: summary; …"), for the
/// CSV's `robustness` column; empty when no map holds it.
pub fn claim_line(maps: &[MapResult], id: &str) -> String {
    claim_lines(maps, id)
        .iter()
        .map(|l| l.line())
        .collect::<Vec<_>>()
        .join("; ")
}

// ---- the figure -------------------------------------------------------------

/// Okabe–Ito colours of the verdicts.
pub fn colour(v: Verdict) -> Rgb {
    match v {
        Verdict::Confirmed => Rgb(0, 158, 115),
        Verdict::Refuted => Rgb(213, 94, 0),
        Verdict::Inconclusive => Rgb(190, 190, 190),
        Verdict::NoPracticalDifference => Rgb(86, 180, 233),
        Verdict::Partly => Rgb(230, 159, 0),
    }
}

const TITLE: f64 = 19.0;
const TEXT: f64 = 12.0;
const CELL_H: f64 = 30.0;
const PAD: f64 = 14.0;

/// Where everything of a map's figure goes, in pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// The figure's width in pixels.
    pub width: f64,
    /// Its height in pixels.
    pub height: f64,
    /// Left edge of the grid and width of a column.
    pub grid_x: f64,
    /// (See `grid_x`.)
    pub cell_w: f64,
    /// Top of the header rows and of the grid.
    pub header_y: f64,
    /// (See `header_y`.)
    pub grid_y: f64,
    /// Top of the legend.
    pub legend_y: f64,
    /// The key under the legend: each row's claim id and statement, wrapped
    /// to the width (the rows are labelled by id only).
    pub key: Vec<String>,
    /// Top of the key.
    pub key_y: f64,
}

/// The narrowest a map's figure is drawn: wide enough for its key's
/// statements to wrap into a few lines.
const MIN_WIDTH: f64 = 760.0;
const KEY_LINE: f64 = 16.0;

fn layout(m: &MapResult) -> Layout {
    let label_w = m
        .claims
        .iter()
        .map(|c| text_width(&c.id, TEXT))
        .chain(m.settings.iter().map(|s| text_width(s, TEXT)))
        .fold(0.0, f64::max);
    let value_w = m
        .combinations
        .iter()
        .flat_map(|c| c.values.iter())
        .map(|v| text_width(v, TEXT))
        .chain([
            text_width("manifest", TEXT),
            text_width("ruled out", TEXT),
            text_width("? inconclusive", TEXT),
        ])
        .fold(0.0, f64::max);
    let cell_w = (value_w + 12.0).max(56.0);
    let grid_x = PAD + label_w + 12.0;
    let header_y = PAD + TITLE + 14.0;
    let grid_y = header_y + m.settings.len() as f64 * CELL_H * 0.8 + 4.0;
    let legend_y = grid_y + m.claims.len() as f64 * CELL_H + 22.0 + 18.0;
    let width = (grid_x + cell_w * m.combinations.len() as f64 + PAD)
        .max(PAD * 2.0 + text_width(&title(m), TITLE))
        .max(MIN_WIDTH)
        .ceil();
    let key: Vec<String> = m
        .claims
        .iter()
        .map(|c| format!("{}: {}", c.id, c.statement))
        .chain(
            m.ruled_out()
                .into_iter()
                .map(|w| format!("ruled out by the text (decides nothing): {w}")),
        )
        .flat_map(|line| wrap(&line, TEXT, width - 2.0 * PAD))
        .collect();
    let key_y = legend_y + 30.0;
    Layout {
        width,
        height: (key_y + key.len() as f64 * KEY_LINE + PAD).ceil(),
        grid_x,
        cell_w,
        header_y,
        grid_y,
        legend_y,
        key,
        key_y,
    }
}

fn title(m: &MapResult) -> String {
    format!("{}: where its claims hold ({})", m.experiment, m.name)
}

fn rect(c: &mut dyn Canvas, x: f64, y: f64, w: f64, h: f64, fill: Option<Rgb>, s: Option<&Stroke>) {
    c.polygon(
        &[(x, y), (x + w, y), (x + w, y + h), (x, y + h)],
        fill.map(|f| (f, 1.0)),
        s,
    );
}

fn paint(c: &mut dyn Canvas, m: &MapResult, p: &Layout) {
    c.text(&title(m), PAD, PAD + TITLE, &TextStyle::new(TITLE));
    let row_h = CELL_H * 0.8;
    // Header: a row per setting, its name at the left, its value over each column.
    for (i, s) in m.settings.iter().enumerate() {
        let y = p.header_y + i as f64 * row_h + row_h * 0.65;
        c.text(
            s,
            p.grid_x - 8.0,
            y,
            &TextStyle::new(TEXT).anchor(Anchor::End),
        );
        for (j, comb) in m.combinations.iter().enumerate() {
            let x = p.grid_x + (j as f64 + 0.5) * p.cell_w;
            c.text(
                &comb.values[i],
                x,
                y,
                &TextStyle::new(TEXT).anchor(Anchor::Middle),
            );
        }
    }
    let thin = Stroke::solid(Rgb(255, 255, 255), 2.0);
    for (k, claim) in m.claims.iter().enumerate() {
        let y = p.grid_y + k as f64 * CELL_H;
        c.text(
            &claim.id,
            p.grid_x - 8.0,
            y + CELL_H * 0.62,
            &TextStyle::new(TEXT).anchor(Anchor::End),
        );
        for (j, comb) in m.combinations.iter().enumerate() {
            let x = p.grid_x + j as f64 * p.cell_w;
            let v = comb.verdicts[k];
            rect(c, x, y, p.cell_w, CELL_H, Some(colour(v)), Some(&thin));
            let ink = if v == Verdict::Inconclusive {
                BLACK
            } else {
                Rgb(255, 255, 255)
            };
            c.text(
                mark(v),
                x + p.cell_w / 2.0,
                y + CELL_H * 0.62,
                &TextStyle::new(TEXT).anchor(Anchor::Middle).colour(ink),
            );
        }
    }
    // The manifest's own combination: outlined, and named under the grid.
    let bottom = p.grid_y + m.claims.len() as f64 * CELL_H;
    for (j, comb) in m.combinations.iter().enumerate() {
        if comb.base {
            let x = p.grid_x + j as f64 * p.cell_w;
            rect(
                c,
                x,
                p.header_y,
                p.cell_w,
                bottom - p.header_y,
                None,
                Some(&Stroke::solid(BLACK, 2.0)),
            );
            c.text(
                "manifest",
                x + p.cell_w / 2.0,
                bottom + 16.0,
                &TextStyle::new(TEXT).anchor(Anchor::Middle),
            );
        } else if comb.excluded.is_some() {
            let x = p.grid_x + j as f64 * p.cell_w;
            c.text(
                "ruled out",
                x + p.cell_w / 2.0,
                bottom + 16.0,
                &TextStyle::new(TEXT).anchor(Anchor::Middle),
            );
        }
    }
    // Legend.
    let mut x = PAD;
    let partly = m
        .combinations
        .iter()
        .any(|comb| comb.verdicts.contains(&Verdict::Partly));
    let legend: &[Verdict] = if partly {
        &[
            Verdict::Confirmed,
            Verdict::Partly,
            Verdict::Refuted,
            Verdict::Inconclusive,
        ]
    } else {
        &[Verdict::Confirmed, Verdict::Refuted, Verdict::Inconclusive]
    };
    for &v in legend {
        rect(c, x, p.legend_y - 12.0, 16.0, 16.0, Some(colour(v)), None);
        let word = match v {
            Verdict::Confirmed => "claim holds (confirmed)",
            Verdict::Refuted => "refuted",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NoPracticalDifference => "no practical difference",
            Verdict::Partly => "holds except at some points",
        };
        c.text(word, x + 22.0, p.legend_y + 1.0, &TextStyle::new(TEXT));
        x += 22.0 + text_width(word, TEXT) + 24.0;
    }
    // The key: what each row's claim says.
    for (i, line) in p.key.iter().enumerate() {
        c.text(
            line,
            PAD,
            p.key_y + i as f64 * KEY_LINE,
            &TextStyle::new(TEXT),
        );
    }
}

/// The map's figure as SVG text, with its layout.
pub fn svg(m: &MapResult) -> (String, Layout) {
    let p = layout(m);
    let mut s = Svg::new(p.width, p.height);
    paint(&mut s, m, &p);
    (s.finish(), p)
}

/// Writes the map's figure, `<dir>/robustness-<name>.svg|png|pdf`, where
/// changed.
pub fn write_figure(dir: &Path, m: &MapResult) -> Result<Vec<PathBuf>, Box<dyn std::error::Error>> {
    let (text, p) = svg(m);
    let stem = dir.join(format!("robustness-{}", m.name));
    let svg_path = stem.with_extension("svg");
    lb_analysis::files::write_if_changed(&svg_path, text.as_bytes())?;
    let pdf_path = stem.with_extension("pdf");
    lb_analysis::files::write_if_changed(&pdf_path, &lb_draw::pdf::from_svg(&text)?)?;
    let scratch = std::env::temp_dir().join(format!(
        "lb-robustness-{}-{}-{}.png",
        std::process::id(),
        m.experiment,
        m.name
    ));
    Png::write(&scratch, p.width, p.height, |c| paint(c, m, &p))?;
    let body = std::fs::read(&scratch)?;
    std::fs::remove_file(&scratch)?;
    let png_path = stem.with_extension("png");
    lb_analysis::files::write_if_changed(&png_path, &body)?;
    Ok(vec![svg_path, png_path, pdf_path])
}

#[cfg(test)]
mod tests {
    use super::*;
    use Verdict::{Confirmed as C, Inconclusive as I, Refuted as R};

    fn grid(
        settings: &[(&str, &[&str])],
        verdict: impl Fn(&[&str]) -> Verdict,
    ) -> Vec<(Vec<String>, Verdict)> {
        let total: usize = settings.iter().map(|(_, v)| v.len()).product();
        (0..total)
            .map(|mut c| {
                let mut vals = Vec::new();
                for (_, vs) in settings.iter().rev() {
                    vals.push(vs[c % vs.len()]);
                    c /= vs.len();
                }
                vals.reverse();
                (vals.iter().map(|s| s.to_string()).collect(), verdict(&vals))
            })
            .collect()
    }

    fn names(settings: &[(&str, &[&str])]) -> Vec<String> {
        settings.iter().map(|(n, _)| n.to_string()).collect()
    }

    const S: [(&str, &[&str]); 3] = [
        ("tie_break", &["random", "lowest"]),
        ("count_own", &["true", "false"]),
        ("servers", &["mixed", "equal"]),
    ];

    #[test]
    fn one_setting_decides() {
        let g = grid(&S, |v| if v[0] == "lowest" { C } else { R });
        let d = decide(&names(&S), &g);
        assert_eq!(d.deciding, vec!["tie_break"]);
        assert_eq!(
            d.summary,
            "the claim holds if and only if tie_break = lowest (4 of 8 combinations)"
        );
    }

    /// Where the claim holds except at some points outside the values that
    /// decide it, it holds at least in part everywhere: no reading fails it.
    #[test]
    fn holding_in_part_is_not_failing() {
        let g = grid(
            &S[1..2],
            |v| if v[0] == "false" { C } else { Verdict::Partly },
        );
        let d = decide(&names(&S[1..2]), &g);
        assert_eq!(
            d.summary,
            "the claim holds if and only if count_own = false (1 of 2 combinations; it holds \
             except at some points at 1)"
        );
        assert_eq!(d.needs.len(), 1);
        assert_eq!(d.in_part, Some(Vec::new()));
        // Refuted there instead: it fails, and nothing holds in part.
        let g = grid(&S[1..2], |v| if v[0] == "false" { C } else { R });
        assert_eq!(decide(&names(&S[1..2]), &g).in_part, None);
    }

    /// Two settings decide where every cell outside is decided; with an
    /// inconclusive cell outside (which may hold), they only say where it
    /// holds.
    #[test]
    fn two_settings_decide_only_where_the_cells_outside_are_decided() {
        let g = grid(&S, |v| match (v[0], v[1]) {
            ("lowest", "true") => C,
            _ => R,
        });
        let d = decide(&names(&S), &g);
        assert_eq!(d.deciding, vec!["tie_break", "count_own"]);
        assert_eq!(
            d.summary,
            "the claim holds if and only if tie_break = lowest and count_own = true \
             (2 of 8 combinations)"
        );
        let g = grid(&S, |v| match (v[0], v[1], v[2]) {
            ("lowest", "true", _) => C,
            (_, _, "equal") => I,
            _ => R,
        });
        let d = decide(&names(&S), &g);
        assert!(d.deciding.is_empty());
        assert_eq!(
            d.summary,
            "the claim holds at 2 of 8 combinations, those where tie_break = lowest and \
             count_own = true (refuted at 3, inconclusive at 3)"
        );
        assert_eq!((d.holds, d.refuted, d.inconclusive), (2, 3, 3));
    }

    #[test]
    fn no_setting_decides_an_exclusive_or() {
        let g = grid(&S[..2], |v| {
            if (v[0] == "lowest") != (v[1] == "true") {
                C
            } else {
                R
            }
        });
        let d = decide(&names(&S[..2]), &g);
        assert!(d.deciding.is_empty());
        assert_eq!(
            d.summary,
            "no setting decides it: the claim holds at 2 of 4 combinations (refuted at 2)"
        );
    }

    #[test]
    fn a_claim_that_always_or_never_holds_needs_no_setting() {
        let all = decide(&names(&S), &grid(&S, |_| C));
        assert_eq!(all.summary, "the claim holds at every combination (8 of 8)");
        let none = decide(
            &names(&S),
            &grid(&S, |v| if v[1] == "true" { R } else { I }),
        );
        assert_eq!(
            none.summary,
            "the claim holds at none of the 8 combinations (refuted at 4, inconclusive at 4)"
        );
    }

    #[test]
    fn a_set_of_values_of_one_setting() {
        let s: [(&str, &[&str]); 2] = [
            ("arrivals", &["poisson", "geometric", "bernoulli"]),
            ("count_own", &["true", "false"]),
        ];
        let g = grid(&s, |v| if v[0] != "bernoulli" { C } else { R });
        let d = decide(&names(&s), &g);
        assert_eq!(
            d.summary,
            "the claim holds if and only if arrivals ∈ {poisson, geometric} (4 of 6 combinations)"
        );
    }
}
