//! The rules every strict body decoder shares: the body as one JSON object with no
//! repeated member, unknown members refused each at its own pointer, a member that must be
//! present and not `null`, a JSON integer; and the violation each becomes.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::strict_json::{self, MAX_REPORTED, StrictJsonError, member_pointer};

/// One violation, as listed in the problem body's `errors` array.
///
/// Reasons are fixed texts that never quote the body. An unknown or repeated member is
/// reported at its own pointer (so a client sees what to remove), except a name over 64
/// bytes or holding a control character, reported at `""`: the one place a pointer spells
/// something the client sent, and only a short printable name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// A JSON Pointer (RFC 6901) to the offending value; `""` is the whole document.
    pub pointer: Cow<'static, str>,
    /// What is wrong, in words.
    pub reason: &'static str,
}

impl FieldError {
    pub(crate) fn at(pointer: &'static str, reason: &'static str) -> Self {
        Self {
            pointer: Cow::Borrowed(pointer),
            reason,
        }
    }
}

/// The body as a JSON object, or why it is none: malformed JSON, a non-object, or
/// repeated members (then nothing else is judged: which copy would count is the question).
pub(crate) fn object(bytes: &[u8]) -> Result<Map<String, Value>, Vec<FieldError>> {
    let value = strict_json::parse(bytes).map_err(|error| match error {
        StrictJsonError::Malformed => vec![FieldError::at(
            "",
            "the body is not a single well-formed JSON value",
        )],
        StrictJsonError::DuplicateMembers(pointers) => pointers
            .into_iter()
            .map(|pointer| FieldError {
                pointer,
                reason: "this member name appears more than once",
            })
            .collect(),
    })?;
    match value {
        Value::Object(members) => Ok(members),
        _ => Err(vec![FieldError::at("", "the body must be a JSON object")]),
    }
}

/// Each member not in `allowed`, at its own pointer (at most [`MAX_REPORTED`]).
pub(crate) fn unknown_members(
    members: &Map<String, Value>,
    allowed: &[&str],
    reason: &'static str,
) -> Vec<FieldError> {
    members
        .keys()
        .filter(|name| !allowed.contains(&name.as_str()))
        .take(MAX_REPORTED)
        .map(|name| FieldError {
            pointer: member_pointer(name),
            reason,
        })
        .collect()
}

/// The member's value, or why there is none to use.
pub(crate) fn member<'a>(
    members: &'a Map<String, Value>,
    name: &str,
    pointer: &'static str,
) -> Result<&'a Value, FieldError> {
    match members.get(name) {
        None => Err(FieldError::at(pointer, "is required")),
        Some(Value::Null) => Err(FieldError::at(pointer, "must not be null")),
        Some(value) => Ok(value),
    }
}

/// The member as a JSON integer that fits `i64`; `out_of_range` for a bigger one.
/// `1.0` and `1e0` are floats to the parser: refused as not an integer, like `"1"`.
pub(crate) fn integer(
    members: &Map<String, Value>,
    name: &str,
    pointer: &'static str,
    out_of_range: &'static str,
) -> Result<i64, FieldError> {
    let number = match member(members, name, pointer)? {
        Value::Number(number) if !number.is_f64() => number,
        _ => return Err(FieldError::at(pointer, "must be a JSON integer")),
    };
    number
        .as_i64()
        .ok_or_else(|| FieldError::at(pointer, out_of_range))
}
