//! Payments: `payments.capture.v1`, a leased operation (`docs/long-running-operations.md`),
//! and the payment provider it calls.

mod capture;
mod provider;

pub use capture::{
    CaptureAcceptance, CaptureJob, CapturePayment, CaptureRefusal, PaymentRecords, PaymentResult,
};
pub use provider::{CHARGES, PaymentProvider, ProviderResource};
