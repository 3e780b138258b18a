//! How a slot draws its servers' service S_n(t) (docs/MODEL.md §1: S_n(t) is the
//! number of jobs server n can serve in slot t, drawn from its own
//! counter-based word, [`crate::streams::ServiceWords`]).
//!
//! Three ways, all giving the same S_n(t) for every word:
//! - [`Bernoulli`]: one comparison of the word with a threshold, cheap enough
//!   to stay inline in the service pass;
//! - [`Geometric`]: the `ln`-free inversion of [`GeometricTable`], drawn for
//!   every server in a pass of its own, eight servers at a time with AVX-512
//!   where the processor has it (the same operations lane by lane, so the same
//!   bits; see [`Geometric::offers`]);
//! - [`Samplers`]: any other law, each server's [`Sampler`] in a pass of its
//!   own.

use crate::slotted::law::{GeometricTable, Sampler, geometric_m, ln_table};
use crate::streams::ServiceWords;

/// A slot's service draws. `INLINE` ones are drawn server by server inside
/// the service pass; the others by [`offers`](Service::offers) first, in a
/// loop of its own that keeps many independent draws in flight.
pub trait Service {
    /// Drawn inside the service pass (cheap draws).
    const INLINE: bool;
    /// S_n(t) of server `s` from its word.
    fn one(&self, s: usize, word: u64) -> u64;
    /// S_n(t) of every server with work (`q[s]` > 0) into `out[s]`, 0 for an
    /// idle one, for slot `t` and the servers' word starts.
    fn offers(&self, q: &[u64], starts: &[u64], t: u64, out: &mut [u64]) {
        one_by_one(self, 0, q, starts, t, out);
    }
}

/// Servers `from..` of [`Service::offers`], server by server.
fn one_by_one<S: Service + ?Sized>(
    service: &S,
    from: usize,
    q: &[u64],
    starts: &[u64],
    t: u64,
    out: &mut [u64],
) {
    for (s, ((o, &qs), &start)) in out.iter_mut().zip(q).zip(starts).enumerate().skip(from) {
        *o = if qs == 0 {
            0
        } else {
            service.one(s, ServiceWords::word_from(start, t))
        };
    }
}

/// Bernoulli service: S_n(t) = 1 when the word is below the server's
/// threshold.
pub struct Bernoulli(pub Vec<u64>);

impl Service for Bernoulli {
    const INLINE: bool = true;
    #[inline]
    fn one(&self, s: usize, word: u64) -> u64 {
        crate::slotted::law::bernoulli(self.0[s], word)
    }
}

/// Any law, each server's sampler.
pub struct Samplers(pub Vec<Sampler>);

impl Service for Samplers {
    const INLINE: bool = false;
    #[inline]
    fn one(&self, s: usize, word: u64) -> u64 {
        self.0[s].sample_word(word)
    }
}

/// Geometric service on every server: [`GeometricTable::sample_word`] of
/// each, with its constants also kept server by server in arrays (one lane a
/// server) for the eight-lane pass.
pub struct Geometric {
    tables: Vec<GeometricTable>,
    /// Per server: the fast path's factor and the margin's absolute part.
    fast: Vec<f64>,
    margin: Vec<f64>,
    /// Eight lanes at a time (AVX-512 F, DQ and CD present).
    lanes: bool,
}

impl Geometric {
    /// The servers' tables; eight lanes at a time when the processor has
    /// AVX-512 (F, DQ, CD).
    pub fn new(tables: Vec<GeometricTable>) -> Geometric {
        Geometric::with_lanes(tables, lanes_available())
    }

    /// As [`new`](Self::new), choosing the lanes (`true` only takes effect
    /// where the processor has them): the tests compare the two.
    pub fn with_lanes(tables: Vec<GeometricTable>, lanes: bool) -> Geometric {
        Geometric {
            fast: tables.iter().map(|t| t.parts().1).collect(),
            margin: tables.iter().map(|t| t.parts().2).collect(),
            tables,
            lanes: lanes && lanes_available(),
        }
    }

    /// Whether the eight-lane pass is in use.
    pub fn uses_lanes(&self) -> bool {
        self.lanes
    }
}

impl Service for Geometric {
    const INLINE: bool = false;
    #[inline]
    fn one(&self, s: usize, word: u64) -> u64 {
        self.tables[s].sample_word(word)
    }

    /// Every server's S_n(t) (0 for an idle one). With AVX-512, eight servers
    /// a step: their words (wyrand's 64 × 64 → 128-bit product from four
    /// 32-bit ones), the leading-zero count, the table's two entries
    /// (gathered), and the same floating-point operations in the same order
    /// as [`GeometricTable::sample_word`] — no fused multiply-add, IEEE
    /// rounding lane by lane — so every lane's K is the scalar draw's. A lane
    /// whose y lies within the margin of an integer is drawn by the formula,
    /// as the scalar draw does there; the last N mod 8 servers are drawn
    /// server by server.
    fn offers(&self, q: &[u64], starts: &[u64], t: u64, out: &mut [u64]) {
        let n = q
            .len()
            .min(starts.len())
            .min(out.len())
            .min(self.tables.len());
        let done = if self.lanes {
            // SAFETY: `lanes` is true only where `lanes_available()` found
            // AVX-512 F, DQ and CD.
            #[cfg(target_arch = "x86_64")]
            unsafe {
                self.offers_avx512(&q[..n], &starts[..n], t, &mut out[..n])
            }
            #[cfg(not(target_arch = "x86_64"))]
            0
        } else {
            0
        };
        one_by_one(self, done, &q[..n], &starts[..n], t, &mut out[..n]);
    }
}

#[cfg(target_arch = "x86_64")]
impl Geometric {
    /// The first ⌊N/8⌋·8 servers' offers; returns how many were drawn.
    #[target_feature(enable = "avx512f,avx512dq,avx512cd")]
    unsafe fn offers_avx512(&self, q: &[u64], starts: &[u64], t: u64, out: &mut [u64]) -> usize {
        use std::arch::x86_64::*;
        let n = q.len();
        let vtk = _mm512_set1_epi64(t.wrapping_mul(0xA076_1D64_78BD_642F) as i64);
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: i + 8 ≤ n, and q, starts and out hold n entries.
            unsafe {
                let start = _mm512_loadu_si512(starts.as_ptr().add(i) as *const __m512i);
                let qs = _mm512_loadu_si512(q.as_ptr().add(i) as *const __m512i);
                let busy = _mm512_cmpneq_epi64_mask(qs, _mm512_setzero_si512());
                let u = wyrand8(_mm512_add_epi64(start, vtk));
                self.draw8(i, u, busy, out, |j| ServiceWords::word_from(starts[j], t));
            }
            i += 8;
        }
        i
    }

    /// [`GeometricTable::sample_word`] of servers i..i + 8 for the words
    /// `u`, into `out[i..i + 8]` (0 where not `busy`).
    #[target_feature(enable = "avx512f,avx512dq,avx512cd")]
    unsafe fn draw8(
        &self,
        i: usize,
        u: std::arch::x86_64::__m512i,
        busy: u8,
        out: &mut [u64],
        word: impl Fn(usize) -> u64,
    ) {
        use std::arch::x86_64::*;
        let half = _mm512_set1_pd(0.5);
        let table = ln_table().as_ptr() as *const f64;
        // SAFETY: the caller gives i + 8 ≤ the servers and out's length;
        // the table's indices are below 512.
        unsafe {
            let fast = _mm512_loadu_pd(self.fast.as_ptr().add(i));
            let margin_abs = _mm512_loadu_pd(self.margin.as_ptr().add(i));
            let m = _mm512_add_epi64(_mm512_srli_epi64::<11>(u), _mm512_set1_epi64(1));
            let lz = _mm512_lzcnt_epi64(m);
            let top = _mm512_sllv_epi64(m, lz);
            let idx = _mm512_slli_epi64::<1>(_mm512_and_si512(
                _mm512_srli_epi64::<55>(top),
                _mm512_set1_epi64(0xFF),
            ));
            let c = _mm512_i64gather_pd::<8>(idx, table);
            let neg_ln_c = _mm512_i64gather_pd::<8>(idx, table.add(1));
            let z = _mm512_castsi512_pd(_mm512_or_si512(
                _mm512_set1_epi64((0x3FF_u64 << 52) as i64),
                _mm512_srli_epi64::<12>(_mm512_slli_epi64::<1>(top)),
            ));
            let r = _mm512_sub_pd(_mm512_mul_pd(z, c), _mm512_set1_pd(1.0));
            let ln1p = _mm512_sub_pd(r, _mm512_mul_pd(_mm512_mul_pd(r, r), half));
            // e − 53 = 10 − lz.
            let e53 = _mm512_cvtepi64_pd(_mm512_sub_epi64(_mm512_set1_epi64(10), lz));
            let ln_x = _mm512_add_pd(
                _mm512_add_pd(
                    _mm512_mul_pd(e53, _mm512_set1_pd(std::f64::consts::LN_2)),
                    neg_ln_c,
                ),
                ln1p,
            );
            let y = _mm512_mul_pd(ln_x, fast);
            let k = _mm512_cvttpd_epi64(y);
            let margin = _mm512_add_pd(
                margin_abs,
                _mm512_mul_pd(y, _mm512_set1_pd(1.0 / 33_554_432.0)),
            );
            let dev = _mm512_abs_pd(_mm512_sub_pd(_mm512_sub_pd(y, _mm512_cvtepi64_pd(k)), half));
            let ok = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(dev, _mm512_sub_pd(half, margin));
            _mm512_storeu_si512(
                out.as_mut_ptr().add(i) as *mut __m512i,
                _mm512_maskz_mov_epi64(busy, k),
            );
            // Within the margin of an integer (or the fast path off): the
            // formula decides.
            let mut near = busy & !ok;
            while near != 0 {
                let j = i + near.trailing_zeros() as usize;
                near &= near - 1;
                let (inv, ..) = self.tables[j].parts();
                out[j] = geometric_m(inv, (word(j) >> 11) + 1);
            }
        }
    }

    /// Test access: each server's draw for its own given word, eight lanes
    /// at a time (the first ⌊N/8⌋·8 servers; returns how many).
    #[cfg(test)]
    fn words_avx512(&self, words: &[u64], out: &mut [u64]) -> usize {
        use std::arch::x86_64::*;
        assert!(self.lanes);
        let mut i = 0;
        while i + 8 <= words.len().min(out.len()) {
            // SAFETY: lanes are available; i + 8 ≤ the lengths.
            unsafe {
                let u = _mm512_loadu_si512(words.as_ptr().add(i) as *const __m512i);
                self.draw8(i, u, 0xFF, out, |j| words[j]);
            }
            i += 8;
        }
        i
    }
}

/// wyrand's output for eight counters x: the 128-bit product x·(x ⊕ C),
/// low half ⊕ high half ([`ServiceWords::word_from`]), the high half from
/// four 32 × 32 → 64-bit products.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn wyrand8(x: std::arch::x86_64::__m512i) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::*;
    let low32 = _mm512_set1_epi64(0xFFFF_FFFF);
    let b = _mm512_xor_si512(x, _mm512_set1_epi64(0xE703_7ED1_A0B4_28DB_u64 as i64));
    let lo = _mm512_mullo_epi64(x, b);
    let xh = _mm512_srli_epi64::<32>(x);
    let bh = _mm512_srli_epi64::<32>(b);
    let ll = _mm512_mul_epu32(x, b);
    let lh = _mm512_mul_epu32(x, bh);
    let hl = _mm512_mul_epu32(xh, b);
    let hh = _mm512_mul_epu32(xh, bh);
    let mid = _mm512_add_epi64(
        _mm512_add_epi64(_mm512_srli_epi64::<32>(ll), _mm512_and_si512(lh, low32)),
        _mm512_and_si512(hl, low32),
    );
    let hi = _mm512_add_epi64(
        _mm512_add_epi64(hh, _mm512_srli_epi64::<32>(lh)),
        _mm512_add_epi64(_mm512_srli_epi64::<32>(hl), _mm512_srli_epi64::<32>(mid)),
    );
    _mm512_xor_si512(lo, hi)
}

/// Whether this processor has the eight-lane pass's instructions (AVX-512
/// F, DQ and CD): where it has not, geometric service is drawn server by
/// server, to the same numbers.
pub fn lanes_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512dq")
            && std::is_x86_feature_detected!("avx512cd")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slotted::law::Law;
    use crate::streams::mix64;

    fn tables(means: &[f64]) -> Vec<GeometricTable> {
        means
            .iter()
            .map(|&mean| {
                Law::Geometric { mean }
                    .sampler()
                    .geometric_table()
                    .expect("geometric")
                    .clone()
            })
            .collect()
    }

    /// The eight-lane pass gives every server the scalar draw's S_n(t), idle
    /// servers 0, at random starts and slots, over means from 10⁻⁹ to 10¹⁷
    /// (at 10¹⁷ the fast path is off and every lane falls back to the
    /// formula; the words next to a threshold of K are the next test's).
    /// Where the processor has no AVX-512 both sides take the scalar path
    /// and the test says so.
    #[test]
    fn lanes_draw_what_the_scalar_path_draws() {
        // The extremes first, so that they fall in lanes (not the tail).
        let mut means = vec![1e-9, 0.02, 0.3, 1.0, 2.5, 7.3, 999.0, 1e6, 1e17];
        means.extend((0..100).map(|i| 1.0 + 99.0 * (i as f64 + 0.5) / 100.0));
        let lanes = Geometric::with_lanes(tables(&means), true);
        let scalar = Geometric::with_lanes(tables(&means), false);
        if !lanes.uses_lanes() {
            eprintln!("no AVX-512 here: the lanes are not exercised");
        }
        let n = means.len();
        let (mut a, mut b) = (vec![0; n], vec![0; n]);
        let mut x = 0x5EED_u64;
        let mut fallbacks = 0u64;
        for round in 0..20_000u64 {
            let starts: Vec<u64> = (0..n)
                .map(|_| {
                    x = mix64(x);
                    x
                })
                .collect();
            let q: Vec<u64> = (0..n).map(|s| mix64(x ^ s as u64) % 4).collect();
            let t = mix64(round) >> (round % 64);
            lanes.offers(&q, &starts, t, &mut a);
            scalar.offers(&q, &starts, t, &mut b);
            assert_eq!(a, b, "round {round}");
            for s in 0..n {
                let want = if q[s] == 0 {
                    0
                } else {
                    scalar.tables[s].sample_word(ServiceWords::word_from(starts[s], t))
                };
                assert_eq!(a[s], want, "round {round} server {s}");
                // The formula-only servers (fast path off) are the fallback lanes.
                fallbacks += u64::from(scalar.tables[s].parts().1 == 0.0 && q[s] > 0);
            }
        }
        assert!(fallbacks > 0, "the formula-only servers were drawn");
    }

    /// At the words where K changes (both sides of each threshold, for the
    /// first K and for K near multiples of the mean), the lanes give the
    /// formula's K: these are the words the margin sends to the formula.
    #[test]
    fn lanes_are_exact_at_the_thresholds() {
        let means: Vec<f64> = (0..96)
            .map(|i| 1.0 + 99.0 * (i as f64 + 0.5) / 96.0)
            .chain([0.02, 0.3, 2.5, 7.3, 999.0, 1e6, 1e-9, 1e17])
            .collect();
        let g = Geometric::with_lanes(tables(&means), true);
        if !g.uses_lanes() {
            eprintln!("no AVX-512 here: the lanes are not exercised");
            return;
        }
        // The least m with K(m) < k (K falls as m grows), by bisection.
        let threshold = |inv: f64, k: u64| -> Option<u64> {
            let (mut lo, mut hi) = (1u64, 1u64 << 53);
            if geometric_m(inv, lo) < k || geometric_m(inv, hi) >= k {
                return None;
            }
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if geometric_m(inv, mid) < k {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            Some(hi)
        };
        let n = means.len();
        let mut checked = 0;
        for j in 0..200u64 {
            // Server s's word: near its own threshold for the j-th K.
            let words: Vec<u64> = (0..n)
                .map(|s| {
                    let (inv, ..) = g.tables[s].parts();
                    let k = if j < 64 {
                        j + 1
                    } else {
                        ((j - 63) as f64 * means[s]).ceil() as u64
                    };
                    let side = (j + s as u64) % 4;
                    match threshold(inv, k) {
                        Some(m) => {
                            let m = (m + (side & 1)).saturating_sub(1).max(1);
                            ((m - 1) << 11) | if side >= 2 { 0x7FF } else { 0 }
                        }
                        None => mix64(j ^ s as u64),
                    }
                })
                .collect();
            let mut out = vec![0; n];
            let done = g.words_avx512(&words, &mut out);
            for s in 0..done {
                let (inv, ..) = g.tables[s].parts();
                assert_eq!(
                    out[s],
                    geometric_m(inv, (words[s] >> 11) + 1),
                    "mean {} word {:#x}",
                    means[s],
                    words[s]
                );
                assert_eq!(out[s], g.tables[s].sample_word(words[s]));
                checked += 1;
            }
        }
        assert_eq!(checked, 200 * n);
    }
}
