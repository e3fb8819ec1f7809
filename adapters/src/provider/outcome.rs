//! How an HTTP exchange with the provider becomes an answer
//! (`docs/long-running-operations.md#the-payment-provider`).

use application::payments::Money;
use application::ports::{Definite, NoAnswer, ProviderAnswer};
use domain::AttemptError;
use reqwest::StatusCode;

use super::wire::{Misanswer, parse_answer};

/// `body` is read only for success codes.
#[derive(Debug)]
pub(super) struct Exchange {
    pub(super) status: StatusCode,
    pub(super) body: Option<Vec<u8>>,
}

/// Never holds the key, the URL (its query holds the key) or a body.
#[derive(Debug, thiserror::Error)]
pub(super) enum Failure {
    #[error("provider answered {0}")]
    Status(StatusCode),
    #[error("provider answered {status} with a body we cannot record")]
    NotAnAnswer {
        status: StatusCode,
        #[source]
        why: Misanswer,
    },
    #[error("provider answered {status} with a body over {limit} bytes")]
    TooLarge { status: StatusCode, limit: usize },
    /// A bug or a configuration error on our side, not a decline.
    #[error("provider refused the request: {0}")]
    Refused(StatusCode),
    #[error("{kind}")]
    Transport {
        kind: &'static str,
        /// With the URL removed.
        #[source]
        source: reqwest::Error,
    },
    #[error("request not encoded")]
    NotEncoded(#[source] serde_json::Error),
    /// The collection's path does not make a URL: a bug on our side.
    #[error("provider endpoint not made")]
    Endpoint(#[source] url::ParseError),
}

impl Failure {
    fn class(&self) -> AttemptError {
        match self {
            Self::Status(_) => AttemptError::ProviderStatus,
            Self::NotAnAnswer { .. } | Self::TooLarge { .. } => AttemptError::Malformed,
            Self::Refused(_) | Self::NotEncoded(_) | Self::Endpoint(_) => AttemptError::Refused,
            Self::Transport { source, .. } if source.is_timeout() => AttemptError::Timeout,
            Self::Transport { .. } => AttemptError::Transport,
        }
    }
}

impl From<Failure> for NoAnswer {
    fn from(failure: Failure) -> Self {
        NoAnswer::new(failure.class(), failure)
    }
}

/// A success's body as a definite answer about `asked`.
fn definite(exchange: &Exchange, asked: Money) -> Result<Definite, Failure> {
    let body = exchange.body.as_deref().ok_or(Misanswer::NotAnAnswer);
    body.and_then(|body| parse_answer(body, asked))
        .map_err(|why| Failure::NotAnAnswer {
            status: exchange.status,
            why,
        })
}

pub(super) fn create_answer(exchange: &Exchange, asked: Money) -> ProviderAnswer {
    let status = exchange.status;
    let failure = match status {
        StatusCode::OK | StatusCode::CREATED => match definite(exchange, asked) {
            Ok(done) => return ProviderAnswer::Definite(done),
            Err(failure) => failure,
        },
        // The key is being processed, or we are being throttled: the charge may exist.
        StatusCode::CONFLICT | StatusCode::TOO_MANY_REQUESTS => Failure::Status(status),
        _ if status.is_client_error() => {
            // The operation stays unresolved for the retries and a person.
            tracing::warn!(%status, "payment provider refused a request");
            Failure::Refused(status)
        }
        _ => Failure::Status(status),
    };
    ProviderAnswer::Unknown(failure.into())
}

/// `404` is a definite "none"; anything but `200` and `404` is no answer.
pub(super) fn lookup_answer(
    exchange: &Exchange,
    asked: Money,
) -> Result<Option<Definite>, NoAnswer> {
    let status = exchange.status;
    match status {
        StatusCode::OK => Ok(Some(definite(exchange, asked)?)),
        StatusCode::NOT_FOUND => Ok(None),
        _ => {
            if status.is_client_error() && status != StatusCode::TOO_MANY_REQUESTS {
                tracing::warn!(%status, "payment provider refused a lookup");
            }
            Err(Failure::Status(status).into())
        }
    }
}

/// Keeps reqwest's error for its causes ("connection closed before message completed").
pub(super) fn transport_failure(err: reqwest::Error) -> Failure {
    let kind = if err.is_timeout() {
        "timeout"
    } else if err.is_connect() {
        "connect failed"
    } else if err.is_body() || err.is_decode() {
        "reading the answer failed"
    } else if err.is_builder() {
        "request not built"
    } else {
        "transport failed"
    };
    Failure::Transport {
        kind,
        source: err.without_url(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchange(status: u16, body: &str) -> Exchange {
        Exchange {
            status: StatusCode::from_u16(status).unwrap(),
            body: Some(body.as_bytes().to_vec()),
        }
    }

    const CHARGE: &str = r#"{"id":"ch_1","status":"succeeded","amount":5,"currency":"JPY"}"#;

    /// What [`CHARGE`] charged.
    fn asked() -> Money {
        Money {
            amount: domain::Amount::parse(5).unwrap(),
            currency: domain::Currency::parse("JPY").unwrap(),
        }
    }

    #[test]
    fn only_a_parseable_success_is_definite() {
        for status in [200, 201] {
            assert!(
                matches!(create_answer(&exchange(status, CHARGE), asked()), ProviderAnswer::Definite(c) if c.succeeded)
            );
            assert!(matches!(
                create_answer(&exchange(status, "{"), asked()),
                ProviderAnswer::Unknown(_)
            ));
        }
        for status in [
            202, 204, 301, 400, 401, 402, 403, 404, 409, 422, 429, 500, 502, 503,
        ] {
            assert!(
                matches!(
                    create_answer(&exchange(status, CHARGE), asked()),
                    ProviderAnswer::Unknown(_)
                ),
                "{status}"
            );
        }
    }

    #[test]
    fn lookup_knows_found_and_not_found_only() {
        assert!(
            matches!(lookup_answer(&exchange(200, CHARGE), asked()), Ok(Some(c)) if c.id.as_str() == "ch_1")
        );
        assert!(matches!(
            lookup_answer(&exchange(404, ""), asked()),
            Ok(None)
        ));
        assert!(lookup_answer(&exchange(200, "nope"), asked()).is_err());
        for status in [201, 400, 409, 429, 500, 503] {
            assert!(
                lookup_answer(&exchange(status, CHARGE), asked()).is_err(),
                "{status}"
            );
        }
    }

    #[test]
    fn reasons_hold_no_body() {
        let secret = r#"{"id":"ch_secret","status":"pending"}"#;
        for status in [200, 201, 400, 500] {
            if let ProviderAnswer::Unknown(reason) =
                create_answer(&exchange(status, secret), asked())
            {
                let reason = application::ErrorChain(&reason).to_string();
                assert!(!reason.contains("secret"), "{reason}");
            }
        }
    }
}
