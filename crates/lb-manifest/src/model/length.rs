//! Run lengths that follow the sweep: a number, or `{ scale = c, of =
//! "epsilon_frac", power = -2, min, max }`, the length c·x^power at each
//! point's value x of a numeric sweep axis, clamped to [min, max]. Slots
//! (`[run] slots`, `warmup` of the slotted model, [`Length`]) are rounded up;
//! time (`[run] horizon`, `warmup` of the continuous-time models,
//! [`TimeLength`]) is not. A heavy-traffic sweep needs it: the relaxation time
//! of a queue at distance ε from capacity grows like 1/ε² (Kingman's
//! heavy-traffic scaling), so one length for every ε either wastes the large
//! ε or starves the small.

use super::sweep::Sweep;
use crate::diag::ManifestError;
use crate::diag::SpanIndex;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use std::fmt;

/// A run length in slots.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Length {
    /// A number.
    Fixed(u64),
    /// A number that follows a sweep axis.
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
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scaled {
    /// The factor c.
    pub scale: f64,
    /// The sweep axis x.
    pub of: String,
    /// The power the axis's value is raised to.
    pub power: f64,
    /// Read 1 − x instead of x (a load ρ: the distance 1 − ρ from capacity).
    #[serde(default)]
    pub complement: bool,
    /// The least value (after scaling).
    pub min: Option<f64>,
    /// The greatest value (after scaling).
    pub max: Option<f64>,
}

impl Scaled {
    /// c·x^power clamped to [min, max] (infinite where x^power is).
    pub fn value(&self, x: f64) -> f64 {
        let x = if self.complement { 1.0 - x } else { x };
        let v = self.scale * x.powf(self.power);
        let v = if v.is_nan() { f64::INFINITY } else { v };
        v.max(self.min.unwrap_or(0.0))
            .min(self.max.unwrap_or(f64::INFINITY))
    }

    /// What is wrong with it on its own (scale, power, bounds), as (key,
    /// message).
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.scale > 0.0 && self.scale.is_finite()) {
            return Err(("scale", format!("a number > 0, got {}", self.scale)));
        }
        if !self.power.is_finite() {
            return Err(("power", format!("a finite number, got {}", self.power)));
        }
        for (k, v) in [("min", self.min), ("max", self.max)] {
            if let Some(v) = v
                && !(v >= 0.0 && v.is_finite())
            {
                return Err((k, format!("a finite number ≥ 0, got {v}")));
            }
        }
        if let (Some(a), Some(b)) = (self.min, self.max)
            && a > b
        {
            return Err(("min", format!("min ({a}) exceeds max ({b})")));
        }
        Ok(())
    }
}

impl Length {
    /// The axis the length follows, if any.
    pub fn axis(&self) -> Option<&str> {
        self.scaled().map(|s| s.of.as_str())
    }

    /// The length where the axis has value `x` (ignored by a fixed length),
    /// rounded up. Saturates at u64::MAX: limits are checked on the result.
    pub fn at(&self, x: Option<f64>) -> u64 {
        match self {
            Length::Fixed(n) => *n,
            Length::Scaled(s) => {
                let v = s.value(x.expect("validated: a numeric axis")).ceil();
                if v.is_finite() && v < u64::MAX as f64 {
                    v as u64
                } else {
                    u64::MAX
                }
            }
        }
    }

    /// The scaled form, if the length follows an axis.
    pub fn scaled(&self) -> Option<&Scaled> {
        match self {
            Length::Fixed(_) => None,
            Length::Scaled(s) => Some(s),
        }
    }
}

/// A run length in the model's time units (continuous-time models).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TimeLength {
    /// A number.
    Fixed(f64),
    /// A number that follows a sweep axis.
    Scaled(Scaled),
}

/// A number, or a table read strictly as [`Scaled`].
impl<'de> Deserialize<'de> for TimeLength {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TimeLength, D::Error> {
        Ok(
            match number_or_scaled(
                d,
                "a time in the model's units, or a time that follows a sweep axis: \
                 { scale = c, of = \"load\", power = -2, min = …, max = … }",
            )? {
                Ok(t) => TimeLength::Fixed(t),
                Err(s) => TimeLength::Scaled(s),
            },
        )
    }
}

/// A real number (Ok), or a table read strictly as [`Scaled`] (Err, its own
/// errors naming the key): what a quantity that may follow a sweep axis is
/// written as; `expecting` says what it is, for the error of anything else.
pub(crate) fn number_or_scaled<'de, D: Deserializer<'de>>(
    d: D,
    expecting: &'static str,
) -> Result<Result<f64, Scaled>, D::Error> {
    struct V(&'static str);
    impl<'de> Visitor<'de> for V {
        type Value = Result<f64, Scaled>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(Ok(v))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Ok(v as f64))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Ok(v as f64))
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            Scaled::deserialize(de::value::MapAccessDeserializer::new(map)).map(Err)
        }
    }
    d.deserialize_any(V(expecting))
}

impl TimeLength {
    /// The axis the length follows, if any.
    pub fn axis(&self) -> Option<&str> {
        self.scaled().map(|s| s.of.as_str())
    }

    /// The scaled form, if the length follows an axis.
    pub fn scaled(&self) -> Option<&Scaled> {
        match self {
            TimeLength::Fixed(_) => None,
            TimeLength::Scaled(s) => Some(s),
        }
    }

    /// The length where the axis has value `x` (ignored by a fixed one).
    pub fn at(&self, x: Option<f64>) -> f64 {
        match self {
            TimeLength::Fixed(t) => *t,
            TimeLength::Scaled(s) => s.value(x.expect("validated: a numeric axis")),
        }
    }
}

/// A row of [`samples`]: (" at axis = x, …", x of the first length, x of the
/// second).
pub type Sample = (String, Option<f64>, Option<f64>);

/// Where a `[run]` section's two lengths (run length and warm-up, keys `keys`,
/// each a scaled form or fixed) must be checked: every combination of the
/// values of the sweep axes they follow — one row when neither follows one —
/// as (" at axis = x, …" for messages, x of the first, x of the second).
/// A scaled form that is wrong on its own, or that follows no numeric sweep
/// axis, is an error located at its key.
pub fn samples(
    l: &SpanIndex,
    m: &dyn Sweep,
    keys: [(&str, Option<&Scaled>); 2],
) -> Result<Vec<Sample>, ManifestError> {
    let numeric = |a: &str| {
        let v = m.axis_values(a);
        !v.is_empty() && v.iter().all(|v| v.parse::<f64>().is_ok())
    };
    let mut axes: Vec<&str> = Vec::new();
    for (k, s) in keys {
        let Some(s) = s else { continue };
        if let Err((f, e)) = s.check() {
            return Err(l.error(&format!("run.{k}.{f}"), e));
        }
        if !numeric(&s.of) {
            return Err(l.error(
                &format!("run.{k}.of"),
                format!(
                    "a run length follows a numeric sweep axis of this manifest ({}); `{}` is \
                     not one",
                    m.axes()
                        .into_iter()
                        .filter(|a| numeric(a))
                        .collect::<Vec<_>>()
                        .join(", "),
                    s.of
                ),
            ));
        }
        if !axes.contains(&s.of.as_str()) {
            axes.push(&s.of);
        }
    }
    let mut combos: Vec<Vec<(&str, f64)>> = vec![Vec::new()];
    for a in axes {
        let values: Vec<f64> = m
            .axis_values(a)
            .iter()
            .map(|v| v.parse().expect("checked"))
            .collect();
        combos = combos
            .into_iter()
            .flat_map(|c| {
                values.iter().map(move |x| {
                    let mut c = c.clone();
                    c.push((a, *x));
                    c
                })
            })
            .collect();
    }
    let x = |c: &[(&str, f64)], s: Option<&Scaled>| {
        s.and_then(|s| c.iter().find(|(a, _)| *a == s.of).map(|p| p.1))
    };
    Ok(combos
        .iter()
        .map(|c| {
            let at = c
                .iter()
                .map(|(a, x)| format!("{a} = {}", lb_model::canonical::number_to_string(*x)))
                .collect::<Vec<_>>()
                .join(", ");
            let at = if at.is_empty() {
                String::new()
            } else {
                format!(" at {at}")
            };
            (at, x(c, keys[0].1), x(c, keys[1].1))
        })
        .collect())
}

/// A number of slots, or a [`Scaled`] table.
impl schemars::JsonSchema for Length {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Length".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let scaled = g.subschema_for::<Scaled>();
        schemars::json_schema!({
            "description": "A number of slots, or a length that follows a sweep axis: \
                { scale = c, of = \"epsilon_frac\", power = -2, min = …, max = … }",
            "anyOf": [{ "type": "integer", "minimum": 0 }, scaled]
        })
    }
}

/// A time in the model's units, or a [`Scaled`] table.
impl schemars::JsonSchema for TimeLength {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "TimeLength".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let scaled = g.subschema_for::<Scaled>();
        schemars::json_schema!({
            "description": "A time in the model's units, or a time that follows a sweep axis: \
                { scale = c, of = \"load\", power = -2, min = …, max = … }",
            "anyOf": [{ "type": "number" }, scaled]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scaled(scale: f64, power: f64, min: Option<f64>, max: Option<f64>) -> Length {
        Length::Scaled(Scaled {
            scale,
            of: "epsilon_frac".into(),
            power,
            complement: false,
            min,
            max,
        })
    }

    #[test]
    fn a_scaled_length_follows_its_axis_rounded_up_and_clamped() {
        let l = scaled(8.0, -2.0, Some(2e6), None);
        // 8/0.001² = 8·10⁶; 8/0.002² = 2·10⁶; 8/0.01² = 80,000 → the minimum.
        assert_eq!(l.at(Some(0.001)), 8_000_000);
        assert_eq!(l.at(Some(0.002)), 2_000_000);
        assert_eq!(l.at(Some(0.01)), 2_000_000);
        assert_eq!(scaled(1.0, -1.0, None, None).at(Some(3.0)), 1);
        assert_eq!(scaled(10.0, 1.0, None, Some(25.0)).at(Some(3.0)), 25);
        assert_eq!(scaled(1.0, -2.0, None, None).at(Some(0.0)), u64::MAX);
        assert_eq!(Length::Fixed(7).at(None), 7);
    }

    #[test]
    fn a_length_reads_as_a_number_or_a_table() {
        #[derive(Deserialize, schemars::JsonSchema)]
        struct T {
            slots: Length,
        }
        let t: T = toml::from_str("slots = 5").unwrap();
        assert_eq!(t.slots, Length::Fixed(5));
        let t: T =
            toml::from_str("slots = { scale = 8, of = \"epsilon_frac\", power = -2, min = 10 }")
                .unwrap();
        assert_eq!(t.slots, scaled(8.0, -2.0, Some(10.0), None));
        assert!(
            scaled(0.0, -2.0, None, None)
                .scaled()
                .unwrap()
                .check()
                .is_err()
        );
        assert!(
            scaled(1.0, -2.0, Some(5.0), Some(4.0))
                .scaled()
                .unwrap()
                .check()
                .is_err()
        );
        #[derive(Deserialize, schemars::JsonSchema)]
        struct H {
            horizon: TimeLength,
        }
        let h: H = toml::from_str("horizon = 500").unwrap();
        assert_eq!(h.horizon.at(None), 500.0);
        let h: H = toml::from_str(
            "horizon = { scale = 5, of = \"load\", power = -2, complement = true, max = 1e4 }",
        )
        .unwrap();
        // 5/(1 − 0.9)² = 500; 5/(1 − 0.99)² = 50,000 → the maximum.
        assert!((h.horizon.at(Some(0.9)) - 500.0).abs() < 1e-6);
        assert_eq!(h.horizon.at(Some(0.99)), 1e4);
    }
}
