//! Power-of-d on the occupancy, without drawing d servers.
//!
//! Power-of-d sends a job to the shortest of d servers drawn uniformly
//! without replacement. Only the class (queue length) of that server matters
//! to the chain: the servers are exchangeable, so given its class the server
//! is a uniform one of that class, and [`Classes`]
//! moves "a server of class k" without naming it. The class of the shortest
//! of the d has a closed-form law given the class counts n_k: with
//! n_{≥k} = Σ_{i≥k} n_i servers in classes k and above,
//!
//! P(min ≥ k) = C(n_{≥k}, d) / C(N, d)
//!
//! (all d drawn among those n_{≥k}: a hypergeometric probability). [`pod_class`]
//! draws the minimum by inversion of this law over the occupied classes, from
//! one 53-bit uniform: O(occupied classes) per arrival whatever d is, where
//! drawing the d servers one by one ([`pod_by_draws`], the engine before
//! many-server version 5) costs up to d draws — about N^α at
//! d = N^α ln N in Liu and Ying's sub-Halfin-Whitt regime, where idle servers
//! are a fraction N^(−α) of all (Liu and Ying, "A Simple Steady-State
//! Analysis of Load Balancing Algorithms in the Sub-Halfin-Whitt Regime").
//!
//! The log-ratio ln[C(m, d)/C(N, d)] is computed by [`ln_all_among`]: a
//! product of at most [`PRODUCT_TERMS`] ratios when d or N − m is small, else
//! Stirling's series with its error term δ (Loader, "Fast and Accurate
//! Computation of Binomial Probabilities") grouped so that no two large terms
//! cancel: its absolute error is a few ulps of max(|ln G|, min(d, N − m)),
//! below 10⁻¹¹ wherever the probability is above 2⁻⁵³ and N ≤ 10⁷. Tests:
//! the law against the enumeration of all C(N, d) subsets (to 10⁻¹²) and the
//! draws against it and against the one-by-one sampler (χ² at a false-alarm
//! rate of 10⁻⁶), which rejects sampling with replacement.

use super::classes::Classes;

/// At most this many factors are multiplied out in [`ln_all_among`]; beyond
/// it, Stirling's series.
pub const PRODUCT_TERMS: u64 = 16;

/// Stirling's error δ(x) = ln x! − [(x + ½) ln x − x + ½ ln 2π] for x = 1..=15
/// (from 40-digit arithmetic, rounded to f64; index 0 unused).
const DELTA_SMALL: [f64; 16] = [
    0.0,
    0.08106146679532726,
    0.0413406959554093,
    0.02767792568499834,
    0.020790672103765093,
    0.016644691189821193,
    0.013876128823070748,
    0.01189670994589177,
    0.010411265261972096,
    0.009255462182712733,
    0.00833056343336287,
    0.007573675487951841,
    0.00694284010720953,
    0.006408994188004207,
    0.0059513701127588475,
    0.005554733551962801,
];

/// δ(x) for an integer x ≥ 1: the table below 16, else the series
/// 1/(12x) − 1/(360x³) + 1/(1260x⁵) − 1/(1680x⁷) + 1/(1188x⁹), truncated
/// where the next term is below 10⁻¹⁶ of δ (as Loader's `stirlerr`).
fn delta(x: u64) -> f64 {
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    debug_assert!(x >= 1);
    if x < 16 {
        return DELTA_SMALL[x as usize];
    }
    let n = x as f64;
    let nn = n * n;
    if x > 500 {
        (S0 - S1 / nn) / n
    } else if x > 80 {
        (S0 - (S1 - S2 / nn) / nn) / n
    } else if x > 35 {
        (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n
    }
}

/// ln(a/b) for integers 0 < a ≤ b, to a few ulps of the result: through
/// ln(1 − (b − a)/b) when a/b is near 1, where ln of the rounded quotient
/// would lose digits.
fn ln_ratio(a: u64, b: u64) -> f64 {
    debug_assert!(0 < a && a <= b);
    if 2 * a >= b {
        (-((b - a) as f64 / b as f64)).ln_1p()
    } else {
        (a as f64 / b as f64).ln()
    }
}

/// ln C(n, d) for 1 ≤ d < n by Stirling, grouped as
/// −(d + ½) ln(d/n) − (n − d + ½) ln((n − d)/n) − ½ ln(2πn) + δ(n) − δ(d) − δ(n − d).
fn ln_choose(n: u64, d: u64) -> f64 {
    debug_assert!(1 <= d && d < n);
    let half_ln_2pi = 0.918_938_533_204_672_7;
    -(d as f64 + 0.5) * ln_ratio(d, n)
        - ((n - d) as f64 + 0.5) * ln_ratio(n - d, n)
        - 0.5 * (n as f64).ln()
        - half_ln_2pi
        + delta(n)
        - delta(d)
        - delta(n - d)
}

/// ln[C(m, d)/C(n, d)] for 0 ≤ m ≤ n and 1 ≤ d ≤ n: the log-probability
/// that d servers drawn without replacement from n all lie among m given
/// ones; −∞ when m < d.
///
/// By symmetry C(m, d)/C(n, d) = C(n − d, j)/C(n, j) with j = n − m (the j
/// others all among the n − d not drawn), so with d' = min(d, j) and
/// m' = n − max(d, j) it is C(m', d')/C(n, d'), with m' − d' = m − d = b. If
/// d' ≤ [`PRODUCT_TERMS`] it is the product Π_{i<d'} (m' − i)/(n − i)
/// (relative error ≤ 2d' ulps). Else, writing ln x! = (x + ½) ln x − x + ½ ln 2π + δ(x):
///
/// d' ln(m'/n) − (b + ½) ln(b/m') + (n − d' + ½) ln((n − d')/n) + δ(m') − δ(b) − δ(n) + δ(n − d'),
///
/// each logarithm of a ratio taken by [`ln_ratio`]; and when b = 0 (m = d),
/// −ln C(n, d).
pub fn ln_all_among(m: u64, n: u64, d: u64) -> f64 {
    debug_assert!(m <= n && 1 <= d && d <= n);
    if m < d {
        return f64::NEG_INFINITY;
    }
    if m == n {
        return 0.0;
    }
    if let Some(p) = product(m, n, d) {
        return p.ln();
    }
    let j = n - m;
    let (dd, mm) = (d.min(j), n - d.max(j));
    let b = mm - dd;
    if b == 0 {
        return -ln_choose(n, dd);
    }
    dd as f64 * ln_ratio(mm, n) - (b as f64 + 0.5) * ln_ratio(b, mm)
        + ((n - dd) as f64 + 0.5) * ln_ratio(n - dd, n)
        + delta(mm)
        - delta(b)
        - delta(n)
        + delta(n - dd)
}

/// The factors of C(m, d)/C(n, d) as [`ln_all_among`] multiplies them out:
/// (m', d') with the ratio Π_{i<d'} (m' − i)/(n − i), where it has at most
/// [`PRODUCT_TERMS`] factors (d ≤ m < n); None where that takes Stirling's
/// series.
#[inline]
fn factors(m: u64, n: u64, d: u64) -> Option<(u64, u64)> {
    let j = n - m;
    let (dd, mm) = (d.min(j), n - d.max(j));
    (d <= m && m < n && dd <= PRODUCT_TERMS).then_some((mm, dd))
}

/// C(m, d)/C(n, d) as the product of its [`factors`]' ratios.
#[inline]
fn product(m: u64, n: u64, d: u64) -> Option<f64> {
    factors(m, n, d).map(|(mm, dd)| {
        let mut p = 1.0;
        for i in 0..dd {
            p *= (mm - i) as f64 / (n - i) as f64;
        }
        p
    })
}

/// [`product`] as a numerator and a denominator, Π (m' − i) and Π (n − i),
/// each within a few ulps (below 10¹¹² here): U·denominator against the
/// numerator orders U and the product but within 10⁻¹⁴ of it, without a
/// division.
#[inline]
fn ratio(m: u64, n: u64, d: u64) -> Option<(f64, f64)> {
    factors(m, n, d).map(|(mm, dd)| {
        let (mut top, mut bottom) = (1.0, 1.0);
        for i in 0..dd {
            top *= (mm - i) as f64;
            bottom *= (n - i) as f64;
        }
        (top, bottom)
    })
}

/// ln x, out of line: the compiler would otherwise take ln U ahead of the
/// product test that mostly spares it.
#[inline(never)]
fn ln(x: f64) -> f64 {
    x.ln()
}

/// The uniform in [0, 1) of a 64-bit word: its top 53 bits over 2⁵³.
#[inline]
fn unit(word: u64) -> f64 {
    (word >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

/// The class of the shortest of d servers drawn without replacement from the
/// N = `n` servers whose class counts are `count(k)` (n_k; zero beyond the
/// last occupied class), the lowest occupied being `floor`, by inversion
/// from the word `word`: with U its uniform, the largest k with
/// U < P(min ≥ k) = C(n_{≥k}, d)/C(N, d), compared as ln U < [`ln_all_among`].
/// Classes are walked up from the floor and the walk stops at the first k
/// with U ≥ P(min ≥ k + 1), so it visits the classes up to the one chosen.
///
/// Because P(min ≥ k + 1) ≤ (n_{≥k+1}/N)^d ≤ exp(−d·n_{<k+1}/N), a U with
/// ln U above that bound (plus a margin that covers the rounding of
/// [`ln_all_among`]) stops the walk without evaluating the law: the same
/// class as the full comparison, cheaper (the test
/// `the_shortcut_never_changes_the_class` checks it).
pub fn pod_class(count: impl Fn(usize) -> u64, floor: usize, n: u64, d: u64, word: u64) -> usize {
    debug_assert!(1 <= d && d <= n && count(floor) > 0);
    let mut k = floor;
    // m = n_{≥k+1}: the servers above class k.
    let mut m = n - count(k);
    if m < d {
        // Every d servers meet the floor class: no word is needed.
        return k;
    }
    let u = unit(word);
    // ln U, taken only where a comparison needs it.
    let mut ln_u = None;
    let margin = 1e-9 + 1e-12 * d as f64;
    loop {
        if m < d {
            return k;
        }
        let stop = match ratio(m, n, d) {
            // U against the product of ln_all_among, without its division
            // ([`ratio`]); ln U against ln_all_among only within a relative
            // 10⁻⁹ of it. Outside that band both logarithms (each within a
            // few ulps, |ln| ≤ 260 here, so within 10⁻¹³) order as U and the
            // product do, so the class is the one the logarithms give
            // (`the_shortcut_never_changes_the_class` holds it to them, with
            // words on both sides of the band's edge). The shortcut below is
            // skipped: it never changes the class.
            Some((top, bottom)) if u * bottom > top * (1.0 + 1e-9) => true,
            Some((top, bottom)) if u * bottom < top * (1.0 - 1e-9) => false,
            Some(_) => *ln_u.get_or_insert_with(|| ln(u)) >= ln_all_among(m, n, d),
            None => {
                let ln_u = *ln_u.get_or_insert_with(|| ln(u));
                let bound = -(d as f64) * ((n - m) as f64 / n as f64);
                ln_u >= bound + margin || ln_u >= ln_all_among(m, n, d)
            }
        };
        if stop {
            return k;
        }
        // min ≥ k + 1: step to the next occupied class (an empty one has the
        // same n_{≥·}, so the same probability, already passed).
        k += 1;
        while count(k) == 0 {
            k += 1;
        }
        m -= count(k);
    }
}

/// Power-of-d's choice on the occupancy: [`pod_class`] on `c`'s counts with
/// one word of the policy stream.
#[inline]
pub fn pod(c: &Classes, d: u64, n: u64, word: impl FnOnce() -> u64) -> usize {
    let floor = c.min();
    if n - c.count(floor) < d {
        return floor;
    }
    pod_class(|k| c.count(k), floor, n, d, word())
}

/// The engine's Power-of-d before many-server version 5: the least class
/// among d servers drawn one by one without replacement (each a uniformly
/// random server among those not yet drawn, by rank), stopping early once a
/// draw lands in the lowest occupied class. O(d) per arrival; kept as the
/// reference the tests hold [`pod_class`] to.
pub fn pod_by_draws(c: &mut Classes, d: usize, n: u64, rng: &mut impl rand::RngCore) -> usize {
    let floor = c.min();
    let mut best = usize::MAX;
    let mut taken: Vec<usize> = Vec::with_capacity(d.min(64));
    for i in 0..d as u64 {
        let k = c.class_of_rank(crate::streams::below(rng, (n - i) as usize) as u64);
        best = best.min(k);
        if best == floor {
            break;
        }
        c.take(k);
        taken.push(k);
    }
    for k in taken {
        c.put_back(k);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::streams::StreamRng;
    use rand::{RngCore, SeedableRng};
    use statrs::distribution::{ChiSquared, ContinuousCDF};

    /// The false-alarm rate of each χ² test: it fails by chance with
    /// probability 10⁻⁶.
    const FALSE_ALARM: f64 = 1e-6;

    /// Occupancy `Classes` with the given counts n_0, n_1, ….
    fn classes_of(counts: &[u64]) -> Classes {
        let n: u64 = counts.iter().sum();
        let mut c = Classes::new(n as usize, None);
        for (k, &nk) in counts.iter().enumerate() {
            for _ in 0..nk {
                for i in 0..k {
                    c.up(i, 0);
                }
            }
        }
        for (k, &nk) in counts.iter().enumerate() {
            assert_eq!(c.count(k), nk);
        }
        c
    }

    /// P(min class = k) by enumerating all C(N, d) subsets of the servers
    /// (server s in class `class[s]`).
    fn enumerate(counts: &[u64], d: usize) -> Vec<f64> {
        let class: Vec<usize> = counts
            .iter()
            .enumerate()
            .flat_map(|(k, &nk)| std::iter::repeat_n(k, nk as usize))
            .collect();
        let n = class.len();
        let mut hits = vec![0u64; counts.len()];
        let mut total = 0u64;
        for set in 0u32..(1 << n) {
            if set.count_ones() as usize != d {
                continue;
            }
            let min = (0..n).filter(|s| set >> s & 1 == 1).map(|s| class[s]).min();
            hits[min.unwrap()] += 1;
            total += 1;
        }
        hits.iter().map(|&h| h as f64 / total as f64).collect()
    }

    /// P(min class = k) from the closed form: G(k) − G(k + 1), G(k) =
    /// exp(ln_all_among(n_{≥k}, N, d)).
    fn closed_form(counts: &[u64], d: u64) -> Vec<f64> {
        let n: u64 = counts.iter().sum();
        let at_least = |k: usize| counts[k.min(counts.len())..].iter().sum::<u64>();
        (0..counts.len())
            .map(|k| {
                ln_all_among(at_least(k), n, d).exp() - ln_all_among(at_least(k + 1), n, d).exp()
            })
            .collect()
    }

    /// A random state: N in 1..=12 servers over classes 0..K, the lowest
    /// sometimes empty (so the floor is above 0).
    fn random_state(rng: &mut StreamRng) -> Vec<u64> {
        let n = 1 + rng.next_u64() % 12;
        let classes = 1 + (rng.next_u64() % 5) as usize;
        let skip = (rng.next_u64() % 3) as usize;
        let mut counts = vec![0u64; classes + skip];
        for _ in 0..n {
            counts[skip + (rng.next_u64() % classes as u64) as usize] += 1;
        }
        counts
    }

    /// The values of d tried at N: 1, 2, N − 1, N and one at random.
    fn ds(n: u64, rng: &mut StreamRng) -> Vec<u64> {
        let mut v = vec![1, 2.min(n), (n - 1).max(1), n, 1 + rng.next_u64() % n];
        v.sort();
        v.dedup();
        v
    }

    #[test]
    fn the_closed_form_is_the_enumeration() {
        let mut rng = StreamRng::seed_from_u64(1);
        let mut worst = 0.0f64;
        for _ in 0..400 {
            let counts = random_state(&mut rng);
            let n: u64 = counts.iter().sum();
            for d in ds(n, &mut rng) {
                let exact = enumerate(&counts, d as usize);
                let closed = closed_form(&counts, d);
                for (a, b) in exact.iter().zip(&closed) {
                    worst = worst.max((a - b).abs());
                }
            }
        }
        assert!(
            worst < 1e-12,
            "closed form off the enumeration by {worst:e}"
        );
    }

    /// The law's log-ratio at sizes beyond enumeration: exact binomials in
    /// u128 up to N = 100, and 40-digit values at N = 10⁴ to 10⁷ (from
    /// mpmath's log-gamma), both regimes of `ln_all_among` (the product and
    /// Stirling's series, d below and above N − m, m = d).
    #[test]
    fn the_log_ratio_is_accurate() {
        fn choose(n: u64, k: u64) -> u128 {
            (0..k).fold(1u128, |acc, i| acc * (n - i) as u128 / (i + 1) as u128)
        }
        for n in [17u64, 40, 64, 100] {
            for d in 1..=n {
                for m in d..=n {
                    let (a, b) = (choose(m, d), choose(n, d));
                    if b > (1u128 << 120) {
                        continue;
                    }
                    let exact = (a as f64 / b as f64).ln();
                    let got = ln_all_among(m, n, d);
                    let tol = 1e-13 * (1.0 + exact.abs());
                    assert!(
                        (got - exact).abs() < tol,
                        "ln C({m},{d})/C({n},{d}): {got} against {exact}"
                    );
                }
            }
        }
        // (m, N, d, ln[C(m, d)/C(N, d)]) to 17 digits, from log-gamma at 50 digits.
        let reference: [(u64, u64, u64, f64); 11] = [
            (998_000, 1_000_000, 6_900, -13.861_737_685_558_226),
            (999_990, 1_000_000, 6_900, -0.069_239_463_387_564_48),
            (9_990_000, 10_000_000, 20_000, -20.030_052_435_547_17),
            (9_999_000, 10_000_000, 1_000_000, -105.366_066_048_217_5),
            (5_000, 10_000, 5_000, -6_926.640_819_060_82),
            (9_983, 10_000, 9_000, -39.267_093_321_700_2),
            (123_456, 1_000_000, 100_000, -265_055.981_387_333_95),
            (999_999, 1_000_000, 999_999, -13.815_510_557_964_274),
            (9_999_000, 10_000_000, 9_999_000, -10_205.917_520_805_906),
            (5_000_001, 10_000_000, 17, -11.783_512_269_536_41),
            (9_999_983, 10_000_000, 5_000_000, -11.783_515_669_541_51),
        ];
        for (m, n, d, exact) in reference {
            let got = ln_all_among(m, n, d);
            assert!(
                (got - exact).abs() < 1e-12 * (1.0 + exact.abs()),
                "ln C({m},{d})/C({n},{d}): {got} against {exact}"
            );
        }
    }

    /// The χ² statistic of `draws` (counts per class) against the law `p`,
    /// classes pooled in order into cells of at least 10 expected draws (a
    /// short last cell joins the one before), and its degrees of freedom
    /// (cells − 1). A draw in a class of probability 0 makes it infinite.
    fn chi2(draws: &[u64], p: &[f64]) -> (f64, usize) {
        let total = draws.iter().sum::<u64>() as f64;
        let mut cells: Vec<(f64, f64)> = Vec::new();
        let mut open = (0.0, 0.0);
        for (&o, &q) in draws.iter().zip(p) {
            if q <= 0.0 && o > 0 {
                return (f64::INFINITY, 1);
            }
            open = (open.0 + o as f64, open.1 + q * total);
            if open.1 >= 10.0 {
                cells.push(open);
                open = (0.0, 0.0);
            }
        }
        match cells.last_mut() {
            Some(last) => *last = (last.0 + open.0, last.1 + open.1),
            None => return (0.0, 0),
        }
        let stat = cells.iter().map(|(o, e)| (o - e).powi(2) / e).sum();
        (stat, cells.len() - 1)
    }

    /// Pools χ² over many random states and the d of each: the sum of the
    /// statistics against the χ² quantile of the summed degrees of freedom at
    /// 1 − [`FALSE_ALARM`]. `sample` draws one class from (state, d, rng).
    fn pooled_chi2(
        seed: u64,
        mut sample: impl FnMut(&[u64], u64, &mut StreamRng) -> usize,
    ) -> (f64, f64) {
        let mut rng = StreamRng::seed_from_u64(seed);
        let (mut stat, mut df) = (0.0, 0usize);
        for _ in 0..150 {
            let counts = random_state(&mut rng);
            let n: u64 = counts.iter().sum();
            for d in ds(n, &mut rng) {
                let p = enumerate(&counts, d as usize);
                let mut draws = vec![0u64; counts.len()];
                for _ in 0..400 {
                    draws[sample(&counts, d, &mut rng)] += 1;
                }
                let (s, f) = chi2(&draws, &p);
                stat += s;
                df += f;
            }
        }
        let critical = ChiSquared::new(df as f64)
            .unwrap()
            .inverse_cdf(1.0 - FALSE_ALARM);
        (stat, critical)
    }

    fn new_sampler(counts: &[u64], d: u64, rng: &mut StreamRng) -> usize {
        let c = classes_of(counts);
        pod(&c, d, counts.iter().sum(), || rng.next_u64())
    }

    #[test]
    fn the_sampler_draws_the_law() {
        let (stat, critical) = pooled_chi2(2, new_sampler);
        assert!(stat < critical, "χ² {stat} ≥ {critical}");
    }

    /// The one-by-one sampler (the engine's until version 5) draws the same
    /// law: the enumeration is what the engine did.
    #[test]
    fn the_draws_one_by_one_have_the_same_law() {
        let (stat, critical) = pooled_chi2(3, |counts, d, rng| {
            let mut c = classes_of(counts);
            pod_by_draws(&mut c, d as usize, counts.iter().sum(), rng)
        });
        assert!(stat < critical, "χ² {stat} ≥ {critical}");
    }

    /// The test can fail. Drawing d servers *with* replacement (P(min ≥ k) =
    /// (n_{≥k}/N)^d) is rejected (it can choose a class the law excludes, as
    /// above the floor when d = N, which alone rejects it). The sampler run
    /// with d + 1 for d (capped at N) chooses only classes the law allows, so
    /// it is rejected on a finite statistic.
    #[test]
    fn a_wrong_law_is_rejected() {
        let with_replacement = |counts: &[u64], d: u64, rng: &mut StreamRng| {
            let class: Vec<usize> = counts
                .iter()
                .enumerate()
                .flat_map(|(k, &nk)| std::iter::repeat_n(k, nk as usize))
                .collect();
            (0..d)
                .map(|_| class[crate::streams::below(rng, class.len())])
                .min()
                .unwrap()
        };
        let (stat, critical) = pooled_chi2(2, with_replacement);
        assert!(
            stat > critical,
            "with replacement passed: χ² {stat} < {critical}"
        );
        let (stat, critical) = pooled_chi2(2, |counts, d, rng| {
            let n = counts.iter().sum();
            new_sampler(counts, (d + 1).min(n), rng)
        });
        assert!(
            stat.is_finite() && stat > critical,
            "d + 1 passed: χ² {stat} < {critical}"
        );
    }

    /// With d = 1 the choice is a uniform server's class; with d = N it is
    /// the floor, always.
    #[test]
    fn d_one_is_random_and_d_n_is_jsq() {
        let mut rng = StreamRng::seed_from_u64(4);
        let c = classes_of(&[0, 3, 0, 5, 2]);
        assert!((0..1000).all(|_| pod(&c, 10, 10, || rng.next_u64()) == 1));
        // d = 1: the inversion over n_{≥k}/N, exactly at the words' edges.
        // The word of the least U ≥ u.
        let at = |u: f64| {
            pod(&c, 1, 10, || {
                ((u * 9_007_199_254_740_992.0).ceil() as u64) << 11
            })
        };
        assert_eq!(at(0.0), 4);
        assert_eq!(at(0.199_999), 4);
        assert_eq!(at(0.2), 3);
        assert_eq!(at(0.699_999), 3);
        assert_eq!(at(0.7), 1);
        assert_eq!(at(1.0 - 1e-16), 1);
    }

    /// The shortcut (ln U above the bound −d·n_{<k+1}/N) returns what the
    /// full comparison returns, on random states of N up to 10⁷ and every
    /// kind of d, with words chosen near the law's own quantiles.
    #[test]
    fn the_shortcut_never_changes_the_class() {
        // Nor does the product test of `pod_class`: both against the
        // logarithms alone.
        fn full(counts: &[u64], n: u64, d: u64, word: u64) -> usize {
            let floor = counts.iter().position(|&x| x > 0).unwrap();
            let mut k = floor;
            let mut m = n - counts[k];
            let ln_u = unit(word).ln();
            while m >= d && ln_u < ln_all_among(m, n, d) {
                k += 1;
                while counts[k] == 0 {
                    k += 1;
                }
                m -= counts[k];
            }
            k
        }
        let mut rng = StreamRng::seed_from_u64(5);
        for _ in 0..3000 {
            let n = [10u64, 1000, 100_000, 10_000_000][(rng.next_u64() % 4) as usize];
            let classes = 1 + (rng.next_u64() % 6) as usize;
            // Counts from a random split of n, the first class sometimes thin.
            let mut counts = vec![0u64; classes + 1];
            let mut left = n;
            for (k, count) in counts.iter_mut().enumerate().take(classes) {
                let take = if k + 1 == classes {
                    left
                } else if k == 0 && rng.next_u64() % 2 == 0 {
                    (1 + rng.next_u64() % (1 + n / 1000)).min(left)
                } else {
                    rng.next_u64() % (left + 1)
                };
                *count = take;
                left -= take;
            }
            if counts.iter().all(|&x| x == 0) {
                continue;
            }
            let d = match rng.next_u64() % 4 {
                0 => 1 + rng.next_u64() % 3,
                1 => (1.0 + (n as f64).powf(0.45) * (n as f64).ln()) as u64,
                2 => n - rng.next_u64() % n.min(3),
                _ => 1 + rng.next_u64() % n,
            }
            .min(n);
            let floor = counts.iter().position(|&x| x > 0).unwrap();
            let at_least = |k: usize| counts[k..].iter().sum::<u64>();
            for _ in 0..20 {
                // A word whose uniform lies just around P(min ≥ k) for some k.
                let k = floor + 1 + (rng.next_u64() % classes as u64) as usize;
                let g = ln_all_among(at_least(k.min(counts.len())), n, d).exp();
                // Within 10⁻¹⁰ of it (inside the product test's band), or
                // within 10⁻⁸ (on both sides of the band's edge).
                let jitter = (rng.next_u64() % 2001) as f64 - 1000.0;
                let scale = [1e-13, 1e-11][(rng.next_u64() % 2) as usize];
                let u = (g * (1.0 + jitter * scale)).clamp(0.0, 1.0 - 1e-16);
                let word = ((u * 9_007_199_254_740_992.0) as u64) << 11;
                for w in [word, rng.next_u64()] {
                    let fast = pod_class(|i| counts.get(i).copied().unwrap_or(0), floor, n, d, w);
                    assert_eq!(fast, full(&counts, n, d, w), "{counts:?} d = {d}");
                }
            }
        }
    }
}
