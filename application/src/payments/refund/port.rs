//! The refund's ports: its acceptance's reads and writes, one request or a batch's at a
//! time, and its writes when it ends.

use std::future::Future;

use domain::{Amount, Currency, OrderId, TenantId};
use tracing::Instrument;

use super::{RefundJob, RefundRefusal};
use crate::idempotency::StepError;
use crate::leased::{Ended, NewOperation};
use crate::ports::StoreError;

/// The order's succeeded capture, as a refund of it needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedCharge {
    /// The provider's id of the charge.
    pub charge: String,
    pub currency: Currency,
}

/// A succeeded capture as a batch plans a refund of it: what it has left after the
/// refunds not declined, as the read found it (the reservation's write checks it again).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundableCharge {
    pub captured: CapturedCharge,
    pub left: u32,
}

/// The refund's acceptance reads and writes.
pub trait RefundAcceptance {
    /// The tenant's order's succeeded capture.
    ///
    /// # Errors
    /// `Rejected(OrderNotFound)` when the tenant has no such order, `Rejected(NotRefundable)`
    /// when it has no succeeded capture.
    fn captured_charge(
        &mut self,
        tenant: TenantId,
        order: OrderId,
    ) -> impl Future<Output = Result<CapturedCharge, StepError<RefundRefusal>>> + Send;

    /// Reserves `amount` of the order's capture, in one conditional write that concurrent
    /// refunds of the order wait on, then writes the operation.
    ///
    /// # Errors
    /// `Rejected(ExceedsCaptured)` when the capture has less than `amount` left.
    fn accept_refund(
        &mut self,
        operation: &NewOperation,
        amount: Amount,
    ) -> impl Future<Output = Result<(), StepError<RefundRefusal>>> + Send;

    /// The succeeded capture of each of `orders` (a batch's, in its members' order) with
    /// what it has left, in one read that takes no lock; `None` where the tenant's order
    /// has none (or there is no such order: the member's own run tells which).
    fn refundable_charges(
        &mut self,
        orders: &[(TenantId, OrderId)],
    ) -> impl Future<Output = Result<Vec<Option<RefundableCharge>>, StoreError>> + Send;

    /// The acceptance of each of `accepted` (its operation, the amount it reserves, the
    /// span of the request it came in), each on an order of its own: the amounts reserved
    /// in one conditional write, the operations inserted in another where the store can.
    ///
    /// # Errors
    /// `Rejected(ExceedsCaptured)` when any capture has less left than its member asks,
    /// which fails the whole batch: its members then run alone.
    fn accept_refunds(
        &mut self,
        accepted: &[(&NewOperation, Amount, &tracing::Span)],
    ) -> impl Future<Output = Result<(), StepError<RefundRefusal>>> + Send
    where
        Self: Send,
    {
        async move {
            for (operation, amount, span) in accepted {
                self.accept_refund(operation, *amount)
                    .instrument((*span).clone())
                    .await?;
            }
            Ok(())
        }
    }
}

/// The refund's writes when it ends.
pub trait RefundRecords {
    /// The refund of the succeeded operation `ended`, made as `provider_refund_id`: its id.
    fn insert_refund(
        &mut self,
        ended: &Ended<'_, RefundJob>,
        provider_refund_id: &str,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;

    /// Gives the declined refund's amount back to the order's capture.
    fn release_refund(
        &mut self,
        ended: &Ended<'_, RefundJob>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}
