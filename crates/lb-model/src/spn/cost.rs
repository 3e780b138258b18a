//! What one replication of a network point is expected to cost
//! ([`crate::limits`]): about 25 ns an event of the uniformised chain
//! (`just bench`: 39 M events/s for Rybko–Stolyar under max-pressure), more
//! for max-pressure's search over allocations on shared buffers.

use crate::limits::Cost;
use lb_core::spn::SpnConfig;

/// The expected cost of one replication of `c`.
pub(crate) fn cost(c: &SpnConfig) -> Cost {
    let events = c.run.horizon * c.event_rate();
    let per_event = 25e-9 + 2e-9 * c.activities.len() as f64;
    Cost {
        bytes: 1e6 + 64.0 * (c.activities.len() + c.buffers()) as f64 + 16.0 * c.path_points as f64,
        seconds: per_event * events,
    }
}
