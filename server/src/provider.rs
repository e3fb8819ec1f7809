//! The payment provider the capture workers call: built in one place, from
//! `PAYMENT_PROVIDER_URL` and `PROVIDER_TIMEOUT_MS`.

use adapters::provider::HttpPaymentProvider;
use anyhow::Context;

use crate::config::invalid;
use crate::config::payments::PaymentsConfig;

pub(crate) type Provider = HttpPaymentProvider;

/// `None` without a URL: captures are then accepted and stay pending.
///
/// # Errors
/// A bad URL or no trust store for `https`; the message names the variable, never the URL.
pub(crate) fn provider(config: &PaymentsConfig) -> anyhow::Result<Option<Provider>> {
    config
        .provider_url
        .as_deref()
        .map(|url| HttpPaymentProvider::new(url, config.provider_timeout))
        .transpose()
        .context("PAYMENT_PROVIDER_URL: cannot build the payment provider's client")
}

/// For `server worker`, which cannot run without one: fails when unset, or as [`provider`].
pub(crate) fn required_provider(config: &PaymentsConfig) -> anyhow::Result<Provider> {
    provider(config)?
        .ok_or_else(|| invalid("PAYMENT_PROVIDER_URL", "is required by this command").into())
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;
    use crate::config::ConfigError;

    fn config(url: Option<&str>) -> Result<PaymentsConfig, ConfigError> {
        let url = url.map(OsString::from);
        PaymentsConfig::from_lookup(&move |name| {
            (name == "PAYMENT_PROVIDER_URL")
                .then(|| url.clone())
                .flatten()
        })
    }

    #[test]
    fn no_url_is_no_provider_and_the_worker_command_refuses() {
        let config = config(None).unwrap();
        assert!(provider(&config).unwrap().is_none());
        let error = required_provider(&config).unwrap_err();
        assert!(
            error.to_string().contains("PAYMENT_PROVIDER_URL"),
            "{error}"
        );
    }

    #[test]
    fn a_bad_url_is_refused_naming_the_variable_and_not_quoting_it() {
        let config = config(Some("ftp://user:hunter2@pay.example/")).unwrap();
        let error = format!("{:#}", provider(&config).unwrap_err());
        assert!(error.starts_with("PAYMENT_PROVIDER_URL"), "{error}");
        assert!(!error.contains("hunter2"), "{error}");
        let config = self::config(Some("http://127.0.0.1:9/")).unwrap();
        assert!(provider(&config).unwrap().is_some());
    }
}
