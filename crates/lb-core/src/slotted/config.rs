//! The resolved configuration of one run of the slotted model (docs/MODEL.md §1).
//!
//! Everything here is *resolved*: every server has its law, every dispatcher its
//! arrival law. Manifests (lb-manifest) expand sweeps and defaults into these.

// A new policy variant is matched everywhere by name: no wildcard arms.
#![warn(clippy::wildcard_enum_match_arm)]

use crate::slotted::law::Law;
use serde::{Deserialize, Serialize};

/// How a dispatcher places the A_m(t) jobs of a slot (docs/MODEL.md §1, step 2).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Granularity {
    /// All A_m(t) jobs go to one server (Zhou, Shroff and Wierman's wording, Definition 1).
    #[default]
    Batch,
    /// Jobs are placed one at a time, so a batch can be spread over servers.
    Job,
}

/// The system part of a point: everything but the policy (docs/MODEL.md §4). Arrival and
/// service streams derive from it, so every policy sees the same arrivals and
/// service opportunities (common random numbers).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemConfig {
    /// A_m(t) for each dispatcher m = 1..M; M = `arrivals.len()`.
    pub arrivals: Vec<Law>,
    /// S_n(t) for each server n = 1..N; N = `service.len()`.
    pub service: Vec<Law>,
}

impl SystemConfig {
    /// M, the number of dispatchers.
    pub fn dispatchers(&self) -> usize {
        self.arrivals.len()
    }
    /// N, the number of servers.
    pub fn servers(&self) -> usize {
        self.service.len()
    }
    /// λ_Σ = Σ_m λ_m.
    pub fn lambda_sum(&self) -> f64 {
        self.arrivals.iter().map(Law::mean).sum()
    }
    /// σ_Σ² = Σ_m Var A_m (the split is state-independent and the dispatchers'
    /// streams are independent).
    pub fn sigma2_sum(&self) -> f64 {
        self.arrivals.iter().map(Law::variance).sum()
    }
    /// μ_n for every server.
    pub fn mu(&self) -> Vec<f64> {
        self.service.iter().map(Law::mean).collect()
    }
    /// μ_Σ = Σ_n μ_n.
    pub fn mu_sum(&self) -> f64 {
        self.service.iter().map(Law::mean).sum()
    }
    /// ν_Σ² = Σ_n ν_n².
    pub fn nu2_sum(&self) -> f64 {
        self.service.iter().map(Law::variance).sum()
    }
    /// ε = μ_Σ − λ_Σ (Zhou, Shroff and Wierman §2.1).
    pub fn epsilon(&self) -> f64 {
        self.mu_sum() - self.lambda_sum()
    }
    /// Load ρ = λ_Σ / μ_Σ.
    pub fn load(&self) -> f64 {
        self.lambda_sum() / self.mu_sum()
    }
    /// ζ = (σ_Σ² + ν_Σ²)/2, the heavy-traffic limit of ε·E\[ΣQ\] (Zhou, Shroff and Wierman, Lemma 1).
    pub fn zeta(&self) -> f64 {
        (self.sigma2_sum() + self.nu2_sum()) / 2.0
    }

    /// Checks the system; the message names the field and what is allowed.
    pub fn validate(&self) -> Result<(), String> {
        if self.arrivals.is_empty() {
            return Err("arrivals: at least one dispatcher is needed".into());
        }
        if self.service.is_empty() {
            return Err("service: at least one server is needed".into());
        }
        for (m, law) in self.arrivals.iter().enumerate() {
            law.validate().map_err(|e| format!("arrivals[{m}]: {e}"))?;
        }
        for (n, law) in self.service.iter().enumerate() {
            law.validate().map_err(|e| format!("service[{n}]: {e}"))?;
        }
        Ok(())
    }
}

/// How ties between equally good servers are broken (docs/MODEL.md §1 "Policies").
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TieBreak {
    /// Uniformly at random (the default).
    #[default]
    Random,
    /// The lowest server index.
    Lowest,
    /// One uniform draw per slot that every dispatcher uses (JSQ only): the
    /// dispatchers agree on the tie, as Zhou, Shroff and Wierman's §4.2 reads
    /// JSQ with many dispatchers ("all the dispatchers will route arrivals to
    /// the single shortest queue"). Under `batch` granularity, or `job`
    /// without `count_own`, every dispatcher sends its jobs to the same
    /// uniform member of the snapshot's argmin; under `job` with `count_own`
    /// every dispatcher water-fills the snapshot with ties in one uniform
    /// order of the servers, drawn for the slot.
    Shared,
}

/// The dispatching strategy of an LED policy (Zhou, Shroff and Wierman §3.2, Examples 1–3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LedDispatch {
    /// L-JSQ: argmin_n Q̃_mn (Example 1).
    LJsq,
    /// L-JBA: among A = {n : Q̃_mn ≤ mean Q̃_m}, n with probability μ_n/Σ_A μ
    /// (Example 2).
    LJba,
    /// L-Pod(d): d distinct servers uniformly, the least Q̃_mn (Example 3).
    LPod {
        /// Servers sampled per decision.
        d: usize,
    },
}

/// Which dispatchers a Push update runs at.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PushWhen {
    /// Only dispatchers that had arrivals this slot (Zhou, Shroff and Wierman, Definition 7).
    #[default]
    Arrivals,
    /// Every dispatcher every slot, as the LSQ line's updates (Goren,
    /// Vargaftik and Moses) do. L-JSQ-Push with `always` and p̂ = 1 is still
    /// not their LSQ, which also syncs its estimates of the servers it sends
    /// jobs to ([`PolicyConfig::Lsq`]).
    Always,
}

/// The update strategy of an LED policy (Zhou, Shroff and Wierman §3.2, Definitions 7–8).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LedUpdate {
    /// Push(d, p̂): with probability p̂, sample d distinct servers and copy their
    /// true queue lengths. 2 messages per sampled server.
    Push {
        /// Distinct servers sampled per update.
        d: usize,
        /// Update probability p̂.
        p_hat: f64,
        /// Which dispatchers update.
        #[serde(default)]
        when: PushWhen,
        /// Which random words a Push of every server (d = N) reads, for the
        /// same law: 0, a uniform sample of all N drawn as for any d; 1
        /// ([`PUSH_REVISION`]), no draw (every server is sampled), and
        /// dispatchers whose estimates are then always Q(t) share one copy.
        /// Only a Push of every server takes 1. In the key (0 is left out of
        /// it, so that earlier keys stand), so records of one are never read
        /// as the other's.
        #[serde(default, skip_serializing_if = "is_zero")]
        revision: u8,
    },
    /// Pull(p̂): each server with departures reports to one uniform dispatcher:
    /// always when it became idle, else with probability p̂. 1 message each.
    Pull {
        /// Probability p̂ that a busy server reports.
        p_hat: f64,
    },
}

/// A dispatching policy (docs/MODEL.md §1 "Policies").
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "policy", rename_all = "snake_case", deny_unknown_fields)]
pub enum PolicyConfig {
    /// A Local-Estimation-Driven policy (Zhou, Shroff and Wierman, Definition 1).
    Led {
        /// How a dispatcher picks a server from its estimates.
        dispatch: LedDispatch,
        /// How the estimates are refreshed.
        update: LedUpdate,
        /// Ties between equal estimates.
        #[serde(default)]
        tie_break: TieBreak,
    },
    /// Join-the-shortest-queue on the true start-of-slot snapshot.
    Jsq {
        /// Ties between equal queues.
        #[serde(default)]
        tie_break: TieBreak,
    },
    /// Power-of-d on true queue lengths.
    Pod {
        /// Servers sampled per decision.
        d: usize,
        /// Ties between equal sampled queues.
        #[serde(default)]
        tie_break: TieBreak,
    },
    /// Join-idle-queue with one idle list per dispatcher.
    Jiq,
    /// Server n with probability μ_n/μ_Σ.
    WeightedRandom,
    /// Uniform over servers.
    Random,
    /// LSQ with destination sync, the policy of the LSQ line (Goren,
    /// Vargaftik and Moses, on stochastically coordinated dispatching): L-JSQ
    /// on local estimates with Push(d, p̂) updates, and after dispatching, a
    /// dispatcher's estimate of each server it sent jobs to becomes that
    /// server's true queue length at the start of the slot plus the jobs it
    /// just sent (one message each: the server's reply).
    Lsq {
        /// Distinct servers sampled per Push.
        d: usize,
        /// Push probability p̂.
        p_hat: f64,
        /// Which dispatchers push.
        #[serde(default)]
        when: PushWhen,
        /// Ties between equal estimates.
        #[serde(default)]
        tie_break: TieBreak,
        /// Which random words the water-fill reads, for the same law
        /// (uniform ties, `job` granularity with `count_own`): 0, the order
        /// kept across slots ([`FillOrder`](crate::slotted::order::FillOrder),
        /// as in model version 5); 1, the scan of
        /// [`ScanFill`](crate::slotted::scan::ScanFill), several times
        /// faster. It decides only under `job` granularity with `count_own`
        /// and uniform ties (elsewhere both run alike). In the key (0 is left
        /// out of it, so that version-5 keys stand), so records of one are
        /// never read as the other's; new points take [`LSQ_REVISION`].
        #[serde(default, skip_serializing_if = "is_zero")]
        revision: u8,
    },
    /// JIQ with batch spreading (the LSQ line's JIQ; `job` granularity): a
    /// dispatcher that holds idle reports spreads its whole batch evenly over
    /// those servers (⌊A/k⌋ each, a uniform (A mod k)-subset one more), then
    /// clears its list; without reports, its jobs go uniformly at random. A
    /// server reports when it empties, and may report again after any
    /// dispatch to it.
    JiqSpread {
        /// Which random words split the jobs of the dispatchers without
        /// reports, for the same law: 0, one Poissonised split at the mean
        /// of every dispatcher's arrivals (as in model version 5); 1, one
        /// per number j of such dispatchers, at the mean of j dispatchers'
        /// arrivals (when they share one law), which their total is near.
        /// In the key as LSQ's `revision` is; new points take
        /// [`JIQ_SPREAD_REVISION`].
        #[serde(default, skip_serializing_if = "is_zero")]
        revision: u8,
    },
    /// Not a dispatching policy: the resource-pooled single queue of Zhou,
    /// Shroff and Wierman's Lemma 1, one queue fed A_Σ(t) and served
    /// S_Σ(t) = Σ_n S_n(t), on the arrivals and service every policy at the
    /// point sees (common random numbers). Pathwise no policy's ΣQ goes below
    /// it, its replication r is paired with every policy's replication r, and
    /// its E\[Q\] is exact ([`crate::slotted::pooled`]): in heavy traffic, a
    /// control variate for E\[ΣQ\].
    Pooled,
}

/// The kinds of policy the engine defines: every [`PolicyConfig`] variant,
/// and for an LED policy every dispatching × update pair. A variant added
/// to either enum fails to compile in [`PolicyConfig::kind`] until it has
/// a kind here, and the tests that run every kind
/// ([`PolicyConfig::every_kind`]) then fail until it has an example: a new
/// policy is tested without anyone listing it in a test.
pub const POLICY_KINDS: usize = 14;

impl PolicyConfig {
    /// This policy's kind, in `0..POLICY_KINDS` (no wildcard: a new
    /// variant must be given one).
    pub fn kind(&self) -> usize {
        match self {
            PolicyConfig::Led {
                dispatch, update, ..
            } => {
                let d = match dispatch {
                    LedDispatch::LJsq => 0,
                    LedDispatch::LJba => 1,
                    LedDispatch::LPod { .. } => 2,
                };
                let u = match update {
                    LedUpdate::Push { .. } => 0,
                    LedUpdate::Pull { .. } => 1,
                };
                2 * d + u
            }
            PolicyConfig::Jsq { .. } => 6,
            PolicyConfig::Pod { .. } => 7,
            PolicyConfig::Jiq => 8,
            PolicyConfig::WeightedRandom => 9,
            PolicyConfig::Random => 10,
            PolicyConfig::Lsq { .. } => 11,
            PolicyConfig::JiqSpread { .. } => 12,
            PolicyConfig::Pooled => 13,
        }
    }

    /// One configuration of every kind of policy, with the tie rules and
    /// options that change its code path: what the conservation tests run.
    pub fn every_kind() -> Vec<PolicyConfig> {
        let tie = TieBreak::Random;
        let push = |d, p_hat| LedUpdate::Push {
            d,
            p_hat,
            when: PushWhen::Arrivals,
            revision: 0,
        };
        let pull = LedUpdate::Pull { p_hat: 0.5 };
        let led = |dispatch, update| PolicyConfig::Led {
            dispatch,
            update,
            tie_break: tie,
        };
        vec![
            led(LedDispatch::LJsq, push(2, 1.0)),
            led(LedDispatch::LJsq, pull),
            led(LedDispatch::LJba, push(2, 0.5)),
            led(LedDispatch::LJba, pull),
            led(LedDispatch::LPod { d: 3 }, push(1, 0.5)),
            led(LedDispatch::LPod { d: 2 }, pull),
            PolicyConfig::Jsq { tie_break: tie },
            PolicyConfig::Jsq {
                tie_break: TieBreak::Shared,
            },
            PolicyConfig::Jsq {
                tie_break: TieBreak::Lowest,
            },
            PolicyConfig::Pod {
                d: 2,
                tie_break: TieBreak::Lowest,
            },
            PolicyConfig::Jiq,
            PolicyConfig::WeightedRandom,
            PolicyConfig::Random,
            PolicyConfig::Lsq {
                d: 2,
                p_hat: 0.5,
                when: PushWhen::Always,
                tie_break: tie,
                revision: LSQ_REVISION,
            },
            PolicyConfig::JiqSpread {
                revision: JIQ_SPREAD_REVISION,
            },
            PolicyConfig::Pooled,
        ]
    }
}

/// What a policy is, declared in one place ([`PolicyConfig::traits`]): the
/// manifest's checks, the engine and the behaviour tests read it, so a new
/// policy states it once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Traits {
    /// Its rule for equal queues or estimates, where it compares any.
    pub tie_break: Option<TieBreak>,
    /// Whether its dispatchers may share one tie draw per slot
    /// ([`TieBreak::Shared`]): only where they all read one snapshot.
    pub shared_ties: bool,
    /// What it does with fresh information on identical servers.
    pub behaviour: Behaviour,
}

/// What a policy does on identical servers with fresh information
/// ([`PolicyConfig::fresh`]), which the behaviour tests hold it to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Behaviour {
    /// It sends a decision's jobs to a shortest queue or near one: its
    /// E\[ΣQ\] lies nearer JSQ's than uniform Random's (Power-of-d and the
    /// LED policies with fresh estimates; Zhou, Shroff and Wierman, §3).
    JsqLike,
    /// It routes by fixed weights whatever the state, so its E\[ΣQ\] is the
    /// exact sum of independent queues ([`crate::slotted::theory`]).
    Oblivious(Weights),
    /// Neither, with why.
    Other(&'static str),
}

/// The fixed weights of an oblivious policy ([`Behaviour::Oblivious`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Weights {
    /// Server n with probability 1/N.
    Uniform,
    /// Server n with probability μ_n/μ_Σ.
    Rates,
}

impl PolicyConfig {
    /// Its [`Traits`]: no wildcard arm, so a new variant must declare them.
    pub fn traits(&self) -> Traits {
        let compares = |tie_break| Traits {
            tie_break: Some(tie_break),
            shared_ties: false,
            behaviour: Behaviour::JsqLike,
        };
        let other = |why| Traits {
            tie_break: None,
            shared_ties: false,
            behaviour: Behaviour::Other(why),
        };
        match *self {
            PolicyConfig::Led {
                dispatch,
                tie_break,
                ..
            } => match dispatch {
                LedDispatch::LJsq | LedDispatch::LPod { .. } => compares(tie_break),
                // A server at or below the mean estimate, drawn ∝ μ_n
                // (Example 2): no ties to break.
                LedDispatch::LJba => Traits {
                    tie_break: None,
                    ..compares(tie_break)
                },
            },
            PolicyConfig::Lsq { tie_break, .. } | PolicyConfig::Pod { tie_break, .. } => {
                compares(tie_break)
            }
            PolicyConfig::Jsq { tie_break } => Traits {
                shared_ties: true,
                ..compares(tie_break)
            },
            PolicyConfig::WeightedRandom => Traits {
                behaviour: Behaviour::Oblivious(Weights::Rates),
                ..other("")
            },
            PolicyConfig::Random => Traits {
                behaviour: Behaviour::Oblivious(Weights::Uniform),
                ..other("")
            },
            PolicyConfig::Jiq | PolicyConfig::JiqSpread { .. } => {
                other("it joins an idle server, else routes at random: near Random at high load")
            }
            PolicyConfig::Pooled => other("not a dispatching policy: the resource-pooled queue"),
        }
    }

    /// The same policy with the freshest information it can have: a Push
    /// samples every server at every dispatcher every slot (d = N, p̂ = 1),
    /// a Pull reports every completion (p̂ = 1); what it decides on (L-Pod's
    /// and Power-of-d's dispatch sample) is kept.
    pub fn fresh(&self, n: usize) -> PolicyConfig {
        let push = LedUpdate::push(n, 1.0, PushWhen::Always, n);
        match *self {
            PolicyConfig::Led {
                dispatch,
                update,
                tie_break,
            } => PolicyConfig::Led {
                dispatch,
                update: match update {
                    LedUpdate::Push { .. } => push,
                    LedUpdate::Pull { .. } => LedUpdate::Pull { p_hat: 1.0 },
                },
                tie_break,
            },
            PolicyConfig::Lsq {
                tie_break,
                revision,
                ..
            } => PolicyConfig::Lsq {
                d: n,
                p_hat: 1.0,
                when: PushWhen::Always,
                tie_break,
                revision,
            },
            p @ (PolicyConfig::Jsq { .. }
            | PolicyConfig::Pod { .. }
            | PolicyConfig::Jiq
            | PolicyConfig::WeightedRandom
            | PolicyConfig::Random
            | PolicyConfig::JiqSpread { .. }
            | PolicyConfig::Pooled) => p,
        }
    }
}

/// The revision a new Push of every server takes ([`LedUpdate::Push`]).
pub const PUSH_REVISION: u8 = 1;

impl LedUpdate {
    /// A Push(d, p̂) of `when`'s dispatchers on a system of `n` servers, at
    /// the revision a new point takes: [`PUSH_REVISION`] if it samples every
    /// server, else 0.
    pub fn push(d: usize, p_hat: f64, when: PushWhen, n: usize) -> LedUpdate {
        LedUpdate::Push {
            d,
            p_hat,
            when,
            revision: if d == n { PUSH_REVISION } else { 0 },
        }
    }
}

/// The water-fill revision new LSQ points take ([`PolicyConfig::Lsq`]).
pub const LSQ_REVISION: u8 = 1;

/// The split revision new JIQ-Spread points take ([`PolicyConfig::JiqSpread`]).
pub const JIQ_SPREAD_REVISION: u8 = 1;

fn is_zero(r: &u8) -> bool {
    *r == 0
}

/// A policy revision this engine knows (a later one would be read as the
/// current under another key).
fn check_revision(policy: &str, revision: u8, current: u8) -> Result<(), String> {
    if revision > current {
        return Err(format!(
            "policy.revision: {policy} revision {revision} is newer than this engine's \
             ({current}); records of it come from a later lb"
        ));
    }
    Ok(())
}

impl PolicyConfig {
    /// Whether it is an LED policy, whose dispatchers keep local estimates.
    pub fn is_led(&self) -> bool {
        matches!(self, PolicyConfig::Led { .. })
    }

    /// The paper's name: "L-JSQ-Push", "Power-of-2", "JIQ", …
    pub fn name(&self) -> String {
        match self {
            PolicyConfig::Led {
                dispatch, update, ..
            } => {
                let d = match dispatch {
                    LedDispatch::LJsq => "L-JSQ",
                    LedDispatch::LJba => "L-JBA",
                    LedDispatch::LPod { .. } => "L-Pod",
                };
                let u = match update {
                    LedUpdate::Push { .. } => "Push",
                    LedUpdate::Pull { .. } => "Pull",
                };
                format!("{d}-{u}")
            }
            PolicyConfig::Jsq { .. } => "JSQ".into(),
            PolicyConfig::Pod { d, .. } => format!("Power-of-{d}"),
            PolicyConfig::Jiq => "JIQ".into(),
            PolicyConfig::Lsq { .. } => "LSQ".into(),
            PolicyConfig::JiqSpread { .. } => "JIQ-Spread".into(),
            PolicyConfig::WeightedRandom => "WR".into(),
            PolicyConfig::Random => "Random".into(),
            PolicyConfig::Pooled => "Pooled".into(),
        }
    }

    /// The update probability p̂ of an LED policy.
    pub fn p_hat(&self) -> Option<f64> {
        match self {
            PolicyConfig::Led {
                update: LedUpdate::Push { p_hat, .. } | LedUpdate::Pull { p_hat },
                ..
            }
            | PolicyConfig::Lsq { p_hat, .. } => Some(*p_hat),
            PolicyConfig::Jsq { .. }
            | PolicyConfig::Pod { .. }
            | PolicyConfig::Jiq
            | PolicyConfig::WeightedRandom
            | PolicyConfig::Random
            | PolicyConfig::JiqSpread { .. }
            | PolicyConfig::Pooled => None,
        }
    }

    /// The same policy with p̂ replaced (used by message-budget calibration).
    pub fn with_p_hat(&self, p: f64) -> PolicyConfig {
        let mut out = *self;
        match &mut out {
            PolicyConfig::Led { update, .. } => match update {
                LedUpdate::Push { p_hat, .. } | LedUpdate::Pull { p_hat } => *p_hat = p,
            },
            PolicyConfig::Lsq { p_hat, .. } => *p_hat = p,
            PolicyConfig::Jsq { .. }
            | PolicyConfig::Pod { .. }
            | PolicyConfig::Jiq
            | PolicyConfig::WeightedRandom
            | PolicyConfig::Random
            | PolicyConfig::JiqSpread { .. }
            | PolicyConfig::Pooled => {}
        }
        out
    }

    /// Checks the policy against a system of `n` servers.
    pub fn validate(&self, n: usize) -> Result<(), String> {
        let t = self.traits();
        if t.tie_break == Some(TieBreak::Shared) && !t.shared_ties {
            return Err(
                "tie_break: \"shared\" (one draw per slot for every dispatcher) is \
                        JSQ's, whose dispatchers all read one snapshot; use \"random\" or \
                        \"lowest\""
                    .into(),
            );
        }
        let check_d = |field: &str, d: usize| {
            if d == 0 || d > n {
                Err(format!("{field}: d must lie in 1..={n} (N), got {d}"))
            } else {
                Ok(())
            }
        };
        let check_p = |p: f64| {
            if (0.0..=1.0).contains(&p) {
                Ok(())
            } else {
                Err(format!("update.p_hat must lie in [0, 1], got {p}"))
            }
        };
        match *self {
            PolicyConfig::Led {
                dispatch, update, ..
            } => {
                if let LedDispatch::LPod { d } = dispatch {
                    check_d("dispatch.d", d)?;
                }
                match update {
                    LedUpdate::Push {
                        d, p_hat, revision, ..
                    } => {
                        check_d("update.d", d)?;
                        check_revision("Push", revision, PUSH_REVISION)?;
                        if revision >= 1 && d != n {
                            return Err(format!(
                                "update.revision: revision {revision} is a Push of every \
                                 server (d = N = {n}), got d = {d}; leave revision out"
                            ));
                        }
                        check_p(p_hat)
                    }
                    LedUpdate::Pull { p_hat } => check_p(p_hat),
                }
            }
            PolicyConfig::Pod { d, .. } => check_d("d", d),
            PolicyConfig::Lsq {
                d, p_hat, revision, ..
            } => {
                check_d("d", d)?;
                check_revision("LSQ", revision, LSQ_REVISION)?;
                check_p(p_hat)
            }
            PolicyConfig::JiqSpread { revision } => {
                check_revision("JIQ-Spread", revision, JIQ_SPREAD_REVISION)
            }
            PolicyConfig::Jsq { .. }
            | PolicyConfig::Jiq
            | PolicyConfig::WeightedRandom
            | PolicyConfig::Random
            | PolicyConfig::Pooled => Ok(()),
        }
    }
}

/// How the warm-up is removed (docs/MODEL.md §4).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum WarmupRule {
    /// Discard exactly `RunLength::warmup` slots.
    #[default]
    Fixed,
    /// Discard at least `warmup` slots, then as many more as MSER-5 asks for
    /// (White 1997): the run is simulated once to read ΣQ, the truncation
    /// chosen on batches of 5 slots over at most half of what follows the
    /// floor, then simulated again — the same sample path, since a run is a
    /// pure function of its seeds — measuring from there.
    Mser5,
}

impl WarmupRule {
    fn is_fixed(&self) -> bool {
        *self == WarmupRule::Fixed
    }
}

/// How a run advances time (docs/MODEL.md §4).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Advance {
    /// Slot by slot: arrivals, dispatch, service, update (the default, left
    /// out of the JSON so that existing keys stand).
    #[default]
    Slot,
    /// Weighted random only, with Poisson arrivals and Bernoulli service:
    /// every server advanced by blocks of as many slots as its queue can
    /// serve without emptying, exactly in law at the block boundaries, the
    /// time averages by their conditional expectation given the block's
    /// totals ([`crate::slotted::blocks`]). No response times, no imbalance.
    Blocks,
}

impl Advance {
    fn is_slot(&self) -> bool {
        *self == Advance::Slot
    }
}

/// How long a run lasts and what it discards (docs/MODEL.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunLength {
    /// Slots simulated in all, warm-up included.
    pub slots: u64,
    /// Slots discarded before measuring; jobs arriving in them are not counted.
    /// Under [`WarmupRule::Mser5`], the least number discarded.
    pub warmup: u64,
    /// Number of equal batches the measured window is cut into for the ΣQ trace
    /// (batch means, MSER-5 and the stability verdict read it).
    #[serde(default = "default_batches")]
    pub batches: u32,
    /// Fixed (the default, left out of the JSON so that existing keys stand)
    /// or MSER-5.
    #[serde(default, skip_serializing_if = "WarmupRule::is_fixed")]
    pub warmup_rule: WarmupRule,
    /// Slot by slot (the default, left out of the JSON) or in blocks.
    #[serde(default, skip_serializing_if = "Advance::is_slot")]
    pub advance: Advance,
    /// Whether the run reads each dispatcher's dispatching preference at the
    /// states it visits ([`crate::slotted::preference::Watch`]; false, the
    /// default, is left out of the JSON so that existing keys stand).
    #[serde(default, skip_serializing_if = "is_false")]
    pub preference: bool,
    /// Whether the run reads each dispatcher's estimation error |Q_n − Q̃_mn|
    /// at the states it visits ([`crate::slotted::estimation::ErrorWatch`];
    /// false, the default, is left out of the JSON so that existing keys
    /// stand).
    #[serde(default, skip_serializing_if = "is_false")]
    pub estimation: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn default_batches() -> u32 {
    64
}

/// One fully resolved run of the slotted model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlottedConfig {
    /// Arrivals and servers.
    pub system: SystemConfig,
    /// The dispatching policy.
    pub policy: PolicyConfig,
    /// `batch` or `job` placement.
    #[serde(default)]
    pub granularity: Granularity,
    /// A dispatcher adds each job it sends to its own view (docs/MODEL.md §1, step 2).
    #[serde(default = "yes")]
    pub count_own: bool,
    /// Slots, warm-up and trace batches.
    pub run: RunLength,
}

fn yes() -> bool {
    true
}

impl SlottedConfig {
    /// Checks everything; errors name the field.
    pub fn validate(&self) -> Result<(), String> {
        self.system.validate()?;
        self.policy.validate(self.system.servers())?;
        if matches!(self.policy, PolicyConfig::JiqSpread { .. })
            && self.granularity != Granularity::Job
        {
            return Err(
                "JIQ-Spread spreads a batch over servers: it needs granularity = \"job\"".into(),
            );
        }
        if self.run.advance == Advance::Blocks {
            check_blocks(self)?;
        }
        if self.run.slots <= self.run.warmup {
            return Err(format!(
                "run.slots ({}) must exceed run.warmup ({})",
                self.run.slots, self.run.warmup
            ));
        }
        if self.run.preference {
            if crate::slotted::preference::rule_of(&self.policy).is_none() {
                return Err(format!(
                    "run.preference: {} dispatches on more than a law of its estimates; \
                     read it for an LED policy, JSQ, Power-of-d, WR or Random",
                    self.policy.name()
                ));
            }
            if self.granularity != Granularity::Batch || self.run.advance != Advance::Slot {
                return Err(
                    "run.preference reads P_mn(t), the law of where a dispatcher's \
                            arrivals of a slot go: it needs granularity = \"batch\" and \
                            slot-by-slot runs"
                        .into(),
                );
            }
        }
        if self.run.estimation && !self.policy.is_led() {
            return Err(format!(
                "run.estimation reads |Q_n − Q̃_mn|, the error of a dispatcher's local \
                 estimates: {} keeps none; read it for an LED policy",
                self.policy.name()
            ));
        }
        if self.run.estimation
            && (self.granularity != Granularity::Batch || self.run.advance != Advance::Slot)
        {
            return Err(
                "run.estimation reads the estimates a dispatcher dispatches a slot's arrivals \
                 on: it needs granularity = \"batch\" and slot-by-slot runs"
                    .into(),
            );
        }
        // The stability test fits the second half: at least 3 batches there.
        if self.run.batches < 6 {
            return Err("run.batches must be at least 6".into());
        }
        if self.run.slots - self.run.warmup < self.run.batches as u64 {
            return Err(format!(
                "run.batches ({}) must not exceed the measured slots ({})",
                self.run.batches,
                self.run.slots - self.run.warmup
            ));
        }
        Ok(())
    }

    /// Whether each of its dispatches reads Q(t) itself: an LED policy
    /// whose Push samples every server at every dispatcher every slot (d =
    /// N, p̂ = 1, `always`), or whose Pull reports every completion (p̂ = 1)
    /// to the one dispatcher, which counts the jobs it sends; JSQ always.
    pub fn exact_estimates(&self) -> bool {
        let n = self.system.servers();
        match self.policy {
            PolicyConfig::Led {
                update: LedUpdate::Push { d, p_hat, when, .. },
                ..
            } => d == n && p_hat == 1.0 && when == PushWhen::Always,
            PolicyConfig::Led {
                update: LedUpdate::Pull { p_hat },
                ..
            } => p_hat == 1.0 && self.system.dispatchers() == 1 && self.count_own,
            PolicyConfig::Jsq { .. } => true,
            // LSQ's destination sync and the others' samples are not
            // compared here: none is read as exact.
            PolicyConfig::Pod { .. }
            | PolicyConfig::Jiq
            | PolicyConfig::WeightedRandom
            | PolicyConfig::Random
            | PolicyConfig::Lsq { .. }
            | PolicyConfig::JiqSpread { .. }
            | PolicyConfig::Pooled => false,
        }
    }

    /// Whether `self` and `other` are one policy in law (their sample paths
    /// differ only in the random words they read), so that no run can tell
    /// them apart: the same system, granularity and bookkeeping, and either
    /// LED policies of one dispatch rule and tie rule that both dispatch on
    /// exact estimates ([`SlottedConfig::exact_estimates`]), or JSQ whose
    /// ties are shared with no other dispatcher to share them (one
    /// dispatcher, `batch`) against JSQ with its own uniform ties. The run
    /// length is not compared.
    pub fn same_in_law(&self, other: &SlottedConfig) -> bool {
        if self.system != other.system
            || self.granularity != other.granularity
            || self.count_own != other.count_own
        {
            return false;
        }
        match (self.policy, other.policy) {
            (
                PolicyConfig::Led {
                    dispatch: a,
                    tie_break: s,
                    ..
                },
                PolicyConfig::Led {
                    dispatch: b,
                    tie_break: t,
                    ..
                },
            ) => a == b && s == t && self.exact_estimates() && other.exact_estimates(),
            (PolicyConfig::Jsq { tie_break: s }, PolicyConfig::Jsq { tie_break: t }) => {
                let alone = |x: TieBreak| {
                    if self.system.dispatchers() == 1
                        && self.granularity == Granularity::Batch
                        && x == TieBreak::Shared
                    {
                        TieBreak::Random
                    } else {
                        x
                    }
                };
                alone(s) == alone(t)
            }
            (a, b) => a == b,
        }
    }

    /// Whether the policy's law reads `count_own`: an LED policy's (LSQ's
    /// too) estimates do, but for a Push of every server at every slot under
    /// `batch` granularity, whose refresh at the slot's end overwrites what a
    /// dispatcher's own batch added before any decision reads it; JSQ and
    /// Power-of-d under `job` granularity, where a dispatcher's own jobs of
    /// the slot raise what it compares. The others never do: weighted random,
    /// random, JIQ and JIQ-Spread read no count of their own jobs, the pooled
    /// queue dispatches nothing, and JSQ and Power-of-d under `batch` send a
    /// dispatcher's batch to one server.
    pub fn reads_count_own(&self) -> bool {
        match self.policy {
            PolicyConfig::Led {
                update: LedUpdate::Push { d, p_hat, when, .. },
                ..
            } if self.granularity == Granularity::Batch
                && d == self.system.servers()
                && p_hat >= 1.0
                && when == PushWhen::Always =>
            {
                false
            }
            PolicyConfig::Led { .. } | PolicyConfig::Lsq { .. } => true,
            PolicyConfig::Jsq { .. } | PolicyConfig::Pod { .. } => {
                self.granularity == Granularity::Job
            }
            PolicyConfig::Jiq
            | PolicyConfig::JiqSpread { .. }
            | PolicyConfig::WeightedRandom
            | PolicyConfig::Random
            | PolicyConfig::Pooled => false,
        }
    }

    /// The configuration whose key names its law (docs/MODEL.md §4): a
    /// setting the policy does not read takes one value, `count_own` `true`
    /// (its default) where [`reads_count_own`](Self::reads_count_own) is
    /// false, so that two spellings of one law share one record.
    pub fn canonical(mut self) -> SlottedConfig {
        if !self.reads_count_own() {
            self.count_own = true;
        }
        self
    }
}

/// Why `cfg` cannot be advanced in blocks, if it cannot: the message names
/// the field and what to change.
fn check_blocks(cfg: &SlottedConfig) -> Result<(), String> {
    if !matches!(cfg.policy, PolicyConfig::WeightedRandom) {
        return Err(format!(
            "run.advance: \"blocks\" is exact for weighted random only (no decision reads a \
             queue), not for {}; leave advance at \"slot\"",
            cfg.policy.name()
        ));
    }
    if let Some(n) = cfg
        .system
        .service
        .iter()
        .position(|l| !matches!(l, Law::Bernoulli { .. }))
    {
        return Err(format!(
            "run.advance: \"blocks\" needs Bernoulli service (at most one departure a slot), \
             server {n} has {:?}; use service = \"bernoulli\" or advance = \"slot\"",
            cfg.system.service[n]
        ));
    }
    if let Some(m) = cfg
        .system
        .arrivals
        .iter()
        .position(|l| !matches!(l, Law::Poisson { .. }))
    {
        return Err(format!(
            "run.advance: \"blocks\" needs Poisson arrivals, dispatcher {m} has {:?}; use \
             arrivals = \"poisson\" or advance = \"slot\"",
            cfg.system.arrivals[m]
        ));
    }
    if cfg.run.warmup_rule != WarmupRule::Fixed {
        return Err(
            "run.advance: \"blocks\" keeps no per-slot path for MSER-5 to read; \
                    use warmup_rule = \"fixed\" with a load-scaled warmup"
                .into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LSQ's and JIQ-Spread's revision 0 is left out of their serialisation,
    /// so that keys of version-5 points stand and their records read back as
    /// revision 0; any other revision is written, so that new points have new
    /// keys.
    #[test]
    fn revision_zero_keeps_the_old_serialisation() {
        let old = r#"{"policy":"lsq","d":2,"p_hat":1.0,"when":"always","tie_break":"random"}"#;
        let parsed: PolicyConfig = serde_json::from_str(old).unwrap();
        assert!(matches!(parsed, PolicyConfig::Lsq { revision: 0, .. }));
        assert_eq!(serde_json::to_string(&parsed).unwrap(), old);
        let PolicyConfig::Lsq {
            d,
            p_hat,
            when,
            tie_break,
            ..
        } = parsed
        else {
            unreachable!()
        };
        let new = PolicyConfig::Lsq {
            d,
            p_hat,
            when,
            tie_break,
            revision: LSQ_REVISION,
        };
        let text = serde_json::to_string(&new).unwrap();
        assert!(
            text.contains(&format!(r#""revision":{LSQ_REVISION}"#)),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<PolicyConfig>(&text).unwrap(), new);
        // JIQ-Spread's the same way.
        let old = r#"{"policy":"jiq_spread"}"#;
        let parsed: PolicyConfig = serde_json::from_str(old).unwrap();
        assert_eq!(parsed, PolicyConfig::JiqSpread { revision: 0 });
        assert_eq!(serde_json::to_string(&parsed).unwrap(), old);
        let new = PolicyConfig::JiqSpread {
            revision: JIQ_SPREAD_REVISION,
        };
        let text = serde_json::to_string(&new).unwrap();
        assert_eq!(
            text,
            format!(r#"{{"policy":"jiq_spread","revision":{JIQ_SPREAD_REVISION}}}"#)
        );
        // A revision this engine does not know is refused, not run as its own.
        let later = PolicyConfig::JiqSpread {
            revision: JIQ_SPREAD_REVISION + 1,
        };
        let e = later.validate(10).unwrap_err();
        assert!(
            e.contains("policy.revision") && e.contains("JIQ-Spread"),
            "{e}"
        );
        assert!(new.validate(10).is_ok() && parsed.validate(10).is_ok());
    }
}
