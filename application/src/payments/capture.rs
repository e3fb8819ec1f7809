//! `payments.capture.v1`'s acceptance: the second real idempotent operation. The
//! coordinator runs it exactly as it runs `orders.create.v1`; its business step writes
//! the pending `operations` row and answers `202 Accepted`, and a worker does the rest
//! under a lease (see `worker`).

use domain::{Operation, PaymentCapture, StoredResponse};
use serde::Serialize;
use uuid::Uuid;

use crate::operation::operation_named;
use crate::ports::{AcceptCaptureError, NewCapture, OperationWriter};
use crate::{IdempotentOperation, Rejection, StepContext, StepError};

/// The permission needed to capture payments (and to receive replays of captures).
pub const PAYMENTS_CREATE: &str = "payments:create";

/// Accepts one capture per key: the business step of `payments.capture.v1`.
#[derive(Debug, Clone)]
pub struct CapturePayment {
    operation: Operation,
}

impl CapturePayment {
    /// The operation name, fixed by the route.
    pub const NAME: &'static str = "payments.capture.v1";
}

impl Default for CapturePayment {
    fn default() -> Self {
        Self {
            operation: operation_named(Self::NAME),
        }
    }
}

/// Where an operation's status can be read.
#[must_use]
pub fn operation_location(id: Uuid) -> String {
    format!("/api/operations/{}", id.hyphenated())
}

/// The acceptance's answer: `{"operationId","state":"pending"}`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Accepted {
    operation_id: String,
    state: &'static str,
}

impl<Tx: OperationWriter + Send> IdempotentOperation<Tx> for CapturePayment {
    type Input = PaymentCapture;

    fn operation(&self) -> &Operation {
        &self.operation
    }

    fn required_permission(&self) -> &str {
        PAYMENTS_CREATE
    }

    async fn execute(
        &self,
        tx: &mut Tx,
        context: StepContext,
        input: &PaymentCapture,
    ) -> Result<StoredResponse, StepError> {
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
        tx.accept_capture(&capture)
            .await
            .map_err(|error| match error {
                AcceptCaptureError::OrderNotFound => StepError::Rejected(Rejection::OrderNotFound),
                AcceptCaptureError::PaymentExists => StepError::Rejected(Rejection::PaymentExists),
                AcceptCaptureError::Store(store) => StepError::Store(store),
            })?;
        let body = serde_json::to_vec(&Accepted {
            operation_id: capture.id.hyphenated().to_string(),
            state: domain::OperationState::Pending.as_api(),
        })
        .map_err(|error| StepError::Internal(error.to_string()))?;
        StoredResponse::new(
            202,
            "application/json".to_owned(),
            Some(operation_location(capture.id)),
            body,
        )
        .map_err(|error| StepError::Internal(error.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_operation_name_is_a_valid_operation() {
        assert_eq!(
            CapturePayment::default().operation.as_str(),
            "payments.capture.v1"
        );
    }

    #[test]
    fn an_operation_is_read_under_its_hyphenated_id() {
        assert_eq!(
            operation_location(Uuid::from_u128(1)),
            "/api/operations/00000000-0000-0000-0000-000000000001"
        );
    }

    #[test]
    fn a_capture_and_its_replay_need_payments_create() {
        struct NoTx;
        impl OperationWriter for NoTx {
            async fn accept_capture(&mut self, _: &NewCapture) -> Result<(), AcceptCaptureError> {
                Ok(())
            }
        }
        let operation = CapturePayment::default();
        assert_eq!(
            <CapturePayment as IdempotentOperation<NoTx>>::required_permission(&operation),
            "payments:create"
        );
    }
}
