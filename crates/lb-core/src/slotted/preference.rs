//! The dispatching preference of a rule at one dispatcher's estimates (Zhou,
//! Shroff and Wierman, §2.2, Definitions 4–6), computed exactly.
//!
//! P_mn is the probability that dispatcher m sends its arrivals of the slot
//! to server n; β_mn = P_mn − μ_n/μ_Σ is its excess over weighted random
//! routing. The preference ∆_m reads β in an order σ of the servers by
//! estimate, Q̃_mσ(1) ≤ … ≤ Q̃_mσ(N). Definition 4 admits any σ among equal
//! estimates; here ties are ordered by β, largest first, the most favourable
//! σ (the one Example 1 reads when it writes ∆_m1 = 1 − μ_σ(1)/μ_Σ for the
//! server L-JSQ picks). A rule is *tilted* at the state (Definition 5) when
//! ∆_mn ≥ 0 up to some k and ∆_mn ≤ 0 after it, and *δ-tilted*
//! (Definition 6) when also ∆_m1 ≥ δ and ∆_mN ≤ −δ: its δ at the state is
//! min(∆_m1, −∆_mN). The held text lost the signs' right-hand sides; "≥ 0
//! for n ≤ k, ≤ 0 for n > k" is the reading under which its own Example 1
//! (L-JSQ) is tilted.
//!
//! The probabilities are the laws of lb's own rules
//! ([`crate::slotted::policy`], `batch` granularity: a dispatcher's arrivals
//! of a slot go to one server), with their tie rules.

use super::summary::PreferenceSummary;
use super::{LedDispatch, PolicyConfig, SlottedConfig, TieBreak};

/// A dispatching rule as a function of one dispatcher's estimates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// L-JSQ (Example 1): the least estimate; ties uniformly (`Random`,
    /// `Shared`) or to the lowest index.
    LJsq(TieBreak),
    /// L-JBA (Example 2): n in A = {n : Q̃_mn ≤ mean}, with probability
    /// μ_n / Σ_A μ.
    LJba,
    /// L-Pod(d) (Example 3): d distinct servers uniformly, the least
    /// estimate among them, ties as L-JSQ's.
    LPod(usize, TieBreak),
    /// Server n with probability μ_n/μ_Σ, whatever the estimates.
    WeightedRandom,
    /// Uniform over the servers, whatever the estimates.
    Random,
}

impl Rule {
    /// The rule a command line names: `l-jsq`, `l-jba`, `l-pod:D`,
    /// `weighted-random`, `random`; `:lowest` after L-JSQ or L-Pod breaks ties
    /// to the lowest index instead of uniformly.
    pub fn parse(s: &str) -> Result<Rule, String> {
        let (s, tie) = match s.strip_suffix(":lowest") {
            Some(head) => (head, TieBreak::Lowest),
            None => (s, TieBreak::Random),
        };
        let lowest_only = |r: Rule| {
            if tie == TieBreak::Lowest {
                Err(format!("`{s}:lowest`: only l-jsq and l-pod:D break ties"))
            } else {
                Ok(r)
            }
        };
        match s {
            "l-jsq" => Ok(Rule::LJsq(tie)),
            "l-jba" => lowest_only(Rule::LJba),
            "weighted-random" => lowest_only(Rule::WeightedRandom),
            "random" => lowest_only(Rule::Random),
            _ => match s.strip_prefix("l-pod:").map(str::parse::<usize>) {
                Some(Ok(d)) if d >= 1 => Ok(Rule::LPod(d, tie)),
                _ => Err(format!(
                    "`{s}`: not a rule; write l-jsq, l-jba, l-pod:D (D ≥ 1), \
                     weighted-random or random, with :lowest after l-jsq or l-pod:D \
                     for ties to the lowest index"
                )),
            },
        }
    }

    /// Its name as the paper writes it, with its tie rule.
    pub fn name(self) -> String {
        let ties = |t: TieBreak| match t {
            TieBreak::Lowest => " (ties to the lowest index)",
            TieBreak::Random | TieBreak::Shared => " (uniform ties)",
        };
        match self {
            Rule::LJsq(t) => format!("L-JSQ{}", ties(t)),
            Rule::LJba => "L-JBA".into(),
            Rule::LPod(d, t) => format!("L-Pod(d = {d}){}", ties(t)),
            Rule::WeightedRandom => "weighted random".into(),
            Rule::Random => "Random".into(),
        }
    }
}

/// P_mn for every server n: the law of the server `rule` sends the slot's
/// arrivals to, at estimates `est`, on servers of rates `mu`.
pub fn probabilities(rule: Rule, mu: &[f64], est: &[u64]) -> Vec<f64> {
    let n = est.len();
    assert_eq!(mu.len(), n, "one rate per server");
    assert!(n > 0, "at least one server");
    let mut p = vec![0.0; n];
    match rule {
        Rule::LJsq(tie) => {
            let least = *est.iter().min().expect("servers");
            let ties: Vec<usize> = (0..n).filter(|&s| est[s] == least).collect();
            if tie == TieBreak::Lowest {
                p[ties[0]] = 1.0;
            } else {
                for &s in &ties {
                    p[s] = 1.0 / ties.len() as f64;
                }
            }
        }
        Rule::LJba => {
            let sum: u64 = est.iter().sum();
            let in_a = |s: usize| est[s] * n as u64 <= sum;
            let total: f64 = (0..n).filter(|&s| in_a(s)).map(|s| mu[s]).sum();
            for s in (0..n).filter(|&s| in_a(s)) {
                p[s] = mu[s] / total;
            }
        }
        Rule::LPod(d, tie) => {
            let d = d.min(n);
            // Servers in the order the rule prefers them: by estimate, and
            // by index where ties go to the lowest.
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by_key(|&s| (est[s], s));
            let all = binomial(n, d);
            let mut before = 0;
            let mut i = 0;
            while i < n {
                let block = if tie == TieBreak::Lowest {
                    1
                } else {
                    order[i..]
                        .iter()
                        .take_while(|&&s| est[s] == est[order[i]])
                        .count()
                };
                // The sample's least lies in this block: no sampled server
                // before it, and at least one in it; by symmetry each member
                // of a block of uniform ties is as likely.
                let hit = (binomial(n - before, d) - binomial(n - before - block, d)) / all;
                for &s in &order[i..i + block] {
                    p[s] = hit / block as f64;
                }
                before += block;
                i += block;
            }
        }
        Rule::WeightedRandom => {
            let total: f64 = mu.iter().sum();
            for s in 0..n {
                p[s] = mu[s] / total;
            }
        }
        Rule::Random => p.fill(1.0 / n as f64),
    }
    p
}

/// C(n, k) as a float (exact for the sizes the engine runs: N ≤ 10³).
fn binomial(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    (0..k).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64)
}

/// A rule's preference at one state (Definitions 4–6).
#[derive(Clone, Debug, PartialEq)]
pub struct Preference {
    /// ∆_m: β in the order σ (by estimate, ties by β, largest first).
    pub delta: Vec<f64>,
    /// Definition 5 at this state: ∆ ≥ 0 up to some k, ≤ 0 after it.
    pub tilted: bool,
    /// min(∆_m1, −∆_mN): the δ of Definition 6 at this state (≤ 0 where it
    /// is not δ-tilted for any δ > 0).
    pub delta_min: f64,
}

/// How far below 0 a β may lie and still count as 0: the rounding of
/// P − μ_n/μ_Σ in floating point.
const ROUNDING: f64 = 1e-12;

/// The preference of `p` (from [`probabilities`]) at estimates `est`.
pub fn preference(p: &[f64], mu: &[f64], est: &[u64]) -> Preference {
    let total: f64 = mu.iter().sum();
    let beta: Vec<f64> = (0..p.len()).map(|s| p[s] - mu[s] / total).collect();
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&a, &b| est[a].cmp(&est[b]).then(beta[b].total_cmp(&beta[a])));
    let delta: Vec<f64> = order.iter().map(|&s| beta[s]).collect();
    // Tilted: no ∆ < 0 is followed by a ∆ > 0.
    let mut seen_negative = false;
    let mut tilted = true;
    for &x in &delta {
        if x < -ROUNDING {
            seen_negative = true;
        } else if x > ROUNDING && seen_negative {
            tilted = false;
        }
    }
    let delta_min = delta[0].min(-delta[delta.len() - 1]);
    Preference {
        delta,
        tilted,
        delta_min,
    }
}

/// The preference of `rule` at estimates `est`.
pub fn at(rule: Rule, mu: &[f64], est: &[u64]) -> Preference {
    preference(&probabilities(rule, mu, est), mu, est)
}

/// The least δ of `rule` over every estimate state of `mu.len()` servers:
/// every weak order of the servers, each class of tied servers at its rank
/// (0, 1, 2, …). L-JSQ, L-Pod and the oblivious rules read only the order.
/// L-JBA reads the values through the mean, and its states are each weak
/// order with each set A it can meet there: the first j classes for every j
/// below the number of classes (the classes above placed far up), and every
/// server when all estimates tie. Returns the least δ, whether every state
/// is tilted, and a state that attains the least δ.
/// Exhaustive: the number of weak orders of N servers grows as N!, so N ≤ 7.
pub fn worst(rule: Rule, mu: &[f64]) -> Worst {
    let n = mu.len();
    assert!((1..=7).contains(&n), "exhaustive over N ≤ 7 servers");
    let mut worst = Worst {
        delta_min: f64::INFINITY,
        all_tilted: true,
        states: 0,
        at: vec![0; n],
        untied_delta_min: f64::INFINITY,
    };
    let mut est = vec![0u64; n];
    let mut visit = |values: &[u64]| {
        let pref = at(rule, mu, values);
        worst.states += 1;
        worst.all_tilted &= pref.tilted;
        if pref.delta_min < worst.delta_min {
            worst.delta_min = pref.delta_min;
            worst.at = values.to_vec();
        }
        if values.iter().any(|&v| v != values[0]) {
            worst.untied_delta_min = worst.untied_delta_min.min(pref.delta_min);
        }
    };
    weak_orders(&mut est, 0, &mut |ranks| {
        if rule != Rule::LJba {
            return visit(ranks);
        }
        // L-JBA reads values through the mean: for each cut j, the classes
        // above it placed so far up that A is exactly the classes up to j.
        let classes = ranks.iter().max().map_or(0, |&m| m + 1);
        if classes == 1 {
            return visit(ranks);
        }
        let far = 1_000 * n as u64;
        for j in 0..classes - 1 {
            let values: Vec<u64> = ranks
                .iter()
                .map(|&r| if r <= j { r } else { far + r })
                .collect();
            visit(&values);
        }
    });
    worst
}

/// The least δ over a rule's exhaustive states ([`worst`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Worst {
    /// The least min(∆_m1, −∆_mN) over the states.
    pub delta_min: f64,
    /// Whether every state is tilted (Definition 5).
    pub all_tilted: bool,
    /// States visited.
    pub states: u64,
    /// Estimates at which the least δ is attained.
    pub at: Vec<u64>,
    /// The least δ over the states where some estimates differ: what the
    /// proof uses of Definition 6 (Lemma 4 bounds the tilt's drift by
    /// δ·(Q̃_min − Q̃_max), which is 0 where every estimate ties, whatever
    /// δ). Infinite for one server.
    pub untied_delta_min: f64,
}

/// Every weak order of the servers as ranks 0..c with every rank used:
/// calls `f` once per weak order.
fn weak_orders(est: &mut [u64], i: usize, f: &mut dyn FnMut(&[u64])) {
    let n = est.len();
    if i == n {
        let classes = est.iter().max().map_or(0, |&m| m + 1);
        if (0..classes).all(|r| est.contains(&r)) {
            f(est);
        }
        return;
    }
    for r in 0..n as u64 {
        est[i] = r;
        weak_orders(est, i + 1, f);
    }
}

/// The rule of a policy that dispatches by a law of the estimates (or of the
/// true queues) alone; None for JIQ, LSQ with destination sync, JIQ-Spread
/// and the pooled queue, whose dispatch reads more than that.
pub fn rule_of(policy: &PolicyConfig) -> Option<Rule> {
    match *policy {
        PolicyConfig::Led {
            dispatch,
            tie_break,
            ..
        } => Some(match dispatch {
            LedDispatch::LJsq => Rule::LJsq(tie_break),
            LedDispatch::LJba => Rule::LJba,
            LedDispatch::LPod { d } => Rule::LPod(d, tie_break),
        }),
        PolicyConfig::Jsq { tie_break } => Some(Rule::LJsq(tie_break)),
        PolicyConfig::Pod { d, tie_break } => Some(Rule::LPod(d, tie_break)),
        PolicyConfig::WeightedRandom => Some(Rule::WeightedRandom),
        PolicyConfig::Random => Some(Rule::Random),
        PolicyConfig::Jiq
        | PolicyConfig::Lsq { .. }
        | PolicyConfig::JiqSpread { .. }
        | PolicyConfig::Pooled => None,
    }
}

/// A run's watch of the preference at every dispatcher-slot it measures
/// (`run.preference`): the least δ, and how often a state was untilted or
/// all tied. Under `batch` granularity, where a dispatcher's arrivals of a
/// slot go to one server, as the paper's P_mn(t) has it.
#[derive(Clone, Debug)]
pub struct Watch {
    rule: Rule,
    mu: Vec<f64>,
    summary: PreferenceSummary,
}

impl Watch {
    /// The watch of `cfg`'s policy.
    ///
    /// # Panics
    /// If the policy has no [`rule_of`] (validation refuses it).
    pub fn new(cfg: &SlottedConfig) -> Watch {
        Watch {
            rule: rule_of(&cfg.policy).expect("a policy with a dispatching law"),
            mu: cfg.system.mu(),
            summary: PreferenceSummary {
                dispatcher_slots: 0,
                untilted: 0,
                all_tied: 0,
                delta_min: f64::INFINITY,
                untied_delta_min: None,
            },
        }
    }

    /// What it saw.
    pub fn summary(&self) -> PreferenceSummary {
        let mut s = self.summary;
        s.delta_min = significant(s.delta_min);
        s.untied_delta_min = s.untied_delta_min.map(significant);
        s
    }
}

/// `x` to 12 significant digits: P − μ_n/μ_Σ in floating point is not
/// trusted beyond them, and a δ of μ_min/μ_Σ then reads as the bound it is.
fn significant(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let e = 11 - x.abs().log10().floor() as i32;
    let f = 10f64.powi(e);
    (x * f).round() / f
}

impl crate::slotted::observer::Observer for Watch {
    const ESTIMATES: bool = true;
    fn estimates(&mut self, _t: u64, _m: usize, est: &[u64], _q: &[u64]) {
        let pref = at(self.rule, &self.mu, est);
        let s = &mut self.summary;
        s.dispatcher_slots += 1;
        let delta = if pref.tilted {
            pref.delta_min
        } else {
            s.untilted += 1;
            pref.delta_min.min(0.0)
        };
        s.delta_min = s.delta_min.min(delta);
        if est.iter().all(|&v| v == est[0]) {
            s.all_tied += 1;
        } else {
            s.untied_delta_min = Some(s.untied_delta_min.map_or(delta, |d| d.min(delta)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HET: [f64; 4] = [0.2, 0.4, 0.6, 0.8];

    #[test]
    fn probabilities_sum_to_one() {
        let est = [3, 1, 1, 7];
        for rule in [
            Rule::LJsq(TieBreak::Random),
            Rule::LJsq(TieBreak::Lowest),
            Rule::LJba,
            Rule::LPod(2, TieBreak::Random),
            Rule::LPod(2, TieBreak::Lowest),
            Rule::LPod(3, TieBreak::Random),
            Rule::WeightedRandom,
            Rule::Random,
        ] {
            let p = probabilities(rule, &HET, &est);
            let s: f64 = p.iter().sum();
            assert!((s - 1.0).abs() < 1e-12, "{rule:?}: {p:?}");
        }
    }

    #[test]
    fn pod_on_distinct_estimates_is_the_rank_law() {
        // Rank r of N (1-based) is the sample's least with probability
        // C(N − r, d − 1)/C(N, d).
        let est = [5, 2, 9, 0, 7];
        let p = probabilities(Rule::LPod(2, TieBreak::Random), &[1.0; 5], &est);
        let by_rank = [3usize, 1, 0, 4, 2];
        for (r, &s) in by_rank.iter().enumerate() {
            let want = binomial(5 - (r + 1), 1) / binomial(5, 2);
            assert!(
                (p[s] - want).abs() < 1e-12,
                "rank {}: {} vs {want}",
                r + 1,
                p[s]
            );
        }
    }

    #[test]
    fn example_1_ljsq_is_delta_tilted_at_mu_min_over_mu_sum() {
        // Example 1: δ = μ_min/μ_Σ on heterogeneous servers, attained.
        let w = worst(Rule::LJsq(TieBreak::Lowest), &HET);
        assert!(w.all_tilted);
        assert!((w.delta_min - 0.2 / 2.0).abs() < 1e-12, "{w:?}");
    }

    #[test]
    fn weighted_random_has_no_preference_and_random_is_not_tilted() {
        let w = worst(Rule::WeightedRandom, &HET);
        assert!(w.all_tilted && w.delta_min.abs() < 1e-12, "{w:?}");
        let r = worst(Rule::Random, &HET);
        assert!(!r.all_tilted, "{r:?}");
    }

    #[test]
    fn ljba_loses_its_tilt_where_every_estimate_ties() {
        let w = worst(Rule::LJba, &HET);
        assert!(w.all_tilted);
        assert!(w.delta_min.abs() < 1e-12, "{w:?}");
        assert!(w.at.iter().all(|&v| v == w.at[0]), "{w:?}");
        assert!(w.untied_delta_min > 0.0, "{w:?}");
        // Off the all-tie state it is δ-tilted.
        let p = at(Rule::LJba, &HET, &[0, 4, 4, 4]);
        assert!(p.tilted && p.delta_min > 0.0, "{p:?}");
    }

    #[test]
    fn example_3_lpod_is_delta_tilted_at_one_over_n_on_identical_servers() {
        let w = worst(Rule::LPod(2, TieBreak::Lowest), &[1.0; 5]);
        assert!(w.all_tilted);
        assert!((w.delta_min - 1.0 / 5.0).abs() < 1e-12, "{w:?}");
        // Uniform ties: every estimate equal is random routing.
        let u = worst(Rule::LPod(2, TieBreak::Random), &[1.0; 5]);
        assert!(u.delta_min.abs() < 1e-12, "{u:?}");
    }
}
