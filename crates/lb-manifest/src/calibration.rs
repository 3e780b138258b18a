//! The decision level: the level at which the audit reads a claim's
//! intervals, calibrated by lb's coverage certificate.
//!
//! The certificate (`experiments/coverage/certificate.toml`, the report's
//! "Coverage certificate") measured that a true value claim — the exact
//! value, no tolerance — is refuted in more than α of its macro-replications
//! when lb's nominal intervals decide: 5.51% at 95%, 0.16% at 99.9%. The
//! cause is the skew of a queue's time average over a run: the Student-t
//! interval over a few replications misses below the truth more often than
//! α/2, and more replications hardly help (Bahadur and Savage: no interval
//! for a mean holds its level over every distribution with that mean, so
//! one that holds it on the distributions lb simulates is slightly
//! conservative on them). The certificate reads the same macro-replications
//! again at levels 1 − f·α, f = 0.9 … 0.4 ([`CALIBRATION`] keeps the f that
//! brought the pooled rate within α); a claim of level 1 − α is decided at
//! 1 − f·α, and its intervals printed at that level.
//!
//! `decide_at = "nominal"` on a claim decides it at its stated level (the
//! option the report's certificate section measures against).

use serde::{Deserialize, Serialize};

/// At which level a claim's intervals decide it (`decide_at`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum DecideAt {
    /// Its level as the coverage certificate calibrated it
    /// ([`decision_level`]): the default.
    #[default]
    Calibrated,
    /// Its level as stated.
    Nominal,
}

/// The coverage certificate's calibration: for each level it certifies
/// (1 − α), the factor f such that intervals read at 1 − f·α refute a true
/// value claim in at most α of the certificate's macro-replications, pooled
/// over every printed procedure and point (the lowest such level read).
/// lb-pipeline's `the_calibration_is_the_certificates` test holds these to
/// the committed certificate records. The factor at 95% was 0.8 until the
/// certificate's JSQ-pair entries (the pooled-queue control where it pairs)
/// joined: 95.5% refuted 5.03% of the macro-replications before them, 4.95%
/// with them. It is 0.8 again since the JSQ pair at ε = 0.005·μ_Σ joined
/// (its intervals cover 93.2–93.8%): 96% refutes 4.44% of the pooled
/// macro-replications.
pub const CALIBRATION: [(f64, f64); 2] = [(0.95, 0.8), (0.999, 0.6)];

/// The level a claim stated at 95% is decided at, in words ("96%").
pub fn stated_95_in_words() -> String {
    percent(decision_level(0.95, DecideAt::Calibrated))
}

/// The chance that one interval decided at the level a 95% claim is
/// decided at misses, in words ("4%").
pub fn miss_at_95_in_words() -> String {
    percent(1.0 - decision_level(0.95, DecideAt::Calibrated))
}

/// Twice [`miss_at_95_in_words`] ("8%").
pub fn twice_miss_at_95_in_words() -> String {
    percent(2.0 * (1.0 - decision_level(0.95, DecideAt::Calibrated)))
}

/// A fraction as a percentage, to at most two decimals: 0.955 → "95.5%".
fn percent(x: f64) -> String {
    let s = format!("{:.2}", 100.0 * x);
    format!("{}%", s.trim_end_matches('0').trim_end_matches('.'))
}

/// The α factor of `level`: the certificate's where it certifies that
/// level, else the smallest it measured (a level the certificate did not
/// read is given the largest correction it found).
pub(crate) fn alpha_factor(level: f64) -> f64 {
    CALIBRATION
        .iter()
        .find(|(l, _)| (l - level).abs() < 1e-12)
        .map(|(_, f)| *f)
        .unwrap_or_else(|| {
            CALIBRATION
                .iter()
                .map(|(_, f)| *f)
                .fold(f64::INFINITY, f64::min)
        })
}

/// The level a claim of level `level` is decided at.
pub fn decision_level(level: f64, at: DecideAt) -> f64 {
    match at {
        DecideAt::Nominal => level,
        DecideAt::Calibrated => 1.0 - alpha_factor(level) * (1.0 - level),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_read_as_percentages() {
        assert_eq!(percent(0.955), "95.5%");
        assert_eq!(percent(0.96), "96%");
        assert_eq!(percent(0.08), "8%");
        assert_eq!(percent(0.9994), "99.94%");
    }

    #[test]
    fn a_calibrated_level_is_stricter_and_nominal_is_the_level() {
        for (l, f) in CALIBRATION {
            assert!(f > 0.0 && f <= 1.0);
            let d = decision_level(l, DecideAt::Calibrated);
            assert!(d >= l && d < 1.0, "{l} → {d}");
            assert!(((1.0 - d) - f * (1.0 - l)).abs() < 1e-15);
            assert_eq!(decision_level(l, DecideAt::Nominal), l);
        }
        // A level the certificate did not read takes the smallest factor.
        let smallest = CALIBRATION.iter().map(|c| c.1).fold(1.0, f64::min);
        let d = decision_level(0.99, DecideAt::Calibrated);
        assert!((1.0 - d - smallest * 0.01).abs() < 1e-15);
    }
}
