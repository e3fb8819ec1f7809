//! The database's own ceiling: the same SQL work as the service, without HTTP or
//! idempotency logic, on the same database at the same concurrency.
//!
//! - a creation: one transaction of four statements (insert the record, insert the
//!   order, insert its outbox event, complete the record by its unique key);
//! - a replay: one point read of a completed record by its unique key;
//! - a cancel (`cancel_ceiling.rs`): the single cancel's seven round trips;
//! - a capture's and a refund's acceptance (`capture_ceiling.rs`, `refund_ceiling.rs`);
//! - the single-insert floor (`floor.rs`): one autocommit `INSERT` of an order-sized row,
//!   what a service pays the database when it keeps its idempotency records elsewhere.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use diesel::mysql::Mysql;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Blob, Datetime, Varbinary};
use diesel_async::pooled_connection::AsyncDieselConnectionManager;
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::{AsyncMysqlConnection, RunQueryDsl, SimpleAsyncConnection};

use crate::cancel_ceiling::cancel;
use crate::capture_ceiling::capture;
use crate::floor::insert_floor_order;
use crate::order_ids::reserve_order_ids;
use crate::refund_ceiling::refund;

/// The tenant the ceiling writes under, apart from the service's rows.
pub(crate) const CEILING_TENANT: i64 = 999_999;

/// A pool as large as the concurrency.
pub(crate) fn pool(url: &str, size: usize) -> Pool<AsyncMysqlConnection> {
    let manager = AsyncDieselConnectionManager::<AsyncMysqlConnection>::new(url);
    Pool::builder(manager)
        .max_size(size)
        .build()
        .expect("ceiling pool")
}

pub(crate) fn now() -> chrono::NaiveDateTime {
    chrono::Utc::now().naive_utc()
}

diesel::table! {
    api_idempotency (id) {
        id -> BigInt,
        tenant_id -> BigInt,
        actor_id -> BigInt,
        operation -> Varbinary,
        idempotency_key -> Varbinary,
        fingerprint_version -> SmallInt,
        request_hash -> Binary,
        state -> Varchar,
        response_status -> Nullable<SmallInt>,
        response_content_type -> Nullable<Varchar>,
        response_location -> Nullable<Varchar>,
        response_body -> Nullable<Blob>,
        created_at -> Datetime,
        completed_at -> Nullable<Datetime>,
        expires_at -> Nullable<Datetime>,
    }
}

diesel::table! {
    outbox (id) {
        id -> BigInt,
        event_id -> Binary,
        event_type -> Varbinary,
        tenant_id -> BigInt,
        subject -> Varbinary,
        payload -> Blob,
        created_at -> Datetime,
    }
}

diesel::table! {
    orders (id) {
        id -> BigInt,
        tenant_id -> BigInt,
        client_order_ref -> Varbinary,
        sku -> Varbinary,
        quantity -> SmallInt,
        created_at -> Datetime,
    }
}

/// The four-statement creation transaction for `key`, ended by `COMMIT`, exactly as the
/// service's unit of work sends them: on a session with autocommit off ([`transactional`]),
/// so the first insert begins the transaction and no `BEGIN` is sent. Every statement is
/// prepared once per connection, like the service's: the inserts through diesel's query
/// builder, the completion through [`Complete`] (diesel never caches a DSL `UPDATE`). Five
/// round trips, as the service's with `RETURNING`.
pub(crate) async fn create(conn: &mut AsyncMysqlConnection, key: &str, order_id: i64) {
    const OPERATION: &[u8] = b"orders.create.v1";
    insert_record(conn, OPERATION, key).await;
    insert_order(conn, key, order_id).await;
    let event = format!(
        r#"{{"eventId":"00000000-0000-4000-8000-000000000000","type":"orders.created.v1","tenantId":{CEILING_TENANT},"occurredAt":"2026-01-01T00:00:00.000000Z","order":{{"orderId":"1","clientOrderRef":"{key}","sku":"SKU-1","quantity":1,"createdAt":"2026-01-01T00:00:00.000000Z"}}}}"#
    );
    diesel::insert_into(outbox::table)
        .values((
            outbox::event_id.eq(uuid::Uuid::new_v4().into_bytes().as_slice().to_vec()),
            outbox::event_type.eq(b"orders.created.v1".as_slice()),
            outbox::tenant_id.eq(CEILING_TENANT),
            outbox::subject.eq(b"orders.created.v1.999999".as_slice()),
            outbox::payload.eq(event.as_bytes()),
            outbox::created_at.eq(now()),
        ))
        .execute(conn)
        .await
        .expect("ceiling outbox insert");
    let body = format!(
        r#"{{"orderId":"1","clientOrderRef":"{key}","sku":"SKU-1","quantity":1,"createdAt":"2026-01-01T00:00:00.000000Z"}}"#
    );
    complete_and_commit(conn, OPERATION, key, body.as_bytes()).await;
}

/// The design's last two statements of every write: the record completed with `body`,
/// then `COMMIT`.
pub(crate) async fn complete_and_commit(
    conn: &mut AsyncMysqlConnection,
    operation: &[u8],
    key: &str,
    body: &[u8],
) {
    Complete {
        operation,
        key: key.as_bytes(),
        body,
        at: now(),
    }
    .execute(conn)
    .await
    .expect("ceiling record update");
    conn.batch_execute("COMMIT").await.expect("COMMIT");
}

/// A request's first statement: its `PROCESSING` record under `key`.
pub(crate) async fn insert_record(conn: &mut AsyncMysqlConnection, operation: &[u8], key: &str) {
    use api_idempotency::dsl as r;
    diesel::insert_into(r::api_idempotency)
        .values((
            r::tenant_id.eq(CEILING_TENANT),
            r::actor_id.eq(1_i64),
            r::operation.eq(operation),
            r::idempotency_key.eq(key.as_bytes()),
            r::fingerprint_version.eq(1_i16),
            r::request_hash.eq([7u8; 32].as_slice()),
            r::state.eq("PROCESSING"),
            r::created_at.eq(now()),
        ))
        .execute(conn)
        .await
        .expect("ceiling record insert");
}

/// The completion by the record's unique key, as a query type with a static query id, so
/// it is prepared once per connection like the service's own completion.
struct Complete<'a> {
    pub(crate) operation: &'a [u8],
    pub(crate) key: &'a [u8],
    pub(crate) body: &'a [u8],
    pub(crate) at: chrono::NaiveDateTime,
}

impl QueryId for Complete<'_> {
    type QueryId = Complete<'static>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl QueryFragment<Mysql> for Complete<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Mysql>) -> QueryResult<()> {
        out.push_sql(
            "UPDATE `api_idempotency` SET `state` = 'COMPLETED', `response_status` = 201, \
             `response_content_type` = 'application/json', \
             `response_location` = '/api/orders/1', `response_body` = ",
        );
        out.push_bind_param::<Blob, _>(&self.body)?;
        out.push_sql(", `completed_at` = ");
        out.push_bind_param::<Datetime, _>(&self.at)?;
        out.push_sql(", `expires_at` = ");
        out.push_bind_param::<Datetime, _>(&self.at)?;
        out.push_sql(" WHERE `tenant_id` = ");
        out.push_bind_param::<BigInt, _>(&CEILING_TENANT)?;
        out.push_sql(" AND `actor_id` = 1 AND `operation` = ");
        out.push_bind_param::<Varbinary, _>(&self.operation)?;
        out.push_sql(" AND `idempotency_key` = ");
        out.push_bind_param::<Varbinary, _>(&self.key)?;
        out.push_sql(" AND `state` = 'PROCESSING'");
        Ok(())
    }
}

/// The columns the service reads for a replay.
type StoredColumns = (
    String,
    Vec<u8>,
    Option<i16>,
    Option<String>,
    Option<String>,
    Option<Vec<u8>>,
    Option<chrono::NaiveDateTime>,
    Option<chrono::NaiveDateTime>,
);

/// The point read of a completed record by its unique key.
pub(crate) async fn read(conn: &mut AsyncMysqlConnection, key: &str) {
    use api_idempotency::dsl as r;
    let _row: StoredColumns = r::api_idempotency
        .filter(r::tenant_id.eq(CEILING_TENANT))
        .filter(r::actor_id.eq(1_i64))
        .filter(r::operation.eq(b"orders.create.v1".as_slice()))
        .filter(r::idempotency_key.eq(key.as_bytes()))
        .select((
            r::state,
            r::request_hash,
            r::response_status,
            r::response_content_type,
            r::response_location,
            r::response_body,
            r::completed_at,
            r::expires_at,
        ))
        .first(conn)
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
    /// One autocommit insert of an order (no record, no event, no transaction).
    Floor,
    /// Cancels of the orders whose ids are given (`cancel_ceiling.rs`), each once.
    Cancel,
    /// Capture acceptances of the orders whose ids are given (`capture_ceiling.rs`), each
    /// once.
    Capture,
    /// Refund acceptances of 1 of the captured orders whose ids are given
    /// (`refund_ceiling.rs`), spread over them.
    Refund,
}

/// The creation's second statement, under an id reserved beforehand as the service's are
/// (`docs/storage.md#order-ids`).
async fn insert_order(conn: &mut AsyncMysqlConnection, key: &str, id: i64) {
    use orders::dsl as o;
    diesel::insert_into(o::orders)
        .values((
            o::id.eq(id),
            o::tenant_id.eq(CEILING_TENANT),
            o::client_order_ref.eq(key.as_bytes()),
            o::sku.eq(b"SKU-1".as_slice()),
            o::quantity.eq(1_i16),
            o::created_at.eq(now()),
        ))
        .execute(conn)
        .await
        .expect("order insert");
}

/// Turns the session's autocommit off (`on` true: the transactional session) or back on, as the service's
/// transaction pool keeps it off: a connection goes back to the pool with it on.
async fn transactional(conn: &mut AsyncMysqlConnection, on: bool) {
    let sql = if on {
        "SET SESSION autocommit = 0"
    } else {
        "COMMIT; SET SESSION autocommit = 1"
    };
    conn.batch_execute(sql).await.expect("ceiling session");
}

/// Units of work done, and per second, with `concurrency` tasks for `duration`.
pub(crate) async fn measure(
    pool: &Pool<AsyncMysqlConnection>,
    label: &str,
    work: Work,
    concurrency: usize,
    duration: Duration,
    read_keys: Arc<Vec<String>>,
) -> (u64, f64) {
    let done = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = (0..concurrency)
        .map(|w| {
            let (pool, done, read_keys) = (pool.clone(), done.clone(), read_keys.clone());
            let label = label.to_owned();
            tokio::spawn(async move {
                let mut conn = pool.get().await.expect("ceiling connection");
                let writes = matches!(work, Work::Create | Work::Mixed);
                let transactions =
                    writes || matches!(work, Work::Cancel | Work::Capture | Work::Refund);
                // More than a phase can create, for this worker alone.
                let first_id = if writes {
                    reserve_order_ids(&mut conn, 10_000_000).await
                } else {
                    0
                };
                if transactions {
                    transactional(&mut conn, true).await;
                }
                let deadline = Instant::now() + duration;
                let mut i = 0usize;
                while Instant::now() < deadline {
                    let key = format!("{label}-{w}-{i}");
                    let order_id = first_id + i64::try_from(i).expect("an index");
                    match work {
                        Work::Create => create(&mut conn, &key, order_id).await,
                        Work::Read => read(&mut conn, &read_keys[i % read_keys.len()]).await,
                        Work::Mixed if i % 5 == 4 => {
                            read(&mut conn, &format!("{label}-{w}-{}", i - 1)).await;
                        }
                        Work::Mixed => create(&mut conn, &key, order_id).await,
                        Work::Floor => insert_floor_order(&mut conn, &key).await,
                        Work::Cancel | Work::Capture | Work::Refund => {
                            let order = &read_keys[(i * concurrency + w) % read_keys.len()];
                            let order = order.parse().expect("an order id");
                            match work {
                                Work::Cancel => cancel(&mut conn, &key, order).await,
                                Work::Capture => capture(&mut conn, &key, order).await,
                                _ => refund(&mut conn, &key, order).await,
                            }
                        }
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                    i += 1;
                }
                if transactions {
                    transactional(&mut conn, false).await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("ceiling task");
    }
    let units = AtomicU64::load(&done, Ordering::Relaxed);
    (units, units as f64 / started.elapsed().as_secs_f64())
}

/// Creates `n` keys for the read ceiling and returns them.
pub(crate) async fn seed(pool: &Pool<AsyncMysqlConnection>, label: &str, n: usize) -> Vec<String> {
    let mut conn = pool.get().await.expect("seed connection");
    let mut keys = Vec::with_capacity(n);
    let first_id = reserve_order_ids(&mut conn, u64::try_from(n).expect("a count")).await;
    transactional(&mut conn, true).await;
    for i in 0..n {
        let key = format!("{label}-seed-{i}");
        create(
            &mut conn,
            &key,
            first_id + i64::try_from(i).expect("an index"),
        )
        .await;
        keys.push(key);
    }
    transactional(&mut conn, false).await;
    keys
}
