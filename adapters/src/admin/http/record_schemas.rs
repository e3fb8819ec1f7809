//! How the document describes the answers of the audit and record routes. Described,
//! never built: the application renders them; `schemas.rs` tests read one with the other.
#![allow(dead_code)]

use utoipa::ToSchema;

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

#[cfg(test)]
mod tests {
    use application::admin::{
        AuditCursor, AuditEvent as Event, KeyAddress, KeyRecordView, KeyState, OperatorName, Page,
        Who, audit_page_json, key_json,
    };
    use chrono::DateTime;
    use domain::{ActorId, IdempotencyKey, Operation, TenantId};

    use super::*;

    #[test]
    fn the_documented_record_schemas_read_what_the_admin_renders() {
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
