//! Order ids for the rows the benchmark writes itself (its ceiling's creations, its
//! seeds), taken from `id_blocks` as the service takes its blocks
//! (`docs/storage.md#order-ids`).

use diesel_async::{AsyncMysqlConnection, RunQueryDsl, SimpleAsyncConnection};

#[derive(diesel::QueryableByName)]
struct LastInsertId {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    id: i64,
}

/// The first of `count` order ids reserved in `id_blocks` as the service reserves its
/// blocks, so that none is an id a running server's block still holds. On a session with
/// autocommit on.
pub(crate) async fn reserve_order_ids(conn: &mut AsyncMysqlConnection, count: u64) -> i64 {
    conn.batch_execute(&format!(
        "UPDATE id_blocks SET next_id = LAST_INSERT_ID(next_id + {count}) WHERE name = 'orders'"
    ))
    .await
    .expect("order ids reserved");
    let end: LastInsertId = diesel::sql_query("SELECT LAST_INSERT_ID() AS id")
        .get_result(conn)
        .await
        .expect("reserved order ids");
    end.id - i64::try_from(count).expect("a count")
}
