//! The provider's JSON (`docs/long-running-operations.md#the-payment-provider`).

use application::ports::Definite;
use serde::Deserialize;

/// A charge's or a refund's answer; other fields (amount, currency) are ignored.
#[derive(Debug, Deserialize)]
struct AnswerBody {
    id: String,
    status: String,
}

/// An empty id, or a status other than `succeeded` or `declined`, is no definite answer.
pub(super) fn parse_answer(body: &[u8]) -> Option<Definite> {
    let body: AnswerBody = serde_json::from_slice(body).ok()?;
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
    fn only_an_answer_with_a_known_status_parses() {
        let ok = br#"{"id":"ch_1","status":"succeeded","amount":5,"currency":"JPY"}"#;
        assert_eq!(
            parse_answer(ok),
            Some(Definite {
                id: "ch_1".to_owned(),
                succeeded: true
            })
        );
        let declined = br#"{"id":"ch_2","status":"declined"}"#;
        assert_eq!(parse_answer(declined).map(|c| c.succeeded), Some(false));
        for bad in [
            &br#"{"id":"ch_3","status":"pending"}"#[..],
            br#"{"id":"","status":"succeeded"}"#,
            br#"{"status":"succeeded"}"#,
            b"<html>",
            b"",
        ] {
            assert_eq!(parse_answer(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }
}
