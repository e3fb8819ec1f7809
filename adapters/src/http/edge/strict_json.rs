//! JSON parsing that refuses what parsers disagree on: serde_json keeps the last of two
//! same-named members, other parsers the first, so duplicates are refused at every depth.
//! serde_json refuses the rest (bad UTF-8, lone surrogates, trailing data, a BOM).

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StrictJsonError {
    /// Not JSON at all, or more than one JSON value.
    Malformed,
    /// The pointer of each repeat, at most [`MAX_REPORTED`].
    DuplicateMembers(Vec<Cow<'static, str>>),
}

/// A body cannot make the answer grow with it.
pub(crate) const MAX_REPORTED: usize = 16;

const MAX_SHOWN_NAME_BYTES: usize = 64;

pub(crate) fn parse(bytes: &[u8]) -> Result<Value, StrictJsonError> {
    let duplicates = RefCell::new(Vec::new());
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value = Unique {
        at: Step::Root,
        duplicates: &duplicates,
    }
    .deserialize(&mut deserializer)
    .map_err(|_| StrictJsonError::Malformed)?;
    deserializer.end().map_err(|_| StrictJsonError::Malformed)?;
    let duplicates = duplicates.into_inner();
    if duplicates.is_empty() {
        Ok(value)
    } else {
        Err(StrictJsonError::DuplicateMembers(duplicates))
    }
}

/// A JSON object whose member names are distinct at every depth, for a document another
/// library deserializes (a token's claims): a repeat fails it, as it fails a body.
#[derive(Debug)]
pub(crate) struct DistinctMembers(pub(crate) Map<String, Value>);

impl<'de> Deserialize<'de> for DistinctMembers {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let duplicates = RefCell::new(Vec::new());
        let value = Unique {
            at: Step::Root,
            duplicates: &duplicates,
        }
        .deserialize(deserializer)?;
        if !duplicates.into_inner().is_empty() {
            return Err(D::Error::custom("a member name appears more than once"));
        }
        match value {
            Value::Object(members) => Ok(Self(members)),
            _ => Err(D::Error::custom("not a JSON object")),
        }
    }
}

/// `""` for a long name or one with a control character: a pointer spells only a name a
/// client can read back and act on, never a blob it sent.
pub(crate) fn member_pointer(name: &str) -> Cow<'static, str> {
    Step::Member(&Step::Root, name)
        .pointer()
        .map_or(Cow::Borrowed(""), Cow::Owned)
}

/// Built as the parser descends; allocates nothing unless a pointer is asked for.
#[derive(Clone, Copy)]
enum Step<'a> {
    Root,
    Member(&'a Step<'a>, &'a str),
    Index(&'a Step<'a>, usize),
}

impl Step<'_> {
    /// `None` when a name on the way may not be shown.
    fn pointer(&self) -> Option<String> {
        match self {
            Self::Root => Some(String::new()),
            Self::Member(parent, name) => {
                if name.len() > MAX_SHOWN_NAME_BYTES || name.chars().any(char::is_control) {
                    return None;
                }
                let mut pointer = parent.pointer()?;
                pointer.push('/');
                pointer.push_str(&name.replace('~', "~0").replace('/', "~1"));
                Some(pointer)
            }
            Self::Index(parent, index) => {
                let mut pointer = parent.pointer()?;
                pointer.push('/');
                pointer.push_str(&index.to_string());
                Some(pointer)
            }
        }
    }
}

/// Notes every repeated member; the first copy is kept, so parsing goes on and finds all.
struct Unique<'a> {
    at: Step<'a>,
    duplicates: &'a RefCell<Vec<Cow<'static, str>>>,
}

impl<'de> DeserializeSeed<'de> for Unique<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Unique<'_> {
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
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Unique {
            at: Step::Index(&self.at, items.len()),
            duplicates: self.duplicates,
        })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some(name) = map.next_key::<String>()? {
            let at = Step::Member(&self.at, &name);
            let value = map.next_value_seed(Unique {
                at,
                duplicates: self.duplicates,
            })?;
            if members.contains_key(&name) {
                let mut duplicates = self.duplicates.borrow_mut();
                if duplicates.len() < MAX_REPORTED {
                    duplicates.push(at.pointer().map_or(Cow::Borrowed(""), Cow::Owned));
                }
            } else {
                members.insert(name, value);
            }
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_members_are_an_object_whose_names_never_repeat_at_any_depth() {
        let members: DistinctMembers =
            serde_json::from_str(r#"{"tid": 1, "scp": {"a": 1, "b": 2}}"#).unwrap();
        assert_eq!(members.0.len(), 2);
        for refused in [
            r#"{"tid": 2, "tid": 1}"#,
            r#"{"scp": {"a": 1, "a": 2}}"#,
            r#"[{"tid": 1}]"#,
            "1",
        ] {
            assert!(
                serde_json::from_str::<DistinctMembers>(refused).is_err(),
                "{refused}"
            );
        }
    }

    fn duplicates(body: &[u8]) -> Vec<Cow<'static, str>> {
        match parse(body) {
            Err(StrictJsonError::DuplicateMembers(pointers)) => pointers,
            other => panic!("expected duplicates, got {other:?}"),
        }
    }

    #[test]
    fn a_duplicate_member_name_is_refused_at_the_top_and_named_by_its_pointer() {
        assert_eq!(duplicates(br#"{"a":1,"a":2}"#), ["/a"]);
    }

    #[test]
    fn every_repeat_is_listed_at_its_own_pointer_escaped_as_rfc_6901_says() {
        assert_eq!(
            duplicates(br#"{"a/b":1,"a/b":2,"c~d":[{"e":1,"e":2}],"c~d":0,"a/b":3}"#),
            ["/a~1b", "/c~0d/0/e", "/c~0d", "/a~1b"]
        );
    }

    #[test]
    fn a_long_or_control_character_name_is_reported_at_the_whole_document() {
        let long = "n".repeat(65);
        let body = format!(r#"{{"{long}":1,"{long}":2,"x\u0007":1,"x\u0007":2}}"#);
        assert_eq!(duplicates(body.as_bytes()), ["", ""]);
        let longest = "n".repeat(64);
        let body = format!(r#"{{"{longest}":1,"{longest}":2}}"#);
        assert_eq!(duplicates(body.as_bytes()), [format!("/{longest}")]);
    }

    #[test]
    fn at_most_sixteen_repeats_are_listed() {
        let body = format!("{{{}}}", vec![r#""a":1"#; 40].join(","));
        assert_eq!(duplicates(body.as_bytes()).len(), MAX_REPORTED);
    }

    #[test]
    fn a_member_pointer_spells_only_short_printable_names() {
        assert_eq!(member_pointer("tenantId"), "/tenantId");
        assert_eq!(member_pointer("a~/b"), "/a~0~1b");
        assert_eq!(member_pointer("x\n"), "");
        assert_eq!(member_pointer("caf\u{e9}"), "/caf\u{e9}");
        assert_eq!(member_pointer("x\u{7f}"), "");
        assert_eq!(member_pointer(&"n".repeat(65)), "");
    }

    #[test]
    fn a_duplicate_member_name_is_refused_when_nested() {
        assert_eq!(duplicates(br#"{"a":[{"b":1,"b":1}]}"#), ["/a/0/b"]);
    }

    #[test]
    fn an_escaped_spelling_of_the_same_name_is_a_duplicate() {
        assert_eq!(duplicates(br#"{"sku":"a","s\u006bu":"b"}"#), ["/sku"]);
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
