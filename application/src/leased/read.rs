//! `GET /api/operations/{operationId}`: where an operation of the caller's tenant stands,
//! whatever its kind; the result member is the kind's, as it stored it.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{OperationState, OrderId, TenantId};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::members::Members;
use crate::names::StateName;
use crate::ports::StoreError;
use crate::reads::{ReadFrom, TenantRead};
use crate::timestamps::rfc3339_micros;

#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOperation;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationView {
    pub id: Uuid,
    pub operation_type: String,
    pub order: OrderId,
    pub state: OperationState,
    /// The kind's result member, `null` until there is a result (`{"payment":null}`).
    pub result: Members,
    pub updated_at: DateTime<Utc>,
}

pub trait OperationReader: Send + Sync {
    /// `None` also for another tenant's.
    ///
    /// # Errors
    /// `ConnectionLost`, `Timeout` or `Other`.
    fn find_operation(
        &self,
        tenant: TenantId,
        id: Uuid,
    ) -> impl Future<Output = Result<Option<OperationView>, StoreError>> + Send;
}

/// `GET /api/operations/{operationId}`, in the order
/// `docs/long-running-operations.md#the-status-read` documents.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OperationStatus)]
pub struct StatusBody<'a> {
    /// The operation's id.
    #[schema(format = "uuid")]
    operation_id: String,
    /// Its kind: `payments.capture.v1`.
    #[serde(rename = "type")]
    #[schema(example = "payments.capture.v1")]
    operation_type: &'a str,
    /// The order it concerns, a decimal string.
    #[schema(pattern = "^[1-9][0-9]{0,18}$", example = "1")]
    order_id: String,
    /// Where it stands.
    state: StateName,
    /// The kind's result member (`payment` for a capture): `null` until it succeeded.
    #[serde(flatten)]
    result: &'a Members,
    /// When it last changed: RFC 3339, UTC, microseconds.
    #[schema(format = DateTime)]
    updated_at: String,
}

impl TenantRead for ReadOperation {
    const PERMISSION: &'static str = "payments:read";
    const WHAT: &'static str = "operation";
    type Id = Uuid;
    type View = OperationView;

    fn to_json(view: &OperationView) -> Vec<u8> {
        let body = StatusBody {
            operation_id: view.id.hyphenated().to_string(),
            operation_type: &view.operation_type,
            order_id: view.order.to_string(),
            state: view.state.into(),
            result: &view.result,
            updated_at: rfc3339_micros(view.updated_at),
        };
        // Strings, integers and parsed members into memory: cannot fail.
        serde_json::to_vec(&body).unwrap_or_default()
    }

    fn poll_again(view: &OperationView) -> bool {
        view.state == OperationState::Pending
    }
}

impl<S: OperationReader> ReadFrom<S> for ReadOperation {
    fn find(
        store: &S,
        tenant: TenantId,
        id: Uuid,
    ) -> impl Future<Output = Result<Option<OperationView>, StoreError>> + Send {
        store.find_operation(tenant, id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(state: OperationState) -> OperationView {
        OperationView {
            id: Uuid::nil(),
            operation_type: "payments.capture.v1".to_owned(),
            order: OrderId::new(9),
            state,
            result: Members::parse(br#"{"payment":null}"#).unwrap(),
            updated_at: DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
        }
    }

    #[test]
    fn an_operation_reads_as_its_status_document_and_only_a_pending_one_is_polled_again() {
        let body: serde_json::Value =
            serde_json::from_slice(&ReadOperation::to_json(&view(OperationState::Pending)))
                .unwrap();
        assert_eq!(body["orderId"], serde_json::json!("9"));
        assert_eq!(body["state"], serde_json::json!("pending"));
        assert_eq!(body["payment"], serde_json::Value::Null);
        for state in OperationState::ALL {
            assert_eq!(
                ReadOperation::poll_again(&view(state)),
                state == OperationState::Pending,
                "{state:?}"
            );
        }
    }
}
