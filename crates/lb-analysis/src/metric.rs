//! The metrics a table or figure can show, read from a run's summary
//! (SPEC §1 "Metrics of a run"; seed 000 for ε·E[ΣQ] and ζ).

use lb_runner::Point;
use lb_runner::point::{Model, Summary};

/// A per-replication metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Mean response time (slots), from the FIFOs.
    MeanResponse,
    /// Time-average Σ_n Q_n at the start of a slot.
    MeanSumQ,
    /// ε·E[ΣQ], the heavy-traffic quantity of seed 000, Lemma 1.
    EpsSumQ,
    /// ε·E[ΣQ] / ζ.
    ZetaRatio,
    MessagesPerArrival,
    P50,
    P90,
    P99,
    /// E[max_n Q_n − min_n Q_n].
    Imbalance,
    /// FIFO mean response − Little's-law response (0 by Little's law).
    LittleGap,
    /// 1 for a replication judged unstable, else 0.
    PUnstable,
    /// Many-server (SPEC §2): the probability that a job goes to a non-idle server.
    PToBusy,
    /// Many-server: Σ_i S_i, jobs per server.
    MeanJobs,
    /// Many-server: the fraction of arrivals lost at a full buffer.
    LossFraction,
    /// Many-server: S_1, S_2, S_3.
    S1,
    S2,
    S3,
    /// Many-server: Σ_{i ≤ b} S_i (b the buffer; all i when unbounded).
    SumSB,
    /// Many-server: seed 004's bound λ + k ln N/√N + 29b/(√N ln N) at the point
    /// (a constant per point; needs b ≥ 2).
    ShwBound,
}

impl Metric {
    pub const ALL: [Metric; 19] = [
        Metric::MeanResponse,
        Metric::MeanSumQ,
        Metric::EpsSumQ,
        Metric::ZetaRatio,
        Metric::MessagesPerArrival,
        Metric::P50,
        Metric::P90,
        Metric::P99,
        Metric::Imbalance,
        Metric::LittleGap,
        Metric::PUnstable,
        Metric::PToBusy,
        Metric::MeanJobs,
        Metric::LossFraction,
        Metric::S1,
        Metric::S2,
        Metric::S3,
        Metric::SumSB,
        Metric::ShwBound,
    ];

    /// The column name.
    pub fn name(self) -> &'static str {
        match self {
            Metric::MeanResponse => "mean_response",
            Metric::MeanSumQ => "mean_sum_q",
            Metric::EpsSumQ => "eps_sum_q",
            Metric::ZetaRatio => "zeta_ratio",
            Metric::MessagesPerArrival => "messages_per_arrival",
            Metric::P50 => "p50",
            Metric::P90 => "p90",
            Metric::P99 => "p99",
            Metric::Imbalance => "imbalance",
            Metric::LittleGap => "little_gap",
            Metric::PUnstable => "p_unstable",
            Metric::PToBusy => "p_to_busy",
            Metric::MeanJobs => "mean_jobs",
            Metric::LossFraction => "loss_fraction",
            Metric::S1 => "s1",
            Metric::S2 => "s2",
            Metric::S3 => "s3",
            Metric::SumSB => "sum_s_b",
            Metric::ShwBound => "shw_bound",
        }
    }

    /// A label for an axis.
    pub fn label(self) -> &'static str {
        match self {
            Metric::MeanResponse => "Mean response time (time slots)",
            Metric::MeanSumQ => "E[ΣQ]",
            Metric::EpsSumQ => "ε·E[ΣQ]",
            Metric::ZetaRatio => "ε·E[ΣQ] / ζ",
            Metric::MessagesPerArrival => "Messages per arrival",
            Metric::P50 => "Median response time (slots)",
            Metric::P90 => "90th percentile response time (slots)",
            Metric::P99 => "99th percentile response time (slots)",
            Metric::Imbalance => "E[max Q − min Q]",
            Metric::LittleGap => "FIFO − Little response (slots)",
            Metric::PUnstable => "Fraction of unstable replications",
            Metric::PToBusy => "P(job sent to a non-idle server)",
            Metric::MeanJobs => "Jobs per server (Σ S_i)",
            Metric::LossFraction => "Fraction of jobs lost",
            Metric::S1 => "S_1",
            Metric::S2 => "S_2",
            Metric::S3 => "S_3",
            Metric::SumSB => "E[Σ_{i≤b} S_i]",
            Metric::ShwBound => "Sub-Halfin-Whitt bound (seed 004)",
        }
    }

    /// Parses a column name.
    pub fn parse(s: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == s)
    }

    /// The metrics of the model's tables.
    pub fn table_metrics(model: Model) -> &'static [Metric] {
        match model {
            Model::Slotted => &crate::report::TABLE_METRICS,
            Model::Many => &crate::report::MANY_TABLE_METRICS,
        }
    }

    /// The metric's value in one replication of `point` (None where
    /// undefined, or where the metric belongs to the other model).
    pub fn value(self, point: &Point, s: &Summary) -> Option<f64> {
        let s = match s {
            Summary::Slotted(s) => s,
            Summary::Many(s) => return self.many_value(point, s),
        };
        let sys = &point.slotted()?.system;
        match self {
            Metric::MeanResponse => s.mean_response,
            Metric::MeanSumQ => Some(s.mean_sum_q),
            Metric::EpsSumQ => Some(sys.epsilon() * s.mean_sum_q),
            Metric::ZetaRatio => Some(sys.epsilon() * s.mean_sum_q / sys.zeta()),
            Metric::MessagesPerArrival => s.messages_per_arrival,
            Metric::P50 => s.p50.map(|v| v as f64),
            Metric::P90 => s.p90.map(|v| v as f64),
            Metric::P99 => s.p99.map(|v| v as f64),
            Metric::Imbalance => Some(s.imbalance),
            Metric::LittleGap => Some(s.mean_response? - s.little_response?),
            Metric::PUnstable => Some(if s.stability.stable { 0.0 } else { 1.0 }),
            _ => None,
        }
    }

    fn many_value(self, point: &Point, s: &lb_core::many::ManySummary) -> Option<f64> {
        let c = point.many()?;
        let occ = |i: usize| Some(s.occupancy.get(i - 1).copied().unwrap_or(0.0));
        match self {
            Metric::MeanResponse => s.mean_response,
            Metric::PUnstable => Some(if s.stability.stable { 0.0 } else { 1.0 }),
            Metric::PToBusy => s.p_to_busy,
            Metric::MeanJobs => Some(s.mean_jobs),
            Metric::LossFraction => s.loss_fraction,
            Metric::S1 => occ(1),
            Metric::S2 => occ(2),
            Metric::S3 => occ(3),
            Metric::SumSB => Some(match c.buffer {
                Some(b) => s.occupancy.iter().take(b as usize).sum(),
                None => s.mean_jobs,
            }),
            Metric::ShwBound => match c.buffer {
                Some(b) if b >= 2 => Some(lb_core::many::theory::sub_halfin_whitt_bound(
                    c.servers, c.lambda, b,
                )),
                _ => None,
            },
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_the_manifest_allows_exists() {
        let mut names: Vec<&str> = lb_runner::outputs::METRICS
            .into_iter()
            .chain(lb_runner::outputs::MANY_METRICS)
            .collect();
        for name in &names {
            assert!(Metric::parse(name).is_some(), "{name}");
        }
        names.sort();
        names.dedup();
        assert_eq!(Metric::ALL.len(), names.len());
    }
}
