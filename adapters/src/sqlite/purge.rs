//! Deleting expired completed records in bounded batches.

use application::ports::{RecordPurger, StoreError};
use chrono::{DateTime, Utc};
use diesel::sql_types::{Integer, Timestamp};
use diesel_async::RunQueryDsl;

use super::classify::store_error;
use super::store::SqliteStore;

impl RecordPurger for SqliteStore {
    /// No `DELETE ... LIMIT` in SQLite's default build: a subquery over the expiry index
    /// picks the batch.
    async fn purge_expired_batch(&self, now: DateTime<Utc>, limit: u32) -> Result<u64, StoreError> {
        delete_batch(
            self,
            "DELETE FROM api_idempotency WHERE id IN (\
               SELECT id FROM api_idempotency \
               WHERE state = 'COMPLETED' AND expires_at <= ? \
               ORDER BY expires_at LIMIT ?)",
            now,
            limit,
        )
        .await
    }
}

/// `sql` binds a time, then a row limit.
pub(super) async fn delete_batch(
    store: &SqliteStore,
    sql: &'static str,
    at: DateTime<Utc>,
    limit: u32,
) -> Result<u64, StoreError> {
    let limit = i32::try_from(limit).unwrap_or(i32::MAX);
    store
        .with_connection("purge batch", async |conn| {
            diesel::sql_query(sql)
                .bind::<Timestamp, _>(at.naive_utc())
                .bind::<Integer, _>(limit)
                .execute(conn)
                .await
                .map(|rows| rows as u64)
                .map_err(store_error)
        })
        .await
}
