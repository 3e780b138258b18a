//! Axis ticks and their labels: linear axes step by 1, 2 or 5 times a power
//! of ten (at least 1 on an integer axis), log axes are labelled at 1, 2 and
//! 5 times each power of ten (decades only when that is too many), and a
//! label has no more decimals than its step needs: "100", not "100.0".

/// 1, 2, 5 × 10^k for k in [k0, k1], as exact decimal values.
fn one_two_five(k0: i32, k1: i32) -> Vec<f64> {
    let mut v = Vec::new();
    for k in k0..=k1 {
        for m in [1, 2, 5] {
            v.push(format!("{m}e{k}").parse::<f64>().expect("a number"));
        }
    }
    v
}

fn decade(x: f64) -> i32 {
    x.log10().floor() as i32
}

/// The 1-2-5 values in [lo, hi] (0 < lo ≤ hi).
pub fn log_125(lo: f64, hi: f64) -> Vec<f64> {
    let eps = 1e-9;
    one_two_five(decade(lo) - 1, decade(hi) + 1)
        .into_iter()
        .filter(|&v| v >= lo * (1.0 - eps) && v <= hi * (1.0 + eps))
        .collect()
}

/// The powers of ten in [lo, hi].
pub fn log_decades(lo: f64, hi: f64) -> Vec<f64> {
    log_125(lo, hi)
        .into_iter()
        .filter(|v| {
            let m = v / 10f64.powi(decade(*v));
            (m - 1.0).abs() < 1e-9
        })
        .collect()
}

/// The largest 1-2-5 value ≤ x and the smallest ≥ x.
pub fn log_125_around(x: f64) -> (f64, f64) {
    let vs = one_two_five(decade(x) - 1, decade(x) + 1);
    let below = vs
        .iter()
        .copied()
        .filter(|&v| v <= x * (1.0 + 1e-9))
        .fold(f64::NAN, f64::max);
    let above = vs
        .iter()
        .copied()
        .filter(|&v| v >= x * (1.0 - 1e-9))
        .fold(f64::NAN, f64::min);
    (below, above)
}

/// Log-axis ticks on [lo, hi]: 1-2-5 when there are at most `max` of them,
/// else the decades (every second, third, … decade if still too many). On an
/// integer axis values below 1 are dropped.
pub fn log_ticks(lo: f64, hi: f64, max: usize, integer: bool) -> Vec<f64> {
    let keep = |v: &f64| !integer || *v >= 1.0;
    let t: Vec<f64> = log_125(lo, hi).into_iter().filter(keep).collect();
    if t.len() <= max {
        return t;
    }
    let d: Vec<f64> = log_decades(lo, hi).into_iter().filter(keep).collect();
    let every = d.len().div_ceil(max.max(1)).max(1);
    d.into_iter().step_by(every).collect()
}

/// The 1-2-5 step that gives about `target` intervals on [lo, hi] (the
/// nearest on a log scale); at least 1 on an integer axis.
pub fn linear_step(lo: f64, hi: f64, target: usize, integer: bool) -> f64 {
    let raw = ((hi - lo) / target.max(1) as f64).max(f64::MIN_POSITIVE);
    let mag = 10f64.powi(decade(raw));
    let mut step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .min_by(|a, b| (a / raw).ln().abs().total_cmp(&(b / raw).ln().abs()))
        .expect("candidates");
    if integer {
        step = step.max(1.0).round();
    }
    step
}

/// The next coarser 1-2-5 step after `step`.
pub fn coarser(step: f64) -> f64 {
    let mag = 10f64.powi(decade(step));
    let m = (step / mag).round();
    if m < 2.0 {
        2.0 * mag
    } else if m < 5.0 {
        5.0 * mag
    } else {
        10.0 * mag
    }
}

/// Decimals a label of a linear axis with this step needs.
pub fn decimals(step: f64) -> usize {
    if step >= 1.0 {
        0
    } else {
        (-(step.log10() + 1e-9).floor()) as usize
    }
}

/// Ticks k·step within [lo, hi], rounded to the step's decimals.
pub fn linear_ticks(lo: f64, hi: f64, step: f64) -> Vec<f64> {
    let d = decimals(step) as i32;
    let k0 = (lo / step - 1e-9).ceil() as i64;
    let k1 = (hi / step + 1e-9).floor() as i64;
    (k0..=k1)
        .map(|k| {
            let v = k as f64 * step;
            let p = 10f64.powi(d);
            (v * p).round() / p
        })
        .collect()
}

fn superscript(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '-' | '−' => '⁻',
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            '9' => '⁹',
            c => c,
        })
        .collect()
}

/// A tick label: `decimals` digits after the point when given (a linear
/// axis), else the shortest exact form; very small or large magnitudes as
/// m×10ⁿ. Negative numbers take a minus sign (−), not a hyphen.
pub fn format_tick(v: f64, decimals: Option<usize>) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    let body = if !(1e-3..1e5).contains(&a) {
        let e = decade(a);
        let m = a / 10f64.powi(e);
        let m = (m * 1e6).round() / 1e6;
        let pow = format!("10{}", superscript(&e.to_string()));
        if (m - 1.0).abs() < 1e-9 {
            pow
        } else {
            format!("{m}×{pow}")
        }
    } else {
        match decimals {
            Some(d) => format!("{a:.d$}"),
            None => format!("{a}"),
        }
    };
    if v < 0.0 { format!("−{body}") } else { body }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(v: &[f64], d: Option<usize>) -> Vec<String> {
        v.iter().map(|x| format_tick(*x, d)).collect()
    }

    #[test]
    fn log_ticks_are_one_two_five() {
        // Fig. 1's range: numbers below 10 get labels.
        assert_eq!(
            labels(&log_ticks(4.1, 72.0, 12, false), None),
            ["5", "10", "20", "50"]
        );
        // Heavy traffic's x: every swept ε/μ_Σ is a label.
        assert_eq!(
            labels(&log_ticks(0.0018, 0.22, 12, false), None),
            ["0.002", "0.005", "0.01", "0.02", "0.05", "0.1", "0.2"]
        );
        assert_eq!(
            labels(&log_ticks(90.0, 11_000.0, 12, true), None),
            ["100", "200", "500", "1000", "2000", "5000", "10000"]
        );
        // Too many 1-2-5 values: decades, as 10ⁿ where small.
        assert_eq!(
            labels(&log_ticks(1e-7, 0.9, 12, false), None),
            ["10⁻⁷", "10⁻⁶", "10⁻⁵", "10⁻⁴", "0.001", "0.01", "0.1"]
        );
        assert_eq!(log_125_around(55.0), (50.0, 100.0));
        assert_eq!(log_125_around(170.0), (100.0, 200.0));
        assert_eq!(format_tick(2e-7, None), "2×10⁻⁷");
    }

    #[test]
    fn integer_axes_get_integer_ticks() {
        // The validation figure: N = 1, 2, 3 servers, no 1.2, 1.4, ….
        let step = linear_step(0.9, 3.1, 8, true);
        assert_eq!(step, 1.0);
        assert_eq!(
            labels(&linear_ticks(0.9, 3.1, step), Some(decimals(step))),
            ["1", "2", "3"]
        );
        // Log integer axes drop values below 1.
        assert_eq!(log_ticks(0.5, 3.0, 12, true), [1.0, 2.0]);
    }

    #[test]
    fn linear_labels_carry_no_false_decimals() {
        let step = linear_step(0.27, 1.02, 8, false);
        assert_eq!(step, 0.1);
        assert_eq!(
            labels(&linear_ticks(0.27, 1.02, step), Some(decimals(step))),
            ["0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0"]
        );
        let step = linear_step(0.0, 100.0, 5, false);
        assert_eq!(step, 20.0);
        assert_eq!(
            labels(&linear_ticks(0.0, 100.0, step), Some(decimals(step))),
            ["0", "20", "40", "60", "80", "100"]
        );
        assert_eq!(decimals(0.05), 2);
        assert_eq!(coarser(0.05), 0.1);
        assert_eq!(coarser(2.0), 5.0);
        assert_eq!(format_tick(-0.5, Some(1)), "−0.5");
    }
}
