//! What a figure is: the manifest's `[[figure]]` as a [`FigureSpec`] (its
//! axes, metric, series, filter, references and caption), which points it
//! shows, and the series each point belongs to.

use crate::metric::Metric;
use crate::results::PointResult;
use lb_manifest::Model;
use lb_manifest::outputs::{FigureKind, FigureToml, Reference, ReferenceCurve, WhereTest};

/// What a figure shows (the manifest's `[[figure]]`).
#[derive(Debug, Clone, PartialEq)]
pub struct FigureSpec {
    /// File stem under `paper-figures/`.
    pub name: String,
    /// Its title.
    pub title: String,
    /// Lines, bars or paths.
    pub kind: FigureKind,
    /// The sweep axis on the x axis (empty for a path figure).
    pub x: String,
    /// The x axis's label.
    pub x_label: String,
    /// The metric on the y axis (None for a path figure).
    pub y: Option<Metric>,
    /// The y axis's label.
    pub y_label: String,
    /// Axes (besides the policy) that tell series apart, e.g. `count_own`.
    pub series: Vec<String>,
    /// Only points whose axes take one of these values.
    pub filter: Vec<(String, WhereTest)>,
    /// Only these policies (labels); empty: all.
    pub policies: Vec<String>,
    /// Whether the x axis is logarithmic.
    pub log_x: bool,
    /// Whether the y axis is logarithmic .
    pub log_y: bool,
    /// The y axis's range, where the manifest sets it (`y_range`).
    pub y_range: Option<[f64; 2]>,
    /// The paired difference `worse − better` is drawn instead of `y`.
    pub difference: Option<lb_manifest::outputs::Difference>,
    /// Reference curves (`[[figure.reference]]`, and `zeta_line`).
    pub references: Vec<ReferenceCurve>,
    /// Path figures: replications' paths drawn per series.
    pub paths: u32,
    /// Its caption, as written (quotes of the records expanded when drawn).
    pub caption: String,
    /// What the seed claims the figure shows.
    pub claim: Option<String>,
}

/// How an axis name reads in a label: `p_hat` is p̂, `epsilon_frac` ε/μ_Σ, ….
pub(crate) fn axis_display(a: &str) -> String {
    match a {
        "p_hat" => "p̂",
        "epsilon_frac" => "ε/μ_Σ",
        "epsilon" => "ε",
        "load" => "ρ",
        "servers_count" | "servers" => "N",
        "dispatchers" => "M",
        "alpha" => "α",
        "lambda" => "λ",
        other => other,
    }
    .to_string()
}

impl FigureSpec {
    /// From the manifest's `[[figure]]` (validated by lb-manifest).
    pub fn from_toml(model: Model, f: &FigureToml) -> FigureSpec {
        let y = f.y.as_deref().map(|y| Metric::validated(model, y));
        let mut y_label = f
            .y_label
            .clone()
            .or_else(|| y.map(|m| m.label().to_string()))
            .unwrap_or_else(|| "Jobs in system".to_string());
        if let Some(u) = &f.y_unit {
            y_label = format!("{y_label} ({u})");
        }
        let x = f.x.clone().unwrap_or_default();
        let x_label = f.x_label.clone().unwrap_or_else(|| match f.kind {
            FigureKind::Lines => axis_display(&x),
            FigureKind::Path => format!("Time ({})", model.time_unit()),
        });
        let mut references = Vec::new();
        if f.zeta_line {
            references.push(ReferenceCurve {
                value: Reference::Named("zeta".into()),
                label: Some("ζ = (σ²_Σ + ν²_Σ)/2".into()),
                band: None,
                policies: Vec::new(),
                at: None,
            });
        }
        references.extend(f.references.iter().cloned());
        FigureSpec {
            name: f.name.clone(),
            title: f.title.clone(),
            kind: f.kind,
            x,
            x_label,
            y,
            y_label,
            series: f.series.clone(),
            filter: f
                .filter
                .iter()
                .filter_map(|(k, v)| WhereTest::parse(v).ok().map(|t| (k.clone(), t)))
                .collect(),
            policies: f.policies.clone(),
            log_x: f.log_x,
            log_y: f.log_y,
            y_range: f.y_range,
            difference: f.difference.clone(),
            references,
            paths: f.paths.unwrap_or(5),
            caption: f.caption.split_whitespace().collect::<Vec<_>>().join(" "),
            claim: f.claim.clone(),
        }
    }

    /// Whether the figure shows point `r`.
    pub fn selects(&self, r: &PointResult) -> bool {
        (self.policies.is_empty() || self.policies.contains(&r.label))
            && self
                .filter
                .iter()
                .all(|(a, t)| r.axis(a).is_some_and(|v| t.matches(v)))
    }

    /// The series a point belongs to: (legend name, variant).
    pub(super) fn series_of(&self, r: &PointResult) -> (String, String) {
        let variant: Vec<String> = self
            .series
            .iter()
            .filter_map(|a| r.axis(a).map(|v| format!("{} = {v}", axis_display(a))))
            .collect();
        let variant = variant.join(", ");
        let name = if variant.is_empty() {
            r.label.clone()
        } else {
            format!("{} ({variant})", r.label)
        };
        (name, variant)
    }
}
