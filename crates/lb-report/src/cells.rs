//! Links and cells the pages share: a leaf, so that the pages name it and
//! not one another.

/// The anchor of a claim's section in the audit.
pub fn anchor(experiment: &str, id: &str) -> String {
    format!("{experiment}--{id}")
}

/// The verdict as printed: bold, with "(required)" for lb's own checks.
pub(crate) fn verdict_cell(verdict: &str, required: bool) -> String {
    format!("**{verdict}**{}", if required { " (required)" } else { "" })
}
