//! Keys and seeds (docs/MODEL.md §4).
//!
//! - A point's **key** is the SHA-256 of its canonical JSON ([`crate::canonical`]);
//!   the JSON includes `model_version`, so a new engine version gives new keys.
//! - The **system seed** (arrivals and service) is the SHA-256 of the canonical
//!   JSON of the point's system part ([`Point::system_part`]), so policies at a
//!   point share A_m(t) and S_n(t).
//! - The **policy seed** (the policy's own decisions) is the SHA-256 of the key's
//!   32 bytes.
//!
//! lb-core turns these two seeds and the replication index r into ChaCha8
//! streams (`lb_core::streams`).

use crate::canonical::{CanonicalError, canonical};
use crate::point::Point;
use lb_core::Seeds;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::fmt;

/// A 256-bit key, shown as 64 lower-case hex digits.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key(pub [u8; 32]);

impl Key {
    /// The key of any serialisable description: SHA-256 of its canonical JSON.
    pub fn of<T: Serialize + ?Sized>(value: &T) -> Result<Key, CanonicalError> {
        Ok(Key(sha256(canonical(value)?.as_bytes())))
    }

    /// The key as 64 lower-case hex digits.
    pub fn hex(&self) -> String {
        hex(&self.0)
    }

    /// Parses 64 hex digits.
    pub fn parse(s: &str) -> Option<Key> {
        if s.len() != 64 {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, o) in out.iter_mut().enumerate() {
            *o = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        // Only the canonical lower-case spelling names a key.
        (hex(&out) == s).then_some(Key(out))
    }

    /// The first 12 hex digits, for tables.
    pub fn short(&self) -> String {
        self.hex()[..12].to_string()
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex())
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({})", self.hex())
    }
}

/// SHA-256 of some bytes.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(2 * bytes.len());
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

impl Point {
    /// The point's key.
    pub fn key(&self) -> Key {
        Key::of(self).expect("a resolved point holds finite numbers only")
    }

    /// The seeds of the point's runs: system seed from the system part, policy
    /// seed from the key.
    pub fn seeds(&self) -> Seeds {
        self.seeds_with_policy_key(&self.key())
    }

    /// The system seed of this point with the policy seed taken from another key
    /// (message-budget calibration runs every pilot p̂ on the calibration's own
    /// policy stream, so that the bisection compares like with like).
    pub(crate) fn seeds_with_policy_key(&self, policy_key: &Key) -> Seeds {
        let system = Key::of(&self.system_part()).expect("finite numbers only");
        Seeds {
            system: system.0,
            policy: sha256(&policy_key.0),
        }
    }
}
