//! The relay's side of the outbox: a claim is a plain read (holding the write lock through
//! a publish would stall every create), the marks one short transaction afterwards. Two
//! relays on one file could send a batch twice; the broker's dedup and the inbox absorb it.

use application::ports::{
    OutboxClaim, OutboxRelayStore, PendingEvent, PendingSummary, StoreError, UnitOfWork,
};
use chrono::{DateTime, Utc};
use diesel_async::RunQueryDsl;
use uuid::Uuid;

use super::classify::store_error;
use super::purge::delete_batch;
use super::store::SqliteStore;
use crate::sql::outbox::{self, PendingRow};

/// A batch read for publishing, and the store to mark it in.
#[derive(Debug)]
pub struct SqliteClaim {
    store: SqliteStore,
    events: Vec<PendingEvent>,
    deferred: usize,
}

impl OutboxRelayStore for SqliteStore {
    type Claim = SqliteClaim;

    async fn claim(&self, limit: usize) -> Result<SqliteClaim, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let (rows, deferred) = self
            .with_connection("outbox claim", async |conn| {
                let candidates = outbox::pending_events(limit)
                    .load::<PendingRow>(conn)
                    .await
                    .map_err(store_error)?;
                outbox::in_order(conn, candidates).await
            })
            .await?;
        let events = rows
            .into_iter()
            .map(PendingRow::into_event)
            .collect::<Result<_, _>>()?;
        Ok(SqliteClaim {
            store: self.clone(),
            events,
            deferred,
        })
    }

    async fn pending(&self) -> Result<PendingSummary, StoreError> {
        self.with_connection("outbox summary", async |conn| {
            outbox::pending_summary(conn).await
        })
        .await
    }

    /// No `DELETE ... LIMIT` in SQLite's default build: a subquery picks the batch.
    async fn purge_published_batch(
        &self,
        cutoff: DateTime<Utc>,
        limit: u32,
    ) -> Result<u64, StoreError> {
        delete_batch(
            self,
            "DELETE FROM outbox WHERE id IN (\
               SELECT id FROM outbox \
               WHERE published_at IS NOT NULL AND published_at < ? \
               ORDER BY published_at LIMIT ?)",
            cutoff,
            limit,
        )
        .await
    }
}

impl OutboxClaim for SqliteClaim {
    fn events(&self) -> &[PendingEvent] {
        &self.events
    }

    fn deferred(&self) -> usize {
        self.deferred
    }

    async fn settle(
        self,
        published: &[Uuid],
        failed: &[Uuid],
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        if published.is_empty() && failed.is_empty() {
            return Ok(());
        }
        let mut tx = self.store.begin().await?;
        tx.run("outbox marking", async |conn, _| {
            outbox::settle(conn, published, failed, now.naive_utc()).await
        })
        .await?;
        tx.commit_transaction().await.map_err(StoreError::from)
    }
}
