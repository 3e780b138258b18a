//! What one replication of a slotted point is expected to cost
//! ([`crate::limits`]). Constants are per unit of work, measured on the
//! project's machine by `just bench` (setting 1: about 0.76 µs a slot for N =
//! 100, M = 10 and 45 jobs a slot; setting 3: about 9 µs with job granularity
//! and water-filling), rounded up.

use crate::limits::Cost;
use lb_core::slotted::{Granularity, SlottedConfig};

/// The expected cost of one replication of `c` (MSER-5 runs the path twice).
pub fn cost(c: &SlottedConfig) -> Cost {
    let n = c.system.servers() as f64;
    let m = c.system.dispatchers() as f64;
    let jobs = c.system.lambda_sum();
    let mut per_slot = 4e-9 * n + 20e-9 * m + 10e-9 * jobs;
    if c.granularity == Granularity::Job && c.count_own {
        // Water-filling a dispatcher's jobs over its ordered estimates.
        per_slot += 5e-9 * m * n;
    }
    if c.run.advance == lb_core::slotted::Advance::Blocks {
        // Blocks as long as a queue (lb_core::slotted::blocks): about
        // (ln Q̄ + 1)/Q̄ steps a server-slot at a mean queue Q̄ ≈ 1/(1 − ρ), at
        // about 0.3 µs a step (two exact draws; measured at ε = 0.002·μ_Σ).
        let q_bar = (1.0 / (1.0 - c.system.load()).max(1e-9)).max(1.0);
        let steps = c.run.slots as f64 * n * (q_bar.ln() + 1.0) / q_bar;
        return Cost {
            bytes: 1e6 + 64.0 * n + 16.0 * c.run.batches as f64,
            seconds: 3e-7 * steps,
        };
    }
    let passes = match c.run.warmup_rule {
        lb_core::slotted::WarmupRule::Fixed => 1.0,
        _ => 2.0,
    };
    Cost {
        bytes: 1e6 + 128.0 * n + 16.0 * m * n + 64.0 * m + 8.0 * c.run.batches as f64,
        seconds: passes * per_slot * c.run.slots as f64,
    }
}
