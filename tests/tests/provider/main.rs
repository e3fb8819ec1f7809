//! The provider client (`adapters::provider::HttpPaymentProvider`) against the real
//! provider stand-in process (`docs/long-running-operations.md#the-payment-provider`):
//! definite answers, and every fault whose outcome the client must report as unknown,
//! resolved afterwards by the lookup under the same key. Each test starts a stand-in of its
//! own.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

mod answers;
mod config;
mod faults;

use std::time::Duration;

use adapters::provider::HttpPaymentProvider;
use domain::{Amount, Currency, OrderId, PaymentCapture};
use tests::ProviderStandIn;

/// The client's timeout in these tests: far above a local answer, even on a loaded
/// machine. The timeout test has a shorter one of its own.
const TIMEOUT: Duration = Duration::from_secs(5);

/// A capture of `amount` JPY.
fn capture(amount: i64) -> PaymentCapture {
    PaymentCapture {
        order: OrderId::new(1),
        amount: Amount::parse(amount).unwrap(),
        currency: Currency::parse("JPY").unwrap(),
    }
}

/// A key of its own for each call site.
fn new_key() -> String {
    format!("op-{}", uuid::Uuid::new_v4().simple())
}

/// A stand-in and a client of it.
fn provider() -> (ProviderStandIn, HttpPaymentProvider) {
    let stand_in = ProviderStandIn::start();
    let client = HttpPaymentProvider::new(stand_in.url(), TIMEOUT).unwrap();
    (stand_in, client)
}
