//! The relay's side of the outbox: `FOR UPDATE SKIP LOCKED` gives relays disjoint
//! batches, and a relay that dies releases its batch with its connection.

use application::ports::{OutboxClaim, OutboxRelayStore, PendingEvent, PendingSummary, StoreError};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use uuid::Uuid;

use super::classify::store_error;
use super::purge::delete_batch;
use super::store::MysqlStore;
use super::transaction::MysqlTx;
use crate::sql::outbox::{self, PendingRow};

/// READ COMMITTED takes no gap locks: a claim locks exactly the rows it read, so a create
/// inserting its event next to them never waits for a relay's publish.
const CLAIM_ISOLATION: &str = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";

/// The transaction holding the row locks, and the events read.
#[derive(Debug)]
pub struct MysqlClaim {
    tx: MysqlTx,
    events: Vec<PendingEvent>,
    deferred: usize,
}

impl OutboxRelayStore for MysqlStore {
    type Claim = MysqlClaim;

    async fn claim(&self, limit: usize) -> Result<MysqlClaim, StoreError> {
        let mut tx = self.begin_with(Some(CLAIM_ISOLATION), false).await?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let (rows, deferred) = tx
            .run("outbox claim", async |conn, _| {
                let candidates = outbox::pending_events(limit)
                    .for_update()
                    .skip_locked()
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
        Ok(MysqlClaim {
            tx,
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

    /// Walks the `(published_at, id)` index from the oldest publication.
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

    fn deferred(&self) -> usize {
        self.deferred
    }

    async fn settle(
        mut self,
        published: &[Uuid],
        failed: &[Uuid],
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.tx
            .run("outbox marking", async |conn, _| {
                outbox::settle(conn, published, failed, now.naive_utc()).await
            })
            .await?;
        // A lost commit answer leaves the marks unknown: at worst the events go again,
        // which the broker's dedup and the inbox absorb.
        self.tx.commit_transaction().await.map_err(StoreError::from)
    }
}
