//! `orders.cancel.v1`: an active order with no pending or succeeded capture becomes
//! cancelled, for good, with its `orders.cancelled.v1` event (`docs/http-api.md`).

use chrono::{DateTime, Utc};
use domain::{
    FingerprintVersion, Fingerprinted, OperationState, OrderId, OrderStatus, Reason, StoredResponse,
};

use super::{LockedOrder, Order};
use crate::events::{EventType, NewEvent, OutboxWriter, order_event};
use crate::idempotency::{
    Answer, BatchMember, BatchPlan, Execute, IdempotentOperation, NOT_FOUND, PlannedMember,
    Refusal, StepContext, StepError, answer,
};

mod batched;
mod port;

pub use port::OrderCancellations;

/// Written with every cancel, in its transaction.
pub const ORDERS_CANCELLED: EventType = EventType::about_order("orders.cancelled.v1");

/// The validated input: the order from the path, the reason from the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderCancellation {
    pub order: OrderId,
    pub reason: Reason,
}

impl Fingerprinted for OrderCancellation {
    const RULE_VERSION: FingerprintVersion = FingerprintVersion(1);

    /// Order, then reason (`docs/http-api.md#request-fingerprints`).
    fn fingerprint_fields(&self) -> Vec<String> {
        vec![
            self.order.get().to_string(),
            self.reason.as_str().to_owned(),
        ]
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct CancelOrder;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelRefusal {
    OrderNotFound,
    AlreadyCancelled,
    CapturePending,
    CaptureSucceeded,
}

impl Refusal for CancelRefusal {
    const ALL: &'static [Self] = &[
        Self::OrderNotFound,
        Self::AlreadyCancelled,
        Self::CapturePending,
        Self::CaptureSucceeded,
    ];

    /// The three reasons an existing order stays share one code; the variant says which.
    fn code(self) -> &'static str {
        match self {
            Self::OrderNotFound => NOT_FOUND,
            Self::AlreadyCancelled | Self::CapturePending | Self::CaptureSucceeded => {
                "order_not_cancellable"
            }
        }
    }
}

impl IdempotentOperation for CancelOrder {
    const NAME: &'static str = "orders.cancel.v1";
    const PERMISSION: &'static str = "orders:cancel";
    const EVENTS: &'static [EventType] = &[ORDERS_CANCELLED];
    type Input = OrderCancellation;
    type Refusal = CancelRefusal;
    type Reserved = ();
}

impl<Tx: OrderCancellations + OutboxWriter + Send> Execute<Tx> for CancelOrder {
    async fn execute(
        &self,
        tx: &mut Tx,
        context: StepContext,
        input: &OrderCancellation,
    ) -> Result<StoredResponse, StepError<CancelRefusal>> {
        let found = tx.lock_order(context.tenant, input.order).await?;
        let found = cancellable(found.as_ref())?;
        // Read only for an active order: the capture's lock is taken under the order's.
        let capture = tx.blocking_capture(context.tenant, input.order).await?;
        let planned = planned(found, capture, context.now)?;
        tx.mark_cancelled(
            context.tenant,
            input.order,
            context.now,
            &input.reason,
            planned.revision,
        )
        .await?;
        tx.add_event(&planned.event).await?;
        Ok(planned.response)
    }

    /// Every member's order read in one statement, their captures in another, each member
    /// decided in arrival order (`batched.rs`).
    const BATCHED: bool = true;

    async fn plan_batch(
        &self,
        tx: &mut Tx,
        members: &[BatchMember<OrderCancellation>],
        _wary: bool,
    ) -> Result<BatchPlan<()>, StepError<CancelRefusal>> {
        batched::plan(tx, members).await
    }

    async fn execute_batch(
        &self,
        tx: &mut Tx,
        batch: &[PlannedMember<'_, OrderCancellation, ()>],
    ) -> Result<(), StepError<CancelRefusal>> {
        batched::write(tx, batch).await
    }
}

/// The order as it must be to be cancelled: there, and active.
pub(super) fn cancellable(
    found: Option<&LockedOrder>,
) -> Result<&LockedOrder, StepError<CancelRefusal>> {
    let Some(found) = found else {
        return Err(StepError::Rejected(CancelRefusal::OrderNotFound));
    };
    if !found.order.status.is_active() {
        return Err(StepError::Rejected(CancelRefusal::AlreadyCancelled));
    }
    Ok(found)
}

/// What a cancel of the active `found` writes and answers, given its capture.
pub(super) struct Cancel {
    revision: u64,
    pub(super) event: NewEvent,
    pub(super) response: StoredResponse,
}

pub(super) fn planned(
    found: &LockedOrder,
    capture: Option<OperationState>,
    now: DateTime<Utc>,
) -> Result<Cancel, StepError<CancelRefusal>> {
    match capture {
        Some(OperationState::Succeeded) => {
            return Err(StepError::Rejected(CancelRefusal::CaptureSucceeded));
        }
        Some(state) if state.blocks_another_capture() => {
            return Err(StepError::Rejected(CancelRefusal::CapturePending));
        }
        _ => {}
    }
    let revision = found.revision + 1;
    let order = Order {
        status: OrderStatus::Cancelled,
        cancelled_at: Some(now),
        ..found.order.clone()
    };
    // The event commits with the cancel or not at all; its id is made here, once.
    let event = order_event(
        ORDERS_CANCELLED,
        uuid::Uuid::new_v4(),
        &order,
        revision,
        now,
    );
    Ok(Cancel {
        revision,
        event,
        response: answer(Answer::Done, order.to_json())?,
    })
}

#[cfg(test)]
mod tests {
    use domain::Operation;

    use super::*;

    #[test]
    fn the_fingerprint_is_the_order_then_the_reason() {
        let input = OrderCancellation {
            order: OrderId::new(42),
            reason: Reason::parse("changed my mind").unwrap(),
        };
        assert_eq!(
            domain::canonical_bytes(
                &Operation::named(CancelOrder::NAME),
                OrderCancellation::RULE_VERSION,
                &input.fingerprint_fields()
            ),
            b"orders.cancel.v1\n1\n42\nchanged my mind\n"
        );
        // The documented vector (`docs/http-api.md#request-fingerprints`).
        let hash = input
            .fingerprint(&Operation::named(CancelOrder::NAME))
            .to_hex();
        assert_eq!(
            hash,
            "9ca3eb935290c73408ea6b96d5ff848fcccd6ea9de332e54c7e519451fdebf36"
        );
    }

    #[test]
    fn every_refusal_but_not_found_is_order_not_cancellable() {
        let codes: Vec<&str> = CancelRefusal::ALL[1..]
            .iter()
            .map(|refusal| refusal.code())
            .collect();
        assert_eq!(codes, ["order_not_cancellable"; 3]);
        assert_eq!(CancelRefusal::OrderNotFound.code(), NOT_FOUND);
    }
}
