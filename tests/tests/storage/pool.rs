//! Connections and transactions: nothing leaks from an abandoned transaction.

use application::ports::{NewRecord, RecordTx, UnitOfWork};
use domain::{Fingerprinted, Operation, Scope};
use tests::{TestDb, caller, key, new_order};

fn record(k: &str) -> NewRecord {
    let who = caller(1, 1);
    let operation = Operation::parse("orders.create.v1").unwrap();
    NewRecord {
        fingerprint: new_order("REF", 1).fingerprint(&operation),
        scope: Scope {
            tenant: who.tenant,
            actor: who.actor,
            operation,
        },
        key: key(k),
        created_at: chrono::Utc::now(),
    }
}

/// Leaves two idle connections in the pool. The pool hands connections out first in,
/// first out (deadpool's default queue mode), so a connection that went back to the pool
/// with its transaction open would wait behind the other, and the next checkout would get
/// the other one, not the leaked one (whose recycle check would hide the leak).
async fn two_idle_connections(db: &TestDb) {
    let first = db.store().begin().await.unwrap();
    let second = db.store().begin().await.unwrap();
    first.rollback().await.unwrap();
    second.rollback().await.unwrap();
}

#[tokio::test]
async fn a_transaction_dropped_midway_leaves_no_row_and_no_held_lock_behind() {
    let db = TestDb::with_lock_wait(1).await;
    for round in 0..5 {
        let k = format!("dropped-{round}");
        two_idle_connections(&db).await;
        let mut tx = db.store().begin().await.unwrap();
        tx.insert_processing(&record(&k)).await.unwrap();
        drop(tx);

        // This insert of the same key runs on the other idle connection. Had the dropped
        // transaction's connection gone back to the pool open, instead of being closed by
        // the adapter, its lock on the key would make this wait and time out.
        let mut again = db.store().begin().await.unwrap();
        again
            .insert_processing(&record(&k))
            .await
            .unwrap_or_else(|e| panic!("round {round}: {e:?} ({})", db.context()));
        again.rollback().await.unwrap();
    }
    assert_eq!(db.total_records().await, 0);
    db.drop_database().await;
}
