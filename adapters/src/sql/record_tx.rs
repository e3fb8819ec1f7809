//! The record port of both stores' transactions: the record's statements
//! (`records`, `records_batch`) and the savepoint of a step that may store a refusal.

use application::ports::{CommitError, InsertRecordError, NewRecord, RecordTx, StoreError};
use domain::{Completion, RecordId};

use super::both_stores::for_both_transactions;
use super::classify::Classify;
use super::connection::SqlConnection;
use super::records::{complete, insert_processing};
use super::records_batch::insert_completed_batch;

/// The mark before a step that may store a refusal, and the undo back to it: the same
/// SQL on both stores.
const SAVEPOINT: &str = "SAVEPOINT step";
const ROLLBACK_TO_SAVEPOINT: &str = "ROLLBACK TO SAVEPOINT step";

async fn execute_text<C: SqlConnection>(conn: &mut C, sql: &str) -> Result<(), StoreError> {
    conn.batch_execute(sql)
        .await
        .map_err(C::Backend::store_error)
}

for_both_transactions! {
    impl RecordTx {
        async fn insert_processing(
            &mut self,
            record: &NewRecord,
        ) -> Result<RecordId, InsertRecordError> {
            self.run("record insert", async |conn, ids| {
                insert_processing(conn, ids, record).await
            })
            .await
        }

        async fn insert_completed_batch(
            &mut self,
            records: &[(NewRecord, Completion)],
        ) -> Result<Vec<RecordId>, InsertRecordError> {
            self.run("record batch insert", async |conn, ids| {
                insert_completed_batch(conn, ids, records).await
            })
            .await
        }

        async fn savepoint(&mut self) -> Result<(), StoreError> {
            self.run("savepoint", async |conn, _| execute_text(conn, SAVEPOINT).await)
                .await
        }

        async fn rollback_to_savepoint(&mut self) -> Result<(), StoreError> {
            self.run("rollback to savepoint", async |conn, _| {
                execute_text(conn, ROLLBACK_TO_SAVEPOINT).await
            })
            .await
        }

        async fn complete(
            &mut self,
            id: RecordId,
            completion: &Completion,
        ) -> Result<u64, StoreError> {
            self.run("record completion", async |conn, _| {
                complete(conn, id, completion).await
            })
            .await
        }

        async fn commit(self) -> Result<(), CommitError> {
            self.commit_transaction().await
        }

        async fn rollback(self) -> Result<(), StoreError> {
            self.rollback_transaction().await
        }
    }
}
