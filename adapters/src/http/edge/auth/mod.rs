//! Bearer tokens: JWTs naming the tenant, the actor and the permissions, verified with a
//! shared secret (HS256) or with the keys an identity provider publishes (a JWKS). Tenant
//! and actor come only from a verified token; every failure is an [`AuthError`] without
//! detail, so a `401` never says which check failed nor quotes the token.

mod hs256;
pub(crate) mod jwks;

use std::sync::Arc;

use actix_web::http::header::{HeaderValue, WWW_AUTHENTICATE};
use actix_web::{HttpRequest, HttpResponse};
use application::Caller;

pub use hs256::{Claims, EXP_LEEWAY_SECS, MIN_SECRET_BYTES, TokenKeys, WeakSecret};
pub use jwks::JwksVerifier;

use super::problem::Problem;
use super::respond;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// Occurs when there is no bearer token: no header, or another scheme.
    #[error("no bearer token")]
    Missing,
    /// Occurs when the token is malformed, badly signed, expired, or its claims are not
    /// a positive tenant and actor.
    #[error("invalid bearer token")]
    Invalid,
    /// Occurs while no key set could be loaded from the identity provider yet.
    #[error("no keys to verify tokens with yet")]
    Unavailable,
}

/// How tokens are verified: with the shared secret, or with an identity provider's keys.
#[derive(Debug, Clone)]
pub enum TokenVerifier {
    /// Boxed: one of these is cloned into every HTTP worker's state.
    Secret(Box<TokenKeys>),
    KeySet(Arc<JwksVerifier>),
}

impl TokenVerifier {
    /// # Errors
    /// [`AuthError::Missing`] without a bearer token, [`AuthError::Unavailable`] while no
    /// key set is loaded, else [`AuthError::Invalid`].
    pub async fn verify_header(&self, authorization: Option<&[u8]>) -> Result<Caller, AuthError> {
        let token = bearer(authorization)?;
        match self {
            Self::Secret(keys) => keys.verify(token),
            Self::KeySet(verifier) => verifier.verify(token).await,
        }
    }

    /// Whether tokens can be verified now (`/readyz`).
    #[must_use]
    pub fn is_ready(&self) -> bool {
        match self {
            Self::Secret(_) => true,
            Self::KeySet(verifier) => verifier.is_ready(),
        }
    }
}

impl From<TokenKeys> for TokenVerifier {
    fn from(keys: TokenKeys) -> Self {
        Self::Secret(Box::new(keys))
    }
}

/// The token of an `Authorization: Bearer <token>` value.
pub(crate) fn bearer(authorization: Option<&[u8]>) -> Result<&str, AuthError> {
    let value = authorization.ok_or(AuthError::Missing)?;
    let text = std::str::from_utf8(value).map_err(|_| AuthError::Invalid)?;
    let (scheme, token) = text.trim().split_once(' ').ok_or(AuthError::Invalid)?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(AuthError::Missing);
    }
    Ok(token.trim_start())
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum Denied {
    Unauthorized(AuthError),
    Forbidden,
}

impl Denied {
    pub(crate) fn response(self) -> HttpResponse {
        match self {
            Self::Unauthorized(AuthError::Unavailable) => respond::problem(&Problem::unavailable()),
            Self::Unauthorized(error) => unauthorized(error),
            Self::Forbidden => respond::problem(&Problem::forbidden()),
        }
    }
}

/// `401` with the `WWW-Authenticate` challenge of RFC 6750.
fn unauthorized(error: AuthError) -> HttpResponse {
    let mut response = respond::problem(&Problem::unauthorized());
    let challenge = match error {
        AuthError::Missing => "Bearer",
        AuthError::Invalid | AuthError::Unavailable => "Bearer error=\"invalid_token\"",
    };
    response
        .headers_mut()
        .insert(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
    response
}

pub(crate) async fn authorized(
    request: &HttpRequest,
    keys: &TokenVerifier,
    permission: &str,
) -> Result<Caller, Denied> {
    let mut fields = request
        .headers()
        .get_all(actix_web::http::header::AUTHORIZATION);
    let authorization = fields.next().map(|v| v.as_bytes());
    // Two fields could name two callers: which one counts is exactly the question.
    if fields.next().is_some() {
        return Err(Denied::Unauthorized(AuthError::Invalid));
    }
    let caller = keys
        .verify_header(authorization)
        .await
        .map_err(Denied::Unauthorized)?;
    if caller.has_permission(permission) {
        Ok(caller)
    } else {
        Err(Denied::Forbidden)
    }
}

/// `sub` must be written as plain digits: no sign, no leading zero.
fn is_canonical_decimal(text: &str) -> bool {
    !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && !(text.len() > 1 && text.starts_with('0'))
}
