//! The provider's JSON (`docs/long-running-operations.md#the-payment-provider`).

use application::payments::Money;
use application::ports::Definite;
use domain::{ProviderId, TokenTextError};
use serde::Deserialize;

/// A charge's or a refund's answer.
#[derive(Debug, Deserialize)]
struct AnswerBody {
    id: String,
    status: String,
    amount: u64,
    currency: String,
}

/// Why a success's body is no definite answer. Never holds the body or a part of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(super) enum Misanswer {
    #[error("not a charge or refund")]
    NotAnAnswer,
    #[error("its id is not of the provider id's form")]
    Id(#[source] TokenTextError),
    #[error("it names other money than asked")]
    OtherMoney,
}

/// Definite only when it names the money asked, with an id of [`ProviderId`]'s form and a
/// status of `succeeded` or `declined`: anything else could not be recorded as it is.
pub(super) fn parse_answer(body: &[u8], asked: Money) -> Result<Definite, Misanswer> {
    let body: AnswerBody = serde_json::from_slice(body).map_err(|_| Misanswer::NotAnAnswer)?;
    let succeeded = match body.status.as_str() {
        "succeeded" => true,
        "declined" => false,
        _ => return Err(Misanswer::NotAnAnswer),
    };
    let id = ProviderId::parse(&body.id).map_err(Misanswer::Id)?;
    if body.amount != u64::from(asked.amount.get()) || body.currency != asked.currency.as_str() {
        return Err(Misanswer::OtherMoney);
    }
    Ok(Definite { id, succeeded })
}

#[cfg(test)]
mod tests {
    use domain::{Amount, Currency};

    use super::*;

    fn yen(amount: i64) -> Money {
        Money {
            amount: Amount::parse(amount).unwrap(),
            currency: Currency::parse("JPY").unwrap(),
        }
    }

    #[test]
    fn only_an_answer_with_a_known_status_parses() {
        let ok = br#"{"id":"ch_1","status":"succeeded","amount":5,"currency":"JPY"}"#;
        assert_eq!(
            parse_answer(ok, yen(5)),
            Ok(Definite {
                id: ProviderId::parse("ch_1").unwrap(),
                succeeded: true
            })
        );
        let declined = br#"{"id":"ch_2","status":"declined","amount":5,"currency":"JPY"}"#;
        assert_eq!(
            parse_answer(declined, yen(5)).map(|c| c.succeeded),
            Ok(false)
        );
        for bad in [
            &br#"{"id":"ch_3","status":"pending","amount":5,"currency":"JPY"}"#[..],
            br#"{"id":"ch_3","status":"succeeded"}"#,
            br#"{"status":"succeeded","amount":5,"currency":"JPY"}"#,
            b"<html>",
            b"",
        ] {
            assert_eq!(
                parse_answer(bad, yen(5)),
                Err(Misanswer::NotAnAnswer),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn an_id_out_of_form_or_other_money_is_no_answer() {
        let long = "c".repeat(ProviderId::MAX_CHARS + 1);
        for id in ["", "ch_\\u0000", "<b>ch</b>", long.as_str()] {
            let body =
                format!(r#"{{"id":"{id}","status":"succeeded","amount":5,"currency":"JPY"}}"#);
            assert!(
                matches!(parse_answer(body.as_bytes(), yen(5)), Err(Misanswer::Id(_))),
                "{body}"
            );
        }
        for (amount, currency) in [(1, "JPY"), (5, "USD"), (5, "jpy")] {
            let body = format!(
                r#"{{"id":"ch_1","status":"succeeded","amount":{amount},"currency":"{currency}"}}"#
            );
            assert_eq!(
                parse_answer(body.as_bytes(), yen(5)),
                Err(Misanswer::OtherMoney),
                "{body}"
            );
        }
        let declined = br#"{"id":"ch_1","status":"declined","amount":6,"currency":"JPY"}"#;
        assert_eq!(parse_answer(declined, yen(5)), Err(Misanswer::OtherMoney));
    }
}
