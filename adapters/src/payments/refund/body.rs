//! The `POST /api/orders/{orderId}/refunds` body: strict JSON as for an order, exactly
//! `amount` and `reason`, each validated by the domain.

use domain::{Amount, Reason};

use crate::http::edge::members::{FieldError, amount, object, reason, unknown_members};
use crate::http::edge::strict_json::MAX_REPORTED;

const MEMBERS: [&str; 2] = ["amount", "reason"];

/// # Errors
/// Every violation, at most 16, by the rules of an order's body
/// ([`crate::http::decode_new_order`]).
pub(crate) fn decode_refund_body(bytes: &[u8]) -> Result<(Amount, Reason), Vec<FieldError>> {
    let members = object(bytes)?;
    let mut errors = unknown_members(
        &members,
        &MEMBERS,
        "unknown member: only amount and reason are allowed",
    );
    let amount = amount(&members, "amount", "/amount");
    let reason = reason(&members, "reason", "/reason");
    match (amount, reason) {
        (Ok(amount), Ok(reason)) if errors.is_empty() => Ok((amount, reason)),
        (a, r) => {
            errors.extend([a.err(), r.err()].into_iter().flatten());
            errors.truncate(MAX_REPORTED);
            Err(errors)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::edge::members::AMOUNT_RANGE;

    fn errors(body: &str) -> Vec<(String, &'static str)> {
        decode_refund_body(body.as_bytes())
            .unwrap_err()
            .into_iter()
            .map(|e| (e.pointer.into_owned(), e.reason))
            .collect()
    }

    #[test]
    fn a_valid_body_decodes_as_sent() {
        let (amount, reason) = decode_refund_body(br#"{"reason":"damaged","amount":500}"#).unwrap();
        assert_eq!((amount.get(), reason.as_str()), (500, "damaged"));
    }

    #[test]
    fn each_member_is_checked_and_every_violation_listed() {
        assert_eq!(
            errors(r#"{"amount":0,"reason":"","currency":"JPY"}"#),
            [
                (
                    "/currency".to_owned(),
                    "unknown member: only amount and reason are allowed"
                ),
                ("/amount".to_owned(), AMOUNT_RANGE),
                ("/reason".to_owned(), "must not be empty"),
            ]
        );
        assert_eq!(
            errors(r#"{"amount":5,"reason":"damaged","currency":"JPY"}"#),
            [(
                "/currency".to_owned(),
                "unknown member: only amount and reason are allowed"
            )],
            "an unknown member refuses an otherwise valid body"
        );
        assert_eq!(
            errors(r#"{"amount":"5"}"#),
            [
                ("/amount".to_owned(), "must be a JSON integer"),
                ("/reason".to_owned(), "is required"),
            ]
        );
    }
}
