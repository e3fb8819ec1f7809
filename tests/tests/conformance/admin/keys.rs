//! Idempotency records as an admin sees them: metadata only, and eviction of a completed
//! record with its audit row, never of one whose request still runs.

use application::admin::{
    AdminScope, AdminStore, AuditEntry, KeyAddress, KeyRecordView, KeyState, OperatorName, Target,
    Who,
};
use tests::Backend;

use super::{assert_event, at, hex, insert_completed_key, key_address as address, now};

/// A record whose request runs, in SQL both dialects accept.
async fn insert_processing_key<B: Backend>(db: &B, key: &str) {
    db.run_sql(&format!(
        "INSERT INTO api_idempotency (tenant_id, actor_id, operation, idempotency_key, \
         fingerprint_version, request_hash, state, created_at) VALUES (1, 3, X'{}', X'{}', 2, \
         X'{}', 'PROCESSING', '2026-01-01 00:00:02')",
        hex("payments.capture.v1"),
        hex(key),
        "cd".repeat(32),
    ))
    .await;
}

fn eviction(address: &KeyAddress) -> AuditEntry {
    AuditEntry {
        who: Who::Operator(OperatorName::parse("alice@example.com").unwrap()),
        action: "idempotency_key.evict",
        target: Target {
            kind: "idempotency_key",
            id: address.target_id(),
            tenant: address.tenant,
        },
        before: "completed",
        after: "evicted",
        request_id: "cli-1".to_owned(),
        at: now(),
    }
}

pub(crate) async fn only_a_completed_key_is_evicted_and_its_metadata_reads_back<B: Backend>()
where
    B::Store: AdminStore,
{
    let db = B::create().await;
    insert_completed_key(&db, 1, "key-done").await;
    insert_processing_key(&db, "key-running").await;
    let store = db.store();
    let (done, running) = (address(1, "key-done"), address(1, "key-running"));

    assert_eq!(
        store.find_key(&done).await.unwrap(),
        Some(KeyRecordView {
            address: done.clone(),
            state: KeyState::Completed,
            fingerprint_version: 1,
            fingerprint: vec![0xab; 32],
            created_at: at("2026-01-01 00:00:00"),
            expires_at: Some(at("2026-01-02 00:00:00")),
            response_status: Some(202),
            operation: Some(uuid::Uuid::from_u128(7)),
        })
    );
    assert_eq!(
        store.find_key(&running).await.unwrap(),
        Some(KeyRecordView {
            address: running.clone(),
            state: KeyState::Processing,
            fingerprint_version: 2,
            fingerprint: vec![0xcd; 32],
            created_at: at("2026-01-01 00:00:02"),
            expires_at: None,
            response_status: None,
            operation: None,
        })
    );
    assert_eq!(store.find_key(&address(2, "key-done")).await.unwrap(), None);

    assert!(
        !store
            .evict_key(&running, &eviction(&running))
            .await
            .unwrap()
    );
    assert_eq!(
        db.count_rows("api_idempotency").await,
        2,
        "a running record stays"
    );
    assert_eq!(db.count_rows("audit_events").await, 0);

    assert!(store.evict_key(&done, &eviction(&done)).await.unwrap());
    assert_eq!(store.find_key(&done).await.unwrap(), None);
    assert_eq!(
        db.count_rows("api_idempotency WHERE state = 'PROCESSING'")
            .await,
        1
    );
    assert_eq!(db.count_rows("api_idempotency").await, 1);
    let events = store
        .list_audit(AdminScope::AllTenants, None, 10)
        .await
        .unwrap();
    assert_eq!(events.len(), 1);
    assert_event(&events[0], &eviction(&done));
    assert_eq!(events[0].target_id, "3/payments.capture.v1/key-done");

    assert!(
        !store.evict_key(&done, &eviction(&done)).await.unwrap(),
        "gone"
    );
    assert_eq!(db.count_rows("audit_events").await, 1);
    db.finish().await;
}
