//! The provider's JSON (`docs/long-running-operations.md#the-payment-provider`).

use application::ports::Definite;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize)]
pub(super) struct ChargeRequest<'a> {
    pub(super) amount: u32,
    pub(super) currency: &'a str,
    pub(super) reference: &'a str,
}

/// Other fields (amount, currency) are ignored.
#[derive(Debug, Deserialize)]
struct ChargeBody {
    id: String,
    status: String,
}

/// An empty id, or a status other than `succeeded` or `declined`, is no definite answer.
pub(super) fn parse_charge(body: &[u8]) -> Option<Definite> {
    let body: ChargeBody = serde_json::from_slice(body).ok()?;
    let succeeded = match body.status.as_str() {
        "succeeded" => true,
        "declined" => false,
        _ => return None,
    };
    (!body.id.is_empty()).then_some(Definite {
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
            Some(Definite {
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
