//! Deleting expired completed records in bounded batches.

use application::ports::{RecordPurger, StoreError};
use chrono::{DateTime, Utc};
use diesel::sql_types::{Datetime, Integer, Unsigned};
use diesel_async::RunQueryDsl;

use super::classify::store_error;
use super::store::MysqlStore;

impl RecordPurger for MysqlStore {
    /// `DELETE ... ORDER BY expires_at LIMIT n` walks the expiry index and touches only
    /// `COMPLETED` rows: a `PROCESSING` record has no expiry and is never purged.
    async fn purge_expired_batch(&self, now: DateTime<Utc>, limit: u32) -> Result<u64, StoreError> {
        delete_batch(
            self,
            "DELETE FROM api_idempotency \
             WHERE state = 'COMPLETED' AND expires_at <= ? \
             ORDER BY expires_at LIMIT ?",
            now,
            limit,
        )
        .await
    }
}

/// `sql` binds a time, then a row limit.
pub(super) async fn delete_batch(
    store: &MysqlStore,
    sql: &'static str,
    at: DateTime<Utc>,
    limit: u32,
) -> Result<u64, StoreError> {
    store
        .with_connection("purge batch", async |conn| {
            diesel::sql_query(sql)
                .bind::<Datetime, _>(at.naive_utc())
                .bind::<Unsigned<Integer>, _>(limit)
                .execute(conn)
                .await
                .map(|rows| rows as u64)
                .map_err(store_error)
        })
        .await
}
