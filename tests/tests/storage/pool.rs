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

#[tokio::test]
async fn a_transaction_dropped_midway_leaves_no_row_and_no_held_lock_behind() {
    let db = TestDb::with_lock_wait(1).await;
    for round in 0..5 {
        let k = format!("dropped-{round}");
        let mut tx = db.store().begin().await.unwrap();
        tx.insert_processing(&record(&k)).await.unwrap();
        drop(tx);

        // Were the connection back in the pool with its transaction open, this insert of
        // the same key would wait for its lock and time out.
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
