//! Ids of new orders (`docs/storage.md#order-ids`): each process reserves a block of them
//! in `id_blocks` and gives them to its creates from memory, so a batch knows every
//! member's answer before its first row, and a create spends no statement on its id.

use std::ops::Range;

use application::ports::StoreError;
use diesel::QueryableByName;
use diesel::sql_types::{BigInt, Nullable};
use diesel_async::{AsyncMysqlConnection, RunQueryDsl};

use super::classify::store_error;
use super::store::MysqlStore;

/// Ids a reservation takes at least: at a few thousand creates a second, a few
/// reservations a second.
const BLOCK: u64 = 1000;
/// Reservations by several processes at once may meet as deadlocks (on Galera, as
/// certification conflicts): each is tried again, a few times.
const ATTEMPTS: u32 = 5;

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = Nullable<BigInt>)]
    id: Option<i64>,
}

impl MysqlStore {
    /// `count` ids no other create has or will be given; a new block is reserved when what
    /// is left is too short (the rest of the old one is never used: ids may have gaps).
    pub(super) async fn order_ids(&self, count: usize) -> Result<Vec<u64>, StoreError> {
        let count = u64::try_from(count).map_err(|error| StoreError::Other(error.into()))?;
        let mut free = self.free_order_ids().0.lock().await;
        if free.end - free.start < count {
            *free = self.reserve_block(count.max(BLOCK)).await?;
        }
        let given = free.start..free.start + count;
        free.start = given.end;
        Ok(given.collect())
    }

    async fn reserve_block(&self, size: u64) -> Result<Range<u64>, StoreError> {
        let mut attempt = 1;
        loop {
            match self
                .with_connection("order id block", async |conn| reserve(conn, size).await)
                .await
            {
                Err(StoreError::Deadlock) if attempt < ATTEMPTS => attempt += 1,
                reserved => return reserved,
            }
        }
    }
}

/// One autocommit statement moves `next_id` past the block (and past any order written
/// without it, found by a plain read first), keeping its new value as
/// `LAST_INSERT_ID()`, which the connection then reads back.
async fn reserve(conn: &mut AsyncMysqlConnection, size: u64) -> Result<Range<u64>, StoreError> {
    let size = i64::try_from(size).map_err(|error| StoreError::Other(error.into()))?;
    let highest: Id = diesel::sql_query("SELECT MAX(id) AS id FROM orders")
        .get_result(conn)
        .await
        .map_err(store_error)?;
    let above = highest.id.unwrap_or(0).saturating_add(1);
    let changed = diesel::sql_query(
        "UPDATE id_blocks SET next_id = LAST_INSERT_ID(GREATEST(next_id, ?) + ?) \
         WHERE name = 'orders'",
    )
    .bind::<BigInt, _>(above)
    .bind::<BigInt, _>(size)
    .execute(conn)
    .await
    .map_err(store_error)?;
    if changed != 1 {
        return Err(StoreError::Other("id_blocks has no row for orders".into()));
    }
    let end: Id = diesel::sql_query("SELECT LAST_INSERT_ID() AS id")
        .get_result(conn)
        .await
        .map_err(store_error)?;
    let end = end
        .id
        .and_then(|end| u64::try_from(end).ok())
        .ok_or_else(|| StoreError::Other("no id block was reserved".into()))?;
    let size = size.unsigned_abs();
    Ok(end.saturating_sub(size)..end)
}
