//! The relay's side of the outbox on MySQL: claims with `FOR UPDATE SKIP LOCKED`, so
//! relays in several processes take disjoint batches, and a relay that dies releases its
//! batch with its connection (the server rolls the claim back).

use application::ports::{
    OutboxClaim, OutboxRelayStore, PendingEvent, PendingSummary, RecordTx, StoreError,
};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use uuid::Uuid;

use super::classify::store_error;
use super::deadline::bounded;
use super::purge::delete_batch;
use super::store::{MysqlStore, release};
use super::transaction::MysqlTx;
use crate::sql::outbox::{self, PendingRow};

/// READ COMMITTED takes no gap locks: a claim locks exactly the rows it read, so a create
/// inserting its event next to them never waits for a relay's publish.
const CLAIM_ISOLATION: &str = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";

/// A claimed batch: the transaction holding the row locks, and the events read.
#[derive(Debug)]
pub struct MysqlClaim {
    tx: MysqlTx,
    events: Vec<PendingEvent>,
}

impl OutboxRelayStore for MysqlStore {
    type Claim = MysqlClaim;

    async fn claim(&self, limit: usize) -> Result<MysqlClaim, StoreError> {
        let mut tx = self.begin_with(Some(CLAIM_ISOLATION)).await?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let deadline = tx.deadline();
        let read = bounded(deadline, "outbox claim", async {
            outbox::pending_events(limit)
                .for_update()
                .skip_locked()
                .load::<PendingRow>(tx.conn()?)
                .await
                .map_err(store_error)
        })
        .await;
        let rows = tx.settle(read)?;
        let events = rows
            .into_iter()
            .map(PendingRow::into_event)
            .collect::<Result<_, _>>()?;
        Ok(MysqlClaim { tx, events })
    }

    async fn pending(&self) -> Result<PendingSummary, StoreError> {
        let deadline = self.deadline();
        let mut conn = self.connection(deadline).await?;
        let summary = bounded(
            deadline,
            "outbox summary",
            outbox::pending_summary(&mut *conn),
        )
        .await;
        release(conn, &summary);
        summary
    }

    /// Walks the `(published_at, id)` index from the oldest publication; pending rows
    /// (`published_at` NULL) never match.
    async fn purge_published_batch(
        &self,
        cutoff: DateTime<Utc>,
        limit: u32,
    ) -> Result<u64, StoreError> {
        delete_batch(
            self,
            "DELETE FROM outbox WHERE published_at IS NOT NULL AND published_at < ? \
             ORDER BY published_at LIMIT ?",
            cutoff,
            limit,
        )
        .await
    }
}

impl OutboxClaim for MysqlClaim {
    fn events(&self) -> &[PendingEvent] {
        &self.events
    }

    async fn settle(
        mut self,
        published: &[Uuid],
        failed: &[Uuid],
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let deadline = self.tx.deadline();
        let marked = bounded(
            deadline,
            "outbox marking",
            outbox::settle(self.tx.conn()?, published, failed, now.naive_utc()),
        )
        .await;
        self.tx.settle(marked)?;
        // A commit whose answer is lost leaves the marks unknown: the events are sent
        // again at worst, which the broker's dedup and the inbox absorb.
        self.tx
            .commit()
            .await
            .map_err(|_| StoreError::ConnectionLost)
    }
}
