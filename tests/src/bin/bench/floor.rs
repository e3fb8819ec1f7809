//! The single-insert floor: one autocommit `INSERT` of an order-sized row, in a table of
//! its own, what a service pays the database when it keeps its idempotency records
//! elsewhere.

use diesel::prelude::*;
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::{AsyncMysqlConnection, RunQueryDsl, SimpleAsyncConnection};

use crate::ceiling::{CEILING_TENANT, now};

diesel::table! {
    /// The floor's table: `orders`' shape, apart, so the run's orders still equal its events.
    floor_orders (id) {
        id -> BigInt,
        tenant_id -> BigInt,
        client_order_ref -> Varbinary,
        sku -> Varbinary,
        quantity -> SmallInt,
        created_at -> Datetime,
    }
}

/// Creates the floor's table, a copy of `orders`' definition, empty.
pub(crate) async fn prepare_floor(pool: &Pool<AsyncMysqlConnection>) {
    let mut conn = pool.get().await.expect("floor connection");
    conn.batch_execute("DROP TABLE IF EXISTS floor_orders; CREATE TABLE floor_orders LIKE orders")
        .await
        .expect("floor table");
}

/// The floor's unit: one order-sized row, in autocommit.
pub(crate) async fn insert_floor_order(conn: &mut AsyncMysqlConnection, key: &str) {
    use floor_orders::dsl as f;
    diesel::insert_into(f::floor_orders)
        .values((
            f::tenant_id.eq(CEILING_TENANT),
            f::client_order_ref.eq(key.as_bytes()),
            f::sku.eq(b"SKU-1".as_slice()),
            f::quantity.eq(1_i16),
            f::created_at.eq(now()),
        ))
        .execute(conn)
        .await
        .expect("floor insert");
}
