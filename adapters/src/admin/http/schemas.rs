//! How the document describes the operation routes' answers and bodies (the others' are in
//! `record_schemas.rs`). Described, never built: the
//! application renders them (`application::admin` JSON forms); tests read one with the other.
#![allow(dead_code)]

use utoipa::ToSchema;

pub(crate) use crate::leased::read::OperationState;

/// Why the last attempt got no definite answer, or why none was made.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "snake_case")]
pub(crate) enum LastError {
    Timeout,
    Transport,
    ProviderStatus,
    Refused,
    Malformed,
    KeyRetentionPassed,
    /// What the operation stored at acceptance no longer reads as its kind's job.
    InputUnreadable,
}

/// A worker's hold on the operation.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Lease {
    /// The worker that holds or last held it.
    owner: String,
    /// RFC 3339, UTC, microseconds; in the past once run out.
    #[schema(format = DateTime)]
    expires_at: String,
}

/// The payment of a succeeded operation.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct AdminPayment {
    #[schema(pattern = "^[1-9][0-9]{0,18}$")]
    payment_id: String,
    provider_charge_id: String,
    /// As captured, in minor units.
    #[schema(minimum = 1, maximum = 10_000_000)]
    amount: u32,
    /// As captured.
    #[schema(pattern = "^[A-Z]{3}$")]
    currency: String,
}

/// An operation with everything a person needs to decide.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct AdminOperation {
    #[schema(format = "uuid")]
    operation_id: String,
    #[serde(rename = "type")]
    #[schema(example = "payments.capture.v1")]
    operation_type: String,
    #[schema(pattern = "^[1-9][0-9]{0,18}$")]
    tenant_id: String,
    #[schema(pattern = "^[1-9][0-9]{0,18}$")]
    order_id: String,
    /// In minor units.
    #[schema(minimum = 1, maximum = 10_000_000)]
    amount: u32,
    #[schema(pattern = "^[A-Z]{3}$")]
    currency: String,
    state: OperationState,
    /// Calls without a definite answer so far.
    attempts: u32,
    #[schema(format = DateTime)]
    next_attempt_at: String,
    /// `null` when no worker holds or held it since it last changed hands.
    lease: Option<Lease>,
    /// Counts owners; every write by a worker or an operator is conditional on it.
    generation: u64,
    /// The provider's idempotency key: the same for every attempt.
    downstream_key: String,
    last_error: Option<LastError>,
    #[schema(format = DateTime)]
    accepted_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    payment: Option<AdminPayment>,
}

/// One page of operations, newest first.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct OperationsPage {
    items: Vec<AdminOperation>,
    /// Pass as `cursor` for the next page; `null` on the last.
    next_cursor: Option<String>,
}

/// What a person found at the provider.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"outcome": "succeeded", "providerChargeId": "ch_3f2a"}))]
pub(crate) struct ResolveRequest {
    outcome: ResolveOutcome,
    /// Required with `succeeded`, refused with `declined`.
    #[schema(pattern = "^[A-Za-z0-9_-]{1,128}$", min_length = 1, max_length = 128)]
    provider_charge_id: Option<String>,
}

#[derive(Debug, ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ResolveOutcome {
    Succeeded,
    Declined,
}

/// Retry and cancel take no body; an empty object is accepted too.
#[derive(Debug, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoMembers {}

#[cfg(test)]
mod tests {
    use application::admin::{AdminOperation as View, OperationCursor, Page, operations_page_json};
    use application::leased::Members;
    use chrono::DateTime;
    use domain::{AttemptError, Generation, OperationState, OrderId, TenantId};
    use uuid::Uuid;

    use super::*;

    fn view(state: OperationState) -> View {
        let at = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        View {
            id: Uuid::from_u128(3),
            operation_type: "payments.capture.v1".to_owned(),
            tenant: TenantId::parse(1).unwrap(),
            order: OrderId::new(9),
            input: Members::parse(br#"{"amount":1500,"currency":"JPY"}"#).unwrap(),
            state,
            attempts: 2,
            next_attempt_at: at,
            lease_owner: Some("1-w".to_owned()),
            lease_expires_at: Some(at),
            generation: Generation::new(4),
            downstream_key: "k".to_owned(),
            last_error: Some(AttemptError::KeyRetentionPassed),
            accepted_at: at,
            updated_at: at,
            result: Members::parse(
                br#"{"payment":{"paymentId":"4","providerChargeId":"ch_1","amount":1500,"currency":"JPY"}}"#,
            )
            .unwrap(),
        }
    }

    #[test]
    fn the_documented_operation_schemas_read_what_the_admin_renders() {
        // Every state and every error class, so neither documented enum can miss one.
        for (n, last_error) in AttemptError::ALL.into_iter().enumerate() {
            let state = OperationState::ALL[n % OperationState::ALL.len()];
            let page = Page {
                items: vec![View {
                    last_error: Some(last_error),
                    ..view(state)
                }],
                next: Some(OperationCursor {
                    accepted_at: DateTime::from_timestamp(1, 0).unwrap(),
                    id: Uuid::from_u128(1),
                }),
            };
            let read: OperationsPage = serde_json::from_slice(&operations_page_json(&page))
                .unwrap_or_else(|e| panic!("{state:?}: {e}"));
            assert!(read.next_cursor.is_some());
        }
    }
}
