//! The client itself: one pooled reqwest client and the provider's collections under `v1/`.

use std::sync::Arc;
use std::time::Duration;

use application::payments::{Money, ProviderRequest, ProviderResource};
use application::ports::{Definite, NoAnswer, ProviderAnswer};
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{Client, RequestBuilder, Response, StatusCode, Url, redirect};

use super::config::{ProviderConfigError, api_url, checked_timeout};
use super::outcome::{Exchange, Failure, create_answer, lookup_answer, transport_failure};
use super::tls::client_config;
use crate::telemetry::current_trace_headers;

/// A provider unreachable this long will not be reached later in the call; giving up
/// early leaves the worker's lease for the retry.
const MAX_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest answer read: a charge or refund is a few hundred bytes; more is not one.
const MAX_BODY_BYTES: usize = 64 * 1024;

/// Clones share one connection pool.
#[derive(Clone)]
pub struct HttpPaymentProvider {
    client: Client,
    /// `<base>/v1/`.
    api: Arc<Url>,
}

/// Shows the endpoint without any user or password the URL may carry.
impl std::fmt::Debug for HttpPaymentProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpPaymentProvider")
            .field("scheme", &self.api.scheme())
            .field("host", &self.api.host_str().unwrap_or_default())
            .field("port", &self.api.port_or_known_default())
            .field("path", &self.api.path())
            .finish_non_exhaustive()
    }
}

impl HttpPaymentProvider {
    /// `timeout` bounds each call as a whole, connecting included. Redirects are not
    /// followed: a charge is never re-sent anywhere the configuration did not name.
    ///
    /// # Errors
    /// [`ProviderConfigError`] for a bad URL, a zero timeout, or (for `https`) a missing
    /// trust store.
    pub fn new(base_url: &str, timeout: Duration) -> Result<Self, ProviderConfigError> {
        let api = api_url(base_url)?;
        let timeout = checked_timeout(timeout)?;
        let tls = client_config(api.scheme() == "https").map_err(ProviderConfigError::Tls)?;
        let client = Client::builder()
            .tls_backend_preconfigured(tls)
            .timeout(timeout)
            .connect_timeout(timeout.min(MAX_CONNECT_TIMEOUT))
            .redirect(redirect::Policy::none())
            // No `HTTP_PROXY` from the environment silently routing payments elsewhere.
            .no_proxy()
            .build()
            .map_err(|e| ProviderConfigError::Client(e.without_url()))?;
        Ok(Self {
            client,
            api: Arc::new(api),
        })
    }

    fn endpoint(&self, resource: ProviderResource) -> Result<Url, Failure> {
        self.api.join(resource.path).map_err(Failure::Endpoint)
    }

    pub(super) async fn post(
        &self,
        resource: ProviderResource,
        key: &str,
        request: &ProviderRequest<'_>,
    ) -> ProviderAnswer {
        let sent = async {
            let url = self.endpoint(resource)?;
            let body = serde_json::to_vec(&request.body()).map_err(Failure::NotEncoded)?;
            let request = self
                .client
                .post(url)
                .header("Idempotency-Key", key)
                .header(CONTENT_TYPE, "application/json")
                .header(ACCEPT, "application/json")
                .body(body);
            exchange(
                with_trace(request).send().await,
                &[StatusCode::OK, StatusCode::CREATED],
            )
            .await
        };
        match sent.await {
            Ok(exchange) => create_answer(&exchange, request.money),
            Err(failure) => ProviderAnswer::Unknown(failure.into()),
        }
    }

    pub(super) async fn get(
        &self,
        resource: ProviderResource,
        key: &str,
        money: Money,
    ) -> Result<Option<Definite>, NoAnswer> {
        let mut url = self.endpoint(resource)?;
        url.query_pairs_mut().append_pair("idempotency_key", key);
        let request = self.client.get(url).header(ACCEPT, "application/json");
        let exchange = exchange(with_trace(request).send().await, &[StatusCode::OK]).await?;
        lookup_answer(&exchange, money)
    }
}

/// The provider sees the call's span as its parent (`traceparent`), so its side of the
/// call is in the same trace as the request that accepted the operation.
fn with_trace(mut request: RequestBuilder) -> RequestBuilder {
    for (name, value) in current_trace_headers() {
        request = request.header(name, value);
    }
    request
}

/// Only the body of a `read_for` status is read, so no other can end up in a log.
async fn exchange(
    sent: Result<Response, reqwest::Error>,
    read_for: &[StatusCode],
) -> Result<Exchange, Failure> {
    let mut response = sent.map_err(transport_failure)?;
    let status = response.status();
    if !read_for.contains(&status) {
        return Ok(Exchange { status, body: None });
    }
    let body = bounded_body(&mut response, MAX_BODY_BYTES)
        .await
        .map_err(transport_failure)?
        .ok_or(Failure::TooLarge {
            status,
            limit: MAX_BODY_BYTES,
        })?;
    Ok(Exchange {
        status,
        body: Some(body),
    })
}

/// The body, read chunk by chunk; `None` as soon as it passes `limit` bytes.
pub(crate) async fn bounded_body(
    response: &mut Response,
    limit: usize,
) -> Result<Option<Vec<u8>>, reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > limit {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body))
}
