//! Where the key set comes from: a URL (`AUTH_JWKS_URL`) read with the provider client's
//! settings (rustls, timeouts, no proxy, no redirect to another host, a bounded body), or
//! a file (`AUTH_JWKS_FILE`).

use std::path::PathBuf;
use std::time::Duration;

use reqwest::header::CACHE_CONTROL;
use reqwest::{Client, StatusCode, Url, redirect};

use crate::provider::{bounded_body, client_config};

/// A key set is a few kilobytes; more is not one.
pub(crate) const MAX_BODY_BYTES: usize = 64 * 1024;

const TIMEOUT: Duration = Duration::from_secs(5);

/// Bounds on how long a fetched set is kept before the next background refresh.
pub(crate) const MIN_MAX_AGE: Duration = Duration::from_secs(60);
pub(crate) const MAX_MAX_AGE: Duration = Duration::from_secs(86_400);
pub(crate) const DEFAULT_MAX_AGE: Duration = Duration::from_secs(300);

/// Never holds the URL (it may carry a secret) or the body.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("the key set URL must be http or https")]
    Scheme,
    #[error("the key set URL is not a URL")]
    Url(#[source] url::ParseError),
    #[error("the key set client cannot be built")]
    Client(#[source] reqwest::Error),
    #[error("the key set TLS cannot be set up")]
    Tls(#[source] rustls::Error),
    #[error("the key set request failed")]
    Transport(#[source] reqwest::Error),
    #[error("the key set server answered {0}")]
    Status(StatusCode),
    #[error("the key set is over {MAX_BODY_BYTES} bytes")]
    TooLarge,
    #[error("the key set file cannot be read")]
    File(#[source] std::io::Error),
}

#[derive(Debug, Clone)]
pub enum JwksSource {
    Url { client: Client, url: Url },
    File(PathBuf),
}

/// A document as fetched, and how long it may be kept.
pub(crate) struct Fetched {
    pub(crate) body: Vec<u8>,
    pub(crate) max_age: Duration,
}

impl JwksSource {
    /// # Errors
    /// [`FetchError`] for a URL that is not http(s), or a client that cannot be built.
    pub fn url(raw: &str) -> Result<Self, FetchError> {
        let url = Url::parse(raw).map_err(FetchError::Url)?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::Scheme);
        }
        let tls = client_config(url.scheme() == "https").map_err(FetchError::Tls)?;
        let client = Client::builder()
            .tls_backend_preconfigured(tls)
            .timeout(TIMEOUT)
            .connect_timeout(TIMEOUT)
            .redirect(same_host_only())
            .no_proxy()
            .build()
            .map_err(|e| FetchError::Client(e.without_url()))?;
        Ok(Self::Url { client, url })
    }

    #[must_use]
    pub fn file(path: PathBuf) -> Self {
        Self::File(path)
    }

    pub(crate) async fn fetch(&self) -> Result<Fetched, FetchError> {
        match self {
            Self::Url { client, url } => fetch_url(client, url).await,
            Self::File(path) => {
                let body = tokio::fs::read(path).await.map_err(FetchError::File)?;
                if body.len() > MAX_BODY_BYTES {
                    return Err(FetchError::TooLarge);
                }
                Ok(Fetched {
                    body,
                    max_age: DEFAULT_MAX_AGE,
                })
            }
        }
    }
}

/// A provider may move its document within its own host; never elsewhere.
fn same_host_only() -> redirect::Policy {
    redirect::Policy::custom(|attempt| {
        let same = attempt
            .previous()
            .first()
            .is_some_and(|first| first.host_str() == attempt.url().host_str());
        if same && attempt.previous().len() < 3 {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

async fn fetch_url(client: &Client, url: &Url) -> Result<Fetched, FetchError> {
    let mut response = client
        .get(url.clone())
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| FetchError::Transport(e.without_url()))?;
    if response.status() != StatusCode::OK {
        return Err(FetchError::Status(response.status()));
    }
    let max_age = response
        .headers()
        .get(CACHE_CONTROL)
        .and_then(|value| value.to_str().ok())
        .and_then(max_age)
        .map_or(DEFAULT_MAX_AGE, |age| age.clamp(MIN_MAX_AGE, MAX_MAX_AGE));
    let body = bounded_body(&mut response, MAX_BODY_BYTES)
        .await
        .map_err(|e| FetchError::Transport(e.without_url()))?
        .ok_or(FetchError::TooLarge)?;
    Ok(Fetched { body, max_age })
}

/// `max-age=N` of a `Cache-Control` value.
fn max_age(value: &str) -> Option<Duration> {
    value.split(',').find_map(|directive| {
        let (name, seconds) = directive.trim().split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("max-age")
            .then(|| seconds.trim().trim_matches('"').parse().ok())
            .flatten()
            .map(Duration::from_secs)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_age_is_read_from_cache_control() {
        assert_eq!(
            max_age("public, max-age=600"),
            Some(Duration::from_secs(600))
        );
        assert_eq!(max_age("Max-Age=\"90\""), Some(Duration::from_secs(90)));
        assert_eq!(max_age("no-cache"), None);
        assert_eq!(max_age("max-age=-1"), None);
    }

    #[test]
    fn only_http_and_https_urls_are_sources() {
        assert!(matches!(
            JwksSource::url("ftp://idp/keys"),
            Err(FetchError::Scheme)
        ));
        assert!(matches!(
            JwksSource::url("not a url"),
            Err(FetchError::Url(_))
        ));
        assert!(JwksSource::url("http://127.0.0.1:1/keys").is_ok());
    }
}
