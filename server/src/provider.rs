//! The payment provider the capture workers call: built in one place, from
//! `PAYMENT_PROVIDER_URL` and `PROVIDER_TIMEOUT_MS`.

use anyhow::Context;
use application::ports::{Charge, PaymentProvider, ProviderAnswer};
use domain::PaymentCapture;

use crate::config::invalid;
use crate::payments_config::PaymentsConfig;

/// The provider client the workers use.
pub(crate) type Provider = PendingClient;

/// The provider at the configured URL; `None` when none is configured (captures are then
/// accepted and stay pending).
///
/// # Errors
/// When the client cannot be built from the configuration; the message names the
/// variable, never the URL.
pub(crate) fn provider(config: &PaymentsConfig) -> anyhow::Result<Option<Provider>> {
    config
        .provider_url
        .as_deref()
        .map(|url| PendingClient::new(url, config.provider_timeout))
        .transpose()
        .context("PAYMENT_PROVIDER_URL: cannot build the payment provider's client")
}

/// [`provider`], for the command that cannot run without one.
///
/// # Errors
/// When `PAYMENT_PROVIDER_URL` is unset, or as [`provider`].
pub(crate) fn required_provider(config: &PaymentsConfig) -> anyhow::Result<Provider> {
    provider(config)?
        .ok_or_else(|| invalid("PAYMENT_PROVIDER_URL", "is required by this command").into())
}

/// A stand-in until the HTTP client is wired: every call is an unknown outcome, so
/// operations are retried under their key and end `needs_review`, never charged twice.
#[derive(Debug, Clone)]
pub(crate) struct PendingClient;

impl PendingClient {
    fn new(_url: &str, _timeout: std::time::Duration) -> anyhow::Result<Self> {
        Ok(Self)
    }
}

impl PaymentProvider for PendingClient {
    async fn charge(&self, _: &str, _: &PaymentCapture, _: &str) -> ProviderAnswer {
        ProviderAnswer::Unknown("no provider client".to_owned())
    }

    async fn lookup(&self, _: &str) -> Result<Option<Charge>, String> {
        Err("no provider client".to_owned())
    }
}
