//! The metrics a table or figure can show, read from a run's summary
//! (SPEC §1 "Metrics of a run"; seed 000 for ε·E[ΣQ] and ζ).

use lb_core::RunSummary;
use lb_runner::Point;

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
}

impl Metric {
    pub const ALL: [Metric; 11] = [
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
        }
    }

    /// Parses a column name.
    pub fn parse(s: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == s)
    }

    /// The metric's value in one replication of `point`.
    pub fn value(self, point: &Point, s: &RunSummary) -> Option<f64> {
        let sys = &point.config.system;
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_the_manifest_allows_exists() {
        for name in lb_runner::outputs::METRICS {
            assert!(Metric::parse(name).is_some(), "{name}");
        }
        assert_eq!(Metric::ALL.len(), lb_runner::outputs::METRICS.len());
    }
}
