//! Control variates (Lavenberg and Welch): a metric paired with a control
//! of exact mean on the same random numbers, with β = 1 or fitted by least
//! squares, and their Stein form.

use crate::student::{interval, stein_interval, t_quantile};

/// A control-variate estimate of E\[X\] (Lavenberg and Welch): `xs` and `ys`
/// paired replications (common random numbers) of the metric and of a
/// control Y whose exact mean `exact` is known. With `fitted = false`,
/// β = 1: E\[Y\] + mean(X − Y), the Student-t interval of the differences
/// (n − 1 degrees of freedom). With `fitted`, β̂ = cov(X, Y)/var(Y) by least
/// squares: mean(X) − β̂(mean(Y) − E\[Y\]), with the regression's standard
/// error of the prediction at E\[Y\] (n − 2 degrees of freedom). Returns
/// (estimate, half-width, β); None with too few pairs.
pub fn control_variate(
    xs: &[f64],
    ys: &[f64],
    exact: f64,
    level: f64,
    fitted: bool,
) -> Option<(f64, f64, f64)> {
    let n = xs.len().min(ys.len());
    if n < if fitted { 3 } else { 2 } {
        return None;
    }
    let (xs, ys) = (&xs[..n], &ys[..n]);
    let nf = n as f64;
    if !fitted {
        let d: Vec<f64> = xs.iter().zip(ys).map(|(x, y)| x - y).collect();
        let iv = interval(&d, level);
        return Some((exact + iv.mean, iv.half_width, 1.0));
    }
    let LeastSquares {
        mean_y: mx,
        mean_c: my,
        scc: syy,
        beta,
        rss,
    } = least_squares(xs, ys);
    let s2 = rss / (nf - 2.0);
    let lever = if syy > 0.0 {
        (my - exact).powi(2) / syy
    } else {
        0.0
    };
    let se = (s2 * (1.0 / nf + lever)).sqrt();
    Some((
        mx - beta * (my - exact),
        t_quantile(level, nf - 2.0) * se,
        beta,
    ))
}

/// Stein's form of the control-variate interval (β fitted) of pairs
/// 0..n whose first `first` chose n: the full sample's estimate
/// mean(Y) − β̂(mean(C) − E\[C\]), with the first stage's residual variance
/// s_e₀² (on first − 2 degrees of freedom) in place of the full sample's:
/// half-width t_{first−2}·s_e₀·√(1/n + (C̄ − E\[C\])²/S_CC). For pairs normal
/// given the controls (Y = α + βC + e), the full sample's estimate is a
/// combination of the Y's whose first-stage weights lie in the span of the
/// first stage's regressors, so it is independent of that stage's
/// residuals, and the ratio is Student-t on first − 2 degrees of freedom
/// whatever n the residuals chose (Stein's argument, with the regression's
/// residuals for the sample variance). With β = 1 (`fitted = false`), Stein's
/// interval of the differences Y − C. With n = first, [`control_variate`].
pub fn stein_control_variate(
    ys: &[f64],
    cs: &[f64],
    exact: f64,
    first: usize,
    level: f64,
    fitted: bool,
) -> Option<(f64, f64, f64)> {
    let n = ys.len().min(cs.len());
    if first >= n {
        return control_variate(ys, cs, exact, level, fitted);
    }
    if first < if fitted { 3 } else { 2 } {
        return None;
    }
    let (ys, cs) = (&ys[..n], &cs[..n]);
    if !fitted {
        let d: Vec<f64> = ys.iter().zip(cs).map(|(y, c)| y - c).collect();
        let iv = stein_interval(&d, first, level);
        return Some((exact + iv.mean, iv.half_width, 1.0));
    }
    let all = least_squares(ys, cs);
    let s2 = residual_variance(&ys[..first], &cs[..first]);
    let lever = if all.scc > 0.0 {
        (all.mean_c - exact).powi(2) / all.scc
    } else {
        0.0
    };
    let se = (s2 * (1.0 / n as f64 + lever)).sqrt();
    Some((
        all.mean_y - all.beta * (all.mean_c - exact),
        t_quantile(level, (first - 2) as f64) * se,
        all.beta,
    ))
}

/// [`control_variate`], or its Stein form ([`stein_control_variate`]) where
/// the point's precision rule has a first stage.
pub fn control_variate_of(
    ys: &[f64],
    cs: &[f64],
    exact: f64,
    first: Option<usize>,
    level: f64,
    fitted: bool,
) -> Option<(f64, f64, f64)> {
    match first {
        Some(f) => stein_control_variate(ys, cs, exact, f, level, fitted),
        None => control_variate(ys, cs, exact, level, fitted),
    }
}

/// The least-squares line of `ys` on `cs` (paired): the means, S_CC, the
/// slope β̂ = S_YC/S_CC (0 when the cs do not vary) and the residual sum of
/// squares.
struct LeastSquares {
    mean_y: f64,
    mean_c: f64,
    scc: f64,
    beta: f64,
    rss: f64,
}

fn least_squares(ys: &[f64], cs: &[f64]) -> LeastSquares {
    let n = ys.len().min(cs.len()) as f64;
    let (my, mc) = (ys.iter().sum::<f64>() / n, cs.iter().sum::<f64>() / n);
    let scc: f64 = cs.iter().map(|c| (c - mc).powi(2)).sum();
    let syc: f64 = ys.iter().zip(cs).map(|(y, c)| (y - my) * (c - mc)).sum();
    let beta = if scc > 0.0 { syc / scc } else { 0.0 };
    let rss: f64 = ys
        .iter()
        .zip(cs)
        .map(|(y, c)| (y - my - beta * (c - mc)).powi(2))
        .sum();
    LeastSquares {
        mean_y: my,
        mean_c: mc,
        scc,
        beta,
        rss,
    }
}

/// The residual variance of pairs (y, c) about their least-squares line,
/// on n − 2 degrees of freedom: the variance a control variate with β
/// fitted leaves (n ≥ 3).
pub fn residual_variance(ys: &[f64], cs: &[f64]) -> f64 {
    least_squares(ys, cs).rss / (ys.len().min(cs.len()) as f64 - 2.0)
}
