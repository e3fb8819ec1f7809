//! Rows written by SQL ahead of a scenario that needs existing orders.

use diesel::QueryableByName;
use diesel::sql_types::BigInt;
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::{AsyncMysqlConnection, RunQueryDsl, SimpleAsyncConnection};

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = BigInt)]
    id: i64,
}

/// Writes `count` active orders of tenant 1 referenced `<prefix><n>`, each with its
/// created event as the service would have written it (so the outbox invariant holds);
/// returns their ids.
pub(crate) async fn active_orders(
    pool: &Pool<AsyncMysqlConnection>,
    prefix: &str,
    count: u64,
) -> Vec<u64> {
    orders_with_events(pool, prefix, count, "NULL").await
}

/// [`active_orders`] with their created events already published: for a scenario whose
/// relay is to carry the scenario's own events alone (written so, not marked afterwards,
/// which would leave delete-marked index entries for the relay's claims to walk).
pub(crate) async fn active_orders_published(
    pool: &Pool<AsyncMysqlConnection>,
    prefix: &str,
    count: u64,
) -> Vec<u64> {
    orders_with_events(pool, prefix, count, "NOW(6)").await
}

async fn orders_with_events(
    pool: &Pool<AsyncMysqlConnection>,
    prefix: &str,
    count: u64,
    published_at: &str,
) -> Vec<u64> {
    let ids = orders(pool, prefix, count).await;
    let mut conn = pool.get().await.expect("seed connection");
    conn.batch_execute(&format!(
        "INSERT INTO outbox (event_id, event_type, tenant_id, subject, payload, created_at, \
           published_at) \
         SELECT UNHEX(MD5(CONCAT('seed-', id))), 'orders.created.v1', 1, \
           'orders.created.v1.1', '{{}}', NOW(6), {published_at} \
         FROM orders WHERE client_order_ref LIKE '{prefix}%'"
    ))
    .await
    .expect("seed created events");
    ids
}

/// `count` orders alone, without their events.
async fn orders(pool: &Pool<AsyncMysqlConnection>, prefix: &str, count: u64) -> Vec<u64> {
    let mut conn = pool.get().await.expect("seed connection");
    let first = crate::order_ids::reserve_order_ids(&mut conn, count).await;
    // Five digits crossed: up to 100 000 rows in one statement, in MySQL 8 and MariaDB.
    conn.batch_execute(&format!(
        "INSERT INTO orders (id, tenant_id, client_order_ref, sku, quantity, created_at) \
         WITH d (x) AS (SELECT 0 UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 \
           UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 \
           UNION ALL SELECT 8 UNION ALL SELECT 9) \
         SELECT {first} + n, 1, CONCAT('{prefix}', n), 'SKU-1', 1, NOW(6) FROM \
           (SELECT a.x + 10 * b.x + 100 * c.x + 1000 * e.x + 10000 * f.x AS n \
            FROM d a, d b, d c, d e, d f) numbers \
         WHERE n < {count} ORDER BY n"
    ))
    .await
    .expect("seed orders");
    let ids: Vec<Id> = diesel::sql_query(format!(
        "SELECT id FROM orders WHERE client_order_ref LIKE '{prefix}%' ORDER BY id"
    ))
    .load(&mut conn)
    .await
    .expect("seeded orders");
    ids.into_iter()
        .map(|row| u64::try_from(row.id).expect("an id"))
        .collect()
}

/// [`active_orders`], each with a succeeded capture of the largest amount, so refunds of
/// it are accepted for as long as a scenario runs.
pub(crate) async fn captured_orders(
    pool: &Pool<AsyncMysqlConnection>,
    prefix: &str,
    count: u64,
) -> Vec<u64> {
    let ids = active_orders(pool, prefix, count).await;
    let mut conn = pool.get().await.expect("seed connection");
    conn.batch_execute(&format!(
        "INSERT INTO payments (operation_id, tenant_id, order_id, provider_charge_id, amount, \
           currency, created_at) \
         SELECT UNHEX(MD5(CONCAT('pay-', id))), 1, id, CONCAT('ch_', id), 10000000, 'JPY', \
           NOW(6) FROM orders WHERE client_order_ref LIKE '{prefix}%'"
    ))
    .await
    .expect("seed payments");
    ids
}
