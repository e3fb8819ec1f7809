//! Per-request middleware: a request id, the request's span (continuing the caller's
//! trace, `docs/tracing.md`), one log line per request, the latency histogram, and the
//! connection closed when a request's body was left unread. Neither headers nor
//! bodies are logged: tokens and order data stay out of the logs. Every label and logged
//! field comes from a closed set, so a client cannot grow the metrics or a log line.

use std::sync::Arc;
use std::time::Instant;

use actix_http::ConnectionType;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, web};
use tracing::Instrument;
use tracing::field::Empty;

use super::body_drained::{KeepBody, watch_body};
use crate::metrics::Metrics;
use crate::telemetry;

pub const REQUEST_ID: &str = "x-request-id";

/// This request's id, for handlers that record it (the audit trail).
#[derive(Debug, Clone)]
pub(crate) struct RequestId(pub(crate) String);

impl RequestId {
    /// A request that did not pass [`request_context`] gets an id of its own.
    pub(crate) fn of(request: &actix_web::HttpRequest) -> String {
        use actix_web::HttpMessage;
        request.extensions().get::<Self>().map_or_else(
            || uuid::Uuid::new_v4().hyphenated().to_string(),
            |id| id.0.clone(),
        )
    }
}

/// The idempotent `POST` handler fills in the span's `record_id` and `outcome`.
///
/// # Errors
/// Passes on the inner service's error.
pub async fn request_context(
    mut request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let started = Instant::now();
    let mut id_text = uuid::Uuid::encode_buffer();
    let request_id: &str = uuid::Uuid::new_v4().hyphenated().encode_lower(&mut id_text);
    let route = request
        .match_pattern()
        .unwrap_or_else(|| "unmatched".to_owned());
    let method = method_label(request.method());
    let body_end = watch_body(&mut request);
    actix_web::HttpMessage::extensions_mut(&request).insert(RequestId(request_id.to_owned()));
    let metrics = request.app_data::<web::Data<Arc<Metrics>>>().cloned();
    let span = tracing::info_span!(
        "request",
        request_id = %request_id,
        method = %method,
        route = %route,
        record_id = Empty,
        idempotent.outcome = Empty,
        otel.name = Empty,
        otel.kind = Empty,
        otel.status_code = Empty,
        http.request.method = Empty,
        http.route = Empty,
        http.response.status_code = Empty,
    );
    if telemetry::is_on() {
        server_span(&span, method, &route, &request);
    }
    let result = next.call(request).instrument(span.clone()).await;
    let elapsed = started.elapsed();
    let status = match &result {
        Ok(response) => response.status().as_u16(),
        Err(error) => error.as_response_error().status_code().as_u16(),
    };
    if let Some(metrics) = metrics {
        metrics.observe_request(method, &route, status, elapsed.as_secs_f64());
    }
    if telemetry::is_on() {
        span.record("http.response.status_code", status);
        if status >= 500 {
            span.record("otel.status_code", "error");
        }
    }
    span.in_scope(|| {
        tracing::info!(
            status,
            elapsed_us = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX),
            "request finished"
        );
    });
    let mut response = result?;
    let unread = body_end.filter(|watch| !watch.reached_end());
    if unread.is_some() {
        response
            .response_mut()
            .head_mut()
            .set_connection_type(ConnectionType::Close);
    }
    if let Ok(value) = HeaderValue::from_str(request_id) {
        response
            .headers_mut()
            .insert(HeaderName::from_static(REQUEST_ID), value);
    }
    // Held until the answer is sent, so actix-http closes instead of draining the body.
    Ok(response.map_body(|_, body| KeepBody::new(body.boxed(), unread)))
}

/// The HTTP server span's conventional name and attributes, and the caller's trace
/// (`traceparent`, `tracestate`) as its parent when valid.
fn server_span(span: &tracing::Span, method: &str, route: &str, request: &ServiceRequest) {
    span.record("otel.name", format!("{method} {route}"));
    span.record("otel.kind", "server");
    span.record("http.request.method", method);
    span.record("http.route", route);
    telemetry::continue_from_headers(span, |name| {
        request
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
    });
}

/// The method as metrics and logs name it: one the API serves, or `other`.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::DELETE => "DELETE",
        _ => "other",
    }
}
