//! How the document describes the admin answers and bodies. Described, never built: the
//! application renders them (`application::admin` JSON forms); tests read one with the other.
#![allow(dead_code)]

use utoipa::ToSchema;

pub(crate) use crate::payments::read::OperationState;

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

/// Who made a change: a token's tenant and actor, or an operator named on the command line.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct AuditWho {
    tenant_id: Option<String>,
    actor_id: Option<String>,
    operator: Option<String>,
}

/// What a change was made to.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct AuditTarget {
    /// `operation` or `idempotency_key`.
    #[serde(rename = "type")]
    kind: String,
    /// An operation id, or `actor/operation/key` for a record.
    id: String,
    tenant_id: String,
}

/// One operator change, written with it in one transaction.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct AuditEvent {
    #[schema(pattern = "^[1-9][0-9]{0,18}$")]
    id: String,
    #[schema(format = DateTime)]
    occurred_at: String,
    who: AuditWho,
    /// `operation.resolve`, `operation.retry`, `operation.cancel` or
    /// `idempotency_key.evict`.
    action: String,
    target: AuditTarget,
    /// The state before the change.
    before: String,
    /// The state after it (`evicted` for a record).
    after: String,
    /// The `x-request-id` of the change (the command line makes one).
    request_id: String,
}

/// One page of audit events, newest first.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct AuditPage {
    items: Vec<AuditEvent>,
    next_cursor: Option<String>,
}

/// An idempotency record's metadata: never its stored body.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct IdempotencyRecord {
    tenant_id: String,
    actor_id: String,
    operation: String,
    key: String,
    /// `processing` while its request runs, else `completed`.
    state: String,
    fingerprint_version: u16,
    /// SHA-256 of the request's canonical form, lowercase hex.
    #[schema(pattern = "^[0-9a-f]{64}$")]
    fingerprint: String,
    #[schema(format = DateTime)]
    created_at: String,
    /// `null` while processing.
    #[schema(format = DateTime)]
    expires_at: Option<String>,
    /// The stored response's status, once completed.
    response_status: Option<u16>,
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
    use application::admin::{AdminOperation as View, AuditCursor, OperationCursor};
    use application::admin::{
        AuditEvent as Event, KeyAddress, KeyRecordView, KeyState, OperatorName, Page, Who,
        audit_page_json, key_json, operations_page_json,
    };
    use application::ports::PaymentView;
    use chrono::DateTime;
    use domain::{
        ActorId, Amount, AttemptError, Currency, Generation, IdempotencyKey, Operation,
        OperationState, OrderId, TenantId,
    };
    use uuid::Uuid;

    use super::*;

    fn view(state: OperationState) -> View {
        let at = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        View {
            id: Uuid::from_u128(3),
            operation_type: "payments.capture.v1".to_owned(),
            tenant: TenantId::parse(1).unwrap(),
            order: OrderId::new(9),
            amount: Amount::parse(1500).unwrap(),
            currency: Currency::parse("JPY").unwrap(),
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
            payment: Some(PaymentView {
                id: 4,
                provider_charge_id: "ch_1".to_owned(),
                amount: Amount::parse(1500).unwrap(),
                currency: Currency::parse("JPY").unwrap(),
            }),
        }
    }

    #[test]
    fn the_documented_schemas_read_what_the_admin_renders() {
        for state in OperationState::ALL {
            let page = Page {
                items: vec![view(state)],
                next: Some(OperationCursor {
                    accepted_at: DateTime::from_timestamp(1, 0).unwrap(),
                    id: Uuid::from_u128(1),
                }),
            };
            let read: OperationsPage = serde_json::from_slice(&operations_page_json(&page))
                .unwrap_or_else(|e| panic!("{state:?}: {e}"));
            assert!(read.next_cursor.is_some());
        }
        let at = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let events = Page {
            items: vec![
                Event {
                    id: 1,
                    at,
                    who: Who::Operator(OperatorName::parse("alice").unwrap()),
                    action: "operation.cancel".to_owned(),
                    target_kind: "operation".to_owned(),
                    target_id: "x".to_owned(),
                    target_tenant: TenantId::parse(1).unwrap(),
                    before: "pending".to_owned(),
                    after: "cancelled".to_owned(),
                    request_id: "r".to_owned(),
                },
                Event {
                    id: 2,
                    at,
                    who: Who::Caller {
                        tenant: TenantId::parse(1).unwrap(),
                        actor: ActorId::parse(9).unwrap(),
                    },
                    action: "idempotency_key.evict".to_owned(),
                    target_kind: "idempotency_key".to_owned(),
                    target_id: "1/orders.create.v1/k".to_owned(),
                    target_tenant: TenantId::parse(1).unwrap(),
                    before: "completed".to_owned(),
                    after: "evicted".to_owned(),
                    request_id: "r".to_owned(),
                },
            ],
            next: None::<AuditCursor>,
        };
        let read: AuditPage = serde_json::from_slice(&audit_page_json(&events)).unwrap();
        assert_eq!(read.items.len(), 2);
        let record = KeyRecordView {
            address: KeyAddress {
                tenant: TenantId::parse(1).unwrap(),
                actor: ActorId::parse(1).unwrap(),
                operation: Operation::parse("orders.create.v1").unwrap(),
                key: IdempotencyKey::parse("k").unwrap(),
            },
            state: KeyState::Processing,
            fingerprint_version: 1,
            fingerprint: vec![0xab; 32],
            created_at: at,
            expires_at: None,
            response_status: None,
        };
        let read: IdempotencyRecord = serde_json::from_slice(&key_json(&record)).unwrap();
        assert_eq!(read.fingerprint, "ab".repeat(32));
    }
}
