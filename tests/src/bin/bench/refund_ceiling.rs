//! The refund acceptance's ceiling: the design's per-request SQL of `payments.refund.v1`'s
//! acceptance, without HTTP or idempotency logic, on captured orders seeded for it: insert
//! the record, read the payment, reserve the amount in one conditional `UPDATE`, insert the
//! pending operation, complete the record, `COMMIT`. Six round trips.

use diesel::sql_types::BigInt;
use diesel_async::{AsyncMysqlConnection, RunQueryDsl};

use crate::capture_ceiling::insert_operation;
use crate::ceiling::{complete_and_commit, insert_record};
use crate::statement::statement;

statement!(
    ReadPayment,
    "SELECT provider_charge_id, currency FROM payments WHERE tenant_id = 1 AND order_id = ",
    |self, out| {
        out.push_bind_param::<BigInt, _>(&self.order)?;
        out.push_sql(" LIMIT 1");
    }
);

statement!(
    ReserveOne,
    "UPDATE payments SET refunded = refunded + 1 WHERE tenant_id = 1 \
     AND amount - refunded >= 1 AND order_id = ",
    |self, out| {
        out.push_bind_param::<BigInt, _>(&self.order)?;
    }
);

const REFUND: &[u8] = b"payments.refund.v1";

pub(crate) async fn refund(conn: &mut AsyncMysqlConnection, key: &str, order: i64) {
    insert_record(conn, REFUND, key).await;
    ReadPayment { order }
        .execute(conn)
        .await
        .expect("ceiling payment read");
    let reserved = ReserveOne { order }
        .execute(conn)
        .await
        .expect("ceiling reservation");
    assert_eq!(reserved, 1, "each seeded payment has plenty left");
    let job = br#"{"charge":"ch_1","amount":1,"currency":"JPY","reason":"bench"}"#;
    insert_operation(conn, REFUND, order, job, br#"{"refund":null}"#).await;
    complete_and_commit(conn, REFUND, key, br#"{"state":"pending"}"#).await;
}
