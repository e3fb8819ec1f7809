//! Members a kind wrote as a JSON object (an operation's input, its result), shown inside a
//! generic document in the order written: the generic parts never need the kind's types.

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

/// A JSON object's members, each kept as written, with the object's text.
#[derive(Debug, Clone, Default)]
pub struct Members {
    text: Vec<u8>,
    members: Vec<(String, Box<RawValue>)>,
}

/// Alike when written alike.
impl PartialEq for Members {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for Members {}

/// Stored bytes that are not a JSON object.
#[derive(Debug, thiserror::Error)]
#[error("not a JSON object")]
pub struct NotAnObject(#[source] serde_json::Error);

impl Members {
    /// # Errors
    /// [`NotAnObject`] for anything but a JSON object.
    pub fn parse(bytes: &[u8]) -> Result<Self, NotAnObject> {
        let InOrder(members) = serde_json::from_slice(bytes).map_err(NotAnObject)?;
        Ok(Self {
            text: bytes.to_vec(),
            members,
        })
    }

    /// The object as it was written.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.text
    }

    /// The member `name` read as a `T`; `None` when absent or not a `T`.
    #[must_use]
    pub fn member<T: serde::de::DeserializeOwned>(&self, name: &str) -> Option<T> {
        serde_json::from_str(self.get(name)?).ok()
    }

    /// The member `name`'s JSON text, as written.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&str> {
        self.members
            .iter()
            .find(|(member, _)| member == name)
            .map(|(_, value)| value.get())
    }
}

/// Emitted as map entries, so `#[serde(flatten)]` puts them among a document's own members.
impl Serialize for Members {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.members.len()))?;
        for (name, value) in &self.members {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// An object's members in the order written.
struct InOrder(Vec<(String, Box<RawValue>)>);

/// Described as the object it is: which members it has is the kind's (the API document
/// describes each kind's result beside it).
impl PartialSchema for Members {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some(
                "Members written by the operation's kind: its input (`amount`, `currency` \
                 for payments.capture.v1), or its result member (`payment` for \
                 payments.capture.v1: `null` until it succeeded, then a `PaymentResult`).",
            ))
            .into()
    }
}

impl ToSchema for Members {
    fn name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("KindMembers")
    }
}

impl<'de> Deserialize<'de> for InOrder {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries;

        impl<'de> Visitor<'de> for Entries {
            type Value = InOrder;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<InOrder, A::Error> {
                let mut members = Vec::new();
                while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                    members.push(entry);
                }
                Ok(InOrder(members))
            }
        }

        deserializer.deserialize_map(Entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_alike_when_written_alike_and_read_as_their_type() {
        let job = Members::parse(br#"{"amount":1500,"currency":"JPY"}"#).unwrap();
        assert_eq!(
            job,
            Members::parse(br#"{"amount":1500,"currency":"JPY"}"#).unwrap()
        );
        assert_ne!(job, Members::parse(br#"{"amount":1500}"#).unwrap());
        assert_eq!(job.member::<u64>("amount"), Some(1500));
        assert_eq!(job.member::<u64>("currency"), None, "not a number");
    }

    #[test]
    fn members_keep_their_order_and_text_inside_another_document() {
        #[derive(Serialize)]
        struct Document<'a> {
            id: &'a str,
            #[serde(flatten)]
            members: &'a Members,
            last: u8,
        }
        let members = Members::parse(br#"{"zeta":{"b":1, "a":2},"alpha":null}"#).unwrap();
        assert_eq!(members.get("alpha"), Some("null"));
        let json = serde_json::to_string(&Document {
            id: "x",
            members: &members,
            last: 1,
        })
        .unwrap();
        assert_eq!(
            json,
            r#"{"id":"x","zeta":{"b":1, "a":2},"alpha":null,"last":1}"#
        );
    }

    #[test]
    fn only_an_object_has_members() {
        for bad in [&b"[1]"[..], b"null", b"{", b"\"a\""] {
            assert!(
                Members::parse(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
