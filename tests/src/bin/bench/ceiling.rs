//! The database's own ceiling: the same SQL work as the service, without HTTP or
//! idempotency logic, on the same database at the same concurrency.
//!
//! - a creation: one transaction of three statements (insert the record, insert the
//!   order, complete the record by its unique key);
//! - a replay: one point read of a completed record by its unique key.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use diesel::sql_types::{BigInt, Binary, SmallInt, Text, Timestamp};
use diesel_async::pooled_connection::AsyncDieselConnectionManager;
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::{AsyncMysqlConnection, RunQueryDsl, SimpleAsyncConnection};

/// The tenant the ceiling writes under, apart from the service's rows.
const CEILING_TENANT: i64 = 999_999;

/// A pool as large as the concurrency.
pub(crate) fn pool(url: &str, size: usize) -> Pool<AsyncMysqlConnection> {
    let manager = AsyncDieselConnectionManager::<AsyncMysqlConnection>::new(url);
    Pool::builder(manager)
        .max_size(size)
        .build()
        .expect("ceiling pool")
}

fn now() -> chrono::NaiveDateTime {
    chrono::Utc::now().naive_utc()
}

/// The three-statement creation transaction for `key`, between `BEGIN` and `COMMIT`
/// exactly as the service's unit of work sends them.
pub(crate) async fn create(conn: &mut AsyncMysqlConnection, key: &str) {
    conn.batch_execute("BEGIN").await.expect("BEGIN");
    diesel::sql_query(
        "INSERT INTO api_idempotency (tenant_id, actor_id, operation, idempotency_key, \
         fingerprint_version, request_hash, state, created_at) \
         VALUES (?, 1, 'orders.create.v1', ?, 1, ?, 'PROCESSING', ?)",
    )
    .bind::<BigInt, _>(CEILING_TENANT)
    .bind::<Binary, _>(key.as_bytes())
    .bind::<Binary, _>([7u8; 32].as_slice())
    .bind::<Timestamp, _>(now())
    .execute(conn)
    .await
    .expect("ceiling record insert");
    diesel::sql_query(
        "INSERT INTO orders (tenant_id, client_order_ref, sku, quantity, created_at) \
         VALUES (?, ?, 'SKU-1', 1, ?)",
    )
    .bind::<BigInt, _>(CEILING_TENANT)
    .bind::<Binary, _>(key.as_bytes())
    .bind::<Timestamp, _>(now())
    .execute(conn)
    .await
    .expect("ceiling order insert");
    let body = format!(
        r#"{{"orderId":"1","clientOrderRef":"{key}","sku":"SKU-1","quantity":1,"createdAt":"2026-01-01T00:00:00.000000Z"}}"#
    );
    diesel::sql_query(
        "UPDATE api_idempotency SET state = 'COMPLETED', response_status = ?, \
         response_content_type = 'application/json', response_location = ?, \
         response_body = ?, completed_at = ?, expires_at = ? \
         WHERE tenant_id = ? AND actor_id = 1 AND operation = 'orders.create.v1' \
         AND idempotency_key = ? AND state = 'PROCESSING'",
    )
    .bind::<SmallInt, _>(201_i16)
    .bind::<Text, _>("/api/orders/1")
    .bind::<Binary, _>(body.as_bytes())
    .bind::<Timestamp, _>(now())
    .bind::<Timestamp, _>(now())
    .bind::<BigInt, _>(CEILING_TENANT)
    .bind::<Binary, _>(key.as_bytes())
    .execute(conn)
    .await
    .expect("ceiling record update");
    conn.batch_execute("COMMIT").await.expect("COMMIT");
}

#[derive(diesel::QueryableByName)]
struct StoredRow {
    #[diesel(sql_type = Text)]
    #[allow(dead_code)] // read, as the service reads it
    state: String,
    #[diesel(sql_type = diesel::sql_types::Nullable<Binary>)]
    #[allow(dead_code)]
    response_body: Option<Vec<u8>>,
}

/// The point read of a completed record by its unique key.
pub(crate) async fn read(conn: &mut AsyncMysqlConnection, key: &str) {
    let _row: StoredRow = diesel::sql_query(
        "SELECT state, request_hash, response_status, response_content_type, \
         response_location, response_body, completed_at, expires_at FROM api_idempotency \
         WHERE tenant_id = ? AND actor_id = 1 AND operation = 'orders.create.v1' \
         AND idempotency_key = ?",
    )
    .bind::<BigInt, _>(CEILING_TENANT)
    .bind::<Binary, _>(key.as_bytes())
    .get_result(conn)
    .await
    .expect("ceiling read");
}

/// What one ceiling worker does for its `i`-th unit of work.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Work {
    /// Only creations (new keys).
    Create,
    /// Only reads of keys created beforehand.
    Read,
    /// Creations, with every fifth a read of a recent key.
    Mixed,
    /// One creation, then 63 reads of that key.
    Storm,
}

/// Units of work per second, with `concurrency` tasks for `duration`.
pub(crate) async fn measure(
    pool: &Pool<AsyncMysqlConnection>,
    label: &str,
    work: Work,
    concurrency: usize,
    duration: Duration,
    read_keys: Arc<Vec<String>>,
) -> f64 {
    let done = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = (0..concurrency)
        .map(|w| {
            let (pool, done, read_keys) = (pool.clone(), done.clone(), read_keys.clone());
            let label = label.to_owned();
            tokio::spawn(async move {
                let mut conn = pool.get().await.expect("ceiling connection");
                let deadline = Instant::now() + duration;
                let mut i = 0usize;
                while Instant::now() < deadline {
                    let key = format!("{label}-{w}-{i}");
                    match work {
                        Work::Create => create(&mut conn, &key).await,
                        Work::Read => read(&mut conn, &read_keys[i % read_keys.len()]).await,
                        Work::Mixed if i % 5 == 4 => {
                            read(&mut conn, &format!("{label}-{w}-{}", i - 1)).await;
                        }
                        Work::Mixed => create(&mut conn, &key).await,
                        Work::Storm if i.is_multiple_of(64) => create(&mut conn, &key).await,
                        Work::Storm => {
                            read(&mut conn, &format!("{label}-{w}-{}", i - i % 64)).await;
                        }
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                    i += 1;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("ceiling task");
    }
    AtomicU64::load(&done, Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
}

/// Creates `n` keys for the read ceiling and returns them.
pub(crate) async fn seed(pool: &Pool<AsyncMysqlConnection>, label: &str, n: usize) -> Vec<String> {
    let mut conn = pool.get().await.expect("seed connection");
    let mut keys = Vec::with_capacity(n);
    for i in 0..n {
        let key = format!("{label}-seed-{i}");
        create(&mut conn, &key).await;
        keys.push(key);
    }
    keys
}
