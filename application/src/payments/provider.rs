//! The payment provider the payment kinds call (`docs/long-running-operations.md#the-payment-provider`).

use std::future::Future;

use domain::PaymentCapture;

use crate::leased::{Definite, NoAnswer, ProviderAnswer};

pub trait PaymentProvider: Send + Sync {
    /// `POST /v1/charges` with `Idempotency-Key: key`.
    fn charge(
        &self,
        key: &str,
        input: &PaymentCapture,
        reference: &str,
    ) -> impl Future<Output = ProviderAnswer> + Send;

    /// `GET /v1/charges?idempotency_key=key`; `Ok(None)` is a definite "none" (404).
    fn lookup(&self, key: &str) -> impl Future<Output = Result<Option<Definite>, NoAnswer>> + Send;
}
