//! The payment provider over HTTP (`docs/long-running-operations.md#the-payment-provider`).
//! Only a parseable `200`/`201` is definite: anything else may hide a charge, so it is
//! [`ProviderAnswer::Unknown`], never a decline. Reasons never hold the key or a body.

mod client;
mod config;
mod outcome;
mod tls;
mod wire;

use application::payments::{Money, ProviderRequest, ProviderResource};
use application::ports::{Definite, NoAnswer, PaymentProvider, ProviderAnswer};
use tracing::Instrument;

pub use client::HttpPaymentProvider;
pub(crate) use client::bounded_body;
pub use config::ProviderConfigError;
pub(crate) use tls::client_config;

impl PaymentProvider for HttpPaymentProvider {
    async fn create(
        &self,
        resource: ProviderResource,
        key: &str,
        request: &ProviderRequest<'_>,
    ) -> ProviderAnswer {
        let span = call_span(&format!("provider {}", resource.one), "POST");
        let answer = self
            .post(resource, key, request)
            .instrument(span.clone())
            .await;
        if matches!(answer, ProviderAnswer::Unknown(_)) {
            span.record("otel.status_code", "error");
        }
        answer
    }

    async fn find(
        &self,
        resource: ProviderResource,
        key: &str,
        money: Money,
    ) -> Result<Option<Definite>, NoAnswer> {
        let span = call_span(&format!("provider {} lookup", resource.one), "GET");
        let found = self
            .get(resource, key, money)
            .instrument(span.clone())
            .await;
        if found.is_err() {
            span.record("otel.status_code", "error");
        }
        found
    }
}

/// An HTTP client span (`provider charge`, `provider charge lookup`); neither the key nor
/// the URL's query is an attribute.
fn call_span(name: &str, method: &'static str) -> tracing::Span {
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
