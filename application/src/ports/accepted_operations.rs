//! The ports of a long-running operation's acceptance and of its status read (contract
//! §7): the `operations` row written inside the coordinator's transaction, and the view
//! `GET /api/operations/{id}` answers with.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{Amount, Currency, OperationState, OrderId, PaymentCapture, TenantId};
use uuid::Uuid;

use super::StoreError;

/// An accepted capture, as the acceptance writes it: `PENDING`, generation 0, no owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCapture {
    /// The operation's id (`operationId`), made once at acceptance.
    pub id: Uuid,
    /// The versioned operation name (`payments.capture.v1`).
    pub operation_type: &'static str,
    /// The caller's tenant: the order must be one of its own.
    pub tenant: TenantId,
    /// What to capture.
    pub input: PaymentCapture,
    /// The provider's `Idempotency-Key`, fixed here for the operation's whole life.
    pub downstream_key: String,
    /// When it was accepted; also when its first attempt is due.
    pub accepted_at: DateTime<Utc>,
}

/// Why a capture could not be accepted.
#[derive(Debug, thiserror::Error)]
pub enum AcceptCaptureError {
    /// The order does not exist in the caller's tenant.
    #[error("order not found")]
    OrderNotFound,
    /// The order already has a pending or succeeded capture.
    #[error("payment exists")]
    PaymentExists,
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Writes accepted operations inside an open transaction (implemented by the adapter's
/// transaction, like the business repositories).
pub trait OperationWriter {
    /// Inserts the capture's `operations` row, in one statement that also checks the
    /// order is the tenant's.
    ///
    /// # Errors
    /// - [`AcceptCaptureError::OrderNotFound`] when the tenant has no such order;
    /// - [`AcceptCaptureError::PaymentExists`] only for a violation of the one-active-
    ///   capture-per-order constraint;
    /// - `Store(..)` as for any statement of the transaction.
    fn accept_capture(
        &mut self,
        capture: &NewCapture,
    ) -> impl Future<Output = Result<(), AcceptCaptureError>> + Send;
}

/// A succeeded operation's payment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentView {
    /// The payment row's id.
    pub id: u64,
    /// The provider's charge id.
    pub provider_charge_id: String,
    /// How much was captured.
    pub amount: Amount,
    /// In which currency.
    pub currency: Currency,
}

/// An operation as its status read shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationView {
    /// The operation's id.
    pub id: Uuid,
    /// The versioned operation name.
    pub operation_type: String,
    /// The order it is about.
    pub order: OrderId,
    /// Where it stands.
    pub state: OperationState,
    /// The payment, once succeeded.
    pub payment: Option<PaymentView>,
    /// When the row last changed.
    pub updated_at: DateTime<Utc>,
}

/// Reads operations outside any write transaction.
pub trait OperationReader: Send + Sync {
    /// The operation with this id in this tenant; `None` also when it belongs to another
    /// tenant.
    ///
    /// # Errors
    /// `ConnectionLost`, `Timeout` or `Other`.
    fn find_operation(
        &self,
        tenant: TenantId,
        id: Uuid,
    ) -> impl Future<Output = Result<Option<OperationView>, StoreError>> + Send;
}
