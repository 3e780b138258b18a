//! `table`: one experiment's table of mean ± half-width per point (or, long,
//! a row per replication), as CSV, Markdown or JSON.

use crate::Error;
use lb_analysis::collect;
use lb_analysis::metric::Metric;
use lb_analysis::table::{csv, json, markdown, point_summaries, replications_frame, summary_frame};
use lb_manifest::Experiment;
use lb_store::cache::Cache;

/// The formats of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Comma-separated values.
    Csv,
    /// A Markdown table.
    Md,
    /// JSON.
    Json,
}

/// The experiment's table in `format`, and how many of its points are not
/// (fully) computed yet.
pub fn table(
    cache: &Cache,
    e: &Experiment,
    format: Format,
    long: bool,
) -> Result<(String, usize), Error> {
    let (l, plan) = (&e.loaded, &e.plan);
    let results = collect(cache, plan);
    let axes: Vec<String> = plan.axes.iter().map(|a| a.to_string()).collect();
    let metrics = Metric::table_metrics_for(l.model(), &axes);
    let frame = replications_frame(e.name(), &results, &metrics)?;
    let frame = if long {
        frame
    } else {
        let sums = point_summaries(&results, &frame, &metrics)?;
        summary_frame(&results, &sums, &metrics)?
    };
    let text = match format {
        Format::Csv => csv(&frame)?,
        Format::Md => markdown(&frame)?,
        Format::Json => json(&frame)?,
    };
    let missing = results.iter().filter(|r| !r.complete()).count();
    Ok((text, missing))
}
