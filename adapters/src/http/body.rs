//! The `POST /api/orders` body: strict JSON, exactly three members, each validated.

use domain::{ClientOrderRef, NewOrder, Quantity, Sku, TokenTextError};
use serde_json::{Map, Value};

use super::strict_json::{self, StrictJsonError};

/// One violation, as listed in the problem body's `errors` array.
///
/// Reasons are fixed texts: they never quote the body, and an unknown member is reported
/// against the whole document (`""`) rather than by a pointer that would spell its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// A JSON Pointer (RFC 6901) to the offending value; `""` is the whole document.
    pub pointer: &'static str,
    /// What is wrong, in words.
    pub reason: &'static str,
}

const MEMBERS: [&str; 3] = ["clientOrderRef", "sku", "quantity"];

/// Decodes and validates a body into a [`NewOrder`], or lists every violation found.
///
/// # Errors
/// Every [`FieldError`]: malformed JSON, a non-object, a duplicate or unknown member, and
/// per member: missing, `null`, wrong type, or a value the domain refuses.
pub fn decode_new_order(bytes: &[u8]) -> Result<NewOrder, Vec<FieldError>> {
    let value = strict_json::parse(bytes).map_err(|error| {
        vec![FieldError {
            pointer: "",
            reason: match error {
                StrictJsonError::Malformed => "the body is not a single well-formed JSON value",
                StrictJsonError::DuplicateMember => "a member name appears more than once",
            },
        }]
    })?;
    let Value::Object(members) = value else {
        return Err(vec![FieldError {
            pointer: "",
            reason: "the body must be a JSON object",
        }]);
    };
    let mut errors = Vec::new();
    if members.keys().any(|name| !MEMBERS.contains(&name.as_str())) {
        errors.push(FieldError {
            pointer: "",
            reason: "only clientOrderRef, sku and quantity are allowed",
        });
    }
    let client_order_ref = text(
        &members,
        "clientOrderRef",
        "/clientOrderRef",
        ClientOrderRef::parse,
    );
    let sku = text(&members, "sku", "/sku", Sku::parse);
    let quantity = quantity(&members);
    match (client_order_ref, sku, quantity) {
        (Ok(client_order_ref), Ok(sku), Ok(quantity)) if errors.is_empty() => Ok(NewOrder {
            client_order_ref,
            sku,
            quantity,
        }),
        (a, b, c) => {
            errors.extend([a.err(), b.err(), c.err()].into_iter().flatten());
            Err(errors)
        }
    }
}

/// The member's value, or why there is none to use.
fn member<'a>(
    members: &'a Map<String, Value>,
    name: &str,
    pointer: &'static str,
) -> Result<&'a Value, FieldError> {
    match members.get(name) {
        None => Err(FieldError {
            pointer,
            reason: "is required",
        }),
        Some(Value::Null) => Err(FieldError {
            pointer,
            reason: "must not be null",
        }),
        Some(value) => Ok(value),
    }
}

fn text<T>(
    members: &Map<String, Value>,
    name: &str,
    pointer: &'static str,
    parse: fn(&str) -> Result<T, TokenTextError>,
) -> Result<T, FieldError> {
    let Value::String(raw) = member(members, name, pointer)? else {
        return Err(FieldError {
            pointer,
            reason: "must be a string",
        });
    };
    parse(raw).map_err(|error| FieldError {
        pointer,
        reason: match error {
            TokenTextError::Empty => "must not be empty",
            TokenTextError::TooLong { .. } => "must be at most 64 characters",
            TokenTextError::BadCharacter => "may contain only A-Z, a-z, 0-9, '-' and '_'",
        },
    })
}

fn quantity(members: &Map<String, Value>) -> Result<Quantity, FieldError> {
    const POINTER: &str = "/quantity";
    let out_of_range = FieldError {
        pointer: POINTER,
        reason: "must be an integer from 1 to 100",
    };
    // `1.0` and `1e0` are floats to the parser: refused as not an integer, like `"1"`.
    let number = match member(members, "quantity", POINTER)? {
        Value::Number(number) if !number.is_f64() => number,
        _ => {
            return Err(FieldError {
                pointer: POINTER,
                reason: "must be a JSON integer",
            });
        }
    };
    let raw = number.as_i64().ok_or(out_of_range.clone())?;
    Quantity::parse(raw).map_err(|_| out_of_range)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pointers(body: &str) -> Vec<(&'static str, &'static str)> {
        decode_new_order(body.as_bytes())
            .unwrap_err()
            .into_iter()
            .map(|e| (e.pointer, e.reason))
            .collect()
    }

    #[test]
    fn a_valid_body_in_any_member_order_decodes() {
        let order =
            decode_new_order(br#" {"quantity":2, "sku":"SKU-1", "clientOrderRef":"REF-1"} "#)
                .unwrap();
        assert_eq!(order.client_order_ref.as_str(), "REF-1");
        assert_eq!(order.sku.as_str(), "SKU-1");
        assert_eq!(order.quantity.get(), 2);
    }

    #[test]
    fn every_missing_member_is_listed() {
        let errors = pointers("{}");
        assert_eq!(
            errors.iter().map(|e| e.0).collect::<Vec<_>>(),
            ["/clientOrderRef", "/sku", "/quantity"]
        );
    }

    #[test]
    fn null_is_not_a_value() {
        let errors = pointers(r#"{"clientOrderRef":null,"sku":"S","quantity":1}"#);
        assert_eq!(errors, [("/clientOrderRef", "must not be null")]);
    }

    #[test]
    fn floats_strings_and_booleans_are_not_quantities() {
        for quantity in ["1.0", "1e0", "\"1\"", "true"] {
            let body = format!(r#"{{"clientOrderRef":"R","sku":"S","quantity":{quantity}}}"#);
            assert_eq!(
                pointers(&body),
                [("/quantity", "must be a JSON integer")],
                "{quantity}"
            );
        }
    }

    #[test]
    fn quantities_outside_one_to_one_hundred_are_out_of_range() {
        for quantity in ["0", "101", "-1", "18446744073709551615"] {
            let body = format!(r#"{{"clientOrderRef":"R","sku":"S","quantity":{quantity}}}"#);
            assert_eq!(
                pointers(&body),
                [("/quantity", "must be an integer from 1 to 100")],
                "{quantity}"
            );
        }
    }

    #[test]
    fn an_unknown_member_is_refused_without_echoing_its_name() {
        let errors = pointers(r#"{"clientOrderRef":"R","sku":"S","quantity":1,"secret-x":1}"#);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].0, "");
        assert!(!errors[0].1.contains("secret"));
    }

    #[test]
    fn a_duplicate_member_is_refused() {
        let errors = pointers(r#"{"clientOrderRef":"R","sku":"S","quantity":1,"quantity":2}"#);
        assert_eq!(errors, [("", "a member name appears more than once")]);
    }

    #[test]
    fn a_non_object_and_malformed_json_are_refused() {
        assert_eq!(pointers("[]"), [("", "the body must be a JSON object")]);
        assert_eq!(
            pointers("{"),
            [("", "the body is not a single well-formed JSON value")]
        );
    }

    #[test]
    fn text_members_are_validated_not_trimmed() {
        let errors = pointers(r#"{"clientOrderRef":" R","sku":"","quantity":1}"#);
        assert_eq!(
            errors,
            [
                (
                    "/clientOrderRef",
                    "may contain only A-Z, a-z, 0-9, '-' and '_'"
                ),
                ("/sku", "must not be empty"),
            ]
        );
    }
}
