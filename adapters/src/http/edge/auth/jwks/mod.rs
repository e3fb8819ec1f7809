//! Tokens signed by an identity provider, verified with the keys it publishes (a JWKS):
//! RS256, PS256, ES256 or EdDSA, with the issuer, the audience and the times checked
//! (`docs/http-api.md#tokens-from-an-identity-provider`). The set is cached; a token
//! naming an unknown key fetches it again, at most once per `min_refresh`, and a
//! background task refreshes it as the document's `Cache-Control` says. A failed fetch
//! keeps the last good set.

mod claims;
pub(super) mod key_set;
mod source;

use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use application::{Caller, ErrorChain};
use jsonwebtoken::{Validation, decode, decode_header};
use prometheus_client::metrics::counter::Counter;
use serde_json::Value;
use tokio::sync::watch;

pub use claims::ClaimNames;
pub use key_set::KeySetError;
pub(crate) use key_set::{ACCEPTED, KeySet};
pub use source::{FetchError, JwksSource};

use super::AuthError;
use super::verified::{Usable, Verified};
use crate::http::edge::strict_json::DistinctMembers;

/// What a token must say besides its signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JwksSettings {
    /// `iss`, exactly.
    pub issuer: String,
    /// One of `aud`.
    pub audience: String,
    /// Clock skew allowed on `exp` and `nbf`.
    pub leeway_secs: u64,
    pub claims: ClaimNames,
    /// The shortest time between two fetches a token with an unknown key may cause.
    pub min_refresh: Duration,
    /// `AUTH_MAX_TOKEN_LIFETIME_SECS`: `exp - iat` at most this, when set.
    pub max_lifetime_secs: Option<u64>,
}

/// Why a load did not replace the set.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("the key set could not be fetched")]
    Fetch(#[from] FetchError),
    #[error("the key set could not be read")]
    Read(#[from] KeySetError),
}

#[derive(Debug)]
pub struct JwksVerifier {
    source: JwksSource,
    settings: JwksSettings,
    keys: RwLock<Option<Arc<KeySet>>>,
    /// When a fetch last started; a token with an unknown key waits for none sooner.
    last_fetch: Mutex<Option<Instant>>,
    /// One fetch at a time: a flood of unknown keys queues behind it.
    fetching: tokio::sync::Mutex<()>,
    failures: Counter,
}

impl JwksVerifier {
    #[must_use]
    pub fn new(source: JwksSource, settings: JwksSettings) -> Self {
        Self {
            source,
            settings,
            keys: RwLock::new(None),
            last_fetch: Mutex::new(None),
            fetching: tokio::sync::Mutex::new(()),
            failures: Counter::default(),
        }
    }

    /// Counts failed loads into `failures` (`auth_jwks_refresh_failures_total`).
    #[must_use]
    pub fn with_failure_counter(mut self, failures: Counter) -> Self {
        self.failures = failures;
        self
    }

    /// Whether a key set is loaded: until then every token is `503`.
    #[must_use]
    pub fn is_ready(&self) -> bool {
        self.current().is_some()
    }

    pub(in crate::http::edge::auth) fn current(&self) -> Option<Arc<KeySet>> {
        self.keys
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Fetches and installs the set; its `max-age` on success. A failure is counted and
    /// logged, and the set in use stays.
    ///
    /// # Errors
    /// [`LoadError`] when the document could not be fetched or held no usable key.
    pub async fn load(&self) -> Result<Duration, LoadError> {
        *self
            .last_fetch
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
        let loaded = async {
            let fetched = self.source.fetch().await?;
            let set = KeySet::parse(&fetched.body)?;
            Ok::<_, LoadError>((set, fetched.max_age))
        }
        .await;
        match loaded {
            Ok((set, max_age)) => {
                *self.keys.write().unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(set));
                Ok(max_age)
            }
            Err(error) => {
                self.failures.inc();
                tracing::warn!(error = %ErrorChain(&error), "the key set was not refreshed; the last one stays");
                Err(error)
            }
        }
    }

    /// A fetch for an unknown key, unless one started within `min_refresh`.
    async fn refresh_for_unknown_key(&self) {
        let _one_at_a_time = self.fetching.lock().await;
        let recent = self
            .last_fetch
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some_and(|at| at.elapsed() < self.settings.min_refresh);
        if !recent {
            let _ = self.load().await;
        }
    }

    /// Loads until stopped: at once, then when the set's `max-age` runs out; after a
    /// failure sooner (doubling from a second up to `min_refresh` while no set is loaded).
    pub async fn keep_fresh(self: Arc<Self>, mut stopped: watch::Receiver<bool>) {
        let mut retry = Duration::from_secs(1);
        loop {
            let wait = {
                let _one_at_a_time = self.fetching.lock().await;
                match self.load().await {
                    Ok(max_age) => {
                        retry = Duration::from_secs(1);
                        max_age
                    }
                    Err(_) if self.is_ready() => self.settings.min_refresh,
                    Err(_) => {
                        let wait = retry;
                        retry = (retry * 2).min(self.settings.min_refresh);
                        wait
                    }
                }
            };
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                _ = stopped.wait_for(|stop| *stop) => return,
            }
        }
    }

    /// # Errors
    /// [`AuthError::Unavailable`] before any set was loaded, else [`AuthError::Invalid`]
    /// when the token fails any check.
    pub async fn verify(&self, token: &str) -> Result<Caller, AuthError> {
        self.verify_usable(token)
            .await
            .map(|verified| verified.caller)
    }

    /// The caller, when the token may be used and the set that verified it.
    pub(in crate::http::edge::auth) async fn verify_usable(
        &self,
        token: &str,
    ) -> Result<Verified, AuthError> {
        let header = decode_header(token).map_err(|_| AuthError::Invalid)?;
        if !ACCEPTED.contains(&header.alg) {
            return Err(AuthError::Invalid);
        }
        let kid = header.kid.ok_or(AuthError::Invalid)?;
        let mut set = self.current().ok_or(AuthError::Unavailable)?;
        if !set.knows(&kid) {
            self.refresh_for_unknown_key().await;
            set = self.current().ok_or(AuthError::Unavailable)?;
        }
        let key = set.find(&kid, header.alg).ok_or(AuthError::Invalid)?;
        // Claims read strictly, as a shared-secret token's are: no member twice (which copy
        // would count differs between parsers), and `iss` the issuer itself, not an array
        // holding it.
        let claims = decode::<DistinctMembers>(token, key, &self.validation(header.alg))
            .map_err(|_| AuthError::Invalid)?
            .claims
            .0;
        if claims.get("iss").and_then(Value::as_str) != Some(self.settings.issuer.as_str()) {
            return Err(AuthError::Invalid);
        }
        if let Some(max) = self.settings.max_lifetime_secs {
            let lifetime = claims
                .get("iat")
                .and_then(Value::as_i64)
                .zip(claims.get("exp").and_then(Value::as_i64))
                .and_then(|(iat, exp)| u64::try_from(exp.saturating_sub(iat)).ok());
            if lifetime.is_none_or(|lifetime| lifetime > max) {
                return Err(AuthError::Invalid);
            }
        }
        // An `exp` that is not a whole number verifies but is never served from memory.
        let nbf = claims.get("nbf").and_then(Value::as_i64);
        let usable = claims
            .get("exp")
            .and_then(Value::as_i64)
            .map_or(Usable::NEVER, |exp| {
                Usable::new(nbf, exp, self.settings.leeway_secs)
            });
        Ok(Verified {
            caller: claims::caller(&claims, &self.settings.claims)?,
            usable,
            keys: Some(Arc::downgrade(&set)),
        })
    }

    fn validation(&self, algorithm: jsonwebtoken::Algorithm) -> Validation {
        let mut validation = Validation::new(algorithm);
        validation.leeway = self.settings.leeway_secs;
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.settings.issuer]);
        validation.set_audience(&[&self.settings.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation
    }
}
