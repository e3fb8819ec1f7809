//! The cancel's reads and write, on both stores' transactions: the order read under its
//! row lock, its blocking capture read the same way, then the order marked cancelled.

use application::IdempotentOperation;
use application::orders::LockedOrder;
use application::payments::CapturePayment;
use application::ports::StoreError;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::deserialize::FromSqlRow;
use diesel::dsl::{self, Limit, SqlTypeOf};
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Binary, Text, Timestamp};
use diesel_async::RunQueryDsl;
use domain::Reason;
use domain::{OperationState, OrderId, OrderStatus, TenantId};

use super::super::push_tenants_active_order;
use super::super::read_sql::{OrderRow, order_columns};
use crate::sql::bad_value::bad;
use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;
use crate::sql::locked::Locked;
use crate::sql::rows::to_i64;
use crate::sql::schema::{operations, orders};

const CANCELLED: &str = OrderStatus::Cancelled.as_stored();
pub(super) const PENDING: &str = OperationState::Pending.as_stored();
pub(super) const SUCCEEDED: &str = OperationState::Succeeded.as_stored();

/// The order's columns and its revision.
#[dsl::auto_type]
pub(super) fn order_and_revision() -> _ {
    let columns: order_columns = order_columns();
    (columns, orders::revision)
}

#[dsl::auto_type]
fn order_query(tenant: i64, order: i64) -> _ {
    let columns: order_and_revision = order_and_revision();
    orders::table
        .filter(orders::id.eq(order))
        .filter(orders::tenant_id.eq(tenant))
        .select(columns)
}

/// Through `ix_operations_order`: only this order's captures are read, and locked (its
/// other operations, refunds, do not keep it from being cancelled: they need a capture).
#[dsl::auto_type]
fn capture_query(tenant: i64, order: i64, pending: &'static str, succeeded: &'static str) -> _ {
    let capture: &'static [u8] = CapturePayment::NAME.as_bytes();
    operations::table
        .filter(operations::tenant_id.eq(tenant))
        .filter(operations::order_id.eq(order))
        .filter(operations::operation_type.eq(capture))
        .filter(
            operations::state
                .eq(pending)
                .or(operations::state.eq(succeeded)),
        )
        .select(operations::state)
}

/// The order's capture that keeps it from being cancelled.
fn blocking(tenant: i64, order: i64) -> Locked<Limit<capture_query>> {
    Locked(capture_query(tenant, order, PENDING, SUCCEEDED).limit(1))
}

/// `UPDATE orders SET status = 'CANCELLED', cancelled_at = ?, cancel_reason = ?,
/// revision = ? WHERE id = ? AND tenant_id = ? AND status = 'ACTIVE'`. Hand-written, like
/// the record's completion (`sql/complete_record.rs`): diesel prepares a DSL `UPDATE` anew
/// on every call.
pub(crate) struct MarkCancelled<'a> {
    tenant: i64,
    order: i64,
    at: NaiveDateTime,
    reason: &'a [u8],
    revision: i64,
}

pub(crate) struct MarkCancelledQuery;

impl QueryId for MarkCancelled<'_> {
    type QueryId = MarkCancelledQuery;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<DB: Backend> QueryFragment<DB> for MarkCancelled<'_>
where
    i64: ToSql<BigInt, DB>,
    [u8]: ToSql<Binary, DB>,
    NaiveDateTime: ToSql<Timestamp, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE orders SET status = '");
        out.push_sql(CANCELLED);
        out.push_sql("', cancelled_at = ");
        out.push_bind_param::<Timestamp, _>(&self.at)?;
        out.push_sql(", cancel_reason = ");
        out.push_bind_param::<Binary, _>(self.reason)?;
        out.push_sql(", revision = ");
        out.push_bind_param::<BigInt, _>(&self.revision)?;
        push_tenants_active_order(&mut out, &self.order, &self.tenant)
    }
}

pub(super) async fn lock_order<C>(
    conn: &mut C,
    tenant: TenantId,
    order: OrderId,
) -> Result<Option<LockedOrder>, StoreError>
where
    C: SqlConnection,
    Locked<Limit<order_query>>: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<SqlTypeOf<order_and_revision>>,
    (OrderRow, i64): FromSqlRow<SqlTypeOf<order_and_revision>, C::Backend>,
{
    let row: Option<(OrderRow, i64)> =
        Locked(order_query(to_i64(tenant.get())?, to_i64(order.get())?).limit(1))
            .get_result(conn)
            .await
            .optional()
            .map_err(C::Backend::store_error)?;
    row.map(|(order, revision)| {
        Ok(LockedOrder {
            order: order.into_order()?,
            revision: u64::try_from(revision).map_err(bad("orders", "revision"))?,
        })
    })
    .transpose()
}

pub(super) async fn blocking_capture<C>(
    conn: &mut C,
    tenant: TenantId,
    order: OrderId,
) -> Result<Option<OperationState>, StoreError>
where
    C: SqlConnection,
    Locked<Limit<capture_query>>: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<Text>,
    String: FromSqlRow<Text, C::Backend>,
{
    let state: Option<String> = blocking(to_i64(tenant.get())?, to_i64(order.get())?)
        .get_result(conn)
        .await
        .optional()
        .map_err(C::Backend::store_error)?;
    state
        .map(|state| OperationState::from_stored(&state).map_err(bad("operations", "state")))
        .transpose()
}

pub(super) async fn mark_cancelled<'a, C>(
    conn: &mut C,
    tenant: TenantId,
    order: OrderId,
    at: DateTime<Utc>,
    reason: &'a Reason,
    revision: u64,
) -> Result<(), StoreError>
where
    C: SqlConnection,
    MarkCancelled<'a>: QueryFragment<C::Backend>,
{
    let changed = MarkCancelled {
        tenant: to_i64(tenant.get())?,
        order: to_i64(order.get())?,
        at: at.naive_utc(),
        reason: reason.as_str().as_bytes(),
        revision: to_i64(revision)?,
    }
    .execute(conn)
    .await
    .map_err(C::Backend::store_error)?;
    if changed == 1 {
        Ok(())
    } else {
        Err(StoreError::Other(Box::new(LockNotHeld)))
    }
}

/// The order was locked and active: a mark that changes no row is a bug, never a race.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("the locked, active order was not there to mark cancelled")]
pub(super) struct LockNotHeld;

#[cfg(test)]
mod tests {
    use diesel::debug_query;
    use diesel::mysql::Mysql;
    use diesel::sqlite::Sqlite;

    use super::*;

    #[test]
    fn the_order_and_its_captures_are_locked_on_mysql() {
        let order = debug_query::<Mysql, _>(&Locked(order_query(1, 9).limit(1))).to_string();
        assert!(order.contains("LIMIT ? FOR UPDATE"), "{order}");
        let captures = debug_query::<Mysql, _>(&blocking(1, 9)).to_string();
        assert!(captures.contains("LIMIT ? FOR UPDATE"), "{captures}");
        let sqlite = debug_query::<Sqlite, _>(&blocking(1, 9)).to_string();
        assert!(!sqlite.contains("FOR UPDATE"), "{sqlite}");
    }

    #[test]
    fn only_the_tenants_active_order_is_marked() {
        let mark = MarkCancelled {
            tenant: 1,
            order: 9,
            at: DateTime::UNIX_EPOCH.naive_utc(),
            reason: b"r",
            revision: 3,
        };
        let text = debug_query::<Sqlite, _>(&mark).to_string();
        assert!(
            text.starts_with(
                "UPDATE orders SET status = 'CANCELLED', cancelled_at = ?, cancel_reason = ?, \
                 revision = ? WHERE id = ? AND tenant_id = ? AND status = 'ACTIVE'"
            ),
            "{text}"
        );
    }
}
