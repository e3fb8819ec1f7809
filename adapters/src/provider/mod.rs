//! The payment provider over HTTP (`docs/long-running-operations.md#the-payment-provider`).
//! Only a parseable `200`/`201` is definite: anything else may hide a charge, so it is
//! [`ProviderAnswer::Unknown`], never a decline. Reasons never hold the key or a body.

mod client;
mod config;
mod outcome;
mod tls;
mod wire;

use application::ports::{Definite, NoAnswer, PaymentProvider, ProviderAnswer};
use domain::PaymentCapture;
use tracing::Instrument;

pub use client::HttpPaymentProvider;
pub(crate) use client::bounded_body;
pub use config::ProviderConfigError;
pub(crate) use tls::client_config;

impl PaymentProvider for HttpPaymentProvider {
    async fn charge(&self, key: &str, input: &PaymentCapture, reference: &str) -> ProviderAnswer {
        let span = call_span("provider charge", "POST");
        let answer = self
            .post_charge(key, input, reference)
            .instrument(span.clone())
            .await;
        if matches!(answer, ProviderAnswer::Unknown(_)) {
            span.record("otel.status_code", "error");
        }
        answer
    }

    async fn lookup(&self, key: &str) -> Result<Option<Definite>, NoAnswer> {
        let span = call_span("provider lookup", "GET");
        let found = self.get_charge(key).instrument(span.clone()).await;
        if found.is_err() {
            span.record("otel.status_code", "error");
        }
        found
    }
}

/// An HTTP client span; neither the key nor the URL's query is an attribute.
fn call_span(name: &'static str, method: &'static str) -> tracing::Span {
    tracing::info_span!(
        target: "spans",
        "provider call",
        otel.name = name,
        otel.kind = "client",
        otel.status_code = tracing::field::Empty,
        http.request.method = method,
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::HttpPaymentProvider;

    #[test]
    fn debug_shows_no_credentials() {
        let provider =
            HttpPaymentProvider::new("http://user:s3cret@127.0.0.1:9/", Duration::from_secs(1))
                .unwrap();
        let shown = format!("{provider:?}");
        assert!(
            !shown.contains("s3cret") && !shown.contains("user"),
            "{shown}"
        );
        assert!(shown.contains("127.0.0.1"), "{shown}");
    }
}
