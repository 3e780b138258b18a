//! Integer-valued laws of arrivals per dispatcher, A_m(t), and of service per
//! server, S_n(t) (SPEC §1 "Distributions"; seed 000 §2.1.1–2.1.2).
//!
//! All laws are light-tailed, as seed 000's Eq. (3) assumes.

use rand::Rng;
use rand_distr::{Binomial, Distribution, Poisson};
use serde::{Deserialize, Serialize};

/// A law on {0, 1, 2, …}.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "law", rename_all = "snake_case", deny_unknown_fields)]
pub enum Law {
    /// Poisson with the given mean.
    Poisson {
        /// λ.
        mean: f64,
    },
    /// 1 with probability `p`, else 0.
    Bernoulli {
        /// P(X = 1).
        p: f64,
    },
    /// Binomial(`n`, `p`).
    Binomial {
        /// Trials.
        n: u64,
        /// Success probability.
        p: f64,
    },
    /// Always `k`.
    Deterministic {
        /// The value.
        k: u64,
    },
    /// Geometric on {0, 1, 2, …} with the given mean μ: P(k) = (1−q)^k q,
    /// q = 1/(1+μ), variance μ(1+μ).
    Geometric {
        /// μ.
        mean: f64,
    },
}

/// The largest mean (and binomial n, deterministic k) a law may have: the
/// samplers are exact and the per-slot counters cannot overflow below it
/// (10⁹ jobs a slot; no experiment comes near).
pub const MAX_LAW_MEAN: f64 = 1e9;

impl Law {
    /// E[X].
    pub fn mean(&self) -> f64 {
        match *self {
            Law::Poisson { mean } | Law::Geometric { mean } => mean,
            Law::Bernoulli { p } => p,
            Law::Binomial { n, p } => n as f64 * p,
            Law::Deterministic { k } => k as f64,
        }
    }

    /// Var[X].
    pub fn variance(&self) -> f64 {
        match *self {
            Law::Poisson { mean } => mean,
            Law::Bernoulli { p } => p * (1.0 - p),
            Law::Binomial { n, p } => n as f64 * p * (1.0 - p),
            Law::Deterministic { .. } => 0.0,
            Law::Geometric { mean } => mean * (1.0 + mean),
        }
    }

    /// A short name with parameters, for captions and error messages.
    pub fn label(&self) -> String {
        match *self {
            Law::Poisson { mean } => format!("poisson({mean})"),
            Law::Bernoulli { p } => format!("bernoulli({p})"),
            Law::Binomial { n, p } => format!("binomial({n}, {p})"),
            Law::Deterministic { k } => format!("deterministic({k})"),
            Law::Geometric { mean } => format!("geometric(mean {mean})"),
        }
    }

    /// The same family rescaled to mean `target` (used to set a load).
    /// Bernoulli and binomial rescale `p`; deterministic needs an integer.
    pub fn with_mean(&self, target: f64) -> Result<Law, String> {
        let law = match *self {
            Law::Poisson { .. } => Law::Poisson { mean: target },
            Law::Geometric { .. } => Law::Geometric { mean: target },
            Law::Bernoulli { .. } => Law::Bernoulli { p: target },
            Law::Binomial { n, .. } => Law::Binomial {
                n,
                p: target / n as f64,
            },
            Law::Deterministic { .. } => {
                if target.fract() != 0.0 || target < 0.0 {
                    return Err(format!(
                        "a deterministic law needs a whole mean, got {target}"
                    ));
                }
                Law::Deterministic { k: target as u64 }
            }
        };
        law.validate()?;
        Ok(law)
    }

    /// Checks the parameters; the message says what is allowed.
    pub fn validate(&self) -> Result<(), String> {
        let finite_nonneg = |name: &str, v: f64| {
            if !(v.is_finite() && v >= 0.0) {
                Err(format!("{name} must be a finite number ≥ 0, got {v}"))
            } else if v > MAX_LAW_MEAN {
                Err(format!(
                    "{name} must be at most {MAX_LAW_MEAN:e} jobs a slot (the samplers' range), got {v}"
                ))
            } else {
                Ok(())
            }
        };
        let prob = |v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(format!("p must lie in [0, 1], got {v}"))
            }
        };
        match *self {
            Law::Poisson { mean } | Law::Geometric { mean } => finite_nonneg("mean", mean),
            Law::Bernoulli { p } => prob(p),
            Law::Binomial { n, p } => {
                if n as f64 > MAX_LAW_MEAN {
                    return Err(format!("n must be at most {MAX_LAW_MEAN:e}, got {n}"));
                }
                prob(p)
            }
            Law::Deterministic { k } => finite_nonneg("k", k as f64),
        }
    }

    /// A sampler with its constants prepared once.
    pub fn sampler(&self) -> Sampler {
        match *self {
            Law::Poisson { mean } if mean > 0.0 && mean <= POISSON_TABLE_MAX => {
                Sampler::PoissonTable(PoissonTable::new(mean))
            }
            Law::Poisson { mean } if mean > 0.0 => {
                Sampler::Poisson(Poisson::new(mean).expect("validated mean"))
            }
            Law::Poisson { .. } => Sampler::Const(0),
            Law::Bernoulli { p } => Sampler::Bernoulli(threshold(p)),
            Law::Binomial { n, p } => Sampler::Binomial(Binomial::new(n, p).expect("validated p")),
            Law::Deterministic { k } => Sampler::Const(k),
            Law::Geometric { mean } if mean > 0.0 => {
                // P(K ≥ k) = (1−q)^k, so K = ⌊ln U / ln(1−q)⌋ with U uniform on (0, 1].
                let q = 1.0 / (1.0 + mean);
                Sampler::Geometric(1.0 / (1.0 - q).ln())
            }
            Law::Geometric { .. } => Sampler::Const(0),
        }
    }
}

/// `p` as a threshold t = ⌊p·2⁶³⌋ on the top 63 bits of a uniform word:
/// `(u >> 1) < t` has probability t/2⁶³ (p to within 2⁻⁶³, and exactly 0 or 1
/// at the ends) — one comparison, no special case for certainty.
fn threshold(p: f64) -> u64 {
    (p.clamp(0.0, 1.0) * 9_223_372_036_854_775_808.0) as u64
}

/// A prepared sampler for a [`Law`].
#[derive(Clone, Debug)]
pub enum Sampler {
    /// Always this value.
    Const(u64),
    /// 1 when the top 63 bits of a uniform word are below this threshold.
    Bernoulli(u64),
    /// Poisson by table inversion (mean ≤ [`POISSON_TABLE_MAX`]).
    PoissonTable(PoissonTable),
    /// rand_distr's Poisson (larger means).
    Poisson(Poisson<f64>),
    /// rand_distr's binomial.
    Binomial(Binomial),
    /// Inversion with the constant 1 / ln(1−q).
    Geometric(f64),
}

impl Sampler {
    /// The threshold, if this is a Bernoulli law (see [`bernoulli`]).
    pub fn bernoulli_threshold(&self) -> Option<u64> {
        match self {
            Sampler::Bernoulli(t) => Some(*t),
            _ => None,
        }
    }

    /// Draws one value from a sequential stream. The one-word laws are
    /// inlined; rand_distr's samplers are called out of line.
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        match self {
            Sampler::Const(k) => *k,
            Sampler::Bernoulli(t) => bernoulli(*t, rng.next_u64()),
            Sampler::PoissonTable(t) => t.invert(rng.next_u64()),
            Sampler::Geometric(inv) => geometric(*inv, rng.next_u64()),
            _ => self.sample_many_words(rng),
        }
    }

    #[inline(never)]
    fn sample_many_words<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        match self {
            Sampler::Poisson(d) => d.sample(rng) as u64,
            Sampler::Binomial(d) => d.sample(rng),
            _ => unreachable!("one-word laws are drawn inline"),
        }
    }

    /// Draws one value from a single 64-bit random word `u`; laws that need more
    /// than one word seed a [`SplitMix64`] from it. This is what makes service
    /// random-access: S_n(t) is a function of (stream key, n, t) alone.
    #[inline]
    pub fn sample_word(&self, u: u64) -> u64 {
        match self {
            Sampler::Const(k) => *k,
            Sampler::Bernoulli(t) => bernoulli(*t, u),
            Sampler::Geometric(inv) => geometric(*inv, u),
            Sampler::PoissonTable(t) => t.invert(u),
            Sampler::Poisson(d) => d.sample(&mut SplitMix64(u)) as u64,
            Sampler::Binomial(d) => d.sample(&mut SplitMix64(u)),
        }
    }
}

/// Poisson laws up to this mean are drawn by [`PoissonTable`]; larger ones by
/// rand_distr's PTRS, whose cost does not grow with the mean.
pub const POISSON_TABLE_MAX: f64 = 1024.0;

/// Poisson(λ) by inversion of its distribution function, one 64-bit word per
/// draw: X = min{k : u < T_k}, with T_k = F(k)·2⁶⁴ rounded, found from a guide
/// table (Chen and Asau 1974) in O(1) expected steps.
///
/// F(k) is summed in f64, upward below the mode and 1 − F(k) downward above
/// it, so both tails keep their relative precision; a threshold is accurate to
/// about 2⁻⁵³ of F(k) (f64 sums, and the log-space recurrence), so against
/// 300-bit arithmetic the probabilities are off by < 4·10⁻⁸ relatively and the
/// law is within 4·10⁻¹⁵ of Poisson(λ) in total variation (checked for λ from
/// 5·10⁻³²⁴ to 1024). The table stops at λ + 40√λ + 40, where the tail is far
/// below 2⁻⁶⁴.
#[derive(Clone, Debug)]
pub struct PoissonTable {
    thr: Vec<u64>,
    guide: Vec<u32>,
    shift: u32,
}

impl PoissonTable {
    /// The table for mean `mean` (0 < mean ≤ [`POISSON_TABLE_MAX`]).
    pub fn new(mean: f64) -> PoissonTable {
        let k_max = (mean + 40.0 * mean.sqrt() + 40.0).ceil() as usize;
        let (ln_l, mut lnp) = (mean.ln(), -mean);
        let mut p = Vec::with_capacity(k_max + 1);
        p.push(lnp.exp());
        for k in 1..=k_max {
            lnp += ln_l - (k as f64).ln();
            p.push(lnp.exp());
        }
        let total: f64 = p.iter().sum();
        let two64 = 18_446_744_073_709_551_616.0f64;
        let mode = (mean.floor() as usize).min(k_max);
        let mut thr = vec![0u64; k_max + 1];
        let mut f = 0.0;
        for k in 0..mode {
            f += p[k] / total;
            thr[k] = (f * two64).round() as u64;
        }
        let mut tail = 0.0; // 1 − F(k) = Σ_{j>k} p_j
        for k in (mode..=k_max).rev() {
            let t = (tail * two64).round() as u128;
            thr[k] = ((1u128 << 64) - t).min(u64::MAX as u128) as u64;
            tail += p[k] / total;
        }
        let g = usize::BITS - k_max.leading_zeros();
        let shift = 64 - g;
        // guide[i] = the first k with T_k > i·2^shift (a merge of two
        // increasing sequences).
        let mut guide = Vec::with_capacity(1 << g);
        let mut k = 0;
        for i in 0..1u64 << g {
            let lo = i << shift;
            while k < k_max && thr[k] <= lo {
                k += 1;
            }
            guide.push(k as u32);
        }
        PoissonTable { thr, guide, shift }
    }

    /// The draw for the uniform word `u`.
    #[inline]
    pub fn invert(&self, u: u64) -> u64 {
        let last = self.thr.len() - 1;
        let mut k = self.guide[(u >> self.shift) as usize] as usize;
        while k < last && u >= self.thr[k] {
            k += 1;
        }
        k as u64
    }
}

pub use crate::streams::bernoulli;

#[inline]
fn geometric(inv_ln_1mq: f64, u: u64) -> u64 {
    // U in (0, 1]: 53 random bits, shifted away from 0.
    let unif = ((u >> 11) + 1) as f64 * (1.0 / 9_007_199_254_740_992.0);
    (unif.ln() * inv_ln_1mq) as u64
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny generator seeded from one word,
/// used only to draw multi-word laws from a counter-based word.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl rand::RngCore for SplitMix64 {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
    #[inline]
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.0)
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for chunk in dst.chunks_mut(8) {
            let w = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&w[..chunk.len()]);
        }
    }
}

pub use crate::streams::mix64;

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// The table's thresholds are the Poisson distribution function: compared
    /// with an independent computation (direct pmf products) at every k.
    #[test]
    fn poisson_table_is_the_distribution_function() {
        for mean in [0.3, 2.49, 4.5, 37.0, 450.0] {
            let t = PoissonTable::new(mean);
            let mut f = 0.0f64;
            let mut pk = (-mean).exp();
            for k in 0..t.thr.len().min(200) {
                if k > 0 {
                    pk *= mean / k as f64;
                }
                f += pk;
                if mean < 700.0 && f < 1.0 - 1e-12 {
                    let got = t.thr[k] as f64 / 18_446_744_073_709_551_616.0;
                    // Relative precision, down to the word's resolution 2⁻⁶⁴.
                    let tol = 1e-9 * f + 2.0 / 18_446_744_073_709_551_616.0;
                    assert!((got - f).abs() <= tol, "λ {mean} k {k}: {got} vs {f}");
                }
            }
            // Inversion at the edges.
            let first = t.thr.iter().position(|&x| x > 0).unwrap() as u64;
            assert_eq!(t.invert(0), first);
            assert!(t.invert(u64::MAX) as f64 > mean);
            for k in 1..t.thr.len().min(50) {
                if t.thr[k - 1] < t.thr[k] {
                    assert_eq!(t.invert(t.thr[k - 1]), k as u64);
                    assert_eq!(t.invert(t.thr[k] - 1), k as u64);
                }
            }
        }
    }

    fn moments(law: Law, words: bool) -> (f64, f64) {
        let s = law.sampler();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let n = 400_000;
        let (mut m1, mut m2) = (0.0, 0.0);
        for i in 0..n {
            let x = if words {
                s.sample_word(mix64(i as u64 ^ 0xABCD))
            } else {
                s.sample(&mut rng)
            } as f64;
            m1 += x;
            m2 += x * x;
        }
        let mean = m1 / n as f64;
        (mean, m2 / n as f64 - mean * mean)
    }

    #[test]
    fn sample_moments_match_the_law() {
        let laws = [
            Law::Poisson { mean: 3.5 },
            Law::Poisson { mean: 0.02 },
            Law::Poisson { mean: 450.0 },
            Law::Poisson { mean: 5000.0 },
            Law::Bernoulli { p: 0.3 },
            Law::Binomial { n: 5, p: 0.4 },
            Law::Deterministic { k: 2 },
            Law::Geometric { mean: 2.5 },
        ];
        for law in laws {
            for words in [false, true] {
                let (m, v) = moments(law, words);
                // 5 standard errors of the sample mean; the variance check uses
                // the fourth moment bound Var(s²) ≤ E[X⁴]/n, loosely at 10%.
                let se = (law.variance() / 400_000.0).sqrt();
                assert!(
                    (m - law.mean()).abs() <= 5.0 * se + 1e-12,
                    "{law:?} mean {m}"
                );
                assert!(
                    (v - law.variance()).abs() <= 0.1 * law.variance() + 1e-12,
                    "{law:?} var {v}"
                );
            }
        }
    }
}
