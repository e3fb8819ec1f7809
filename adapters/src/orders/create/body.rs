//! The `POST /api/orders` body: strict JSON, exactly three members, each validated.

use domain::{ClientOrderRef, NewOrder, Quantity, Sku, TokenTextError};
use serde_json::{Map, Value};

use crate::http::edge::members::{FieldError, integer, member, object, unknown_members};
use crate::http::edge::strict_json::MAX_REPORTED;

const MEMBERS: [&str; 3] = ["clientOrderRef", "sku", "quantity"];

/// # Errors
/// Every violation, at most 16: malformed JSON, a non-object, repeated members (then
/// nothing else), unknown members, and each member missing, `null`, mistyped or refused.
pub fn decode_new_order(bytes: &[u8]) -> Result<NewOrder, Vec<FieldError>> {
    let members = object(bytes)?;
    let mut errors = unknown_members(
        &members,
        &MEMBERS,
        "unknown member: only clientOrderRef, sku and quantity are allowed",
    );
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
            errors.truncate(MAX_REPORTED);
            Err(errors)
        }
    }
}

fn text<T>(
    members: &Map<String, Value>,
    name: &str,
    pointer: &'static str,
    parse: fn(&str) -> Result<T, TokenTextError>,
) -> Result<T, FieldError> {
    let Value::String(raw) = member(members, name, pointer)? else {
        return Err(FieldError::at(pointer, "must be a string"));
    };
    parse(raw).map_err(|error| {
        FieldError::at(
            pointer,
            match error {
                TokenTextError::Empty => "must not be empty",
                TokenTextError::TooLong { .. } => "must be at most 64 characters",
                TokenTextError::BadCharacter => "may contain only A-Z, a-z, 0-9, '-' and '_'",
            },
        )
    })
}

fn quantity(members: &Map<String, Value>) -> Result<Quantity, FieldError> {
    const POINTER: &str = "/quantity";
    const RANGE: &str = "must be an integer from 1 to 100";
    let raw = integer(members, "quantity", POINTER, RANGE)?;
    Quantity::parse(raw).map_err(|_| FieldError::at(POINTER, RANGE))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pointers(body: &str) -> Vec<(String, &'static str)> {
        decode_new_order(body.as_bytes())
            .unwrap_err()
            .into_iter()
            .map(|e| (e.pointer.into_owned(), e.reason))
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
            errors.iter().map(|e| e.0.as_str()).collect::<Vec<_>>(),
            ["/clientOrderRef", "/sku", "/quantity"]
        );
    }

    #[test]
    fn null_is_not_a_value() {
        let errors = pointers(r#"{"clientOrderRef":null,"sku":"S","quantity":1}"#);
        assert_eq!(errors, [("/clientOrderRef".to_owned(), "must not be null")]);
    }

    #[test]
    fn floats_strings_and_booleans_are_not_quantities() {
        for quantity in ["1.0", "1e0", "\"1\"", "true"] {
            let body = format!(r#"{{"clientOrderRef":"R","sku":"S","quantity":{quantity}}}"#);
            assert_eq!(
                pointers(&body),
                [("/quantity".to_owned(), "must be a JSON integer")],
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
                [("/quantity".to_owned(), "must be an integer from 1 to 100")],
                "{quantity}"
            );
        }
    }

    const UNKNOWN: &str = "unknown member: only clientOrderRef, sku and quantity are allowed";

    #[test]
    fn each_unknown_member_is_refused_at_its_own_pointer() {
        let errors =
            pointers(r#"{"clientOrderRef":"R","sku":"S","quantity":1,"tenantId":1,"a/b":2}"#);
        assert_eq!(
            errors,
            [
                ("/a~1b".to_owned(), UNKNOWN),
                ("/tenantId".to_owned(), UNKNOWN)
            ]
        );
    }

    #[test]
    fn a_long_or_control_character_unknown_name_is_reported_at_the_whole_document() {
        let long = "secret".repeat(11);
        let body = format!(r#"{{"clientOrderRef":"R","sku":"S","quantity":1,"{long}":1}}"#);
        assert_eq!(pointers(&body), [(String::new(), UNKNOWN)]);
        let body = r#"{"clientOrderRef":"R","sku":"S","quantity":1,"x\u0000":1}"#;
        assert_eq!(pointers(body), [(String::new(), UNKNOWN)]);
    }

    #[test]
    fn a_repeated_member_is_refused_at_its_own_pointer_and_nothing_else_is_judged() {
        let errors = pointers(r#"{"clientOrderRef":"R","sku":"","quantity":1,"quantity":2}"#);
        assert_eq!(
            errors,
            [(
                "/quantity".to_owned(),
                "this member name appears more than once"
            )]
        );
    }

    #[test]
    fn at_most_sixteen_violations_are_listed() {
        let unknown: Vec<String> = (0..40).map(|i| format!(r#""x{i}":1"#)).collect();
        let body = format!("{{{}}}", unknown.join(","));
        let errors = pointers(&body);
        assert_eq!(errors.len(), 16);
        assert!(errors.iter().all(|(_, reason)| *reason == UNKNOWN));
    }

    #[test]
    fn a_non_object_and_malformed_json_are_refused() {
        assert_eq!(
            pointers("[]"),
            [(String::new(), "the body must be a JSON object")]
        );
        assert_eq!(
            pointers("{"),
            [(
                String::new(),
                "the body is not a single well-formed JSON value"
            )]
        );
    }

    #[test]
    fn text_members_are_validated_not_trimmed() {
        let errors = pointers(r#"{"clientOrderRef":" R","sku":"","quantity":1}"#);
        assert_eq!(
            errors,
            [
                (
                    "/clientOrderRef".to_owned(),
                    "may contain only A-Z, a-z, 0-9, '-' and '_'"
                ),
                ("/sku".to_owned(), "must not be empty"),
            ]
        );
    }
}
