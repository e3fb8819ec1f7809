//! A batch of cancels' statements, on both stores' transactions
//! (`docs/storage.md#batched-operations`): every member's order locked in one read, the
//! captures of the active ones in another, and the orders marked cancelled in one `UPDATE`.

use application::IdempotentOperation;
use application::orders::LockedOrder;
use application::payments::CapturePayment;
use application::ports::StoreError;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::deserialize::FromSqlRow;
use diesel::dsl::{self, SqlTypeOf};
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Binary, Text, Timestamp};
use diesel_async::RunQueryDsl;
use domain::{OperationState, OrderId, OrderStatus, Reason, TenantId};

use super::super::read_sql::OrderRow;
use super::sql::{LockNotHeld, PENDING, SUCCEEDED, order_and_revision};
use crate::sql::bad_value::bad;
use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;
use crate::sql::locked::Locked;
use crate::sql::pairs_in::PairsIn;
use crate::sql::rows::to_i64;
use crate::sql::schema::{operations, orders};

/// `(order id, tenant)` of each order, as the primary key's ranges.
fn order_pairs(orders: &[(TenantId, OrderId)]) -> Result<Vec<(i64, i64)>, StoreError> {
    orders
        .iter()
        .map(|(tenant, order)| Ok((to_i64(order.get())?, to_i64(tenant.get())?)))
        .collect()
}

#[dsl::auto_type]
fn orders_query(pairs: Vec<(i64, i64)>) -> _ {
    let among: PairsIn<orders::id, orders::tenant_id> =
        PairsIn::new(orders::id, orders::tenant_id, pairs);
    let columns: order_and_revision = order_and_revision();
    orders::table.filter(among).select(columns)
}

/// Through `ix_operations_order (tenant_id, order_id)`, as one capture's read is.
#[dsl::auto_type]
fn captures_query(pairs: Vec<(i64, i64)>, pending: &'static str, succeeded: &'static str) -> _ {
    let capture: &'static [u8] = CapturePayment::NAME.as_bytes();
    let among: PairsIn<operations::tenant_id, operations::order_id> =
        PairsIn::new(operations::tenant_id, operations::order_id, pairs);
    operations::table
        .filter(among)
        .filter(operations::operation_type.eq(capture))
        .filter(
            operations::state
                .eq(pending)
                .or(operations::state.eq(succeeded)),
        )
        .select((
            operations::tenant_id,
            operations::order_id,
            operations::state,
        ))
}

pub(crate) async fn lock_orders<C>(
    conn: &mut C,
    wanted: &[(TenantId, OrderId)],
) -> Result<Vec<Option<LockedOrder>>, StoreError>
where
    C: SqlConnection,
    Locked<orders_query>: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<SqlTypeOf<order_and_revision>>,
    (OrderRow, i64): FromSqlRow<SqlTypeOf<order_and_revision>, C::Backend>,
{
    let rows: Vec<(OrderRow, i64)> = Locked(orders_query(order_pairs(wanted)?))
        .load(conn)
        .await
        .map_err(C::Backend::store_error)?;
    let found = rows
        .into_iter()
        .map(|(order, revision)| {
            Ok(LockedOrder {
                order: order.into_order()?,
                revision: u64::try_from(revision).map_err(bad("orders", "revision"))?,
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    Ok(wanted
        .iter()
        .map(|(tenant, order)| {
            found
                .iter()
                .find(|found| found.order.id == *order && found.order.tenant == *tenant)
                .cloned()
        })
        .collect())
}

pub(crate) async fn blocking_captures<C>(
    conn: &mut C,
    wanted: &[(TenantId, OrderId)],
) -> Result<Vec<Option<OperationState>>, StoreError>
where
    C: SqlConnection,
    Locked<captures_query>: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<(BigInt, BigInt, Text)>,
    (i64, i64, String): FromSqlRow<(BigInt, BigInt, Text), C::Backend>,
{
    // `ix_operations_order` leads with the tenant.
    let pairs: Vec<(i64, i64)> = order_pairs(wanted)?
        .into_iter()
        .map(|(order, tenant)| (tenant, order))
        .collect();
    let rows: Vec<(i64, i64, String)> = Locked(captures_query(pairs.clone(), PENDING, SUCCEEDED))
        .load(conn)
        .await
        .map_err(C::Backend::store_error)?;
    pairs
        .iter()
        .map(|pair| {
            rows.iter()
                .find(|(tenant, order, _)| (*tenant, *order) == *pair)
                .map(|(_, _, state)| {
                    OperationState::from_stored(state).map_err(bad("operations", "state"))
                })
                .transpose()
        })
        .collect()
}

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
    if changed == cancelled.len() {
        Ok(())
    } else {
        Err(StoreError::Other(Box::new(LockNotHeld)))
    }
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
