//! The policies at run time: dispatch (docs/MODEL.md §1 step 2) and update (step 4),
//! with exact message accounting.
//!
//! LED policies (Zhou, Shroff and Wierman §3.2) read only their dispatcher's estimates Q̃_m;
//! full-information baselines read the true start-of-slot snapshot Q(t), the
//! same for every dispatcher — the source of herd behaviour (Zhou, Shroff and Wierman §4.2).

// A new policy variant is matched everywhere by name: no wildcard arms.
#![warn(clippy::wildcard_enum_match_arm)]

use crate::slotted::argmin::ArgminTree;
use crate::slotted::buckets::{BITS_MAX, BitBuckets, MinBuckets};
use crate::slotted::config::{
    Granularity, LedDispatch, LedUpdate, PolicyConfig, PushWhen, SlottedConfig, TieBreak,
};
use crate::slotted::order::{FillOrder, ORDER_MAX};
use crate::slotted::sampling::{
    Alias, FixedSplit, SharedFill, below, coin, distinct, multinomial, water_fill,
};
use crate::slotted::scan::ScanFill;
use crate::streams::StreamRng;
use rand::Rng;
use std::collections::VecDeque;

/// The jobs a slot's dispatch sends to each server.
pub struct Assignment {
    /// Jobs sent to each server this slot.
    pub inc: Vec<u64>,
    /// The servers with `inc > 0`, in the order first touched: the first
    /// `len` entries of a buffer of N.
    touched: Vec<usize>,
    len: usize,
}

impl Assignment {
    /// Nothing sent yet, to `n` servers.
    pub fn new(n: usize) -> Assignment {
        Assignment {
            inc: vec![0; n],
            touched: vec![0; n],
            len: 0,
        }
    }
    /// Sends `k` > 0 more jobs to server `n`. Without a branch on whether
    /// `n` was touched before (unpredictable when several dispatchers
    /// water-fill overlapping heads): its index is always written, and
    /// kept only the first time.
    #[inline]
    pub fn add(&mut self, n: usize, k: u64) {
        debug_assert!(k > 0);
        let first = self.inc[n] == 0;
        // A server is listed at most once, so len < N here unless it is
        // listed already (then the write is to a slot past the list, or
        // none, and is not kept).
        if let Some(slot) = self.touched.get_mut(self.len) {
            *slot = n;
        }
        self.len += first as usize;
        self.inc[n] += k;
    }
    /// The servers with `inc > 0`, in the order first touched.
    #[inline]
    pub fn touched(&self) -> &[usize] {
        &self.touched[..self.len]
    }
    /// Empties the assignment: `f(server, jobs)` for each server sent
    /// jobs, in the order first touched.
    #[inline]
    pub fn drain(&mut self, mut f: impl FnMut(usize, u64)) {
        for &s in &self.touched[..self.len] {
            f(s, std::mem::take(&mut self.inc[s]));
        }
        self.len = 0;
    }
}

/// How a dispatcher finds the least of its estimates.
#[derive(Clone, Debug)]
enum Index {
    /// Not needed (the dispatch reads the values directly), or N ≤
    /// [`SCAN_MAX`] with lowest-index ties: a scan.
    Scan,
    /// Lowest-index ties over many servers: a tournament tree.
    Tree(ArgminTree),
    /// Uniform ties: the servers bucketed by value.
    Buckets(MinBuckets),
    /// Uniform ties over at most [`BITS_MAX`] servers: bit sets by value.
    Bits(BitBuckets),
    /// L-JSQ's water-fills (`job`, `count_own`, uniform ties): the
    /// estimates kept in order.
    Low(FillOrder),
    /// LSQ's water-fills (the same, with destination sync, revision ≥ 1):
    /// the values scanned at each fill ([`ScanFill`]), from the last fill's
    /// level.
    Fill(u64),
}

/// Dispatcher m's local estimates Q̃_m (Zhou, Shroff and Wierman, Definition 1), with the sum
/// for L-JBA's mean and, for L-JSQ, an index of the minimum.
#[derive(Clone, Debug)]
struct Estimates {
    vals: Vec<u64>,
    sum: u64,
    index: Index,
}

impl Estimates {
    fn new(n: usize, index: fn(&[u64]) -> Index) -> Estimates {
        let vals = vec![0; n];
        Estimates {
            index: index(&vals),
            vals,
            sum: 0,
        }
    }
    #[inline(always)]
    fn set(&mut self, n: usize, v: u64) {
        let old = self.vals[n];
        self.sum = self.sum - old + v;
        self.vals[n] = v;
        match &mut self.index {
            Index::Scan | Index::Fill(_) => {}
            Index::Tree(t) => t.set(n, v),
            Index::Buckets(b) => b.moved(n, old, v),
            Index::Bits(b) => b.moved(n, old, v),
            Index::Low(l) => l.moved(n, old, v),
        }
    }
    #[inline(always)]
    fn add(&mut self, n: usize, k: u64) {
        self.set(n, self.vals[n] + k);
    }
    /// A least estimate, ties uniform or lowest.
    #[inline]
    fn argmin(&mut self, random_ties: bool, rng: &mut StreamRng) -> usize {
        match &mut self.index {
            Index::Scan | Index::Low(_) | Index::Fill(_) => {
                scan_argmin(&self.vals, random_ties, rng)
            }
            Index::Tree(t) => tree_argmin(t, random_ties, rng),
            Index::Buckets(b) => b.uniform_argmin(&self.vals, rng),
            Index::Bits(b) => b.uniform_argmin(&self.vals, rng),
        }
    }
    /// Every least estimate, into `out` (in index order, except under buckets).
    fn argmin_set(&mut self, out: &mut Vec<usize>) {
        out.clear();
        match &mut self.index {
            Index::Tree(t) => out.extend((0..t.ties()).map(|j| t.nth_argmin(j))),
            Index::Buckets(b) => b.argmin_set(&self.vals, out),
            Index::Bits(b) => b.argmin_set(&self.vals, out),
            Index::Scan | Index::Low(_) | Index::Fill(_) => {
                let mn = *self.vals.iter().min().expect("N ≥ 1");
                out.extend((0..self.vals.len()).filter(|&s| self.vals[s] == mn));
            }
        }
    }
}

enum Kind {
    Led {
        dispatch: LedDispatch,
        update: LedUpdate,
        est: Vec<Estimates>,
        /// Destination sync (LSQ): after dispatching, a dispatcher's
        /// estimate of each server it sent jobs to is set to that server's
        /// start-of-slot queue plus the jobs sent.
        sync: bool,
        /// Every dispatcher's estimates are Q(t) at every slot
        /// ([`shares_estimates`]): `est` holds one copy, read by all.
        shared: bool,
    },
    Jsq,
    Pod {
        d: usize,
    },
    Jiq {
        idle: Vec<VecDeque<usize>>,
        reported: Vec<bool>,
        /// Batch spreading (JIQ-Spread).
        spread: bool,
    },
    WeightedRandom {
        alias: Alias,
    },
    Random,
}

/// Whether every dispatcher's estimates are Q(t) at the start of every slot,
/// so that one copy serves them all: a Push of every server at every
/// dispatcher every slot (revision ≥ 1, d = N, p̂ = 1, `always`), with
/// nothing else changing an estimate (no `count_own`, no destination sync).
fn shares_estimates(update: LedUpdate, n: usize, count_own: bool, sync: bool) -> bool {
    matches!(update, LedUpdate::Push { d, p_hat, when: PushWhen::Always, revision }
        if revision >= 1 && d == n && p_hat >= 1.0)
        && !count_own
        && !sync
}

/// Sets `e` to `q` where they differ: a Push of every server without a draw.
fn refresh(e: &mut Estimates, q: &[u64]) {
    for (s, &v) in q.iter().enumerate() {
        if e.vals[s] != v {
            e.set(s, v);
        }
    }
}

/// The uniform or μ-weighted split of a slot's jobs under `job` granularity
/// (weighted random, random, JIQ's leftovers). These splits do not depend on
/// the state or the dispatcher, and a sum of multinomials with the same
/// weights is one multinomial: the slot's jobs are split at once.
fn fixed_split(cfg: &SlottedConfig) -> Option<FixedSplit> {
    let n = cfg.system.servers();
    let weights = match cfg.policy {
        PolicyConfig::WeightedRandom => cfg.system.mu(),
        PolicyConfig::Random | PolicyConfig::Jiq | PolicyConfig::JiqSpread { .. } => vec![1.0; n],
        PolicyConfig::Led { .. }
        | PolicyConfig::Jsq { .. }
        | PolicyConfig::Pod { .. }
        | PolicyConfig::Lsq { .. }
        | PolicyConfig::Pooled => return None,
    };
    (cfg.granularity == Granularity::Job)
        .then(|| FixedSplit::new(&weights, cfg.system.lambda_sum(), cfg.system.sigma2_sum()))
}

/// JIQ-Spread's splits by number of dispatchers without reports (revision
/// 1, dispatchers sharing one arrival law): the jobs of j such dispatchers
/// total A_1 + … + A_j, so the split for j is Poissonised at j dispatchers'
/// mean, where that total lies (the one split at every dispatcher's mean met
/// most totals far from it: the multinomial fallback, or thousands of jobs
/// taken back one at a time). Exact for every total either way
/// ([`FixedSplit`]).
fn spread_splits(cfg: &SlottedConfig) -> Vec<FixedSplit> {
    let arrivals = &cfg.system.arrivals;
    match cfg.policy {
        PolicyConfig::JiqSpread { revision }
            if revision >= 1
                && cfg.granularity == Granularity::Job
                && arrivals.windows(2).all(|w| w[0] == w[1]) =>
        {
            let ones = vec![1.0; cfg.system.servers()];
            let (mean, var) = (arrivals[0].mean(), arrivals[0].variance());
            (1..=arrivals.len())
                .map(|j| FixedSplit::new(&ones, j as f64 * mean, j as f64 * var))
                .collect()
        }
        PolicyConfig::Led { .. }
        | PolicyConfig::Jsq { .. }
        | PolicyConfig::Pod { .. }
        | PolicyConfig::Jiq
        | PolicyConfig::WeightedRandom
        | PolicyConfig::Random
        | PolicyConfig::Lsq { .. }
        | PolicyConfig::JiqSpread { .. }
        | PolicyConfig::Pooled => Vec::new(),
    }
}

/// A policy's state during a run.
pub struct Policy {
    kind: Kind,
    granularity: Granularity,
    count_own: bool,
    random_ties: bool,
    n: usize,
    m: usize,
    mu: Vec<f64>,
    all: Vec<usize>,
    /// Scratch: samples, sort order, argmin sets, own additions.
    pick: Vec<usize>,
    order: Vec<usize>,
    set: Vec<usize>,
    own: Vec<u64>,
    adds: Vec<(usize, u64)>,
    /// The argmin set of the snapshot Q(t), computed once per slot (JSQ).
    snapshot_min: Option<Vec<usize>>,
    /// JSQ with ties shared by the dispatchers ([`TieBreak::Shared`]): the
    /// slot's one pick from the argmin set, and the slot's uniform order of
    /// the servers (`job` with `count_own`; empty until the slot's first
    /// dispatch draws it).
    shared_ties: bool,
    shared_pick: Option<usize>,
    shared_order: Vec<usize>,
    /// The slot's split under `job` granularity (WR, Random, JIQ).
    split: Option<FixedSplit>,
    /// JIQ-Spread (revision 1): the split of the jobs of j dispatchers
    /// without reports, at j dispatchers' mean, for j = 1..M.
    spread_splits: Vec<FixedSplit>,
    /// JSQ's water-fills under `job` with `count_own`, on the shared snapshot.
    shared: SharedFill,
    /// One dispatcher's jobs of the slot (destination sync), and a stamp
    /// per server (JIQ-Spread's distinct listed servers).
    mine: Assignment,
    /// Scratch of the scanned water-fills (LSQ; L-JSQ and JSQ with
    /// lowest-index ties).
    scan: ScanFill,
    /// JSQ's copy of the snapshot Q(t) a dispatcher fills (lowest-index
    /// ties), and the last fill's level (where the next starts looking).
    view: Vec<u64>,
    view_level: u64,
    stamp: Vec<u64>,
    stamps: u64,
}

impl Policy {
    /// The run-time state of `cfg.policy`. JIQ's servers all start idle and
    /// report once each before slot 0 (those messages are not counted).
    pub fn new(cfg: &SlottedConfig, rng: &mut StreamRng) -> Policy {
        let n = cfg.system.servers();
        let m = cfg.system.dispatchers();
        let mu = cfg.system.mu();
        // LSQ is L-JSQ-Push with destination sync (and, from revision 1,
        // water-fills that scan its values).
        let (policy, sync, scans) = match cfg.policy {
            PolicyConfig::Lsq {
                d,
                p_hat,
                when,
                tie_break,
                revision,
            } => (
                PolicyConfig::Led {
                    dispatch: LedDispatch::LJsq,
                    update: LedUpdate::Push {
                        d,
                        p_hat,
                        when,
                        revision: 0,
                    },
                    tie_break,
                },
                true,
                revision >= 1,
            ),
            p @ PolicyConfig::Led { .. }
            | p @ PolicyConfig::Jsq { .. }
            | p @ PolicyConfig::Pod { .. }
            | p @ PolicyConfig::Jiq
            | p @ PolicyConfig::WeightedRandom
            | p @ PolicyConfig::Random
            | p @ PolicyConfig::JiqSpread { .. }
            | p @ PolicyConfig::Pooled => (p, false, false),
        };
        let tie = match policy {
            PolicyConfig::Led { tie_break, .. }
            | PolicyConfig::Jsq { tie_break }
            | PolicyConfig::Pod { tie_break, .. } => tie_break,
            PolicyConfig::Jiq
            | PolicyConfig::WeightedRandom
            | PolicyConfig::Random
            | PolicyConfig::Lsq { .. }
            | PolicyConfig::JiqSpread { .. }
            | PolicyConfig::Pooled => TieBreak::Random,
        };
        let shared = matches!(policy, PolicyConfig::Led { update, .. }
            if shares_estimates(update, n, cfg.count_own, sync));
        let kind = match policy {
            PolicyConfig::Led {
                dispatch, update, ..
            } => Kind::Led {
                dispatch,
                update,
                sync,
                shared,
                est: (0..if shared { 1 } else { m })
                    .map(|_| {
                        // L-JSQ reads its minimum, except in `job` granularity
                        // with count_own, where it water-fills on the values.
                        let reads_min = dispatch == LedDispatch::LJsq
                            && !(cfg.granularity == Granularity::Job && cfg.count_own);
                        let fills = dispatch == LedDispatch::LJsq
                            && cfg.granularity == Granularity::Job
                            && cfg.count_own;
                        // Lowest-index ties fill by a scan (no random word,
                        // the sorted fill's placement); uniform ties keep an
                        // order, or scan under LSQ's destination sync.
                        let scans = scans || tie == TieBreak::Lowest;
                        let fills = fills && (scans || n <= ORDER_MAX);
                        Estimates::new(
                            n,
                            if fills && scans {
                                |_| Index::Fill(0)
                            } else if fills {
                                |v| Index::Low(FillOrder::new(v))
                            } else if !reads_min || n <= SCAN_MAX {
                                |_| Index::Scan
                            } else if tie == TieBreak::Random && n <= BITS_MAX {
                                |v| Index::Bits(BitBuckets::new(v))
                            } else if tie == TieBreak::Random {
                                |v| Index::Buckets(MinBuckets::new(v))
                            } else {
                                |v| Index::Tree(ArgminTree::new(v))
                            },
                        )
                    })
                    .collect(),
            },
            PolicyConfig::Jsq { .. } => Kind::Jsq,
            PolicyConfig::Pod { d, .. } => Kind::Pod { d },
            PolicyConfig::Jiq | PolicyConfig::JiqSpread { .. } => {
                let mut idle = vec![VecDeque::new(); m];
                for s in 0..n {
                    idle[below(rng, m)].push_back(s);
                }
                Kind::Jiq {
                    idle,
                    reported: vec![true; n],
                    spread: matches!(policy, PolicyConfig::JiqSpread { .. }),
                }
            }
            PolicyConfig::WeightedRandom => Kind::WeightedRandom {
                alias: Alias::new(&mu),
            },
            PolicyConfig::Random => Kind::Random,
            PolicyConfig::Lsq { .. } => unreachable!("LSQ is L-JSQ-Push with sync"),
            PolicyConfig::Pooled => unreachable!("the pooled queue dispatches nothing"),
        };
        Policy {
            kind,
            granularity: cfg.granularity,
            count_own: cfg.count_own,
            random_ties: tie == TieBreak::Random,
            n,
            m,
            mu,
            all: (0..n).collect(),
            pick: Vec::new(),
            order: Vec::new(),
            set: Vec::new(),
            own: vec![0; n],
            adds: Vec::new(),
            snapshot_min: None,
            shared_ties: tie == TieBreak::Shared,
            shared_pick: None,
            shared_order: Vec::new(),
            split: fixed_split(cfg),
            spread_splits: spread_splits(cfg),
            shared: SharedFill::default(),
            mine: Assignment::new(if sync { n } else { 0 }),
            scan: ScanFill::with_ties(tie == TieBreak::Random),
            view: Vec::new(),
            view_level: 0,
            stamp: vec![0; n],
            stamps: 0,
        }
    }

    /// Whether most busy servers get jobs every slot, so that departures
    /// often span two FIFO runs: a slot's jobs split over the servers by
    /// fixed weights (weighted random, random, JIQ's leftovers under `job`),
    /// or L-JSQ's water-fills under `job` with `count_own` (ten dispatchers'
    /// heads of ≈ 18 servers each on the LSQ line's workload).
    pub fn spreads(&self) -> bool {
        let fills = match &self.kind {
            Kind::Led { est, .. } => est
                .iter()
                .any(|e| matches!(e.index, Index::Low(_) | Index::Fill(_))),
            Kind::Jsq
            | Kind::Pod { .. }
            | Kind::Jiq { .. }
            | Kind::WeightedRandom { .. }
            | Kind::Random => false,
        };
        self.split.is_some() || fills
    }

    /// Dispatcher m's estimates Q̃_m· (an LED policy's; None for a policy that
    /// dispatches on the true queues or on none).
    pub fn estimates(&self, m: usize) -> Option<&[u64]> {
        match &self.kind {
            Kind::Led { est, shared, .. } => Some(&est[if *shared { 0 } else { m }].vals),
            Kind::Jsq
            | Kind::Pod { .. }
            | Kind::Jiq { .. }
            | Kind::WeightedRandom { .. }
            | Kind::Random => None,
        }
    }

    /// Marks the start of a slot (the JSQ snapshot is recomputed lazily).
    #[inline]
    pub fn begin_slot(&mut self) {
        self.snapshot_min = None;
        self.shared_pick = None;
        self.shared_order.clear();
    }

    /// A whole slot's dispatch: [`begin_slot`](Self::begin_slot), then every
    /// dispatcher m with `a[m]` > 0 in turn, as [`dispatch`](Self::dispatch).
    /// Returns the messages. L-JSQ under `batch` granularity, the seed's main
    /// setting, runs here without a call per dispatcher.
    pub fn dispatch_slot(
        &mut self,
        a: &[u64],
        q: &[u64],
        rng: &mut StreamRng,
        out: &mut Assignment,
    ) -> u64 {
        self.begin_slot();
        let (random_ties, count_own) = (self.random_ties, self.count_own);
        if let (
            Kind::Led {
                dispatch: LedDispatch::LJsq,
                est,
                sync,
                shared,
                ..
            },
            Granularity::Batch,
        ) = (&mut self.kind, self.granularity)
        {
            let mut msgs = 0;
            for (m, &am) in a.iter().enumerate() {
                let e = &mut est[if *shared { 0 } else { m }];
                if am > 0 {
                    let s = e.argmin(random_ties, rng);
                    out.add(s, am);
                    if *sync {
                        e.set(s, q[s] + am);
                        msgs += 1;
                    } else if count_own {
                        e.add(s, am);
                    }
                }
            }
            return msgs;
        }
        if matches!(self.kind, Kind::Jsq)
            && self.granularity == Granularity::Job
            && count_own
            && random_ties
        {
            // Every dispatcher water-fills the same snapshot Q(t): ordered
            // once for the slot.
            let busy = a.iter().filter(|&&am| am > 0).count() as u64;
            if self.shared.fill(rng, q, a, |s, c| out.add(s, c)) {
                return 2 * self.n as u64 * busy;
            }
        }
        if let Some(split) = &mut self.split {
            // Weighted random, random, JIQ under `job`: each dispatcher's
            // jobs (JIQ: those left once its idle list is used up) are
            // split over the servers with the same fixed weights, so the
            // slot's are split at once (one multinomial).
            let mut left = 0;
            match &mut self.kind {
                Kind::Jiq {
                    idle,
                    reported,
                    spread: false,
                } => {
                    for (list, &am) in idle.iter_mut().zip(a) {
                        // One job to each of the first listed, in order.
                        let take = list.len().min(am as usize);
                        for s in list.drain(..take) {
                            reported[s] = false;
                            out.add(s, 1);
                        }
                        left += am - take as u64;
                    }
                }
                Kind::Jiq {
                    idle,
                    reported,
                    spread: true,
                } => {
                    // The dispatchers without reports, whose jobs (all of
                    // theirs, whatever their number) are split.
                    let without = idle.iter().filter(|list| list.is_empty()).count();
                    for (list, &am) in idle.iter_mut().zip(a) {
                        if am == 0 {
                            continue;
                        }
                        if list.is_empty() {
                            left += am;
                            continue;
                        }
                        spread_batch(
                            rng,
                            am,
                            list,
                            &mut self.set,
                            (&mut self.stamp, &mut self.stamps),
                            |s, c| {
                                out.add(s, c);
                                reported[s] = false;
                            },
                        );
                    }
                    let split = match without {
                        0 => split,
                        j => self.spread_splits.get_mut(j - 1).unwrap_or(split),
                    };
                    // A server may report again after any dispatch to it.
                    split.split(rng, left, |s, c| {
                        out.add(s, c);
                        reported[s] = false;
                    });
                    return 0;
                }
                Kind::Led { .. }
                | Kind::Jsq
                | Kind::Pod { .. }
                | Kind::WeightedRandom { .. }
                | Kind::Random => left = a.iter().sum(),
            }
            split.split(rng, left, |s, c| out.add(s, c));
            return 0;
        }
        let mut msgs = 0;
        let sync = matches!(self.kind, Kind::Led { sync: true, .. });
        for (m, &am) in a.iter().enumerate() {
            if am == 0 {
                continue;
            }
            if !sync {
                msgs += self.dispatch(m, am, q, rng, out);
                continue;
            }
            // Destination sync: this dispatcher's jobs apart, then its
            // estimate of each destination set (one reply each).
            let mut mine = std::mem::replace(&mut self.mine, Assignment::new(0));
            msgs += self.dispatch(m, am, q, rng, &mut mine);
            if let Kind::Led { est, .. } = &mut self.kind {
                mine.drain(|s, x| {
                    out.add(s, x);
                    est[m].set(s, q[s] + x);
                    msgs += 1;
                });
            }
            self.mine = mine;
        }
        msgs
    }

    /// Dispatcher `m` routes its `a` > 0 jobs, seeing the true start-of-slot
    /// queue lengths `q` only if the policy has full information. Returns the
    /// messages it cost: 2N for JSQ (one snapshot query per dispatcher-slot,
    /// whatever the granularity), 2d per sampled decision for Power-of-d, 0 for
    /// the others (LED pays in its update). LSQ's destination sync is applied
    /// by [`dispatch_slot`](Self::dispatch_slot), not here.
    pub fn dispatch(
        &mut self,
        m: usize,
        a: u64,
        q: &[u64],
        rng: &mut StreamRng,
        out: &mut Assignment,
    ) -> u64 {
        let job = self.granularity == Granularity::Job;
        let random_ties = self.random_ties;
        match &mut self.kind {
            Kind::Led {
                dispatch,
                est,
                shared,
                ..
            } => {
                let e = &mut est[if *shared { 0 } else { m }];
                match *dispatch {
                    LedDispatch::LJsq => {
                        if !job {
                            let s = e.argmin(random_ties, rng);
                            out.add(s, a);
                            if self.count_own {
                                e.add(s, a);
                            }
                        } else if let Index::Low(low) = &mut e.index {
                            low.fill(rng, &mut e.vals, a, |s, c| out.add(s, c));
                            e.sum += a;
                        } else if let Index::Fill(hint) = &mut e.index {
                            self.scan
                                .fill(rng, &mut e.vals, e.sum, a, hint, |s, c| out.add(s, c));
                            e.sum += a;
                        } else if self.count_own {
                            let adds = &mut self.adds;
                            adds.clear();
                            water_fill(rng, &e.vals, a, random_ties, &mut self.order, |s, c| {
                                out.add(s, c);
                                adds.push((s, c));
                            });
                            for &(s, c) in adds.iter() {
                                e.add(s, c);
                            }
                        } else if random_ties {
                            e.argmin_set(&mut self.set);
                            split_ties(rng, a, &self.set, random_ties, out);
                        } else {
                            // Every job to the lowest-index least estimate
                            // (`split_ties`' set[0]), without listing the ties.
                            out.add(e.argmin(false, rng), a);
                        }
                    }
                    LedDispatch::LJba => {
                        if job && self.count_own {
                            jba_jobs(e, a, &self.mu, &mut self.set, rng, out);
                        } else if !job {
                            let s = jba_pick(&e.vals, e.sum, &self.mu, rng);
                            out.add(s, a);
                            if self.count_own {
                                e.add(s, a);
                            }
                        } else {
                            let n = e.vals.len() as u64;
                            self.set.clear();
                            self.set
                                .extend((0..e.vals.len()).filter(|&s| e.vals[s] * n <= e.sum));
                            let mu = &self.mu;
                            multinomial(rng, a, &self.set, |s| mu[s], |s, c| out.add(s, c));
                        }
                    }
                    LedDispatch::LPod { d } => {
                        let per = if job { 1 } else { a };
                        for _ in 0..a / per {
                            distinct(rng, self.n, d, &mut self.pick);
                            let s = least(&self.pick, |s| e.vals[s], random_ties, rng);
                            out.add(s, per);
                            if self.count_own {
                                e.add(s, per);
                            }
                        }
                    }
                }
                0
            }
            Kind::Jsq => {
                if job && self.count_own && !random_ties {
                    // Lowest-index ties: the scan's fill of a copy of Q(t),
                    // the sorted fill's placement without the sort. Shared
                    // ties: the same, on Q(t) read in the slot's one uniform
                    // order of the servers, so that every dispatcher breaks
                    // ties alike.
                    let order = &mut self.shared_order;
                    if self.shared_ties && order.is_empty() {
                        order.extend(0..self.n);
                        for i in (1..self.n).rev() {
                            order.swap(i, below(rng, i + 1));
                        }
                    }
                    let order = &*order;
                    let view = &mut self.view;
                    view.clear();
                    if order.is_empty() {
                        view.extend_from_slice(q);
                    } else {
                        view.extend(order.iter().map(|&s| q[s]));
                    }
                    let sum = q.iter().sum();
                    let hint = &mut self.view_level;
                    let server = |s: usize| if order.is_empty() { s } else { order[s] };
                    self.scan
                        .fill(rng, view, sum, a, hint, |s, c| out.add(server(s), c));
                } else if job && self.count_own {
                    water_fill(rng, q, a, random_ties, &mut self.order, |s, c| {
                        out.add(s, c)
                    });
                } else {
                    let set = self.snapshot_min.get_or_insert_with(|| {
                        let mn = *q.iter().min().expect("N ≥ 1");
                        (0..q.len()).filter(|&s| q[s] == mn).collect()
                    });
                    if self.shared_ties {
                        // One pick for the slot, whichever dispatcher asks
                        // first: all of them send their jobs there.
                        let s = *self
                            .shared_pick
                            .get_or_insert_with(|| set[below(rng, set.len())]);
                        out.add(s, a);
                    } else if job {
                        split_ties(rng, a, set, random_ties, out);
                    } else {
                        let s = if random_ties {
                            set[below(rng, set.len())]
                        } else {
                            set[0]
                        };
                        out.add(s, a);
                    }
                }
                2 * self.n as u64
            }
            Kind::Pod { d } => {
                let d = *d;
                let per = if job { 1 } else { a };
                let own = &mut self.own;
                for _ in 0..a / per {
                    distinct(rng, self.n, d, &mut self.pick);
                    let s = least(&self.pick, |s| q[s] + own[s], random_ties, rng);
                    out.add(s, per);
                    if job && self.count_own {
                        if own[s] == 0 {
                            self.set.push(s);
                        }
                        own[s] += 1;
                    }
                }
                for &s in &self.set {
                    own[s] = 0;
                }
                self.set.clear();
                2 * d as u64 * (a / per)
            }
            Kind::Jiq {
                idle,
                reported,
                spread,
            } => {
                let list = &mut idle[m];
                if *spread && !list.is_empty() {
                    spread_batch(
                        rng,
                        a,
                        list,
                        &mut self.set,
                        (&mut self.stamp, &mut self.stamps),
                        |s, c| {
                            out.add(s, c);
                            reported[s] = false;
                        },
                    );
                    return 0;
                }
                let per = if job { 1 } else { a };
                let mut left = a;
                while left > 0 {
                    let Some(s) = list.pop_front() else { break };
                    reported[s] = false;
                    out.add(s, per);
                    left -= per;
                }
                if left > 0 {
                    if job {
                        multinomial(rng, left, &self.all, |_| 1.0, |s, c| out.add(s, c));
                    } else {
                        out.add(below(rng, self.n), left);
                    }
                }
                0
            }
            Kind::WeightedRandom { alias } => {
                if job {
                    let mu = &self.mu;
                    multinomial(rng, a, &self.all, |s| mu[s], |s, c| out.add(s, c));
                } else {
                    out.add(alias.sample(rng), a);
                }
                0
            }
            Kind::Random => {
                if job {
                    multinomial(rng, a, &self.all, |_| 1.0, |s, c| out.add(s, c));
                } else {
                    out.add(below(rng, self.n), a);
                }
                0
            }
        }
    }

    /// The end-of-slot update (docs/MODEL.md §1 step 4) on Q(t+1) = `q`: `arrived[m]` is
    /// A_m(t), `departed` lists the servers with D_n(t) > 0, with D_n(t), in
    /// index order. Returns the messages it cost.
    pub fn update(
        &mut self,
        q: &[u64],
        arrived: &[u64],
        departed: &[(usize, u64)],
        rng: &mut StreamRng,
    ) -> u64 {
        let mut msgs = 0;
        match &mut self.kind {
            Kind::Led {
                update,
                est,
                shared,
                ..
            } => match *update {
                LedUpdate::Push { d, .. } if *shared => {
                    // Every dispatcher pushes every server: one copy.
                    refresh(&mut est[0], q);
                    msgs += 2 * d as u64 * self.m as u64;
                }
                LedUpdate::Push {
                    d,
                    p_hat,
                    when,
                    revision,
                } => {
                    for (m, e) in est.iter_mut().enumerate() {
                        if (when == PushWhen::Always || arrived[m] > 0) && coin(rng, p_hat) {
                            if revision >= 1 {
                                // d = N: every server, no draw.
                                refresh(e, q);
                            } else {
                                distinct(rng, self.n, d, &mut self.pick);
                                for &s in &self.pick {
                                    e.set(s, q[s]);
                                }
                            }
                            msgs += 2 * d as u64;
                        }
                    }
                }
                LedUpdate::Pull { p_hat } => {
                    // A departing server reports to a uniformly random
                    // dispatcher: always when emptied, else with probability
                    // p̂. (The coin comes first so that at p̂ = 1 no branch
                    // depends on the queue.)
                    for &(s, _) in departed {
                        let m = below(rng, self.m);
                        let report = coin(rng, p_hat) | (q[s] == 0);
                        let e = &mut est[m];
                        if let Index::Scan = e.index {
                            // Without a branch on the report (at p̂ = ½ a
                            // coin's branch is mispredicted half the time):
                            // an unreported server keeps its estimate.
                            let keep = e.vals[s];
                            let mask = (report as u64).wrapping_neg();
                            e.set(s, keep ^ ((keep ^ q[s]) & mask));
                        } else if report {
                            e.set(s, q[s]);
                        }
                        msgs += report as u64;
                    }
                }
            },
            Kind::Jiq { idle, reported, .. } => {
                // The servers that report (emptied, not listed yet), in
                // order, gathered without a branch on the condition (it is
                // unpredictable); then each joins a uniform dispatcher's list.
                let reports = &mut self.set;
                reports.resize(departed.len(), 0);
                let mut k = 0;
                for &(s, _) in departed {
                    // SAFETY: k ≤ the entries seen < departed.len().
                    unsafe { *reports.get_unchecked_mut(k) = s };
                    k += ((q[s] == 0) & !reported[s]) as usize;
                }
                for &s in &reports[..k] {
                    idle[below(rng, self.m)].push_back(s);
                    reported[s] = true;
                }
                msgs += k as u64;
            }
            Kind::Jsq | Kind::Pod { .. } | Kind::WeightedRandom { .. } | Kind::Random => {}
        }
        msgs
    }
}

/// Up to this many servers, L-JSQ scans its estimates instead of keeping an
/// argmin tree: a scan of ≤ 32 words is cheaper than the tree's updates.
const SCAN_MAX: usize = 32;

/// A uniform (or lowest) argmin without branches, for the few servers
/// (≤ [`SCAN_MAX`] ≤ 64) where this beats any index: one pass keeping the
/// running minimum and the bit set of the positions that attain it, then its
/// j-th set bit, j uniform below the number of ties.
#[inline]
fn scan_argmin(vals: &[u64], random_ties: bool, rng: &mut StreamRng) -> usize {
    debug_assert!(vals.len() <= 64);
    let (mut mn, mut mask) = (u64::MAX, 0u64);
    for (s, &v) in vals.iter().enumerate() {
        let low = v.min(mn);
        mask = if v < mn { 0 } else { mask } | ((v == low) as u64) << s;
        mn = low;
    }
    if !random_ties {
        return mask.trailing_zeros() as usize;
    }
    // One draw whatever the number of ties (a branch on it would be
    // mispredicted), then the j-th set bit without a data-dependent loop.
    let j = below(rng, mask.count_ones() as usize) as u32;
    crate::slotted::buckets::select(mask, j) as usize
}

/// A uniform (or lowest) argmin from the tree.
#[inline]
fn tree_argmin(t: &ArgminTree, random_ties: bool, rng: &mut StreamRng) -> usize {
    let c = t.ties();
    let j = if random_ties && c > 1 {
        below(rng, c as usize) as u32
    } else {
        0
    };
    t.nth_argmin(j)
}

/// The server of least `val` among `cands`, ties uniform (reservoir) or lowest.
#[inline]
fn least(
    cands: &[usize],
    val: impl Fn(usize) -> u64,
    random_ties: bool,
    rng: &mut StreamRng,
) -> usize {
    let mut best = cands[0];
    let mut bv = val(best);
    let mut ties = 1u32;
    for &s in &cands[1..] {
        let v = val(s);
        if v < bv {
            (best, bv, ties) = (s, v, 1);
        } else if v == bv {
            ties += 1;
            if random_ties {
                if below(rng, ties as usize) == 0 {
                    best = s;
                }
            } else if s < best {
                best = s;
            }
        }
    }
    best
}

/// JIQ-Spread: `a` jobs spread evenly over the distinct servers of an idle
/// list (in list order; a server that reported twice counts once), ⌊a/k⌋
/// each and one more for a uniform (a mod k)-subset; the list is cleared.
/// `put(server, count)` for each non-zero count.
fn spread_batch(
    rng: &mut StreamRng,
    a: u64,
    list: &mut VecDeque<usize>,
    set: &mut Vec<usize>,
    (stamp, stamps): (&mut [u64], &mut u64),
    mut put: impl FnMut(usize, u64),
) {
    *stamps += 1;
    set.clear();
    for s in list.drain(..) {
        if stamp[s] != *stamps {
            stamp[s] = *stamps;
            set.push(s);
        }
    }
    let k = set.len();
    let (base, r) = (a / k as u64, (a % k as u64) as usize);
    // Partial Fisher–Yates: the first r become a uniform r-subset.
    for i in 0..r {
        let j = i + below(rng, k - i);
        set.swap(i, j);
    }
    for (i, &s) in set.iter().enumerate() {
        let c = base + (i < r) as u64;
        if c > 0 {
            put(s, c);
        }
    }
}

/// `a` jobs spread over a set of tied servers: uniformly, job by job (or all to
/// the lowest index).
fn split_ties(rng: &mut StreamRng, a: u64, set: &[usize], random_ties: bool, out: &mut Assignment) {
    if random_ties {
        multinomial(rng, a, set, |_| 1.0, |s, c| out.add(s, c));
    } else {
        out.add(set[0], a);
    }
}

/// L-JBA (Zhou, Shroff and Wierman, Example 2): n ∈ A = {n : Q̃_n ≤ mean Q̃}
/// with probability μ_n / Σ_{i∈A} μ_i. The test N·Q̃_n ≤ ΣQ̃ is exact in
/// integers.
fn jba_pick(vals: &[u64], sum: u64, mu: &[f64], rng: &mut StreamRng) -> usize {
    let n = vals.len() as u64;
    let in_a = |s: usize| vals[s] * n <= sum;
    let total: f64 = (0..vals.len()).filter(|&s| in_a(s)).map(|s| mu[s]).sum();
    a_pick(
        (0..vals.len()).filter(|&s| in_a(s)),
        total,
        mu,
        rng.random::<f64>(),
    )
}

/// The member of A (listed in index order) that the uniform `u` picks:
/// the first whose running μ passes u·total, by the same floating-point
/// steps whatever lists A.
#[inline]
fn a_pick(members: impl Iterator<Item = usize>, total: f64, mu: &[f64], u: f64) -> usize {
    let mut u = u * total;
    let mut last = 0;
    for s in members {
        last = s;
        u -= mu[s];
        if u < 0.0 {
            return s;
        }
    }
    last
}

/// L-JBA's `a` jobs one at a time under `job` granularity with
/// `count_own`: each [`jba_pick`]'s law and bits, but A (in index order, in
/// `set`) and its μ total are kept across the jobs instead of found again
/// for each. A job to s raises Q̃_s and ΣQ̃ by one, so only s can leave A,
/// and a server can join only when N divides the new sum (N·Q̃_t = ΣQ̃);
/// the total is summed again, in the same order, only when A changed.
fn jba_jobs(
    e: &mut Estimates,
    a: u64,
    mu: &[f64],
    set: &mut Vec<usize>,
    rng: &mut StreamRng,
    out: &mut Assignment,
) {
    let n = e.vals.len() as u64;
    let list = |set: &mut Vec<usize>, vals: &[u64], sum: u64| {
        set.clear();
        set.extend((0..vals.len()).filter(|&s| vals[s] * n <= sum));
    };
    let total = |set: &[usize]| set.iter().map(|&s| mu[s]).sum::<f64>();
    list(set, &e.vals, e.sum);
    let mut t = total(set);
    for _ in 0..a {
        let s = a_pick(set.iter().copied(), t, mu, rng.random::<f64>());
        out.add(s, 1);
        e.add(s, 1);
        if e.sum.is_multiple_of(n) {
            list(set, &e.vals, e.sum);
        } else if e.vals[s] * n > e.sum {
            let i = set.binary_search(&s).expect("s was in A");
            set.remove(i);
        } else {
            continue;
        }
        t = total(set);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slotted::config::{RunLength, SystemConfig};
    use crate::slotted::law::Law;
    use rand::SeedableRng;

    fn lsq_workload(policy: PolicyConfig, load: f64) -> SlottedConfig {
        let service: Vec<Law> = (0..100)
            .map(|i| Law::Geometric {
                mean: 1.0 + 99.0 * (i as f64 + 0.5) / 100.0,
            })
            .collect();
        let mu: f64 = service.iter().map(Law::mean).sum();
        SlottedConfig {
            system: SystemConfig {
                arrivals: vec![
                    Law::Poisson {
                        mean: load * mu / 10.0
                    };
                    10
                ],
                service,
            },
            policy,
            granularity: Granularity::Job,
            count_own: true,
            run: RunLength {
                slots: 10,
                warmup: 1,
                batches: 6,
                warmup_rule: Default::default(),
                advance: Default::default(),
                preference: false,
                estimation: false,
            },
        }
    }

    fn small(policy: PolicyConfig, m: usize, granularity: Granularity) -> SlottedConfig {
        SlottedConfig {
            system: SystemConfig {
                arrivals: vec![Law::Poisson { mean: 2.0 }; m],
                service: (0..10).map(|_| Law::Bernoulli { p: 0.5 }).collect(),
            },
            policy,
            granularity,
            count_own: true,
            run: RunLength {
                slots: 10,
                warmup: 1,
                batches: 6,
                warmup_rule: Default::default(),
                advance: Default::default(),
                preference: false,
                estimation: false,
            },
        }
    }

    /// JSQ with ties shared by the dispatchers (Zhou, Shroff and Wierman,
    /// §4.2: "all the dispatchers will route arrivals to the single
    /// shortest queue"): under `batch` and under `job` without `count_own`,
    /// every job of the slot goes to one server of the snapshot's argmin,
    /// uniform over it across slots; under `job` with `count_own` each
    /// dispatcher water-fills Q(t), and the dispatchers' fills agree (each
    /// fills the servers in the slot's one order). Independent ties spread
    /// the dispatchers over the tied servers: the foil, which the first
    /// assertion must not pass.
    #[test]
    fn shared_ties_send_every_dispatcher_to_one_server() {
        let jsq = |tie_break| PolicyConfig::Jsq { tie_break };
        let mut rng = StreamRng::seed_from_u64(47);
        // Servers 2, 5 and 8 tie at the minimum.
        let q: Vec<u64> = (0..10).map(|s| if s % 3 == 2 { 1 } else { 4 }).collect();
        let a = vec![3u64, 1, 2, 5];
        for (granularity, count_own) in [
            (Granularity::Batch, true),
            (Granularity::Batch, false),
            (Granularity::Job, false),
        ] {
            let mut spread = 0;
            for tie in [TieBreak::Shared, TieBreak::Random] {
                let mut cfg = small(jsq(tie), 4, granularity);
                cfg.count_own = count_own;
                let mut p = Policy::new(&cfg, &mut rng);
                let mut hits = [0u32; 10];
                for _ in 0..3000 {
                    let mut out = Assignment::new(10);
                    p.dispatch_slot(&a, &q, &mut rng, &mut out);
                    let used: Vec<usize> = (0..10).filter(|&s| out.inc[s] > 0).collect();
                    assert_eq!(out.inc.iter().sum::<u64>(), 11);
                    assert!(used.iter().all(|&s| s % 3 == 2), "{used:?}");
                    if tie == TieBreak::Shared {
                        assert_eq!(used.len(), 1, "{granularity:?}: {used:?}");
                        hits[used[0]] += 1;
                    } else {
                        spread += usize::from(used.len() > 1);
                    }
                }
                if tie == TieBreak::Shared {
                    // Uniform over the three: 1000 each, sd ≈ 26.
                    for s in [2, 5, 8] {
                        assert!((hits[s] as i64 - 1000).abs() < 130, "{hits:?}");
                    }
                }
            }
            assert!(spread > 1000, "independent ties should spread: {spread}");
        }
        // `job` with `count_own`: 11 jobs on three servers tied at 1 and the
        // rest at 4. Each dispatcher's fill is a prefix of the slot's order
        // of the tied servers, so the dispatchers' heads nest: the servers
        // given the most jobs form a prefix of those given any.
        let mut cfg = small(jsq(TieBreak::Shared), 4, Granularity::Job);
        cfg.count_own = true;
        let mut p = Policy::new(&cfg, &mut rng);
        let mut firsts = [0u32; 10];
        for _ in 0..3000 {
            let mut out = Assignment::new(10);
            p.dispatch_slot(&[1, 1, 1, 0], &q, &mut rng, &mut out);
            let used: Vec<usize> = (0..10).filter(|&s| out.inc[s] > 0).collect();
            assert_eq!(
                used.len(),
                1,
                "three single jobs, one shared order: {used:?}"
            );
            assert!(used[0] % 3 == 2);
            firsts[used[0]] += 1;
        }
        for s in [2, 5, 8] {
            assert!((firsts[s] as i64 - 1000).abs() < 130, "{firsts:?}");
        }
    }

    fn estimates(p: &Policy) -> Vec<Vec<u64>> {
        match &p.kind {
            Kind::Led { est, .. } => est.iter().map(|e| e.vals.clone()).collect(),
            Kind::Jsq
            | Kind::Pod { .. }
            | Kind::Jiq { .. }
            | Kind::WeightedRandom { .. }
            | Kind::Random => unreachable!(),
        }
    }

    /// LSQ's destination sync, exactly: after a dispatch, a dispatcher's
    /// estimate of each server it sent x jobs to is that server's
    /// start-of-slot queue plus x; its other estimates do not move; each
    /// destination costs one message (Push here has p̂ = 0 and sends none).
    #[test]
    fn lsq_syncs_the_destinations() {
        let lsq = |revision| PolicyConfig::Lsq {
            d: 2,
            p_hat: 0.0,
            when: PushWhen::Always,
            tie_break: TieBreak::Random,
            revision,
        };
        let mut rng = StreamRng::seed_from_u64(13);
        for (granularity, revision) in [
            (Granularity::Batch, 1),
            (Granularity::Job, 0),
            (Granularity::Job, 1),
        ] {
            let lsq = lsq(revision);
            for m in [1usize, 3] {
                let cfg = small(lsq, m, granularity);
                let mut p = Policy::new(&cfg, &mut rng);
                for slot in 0..300u64 {
                    let q: Vec<u64> = (0..10).map(|s| (s * 7 + slot * 3) % 11).collect();
                    // One dispatcher with jobs at a time: `out` is its own.
                    let d = slot as usize % m;
                    let mut a = vec![0u64; m];
                    a[d] = slot % 9;
                    let before = estimates(&p);
                    let mut out = Assignment::new(10);
                    let msgs = p.dispatch_slot(&a, &q, &mut rng, &mut out);
                    let after = estimates(&p);
                    assert_eq!(out.inc.iter().sum::<u64>(), a[d]);
                    for e in 0..m {
                        for s in 0..10 {
                            let want = if e == d && out.inc[s] > 0 {
                                q[s] + out.inc[s]
                            } else {
                                before[e][s]
                            };
                            assert_eq!(
                                after[e][s], want,
                                "{granularity:?} revision {revision} M={m} e={e} s={s}"
                            );
                        }
                    }
                    let dests = out.inc.iter().filter(|&&x| x > 0).count() as u64;
                    assert_eq!(msgs, dests, "one message a destination");
                    if granularity == Granularity::Batch {
                        assert!(dests <= 1);
                    }
                }
            }
        }
    }

    /// JIQ-Spread: a dispatcher with k idle servers listed gives each ⌊A/k⌋
    /// jobs and a uniform (A mod k)-subset one more, and clears its list;
    /// a server that got nothing stays reported (it does not report again
    /// until a dispatch reaches it).
    #[test]
    fn jiq_spread_spreads_evenly_and_clears_the_list() {
        let cfg = small(
            PolicyConfig::JiqSpread {
                revision: crate::slotted::JIQ_SPREAD_REVISION,
            },
            1,
            Granularity::Job,
        );
        let mut rng = StreamRng::seed_from_u64(14);
        let q = vec![0u64; 10];
        let mut extra = [0u64; 10];
        let reps = 20_000;
        for _ in 0..reps {
            // All 10 servers start idle, listed with the one dispatcher.
            let mut p = Policy::new(&cfg, &mut rng);
            let mut out = Assignment::new(10);
            p.dispatch_slot(&[23], &q, &mut rng, &mut out);
            assert_eq!(out.inc.iter().sum::<u64>(), 23);
            for (e, &x) in extra.iter_mut().zip(&out.inc) {
                assert!(x == 2 || x == 3, "{:?}", out.inc);
                *e += x - 2;
            }
            let Kind::Jiq { idle, reported, .. } = &p.kind else {
                unreachable!()
            };
            assert!(idle[0].is_empty());
            assert!(reported.iter().all(|&r| !r));
        }
        // Each server is among the 3 with the extra job w.p. 3/10.
        let (mean, var) = (0.3 * reps as f64, 0.3 * 0.7 * reps as f64);
        for (s, &e) in extra.iter().enumerate() {
            assert!(
                (e as f64 - mean).abs() < 5.0 * var.sqrt(),
                "server {s}: {e}"
            );
        }
        // Fewer jobs than listed servers: 4 get one, 6 none and stay
        // reported; the list is cleared; the next batch goes at random.
        let mut p = Policy::new(&cfg, &mut rng);
        let mut out = Assignment::new(10);
        p.dispatch_slot(&[4], &q, &mut rng, &mut out);
        assert_eq!(out.inc.iter().filter(|&&x| x == 1).count(), 4);
        assert_eq!(out.inc.iter().sum::<u64>(), 4);
        let Kind::Jiq { idle, reported, .. } = &p.kind else {
            unreachable!()
        };
        assert!(idle[0].is_empty());
        for (&r, &x) in reported.iter().zip(&out.inc) {
            assert_eq!(r, x == 0);
        }
    }

    /// L-JBA's jobs with A kept across them pick, word for word, what
    /// [`jba_pick`] on the raised estimates picks job by job: the same
    /// servers from the same generator, on homogeneous and heterogeneous
    /// rates (whose μ sums round), from random estimates where A is large,
    /// small, or changes at every job.
    #[test]
    fn jba_jobs_pick_as_jba_pick_job_by_job() {
        let mut draw = StreamRng::seed_from_u64(21);
        for case in 0..600 {
            let n = [1usize, 2, 3, 7, 10, 100][case % 6];
            let mu: Vec<f64> = if case % 2 == 0 {
                vec![0.5; n]
            } else {
                (0..n).map(|i| 0.2 + 0.1 * (i % 7) as f64).collect()
            };
            let spread = [1, 2, 5, 60][case / 6 % 4];
            let vals: Vec<u64> = (0..n).map(|_| below(&mut draw, spread) as u64).collect();
            let a = 1 + below(&mut draw, [1, n, 5 * n][case % 3]) as u64;
            let seed = draw.random::<u64>();
            // Kept across the jobs.
            let mut e = Estimates::new(n, |_| Index::Scan);
            for (s, &v) in vals.iter().enumerate() {
                e.set(s, v);
            }
            let (mut rng, mut out, mut set) = (
                StreamRng::seed_from_u64(seed),
                Assignment::new(n),
                Vec::new(),
            );
            jba_jobs(&mut e, a, &mu, &mut set, &mut rng, &mut out);
            let mut got = vec![0u64; n];
            out.drain(|s, c| got[s] += c);
            // Found again for each job.
            let (mut v2, mut sum) = (vals.clone(), vals.iter().sum::<u64>());
            let mut rng2 = StreamRng::seed_from_u64(seed);
            let mut want = vec![0u64; n];
            for _ in 0..a {
                let s = jba_pick(&v2, sum, &mu, &mut rng2);
                want[s] += 1;
                v2[s] += 1;
                sum += 1;
            }
            assert_eq!(got, want, "case {case}: n {n}, a {a}, estimates {vals:?}");
            assert_eq!(e.vals, v2);
            assert_eq!(rng.random::<u64>(), rng2.random::<u64>());
        }
    }

    /// The slot's jobs split at once (one multinomial over Σ_m A_m) against
    /// each dispatcher's own split (a sum of M multinomials with the same
    /// weights): per-server means and variances agree with each other and
    /// with Multinomial(Σ_m A_m, w), for weighted random and random.
    #[test]
    fn aggregated_split_has_the_per_dispatcher_law() {
        for (policy, weighted) in [
            (PolicyConfig::WeightedRandom, true),
            (PolicyConfig::Random, false),
        ] {
            let cfg = lsq_workload(policy, 0.9);
            let mu = cfg.system.mu();
            let total: f64 = mu.iter().sum();
            let mut rng = StreamRng::seed_from_u64(11);
            let mut agg = Policy::new(&cfg, &mut rng);
            let mut each = Policy::new(&cfg, &mut rng);
            let q = vec![0u64; 100];
            let a: Vec<u64> = (0..10).map(|m| 440 + 3 * m).collect(); // Σ = 4535
            let k: u64 = a.iter().sum();
            let reps = 4000;
            let servers = [0usize, 37, 99];
            let mut stats = [[[0.0f64; 2]; 3]; 2];
            for _ in 0..reps {
                for (which, p) in [&mut agg, &mut each].into_iter().enumerate() {
                    let mut out = Assignment::new(100);
                    if which == 0 {
                        p.dispatch_slot(&a, &q, &mut rng, &mut out);
                    } else {
                        for (m, &am) in a.iter().enumerate() {
                            p.dispatch(m, am, &q, &mut rng, &mut out);
                        }
                    }
                    assert_eq!(out.inc.iter().sum::<u64>(), k);
                    for (i, &s) in servers.iter().enumerate() {
                        let x = out.inc[s] as f64;
                        stats[which][i][0] += x;
                        stats[which][i][1] += x * x;
                    }
                }
            }
            for (i, &s) in servers.iter().enumerate() {
                let w = if weighted { mu[s] / total } else { 0.01 };
                let (mean, var) = (k as f64 * w, k as f64 * w * (1.0 - w));
                let se = (var / reps as f64).sqrt();
                let got: Vec<(f64, f64)> = (0..2)
                    .map(|j| {
                        let m1 = stats[j][i][0] / reps as f64;
                        (m1, stats[j][i][1] / reps as f64 - m1 * m1)
                    })
                    .collect();
                for (j, &(m1, v)) in got.iter().enumerate() {
                    assert!(
                        (m1 - mean).abs() < 5.0 * se,
                        "{j} server {s}: {m1} vs {mean}"
                    );
                    let tol = 5.0 * var * (2.0 / reps as f64).sqrt();
                    assert!((v - var).abs() < tol, "{j} server {s}: var {v} vs {var}");
                }
                assert!(
                    (got[0].0 - got[1].0).abs() < 5.0 * se * 2f64.sqrt(),
                    "server {s}: aggregated {} vs per dispatcher {}",
                    got[0].0,
                    got[1].0
                );
            }
        }
    }

    /// The exact laws of `preference` are the engine's: L-JBA's pick and
    /// L-Pod's sample-and-least, drawn 200,000 times at one state, each
    /// server's count within 5 standard errors of the law's mean.
    #[test]
    fn preference_laws_are_the_rules_as_run() {
        use crate::slotted::preference::{Rule, probabilities};
        let mu = [0.2, 0.4, 0.6, 0.8, 0.3, 0.5];
        let est: [u64; 6] = [2, 0, 2, 5, 0, 3];
        let sum: u64 = est.iter().sum();
        let reps = 200_000u64;
        let mut rng = StreamRng::seed_from_u64(61);
        let mut pick = Vec::new();
        let check = |rule: Rule, counts: &[u64]| {
            let p = probabilities(rule, &mu, &est);
            for (s, (&c, &ps)) in counts.iter().zip(&p).enumerate() {
                let (mean, var) = (ps * reps as f64, ps * (1.0 - ps) * reps as f64);
                assert!(
                    (c as f64 - mean).abs() <= 5.0 * var.sqrt() + 1e-9,
                    "{rule:?}, server {s}: {c} against {mean}"
                );
            }
        };
        let mut jba = [0u64; 6];
        for _ in 0..reps {
            jba[jba_pick(&est, sum, &mu, &mut rng)] += 1;
        }
        check(Rule::LJba, &jba);
        for (d, random_ties) in [(2, true), (2, false), (3, true)] {
            let mut pod = [0u64; 6];
            for _ in 0..reps {
                distinct(&mut rng, 6, d, &mut pick);
                pod[least(&pick, |s| est[s], random_ties, &mut rng)] += 1;
            }
            let tie = if random_ties {
                TieBreak::Random
            } else {
                TieBreak::Lowest
            };
            check(Rule::LPod(d, tie), &pod);
        }
    }
}
