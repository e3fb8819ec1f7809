//! The cancel's ceiling: the design's per-request SQL of `orders.cancel.v1`, without HTTP
//! or idempotency logic, on orders seeded for it: insert the record, read the order under
//! its lock, read its blocking capture under its lock, mark the order cancelled, insert its
//! event, complete the record, `COMMIT`. Seven round trips, as the service's single cancel.

use diesel::prelude::*;
use diesel::sql_types::BigInt;
use diesel_async::{AsyncMysqlConnection, RunQueryDsl};

use crate::ceiling::{complete_and_commit, insert_record, now, outbox};
use crate::statement::statement;

// Each statement a type of its own with a static query id (`statement.rs`).
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
    complete_and_commit(conn, CANCEL, key, br#"{"status":"cancelled"}"#).await;
}
