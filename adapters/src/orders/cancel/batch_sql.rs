//! A batch of cancels' write, on both stores' transactions
//! (`docs/storage.md#batched-operations`): after the locking reads (`orders/locks`), the
//! orders marked cancelled in one `UPDATE`.

use application::ports::StoreError;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Binary, Timestamp};
use diesel_async::RunQueryDsl;
use domain::{OrderId, OrderStatus, Reason, TenantId};

use super::super::{all_written, order_pairs};
use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;
use crate::sql::pairs_in::PairsIn;
use crate::sql::rows::to_i64;
use crate::sql::schema::orders;

/// `UPDATE orders SET status = 'CANCELLED', cancelled_at = ?, cancel_reason = CASE id WHEN
/// ? THEN ? ... END, revision = revision + 1 WHERE status = 'ACTIVE' AND ((id = ? AND
/// tenant_id = ?) OR ...)`: each order was locked at the revision its event names, so the
/// next revision is that one plus one. Its text depends only on the number of orders.
pub(crate) struct MarkAllCancelled<'a> {
    at: NaiveDateTime,
    reasons: Vec<(i64, &'a [u8])>,
    orders: PairsIn<orders::id, orders::tenant_id>,
}

impl QueryId for MarkAllCancelled<'_> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<DB: Backend> QueryFragment<DB> for MarkAllCancelled<'_>
where
    i64: ToSql<BigInt, DB>,
    [u8]: ToSql<Binary, DB>,
    NaiveDateTime: ToSql<Timestamp, DB>,
    PairsIn<orders::id, orders::tenant_id>: QueryFragment<DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE orders SET status = '");
        out.push_sql(OrderStatus::Cancelled.as_stored());
        out.push_sql("', cancelled_at = ");
        out.push_bind_param::<Timestamp, _>(&self.at)?;
        out.push_sql(", cancel_reason = CASE id");
        for (order, reason) in &self.reasons {
            out.push_sql(" WHEN ");
            out.push_bind_param::<BigInt, _>(order)?;
            out.push_sql(" THEN ");
            out.push_bind_param::<Binary, _>(*reason)?;
        }
        out.push_sql(" END, revision = revision + 1 WHERE status = '");
        out.push_sql(OrderStatus::Active.as_stored());
        out.push_sql("' AND ");
        self.orders.walk_ast(out.reborrow())
    }
}

pub(crate) async fn mark_all_cancelled<'a, C>(
    conn: &mut C,
    cancelled: &[(TenantId, OrderId, &'a Reason)],
    at: DateTime<Utc>,
) -> Result<(), StoreError>
where
    C: SqlConnection,
    MarkAllCancelled<'a>: QueryFragment<C::Backend>,
{
    let pairs = order_pairs(
        &cancelled
            .iter()
            .map(|(tenant, order, _)| (*tenant, *order))
            .collect::<Vec<_>>(),
    )?;
    let reasons = cancelled
        .iter()
        .map(|(_, order, reason)| Ok((to_i64(order.get())?, reason.as_str().as_bytes())))
        .collect::<Result<Vec<_>, StoreError>>()?;
    let changed = MarkAllCancelled {
        at: at.naive_utc(),
        reasons,
        orders: PairsIn::new(orders::id, orders::tenant_id, pairs),
    }
    .execute(conn)
    .await
    .map_err(C::Backend::store_error)?;
    all_written(changed, cancelled.len())
}

#[cfg(test)]
mod tests {
    use diesel::debug_query;
    use diesel::sqlite::Sqlite;

    use super::*;

    #[test]
    fn the_orders_are_marked_in_one_statement_each_with_its_reason() {
        let mark = MarkAllCancelled {
            at: DateTime::UNIX_EPOCH.naive_utc(),
            reasons: vec![(9, b"a"), (10, b"b")],
            orders: PairsIn::new(orders::id, orders::tenant_id, vec![(9, 1), (10, 1)]),
        };
        let text = debug_query::<Sqlite, _>(&mark).to_string();
        assert!(
            text.starts_with(
                "UPDATE orders SET status = 'CANCELLED', cancelled_at = ?, cancel_reason = \
                 CASE id WHEN ? THEN ? WHEN ? THEN ? END, revision = revision + 1 WHERE \
                 status = 'ACTIVE' AND ((`orders`.`id` = ? AND `orders`.`tenant_id` = ?) OR \
                 (`orders`.`id` = ? AND `orders`.`tenant_id` = ?))"
            ),
            "{text}"
        );
    }
}
