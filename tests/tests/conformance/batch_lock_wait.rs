//! One member waiting on a lock cannot hold its batch for the whole lock wait, on MySQL
//! (`docs/storage.md#batched-operations`): a batch's connections wait at most
//! `BATCH_LOCK_WAIT_SECS`, then the batch runs its members alone, where the others
//! execute and the waiting one gets its own full wait and its `409`.

use adapters::mysql::BATCH_LOCK_WAIT_SECS;
use application::ports::{HookVerdict, NewRecord, RecordTx, UnitOfWork};
use application::{CreateOrder, IdempotentOperation, Outcome, RerunCause};
use domain::{ActorId, Fingerprinted, Scope, TenantId};
use tests::{TestDb, key, new_order};

use crate::batch_rig::held_then_batched_on;

/// The lock wait of the test's requests alone: longer than a batch's.
const LOCK_WAIT_SECS: u32 = 3;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_member_waiting_on_a_held_key_holds_its_batch_only_for_the_batchs_lock_wait() {
    let db = TestDb::with_lock_wait(LOCK_WAIT_SECS).await;
    assert_eq!(
        db.store().batch_lock_wait_secs().await.unwrap(),
        i64::from(BATCH_LOCK_WAIT_SECS),
        "a batch's session waits the batch's lock wait, not the requests'"
    );
    const { assert!(BATCH_LOCK_WAIT_SECS < LOCK_WAIT_SECS) };
    // Another request's transaction holds key `k`, inserted and not committed.
    let mut holder = db.store().begin().await.unwrap();
    let operation = CreateOrder::OPERATION;
    holder
        .insert_processing(&NewRecord {
            scope: Scope {
                tenant: TenantId::parse(1).unwrap(),
                actor: ActorId::parse(1).unwrap(),
                operation: operation.clone(),
            },
            key: key("k"),
            fingerprint: new_order("K", 1).fingerprint(&operation),
            created_at: chrono::Utc::now(),
        })
        .await
        .unwrap();

    let started = std::time::Instant::now();
    let (outcomes, seen) = held_then_batched_on(
        db.store(),
        ("h", "H"),
        &[("k", "K"), ("a", "A"), ("b", "B")],
        HookVerdict::Continue,
        || {},
    )
    .await;
    eprintln!(
        "the batch and its members' lone runs took {:?}",
        started.elapsed()
    );
    holder.rollback().await.unwrap();

    assert_eq!(
        *seen.reruns.lock().unwrap(),
        [(RerunCause::LockWaitTimeout, 3)],
        "the batch gave up on its lock wait and ran its members alone"
    );
    for n in [0, 2, 3] {
        assert!(
            matches!(outcomes[n], Outcome::Executed { .. }),
            "{n}: {:?}",
            outcomes[n]
        );
    }
    assert_eq!(
        outcomes[1],
        Outcome::InProgress,
        "the held key, after its own wait"
    );
    for reference in ["A", "B"] {
        assert_eq!(db.orders_with_ref_prefix(1, reference).await, 1);
    }
    assert_eq!(db.orders_with_ref_prefix(1, "K").await, 0);
    db.drop_database().await;
}
