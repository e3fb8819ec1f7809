//! The refusals several routes document alike: a missing token or permission, an
//! idempotent `POST`'s shared checks and outcomes, a read's.

use utoipa::IntoResponses;

use super::problem_schemas::{
    AdminBadBody, AdminBadQuery, AdminConflict, Forbidden, IdempotentBadRequest,
    IdempotentUnavailable, Internal, KeyReused, NotFound, PayloadTooLarge, ReadUnavailable,
    RequestTimeout, Unauthorized, UnsupportedMediaType,
};

/// `401` and `403`, on every route that needs a token.
#[derive(Debug, IntoResponses)]
#[allow(dead_code)] // described, never built
pub(crate) enum AuthRefusals {
    #[response(
        status = 401,
        description = "No valid bearer token: missing, malformed, badly signed, expired, not \
            yet valid, or in two `Authorization` fields.",
        content_type = "application/problem+json",
        headers(("WWW-Authenticate" = String, description = "`Bearer`, or `Bearer error=\"invalid_token\"` when a token was sent."))
    )]
    Unauthorized(Unauthorized),
    #[response(
        status = 403,
        description = "The token does not grant the permission the route names under \
            `security` (for an idempotent `POST`, also when the answer would be a replay).",
        content_type = "application/problem+json"
    )]
    Forbidden(Forbidden),
}

/// What every idempotent `POST` can answer besides its success and its own refusals.
#[derive(Debug, IntoResponses)]
#[allow(dead_code)] // described, never built
pub(super) enum IdempotentRefusals {
    #[response(
        status = 400,
        description = "`idempotency_key_missing`, `idempotency_key_invalid`, or \
            `invalid_body` with an `errors` entry `{pointer, reason}` per violation.",
        content_type = "application/problem+json"
    )]
    BadRequest(IdempotentBadRequest),
    #[response(
        status = 408,
        description = "`request_timeout`: the body did not arrive within the server's body \
            deadline; nothing was done and the connection closes.",
        content_type = "application/problem+json"
    )]
    RequestTimeout(RequestTimeout),
    #[response(
        status = 413,
        description = "The body is over 16 KiB.",
        content_type = "application/problem+json"
    )]
    PayloadTooLarge(PayloadTooLarge),
    #[response(
        status = 415,
        description = "The body is not `application/json`, the request names two media types, \
            or it carries a `Content-Encoding` other than `identity`.",
        content_type = "application/problem+json"
    )]
    UnsupportedMediaType(UnsupportedMediaType),
    #[response(
        status = 422,
        description = "`idempotency_key_reused`: this key was used with other values; \
            nothing was done. A new request needs a new key.",
        content_type = "application/problem+json"
    )]
    KeyReused(KeyReused),
    #[response(
        status = 500,
        description = "`internal`: something unexpected; rolled back, nothing stored.",
        content_type = "application/problem+json"
    )]
    Internal(Internal),
    #[response(
        status = 503,
        description = "`outcome_unknown`: whether the request took effect cannot be told \
            now. Retry with the same key (never a new one): the retry replays or executes \
            once.",
        content_type = "application/problem+json",
        headers(("Retry-After" = u32, description = "Seconds to wait before the retry."))
    )]
    Unavailable(IdempotentUnavailable),
}

/// What a read can answer besides its success.
#[derive(Debug, IntoResponses)]
#[allow(dead_code)] // described, never built
pub(crate) enum ReadRefusals {
    #[response(
        status = 404,
        description = "No such resource in the caller's tenant (or an id that cannot name \
            one): the answer never tells whether it exists elsewhere.",
        content_type = "application/problem+json"
    )]
    NotFound(NotFound),
    #[response(
        status = 503,
        description = UNAVAILABLE,
        content_type = "application/problem+json",
        headers(("Retry-After" = u32, description = "Seconds to wait before the retry."))
    )]
    Unavailable(ReadUnavailable),
}

const BAD_QUERY: &str = "`invalid_query`: an unknown, repeated, empty or malformed \
    parameter, with an `errors` entry `{pointer, reason}` per violation (`/name` names the \
    parameter).";

const UNAVAILABLE: &str = "`unavailable`: the database cannot be reached now; retry later.";

/// A listing's or a record's refusals (a record adds its own `404` and `409`).
#[derive(Debug, IntoResponses)]
#[allow(dead_code)] // described, never built
pub(crate) enum AdminListRefusals {
    #[response(status = 400, description = BAD_QUERY, content_type = "application/problem+json")]
    BadQuery(AdminBadQuery),
    #[response(
        status = 503,
        description = UNAVAILABLE,
        content_type = "application/problem+json",
        headers(("Retry-After" = u32, description = "Seconds to wait before the retry."))
    )]
    Unavailable(ReadUnavailable),
}

/// An operator action's refusals: nothing is changed and no audit row is written for any.
#[derive(Debug, IntoResponses)]
#[allow(dead_code)] // described, never built
pub(crate) enum AdminActionRefusals {
    #[response(
        status = 400,
        description = "`invalid_body` with an `errors` entry `{pointer, reason}` per violation.",
        content_type = "application/problem+json"
    )]
    BadBody(AdminBadBody),
    #[response(
        status = 404,
        description = "No such operation in the admin's reach, or an id that is not a \
            hyphenated UUID.",
        content_type = "application/problem+json"
    )]
    NotFound(NotFound),
    #[response(
        status = 408,
        description = "`request_timeout`: the body did not arrive in time.",
        content_type = "application/problem+json"
    )]
    RequestTimeout(RequestTimeout),
    #[response(
        status = 409,
        description = "`state_conflict` (the action does not apply to the operation's \
            `state`, which the problem gives), `key_retention_passed` (a retry could charge \
            twice), or `operation_busy` (a worker holds a live lease; `Retry-After`).",
        content_type = "application/problem+json",
        headers(("Retry-After" = u32, description = "With `operation_busy`: seconds until the lease runs out."))
    )]
    Conflict(AdminConflict),
    #[response(
        status = 413,
        description = "The body is over 16 KiB.",
        content_type = "application/problem+json"
    )]
    PayloadTooLarge(PayloadTooLarge),
    #[response(
        status = 415,
        description = "A body that is not `application/json`, or a `Content-Encoding`.",
        content_type = "application/problem+json"
    )]
    UnsupportedMediaType(UnsupportedMediaType),
    #[response(
        status = 503,
        description = UNAVAILABLE,
        content_type = "application/problem+json",
        headers(("Retry-After" = u32, description = "Seconds to wait before the retry."))
    )]
    Unavailable(ReadUnavailable),
}
