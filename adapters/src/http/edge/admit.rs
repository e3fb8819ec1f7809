//! The checks every idempotent `POST` makes before its operation runs
//! (`docs/http-api.md#order-of-checks`), and the one mapping of an [`Outcome`] to a response.

use std::time::Duration;

use actix_web::http::header::{CONTENT_ENCODING, CONTENT_TYPE};
use actix_web::web::{Bytes, Payload};
use actix_web::{HttpMessage, HttpRequest, HttpResponse};
use application::{Caller, ErrorChain, Outcome};
use domain::IdempotencyKey;

use super::auth::{Denied, TokenVerifier, authorized};
use super::key_header::parse_key_header;
use super::problem::Problem;
use super::refusal_form::ProblemForm;
use super::respond;
use crate::metrics::{Metrics, outcome_label};

pub const BODY_LIMIT_BYTES: usize = 16 * 1024;

pub const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// Passed the edge's checks; the body is not yet decoded.
#[derive(Debug)]
pub(crate) struct Admitted {
    pub(crate) caller: Caller,
    pub(crate) key: IdempotencyKey,
    pub(crate) body: Bytes,
}

/// The body is read only after the cheap checks passed; a refused request reaches no
/// store. `Err` is the response to send.
pub(crate) async fn admit(
    request: &HttpRequest,
    payload: Payload,
    keys: &TokenVerifier,
    permission: &str,
    body_timeout: Duration,
) -> Result<Admitted, HttpResponse> {
    let caller = authorized(request, keys, permission)
        .await
        .map_err(Denied::response)?;
    let key_fields: Vec<&[u8]> = request
        .headers()
        .get_all(IDEMPOTENCY_KEY)
        .map(|v| v.as_bytes())
        .collect();
    let key = parse_key_header(&key_fields)
        .map_err(|error| respond::problem(&Problem::for_key(error)))?;
    let body = json_body(request, payload, body_timeout).await?;
    Ok(Admitted { caller, key, body })
}

/// The body checks every JSON route makes, in order: media type, declared size, then
/// the body itself within `body_timeout` and the size limit. `Err` is the response to send.
pub(crate) async fn json_body(
    request: &HttpRequest,
    payload: Payload,
    body_timeout: Duration,
) -> Result<Bytes, HttpResponse> {
    if !is_json_utf8(request) {
        return Err(respond::problem(&Problem::unsupported_media_type()));
    }
    bounded_body(request, payload, body_timeout).await
}

/// [`json_body`] for a route whose body is optional: with a `Content-Type`, the same
/// checks; without one, only an empty body (one with content is of the wrong type).
pub(crate) async fn optional_json_body(
    request: &HttpRequest,
    payload: Payload,
    body_timeout: Duration,
) -> Result<Bytes, HttpResponse> {
    if request.headers().contains_key(CONTENT_TYPE) {
        return json_body(request, payload, body_timeout).await;
    }
    let body = bounded_body(request, payload, body_timeout).await?;
    if body.is_empty() {
        Ok(body)
    } else {
        Err(respond::problem(&Problem::unsupported_media_type()))
    }
}

/// No content coding, the declared size, then the body within the deadline and the limit
/// (also the on-call page's forms).
pub(crate) async fn bounded_body(
    request: &HttpRequest,
    payload: Payload,
    body_timeout: Duration,
) -> Result<Bytes, HttpResponse> {
    if has_content_coding(request) {
        return Err(respond::problem(&Problem::unsupported_media_type()));
    }
    if declared_length(request).is_some_and(|length| length > BODY_LIMIT_BYTES) {
        return Err(respond::problem(&Problem::payload_too_large()));
    }
    let read = tokio::time::timeout(body_timeout, payload.to_bytes_limited(BODY_LIMIT_BYTES));
    match read.await {
        Ok(Ok(Ok(bytes))) => Ok(bytes),
        // The client broke off or sent a malformed chunk encoding.
        Ok(Ok(Err(_))) => Err(respond::problem(&Problem::invalid_body(&[]))),
        Ok(Err(_limit_exceeded)) => Err(respond::problem(&Problem::payload_too_large())),
        Err(_elapsed) => Err(respond::problem(&Problem::request_timeout())),
    }
}

/// A request the edge refused is a span too: its outcome says so.
pub(crate) fn refused(response: HttpResponse) -> HttpResponse {
    tracing::Span::current().record(OUTCOME, "refused");
    response
}

/// The request span's field (and span attribute) that says how the request ended.
pub(crate) const OUTCOME: &str = "idempotent.outcome";

pub(crate) fn respond_outcome<R: ProblemForm>(
    metrics: &Metrics,
    name: &'static str,
    outcome: &Outcome<R>,
) -> HttpResponse {
    metrics.count_outcome(name, outcome);
    let span = tracing::Span::current();
    span.record(OUTCOME, outcome_label(outcome));
    match outcome {
        Outcome::Executed { record, response } | Outcome::Replayed { record, response } => {
            span.record("record_id", record.0);
            respond::stored(response, matches!(outcome, Outcome::Replayed { .. }))
        }
        // The first answer of a stored refusal: the very bytes every retry will get.
        Outcome::RejectedAndStored {
            record, response, ..
        } => {
            span.record("record_id", record.0);
            respond::stored(response, false)
        }
        Outcome::Failed(cause) => {
            tracing::error!(cause = %ErrorChain(cause), "idempotent execution failed");
            respond::problem(&Problem::internal())
        }
        other => respond::problem(&Problem::for_outcome(other).unwrap_or_else(Problem::internal)),
    }
}

/// `application/json`, with no parameter but an optional `charset=utf-8`.
fn is_json_utf8(request: &HttpRequest) -> bool {
    // Two fields could name two media types: which one counts is the question.
    if request.headers().get_all(CONTENT_TYPE).nth(1).is_some() {
        return false;
    }
    let Ok(Some(mime)) = request.mime_type() else {
        return false;
    };
    mime.type_() == "application"
        && mime.subtype() == "json"
        && mime.suffix().is_none()
        && mime
            .params()
            .all(|(name, value)| name == "charset" && value.as_str().eq_ignore_ascii_case("utf-8"))
}

/// Any coding but `identity`: bodies are read as they arrive, never decoded.
fn has_content_coding(request: &HttpRequest) -> bool {
    request
        .headers()
        .get_all(CONTENT_ENCODING)
        .any(|value| !value.as_bytes().eq_ignore_ascii_case(b"identity"))
}

/// So an oversized body is refused before any of it is read.
fn declared_length(request: &HttpRequest) -> Option<usize> {
    request
        .headers()
        .get(actix_web::http::header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}
