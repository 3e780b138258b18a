//! Run lengths that follow the sweep (`[run] slots` and `warmup`): a number,
//! or `{ scale = c, of = "epsilon_frac", power = -2, min, max }`, the length
//! c·x^power at each point's value x of a numeric sweep axis, rounded up and
//! clamped to [min, max]. A heavy-traffic sweep needs it: the relaxation time
//! of a queue at distance ε from capacity grows like 1/ε² (Kingman's
//! heavy-traffic scaling), so one length for every ε either wastes the large
//! ε or starves the small.

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use std::fmt;

/// A run length in slots.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Length {
    Fixed(u64),
    Scaled(Scaled),
}

/// A number, or a table read strictly as [`Scaled`] (its own errors name
/// the key: an untagged enum would only say that nothing matched).
impl<'de> Deserialize<'de> for Length {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Length, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Length;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a number of slots, or a length that follows a sweep axis: \
                     { scale = c, of = \"epsilon_frac\", power = -2, min = …, max = … }",
                )
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Length, E> {
                Ok(Length::Fixed(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Length, E> {
                u64::try_from(v)
                    .map(Length::Fixed)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Length, A::Error> {
                Scaled::deserialize(de::value::MapAccessDeserializer::new(map)).map(Length::Scaled)
            }
        }
        d.deserialize_any(V)
    }
}

/// c·x^power, x a numeric sweep axis, rounded up and clamped.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scaled {
    pub scale: f64,
    /// The sweep axis x.
    pub of: String,
    pub power: f64,
    #[serde(default)]
    pub min: Option<u64>,
    #[serde(default)]
    pub max: Option<u64>,
}

impl Length {
    /// The axis the length follows, if any.
    pub fn axis(&self) -> Option<&str> {
        match self {
            Length::Fixed(_) => None,
            Length::Scaled(s) => Some(&s.of),
        }
    }

    /// The length where the axis has value `x` (ignored by a fixed length).
    /// Saturates at u64::MAX: limits are checked on the result.
    pub fn at(&self, x: Option<f64>) -> u64 {
        match self {
            Length::Fixed(n) => *n,
            Length::Scaled(s) => {
                let v = s.scale * x.expect("validated: a numeric axis").powf(s.power);
                let v = if v.is_finite() {
                    v.ceil().max(0.0).min(u64::MAX as f64) as u64
                } else {
                    u64::MAX
                };
                v.max(s.min.unwrap_or(0)).min(s.max.unwrap_or(u64::MAX))
            }
        }
    }

    /// The length as the manifest writes it, for messages.
    pub fn show(&self) -> String {
        match self {
            Length::Fixed(n) => n.to_string(),
            Length::Scaled(s) => {
                let mut t = format!(
                    "{}·{}^{}",
                    crate::canonical::number_to_string(s.scale),
                    s.of,
                    crate::canonical::number_to_string(s.power)
                );
                if let Some(m) = s.min {
                    t += &format!(", at least {m}");
                }
                if let Some(m) = s.max {
                    t += &format!(", at most {m}");
                }
                t
            }
        }
    }

    /// What is wrong with a scaled length on its own (scale, power, bounds),
    /// as (key, message).
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        let Length::Scaled(s) = self else {
            return Ok(());
        };
        if !(s.scale > 0.0 && s.scale.is_finite()) {
            return Err(("scale", format!("a number > 0, got {}", s.scale)));
        }
        if !s.power.is_finite() {
            return Err(("power", format!("a finite number, got {}", s.power)));
        }
        if let (Some(a), Some(b)) = (s.min, s.max)
            && a > b
        {
            return Err(("min", format!("min ({a}) exceeds max ({b})")));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scaled(scale: f64, power: f64, min: Option<u64>, max: Option<u64>) -> Length {
        Length::Scaled(Scaled {
            scale,
            of: "epsilon_frac".into(),
            power,
            min,
            max,
        })
    }

    #[test]
    fn a_scaled_length_follows_its_axis_rounded_up_and_clamped() {
        let l = scaled(8.0, -2.0, Some(2_000_000), None);
        // 8/0.001² = 8·10⁶; 8/0.002² = 2·10⁶; 8/0.01² = 80,000 → the minimum.
        assert_eq!(l.at(Some(0.001)), 8_000_000);
        assert_eq!(l.at(Some(0.002)), 2_000_000);
        assert_eq!(l.at(Some(0.01)), 2_000_000);
        assert_eq!(scaled(1.0, -1.0, None, None).at(Some(3.0)), 1);
        assert_eq!(scaled(10.0, 1.0, None, Some(25)).at(Some(3.0)), 25);
        assert_eq!(scaled(1.0, -2.0, None, None).at(Some(0.0)), u64::MAX);
        assert_eq!(Length::Fixed(7).at(None), 7);
    }

    #[test]
    fn a_length_reads_as_a_number_or_a_table() {
        #[derive(Deserialize)]
        struct T {
            slots: Length,
        }
        let t: T = toml::from_str("slots = 5").unwrap();
        assert_eq!(t.slots, Length::Fixed(5));
        let t: T =
            toml::from_str("slots = { scale = 8, of = \"epsilon_frac\", power = -2, min = 10 }")
                .unwrap();
        assert_eq!(t.slots, scaled(8.0, -2.0, Some(10), None));
        assert!(scaled(0.0, -2.0, None, None).check().is_err());
        assert!(scaled(1.0, -2.0, Some(5), Some(4)).check().is_err());
    }
}
