//! The admin API's documents as the use cases render them, read back as JSON: an operation,
//! its lease, a page of operations, a page of the audit trail, a key.

use application::admin::{
    AuditEvent, KeyRecordView, KeyState, OperationCursor, Page, Who, audit_page_json, key_json,
    operation_json, operations_page_json,
};
use chrono::TimeDelta;
use domain::OperationState;
use serde_json::{Value, json};

use crate::support::{address, leased, op_id, operation, t0, tenant};

fn read(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap()
}

#[test]
fn a_lease_is_held_until_the_instant_it_runs_out() {
    let expiry = t0();
    let held = leased(OperationState::Pending, expiry);
    assert!(held.leased_at(expiry - TimeDelta::seconds(1)));
    assert!(!held.leased_at(expiry), "run out at its expiry");
    assert!(!held.leased_at(expiry + TimeDelta::seconds(1)));
    assert!(
        !operation(OperationState::Pending).leased_at(t0()),
        "never leased"
    );
}

#[test]
fn an_operation_and_a_page_of_them_read_back_with_their_members() {
    let one = read(&operation_json(&operation(OperationState::NeedsReview)));
    assert_eq!(one["operationId"], json!(op_id().hyphenated().to_string()));
    assert_eq!(one["state"], json!("needs_review"));
    assert_eq!(one["type"], json!("payments.capture.v1"));

    let page = Page::<_, OperationCursor> {
        items: vec![operation(OperationState::Pending)],
        next: None,
    };
    let page = read(&operations_page_json(&page));
    assert_eq!(page["items"][0]["state"], json!("pending"));
    assert_eq!(page["nextCursor"], Value::Null);
}

#[test]
fn an_audit_page_and_a_key_read_back_with_their_members() {
    let event = AuditEvent {
        id: 1,
        at: t0(),
        who: Who::Caller {
            tenant: tenant(2),
            actor: domain::ActorId::parse(3).unwrap(),
        },
        action: "operation.retry".to_owned(),
        target_kind: "operation".to_owned(),
        target_id: op_id().hyphenated().to_string(),
        target_tenant: tenant(2),
        before: "needs_review".to_owned(),
        after: "pending".to_owned(),
        request_id: "req-1".to_owned(),
    };
    let page = Page::<_, application::admin::AuditCursor> {
        items: vec![event],
        next: None,
    };
    let page = read(&audit_page_json(&page));
    assert_eq!(page["items"][0]["action"], json!("operation.retry"));
    assert_eq!(page["items"][0]["target"]["tenantId"], json!("2"));

    let key = read(&key_json(&KeyRecordView {
        address: address(2),
        state: KeyState::Completed,
        fingerprint_version: 1,
        fingerprint: vec![0x0a, 0xff],
        created_at: t0(),
        expires_at: None,
        response_status: Some(202),
        operation: Some(op_id()),
    }));
    assert_eq!(key["fingerprint"], json!("0aff"));
    assert_eq!(key["key"], json!("key-1"));
    assert_eq!(key["operationId"], json!(op_id().hyphenated().to_string()));
}

#[test]
fn the_served_kinds_are_named_with_their_provider_id_member() {
    let kinds = &*crate::support::KINDS;
    assert_eq!(kinds.names(), ["payments.capture.v1"]);
    assert_eq!(
        kinds.provider_id_member("payments.capture.v1"),
        Some("providerChargeId")
    );
    assert_eq!(kinds.provider_id_member("payments.unknown.v1"), None);
}
