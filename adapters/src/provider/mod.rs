//! The payment provider over HTTP (`docs/long-running-operations.md#the-payment-provider`).
//! Only a parseable `200`/`201` is definite: anything else may hide a charge, so it is
//! [`ProviderAnswer::Unknown`], never a decline. Reasons never hold the key or a body.

mod client;
mod config;
mod outcome;
mod tls;
mod wire;

use application::ports::{Charge, NoAnswer, PaymentProvider, ProviderAnswer};
use domain::PaymentCapture;

pub use client::HttpPaymentProvider;
pub(crate) use client::bounded_body;
pub use config::ProviderConfigError;
pub(crate) use tls::client_config;

impl PaymentProvider for HttpPaymentProvider {
    async fn charge(&self, key: &str, input: &PaymentCapture, reference: &str) -> ProviderAnswer {
        self.post_charge(key, input, reference).await
    }

    async fn lookup(&self, key: &str) -> Result<Option<Charge>, NoAnswer> {
        self.get_charge(key).await
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::HttpPaymentProvider;

    #[test]
    fn debug_shows_no_credentials() {
        let provider =
            HttpPaymentProvider::new("http://user:s3cret@127.0.0.1:9/", Duration::from_secs(1))
                .unwrap();
        let shown = format!("{provider:?}");
        assert!(
            !shown.contains("s3cret") && !shown.contains("user"),
            "{shown}"
        );
        assert!(shown.contains("127.0.0.1"), "{shown}");
    }
}
