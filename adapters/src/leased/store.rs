//! The worker's port, for both stores. An operation's end and what its kind records of it
//! share one transaction, committed only when the fence let the end through.

use application::leased::{EndedAs, RecordEnd, StoredEnd};
use application::ports::{
    DueOperation, Ending, OperationEnd, OperationStore, RecordTx, StoreError, UnitOfWork,
};
use chrono::{DateTime, Utc};
use domain::{AttemptError, Generation, Lease};
use uuid::Uuid;

use super::{due, fenced};
use crate::sql::both_stores::{for_both_stores, for_both_transactions};
use crate::sql::commit_if::commit_if;

/// Writing the result member a kind's record gave back, on either store's transaction.
pub(crate) trait OperationResults: RecordTx {
    async fn set_result(&mut self, id: Uuid, result: Vec<u8>) -> Result<(), StoreError>;
}

for_both_transactions! {
    impl OperationResults {
        async fn set_result(&mut self, id: Uuid, result: Vec<u8>) -> Result<(), StoreError> {
            self.run("operation result", async |conn, _| {
                fenced::set_result(conn, id, result).await
            })
            .await
        }
    }
}

/// The kind's record of a definite end, and the result it shows: inside the transaction
/// that ended the operation, after its fence let the end through.
pub(crate) async fn record_end<Tx: OperationResults>(
    tx: &mut Tx,
    step: &dyn RecordEnd<Tx>,
    end: StoredEnd<'_>,
) -> Result<(), StoreError> {
    if let Some(result) = step.record(tx, end).await? {
        tx.set_result(end.id, result).await?;
    }
    Ok(())
}

for_both_stores! {
    impl OperationStore {
        async fn due(
            &self,
            kinds: &[&'static str],
            limit: usize,
            now: DateTime<Utc>,
        ) -> Result<Vec<DueOperation>, StoreError> {
            self.with_connection("due operations", async |conn| {
                due::due(conn, kinds, limit, now.naive_utc()).await
            })
            .await
        }

        async fn claim(
            &self,
            id: Uuid,
            seen: Generation,
            lease: &Lease,
            now: DateTime<Utc>,
        ) -> Result<bool, StoreError> {
            self.with_connection("operation claim", async |conn| {
                fenced::claim(conn, id, seen, lease, now.naive_utc()).await
            })
            .await
        }

        async fn extend(&self, id: Uuid, lease: &Lease) -> Result<bool, StoreError> {
            self.with_connection("lease extension", async |conn| {
                fenced::extend(conn, id, lease).await
            })
            .await
        }

        async fn complete(
            &self,
            end: &OperationEnd<'_>,
            record: &dyn RecordEnd<Self::Tx>,
        ) -> Result<bool, StoreError> {
            let mut tx = self.begin().await?;
            let ended = tx
                .run("operation end", async |conn, _| fenced::end(conn, end).await)
                .await?;
            let outcome = match end.ending {
                Ending::Succeeded { provider_id } => Some(EndedAs::Succeeded { provider_id }),
                Ending::Declined => Some(EndedAs::Declined),
                Ending::NeedsReview(_) => None,
            };
            if let (true, Some(outcome)) = (ended, outcome) {
                let operation = end.operation;
                let stored = StoredEnd {
                    id: operation.id,
                    tenant: operation.tenant,
                    order: operation.order,
                    input: &operation.input,
                    outcome,
                    at: end.now,
                };
                record_end(&mut tx, record, stored).await?;
            }
            commit_if(tx, ended).await
        }

        async fn retry_later(
            &self,
            id: Uuid,
            lease: &Lease,
            attempts: u32,
            error: AttemptError,
            next_attempt_at: DateTime<Utc>,
            now: DateTime<Utc>,
        ) -> Result<bool, StoreError> {
            self.with_connection("operation retry", async |conn| {
                fenced::retry_later(
                    conn,
                    id,
                    lease,
                    attempts,
                    error,
                    next_attempt_at.naive_utc(),
                    now.naive_utc(),
                )
                .await
            })
            .await
        }
    }
}
