//! Accepting a leased operation: the row its acceptance writes and the `202` it stores,
//! the same for every kind. The kind's step decides, then writes this through its port.

use chrono::{DateTime, Utc};
use domain::{OperationState, OrderId, StoredResponse, TenantId};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::operation::LeasedOperation;
use super::recorded::shown;
use crate::idempotency::{Answer, Location, Refusal, StepContext, StepError, answer};
use crate::names::StateName;

/// Written `PENDING`, generation 0, no owner, due at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewOperation {
    pub id: Uuid,
    pub kind: &'static str,
    pub tenant: TenantId,
    pub order: OrderId,
    /// The kind's job as a JSON object.
    pub input: Vec<u8>,
    /// The status read's result member before there is a result (`{"payment":null}`).
    pub result: Vec<u8>,
    /// The other service's `Idempotency-Key` for every attempt by every owner.
    pub downstream_key: String,
    /// Also when its first attempt is due.
    pub accepted_at: DateTime<Utc>,
}

/// The `202`'s body (stored, and replayed byte for byte).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"operationId": "0b6e3f0e-6d0c-4f43-9a53-1d3c1f1f7a21", "state": "pending"}))]
pub struct Accepted {
    /// The operation's id: read it at `/api/operations/{operationId}`.
    #[schema(format = "uuid")]
    operation_id: String,
    /// Always `pending` at acceptance.
    state: StateName,
}

impl NewOperation {
    /// The id and the downstream key are made here, once: the id names the operation, the
    /// key is what every attempt sends.
    ///
    /// # Errors
    /// [`StepError::Internal`] when the job does not serialize (a bug in the kind).
    pub fn of<K: LeasedOperation>(
        context: StepContext,
        order: OrderId,
        job: &K::Job,
    ) -> Result<Self, StepError<K::Refusal>> {
        let internal = |error: crate::ports::StoreError| StepError::Internal(Box::new(error));
        Ok(Self {
            id: Uuid::new_v4(),
            kind: K::NAME,
            tenant: context.tenant,
            order,
            input: serde_json::to_vec(job).map_err(|error| StepError::Internal(error.into()))?,
            result: shown::<K>(None).map_err(internal)?,
            downstream_key: Uuid::new_v4().hyphenated().to_string(),
            accepted_at: context.now,
        })
    }

    /// `202 Accepted`, to be followed at `/api/operations/{id}`.
    ///
    /// # Errors
    /// [`StepError::Internal`] when the answer cannot be stored.
    pub fn accepted<R: Refusal>(&self) -> Result<StoredResponse, StepError<R>> {
        let body = serde_json::to_vec(&Accepted {
            operation_id: self.id.hyphenated().to_string(),
            state: OperationState::Pending.into(),
        })
        .map_err(|error| StepError::Internal(error.into()))?;
        answer(Answer::Accepted(Location::Operation(self.id)), body)
    }
}
