//! The capture acceptance's ceiling: the design's per-request SQL of `payments.capture.v1`'s
//! acceptance, without HTTP or idempotency logic, on orders seeded for it: insert the
//! record, take the active order (its revision up), insert the pending operation, complete
//! the record, `COMMIT`. Five round trips, as the service's single acceptance.

use diesel::sql_types::{BigInt, Binary};
use diesel_async::{AsyncMysqlConnection, RunQueryDsl};

use crate::ceiling::{complete_and_commit, insert_record};
use crate::statement::statement;

statement!(
    TakeOrder,
    "UPDATE orders SET revision = revision + 1 WHERE tenant_id = 1 AND status = 'ACTIVE' \
     AND id = ",
    |self, out| {
        out.push_bind_param::<BigInt, _>(&self.order)?;
    }
);

statement!(
    InsertOperation {
        id: Vec<u8>,
        kind: &'static [u8],
        order: i64,
        input: &'static [u8],
        result: &'static [u8],
        downstream_key: Vec<u8>
    },
    "INSERT INTO operations (id, operation_type, tenant_id, order_id, input, result, \
     downstream_key, state, generation, attempts, next_attempt_at, created_at, updated_at) \
     VALUES (",
    |self, out| {
        out.push_bind_param::<Binary, _>(&self.id)?;
        out.push_sql(", ");
        out.push_bind_param::<Binary, _>(&self.kind)?;
        out.push_sql(", 1, ");
        out.push_bind_param::<BigInt, _>(&self.order)?;
        out.push_sql(", ");
        out.push_bind_param::<Binary, _>(&self.input)?;
        out.push_sql(", ");
        out.push_bind_param::<Binary, _>(&self.result)?;
        out.push_sql(", ");
        out.push_bind_param::<Binary, _>(&self.downstream_key)?;
        out.push_sql(", 'PENDING', 0, 0, NOW(6), NOW(6), NOW(6))");
    }
);

/// A leased operation's pending row, as every acceptance writes it (`kind`'s `input` and
/// empty `result`), under fresh ids.
pub(crate) async fn insert_operation(
    conn: &mut AsyncMysqlConnection,
    kind: &'static [u8],
    order: i64,
    input: &'static [u8],
    result: &'static [u8],
) {
    InsertOperation {
        id: uuid::Uuid::new_v4().into_bytes().to_vec(),
        kind,
        order,
        input,
        result,
        downstream_key: uuid::Uuid::new_v4().hyphenated().to_string().into_bytes(),
    }
    .execute(conn)
    .await
    .expect("ceiling operation insert");
}

const CAPTURE: &[u8] = b"payments.capture.v1";

pub(crate) async fn capture(conn: &mut AsyncMysqlConnection, key: &str, order: i64) {
    insert_record(conn, CAPTURE, key).await;
    let taken = TakeOrder { order }
        .execute(conn)
        .await
        .expect("ceiling order take");
    assert_eq!(taken, 1, "each seeded order is taken once");
    let job = br#"{"amount":1500,"currency":"JPY"}"#;
    insert_operation(conn, CAPTURE, order, job, br#"{"payment":null}"#).await;
    complete_and_commit(conn, CAPTURE, key, br#"{"state":"pending"}"#).await;
}
