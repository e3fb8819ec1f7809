//! The provider's JSON, as the contract gives it (§7).

use application::ports::Charge;
use serde::{Deserialize, Serialize};

/// The body of `POST /v1/charges`.
#[derive(Debug, Serialize)]
pub(super) struct ChargeRequest<'a> {
    pub(super) amount: u32,
    pub(super) currency: &'a str,
    pub(super) reference: &'a str,
}

/// What the provider answers about a charge; other fields (amount, currency) are
/// ignored.
#[derive(Debug, Deserialize)]
struct ChargeBody {
    id: String,
    status: String,
}

/// The charge in a `200`/`201` body; `None` when the body is not a charge with an id and
/// a status of `succeeded` or `declined` (any other status is not a definite answer).
pub(super) fn parse_charge(body: &[u8]) -> Option<Charge> {
    let body: ChargeBody = serde_json::from_slice(body).ok()?;
    let succeeded = match body.status.as_str() {
        "succeeded" => true,
        "declined" => false,
        _ => return None,
    };
    (!body.id.is_empty()).then_some(Charge {
        id: body.id,
        succeeded,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_charge_with_a_known_status_parses() {
        let ok = br#"{"id":"ch_1","status":"succeeded","amount":5,"currency":"JPY"}"#;
        assert_eq!(
            parse_charge(ok),
            Some(Charge {
                id: "ch_1".to_owned(),
                succeeded: true
            })
        );
        let declined = br#"{"id":"ch_2","status":"declined"}"#;
        assert_eq!(parse_charge(declined).map(|c| c.succeeded), Some(false));
        for bad in [
            &br#"{"id":"ch_3","status":"pending"}"#[..],
            br#"{"id":"","status":"succeeded"}"#,
            br#"{"status":"succeeded"}"#,
            b"<html>",
            b"",
        ] {
            assert_eq!(parse_charge(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }
}
