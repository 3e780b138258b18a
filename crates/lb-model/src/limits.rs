//! Resource limits of a manifest, and what a plan is expected to cost.
//!
//! Two kinds of limit (documented in `experiments/README.md`, "Limits"):
//!
//! - **Hard limits** bound every size a manifest can set so that nothing
//!   allocates beyond memory, overflows a counter or leaves a sampler's exact
//!   range. A manifest beyond one gets a located error naming the limit,
//!   before anything is allocated.
//! - **Soft limits** bound what a plan is *estimated* to cost: CPU time of the
//!   work still missing, and memory per replication against the machine's.
//!   `lb plan` prints the estimate; `lb run` and `lb reproduce` refuse work
//!   beyond a soft limit unless given `--force`.
//!
//! The estimates are rough by design (a constant per unit of work, measured
//! on the project's machine) and say so; where the cache holds timed records
//! of the same plan, `lb plan` rescales them by what was measured.

/// Servers N of the slotted model.
pub const MAX_SLOTTED_SERVERS: u64 = 1_000_000;
/// Dispatchers M of the slotted model.
pub const MAX_DISPATCHERS: u64 = 100_000;
/// M × N: each dispatcher keeps an estimate of each server (Q̃_mn).
pub const MAX_ESTIMATES: u64 = 100_000_000;
/// Jobs a dispatcher expects per slot, and a server's mean service per slot.
pub const MAX_JOBS_PER_SLOT: f64 = 1e6;
/// Slots of one replication (the time averages are exact in f64 below 2⁵³).
pub const MAX_SLOTS: u64 = 1 << 53;
/// Expected jobs of one replication: the run's counters are u64.
pub const MAX_JOBS_PER_RUN: f64 = 4e18;
/// Servers N of the many-server model.
pub const MAX_MANY_SERVERS: u64 = 10_000_000;
/// Events of one replication of a continuous-time model (the uniformised
/// chain's steps; step counts are exact in f64 below 2⁵³).
pub const MAX_EVENTS: f64 = 9e15;
/// Replications of one point (fixed, a precision rule's `max`, `[quick]`).
pub const MAX_REPLICATIONS: u64 = 100_000;
/// Batches of a run's window (each is a number in every record).
pub const MAX_BATCHES: u64 = 100_000;
/// Points of one manifest (sweep combinations × policies).
pub const MAX_POINTS: u64 = 100_000;

/// Laws held by a slotted plan: Σ over its points of N + M (each point
/// holds its servers' and dispatchers' laws, about 32 bytes each).
pub const MAX_PLAN_LAWS: u64 = 50_000_000;

/// Soft limit: estimated single-core CPU time of a plan's missing work.
pub(crate) const SOFT_CPU_SECONDS: f64 = 24.0 * 3600.0;

/// What one replication of a point is expected to cost.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Cost {
    /// Peak memory of the run, bytes.
    pub bytes: f64,
    /// Single-core CPU time, seconds.
    pub seconds: f64,
}

impl Cost {
    /// `n` replications of this cost, one after another (peak memory is one
    /// run's).
    pub fn times(self, n: f64) -> Cost {
        Cost {
            bytes: self.bytes,
            seconds: self.seconds * n,
        }
    }

    /// Both of two costs: times add, peak memory is the larger.
    pub fn and(self, other: Cost) -> Cost {
        Cost {
            bytes: self.bytes.max(other.bytes),
            seconds: self.seconds + other.seconds,
        }
    }
}

/// The machine's memory in bytes (`MemTotal` of /proc/meminfo), if known.
pub(crate) fn machine_memory() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024.0)
}

/// A human figure of seconds: "3.2 s", "4.1 min", "2.0 h", "3.5 days".
pub fn human_seconds(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.1} s")
    } else if s < 3600.0 {
        format!("{:.1} min", s / 60.0)
    } else if s < 86_400.0 {
        format!("{:.1} h", s / 3600.0)
    } else {
        format!("{:.1} days", s / 86_400.0)
    }
}

/// A human figure of bytes: "12 MiB", "3.1 GiB".
pub fn human_bytes(b: f64) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    if b < 1024.0 * MIB {
        format!("{:.0} MiB", (b / MIB).max(1.0))
    } else {
        format!("{:.1} GiB", b / (1024.0 * MIB))
    }
}

/// Why a plan's estimate is beyond a soft limit (None when within), for
/// `threads` concurrent replications.
pub fn soft_limit(total: Cost, threads: usize) -> Option<String> {
    if let Some(mem) = machine_memory() {
        let need = total.bytes * threads as f64;
        if need > 0.8 * mem {
            return Some(format!(
                "the runs are estimated to need {} of memory ({} per replication × {threads} \
                 thread(s)), more than 80% of this machine's {}: use fewer --threads, smaller \
                 systems, or --force to try anyway",
                human_bytes(need),
                human_bytes(total.bytes),
                human_bytes(mem)
            ));
        }
    }
    if total.seconds > SOFT_CPU_SECONDS {
        return Some(format!(
            "the missing work is estimated at {} of CPU time, beyond the {} that lb runs \
             without asking: shorten the runs, fewer replications or points, or pass --force \
             if you mean it",
            human_seconds(total.seconds),
            human_seconds(SOFT_CPU_SECONDS)
        ));
    }
    None
}
