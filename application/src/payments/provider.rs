//! The payment provider the payment kinds call (`docs/long-running-operations.md#the-payment-provider`):
//! one API shape for everything it keeps under an idempotency key (charges, refunds), so a
//! kind names its collection and writes its body, and the client stays as it is.

use std::future::Future;

use domain::{Amount, Currency, PaymentCapture};

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

/// The money a call moves. Every answer must repeat it: one that names other money is
/// malformed, never recorded (`docs/long-running-operations.md#the-payment-provider`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Money {
    pub amount: Amount,
    pub currency: Currency,
}

/// What one call asks the provider for: `{"amount", "currency", "reference"}`, and a
/// refund's `"charge"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderRequest<'a> {
    pub money: Money,
    /// The operation's id, kept by the provider beside the work.
    pub reference: &'a str,
    /// The charge a refund gives money back from.
    pub charge: Option<&'a str>,
}

impl ProviderRequest<'_> {
    /// The request's JSON body.
    #[must_use]
    pub fn body(&self) -> serde_json::Value {
        let mut body = serde_json::json!({
            "amount": self.money.amount.get(),
            "currency": self.money.currency.as_str(),
            "reference": self.reference,
        });
        if let (Some(charge), Some(members)) = (self.charge, body.as_object_mut()) {
            members.insert("charge".to_owned(), charge.into());
        }
        body
    }
}

pub trait PaymentProvider: Send + Sync {
    /// `POST /v1/{resource}` with `Idempotency-Key: key` and the request's body. Only a
    /// parseable `200`/`201` of `{"id", "status": "succeeded"|"declined", "amount",
    /// "currency"}` with an id of [`domain::ProviderId`]'s form and the money asked is
    /// definite.
    fn create(
        &self,
        resource: ProviderResource,
        key: &str,
        request: &ProviderRequest<'_>,
    ) -> impl Future<Output = ProviderAnswer> + Send;

    /// `GET /v1/{resource}?idempotency_key=key`; `Ok(None)` is a definite "none" (404). What
    /// it finds must name `money`, as [`Self::create`]'s answer must.
    fn find(
        &self,
        resource: ProviderResource,
        key: &str,
        money: Money,
    ) -> impl Future<Output = Result<Option<Definite>, NoAnswer>> + Send;

    /// The capture's charge to [`CHARGES`].
    fn charge(
        &self,
        key: &str,
        input: &PaymentCapture,
        reference: &str,
    ) -> impl Future<Output = ProviderAnswer> + Send {
        let request = ProviderRequest {
            money: Money::of(input),
            reference,
            charge: None,
        };
        async move { self.create(CHARGES, key, &request).await }
    }

    /// The capture's charge under `key`, if the provider made one.
    fn lookup(
        &self,
        key: &str,
        input: &PaymentCapture,
    ) -> impl Future<Output = Result<Option<Definite>, NoAnswer>> + Send {
        self.find(CHARGES, key, Money::of(input))
    }
}

impl Money {
    /// What a capture charges.
    #[must_use]
    pub fn of(input: &PaymentCapture) -> Self {
        Self {
            amount: input.amount,
            currency: input.currency,
        }
    }
}
