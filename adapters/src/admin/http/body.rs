//! The bodies of the admin actions: a resolution, strict as every body; retry and cancel
//! take none (`{}` is accepted too).

use domain::{ProviderId, Resolution};
use serde_json::Value;

use crate::http::edge::members::{FieldError, member, object, unknown_members};
use crate::http::edge::strict_json::MAX_REPORTED;

const CHARGE_REASON: &str = "must be 1 to 128 characters of A-Z a-z 0-9 - _";

/// `{"outcome":"succeeded","<id member>":"..."}` or `{"outcome":"declined"}`: the id member
/// is the operation's kind's (`providerChargeId` for a capture).
pub(crate) fn decode_resolution(
    bytes: &[u8],
    id_member: &'static str,
) -> Result<Resolution, Vec<FieldError>> {
    let members = object(bytes)?;
    let pointer = || -> std::borrow::Cow<'static, str> { format!("/{id_member}").into() };
    let at = |reason| FieldError {
        pointer: pointer(),
        reason,
    };
    let mut errors = unknown_members(
        &members,
        &["outcome", id_member],
        "unknown member: only outcome and the kind's provider id member are allowed",
    );
    let outcome = match member(&members, "outcome", "/outcome") {
        Ok(Value::String(text)) if text == "succeeded" || text == "declined" => Some(text.as_str()),
        Ok(_) => {
            errors.push(FieldError::at(
                "/outcome",
                "must be \"succeeded\" or \"declined\"",
            ));
            None
        }
        Err(error) => {
            errors.push(error);
            None
        }
    };
    let charge = members.get(id_member);
    let resolution = match (outcome, charge) {
        (Some("succeeded"), Some(Value::String(raw))) => match ProviderId::parse(raw) {
            Ok(charge) => Some(Resolution::Succeeded(charge)),
            Err(_) => {
                errors.push(at(CHARGE_REASON));
                None
            }
        },
        (Some("succeeded"), None) => {
            errors.push(at("is required when the outcome is succeeded"));
            None
        }
        (Some("succeeded"), Some(_)) => {
            errors.push(at(CHARGE_REASON));
            None
        }
        (Some(_), Some(_)) => {
            errors.push(at("only with the outcome succeeded"));
            None
        }
        (Some(_), None) => Some(Resolution::Declined),
        (None, _) => None,
    };
    match resolution {
        Some(resolution) if errors.is_empty() => Ok(resolution),
        _ => {
            errors.truncate(MAX_REPORTED);
            Err(errors)
        }
    }
}

/// No body, or an empty object.
pub(crate) fn decode_nothing(bytes: &[u8]) -> Result<(), Vec<FieldError>> {
    if bytes.is_empty() {
        return Ok(());
    }
    let members = object(bytes)?;
    let errors = unknown_members(&members, &[], "unknown member: this action takes none");
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHARGE: &str = "providerChargeId";

    fn errors(body: &str) -> Vec<(String, &'static str)> {
        decode_resolution(body.as_bytes(), CHARGE)
            .unwrap_err()
            .into_iter()
            .map(|e| (e.pointer.into_owned(), e.reason))
            .collect()
    }

    #[test]
    fn a_resolution_is_succeeded_with_its_charge_or_declined_without() {
        assert_eq!(
            decode_resolution(
                br#"{"outcome":"succeeded","providerChargeId":"ch_1"}"#,
                CHARGE
            ),
            Ok(Resolution::Succeeded(ProviderId::parse("ch_1").unwrap()))
        );
        assert_eq!(
            decode_resolution(br#"{"outcome":"declined"}"#, CHARGE),
            Ok(Resolution::Declined)
        );
    }

    #[test]
    fn every_wrong_resolution_is_named() {
        assert_eq!(
            errors(r#"{"outcome":"succeeded"}"#),
            [(
                "/providerChargeId".to_owned(),
                "is required when the outcome is succeeded"
            )]
        );
        assert_eq!(
            errors(r#"{"outcome":"declined","providerChargeId":"ch_1"}"#),
            [(
                "/providerChargeId".to_owned(),
                "only with the outcome succeeded"
            )]
        );
        assert_eq!(
            errors(r#"{"outcome":"maybe","note":1}"#),
            [
                (
                    "/note".to_owned(),
                    "unknown member: only outcome and the kind's provider id member are allowed"
                ),
                (
                    "/outcome".to_owned(),
                    "must be \"succeeded\" or \"declined\""
                ),
            ]
        );
        assert_eq!(
            errors(r#"{"outcome":"succeeded","providerChargeId":"ch 1"}"#),
            [("/providerChargeId".to_owned(), CHARGE_REASON)]
        );
        assert_eq!(errors("{}"), [("/outcome".to_owned(), "is required")]);
    }

    #[test]
    fn retry_and_cancel_take_nothing_or_an_empty_object() {
        assert!(decode_nothing(b"").is_ok());
        assert!(decode_nothing(b"{}").is_ok());
        assert!(decode_nothing(br#"{"force":true}"#).is_err());
        assert!(decode_nothing(b"[]").is_err());
    }
}
