//! The worker's port, for both stores. An operation's end and what its kind records of it
//! share one transaction, committed only when the fence let the end through.

use application::leased::{RecordEnd, StoredEnd};
use application::ports::{
    Claim, DueOperation, OperationEnd, OperationStore, RecordTx, StoreError, UnitOfWork,
};
use chrono::{DateTime, Utc};
use domain::{AttemptError, Generation, Lease};
use uuid::Uuid;

use super::claims::{self, Leasing};
use super::{due, fenced};
use crate::sql::both_stores::{for_both_stores, for_both_transactions};
use crate::sql::commit_if::commit_if;

/// An operation's end under its fence, and the result member a kind's record gave back,
/// on either store's transaction.
pub(crate) trait OperationResults: RecordTx {
    async fn end_fenced(&mut self, end: &OperationEnd<'_>) -> Result<bool, StoreError>;
    async fn set_result(&mut self, id: Uuid, result: Vec<u8>) -> Result<(), StoreError>;
}

for_both_transactions! {
    impl OperationResults {
        async fn end_fenced(&mut self, end: &OperationEnd<'_>) -> Result<bool, StoreError> {
            self.run("operation end", async |conn, _| fenced::end(conn, end).await)
                .await
        }

        async fn set_result(&mut self, id: Uuid, result: Vec<u8>) -> Result<(), StoreError> {
            self.run("operation result", async |conn, _| {
                fenced::set_result(conn, id, result).await
            })
            .await
        }
    }
}

/// Ends the operation in `tx` under its fence; with a definite end that went through, the
/// kind's record of it too. `false`, with nothing written, when the fence refused it.
async fn end_in<Tx: OperationResults>(
    tx: &mut Tx,
    end: &OperationEnd<'_>,
    record: &dyn RecordEnd<Tx>,
) -> Result<bool, StoreError> {
    let ended = tx.end_fenced(end).await?;
    if let (true, Some(outcome)) = (ended, end.ending.recorded_as()) {
        let operation = end.operation;
        let stored = StoredEnd {
            id: operation.id,
            tenant: operation.tenant,
            order: operation.order,
            input: &operation.input,
            outcome,
            at: end.now,
        };
        record_end(tx, record, stored).await?;
    }
    Ok(ended)
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
            let won = self.claim_all(&[Claim { id, seen, lease }], now).await?;
            Ok(won.first().copied().unwrap_or(false))
        }

        async fn claim_all(
            &self,
            claims: &[Claim<'_>],
            now: DateTime<Utc>,
        ) -> Result<Vec<bool>, StoreError> {
            self.with_connection("operation claim", async |conn| {
                claims::lease(conn, Leasing::Claims(claims, now.naive_utc())).await
            })
            .await
        }

        async fn extend(&self, id: Uuid, lease: &Lease) -> Result<bool, StoreError> {
            let kept = self.extend_all(&[(id, lease)]).await?;
            Ok(kept.first().copied().unwrap_or(false))
        }

        async fn extend_all(&self, leases: &[(Uuid, &Lease)]) -> Result<Vec<bool>, StoreError> {
            self.with_connection("lease extension", async |conn| {
                claims::lease(conn, Leasing::Extensions(leases)).await
            })
            .await
        }

        async fn complete(
            &self,
            end: &OperationEnd<'_>,
            record: &dyn RecordEnd<Self::Tx>,
        ) -> Result<bool, StoreError> {
            let ended = self.complete_all(std::slice::from_ref(end), record).await?;
            Ok(ended.first().copied().unwrap_or(false))
        }

        /// In the orders' order, as every batch locks them, so that two transactions
        /// never wait on each other's orders.
        async fn complete_all(
            &self,
            ends: &[OperationEnd<'_>],
            record: &dyn RecordEnd<Self::Tx>,
        ) -> Result<Vec<bool>, StoreError> {
            let mut in_order: Vec<(usize, &OperationEnd<'_>)> = ends.iter().enumerate().collect();
            in_order.sort_by_key(|(_, end)| (end.operation.order, end.operation.id));
            let mut ended = vec![false; ends.len()];
            let mut tx = self.begin().await?;
            for (slot, end) in in_order {
                let written = end_in(&mut tx, end, record).await?;
                if let Some(place) = ended.get_mut(slot) {
                    *place = written;
                }
            }
            commit_if(tx, ended.contains(&true)).await?;
            Ok(ended)
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
