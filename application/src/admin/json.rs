//! The JSON forms of the admin views, one for the HTTP routes and the command line; each
//! type that renders one describes it in `/openapi.json` (`AdminOperation`,
//! `IdempotencyRecord`, `AuditEvent` and their pages).

use serde::Serialize;
use utoipa::ToSchema;

use super::page::{Cursor, Page};
use super::scope::Who;
use super::views::{AdminOperation, AuditEvent, KeyRecordView};
use crate::leased::Members;
use crate::names::{ErrorClassName, StateName};
use crate::timestamps::rfc3339_micros;

/// An operation with everything a person needs to decide: the generic members, and its
/// kind's input and result members as the kind stored them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = AdminOperation)]
pub struct OperationBody<'a> {
    #[schema(format = "uuid")]
    operation_id: String,
    #[serde(rename = "type")]
    #[schema(example = "payments.capture.v1")]
    operation_type: &'a str,
    #[schema(pattern = "^[1-9][0-9]{0,18}$")]
    tenant_id: String,
    #[schema(pattern = "^[1-9][0-9]{0,18}$")]
    order_id: String,
    /// The kind's input (`amount` and `currency` for a capture).
    #[serde(flatten)]
    input: &'a Members,
    state: StateName,
    /// Calls without a definite answer so far.
    attempts: u32,
    #[schema(format = DateTime)]
    next_attempt_at: String,
    /// `null` when no worker holds or held it since it last changed hands.
    lease: Option<LeaseBody<'a>>,
    /// Counts owners; every write by a worker or an operator is conditional on it.
    generation: u64,
    /// The other service's idempotency key: the same for every attempt.
    downstream_key: &'a str,
    last_error: Option<ErrorClassName>,
    #[schema(format = DateTime)]
    accepted_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    /// The kind's result member (`payment` for a capture), `null` until there is one.
    #[serde(flatten)]
    result: &'a Members,
    /// The trace of the request that accepted it, which the worker's attempts continue;
    /// `null` when tracing was off then.
    #[schema(pattern = "^[0-9a-f]{32}$")]
    trace_id: Option<&'a str>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Lease)]
pub struct LeaseBody<'a> {
    owner: &'a str,
    #[schema(format = DateTime)]
    expires_at: String,
}

/// An idempotency record's metadata: never its stored body.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = IdempotencyRecord)]
pub struct KeyBody<'a> {
    tenant_id: String,
    actor_id: String,
    operation: &'a str,
    key: &'a str,
    /// `processing` while its request runs, else `completed`.
    state: &'static str,
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
    /// The operation the stored answer points to, for a leased operation's key: while it
    /// is pending or in review the key is not evicted.
    #[schema(format = "uuid")]
    operation_id: Option<String>,
}

/// One operator change, written with it in one transaction.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = AuditEvent)]
pub struct AuditBody<'a> {
    #[schema(pattern = "^[1-9][0-9]{0,18}$")]
    id: String,
    #[schema(format = DateTime)]
    occurred_at: String,
    who: WhoBody<'a>,
    /// `operation.resolve`, `operation.retry`, `operation.cancel` or
    /// `idempotency_key.evict`.
    action: &'a str,
    target: TargetBody<'a>,
    /// The state before the change.
    before: &'a str,
    /// The state after it (`evicted` for a record).
    after: &'a str,
    /// The `x-request-id` of the change (the command line makes one).
    request_id: &'a str,
}

/// Who made a change: a token's tenant and actor, or an operator named on the command line.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = AuditWho)]
pub struct WhoBody<'a> {
    tenant_id: Option<String>,
    actor_id: Option<String>,
    operator: Option<&'a str>,
}

/// What a change was made to.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = AuditTarget)]
pub struct TargetBody<'a> {
    /// `operation` or `idempotency_key`.
    #[serde(rename = "type")]
    kind: &'a str,
    /// An operation id, or `actor/operation/key` for a record.
    id: &'a str,
    tenant_id: String,
}

/// One page of operations, newest first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OperationsPage)]
pub struct OperationsPage<'a> {
    items: Vec<OperationBody<'a>>,
    /// Pass as `cursor` for the next page; `null` on the last.
    next_cursor: Option<String>,
}

/// One page of audit events, newest first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = AuditPage)]
pub struct AuditPage<'a> {
    items: Vec<AuditBody<'a>>,
    /// Pass as `cursor` for the next page; `null` on the last.
    next_cursor: Option<String>,
}

fn operation_body(operation: &AdminOperation) -> OperationBody<'_> {
    OperationBody {
        operation_id: operation.id.hyphenated().to_string(),
        operation_type: &operation.operation_type,
        tenant_id: operation.tenant.get().to_string(),
        order_id: operation.order.to_string(),
        input: &operation.input,
        state: operation.state.into(),
        attempts: operation.attempts,
        next_attempt_at: rfc3339_micros(operation.next_attempt_at),
        lease: operation
            .lease_owner
            .as_deref()
            .zip(operation.lease_expires_at)
            .map(|(owner, expiry)| LeaseBody {
                owner,
                expires_at: rfc3339_micros(expiry),
            }),
        generation: operation.generation.get(),
        downstream_key: &operation.downstream_key,
        last_error: operation.last_error.map(ErrorClassName),
        accepted_at: rfc3339_micros(operation.accepted_at),
        updated_at: rfc3339_micros(operation.updated_at),
        result: &operation.result,
        trace_id: operation.trace_id.as_deref(),
    }
}

fn audit_body(event: &AuditEvent) -> AuditBody<'_> {
    let who = match &event.who {
        Who::Caller { tenant, actor } => WhoBody {
            tenant_id: Some(tenant.get().to_string()),
            actor_id: Some(actor.get().to_string()),
            operator: None,
        },
        Who::Operator(name) => WhoBody {
            tenant_id: None,
            actor_id: None,
            operator: Some(name.as_str()),
        },
    };
    AuditBody {
        id: event.id.to_string(),
        occurred_at: rfc3339_micros(event.at),
        who,
        action: &event.action,
        target: TargetBody {
            kind: &event.target_kind,
            id: &event.target_id,
            tenant_id: event.target_tenant.get().to_string(),
        },
        before: &event.before,
        after: &event.after,
        request_id: &event.request_id,
    }
}

/// Lowercase hex, as the admin API shows a record's fingerprint.
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut text, byte| {
        let _ = write!(text, "{byte:02x}");
        text
    })
}

// Strings and integers into memory: serializing cannot fail.

#[must_use]
pub fn operation_json(operation: &AdminOperation) -> Vec<u8> {
    serde_json::to_vec(&operation_body(operation)).unwrap_or_default()
}

#[must_use]
pub fn operations_page_json<C: Cursor>(page: &Page<AdminOperation, C>) -> Vec<u8> {
    serde_json::to_vec(&OperationsPage {
        items: page.items.iter().map(operation_body).collect(),
        next_cursor: page.next.as_ref().map(Cursor::encode),
    })
    .unwrap_or_default()
}

#[must_use]
pub fn audit_page_json<C: Cursor>(page: &Page<AuditEvent, C>) -> Vec<u8> {
    serde_json::to_vec(&AuditPage {
        items: page.items.iter().map(audit_body).collect(),
        next_cursor: page.next.as_ref().map(Cursor::encode),
    })
    .unwrap_or_default()
}

#[must_use]
pub fn key_json(record: &KeyRecordView) -> Vec<u8> {
    let address = &record.address;
    serde_json::to_vec(&KeyBody {
        tenant_id: address.tenant.get().to_string(),
        actor_id: address.actor.get().to_string(),
        operation: address.operation.as_str(),
        key: address.key.as_str(),
        state: record.state.as_api(),
        fingerprint_version: record.fingerprint_version,
        fingerprint: hex(&record.fingerprint),
        created_at: rfc3339_micros(record.created_at),
        expires_at: record.expires_at.map(rfc3339_micros),
        response_status: record.response_status,
        operation_id: record.operation.map(|id| id.hyphenated().to_string()),
    })
    .unwrap_or_default()
}
