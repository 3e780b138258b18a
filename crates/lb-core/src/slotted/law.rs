//! Integer-valued laws of arrivals per dispatcher, A_m(t), and of service per
//! server, S_n(t) (docs/MODEL.md §1; Zhou, Shroff and Wierman §2.1.1–2.1.2).
//!
//! All laws are light-tailed, as Zhou, Shroff and Wierman's Eq. (3) assumes.

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
    /// E\[X\].
    pub fn mean(&self) -> f64 {
        match *self {
            Law::Poisson { mean } | Law::Geometric { mean } => mean,
            Law::Bernoulli { p } => p,
            Law::Binomial { n, p } => n as f64 * p,
            Law::Deterministic { k } => k as f64,
        }
    }

    /// Var\[X\].
    pub fn variance(&self) -> f64 {
        match *self {
            Law::Poisson { mean } => mean,
            Law::Bernoulli { p } => p * (1.0 - p),
            Law::Binomial { n, p } => n as f64 * p * (1.0 - p),
            Law::Deterministic { .. } => 0.0,
            Law::Geometric { mean } => mean * (1.0 + mean),
        }
    }

    /// P(X = 0): the chance a dispatcher has no arrivals in a slot, so takes
    /// no decision and (Zhou, Shroff and Wierman, Definition 7) sends no Push.
    pub fn p_zero(&self) -> f64 {
        match *self {
            Law::Poisson { mean } => (-mean).exp(),
            Law::Bernoulli { p } => 1.0 - p,
            Law::Binomial { n, p } => (1.0 - p).powf(n as f64),
            Law::Deterministic { k } => f64::from(u8::from(k == 0)),
            Law::Geometric { mean } => 1.0 / (1.0 + mean),
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
                Sampler::Geometric(GeometricTable::new(1.0 / (1.0 - q).ln()))
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
    /// Inversion with the constant 1 / ln(1−q), read from a table of its
    /// thresholds ([`GeometricTable`]).
    Geometric(GeometricTable),
}

impl Sampler {
    /// The table, if this is a geometric law.
    pub fn geometric_table(&self) -> Option<&GeometricTable> {
        match self {
            Sampler::Geometric(g) => Some(g),
            _ => None,
        }
    }

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
            Sampler::Geometric(g) => g.sample_word(rng.next_u64()),
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
            Sampler::Geometric(g) => g.sample_word(u),
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

/// The geometric draw of the word `u`: K = ⌊ln U / ln(1−q)⌋ with U in
/// (0, 1] from the word's top 53 bits, m = (u >> 11) + 1 and U = m·2⁻⁵³.
/// (What [`GeometricTable`] computes faster; the tests compare the two.)
#[cfg(test)]
fn geometric(inv_ln_1mq: f64, u: u64) -> u64 {
    geometric_m(inv_ln_1mq, (u >> 11) + 1)
}

#[inline]
pub(crate) fn geometric_m(inv_ln_1mq: f64, m: u64) -> u64 {
    let unif = m as f64 * (1.0 / 9_007_199_254_740_992.0);
    (unif.ln() * inv_ln_1mq) as u64
}

/// The table of (c_i, −ln c_i) every [`GeometricTable`] shares.
pub(crate) fn ln_table() -> &'static [(f64, f64); 256] {
    &LN_TABLE
}

/// For i = 0..256: c_i ≈ 1/(1 + (i + ½)/256), as rounded, and −ln c_i.
static LN_TABLE: std::sync::LazyLock<[(f64, f64); 256]> = std::sync::LazyLock::new(|| {
    std::array::from_fn(|i| {
        let c = 1.0 / (1.0 + (i as f64 + 0.5) / 256.0);
        (c, -c.ln())
    })
});

/// The geometric law's inversion K(m) = ⌊ln(m·2⁻⁵³) / ln(1−q)⌋ (the words as
/// in `geometric`) without calling `ln`, **with the same K as the formula
/// for every word**: y = ln(m·2⁻⁵³)/ln(1−q) is computed to within
/// 2⁻²⁸·|1/ln(1−q)| + 2⁻⁵⁰·y of the formula's own value, and K = ⌊y⌋ taken
/// unless y lies within a wider margin (2⁻²⁵ of the same scale) of an
/// integer, where the formula decides (about one draw in 10⁵ here).
///
/// ln(m·2⁻⁵³) = (e − 53)·ln 2 + ln z for m = z·2^e, z in [1, 2), and
/// ln z = −ln c_i + ln(1 + r), 1 + r = z·c_i, c_i ≈ 1/(1 + (i + ½)/256) from
/// the top 8 bits i of z's fraction (a 4 KiB table shared by every server,
/// centred on each cell), so |r| < 2⁻⁹ and ln(1 + r) = r − r²/2 to within
/// |r|³/(3(1 − |r|)) < 2⁻²⁸·⁵. The formula's ln is within an ulp, its product
/// within half of one.
#[derive(Clone, Debug)]
pub struct GeometricTable {
    /// 1 / ln(1−q) < 0.
    inv: f64,
    /// `inv`, or 0 when the formula draws everything.
    fast: f64,
    /// The margin's absolute part, 2⁻²⁵·|inv| (∞ when the formula is always
    /// used: 1/ln(1−q) not finite and negative, or 2⁴⁰ or more in size).
    margin: f64,
    /// [`LN_TABLE`], dereferenced once.
    ln: &'static [(f64, f64); 256],
}

impl GeometricTable {
    /// The sampler for the constant `inv` = 1 / ln(1−q).
    pub fn new(inv: f64) -> GeometricTable {
        // |1/ln(1−q)| < 2⁴⁰ (means below 10¹²): y < 2⁴⁶ converts exactly.
        // Otherwise the formula draws everything.
        let usable = inv.is_finite() && inv < 0.0 && inv > -1_099_511_627_776.0;
        GeometricTable {
            inv,
            fast: if usable { inv } else { 0.0 },
            margin: if usable {
                -inv * (1.0 / 33_554_432.0)
            } else {
                f64::INFINITY
            },
            ln: &LN_TABLE,
        }
    }

    /// (1/ln(1−q), the fast path's factor, the margin's absolute part), for
    /// [`super::service`]'s lanes.
    pub(crate) fn parts(&self) -> (f64, f64, f64) {
        (self.inv, self.fast, self.margin)
    }

    /// The draw for the word `u`: exactly `geometric(inv, u)`.
    #[inline]
    pub fn sample_word(&self, u: u64) -> u64 {
        let m = (u >> 11) + 1;
        let lz = m.leading_zeros();
        let e = 63 - lz as i64;
        let top = m << lz; // the leading 1 at bit 63
        let (c, neg_ln_c) = self.ln[(top >> 55) as usize & 0xFF];
        // z = m·2^−e in [1, 2), exactly: the bits after m's leading 1 as the
        // fraction (m has at most 53 significant bits).
        let z = f64::from_bits((0x3FF << 52) | ((top << 1) >> 12));
        let r = z * c - 1.0;
        // ln(1 + r) ≈ r − r²/2 (|r| < 2⁻⁹).
        let ln1p = r - (r * r) * 0.5;
        let ln_x = ((e - 53) as f64 * std::f64::consts::LN_2 + neg_ln_c) + ln1p;
        let y = ln_x * self.fast;
        // SAFETY: y is finite and |y| < 2⁴⁶ (ln_x in [−37, 2⁻²⁸], |fast| < 2⁴⁰).
        let k = unsafe { y.to_int_unchecked::<i64>() };
        let margin = self.margin + y * (1.0 / 33_554_432.0);
        // Far from an integer: ⌊y⌋ is the formula's K (NaN and infinite
        // margins fail this test).
        if (y - k as f64 - 0.5).abs() < 0.5 - margin {
            k as u64
        } else {
            geometric_m(self.inv, m)
        }
    }
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

    /// M_k, the largest m with K(m) ≥ k (K(m) is non-increasing), by
    /// bisection on the formula itself.
    fn threshold(inv: f64, k: u64) -> Option<u64> {
        let (mut lo, mut hi) = (0u64, (1u64 << 53) + 1);
        if geometric_m(inv, 1) < k {
            return None;
        }
        lo += 1;
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if geometric_m(inv, mid) >= k {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(lo)
    }

    /// The fast draw is the formula's value for every word: at random words,
    /// at both sides of the thresholds where K changes, and at the ends of the
    /// range.
    #[test]
    fn geometric_sampler_is_the_formula() {
        let means = [
            1e-9, 0.02, 0.3, 1.0, 2.5, 7.3, 50.5, 100.0, 999.0, 1e6, 1e17,
        ];
        let grid = (0..100).map(|i| 1.0 + 99.0 * (i as f64 + 0.5) / 100.0);
        for mean in means.into_iter().chain(grid) {
            let q = 1.0 / (1.0 + mean);
            let inv = 1.0 / (1.0 - q).ln();
            let g = GeometricTable::new(inv);
            let mut x = mean.to_bits();
            for _ in 0..100_000 {
                x = mix64(x);
                assert_eq!(
                    g.sample_word(x),
                    geometric(inv, x),
                    "mean {mean} word {x:#x}"
                );
            }
            let ks = (1..64).chain((1..40).map(|j| (j as f64 * mean).ceil() as u64));
            for k in ks {
                let Some(mk) = threshold(inv, k) else {
                    continue;
                };
                for m in [mk - 1, mk, mk + 1].into_iter().filter(|&m| m >= 1) {
                    for u in [(m - 1) << 11, ((m - 1) << 11) | 0x7FF] {
                        assert_eq!(g.sample_word(u), geometric(inv, u), "mean {mean} m {m}");
                    }
                }
            }
            for u in [0, 1, 0x7FF, 0x800, u64::MAX - 0x800, u64::MAX] {
                assert_eq!(
                    g.sample_word(u),
                    geometric(inv, u),
                    "mean {mean} word {u:#x}"
                );
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
