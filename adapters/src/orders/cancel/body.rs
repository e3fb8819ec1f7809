//! The `POST /api/orders/{orderId}/cancel` body: strict JSON as for an order, exactly
//! `reason`, validated by the operation's own type.

use domain::Reason;

use crate::http::edge::members::{FieldError, object, reason, unknown_members};
use crate::http::edge::strict_json::MAX_REPORTED;

const POINTER: &str = "/reason";

/// # Errors
/// Every violation, at most 16, by the rules of an order's body
/// ([`crate::http::decode_new_order`]).
pub(crate) fn decode_cancel_body(bytes: &[u8]) -> Result<Reason, Vec<FieldError>> {
    let members = object(bytes)?;
    let mut errors = unknown_members(
        &members,
        &["reason"],
        "unknown member: only reason is allowed",
    );
    let reason = reason(&members, "reason", POINTER);
    match reason {
        Ok(reason) if errors.is_empty() => Ok(reason),
        reason => {
            errors.extend(reason.err());
            errors.truncate(MAX_REPORTED);
            Err(errors)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(body: &str) -> Vec<(String, &'static str)> {
        decode_cancel_body(body.as_bytes())
            .unwrap_err()
            .into_iter()
            .map(|e| (e.pointer.into_owned(), e.reason))
            .collect()
    }

    #[test]
    fn a_reason_decodes_as_sent() {
        let reason = decode_cancel_body(r#"{"reason":"Changed my mind \u00e9"}"#.as_bytes());
        assert_eq!(reason.unwrap().as_str(), "Changed my mind é");
    }

    #[test]
    fn each_rule_is_reported_at_the_reason() {
        for (reason, expected) in [
            ("\"\"", "must not be empty"),
            (
                &format!("\"{}\"", "x".repeat(201)),
                "must be at most 200 characters",
            ),
            ("\"two\\nlines\"", "must not contain control characters"),
            ("5", "must be a string"),
            ("null", "must not be null"),
        ] {
            let body = format!(r#"{{"reason":{reason}}}"#);
            assert_eq!(
                errors(&body),
                [("/reason".to_owned(), expected)],
                "{reason}"
            );
        }
        assert_eq!(errors("{}"), [("/reason".to_owned(), "is required")]);
    }

    #[test]
    fn an_unknown_member_is_reported_with_the_reasons_own_violation() {
        assert_eq!(
            errors(r#"{"reason":"","tenantId":2}"#),
            [
                (
                    "/tenantId".to_owned(),
                    "unknown member: only reason is allowed"
                ),
                ("/reason".to_owned(), "must not be empty"),
            ]
        );
        assert_eq!(
            errors(r#"{"reason":"late","tenantId":2}"#),
            [(
                "/tenantId".to_owned(),
                "unknown member: only reason is allowed"
            )],
            "an unknown member refuses an otherwise valid body"
        );
        assert_eq!(
            errors(r#"{"reason":"a","reason":"b"}"#),
            [(
                "/reason".to_owned(),
                "this member name appears more than once"
            )]
        );
    }
}
