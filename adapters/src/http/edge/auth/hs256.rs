//! HS256 tokens signed with a shared secret (`AUTH_JWT_SECRET`, or the embedded store's
//! development secret): verified here, and minted by `server token` and the tests.

use application::Caller;
use domain::{ActorId, TenantId};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use super::verified::{Usable, Verified};
use super::{AuthError, bearer, is_canonical_decimal};

/// Seconds of clock skew tolerated on `exp` and `nbf` between the token issuer and this
/// server.
pub const EXP_LEEWAY_SECS: u64 = 30;

/// Shortest accepted HS256 secret, in bytes (RFC 7518 §3.2: at least the hash size).
pub const MIN_SECRET_BYTES: usize = 32;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// The actor id, as a decimal string.
    pub sub: String,
    /// The tenant id, as a JSON number (a string is invalid).
    pub tid: u64,
    /// Permissions separated by single spaces (U+0020 only).
    pub scope: String,
    pub exp: i64,
    /// Not before: honoured with the same leeway as `exp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nbf: Option<i64>,
    /// Issued at: needed when a longest token lifetime is configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iat: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the secret must be at least {MIN_SECRET_BYTES} bytes")]
pub struct WeakSecret;

#[derive(Clone)]
pub struct TokenKeys {
    decoding: DecodingKey,
    encoding: EncodingKey,
    validation: Validation,
    max_lifetime_secs: Option<u64>,
}

impl std::fmt::Debug for TokenKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKeys(HS256, secret hidden)")
    }
}

impl TokenKeys {
    /// # Errors
    /// [`WeakSecret`] when the secret is shorter than [`MIN_SECRET_BYTES`].
    pub fn hs256(secret: &[u8]) -> Result<Self, WeakSecret> {
        if secret.len() < MIN_SECRET_BYTES {
            return Err(WeakSecret);
        }
        let decoding = DecodingKey::from_secret(secret).map_err(|_| WeakSecret)?;
        let encoding = EncodingKey::from_secret(secret).map_err(|_| WeakSecret)?;
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = EXP_LEEWAY_SECS;
        validation.validate_nbf = true;
        validation.validate_aud = false;
        validation.set_required_spec_claims(&["exp"]);
        Ok(Self {
            decoding,
            encoding,
            validation,
            max_lifetime_secs: None,
        })
    }

    /// These keys, refusing tokens whose `exp - iat` is over `secs` (and tokens without
    /// `iat`, whose lifetime cannot be told).
    #[must_use]
    pub fn with_max_lifetime(mut self, secs: u64) -> Self {
        self.max_lifetime_secs = Some(secs);
        self
    }

    /// # Errors
    /// [`AuthError::Missing`] without a bearer token, else [`AuthError::Invalid`].
    pub fn verify_header(&self, authorization: Option<&[u8]>) -> Result<Caller, AuthError> {
        self.verify(bearer(authorization)?)
    }

    /// # Errors
    /// [`AuthError::Invalid`] when verification fails.
    pub fn verify(&self, token: &str) -> Result<Caller, AuthError> {
        self.verify_usable(token).map(|verified| verified.caller)
    }

    /// The caller, and when the token may be used: what the verified tokens keep.
    pub(super) fn verify_usable(&self, token: &str) -> Result<Verified, AuthError> {
        let claims = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|_| AuthError::Invalid)?
            .claims;
        let actor = claims
            .sub
            .parse::<u64>()
            .ok()
            .filter(|_| is_canonical_decimal(&claims.sub))
            .and_then(|id| ActorId::parse(id).ok())
            .ok_or(AuthError::Invalid)?;
        let tenant = TenantId::parse(claims.tid).map_err(|_| AuthError::Invalid)?;
        if let Some(max) = self.max_lifetime_secs {
            let lifetime = claims
                .iat
                .and_then(|iat| u64::try_from(claims.exp.saturating_sub(iat)).ok());
            if lifetime.is_none_or(|lifetime| lifetime > max) {
                return Err(AuthError::Invalid);
            }
        }
        Ok(Verified {
            caller: Caller::new(tenant, actor, &claims.scope),
            usable: Usable::new(claims.nbf, claims.exp, self.validation.leeway),
            keys: None,
        })
    }

    /// # Errors
    /// Only when the claims cannot be serialized, which these cannot.
    pub fn mint(&self, claims: &Claims) -> Result<String, jsonwebtoken::errors::Error> {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";

    pub(in crate::http::edge::auth) fn keys() -> TokenKeys {
        TokenKeys::hs256(SECRET).unwrap()
    }

    pub(in crate::http::edge::auth) fn claims(sub: &str, tid: u64, exp_from_now: i64) -> Claims {
        Claims {
            sub: sub.to_owned(),
            tid,
            scope: "orders:create orders:read".to_owned(),
            exp: chrono::Utc::now().timestamp() + exp_from_now,
            nbf: None,
            iat: None,
        }
    }

    #[test]
    fn a_minted_token_names_its_tenant_actor_and_permissions() {
        let token = keys().mint(&claims("42", 7, 60)).unwrap();
        let caller = keys()
            .verify_header(Some(format!("Bearer {token}").as_bytes()))
            .unwrap();
        assert_eq!((caller.tenant.get(), caller.actor.get()), (7, 42));
        assert!(caller.has_permission("orders:read"));
    }

    #[test]
    fn an_expired_token_is_invalid() {
        let token = keys().mint(&claims("42", 7, -120)).unwrap();
        assert_eq!(keys().verify(&token), Err(AuthError::Invalid));
    }

    #[test]
    fn with_a_longest_lifetime_a_token_may_live_that_long_and_no_longer() {
        let keys = keys().with_max_lifetime(600);
        let minted = |iat_before_exp: Option<i64>| {
            let mut claims = claims("42", 7, 60);
            claims.iat = iat_before_exp.map(|lifetime| claims.exp - lifetime);
            keys.mint(&claims).unwrap()
        };
        assert!(
            keys.verify(&minted(Some(600))).is_ok(),
            "exactly the longest"
        );
        assert!(keys.verify(&minted(Some(60))).is_ok());
        assert_eq!(keys.verify(&minted(Some(601))), Err(AuthError::Invalid));
        assert_eq!(
            keys.verify(&minted(None)),
            Err(AuthError::Invalid),
            "no iat: its lifetime is unknown"
        );
    }

    #[test]
    fn a_token_signed_with_another_secret_is_invalid() {
        let other = TokenKeys::hs256(b"another-secret-of-thirty-two-bytes!").unwrap();
        let token = other.mint(&claims("42", 7, 60)).unwrap();
        assert_eq!(keys().verify(&token), Err(AuthError::Invalid));
    }

    #[test]
    fn actor_and_tenant_must_be_positive_and_canonical() {
        for (sub, tid) in [
            ("0", 7),
            ("-1", 7),
            ("042", 7),
            ("+4", 7),
            ("4x", 7),
            ("42", 0),
        ] {
            let token = keys().mint(&claims(sub, tid, 60)).unwrap();
            assert_eq!(
                keys().verify(&token),
                Err(AuthError::Invalid),
                "{sub} {tid}"
            );
        }
    }

    #[test]
    fn a_tenant_written_as_a_string_is_invalid() {
        let json = serde_json::json!({"sub": "1", "tid": "7", "scope": "", "exp": i64::MAX / 2});
        let token = jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &json,
            &EncodingKey::from_secret(SECRET).unwrap(),
        )
        .unwrap();
        assert_eq!(keys().verify(&token), Err(AuthError::Invalid));
    }

    #[test]
    fn a_missing_header_or_another_scheme_is_missing() {
        assert_eq!(keys().verify_header(None), Err(AuthError::Missing));
        assert_eq!(
            keys().verify_header(Some(b"Basic dXNlcjpwYXNz")),
            Err(AuthError::Missing)
        );
        assert_eq!(
            keys().verify_header(Some(b"Bearer")),
            Err(AuthError::Invalid)
        );
        assert_eq!(
            keys().verify_header(Some(b"Bearer not.a.jwt")),
            Err(AuthError::Invalid)
        );
    }

    #[test]
    fn a_short_secret_is_refused() {
        assert_eq!(TokenKeys::hs256(b"short").unwrap_err(), WeakSecret);
    }

    #[test]
    fn the_debug_form_names_the_algorithm_and_hides_the_secret() {
        let shown = format!("{:?}", keys());
        assert_eq!(shown, "TokenKeys(HS256, secret hidden)");
        assert!(!shown.contains("0123456789abcdef"));
    }
}
