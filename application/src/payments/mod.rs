//! Payments: `payments.capture.v1`, a leased operation (`docs/long-running-operations.md`),
//! and the payment provider it calls.

mod capture;
mod events;
mod provider;

pub use capture::{
    CaptureAcceptance, CaptureJob, CapturePayment, CaptureRefusal, PAYMENTS_CAPTURED,
    PaymentRecords, PaymentResult,
};
pub use events::write_payment_event;
pub use provider::{CHARGES, PaymentProvider, ProviderResource};
