//! The rules every strict body decoder shares (one object, no repeated or unknown member,
//! required non-null members, JSON integers) and the violation each becomes.

use std::borrow::Cow;

use domain::{Amount, Reason, ReasonError};
use serde_json::{Map, Value};

use super::strict_json::{self, MAX_REPORTED, StrictJsonError, member_pointer};

/// Reasons are fixed texts that never quote the body. A pointer spells a member name the
/// client sent only when it is short and printable; otherwise it is `""`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// A JSON Pointer (RFC 6901) to the offending value; `""` is the whole document.
    pub pointer: Cow<'static, str>,
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

/// Repeated members stop the judging: which copy would count is the question.
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

/// The reason an amount is refused: the domain's range.
pub(crate) const AMOUNT_RANGE: &str = "must be an integer from 1 to 10000000";

/// An amount in minor units under `name`, by the domain's rules.
pub(crate) fn amount(
    members: &Map<String, Value>,
    name: &str,
    pointer: &'static str,
) -> Result<Amount, FieldError> {
    integer(members, name, pointer, AMOUNT_RANGE)
        .and_then(|raw| Amount::parse(raw).map_err(|_| FieldError::at(pointer, AMOUNT_RANGE)))
}

/// A reason under `name`, by the domain's rules.
pub(crate) fn reason(
    members: &Map<String, Value>,
    name: &str,
    pointer: &'static str,
) -> Result<Reason, FieldError> {
    match member(members, name, pointer)? {
        Value::String(raw) => Reason::parse(raw).map_err(|error| {
            FieldError::at(
                pointer,
                match error {
                    ReasonError::Empty => "must not be empty",
                    ReasonError::TooLong => "must be at most 200 characters",
                    ReasonError::ControlCharacter => "must not contain control characters",
                },
            )
        }),
        _ => Err(FieldError::at(pointer, "must be a string")),
    }
}
