//! The `POST /api/orders/{orderId}/payments` body: strict JSON as for an order, exactly
//! `amount` and `currency`, each validated by the domain.

use domain::{Amount, Currency, OrderId, PaymentCapture};
use serde_json::{Map, Value};

use crate::http::edge::members::{FieldError, amount, member, object, unknown_members};
use crate::http::edge::strict_json::MAX_REPORTED;

const MEMBERS: [&str; 2] = ["amount", "currency"];

/// The order comes from the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CaptureBody {
    pub amount: Amount,
    pub currency: Currency,
}

impl CaptureBody {
    #[must_use]
    pub(crate) fn of(self, order: OrderId) -> PaymentCapture {
        PaymentCapture {
            order,
            amount: self.amount,
            currency: self.currency,
        }
    }
}

/// # Errors
/// Every violation, at most 16, by the rules of an order's body
/// ([`crate::http::decode_new_order`]).
pub(crate) fn decode_capture_body(bytes: &[u8]) -> Result<CaptureBody, Vec<FieldError>> {
    let members = object(bytes)?;
    let mut errors = unknown_members(
        &members,
        &MEMBERS,
        "unknown member: only amount and currency are allowed",
    );
    let amount = amount(&members, "amount", "/amount");
    let currency = currency(&members);
    match (amount, currency) {
        (Ok(amount), Ok(currency)) if errors.is_empty() => Ok(CaptureBody { amount, currency }),
        (a, c) => {
            errors.extend([a.err(), c.err()].into_iter().flatten());
            errors.truncate(MAX_REPORTED);
            Err(errors)
        }
    }
}

fn currency(members: &Map<String, Value>) -> Result<Currency, FieldError> {
    const POINTER: &str = "/currency";
    let Value::String(raw) = member(members, "currency", POINTER)? else {
        return Err(FieldError::at(POINTER, "must be a string"));
    };
    Currency::parse(raw).map_err(|_| FieldError::at(POINTER, "must be three letters A-Z"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::edge::members::AMOUNT_RANGE;

    fn errors(body: &str) -> Vec<(String, &'static str)> {
        decode_capture_body(body.as_bytes())
            .unwrap_err()
            .into_iter()
            .map(|e| (e.pointer.into_owned(), e.reason))
            .collect()
    }

    #[test]
    fn a_valid_body_decodes_with_the_order_from_the_path() {
        let capture = decode_capture_body(br#"{"currency":"JPY","amount":1500}"#)
            .unwrap()
            .of(OrderId::new(7));
        assert_eq!(capture.order.get(), 7);
        assert_eq!(capture.amount.get(), 1500);
        assert_eq!(capture.currency.as_str(), "JPY");
    }

    #[test]
    fn amounts_must_be_integers_in_range() {
        for (amount, reason) in [
            ("0", AMOUNT_RANGE),
            ("10000001", AMOUNT_RANGE),
            ("-5", AMOUNT_RANGE),
            ("99999999999999999999", "must be a JSON integer"),
            ("1.0", "must be a JSON integer"),
            ("\"100\"", "must be a JSON integer"),
        ] {
            let body = format!(r#"{{"amount":{amount},"currency":"JPY"}}"#);
            assert_eq!(errors(&body), [("/amount".to_owned(), reason)], "{amount}");
        }
        assert!(decode_capture_body(br#"{"amount":10000000,"currency":"JPY"}"#).is_ok());
    }

    #[test]
    fn currencies_are_three_capital_letters() {
        for currency in ["\"jpy\"", "\"JP\"", "\"JPYY\"", "\"\"", "1"] {
            let body = format!(r#"{{"amount":1,"currency":{currency}}}"#);
            assert_eq!(errors(&body).len(), 1, "{currency}");
            assert_eq!(errors(&body)[0].0, "/currency");
        }
    }

    #[test]
    fn unknown_missing_and_null_members_are_each_listed() {
        assert_eq!(
            errors(r#"{"amount":null,"orderId":"9"}"#),
            [
                (
                    "/orderId".to_owned(),
                    "unknown member: only amount and currency are allowed"
                ),
                ("/amount".to_owned(), "must not be null"),
                ("/currency".to_owned(), "is required"),
            ]
        );
        assert_eq!(
            errors(r#"{"amount":1,"amount":2,"currency":"JPY"}"#),
            [(
                "/amount".to_owned(),
                "this member name appears more than once"
            )]
        );
    }

    #[test]
    fn valid_members_beside_an_unknown_one_are_still_refused() {
        assert_eq!(
            errors(r#"{"amount":1,"currency":"JPY","tip":5}"#),
            [(
                "/tip".to_owned(),
                "unknown member: only amount and currency are allowed"
            )]
        );
    }
}
