//! JSON parsing that refuses what strict parsers disagree on.
//!
//! serde_json keeps the last of two members with the same name; other parsers keep the
//! first or refuse. A body that two parsers read differently must not be accepted, so
//! duplicates are refused at every depth. serde_json already refuses the rest of that
//! class: invalid UTF-8, lone surrogate escapes, trailing data, a byte order mark.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Why a body is not strict JSON (the text never quotes the body).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StrictJsonError {
    /// Not JSON at all, or more than one JSON value.
    Malformed,
    /// A member name appears twice in one object.
    DuplicateMember,
}

const DUPLICATE: &str = "duplicate member name";

/// Parses `bytes` as one JSON value with unique member names everywhere.
pub(super) fn parse(bytes: &[u8]) -> Result<Value, StrictJsonError> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value = Unique::deserialize(&mut deserializer).map_err(classify)?;
    deserializer.end().map_err(|_| StrictJsonError::Malformed)?;
    Ok(value.0)
}

fn classify(error: serde_json::Error) -> StrictJsonError {
    if error.to_string().starts_with(DUPLICATE) {
        StrictJsonError::DuplicateMember
    } else {
        StrictJsonError::Malformed
    }
}

/// A JSON value whose objects were checked for duplicate member names.
struct Unique(Value);

impl<'de> Deserialize<'de> for Unique {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueVisitor).map(Unique)
    }
}

struct UniqueVisitor;

impl<'de> Visitor<'de> for UniqueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Unique(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some((name, Unique(value))) = map.next_entry::<String, Unique>()? {
            if members.insert(name, value).is_some() {
                return Err(de::Error::custom(DUPLICATE));
            }
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duplicate_member_name_is_refused_at_the_top() {
        assert_eq!(
            parse(br#"{"a":1,"a":2}"#),
            Err(StrictJsonError::DuplicateMember)
        );
    }

    #[test]
    fn a_duplicate_member_name_is_refused_when_nested() {
        assert_eq!(
            parse(br#"{"a":[{"b":1,"b":1}]}"#),
            Err(StrictJsonError::DuplicateMember)
        );
    }

    #[test]
    fn an_escaped_spelling_of_the_same_name_is_a_duplicate() {
        assert_eq!(
            parse(br#"{"sku":"a","s\u006bu":"b"}"#),
            Err(StrictJsonError::DuplicateMember)
        );
    }

    #[test]
    fn what_strict_parsers_disagree_on_is_malformed() {
        for body in [
            &b"{\"a\":\"\\ud800\"}"[..],   // lone surrogate
            &b"{\"a\":1} {}"[..],          // trailing value
            &b"\xef\xbb\xbf{\"a\":1}"[..], // byte order mark
            &b"{\"a\":\"\xff\"}"[..],      // invalid UTF-8
            &b"{\"a\":1,}"[..],            // trailing comma
            &b""[..],
        ] {
            assert_eq!(parse(body), Err(StrictJsonError::Malformed), "{body:?}");
        }
    }

    #[test]
    fn distinct_names_and_surrounding_whitespace_are_fine() {
        assert!(parse(b" {\"a\":1,\"b\":[1,2]} \n").is_ok());
    }
}
