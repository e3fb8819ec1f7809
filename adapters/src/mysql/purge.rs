//! Deleting expired completed records in bounded batches.

use application::ports::{RecordPurger, StoreError};
use chrono::{DateTime, Utc};
use diesel::sql_types::{Datetime, Integer, Unsigned};
use diesel_async::RunQueryDsl;

use super::classify::store_error;
use super::deadline::bounded;
use super::store::MysqlStore;

impl RecordPurger for MysqlStore {
    /// `DELETE ... ORDER BY expires_at LIMIT n` walks the expiry index and touches only
    /// `COMPLETED` rows: a `PROCESSING` record has no expiry and is never purged.
    async fn purge_expired_batch(&self, now: DateTime<Utc>, limit: u32) -> Result<u64, StoreError> {
        let deadline = self.deadline();
        let mut conn = self.connection(deadline).await?;
        let delete = diesel::sql_query(
            "DELETE FROM api_idempotency \
             WHERE state = 'COMPLETED' AND expires_at <= ? \
             ORDER BY expires_at LIMIT ?",
        )
        .bind::<Datetime, _>(now.naive_utc())
        .bind::<Unsigned<Integer>, _>(limit)
        .execute(&mut conn);
        let deleted = bounded(deadline, "purge batch", async {
            delete.await.map(|rows| rows as u64).map_err(store_error)
        })
        .await;
        super::store::release(conn, &deleted);
        deleted
    }
}
