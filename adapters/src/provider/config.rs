//! What `PAYMENT_PROVIDER_URL` may be, checked once at start so that a typo fails the
//! process instead of every capture.

use std::time::Duration;

use reqwest::Url;

#[derive(Debug, thiserror::Error)]
pub enum ProviderConfigError {
    /// The parser's message names what is wrong, never the URL (which may hold a secret).
    #[error("payment provider URL is not a URL")]
    Url(#[source] url::ParseError),
    #[error("payment provider URL must be http or https, not {0:?}")]
    Scheme(String),
    /// Occurs for a query or fragment, which the endpoints' paths would silently drop.
    #[error("payment provider URL must not have a query or fragment")]
    QueryOrFragment,
    /// Occurs when the timeout is zero: every call would be `Unknown`.
    #[error("payment provider timeout must be more than zero")]
    ZeroTimeout,
    /// Occurs only for `https`.
    #[error("payment provider TLS cannot be set up")]
    Tls(#[source] rustls::Error),
    /// Held `without_url()`: the URL may hold a secret.
    #[error("payment provider client cannot be built")]
    Client(#[source] reqwest::Error),
}

/// `<base path>/v1/`, under which each collection is (`v1/charges`), or why `base` cannot be
/// the provider's URL.
pub(super) fn api_url(base: &str) -> Result<Url, ProviderConfigError> {
    let mut url = Url::parse(base).map_err(ProviderConfigError::Url)?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ProviderConfigError::Scheme(url.scheme().to_owned()));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(ProviderConfigError::QueryOrFragment);
    }
    // An http(s) URL always has a path to extend; the error arm is only for the type.
    url.path_segments_mut()
        .map_err(|()| ProviderConfigError::Scheme(base_scheme(base)))?
        .pop_if_empty()
        .extend(["v1", ""]);
    Ok(url)
}

fn base_scheme(base: &str) -> String {
    base.split(':').next().unwrap_or_default().to_owned()
}

pub(super) fn checked_timeout(timeout: Duration) -> Result<Duration, ProviderConfigError> {
    if timeout.is_zero() {
        return Err(ProviderConfigError::ZeroTimeout);
    }
    Ok(timeout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_is_under_the_base_path() {
        for (base, want) in [
            ("http://127.0.0.1:9/", "http://127.0.0.1:9/v1/charges"),
            ("http://127.0.0.1:9", "http://127.0.0.1:9/v1/charges"),
            (
                "https://pay.example/api/",
                "https://pay.example/api/v1/charges",
            ),
            (
                "https://pay.example/api",
                "https://pay.example/api/v1/charges",
            ),
        ] {
            let charges = api_url(base).unwrap().join("charges").unwrap();
            assert_eq!(charges.as_str(), want, "{base}");
        }
    }

    #[test]
    fn other_schemes_and_garbage_are_refused() {
        for base in ["ftp://h/", "file:///tmp", "mailto:a@b", "tls://h:1"] {
            assert!(
                matches!(api_url(base), Err(ProviderConfigError::Scheme(_))),
                "{base}"
            );
        }
        assert!(matches!(
            api_url("not a url"),
            Err(ProviderConfigError::Url(_))
        ));
        assert!(matches!(
            api_url("http://h/?a=1"),
            Err(ProviderConfigError::QueryOrFragment)
        ));
        assert!(matches!(
            checked_timeout(Duration::ZERO),
            Err(ProviderConfigError::ZeroTimeout)
        ));
    }
}
