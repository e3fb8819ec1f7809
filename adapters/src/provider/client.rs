//! The client itself: one pooled reqwest client and the charges endpoint.

use std::sync::Arc;
use std::time::Duration;

use application::ports::{Definite, NoAnswer, ProviderAnswer};
use domain::PaymentCapture;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{Client, RequestBuilder, Response, StatusCode, Url, redirect};

use super::config::{ProviderConfigError, charges_url, checked_timeout};
use super::outcome::{Exchange, Failure, charge_answer, lookup_answer, transport_failure};
use super::tls::client_config;
use super::wire::ChargeRequest;
use crate::telemetry::current_trace_headers;

/// A provider unreachable this long will not be reached later in the call; giving up
/// early leaves the worker's lease for the retry.
const MAX_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest answer read: a charge is a few hundred bytes; more is not a charge.
const MAX_BODY_BYTES: usize = 64 * 1024;

/// Clones share one connection pool.
#[derive(Clone)]
pub struct HttpPaymentProvider {
    client: Client,
    charges: Arc<Url>,
}

/// Shows the endpoint without any user or password the URL may carry.
impl std::fmt::Debug for HttpPaymentProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpPaymentProvider")
            .field("scheme", &self.charges.scheme())
            .field("host", &self.charges.host_str().unwrap_or_default())
            .field("port", &self.charges.port_or_known_default())
            .field("path", &self.charges.path())
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
        let charges = charges_url(base_url)?;
        let timeout = checked_timeout(timeout)?;
        let tls = client_config(charges.scheme() == "https").map_err(ProviderConfigError::Tls)?;
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
            charges: Arc::new(charges),
        })
    }

    pub(super) async fn post_charge(
        &self,
        key: &str,
        input: &PaymentCapture,
        reference: &str,
    ) -> ProviderAnswer {
        let body = ChargeRequest {
            amount: input.amount.get(),
            currency: input.currency.as_str(),
            reference,
        };
        let body = match serde_json::to_vec(&body) {
            Ok(body) => body,
            Err(e) => return ProviderAnswer::Unknown(Failure::NotEncoded(e).into()),
        };
        let request = self
            .client
            .post(self.charges.as_ref().clone())
            .header("Idempotency-Key", key)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json")
            .body(body);
        match exchange(
            with_trace(request).send().await,
            &[StatusCode::OK, StatusCode::CREATED],
        )
        .await
        {
            Ok(exchange) => charge_answer(&exchange),
            Err(failure) => ProviderAnswer::Unknown(failure.into()),
        }
    }

    pub(super) async fn get_charge(&self, key: &str) -> Result<Option<Definite>, NoAnswer> {
        let mut url = self.charges.as_ref().clone();
        url.query_pairs_mut().append_pair("idempotency_key", key);
        let request = self.client.get(url).header(ACCEPT, "application/json");
        lookup_answer(&exchange(with_trace(request).send().await, &[StatusCode::OK]).await?)
    }
}

/// The provider sees the call's span as its parent (`traceparent`), so its side of the
/// charge is in the same trace as the request that accepted the capture.
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
