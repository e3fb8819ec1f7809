//! The embedded store's own promise: the writers of one process take the file's one write
//! connection in the order they came, instead of SQLite's busy handler waking them in no
//! order (`docs/storage.md#the-embedded-store`).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use application::ports::{RecordTx, StoreError, UnitOfWork};
use tests::{Backend, SqliteDb};

const ROUNDS: usize = 20;
const WRITERS: usize = 8;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn writers_of_one_process_begin_in_the_order_they_came() {
    let db = SqliteDb::create().await;
    for round in 0..ROUNDS {
        let held = db.store().begin().await.unwrap();
        let begun = Arc::new(Mutex::new(Vec::new()));
        let mut writers = Vec::new();
        for n in 0..WRITERS {
            let (store, begun) = (db.store().clone(), Arc::clone(&begun));
            writers.push(tokio::spawn(async move {
                let tx = store.begin().await.unwrap();
                begun.lock().unwrap().push(n);
                tx.rollback().await.unwrap();
            }));
            // The next one comes only once this one waits.
            db.wait_for_queued_writers(n + 1).await;
        }
        held.rollback().await.unwrap();
        for writer in writers {
            writer.await.unwrap();
        }
        let order = begun.lock().unwrap().clone();
        assert_eq!(order, (0..WRITERS).collect::<Vec<_>>(), "round {round}");
    }
    db.finish().await;
}

/// Another process's writer (here a connection of its own) holds the file: `BEGIN` waits
/// for it, asleep, and goes on once it lets go.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_of_another_process_is_waited_for() {
    let db = SqliteDb::create_with_lock_wait(60).await;
    db.run_sql("BEGIN IMMEDIATE").await;
    let store = db.store().clone();
    let waiting = tokio::spawn(async move { store.begin().await.map(|_| ()) });
    db.wait_for_queued_writers(1).await;
    db.run_sql("ROLLBACK").await;
    let begun = tokio::time::timeout(Duration::from_secs(30), waiting).await;
    assert!(matches!(begun, Ok(Ok(Ok(())))), "{begun:?}");
    db.finish().await;
}

/// ... and no longer than the lock wait: then "in progress", as on MySQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_of_another_process_holding_on_runs_out_the_lock_wait() {
    let db = SqliteDb::create_with_lock_wait(1).await;
    db.run_sql("BEGIN IMMEDIATE").await;
    let begun = tokio::time::timeout(Duration::from_secs(30), db.store().begin()).await;
    assert!(
        matches!(begun, Ok(Err(StoreError::LockWaitTimeout))),
        "{:?}",
        begun.map(|b| b.map(|_| ()))
    );
    db.run_sql("ROLLBACK").await;
    db.finish().await;
}
