//! Bearer tokens: JWTs naming the tenant, the actor and the permissions, verified with a
//! shared secret (HS256) or with the keys an identity provider publishes (a JWKS). Tenant
//! and actor come only from a verified token; every failure is an [`AuthError`] without
//! detail, so a `401` never says which check failed nor quotes the token.

mod hs256;
pub(crate) mod jwks;
mod verified;

use std::sync::Arc;

use actix_web::http::header::{HeaderValue, WWW_AUTHENTICATE};
use actix_web::{HttpRequest, HttpResponse};
use application::Caller;

pub use hs256::{Claims, EXP_LEEWAY_SECS, MIN_SECRET_BYTES, TokenKeys, WeakSecret};
pub use jwks::JwksVerifier;
use verified::VerifiedTokens;
pub(crate) use verified::verified_token_hits;

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

/// How tokens are verified: with the shared secret, or with an identity provider's keys;
/// a token verified once is remembered until it expires ([`verified`]).
#[derive(Debug, Clone)]
pub struct TokenVerifier {
    keys: Keys,
    /// Shared by every HTTP worker's clone.
    verified: Arc<VerifiedTokens>,
}

#[derive(Debug, Clone)]
enum Keys {
    /// Boxed: one of these is cloned into every HTTP worker's state.
    Secret(Box<TokenKeys>),
    Set(Arc<JwksVerifier>),
}

impl TokenVerifier {
    /// # Errors
    /// [`AuthError::Missing`] without a bearer token, [`AuthError::Unavailable`] while no
    /// key set is loaded, else [`AuthError::Invalid`].
    pub async fn verify_header(&self, authorization: Option<&[u8]>) -> Result<Caller, AuthError> {
        let token = bearer(authorization)?;
        self.verify_token(token).await.map(|(caller, _)| caller)
    }

    /// The caller of a bare token and the Unix second its `exp` names: the on-call page
    /// signs in with the very tokens of the admin API, verified here and nowhere else.
    ///
    /// # Errors
    /// As [`Self::verify_header`], but never [`AuthError::Missing`].
    pub(crate) async fn verify_token(&self, token: &str) -> Result<(Caller, u64), AuthError> {
        let in_use = match &self.keys {
            Keys::Secret(_) => None,
            Keys::Set(verifier) => Some(verifier.current().ok_or(AuthError::Unavailable)?),
        };
        let now = jsonwebtoken::get_current_timestamp();
        if let Some((caller, usable)) = self.verified.get_usable(token, now, in_use.as_ref()) {
            return Ok((caller, usable.expires));
        }
        let verified = match &self.keys {
            Keys::Secret(keys) => keys.verify_usable(token)?,
            Keys::Set(verifier) => verifier.verify_usable(token).await?,
        };
        let found = (verified.caller.clone(), verified.usable.expires);
        self.verified.remember(token, verified);
        Ok(found)
    }

    /// Whether tokens can be verified now (`/readyz`).
    #[must_use]
    pub fn is_ready(&self) -> bool {
        match &self.keys {
            Keys::Secret(_) => true,
            Keys::Set(verifier) => verifier.is_ready(),
        }
    }

    fn with_keys(keys: Keys) -> Self {
        Self {
            keys,
            verified: Arc::default(),
        }
    }
}

impl From<TokenKeys> for TokenVerifier {
    fn from(keys: TokenKeys) -> Self {
        Self::with_keys(Keys::Secret(Box::new(keys)))
    }
}

impl From<Arc<JwksVerifier>> for TokenVerifier {
    fn from(verifier: Arc<JwksVerifier>) -> Self {
        Self::with_keys(Keys::Set(verifier))
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

#[cfg(test)]
mod tests {
    use super::hs256::tests::{claims, keys};
    use super::jwks::{ClaimNames, JwksSettings, JwksSource};
    use super::*;

    fn verifier() -> (TokenVerifier, TokenKeys) {
        (TokenVerifier::from(keys()), keys())
    }

    fn token(keys: &TokenKeys, exp_from_now: i64) -> String {
        keys.mint(&claims("42", 7, exp_from_now)).unwrap()
    }

    fn bearer_of(token: &str) -> Vec<u8> {
        format!("Bearer {token}").into_bytes()
    }

    #[test]
    fn shared_secret_keys_are_ready_at_once_and_a_key_set_once_fetched() {
        assert!(verifier().0.is_ready());
        let unfetched = Arc::new(JwksVerifier::new(
            JwksSource::file("/nonexistent/jwks.json".into()),
            JwksSettings {
                issuer: "https://issuer.example".into(),
                audience: "orders".into(),
                leeway_secs: 0,
                claims: ClaimNames::default(),
                min_refresh: std::time::Duration::from_secs(1),
                max_lifetime_secs: None,
            },
        ));
        assert!(!TokenVerifier::from(unfetched).is_ready());
    }

    #[test]
    fn each_denial_answers_its_status_and_the_challenge_of_rfc_6750() {
        let challenge = |denied: Denied| {
            let response = denied.response();
            let header = response
                .headers()
                .get(WWW_AUTHENTICATE)
                .map(|v| v.to_str().unwrap().to_owned());
            (response.status().as_u16(), header)
        };
        assert_eq!(
            challenge(Denied::Unauthorized(AuthError::Missing)),
            (401, Some("Bearer".into()))
        );
        assert_eq!(
            challenge(Denied::Unauthorized(AuthError::Invalid)),
            (401, Some("Bearer error=\"invalid_token\"".into()))
        );
        assert_eq!(
            challenge(Denied::Unauthorized(AuthError::Unavailable)),
            (503, None)
        );
        assert_eq!(challenge(Denied::Forbidden), (403, None));
    }

    #[tokio::test]
    async fn a_token_verified_once_is_remembered_and_a_tampered_copy_is_still_refused() {
        let (verifier, keys) = verifier();
        let good = token(&keys, 60);
        let first = verifier
            .verify_header(Some(&bearer_of(&good)))
            .await
            .unwrap();
        let again = verifier
            .verify_header(Some(&bearer_of(&good)))
            .await
            .unwrap();
        assert_eq!(first, again);
        assert_eq!(verifier.verified.len(), 1);

        // The same claims under a broken signature: another text, so checked in full.
        let signature = good.rfind('.').unwrap() + 1;
        let mut tampered = good.clone();
        let other = if good[signature..].starts_with('A') {
            "B"
        } else {
            "A"
        };
        tampered.replace_range(signature..=signature, other);
        let refused = verifier.verify_header(Some(&bearer_of(&tampered))).await;
        assert_eq!(refused, Err(AuthError::Invalid));
        assert_eq!(
            verifier.verified.len(),
            1,
            "a refused token is not remembered"
        );
    }

    #[tokio::test]
    async fn an_expired_token_is_refused_and_never_remembered() {
        let (verifier, keys) = verifier();
        let expired = token(&keys, -3_600);
        let refused = verifier.verify_header(Some(&bearer_of(&expired))).await;
        assert_eq!(refused, Err(AuthError::Invalid));
        assert_eq!(verifier.verified.len(), 0);
    }
}
