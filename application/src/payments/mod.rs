//! Payments: `payments.capture.v1` and `payments.refund.v1`, leased operations
//! (`docs/long-running-operations.md`), and the payment provider they call.

mod capture;
mod events;
mod provider;
mod refund;

pub use capture::{
    CaptureAcceptance, CaptureJob, CapturePayment, CaptureRefusal, PAYMENTS_CAPTURED,
    PaymentRecords, PaymentResult,
};
pub use events::write_payment_event;
pub use provider::{CHARGES, Money, PaymentProvider, ProviderRequest, ProviderResource};
pub use refund::{
    CapturedCharge, PAYMENTS_REFUNDED, REFUNDS, RefundAcceptance, RefundJob, RefundJobError,
    RefundPayment, RefundRecords, RefundRefusal, RefundRequest, RefundResult, RefundableCharge,
};
