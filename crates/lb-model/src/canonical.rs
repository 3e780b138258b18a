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

/// The canonical JSON of any serialisable value, written as it is serialised
/// (no intermediate JSON tree): the bytes [`canonical_value`] gives for the
/// value serde_json would build from it.
///
/// serde_json turns NaN and ±∞ into `null`; this function rejects them instead,
/// so that what is hashed always reads back as what was written.
pub fn canonical<T: Serialize + ?Sized>(value: &T) -> Result<String, CanonicalError> {
    let mut out = String::new();
    value.serialize(direct::Writer(&mut out))?;
    Ok(out)
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
            keys.sort_by(|a, b| key_order(a, b));
            write_list(out, ('{', '}'), &keys, |out, k| {
                write_string(out, k);
                out.push(':');
                write_value(out, &m[*k]);
            });
        }
    }
}

/// RFC 8785's order of keys: by UTF-16 code units (for ASCII keys, by bytes,
/// which order them the same).
fn key_order(a: &str, b: &str) -> std::cmp::Ordering {
    if a.is_ascii() && b.is_ascii() {
        a.cmp(b)
    } else {
        a.encode_utf16().cmp(b.encode_utf16())
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
        write_f64(out, x);
    }
}

/// ECMAScript `Number.prototype.toString` for a finite f64 (RFC 8785 §3.2.2.3).
pub fn number_to_string(x: f64) -> String {
    let mut out = String::new();
    write_f64(&mut out, x);
    out
}

/// [`number_to_string`] written at the end of `out`.
fn write_f64(out: &mut String, x: f64) {
    assert!(x.is_finite(), "canonical JSON has no form for {x}");
    if x == 0.0 {
        out.push('0');
    } else if (1e-6..1e21).contains(&x.abs()) {
        // Between 10⁻⁶ and 10²¹ ECMAScript prints the shortest round-trip
        // digits without an exponent (the cases −6 < n ≤ 21 below), which is
        // what Rust's `Display` for f64 prints: one formatting, no exponent to
        // take apart.
        write!(out, "{x}").expect("writing to a String");
    } else {
        out.push_str(&by_steps(x));
    }
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

mod direct {
    //! The serde `Serializer` behind [`super::canonical`]: it writes canonical
    //! JSON straight into a string. Sequences are written in place; an
    //! object's members are written each into its own string and sorted by
    //! key when the object ends. Enums, options and newtypes take the shapes
    //! serde_json gives them (`"Unit"`, `{"Variant": …}`, `null`, the inner
    //! value), so the bytes are those of the value serde_json would build.
    use super::{CanonicalError, key_order, write_f64, write_string};
    use serde::ser::{self, Serialize};
    use std::borrow::Cow;
    use std::cmp::Ordering;
    use std::ops::Range;

    impl ser::Error for CanonicalError {
        fn custom<T: std::fmt::Display>(msg: T) -> Self {
            CanonicalError(format!("cannot serialise: {msg}"))
        }
    }

    type R = Result<(), CanonicalError>;

    fn non_finite() -> CanonicalError {
        CanonicalError("a number is NaN or infinite, which JSON cannot hold".into())
    }

    fn float(out: &mut String, x: f64) -> R {
        if !x.is_finite() {
            return Err(non_finite());
        }
        write_f64(out, x);
        Ok(())
    }

    /// Writes one value at the end of its string.
    pub(super) struct Writer<'a>(pub(super) &'a mut String);

    /// An array being written: whether an element has been written yet.
    pub(super) struct Seq<'a> {
        out: &'a mut String,
        first: bool,
        /// For a tuple variant: the `}` of `{"Variant":[…]}` still to close.
        close_variant: bool,
    }

    /// An object being written: each member goes straight after the last,
    /// its key and place noted; if the keys did not come in canonical order
    /// (serde gives a struct's fields in declaration order) the members are
    /// sorted when the object ends. For a struct variant, its variant's name.
    pub(super) struct Obj<'a> {
        out: &'a mut String,
        /// Where the first member starts.
        start: usize,
        /// Each member's key and the range of its text (`"key":value`).
        members: Vec<(Cow<'static, str>, Range<usize>)>,
        key: Option<String>,
        variant: Option<&'static str>,
    }

    fn obj<'a>(out: &'a mut String, variant: Option<&'static str>, n: usize) -> Obj<'a> {
        if let Some(v) = variant {
            out.push('{');
            write_string(out, v);
            out.push(':');
        }
        out.push('{');
        Obj {
            start: out.len(),
            out,
            members: Vec::with_capacity(n),
            key: None,
            variant,
        }
    }

    impl Obj<'_> {
        fn member<T: ?Sized + Serialize>(&mut self, key: Cow<'static, str>, v: &T) -> R {
            if !self.members.is_empty() {
                self.out.push(',');
            }
            let from = self.out.len();
            write_string(self.out, &key);
            self.out.push(':');
            v.serialize(Writer(self.out))?;
            self.members.push((key, from..self.out.len()));
            Ok(())
        }

        fn finish(mut self) -> R {
            let sorted = self
                .members
                .windows(2)
                .all(|w| key_order(&w[0].0, &w[1].0) == Ordering::Less);
            if !sorted {
                self.members.sort_by(|a, b| key_order(&a.0, &b.0));
                if let Some(w) = self.members.windows(2).find(|w| w[0].0 == w[1].0) {
                    return Err(CanonicalError(format!(
                        "the key `{}` appears twice in one object",
                        w[0].0
                    )));
                }
                let written = self.out.split_off(self.start);
                for (i, (_, r)) in self.members.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    let r = (r.start - self.start)..(r.end - self.start);
                    self.out.push_str(&written[r]);
                }
            }
            self.out.push('}');
            if self.variant.is_some() {
                self.out.push('}');
            }
            Ok(())
        }
    }

    impl<'a> Seq<'a> {
        fn open(out: &'a mut String, variant: Option<&'static str>) -> Seq<'a> {
            if let Some(v) = variant {
                out.push('{');
                write_string(out, v);
                out.push(':');
            }
            out.push('[');
            Seq {
                out,
                first: true,
                close_variant: variant.is_some(),
            }
        }

        fn element<T: ?Sized + Serialize>(&mut self, v: &T) -> R {
            if !self.first {
                self.out.push(',');
            }
            self.first = false;
            v.serialize(Writer(self.out))
        }

        fn close(self) -> R {
            self.out.push(']');
            if self.close_variant {
                self.out.push('}');
            }
            Ok(())
        }
    }

    macro_rules! integers {
        ($($f:ident: $t:ty),*) => {$(
            fn $f(self, v: $t) -> R {
                use std::fmt::Write;
                write!(self.0, "{v}").expect("writing to a String");
                Ok(())
            }
        )*};
    }

    impl<'a> ser::Serializer for Writer<'a> {
        type Ok = ();
        type Error = CanonicalError;
        type SerializeSeq = Seq<'a>;
        type SerializeTuple = Seq<'a>;
        type SerializeTupleStruct = Seq<'a>;
        type SerializeTupleVariant = Seq<'a>;
        type SerializeMap = Obj<'a>;
        type SerializeStruct = Obj<'a>;
        type SerializeStructVariant = Obj<'a>;

        integers!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
            serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64);

        fn serialize_i128(self, v: i128) -> R {
            match i64::try_from(v) {
                Ok(v) => self.serialize_i64(v),
                Err(_) => u64::try_from(v)
                    .map_err(|_| CanonicalError(format!("{v} is beyond JSON's integers")))
                    .and_then(|v| self.serialize_u64(v)),
            }
        }
        fn serialize_u128(self, v: u128) -> R {
            u64::try_from(v)
                .map_err(|_| CanonicalError(format!("{v} is beyond JSON's integers")))
                .and_then(|v| self.serialize_u64(v))
        }
        fn serialize_bool(self, v: bool) -> R {
            self.0.push_str(if v { "true" } else { "false" });
            Ok(())
        }
        fn serialize_f32(self, v: f32) -> R {
            float(self.0, f64::from(v))
        }
        fn serialize_f64(self, v: f64) -> R {
            float(self.0, v)
        }
        fn serialize_char(self, v: char) -> R {
            write_string(self.0, v.encode_utf8(&mut [0; 4]));
            Ok(())
        }
        fn serialize_str(self, v: &str) -> R {
            write_string(self.0, v);
            Ok(())
        }
        fn serialize_bytes(self, v: &[u8]) -> R {
            let mut s = Seq::open(self.0, None);
            for b in v {
                ser::SerializeSeq::serialize_element(&mut s, b)?;
            }
            s.close()
        }
        fn serialize_none(self) -> R {
            self.serialize_unit()
        }
        fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> R {
            v.serialize(self)
        }
        fn serialize_unit(self) -> R {
            self.0.push_str("null");
            Ok(())
        }
        fn serialize_unit_struct(self, _: &'static str) -> R {
            self.serialize_unit()
        }
        fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> R {
            self.serialize_str(variant)
        }
        fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, v: &T) -> R {
            v.serialize(self)
        }
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            variant: &'static str,
            v: &T,
        ) -> R {
            let mut o = obj(self.0, None, 1);
            o.member(Cow::Borrowed(variant), v)?;
            o.finish()
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Seq<'a>, CanonicalError> {
            Ok(Seq::open(self.0, None))
        }
        fn serialize_tuple(self, _: usize) -> Result<Seq<'a>, CanonicalError> {
            Ok(Seq::open(self.0, None))
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Seq<'a>, CanonicalError> {
            Ok(Seq::open(self.0, None))
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            variant: &'static str,
            _: usize,
        ) -> Result<Seq<'a>, CanonicalError> {
            Ok(Seq::open(self.0, Some(variant)))
        }
        fn serialize_map(self, n: Option<usize>) -> Result<Obj<'a>, CanonicalError> {
            Ok(obj(self.0, None, n.unwrap_or(0)))
        }
        fn serialize_struct(self, _: &'static str, n: usize) -> Result<Obj<'a>, CanonicalError> {
            Ok(obj(self.0, None, n))
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            variant: &'static str,
            n: usize,
        ) -> Result<Obj<'a>, CanonicalError> {
            Ok(obj(self.0, Some(variant), n))
        }
    }

    macro_rules! seq {
        ($($tr:ident: $m:ident),*) => {$(
            impl ser::$tr for Seq<'_> {
                type Ok = ();
                type Error = CanonicalError;
                fn $m<T: ?Sized + Serialize>(&mut self, v: &T) -> R {
                    self.element(v)
                }
                fn end(self) -> R {
                    self.close()
                }
            }
        )*};
    }
    seq!(SerializeSeq: serialize_element, SerializeTuple: serialize_element,
        SerializeTupleStruct: serialize_field, SerializeTupleVariant: serialize_field);

    macro_rules! fields {
        ($($tr:ident),*) => {$(
            impl ser::$tr for Obj<'_> {
                type Ok = ();
                type Error = CanonicalError;
                fn serialize_field<T: ?Sized + Serialize>(&mut self, k: &'static str, v: &T) -> R {
                    self.member(Cow::Borrowed(k), v)
                }
                fn end(self) -> R {
                    self.finish()
                }
            }
        )*};
    }
    fields!(SerializeStruct, SerializeStructVariant);

    impl ser::SerializeMap for Obj<'_> {
        type Ok = ();
        type Error = CanonicalError;
        fn serialize_key<T: ?Sized + Serialize>(&mut self, k: &T) -> R {
            self.key = Some(k.serialize(KeyWriter)?);
            Ok(())
        }
        fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> R {
            let k = self
                .key
                .take()
                .ok_or_else(|| CanonicalError("a map value without its key".into()))?;
            self.member(Cow::Owned(k), v)
        }
        fn end(self) -> R {
            self.finish()
        }
    }

    /// A map key as serde_json writes it: a string, or an integer, boolean
    /// or character as its text.
    struct KeyWriter;

    fn not_a_key<T>() -> Result<T, CanonicalError> {
        Err(CanonicalError(
            "cannot serialise: key must be a string".into(),
        ))
    }

    macro_rules! key_as_text {
        ($($f:ident: $t:ty),*) => {$(
            fn $f(self, v: $t) -> Result<String, CanonicalError> { Ok(v.to_string()) }
        )*};
    }

    impl ser::Serializer for KeyWriter {
        type Ok = String;
        type Error = CanonicalError;
        type SerializeSeq = ser::Impossible<String, CanonicalError>;
        type SerializeTuple = ser::Impossible<String, CanonicalError>;
        type SerializeTupleStruct = ser::Impossible<String, CanonicalError>;
        type SerializeTupleVariant = ser::Impossible<String, CanonicalError>;
        type SerializeMap = ser::Impossible<String, CanonicalError>;
        type SerializeStruct = ser::Impossible<String, CanonicalError>;
        type SerializeStructVariant = ser::Impossible<String, CanonicalError>;

        key_as_text!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16,
            serialize_i32: i32, serialize_i64: i64, serialize_i128: i128, serialize_u8: u8,
            serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_u128: u128,
            serialize_char: char, serialize_str: &str);

        fn serialize_f32(self, _: f32) -> Result<String, CanonicalError> {
            not_a_key()
        }
        fn serialize_f64(self, _: f64) -> Result<String, CanonicalError> {
            not_a_key()
        }
        fn serialize_bytes(self, _: &[u8]) -> Result<String, CanonicalError> {
            not_a_key()
        }
        fn serialize_none(self) -> Result<String, CanonicalError> {
            not_a_key()
        }
        fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<String, CanonicalError> {
            not_a_key()
        }
        fn serialize_unit(self) -> Result<String, CanonicalError> {
            not_a_key()
        }
        fn serialize_unit_struct(self, _: &'static str) -> Result<String, CanonicalError> {
            not_a_key()
        }
        fn serialize_unit_variant(
            self,
            _: &'static str,
            _: u32,
            variant: &'static str,
        ) -> Result<String, CanonicalError> {
            Ok(variant.to_string())
        }
        fn serialize_newtype_struct<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            v: &T,
        ) -> Result<String, CanonicalError> {
            v.serialize(self)
        }
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<String, CanonicalError> {
            not_a_key()
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, CanonicalError> {
            not_a_key()
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, CanonicalError> {
            not_a_key()
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct, CanonicalError> {
            not_a_key()
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, CanonicalError> {
            not_a_key()
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, CanonicalError> {
            not_a_key()
        }
        fn serialize_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStruct, CanonicalError> {
            not_a_key()
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, CanonicalError> {
            not_a_key()
        }
    }
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

    /// Written directly, a value has the bytes of the JSON tree serde_json
    /// builds from it: every shape serde gives a Rust type.
    #[test]
    fn direct_writing_matches_the_tree() {
        use serde::Serialize;
        use std::collections::BTreeMap;
        #[derive(Serialize)]
        #[serde(rename_all = "snake_case")]
        enum E {
            Unit,
            New(f64),
            Tuple(u8, String),
            Struct { z: i64, a: Option<f32> },
        }
        #[derive(Serialize)]
        #[serde(tag = "kind")]
        enum Tagged {
            One { x: f64 },
            Two(Inner),
        }
        #[derive(Serialize)]
        struct Inner {
            b: bool,
            #[serde(skip_serializing_if = "Option::is_none")]
            c: Option<u32>,
        }
        #[derive(Serialize)]
        struct Outer {
            zeta: Vec<E>,
            alpha: Tagged,
            #[serde(flatten)]
            inner: Inner,
            ints: BTreeMap<u32, char>,
            unit: (),
            pair: (i8, u64),
            other: Tagged,
            text: &'static str,
        }
        let v = Outer {
            zeta: vec![
                E::Unit,
                E::New(2.0),
                E::Tuple(7, "a\"b\n".into()),
                E::Struct {
                    z: -5,
                    a: Some(0.1),
                },
                E::Struct {
                    z: 1 << 60,
                    a: None,
                },
            ],
            alpha: Tagged::One { x: 1e-9 },
            inner: Inner {
                b: true,
                c: Some(3),
            },
            ints: [(10, 'x'), (2, 'é')].into(),
            unit: (),
            pair: (-1, u64::MAX),
            other: Tagged::Two(Inner { b: false, c: None }),
            text: "\u{10000}\u{fb33}",
        };
        let tree = canonical_value(&serde_json::to_value(&v).unwrap());
        assert_eq!(canonical(&v).unwrap(), tree);
        let mut keys: BTreeMap<&str, u8> = BTreeMap::new();
        keys.insert("\u{fb33}", 1);
        keys.insert("\u{10000}", 2);
        assert_eq!(
            canonical(&keys).unwrap(),
            canonical_value(&serde_json::to_value(&keys).unwrap())
        );
    }

    #[test]
    fn a_key_twice_is_refused() {
        #[derive(serde::Serialize)]
        struct Inner {
            x: u8,
        }
        #[derive(serde::Serialize)]
        struct Twice {
            x: u8,
            #[serde(flatten)]
            inner: Inner,
        }
        let e = canonical(&Twice {
            x: 1,
            inner: Inner { x: 2 },
        });
        assert!(e.unwrap_err().0.contains("`x` appears twice"));
    }

    #[test]
    fn non_finite_numbers_are_refused() {
        assert!(canonical(&vec![1.0, f64::NAN]).is_err());
        assert!(canonical(&Some(f64::INFINITY)).is_err());
        assert_eq!(canonical(&vec![1.0, 2.5]).unwrap(), "[1,2.5]");
    }
}
