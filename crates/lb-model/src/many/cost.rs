//! What one replication of a many-server point is expected to cost
//! ([`crate::limits`]): about 25 ns an event of the uniformised chain for the
//! exchangeable policies (`just bench`: 46 M events/s for JSQ at N = 10⁴),
//! plus Power-of-d's inversion and the neighbours of a graph.

use crate::limits::Cost;
use lb_core::many::{GraphSpec, ManyConfig, ManyPolicy};

/// The expected cost of one replication of `c`.
pub fn cost(c: &ManyConfig) -> Cost {
    let n = c.servers as f64;
    let events = c.run.horizon * (1.0 + c.lambda) * n;
    let (per_event, degree) = match &c.policy {
        // Power-of-d draws the shortest's class by inversion over the
        // occupied classes (lb_core::many::pod), whatever d: one logarithm an
        // arrival, mostly; measured at N = 10⁶, d = ⌈N^0.45 ln N⌉: 21 ns an
        // event against JSQ's 17.
        ManyPolicy::Pod { .. } => (30e-9, 0.0),
        ManyPolicy::Graph { graph } => {
            let deg = match graph {
                GraphSpec::Clique => 0.0,
                GraphSpec::ErdosRenyi { mean_degree } => *mean_degree,
                GraphSpec::RandomRegular { degree } => *degree as f64,
                GraphSpec::Ring => 2.0,
                GraphSpec::Torus => 4.0,
                // Half the servers of degree 3, half of the core's degree
                // plus about one periphery edge each.
                GraphSpec::RingPeriphery { core_mean_degree } => {
                    (3.0 + core_mean_degree + 1.0) / 2.0
                }
            };
            (25e-9 + 5e-9 * deg, deg)
        }
        _ => (25e-9, 0.0),
    };
    Cost {
        bytes: 1e6 + 48.0 * n + 16.0 * n * degree + 8.0 * c.run.batches as f64,
        seconds: per_event * events,
    }
}
