//! # lb-core — the models and policies of lb
//!
//! Three models, one module each, sharing the random streams and the
//! stability verdict:
//!
//! - [`slotted`]: Zhou, Shroff and Wierman's Local-Estimation-Driven (LED)
//!   framework (docs/MODEL.md §1): M dispatchers route to N heterogeneous servers in
//!   discrete time on stale local estimates (L-JSQ, L-JBA, L-Pod × Push, Pull),
//!   against JSQ, Power-of-d, JIQ, weighted random and random.
//! - [`many`]: the many-server continuous-time model (docs/MODEL.md §2): JSQ, JIQ, I1F,
//!   Power-of-d and JSQ on graphs, with the occupancy S_i.
//! - [`spn`]: stochastic processing networks under max-pressure (docs/MODEL.md §3;
//!   Dai and Lin), priority and FIFO.
//!
//! Shared: [`streams`] (common random numbers from a point's seeds) and
//! [`stability`] (the verdict on whether a run settled, batch means, MSER).
//! No I/O here: a run is a pure function of a resolved configuration, the
//! [`Seeds`] and a replication index.
//!
//! ```
//! use lb_core::slotted::{Law, PolicyConfig, RunLength, Seeds, SlottedConfig, SystemConfig};
//! let cfg = SlottedConfig {
//!     system: SystemConfig {
//!         arrivals: vec![Law::Bernoulli { p: 0.3 }],
//!         service: vec![Law::Bernoulli { p: 0.5 }],
//!     },
//!     policy: PolicyConfig::Random,
//!     granularity: Default::default(),
//!     count_own: true,
//!     run: RunLength {
//!         slots: 10_000,
//!         warmup: 1_000,
//!         batches: 32,
//!         warmup_rule: Default::default(),
//!         advance: Default::default(),
//!         preference: false,
//!         estimation: false,
//!     },
//! };
//! let s = lb_core::slotted::run(&cfg, &Seeds::from_u64(1, 2), 0);
//! assert!(s.stability.stable);
//! ```

// The docs are read with private items (`cargo doc --document-private-items`,
// as CI builds them): a module may point at its own helpers.
#![allow(rustdoc::private_intra_doc_links)]

pub mod many;
pub mod slotted;
pub mod spn;
pub mod stability;
pub mod streams;

pub use stability::Stability;
pub use streams::Seeds;

/// The slotted engine's model version ([`slotted`]). Each model has its own
/// (also [`many::MODEL_VERSION`], [`spn::MODEL_VERSION`]); a point's key
/// holds its model's. Bump a model's version whenever a change to its engine
/// (or to the shared [`streams`] and [`stability`], then every model's) can
/// change a simulated number, so that its cached results are recomputed
/// rather than silently mixed, and the other models' results stay valid.
///
/// What each version changed is in CHANGELOG.md ("Model versions").
///
/// A change to one policy alone may carry a revision in that policy's
/// configuration instead, left out of the key at 0: LSQ's `revision` 1
/// ([`slotted::scan::ScanFill`]) and JIQ-Spread's `revision` 1 (a split per
/// number of dispatchers without reports); their revision 0 keeps version
/// 5's numbers; Push's `revision` 1 (a Push of every server draws no
/// sample) likewise.
pub const MODEL_VERSION: u32 = 5;
