//! The verdicts as CSV (`lb audit --csv`), one row per claim.

use super::check::{ClaimResult, PointCheck};

/// The verdicts as CSV, one row per claim: its deciding point, what was
/// measured there and against what.
pub fn csv(claims: &[&ClaimResult]) -> polars::prelude::PolarsResult<String> {
    use polars::prelude::{Column, DataFrame};
    let d: Vec<Option<&PointCheck>> = claims.iter().map(|c| c.deciding()).collect();
    let s = |f: &dyn Fn(&ClaimResult) -> String| -> Vec<String> {
        claims.iter().map(|c| f(c)).collect()
    };
    let cols = vec![
        Column::new("experiment".into(), s(&|c| c.experiment.clone())),
        Column::new("id".into(), s(&|c| c.id.clone())),
        Column::new("verdict".into(), s(&|c| c.verdict.word().to_string())),
        Column::new(
            "required".into(),
            claims.iter().map(|c| c.required).collect::<Vec<_>>(),
        ),
        Column::new("origin".into(), s(&|c| c.origin.name().to_string())),
        Column::new(
            "paper".into(),
            claims.iter().map(|c| c.paper.clone()).collect::<Vec<_>>(),
        ),
        Column::new(
            "margin".into(),
            d.iter()
                .map(|k| k.and_then(|k| k.margin()))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "untested".into(),
            claims
                .iter()
                .map(|c| c.untested.clone())
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "foil".into(),
            claims
                .iter()
                .map(|c| c.foil.as_ref().map(|f| f.verdict.word().to_string()))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "to_decide".into(),
            claims
                .iter()
                .map(|c| c.to_decide.clone())
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "unsettled".into(),
            d.iter()
                .map(|k| k.and_then(|k| k.unsettled.clone()))
                .collect::<Vec<_>>(),
        ),
        Column::new("kind".into(), s(&|c| c.kind.name().to_string())),
        Column::new(
            "metric".into(),
            claims.iter().map(|c| c.metric.clone()).collect::<Vec<_>>(),
        ),
        Column::new(
            "policy".into(),
            d.iter()
                .map(|k| k.map(|k| k.policy.clone()))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "at".into(),
            d.iter()
                .map(|k| k.map(|k| k.at.clone()))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "measured".into(),
            d.iter().map(|k| k.map(|k| k.measured)).collect::<Vec<_>>(),
        ),
        Column::new(
            "half_width".into(),
            d.iter()
                .map(|k| k.and_then(|k| k.half_width))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "reference".into(),
            d.iter()
                .map(|k| k.and_then(|k| k.reference))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "threshold".into(),
            d.iter()
                .map(|k| k.map(|k| k.threshold.clone()))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "replications".into(),
            d.iter()
                .map(|k| k.map(|k| k.replications as u64))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "level".into(),
            claims.iter().map(|c| c.level).collect::<Vec<_>>(),
        ),
        Column::new(
            "points".into(),
            claims
                .iter()
                .map(|c| c.checks.len() as u64)
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "missing".into(),
            claims
                .iter()
                .map(|c| c.missing.len() as u64)
                .collect::<Vec<_>>(),
        ),
        Column::new("statement".into(), s(&|c| c.statement.clone())),
    ];
    lb_analysis::table::csv(&DataFrame::new_infer_height(cols)?)
}
