//! What a model's metrics are: names, labels with units, and what kind of
//! number each is (for its interval); a point's fixed parameters as tidy
//! tables carry them.

use serde::Serialize;

/// One metric a model's tables, figures and claims can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricInfo {
    /// The column and manifest name (`mean_response`).
    pub name: &'static str,
    /// What an axis or a table header says, unit included.
    pub label: &'static str,
    /// Shown in the experiment's tables.
    pub table: bool,
    /// Defined by a replication's summary alone, so a precision target
    /// (`run.precision.metric`) may be set on it.
    pub precision: bool,
    /// Meaningful for a run that did not settle (a growth rate, a level at
    /// the end, the fraction of unstable runs): claims and figures read it on
    /// unstable points too, where steady-state metrics are not.
    pub transient: bool,
    /// What kind of number it is: how tables and figures give its interval.
    pub kind: MetricKind,
    /// Tables show it only in experiments that sweep one of these axes
    /// (empty: in every experiment). ε·E\[ΣQ\] and its ratio to ζ are
    /// heavy-traffic quantities: read along a load sweep they say nothing
    /// E\[ΣQ\] does not.
    pub only_with_axes: &'static [&'static str],
}

/// What kind of number a metric is, for its interval (lb-analysis).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// Any real number: mean ± Student-t half-width across replications.
    Real,
    /// A time-averaged fraction in [0, 1] with no event count behind it
    /// (the occupancy S_i): the Student-t interval, cut to [0, 1].
    Fraction,
    /// A proportion of counted events ([`crate::config::Summary::counts`]): events over
    /// trials pooled across replications, with a Wilson interval (a
    /// Clopper–Pearson upper bound when no event was seen).
    Proportion,
}

/// `p_unstable`, the fraction of a point's replications the trend test
/// flags as unstable: every model has it, a proportion read at the end of
/// the runs (transient).
pub(crate) const P_UNSTABLE: MetricInfo = metric(
    "p_unstable",
    "Fraction of unstable replications",
    false,
    false,
    MetricKind::Proportion,
)
.transient();

/// A metric of `kind` (for the models' constant lists).
pub(crate) const fn metric(
    name: &'static str,
    label: &'static str,
    table: bool,
    precision: bool,
    kind: MetricKind,
) -> MetricInfo {
    MetricInfo::new(name, label, table, precision).of_kind(kind)
}

impl MetricInfo {
    /// A real-valued metric (for the models' constant lists).
    pub const fn new(
        name: &'static str,
        label: &'static str,
        table: bool,
        precision: bool,
    ) -> MetricInfo {
        MetricInfo {
            name,
            label,
            table,
            precision,
            kind: MetricKind::Real,
            transient: false,
            only_with_axes: &[],
        }
    }

    /// The same metric, shown in tables only when one of `axes` is swept.
    pub const fn only_with(mut self, axes: &'static [&'static str]) -> MetricInfo {
        self.only_with_axes = axes;
        self
    }

    /// Whether tables of an experiment sweeping `axes` show it.
    pub fn applies(&self, axes: &[String]) -> bool {
        self.table
            && (self.only_with_axes.is_empty()
                || self
                    .only_with_axes
                    .iter()
                    .any(|a| axes.iter().any(|x| x == a)))
    }

    /// The same metric, marked meaningful for runs that did not settle.
    pub const fn transient(mut self) -> MetricInfo {
        self.transient = true;
        self
    }

    /// The same metric, of another kind.
    pub const fn of_kind(mut self, kind: MetricKind) -> MetricInfo {
        self.kind = kind;
        self
    }
}

/// A fixed parameter's value (see [`crate::config::PointConfig::parameters`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    /// A number.
    Number(f64),
    /// A yes or no.
    Flag(bool),
    /// Words.
    Text(String),
}

impl Param {
    /// The name of a law or policy: its serde tag (`law`, `name`), else
    /// its JSON text.
    pub fn tag<T: Serialize>(t: &T) -> Param {
        let v = serde_json::to_value(t).unwrap_or_default();
        let tag = ["law", "name", "kind"]
            .iter()
            .find_map(|k| v.get(*k).and_then(|x| x.as_str()).map(str::to_string));
        Param::Text(tag.unwrap_or_else(|| match &v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        }))
    }

    /// One name for a list of laws: theirs if they agree, else "mixed".
    pub fn common<T: Serialize>(ts: &[T]) -> Param {
        let tags: Vec<Param> = ts.iter().map(Param::tag).collect();
        match tags.first() {
            Some(t) if tags.iter().all(|x| x == t) => t.clone(),
            Some(_) => Param::Text("mixed".into()),
            None => Param::Text(String::new()),
        }
    }
}
