//! The capture's acceptance: a pending `operations` row and `202 Accepted`.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{OperationState, PaymentCapture, StoredResponse, TenantId};
use serde::Serialize;
use uuid::Uuid;

use crate::idempotency::{
    Answer, Execute, IdempotentOperation, Location, NOT_FOUND, Refusal, StepContext, StepError,
    answer,
};

#[derive(Debug, Clone, Copy, Default)]
pub struct CapturePayment;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureRefusal {
    OrderNotFound,
    PaymentExists,
    OrderCancelled,
}

impl Refusal for CaptureRefusal {
    const ALL: &'static [Self] = &[
        Self::OrderNotFound,
        Self::PaymentExists,
        Self::OrderCancelled,
    ];

    fn code(self) -> &'static str {
        match self {
            // Nothing about the order is revealed beyond "not yours or not there".
            Self::OrderNotFound => NOT_FOUND,
            Self::PaymentExists => "payment_exists",
            Self::OrderCancelled => "order_cancelled",
        }
    }
}

/// Written `PENDING`, generation 0, no owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCapture {
    pub id: Uuid,
    pub operation_type: &'static str,
    pub tenant: TenantId,
    pub input: PaymentCapture,
    pub downstream_key: String,
    /// Also when its first attempt is due.
    pub accepted_at: DateTime<Utc>,
}

pub trait OperationWriter {
    /// The order is written too (its revision), so a concurrent cancel of it and this
    /// capture never both commit.
    ///
    /// # Errors
    /// `Rejected(OrderNotFound)` when the tenant has no such order; `Rejected(OrderCancelled)`
    /// when it is cancelled; `Rejected(PaymentExists)` ONLY for the
    /// one-active-capture-per-order constraint.
    fn accept_capture(
        &mut self,
        capture: &NewCapture,
    ) -> impl Future<Output = Result<(), StepError<CaptureRefusal>>> + Send;
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Accepted {
    operation_id: String,
    state: &'static str,
}

impl IdempotentOperation for CapturePayment {
    const NAME: &'static str = "payments.capture.v1";
    const PERMISSION: &'static str = "payments:create";
    type Input = PaymentCapture;
    type Refusal = CaptureRefusal;
}

impl<Tx: OperationWriter + Send> Execute<Tx> for CapturePayment {
    async fn execute(
        &self,
        tx: &mut Tx,
        context: StepContext,
        input: &PaymentCapture,
    ) -> Result<StoredResponse, StepError<CaptureRefusal>> {
        // Both made once, here: the id names the operation, the downstream key is the
        // provider's Idempotency-Key for every attempt by every owner.
        let capture = NewCapture {
            id: Uuid::new_v4(),
            operation_type: Self::NAME,
            tenant: context.tenant,
            input: input.clone(),
            downstream_key: Uuid::new_v4().hyphenated().to_string(),
            accepted_at: context.now,
        };
        tx.accept_capture(&capture).await?;
        let body = serde_json::to_vec(&Accepted {
            operation_id: capture.id.hyphenated().to_string(),
            state: OperationState::Pending.as_api(),
        })
        .map_err(|error| StepError::Internal(error.into()))?;
        answer(Answer::Accepted(Location::Operation(capture.id)), body)
    }
}
