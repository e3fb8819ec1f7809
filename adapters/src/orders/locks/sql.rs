//! One order's locking reads: the order under its row lock, then its blocking capture read
//! the same way.

use application::IdempotentOperation;
use application::orders::LockedOrder;
use application::payments::CapturePayment;
use application::ports::StoreError;
use diesel::deserialize::FromSqlRow;
use diesel::dsl::{self, Limit, SqlTypeOf};
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use diesel::sql_types::Text;
use diesel_async::RunQueryDsl;
use domain::{OperationState, OrderId, TenantId};

use super::super::read_sql::{OrderRow, order_columns};
use crate::sql::bad_value::bad;
use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;
use crate::sql::locked::Locked;
use crate::sql::rows::to_i64;
use crate::sql::schema::{operations, orders};

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
}
