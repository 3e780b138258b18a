//! Canonical JSON in the style of RFC 8785 (JCS), the byte string a point's key
//! and a record's checksum are computed from (docs/MODEL.md §4).
//!
//! - object members sorted by their keys' UTF-16 code units, no duplicates;
//! - no insignificant whitespace;
//! - strings escaped minimally: `"` `\` and control characters only (the short
//!   forms `\b \t \n \f \r`, else `\u00xx` in lower-case hex); everything else,
//!   non-ASCII included, as UTF-8;
//! - one number format, ECMAScript's `Number.prototype.toString`: integral values
//!   below 10²¹ in magnitude without a fraction or exponent (`1.0` → `1`), other
//!   values as the shortest decimal that round-trips (`0.1`, `1e-7`, `1e+21`).
//!   `-0` is written `0`. Integers of the JSON model that do not fit an f64
//!   exactly (u64 above 2⁵³) are written in full rather than rounded: lb's
//!   integers are counts and seeds, and rounding them would merge distinct keys.
//!
//! Non-finite numbers cannot be represented; [`canonical`] refuses them.

use serde::Serialize;
use serde_json::{Number, Value};
use std::fmt::Write;

/// Why a value has no canonical form.
#[derive(Debug, Clone, PartialEq)]
pub struct CanonicalError(pub String);

impl std::fmt::Display for CanonicalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for CanonicalError {}

/// The canonical JSON of any serialisable value.
///
/// serde_json turns NaN and ±∞ into `null`; this function rejects them instead,
/// so that what is hashed always reads back as what was written.
pub fn canonical<T: Serialize + ?Sized>(value: &T) -> Result<String, CanonicalError> {
    let mut nonfinite = NonFiniteProbe(false);
    value
        .serialize(&mut nonfinite)
        .map_err(|e| CanonicalError(format!("cannot serialise: {e}")))?;
    if nonfinite.0 {
        return Err(CanonicalError(
            "a number is NaN or infinite, which JSON cannot hold".into(),
        ));
    }
    let v = serde_json::to_value(value).map_err(|e| CanonicalError(e.to_string()))?;
    Ok(canonical_value(&v))
}

/// The canonical JSON of a parsed JSON value.
pub fn canonical_value(v: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, v);
    out
}

fn write_value(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(a) => write_list(out, ('[', ']'), a, write_value),
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            write_list(out, ('{', '}'), &keys, |out, k| {
                write_string(out, k);
                out.push(':');
                write_value(out, &m[*k]);
            });
        }
    }
}

/// `items` between `brackets`, separated by commas, each written by `item`.
fn write_list<T>(
    out: &mut String,
    brackets: (char, char),
    items: &[T],
    item: impl Fn(&mut String, &T),
) {
    out.push(brackets.0);
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        item(out, x);
    }
    out.push(brackets.1);
}

fn write_number(out: &mut String, n: &Number) {
    if let Some(u) = n.as_u64() {
        write!(out, "{u}").unwrap();
    } else if let Some(i) = n.as_i64() {
        write!(out, "{i}").unwrap();
    } else {
        let x = n.as_f64().expect("a JSON number is u64, i64 or f64");
        out.push_str(&number_to_string(x));
    }
}

/// ECMAScript `Number.prototype.toString` for a finite f64 (RFC 8785 §3.2.2.3).
pub fn number_to_string(x: f64) -> String {
    assert!(x.is_finite(), "canonical JSON has no form for {x}");
    if x == 0.0 {
        return "0".into();
    }
    // Between 10⁻⁶ and 10²¹ ECMAScript prints the shortest round-trip
    // digits without an exponent (the cases −6 < n ≤ 21 below), which is
    // what Rust's `Display` for f64 prints: one formatting, no exponent to
    // take apart.
    if (1e-6..1e21).contains(&x.abs()) {
        return x.to_string();
    }
    by_steps(x)
}

/// ECMAScript's Number::toString by the standard's steps (k digits,
/// exponent n), for any finite, non-zero f64.
fn by_steps(x: f64) -> String {
    let sign = if x < 0.0 { "-" } else { "" };
    // Rust's `{:e}` prints the shortest round-trip digits: d[.ddd]e<exp>.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` has an exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i32;
    let n = exp.parse::<i32>().expect("integer exponent") + 1;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let es = if e >= 0 {
            format!("+{e}")
        } else {
            e.to_string()
        };
        if k == 1 {
            format!("{digits}e{es}")
        } else {
            format!("{}.{}e{es}", &digits[..1], &digits[1..])
        }
    };
    format!("{sign}{body}")
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{0C}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => write!(out, "\\u{:04x}", c as u32).unwrap(),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A serializer that only looks for non-finite floats.
struct NonFiniteProbe(bool);

mod probe {
    //! The plumbing of [`super::NonFiniteProbe`]: a serde `Serializer` that visits
    //! every value and notes NaN and ±∞.
    use super::NonFiniteProbe;
    use serde::ser::{self, Serialize};

    #[derive(Debug)]
    pub struct Never(String);
    impl std::fmt::Display for Never {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(&self.0)
        }
    }
    impl std::error::Error for Never {}
    impl ser::Error for Never {
        fn custom<T: std::fmt::Display>(msg: T) -> Self {
            Never(msg.to_string())
        }
    }

    type R = Result<(), Never>;

    macro_rules! ignore {
        ($($f:ident: $t:ty),*) => {$(fn $f(self, _v: $t) -> R { Ok(()) })*};
    }

    impl ser::Serializer for &mut NonFiniteProbe {
        type Ok = ();
        type Error = Never;
        type SerializeSeq = Self;
        type SerializeTuple = Self;
        type SerializeTupleStruct = Self;
        type SerializeTupleVariant = Self;
        type SerializeMap = Self;
        type SerializeStruct = Self;
        type SerializeStructVariant = Self;
        ignore!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
            serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
            serialize_u64: u64, serialize_char: char, serialize_str: &str, serialize_bytes: &[u8]);
        fn serialize_f32(self, v: f32) -> R {
            self.0 |= !v.is_finite();
            Ok(())
        }
        fn serialize_f64(self, v: f64) -> R {
            self.0 |= !v.is_finite();
            Ok(())
        }
        fn serialize_none(self) -> R {
            Ok(())
        }
        fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> R {
            v.serialize(self)
        }
        fn serialize_unit(self) -> R {
            Ok(())
        }
        fn serialize_unit_struct(self, _: &'static str) -> R {
            Ok(())
        }
        fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> R {
            Ok(())
        }
        fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, v: &T) -> R {
            v.serialize(self)
        }
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            v: &T,
        ) -> R {
            v.serialize(self)
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self, Never> {
            Ok(self)
        }
        fn serialize_tuple(self, _: usize) -> Result<Self, Never> {
            Ok(self)
        }
        fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, Never> {
            Ok(self)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self, Never> {
            Ok(self)
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self, Never> {
            Ok(self)
        }
        fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Never> {
            Ok(self)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self, Never> {
            Ok(self)
        }
    }

    macro_rules! compound {
        ($tr:ident, $($m:ident),*) => {
            impl ser::$tr for &mut NonFiniteProbe {
                type Ok = ();
                type Error = Never;
                $(fn $m<T: ?Sized + Serialize>(&mut self, v: &T) -> R { v.serialize(&mut **self) })*
                fn end(self) -> R { Ok(()) }
            }
        };
        ($tr:ident, field $m:ident) => {
            impl ser::$tr for &mut NonFiniteProbe {
                type Ok = ();
                type Error = Never;
                fn $m<T: ?Sized + Serialize>(&mut self, _: &'static str, v: &T) -> R { v.serialize(&mut **self) }
                fn end(self) -> R { Ok(()) }
            }
        };
    }
    compound!(SerializeSeq, serialize_element);
    compound!(SerializeTuple, serialize_element);
    compound!(SerializeTupleStruct, serialize_field);
    compound!(SerializeTupleVariant, serialize_field);
    compound!(SerializeMap, serialize_key, serialize_value);

    compound!(SerializeStruct, field serialize_field);
    compound!(SerializeStructVariant, field serialize_field);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_follow_ecmascript() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1"),
            (-1.0, "-1"),
            (0.0, "0"),
            (-0.0, "0"),
            (0.1, "0.1"),
            (0.9, "0.9"),
            (1.5, "1.5"),
            (100.0, "100"),
            (123.456, "123.456"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.25e-7, "1.25e-7"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5e300, "1.5e+300"),
            (5e-324, "5e-324"),
            (0.30000000000000004, "0.30000000000000004"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (333333333.3333333, "333333333.3333333"),
            (-123456789.0, "-123456789"),
            (-1e-6, "-0.000001"),
        ];
        for &(x, s) in cases {
            assert_eq!(number_to_string(x), s, "{x:?}");
            // and the text reads back as the same f64
            assert_eq!(s.parse::<f64>().unwrap().to_bits(), (x + 0.0).to_bits());
        }
    }

    /// Between 10⁻⁶ and 10²¹ `number_to_string` prints with one formatting;
    /// the standard's steps ([`by_steps`]) must give the same text.
    #[test]
    fn the_positional_form_is_ecmascripts() {
        // The edges of the positional form, their neighbours, and a sweep
        // of doubles by their bits (a fixed linear congruential walk).
        let mut xs: Vec<f64> = [1e-6, 1e21, 0.1, 1.0, 2.5, 1e15, 1e16, 9007199254740993.0]
            .iter()
            .flat_map(|&x: &f64| {
                let b = x.to_bits();
                [f64::from_bits(b - 1), x, f64::from_bits(b + 1)]
            })
            .collect();
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            // Exponents about 10⁻⁹ … 10²⁴, any mantissa.
            let exp = 993 + (state >> 32) % 110;
            let bits = (exp << 52) | (state & ((1 << 52) - 1));
            xs.push(f64::from_bits(bits));
        }
        for x in xs.into_iter().flat_map(|x| [x, -x]) {
            assert_eq!(number_to_string(x), by_steps(x), "{x:e}");
        }
    }

    #[test]
    fn exact_bytes_are_pinned() {
        let v = json!({
            "z": [1, 2.0, 0.5, -3, 1e-9, true, null],
            "a": {"y": "tab\there \"q\" \\ é \u{1}", "b": 18446744073709551615u64},
            "\u{fb33}": 1,
            "\u{10000}": 2,
        });
        // U+10000 is the surrogate pair D800 DC00, which sorts before U+FB33 in
        // UTF-16 although it sorts after it in UTF-8 and in code points.
        assert_eq!(
            canonical_value(&v),
            "{\"a\":{\"b\":18446744073709551615,\"y\":\"tab\\there \\\"q\\\" \\\\ é \\u0001\"},\
             \"z\":[1,2,0.5,-3,1e-9,true,null],\"\u{10000}\":2,\"\u{fb33}\":1}"
        );
    }

    #[test]
    fn non_finite_numbers_are_refused() {
        assert!(canonical(&vec![1.0, f64::NAN]).is_err());
        assert!(canonical(&Some(f64::INFINITY)).is_err());
        assert_eq!(canonical(&vec![1.0, 2.5]).unwrap(), "[1,2.5]");
    }
}
