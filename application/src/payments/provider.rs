//! The payment provider the payment kinds call (`docs/long-running-operations.md#the-payment-provider`):
//! one API shape for everything it keeps under an idempotency key (charges, refunds), so a
//! kind names its collection and writes its body, and the client stays as it is.

use std::future::Future;

use domain::PaymentCapture;

use crate::leased::{Definite, NoAnswer, ProviderAnswer};

/// One of the provider's collections: `POST /v1/{path}` makes one under a key, `GET
/// /v1/{path}?idempotency_key=` finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderResource {
    /// `charges`: a URL path segment.
    pub path: &'static str,
    /// `charge`: one of them, as the call's span names it.
    pub one: &'static str,
}

/// The capture's collection.
pub const CHARGES: ProviderResource = ProviderResource {
    path: "charges",
    one: "charge",
};

pub trait PaymentProvider: Send + Sync {
    /// `POST /v1/{resource}` with `Idempotency-Key: key` and `body` as its JSON. Only a
    /// parseable `200`/`201` of `{"id", "status": "succeeded"|"declined"}` is definite.
    fn create(
        &self,
        resource: ProviderResource,
        key: &str,
        body: &serde_json::Value,
    ) -> impl Future<Output = ProviderAnswer> + Send;

    /// `GET /v1/{resource}?idempotency_key=key`; `Ok(None)` is a definite "none" (404).
    fn find(
        &self,
        resource: ProviderResource,
        key: &str,
    ) -> impl Future<Output = Result<Option<Definite>, NoAnswer>> + Send;

    /// The capture's charge: `{"amount", "currency", "reference"}` to [`CHARGES`].
    fn charge(
        &self,
        key: &str,
        input: &PaymentCapture,
        reference: &str,
    ) -> impl Future<Output = ProviderAnswer> + Send {
        let body = serde_json::json!({
            "amount": input.amount.get(),
            "currency": input.currency.as_str(),
            "reference": reference,
        });
        async move { self.create(CHARGES, key, &body).await }
    }

    /// The capture's charge under `key`, if the provider made one.
    fn lookup(&self, key: &str) -> impl Future<Output = Result<Option<Definite>, NoAnswer>> + Send {
        self.find(CHARGES, key)
    }
}
