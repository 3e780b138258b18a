//! Random streams and common random numbers (docs/MODEL.md §4).
//!
//! A run draws from three independent sources:
//! - **arrivals**: a stream from the *system* seed, one draw per dispatcher
//!   per slot, in dispatcher order;
//! - **service**: S_n(t) is a pure function of (service key, n, t), the key
//!   itself drawn from the system seed. Random access lets a slot skip idle
//!   servers while every policy still sees the same S_n(t);
//! - **policy**: a stream from the *policy* seed (derived by the runner from
//!   the point's key) for every decision and update the policy makes.
//!
//! A stream is xoshiro256++ (Blackman and Vigna 2021), whose 256-bit state is
//! the first 32 bytes of ChaCha8 keyed by the seed, on a stream id given by
//! the replication: ChaCha makes the states of different replications
//! independent; xoshiro draws each word in about a nanosecond, without
//! ChaCha's block refills (which cost 12% of a small system's slot).
//!
//! Because arrivals and service depend only on the system seed and the
//! replication, two policies at the same point see identical sample paths of
//! A_m(t) and S_n(t): comparisons are paired.

use rand::Rng;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The generator of the arrival and policy streams.
pub type StreamRng = Xoshiro256PlusPlus;

/// The stream `id` of `seed`: xoshiro256++ from ChaCha8(seed, id)'s first 32 bytes.
fn stream(seed: [u8; 32], id: u64) -> StreamRng {
    let mut chacha = ChaCha8Rng::from_seed(seed);
    chacha.set_stream(id);
    let mut state = [0u8; 32];
    chacha.fill_bytes(&mut state);
    StreamRng::from_seed(state)
}
use serde::{Deserialize, Serialize};

/// The two 256-bit seeds of a run, before the replication index is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seeds {
    /// Seeds arrivals and service: derived from the system part of a point.
    pub system: [u8; 32],
    /// Seeds the policy's own decisions: derived from the whole point's key.
    pub policy: [u8; 32],
}

impl Seeds {
    /// Seeds from two u64s, for tests and examples.
    pub fn from_u64(system: u64, policy: u64) -> Seeds {
        let expand = |x: u64| {
            let mut s = [0u8; 32];
            for (i, c) in s.chunks_mut(8).enumerate() {
                c.copy_from_slice(&mix64(x ^ (i as u64).wrapping_mul(0x9E37_79B9)).to_le_bytes());
            }
            s
        };
        Seeds {
            system: expand(system),
            policy: expand(policy.wrapping_add(0x5EED)),
        }
    }
}

/// The live streams of replication `r`.
pub struct Streams {
    /// A_m(t), in dispatcher order.
    pub arrivals: StreamRng,
    /// S_n(t), random access.
    pub service: ServiceWords,
    /// The policy's decisions and updates.
    pub policy: StreamRng,
}

impl Streams {
    /// Streams of replication `r` (ChaCha stream ids 2r, 2r+1 of the system seed
    /// for arrivals and the service key; stream r of the policy seed).
    pub fn new(seeds: &Seeds, r: u64, servers: usize) -> Streams {
        let arrivals = stream(seeds.system, 2 * r);
        let mut key_src = ChaCha8Rng::from_seed(seeds.system);
        key_src.set_stream(2 * r + 1);
        let key = key_src.next_u64();
        let service = ServiceWords {
            starts: (0..servers as u64)
                .map(|n| mix64(key ^ n.wrapping_mul(0xD1B5_4A32_D192_ED03)))
                .collect(),
        };
        let policy = stream(seeds.policy, r);
        Streams {
            arrivals,
            service,
            policy,
        }
    }
}

/// A stream of the *system* seed for what a replication draws once, before
/// any event (e.g. a random graph): the same for every policy at a point, and
/// apart from the event streams.
pub fn setup_stream(seeds: &Seeds, r: u64) -> StreamRng {
    stream(seeds.system, (1 << 63) | r)
}

/// Counter-based random words for service: word(n, t) depends only on the key,
/// the server and the slot.
#[derive(Clone, Debug)]
pub struct ServiceWords {
    starts: Vec<u64>,
}

impl ServiceWords {
    /// The random word behind S_n(t).
    #[inline]
    pub fn word(&self, n: usize, t: u64) -> u64 {
        Self::word_from(self.starts[n], t)
    }

    /// Each server's start c_n, in server order.
    #[inline]
    pub fn starts(&self) -> &[u64] {
        &self.starts
    }

    /// The word of slot `t` from a server's start c_n.
    #[inline]
    pub fn word_from(start: u64, t: u64) -> u64 {
        // Server n reads wyrand (Wang Yi's counter-based generator: a Weyl
        // sequence through one 64×64→128-bit multiply, folded) from its own
        // start c_n = mix64(key ⊕ n): S_n(t) is the t-th output. The streams
        // of two servers are the same sequence at offsets ~2⁶⁴ apart.
        let x = start.wrapping_add(t.wrapping_mul(0xA076_1D64_78BD_642F));
        let m = x as u128 * (x ^ 0xE703_7ED1_A0B4_28DB) as u128;
        (m as u64) ^ ((m >> 64) as u64)
    }
}

/// A uniform draw in 0..n (n ≥ 1): Lemire's multiply-and-reject on 64-bit
/// words ("Fast random integer generation in an interval", 2019), exact, and
/// one word per draw except with probability < n / 2⁶⁴.
#[inline(always)]
pub fn below<R: Rng + ?Sized>(rng: &mut R, n: usize) -> usize {
    let n = n as u64;
    debug_assert!(n >= 1);
    let mut m = rng.next_u64() as u128 * n as u128;
    if (m as u64) < n {
        let t = n.wrapping_neg() % n;
        while (m as u64) < t {
            m = rng.next_u64() as u128 * n as u128;
        }
    }
    (m >> 64) as usize
}

/// A Bernoulli draw from the word `u` with threshold t = ⌊p·2⁶³⌋ (the slotted model's
/// `Sampler::Bernoulli`): 1 when the word's top 63 bits fall below t.
#[inline]
pub fn bernoulli(t: u64, u: u64) -> u64 {
    ((u >> 1) < t) as u64
}

/// The SplitMix64 finaliser: a bijective 64-bit mixer.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
