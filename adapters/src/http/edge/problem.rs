//! RFC 9457 problem details with a stable `code` (`docs/http-api.md#problem-details`),
//! and the one mapping from each coordinator outcome and input error to its status.

use domain::KeyError;
use serde::Serialize;
use utoipa::ToSchema;

use super::members::FieldError;

pub const PROBLEM_JSON: &str = "application/problem+json";

/// Where each problem type is described: `type` is `/problems/<code>` (`GET` serves the
/// description, `docs/http-api.md#problem-types`).
pub(crate) const PROBLEM_TYPES: &str = "/problems";

/// Whether the same request, with the same key, can succeed later: what a client most
/// needs to know of a problem, said on its type's page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Later {
    /// Nothing was done that stands in the way (or it cannot be told yet): the same
    /// request with the same key may succeed later.
    MaySucceed,
    /// The same request with the same key meets this answer again: the request (or the
    /// resource) must change first.
    SameAnswer,
}

/// The `Retry-After` of `409 request_in_progress`, every `503`, and a pending operation.
pub const RETRY_AFTER_SECS: u32 = 1;

/// One error response. Texts are fixed per code: no token, header or body is ever quoted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({
    "type": "/problems/invalid_body",
    "title": "Invalid body",
    "status": 400,
    "detail": "The body does not match the operation's schema; see errors.",
    "code": "invalid_body",
    "errors": [{"pointer": "/quantity", "reason": "must be at most 100"}]
}))]
pub struct Problem {
    /// The problem type, one per code: `/problems/<code>`, a URI reference to this
    /// service's description of it (what it means, whether the same request with the same
    /// key can succeed later).
    #[serde(rename = "type")]
    #[schema(format = "uri-reference", example = "/problems/invalid_body")]
    pub type_uri: String,
    /// A short summary.
    pub title: &'static str,
    /// The HTTP status.
    #[schema(minimum = 400, maximum = 599)]
    pub status: u16,
    /// What happened and what to do.
    pub detail: &'static str,
    /// The stable machine-readable code; each response lists the codes it can carry.
    #[schema(example = "invalid_body")]
    pub code: &'static str,
    /// The violations of an `invalid_body` (at most 16); absent on other problems.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schema(max_items = 16)]
    pub errors: Vec<ProblemField>,
    /// The resource's current state, on a `409 state_conflict` of an admin action, and
    /// the operation's on a `409 operation_unfinished`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "succeeded")]
    pub state: Option<&'static str>,
    /// The operation a `409 operation_unfinished` names.
    #[serde(rename = "operationId", skip_serializing_if = "Option::is_none")]
    #[schema(format = "uuid")]
    pub operation_id: Option<String>,
    /// `Retry-After` to send, in seconds.
    #[serde(skip)]
    pub retry_after: Option<u32>,
    /// Told on the type's page, not in the document.
    #[serde(skip)]
    #[schema(ignore)]
    pub later: Later,
}

/// A violation in the `errors` array.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct ProblemField {
    /// JSON Pointer (RFC 6901) to the value; `""` is the whole document.
    #[schema(value_type = String, example = "/quantity")]
    pub pointer: std::borrow::Cow<'static, str>,
    /// What is wrong.
    pub reason: &'static str,
}

impl Problem {
    /// `code` is the refusal's own ([`application::Refusal::code`]) or the edge's.
    #[must_use]
    pub fn new(status: u16, code: &'static str, title: &'static str, detail: &'static str) -> Self {
        Self {
            type_uri: format!("{PROBLEM_TYPES}/{code}"),
            title,
            status,
            detail,
            code,
            errors: Vec::new(),
            state: None,
            operation_id: None,
            retry_after: None,
            later: Later::SameAnswer,
        }
    }

    /// With `Retry-After`: the same request may succeed later.
    pub(crate) fn retry(mut self) -> Self {
        self.retry_after = Some(RETRY_AFTER_SECS);
        self.may_succeed_later()
    }

    #[must_use]
    pub fn may_succeed_later(mut self) -> Self {
        self.later = Later::MaySucceed;
        self
    }

    #[must_use]
    pub fn key_reused() -> Self {
        Self::new(
            422,
            "idempotency_key_reused",
            "Idempotency-Key reused",
            "This key was used with a different request. Use a new key for a new request.",
        )
    }

    #[must_use]
    pub fn in_progress() -> Self {
        Self::new(
            409,
            "request_in_progress",
            "Request in progress",
            "A request with this key is still being processed. Retry later with the same key.",
        )
        .retry()
    }

    #[must_use]
    pub fn outcome_unknown() -> Self {
        Self::new(
            503,
            "outcome_unknown",
            "Outcome unknown",
            "Whether the request took effect cannot be told now. Retry with the same key; never a new one.",
        )
        .retry()
    }

    #[must_use]
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    #[must_use]
    pub fn for_key(error: KeyError) -> Self {
        match error {
            KeyError::Missing => Self::new(
                400,
                "idempotency_key_missing",
                "Idempotency-Key missing",
                "Send one Idempotency-Key header naming this operation.",
            ),
            _ => Self::new(
                400,
                "idempotency_key_invalid",
                "Idempotency-Key invalid",
                "Send exactly one Idempotency-Key of 1 to 128 characters of A-Z a-z 0-9 - _.",
            ),
        }
    }

    #[must_use]
    pub fn invalid_body(errors: &[FieldError]) -> Self {
        Self::new(
            400,
            "invalid_body",
            "Invalid body",
            "The body does not match the operation's schema; see errors.",
        )
        .with_errors(errors)
    }

    pub(crate) fn with_errors(mut self, errors: &[FieldError]) -> Self {
        self.errors = errors
            .iter()
            .map(|e| ProblemField {
                pointer: e.pointer.clone(),
                reason: e.reason,
            })
            .collect();
        self
    }

    /// `auth::Denied` adds the `WWW-Authenticate` challenge.
    #[must_use]
    pub fn unauthorized() -> Self {
        Self::new(
            401,
            "unauthorized",
            "Unauthorized",
            "Send a valid, unexpired bearer token.",
        )
        .may_succeed_later()
    }

    #[must_use]
    pub fn forbidden() -> Self {
        Self::new(
            403,
            "forbidden",
            "Forbidden",
            "The token does not grant this operation.",
        )
        .may_succeed_later()
    }

    #[must_use]
    pub fn unsupported_media_type() -> Self {
        Self::new(
            415,
            "unsupported_media_type",
            "Unsupported media type",
            "Send one Content-Type: application/json (charset=utf-8 is allowed) and no Content-Encoding.",
        )
    }

    #[must_use]
    pub fn payload_too_large() -> Self {
        Self::new(
            413,
            "payload_too_large",
            "Payload too large",
            "The body must not exceed 16 KiB.",
        )
    }

    /// Whether the resource exists in another tenant is never told.
    #[must_use]
    pub fn not_found() -> Self {
        Self::new(
            404,
            application::NOT_FOUND,
            "Not found",
            "No such resource.",
        )
    }

    /// `408`: the body did not arrive within `REQUEST_BODY_TIMEOUT_SECS`; the connection
    /// closes after it.
    #[must_use]
    pub fn request_timeout() -> Self {
        Self::new(
            408,
            "request_timeout",
            "Request timeout",
            "The request body did not arrive in time; nothing was done.",
        )
        .may_succeed_later()
    }

    #[must_use]
    pub fn internal() -> Self {
        Self::new(
            500,
            "internal",
            "Internal error",
            "The request failed and was rolled back; nothing was stored.",
        )
        .may_succeed_later()
    }

    /// For a read; an idempotent `POST` answers [`Problem::outcome_unknown`] instead.
    #[must_use]
    pub fn unavailable() -> Self {
        Self::new(
            503,
            "unavailable",
            "Service unavailable",
            "The database cannot be reached now. Retry later.",
        )
        .retry()
    }
}

#[cfg(test)]
mod tests;
