//! The JSON forms of the admin views, one for the HTTP routes and the command line
//! (documented in `/openapi.json` as `AdminOperation`, `IdempotencyRecord`, `AuditEvent`).

use serde::Serialize;

use super::page::{Cursor, Page};
use super::scope::Who;
use super::views::{AdminOperation, AuditEvent, KeyRecordView};
use crate::leased::Members;
use crate::timestamps::rfc3339_micros;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OperationBody<'a> {
    operation_id: String,
    #[serde(rename = "type")]
    operation_type: &'a str,
    tenant_id: String,
    order_id: String,
    #[serde(flatten)]
    input: &'a Members,
    state: &'static str,
    attempts: u32,
    next_attempt_at: String,
    lease: Option<LeaseBody<'a>>,
    generation: u64,
    downstream_key: &'a str,
    last_error: Option<&'static str>,
    accepted_at: String,
    updated_at: String,
    #[serde(flatten)]
    result: &'a Members,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LeaseBody<'a> {
    owner: &'a str,
    expires_at: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct KeyBody<'a> {
    tenant_id: String,
    actor_id: String,
    operation: &'a str,
    key: &'a str,
    state: &'static str,
    fingerprint_version: u16,
    fingerprint: String,
    created_at: String,
    expires_at: Option<String>,
    response_status: Option<u16>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AuditBody<'a> {
    id: String,
    occurred_at: String,
    who: WhoBody<'a>,
    action: &'a str,
    target: TargetBody<'a>,
    before: &'a str,
    after: &'a str,
    request_id: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WhoBody<'a> {
    tenant_id: Option<String>,
    actor_id: Option<String>,
    operator: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TargetBody<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    id: &'a str,
    tenant_id: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PageBody<T> {
    items: Vec<T>,
    next_cursor: Option<String>,
}

fn operation_body(operation: &AdminOperation) -> OperationBody<'_> {
    OperationBody {
        operation_id: operation.id.hyphenated().to_string(),
        operation_type: &operation.operation_type,
        tenant_id: operation.tenant.get().to_string(),
        order_id: operation.order.to_string(),
        input: &operation.input,
        state: operation.state.as_api(),
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
        last_error: operation.last_error.map(domain::AttemptError::as_str),
        accepted_at: rfc3339_micros(operation.accepted_at),
        updated_at: rfc3339_micros(operation.updated_at),
        result: &operation.result,
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

fn hex(bytes: &[u8]) -> String {
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
    serde_json::to_vec(&PageBody {
        items: page.items.iter().map(operation_body).collect(),
        next_cursor: page.next.as_ref().map(Cursor::encode),
    })
    .unwrap_or_default()
}

#[must_use]
pub fn audit_page_json<C: Cursor>(page: &Page<AuditEvent, C>) -> Vec<u8> {
    serde_json::to_vec(&PageBody {
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
    })
    .unwrap_or_default()
}
