//! The networks of the literature the experiments use, as configurations.
//! Their rates and workload weights are computed from `load` by a few
//! correctly rounded operations (products, quotients, sums; no library
//! functions), so a configuration, and its key, is the same on every machine.

use super::config::{Activity, DEFAULT_PATH_POINTS, Route, SpnConfig, SpnPolicy};
use crate::many::TimeRun;

/// Activity `a` of a multiclass network: buffer a at `station`, mean service
/// time `mean`, then buffer `next` or out.
fn class(station: usize, buffer: usize, mean: f64, next: Option<usize>) -> Activity {
    Activity {
        station,
        buffer,
        rate: 1.0 / mean,
        routing: next
            .map(|k| Route {
                buffer: k,
                probability: 1.0,
            })
            .into_iter()
            .collect(),
    }
}

/// The Rybko–Stolyar network (Rybko and Stolyar 1992; docs/MODEL.md §3) at load ρ at
/// each station. Route A is buffer 0 at station 0, then buffer 1 at station
/// 1; route B is buffer 2 at station 1, then buffer 3 at station 0 (the
/// docs/MODEL.md §3's classes 1–4, numbered from 0; activity a serves buffer a).
/// λ₀ = λ₂ = 1, mean service times m = (0.1, 0.6, 0.1, 0.6) · ρ/0.7, so that
/// ρ = 0.7 gives the classic m₁ = m₃ = 0.1, m₂ = m₄ = 0.6.
///
/// Priority to the exiting buffers (order `[[3, 0], [1, 2]]`) is unstable
/// when m₂ + m₄ > 1, i.e. ρ > 0.7 · 5/6 ≈ 0.583: buffers 1 and 3 form a
/// virtual station that never serves both at once. In the fluid model
/// (Dai 1995) the fluid cycles between the routes, and while route A
/// drains through station 1 at full speed the only departures are buffer
/// 1's, at rate 1/m₂ (likewise 1/m₄ for route B); with m₂ = m₄ the total
/// grows linearly at 2 − 1/m₂, which is 1/3 per unit time at ρ = 0.7.
/// Max-pressure is stable for every ρ < 1 (Dai and Lin 2005).
///
/// `workload` holds each station's immediate workload: the expected work a
/// job in each buffer still brings to station 0, then to station 1 — station
/// 0: (m₁, 0, m₄, m₄); station 1: (m₂, m₂, m₃, 0).
pub fn rybko_stolyar(load: f64, policy: SpnPolicy, run: TimeRun) -> SpnConfig {
    let m = [0.1, 0.6, 0.1, 0.6].map(|x| x * load / 0.7);
    SpnConfig {
        arrivals: vec![1.0, 0.0, 1.0, 0.0],
        stations: 2,
        activities: vec![
            class(0, 0, m[0], Some(1)),
            class(1, 1, m[1], None),
            class(1, 2, m[2], Some(3)),
            class(0, 3, m[3], None),
        ],
        workload: vec![vec![m[0], 0.0, m[3], m[3]], vec![m[1], m[1], m[2], 0.0]],
        policy,
        run,
        path_points: DEFAULT_PATH_POINTS,
    }
}

/// The Lu–Kumar network (Lu and Kumar 1991) at load ρ at each station: one
/// route visiting station 0, 1, 1, 0 — buffer 0 at station 0, buffer 1 at
/// station 1, buffer 2 at station 1, buffer 3 at station 0, then out
/// (activity a serves buffer a). λ₀ = 1, mean service times in route order
/// m = (0.1, 0.6, 0.1, 0.6) · ρ/0.7, so station loads are m₁ + m₄ =
/// m₂ + m₃ = ρ.
///
/// The convention of the literature (Lu and Kumar 1991; Dai 1995; Bramson
/// 2008), classes numbered 1–4 along the route: priority to class 4 over
/// class 1 at station 1 and to class 2 over class 3 at station 2 — here
/// order `[[3, 0], [1, 2]]` — is unstable when m₂ + m₄ > 1 (ρ > 0.583 with
/// these proportions): classes 2 and 4 form a virtual station. In the fluid
/// model the total rises at rate 1 (no departures) while the fluid moves
/// from buffer 0 through buffer 1 into buffer 2, then falls at 1 − 1/m₄
/// while buffer 3 drains; each cycle multiplies the fluid by m₄/(1 − m₂),
/// and over whole cycles the total grows at λ − 1/(m₂ + m₄) (the virtual
/// station works without pause), which is 1/6 per unit time at ρ = 0.7.
/// Max-pressure is stable for every ρ < 1 (Dai and Lin 2005).
///
/// `workload` holds each station's immediate workload: station 0:
/// (m₁ + m₄, m₄, m₄, m₄); station 1: (m₂ + m₃, m₂ + m₃, m₃, 0).
pub fn lu_kumar(load: f64, policy: SpnPolicy, run: TimeRun) -> SpnConfig {
    let m = [0.1, 0.6, 0.1, 0.6].map(|x| x * load / 0.7);
    SpnConfig {
        arrivals: vec![1.0, 0.0, 0.0, 0.0],
        stations: 2,
        activities: vec![
            class(0, 0, m[0], Some(1)),
            class(1, 1, m[1], Some(2)),
            class(1, 2, m[2], Some(3)),
            class(0, 3, m[3], None),
        ],
        workload: vec![
            vec![m[0] + m[3], m[3], m[3], m[3]],
            vec![m[1] + m[2], m[1] + m[2], m[2], 0.0],
        ],
        policy,
        run,
        path_points: DEFAULT_PATH_POINTS,
    }
}

/// The N-network, the parallel-server system of Harrison (1998): two buffers,
/// two stations; station 0 serves buffer 0 only, station 1 serves both.
/// Activities: 0 = buffer 0 at station 0, rate μ₀ = 1; 1 = buffer 0 at
/// station 1, rate μ₁ = 1; 2 = buffer 1 at station 1, rate μ₂ = 2 (these
/// rates are this crate's choice). Arrivals λ = ρ · (3/2, 1).
///
/// Static planning problem (Harrison 2000): minimise ρ subject to
/// μ₀x₀ + μ₁x₁ = λ₀, μ₂x₂ = λ₁, x₀ ≤ ρ, x₁ + x₂ ≤ ρ, x ≥ 0. Its optimum is
/// ρ, with x = ρ · (1, 1/2, 1/2): every activity is used, so the dual
/// solution is unique and the two stations form one pooled resource
/// (complete resource pooling, the condition of Dai and Lin 2008), for
/// every ρ up to 1. The dual — y_j per buffer, c_s per station, with
/// μ_a y_{buffer(a)} = c_{station(a)} on the activities used and c₀ + c₁ = 1 —
/// gives y₀(μ₀ + μ₁) = 1 and y₁μ₂ = μ₁y₀: y = (1/2, 1/4), the pooled
/// resource's expected work per job of each buffer, which `workload` holds;
/// the pooled workload is W = Z₀/2 + Z₁/4 and ρ = y·λ.
///
/// Single-server reference: one server of unit speed doing the same work,
/// jobs of buffer j bringing exponential work of mean y_j, is an M/G/1 queue
/// whose mean workload is E\[W\] = Σ_j λ_j y_j² / (1 − ρ) = (7/16) ρ/(1 − ρ).
/// Counting each job at its mean work makes W's arrival and service
/// variances each Σ_j λ_j y_j² in heavy traffic, the same Brownian limit, so
/// (1 − ρ)E\[W\] → 7/16 is the value a policy that asymptotically minimises
/// the workload, such as max-pressure (Dai and Lin 2008), should approach as
/// ρ → 1 (assuming the limits interchange).
pub fn n_network(load: f64, policy: SpnPolicy, run: TimeRun) -> SpnConfig {
    let act = |station, buffer, rate| Activity {
        station,
        buffer,
        rate,
        routing: Vec::new(),
    };
    SpnConfig {
        arrivals: vec![1.5 * load, load],
        stations: 2,
        activities: vec![act(0, 0, 1.0), act(1, 0, 1.0), act(1, 1, 2.0)],
        workload: vec![vec![0.5, 0.25]],
        policy,
        run,
        path_points: DEFAULT_PATH_POINTS,
    }
}

/// The N-network's single-server reference workload at load ρ,
/// Σ_j λ_j y_j² / (1 − ρ) = (7/16) ρ/(1 − ρ) (see [`n_network`]).
pub fn n_network_reference_workload(load: f64) -> f64 {
    7.0 / 16.0 * load / (1.0 - load)
}
