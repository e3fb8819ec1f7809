//! The cancel's ceiling: the design's per-request SQL of `orders.cancel.v1`, without HTTP
//! or idempotency logic, on orders seeded for it: insert the record, read the order under
//! its lock, read its blocking capture under its lock, mark the order cancelled, insert its
//! event, complete the record, `COMMIT`. Seven round trips, as the service's single cancel.

use diesel::QueryResult;
use diesel::mysql::Mysql;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::BigInt;
use diesel_async::{AsyncMysqlConnection, RunQueryDsl, SimpleAsyncConnection};

use crate::ceiling::{Complete, insert_record, now, outbox};

/// The cancel's three hand-written statements, each a type of its own with a static query
/// id, so that each is prepared once per connection, as the service's are (diesel never
/// caches `sql_query`).
macro_rules! statement {
    ($name:ident, $sql:literal, |$self_:ident, $out:ident| $binds:block) => {
        struct $name {
            order: i64,
        }

        impl QueryId for $name {
            type QueryId = $name;
            const HAS_STATIC_QUERY_ID: bool = true;
        }

        impl QueryFragment<Mysql> for $name {
            fn walk_ast<'b>(&'b $self_, mut $out: AstPass<'_, 'b, Mysql>) -> QueryResult<()> {
                $out.push_sql($sql);
                $binds
                Ok(())
            }
        }
    };
}

statement!(
    LockOrder,
    "SELECT id, tenant_id, client_order_ref, sku, quantity, created_at, status, \
     cancelled_at, revision FROM orders WHERE tenant_id = 1 AND id = ",
    |self, out| {
        out.push_bind_param::<BigInt, _>(&self.order)?;
        out.push_sql(" LIMIT 1 FOR UPDATE");
    }
);

statement!(
    LockCapture,
    "SELECT state FROM operations WHERE tenant_id = 1 \
     AND operation_type = 'payments.capture.v1' AND (state = 'PENDING' OR \
     state = 'SUCCEEDED') AND order_id = ",
    |self, out| {
        out.push_bind_param::<BigInt, _>(&self.order)?;
        out.push_sql(" LIMIT 1 FOR UPDATE");
    }
);

statement!(
    MarkCancelled,
    "UPDATE orders SET status = 'CANCELLED', cancelled_at = NOW(6), \
     cancel_reason = 'changed my mind', revision = revision + 1 \
     WHERE tenant_id = 1 AND status = 'ACTIVE' AND id = ",
    |self, out| {
        out.push_bind_param::<BigInt, _>(&self.order)?;
    }
);

const CANCEL: &[u8] = b"orders.cancel.v1";

pub(crate) async fn cancel(conn: &mut AsyncMysqlConnection, key: &str, order: i64) {
    insert_record(conn, CANCEL, key).await;
    LockOrder { order }
        .execute(conn)
        .await
        .expect("ceiling order lock");
    LockCapture { order }
        .execute(conn)
        .await
        .expect("ceiling capture lock");
    MarkCancelled { order }
        .execute(conn)
        .await
        .expect("ceiling order cancel");
    diesel::insert_into(outbox::table)
        .values((
            outbox::event_id.eq(uuid::Uuid::new_v4().into_bytes().as_slice().to_vec()),
            outbox::event_type.eq(b"orders.cancelled.v1".as_slice()),
            outbox::tenant_id.eq(1_i64),
            outbox::subject.eq(b"orders.cancelled.v1.1".as_slice()),
            outbox::payload.eq(br#"{"order":{"status":"cancelled"}}"#.as_slice()),
            outbox::created_at.eq(now()),
        ))
        .execute(conn)
        .await
        .expect("ceiling outbox insert");
    Complete {
        operation: CANCEL,
        key: key.as_bytes(),
        body: br#"{"status":"cancelled"}"#,
        at: now(),
    }
    .execute(conn)
    .await
    .expect("ceiling record update");
    conn.batch_execute("COMMIT").await.expect("COMMIT");
}
