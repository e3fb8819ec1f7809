//! A batch's reads (`docs/storage.md#batched-operations`): every member's order locked in
//! one read, the captures of the ones asked for read under those locks in another.

use application::IdempotentOperation;
use application::orders::LockedOrder;
use application::payments::CapturePayment;
use application::ports::StoreError;
use diesel::deserialize::FromSqlRow;
use diesel::dsl::{self, SqlTypeOf};
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use diesel::sql_types::{BigInt, Text};
use diesel_async::RunQueryDsl;
use domain::{OperationState, OrderId, TenantId};

use super::super::read_sql::OrderRow;
use super::sql::{PENDING, SUCCEEDED, order_and_revision};
use crate::sql::bad_value::bad;
use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;
use crate::sql::locked::Locked;
use crate::sql::pairs_in::{PairsIn, in_wanted_order};
use crate::sql::rows::to_i64;
use crate::sql::schema::{operations, orders};

/// `(order id, tenant)` of each order, as the primary key's ranges.
pub(crate) fn order_pairs(orders: &[(TenantId, OrderId)]) -> Result<Vec<(i64, i64)>, StoreError> {
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

/// A plain read, under the orders' locks the batch already holds: a capture takes its
/// order before it inserts its operation, so every capture of a locked order committed
/// before this read, the first consistent read of the transaction, and it sees them all. A
/// locking read would also lock the gaps of `ix_operations_order` around the orders, the
/// gap every new capture's insert goes into: concurrent batches of acceptances then
/// deadlocked on each other's gaps.
pub(crate) async fn blocking_captures<C>(
    conn: &mut C,
    wanted: &[(TenantId, OrderId)],
) -> Result<Vec<Option<OperationState>>, StoreError>
where
    C: SqlConnection,
    captures_query: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<(BigInt, BigInt, Text)>,
    (i64, i64, String): FromSqlRow<(BigInt, BigInt, Text), C::Backend>,
{
    // `ix_operations_order` leads with the tenant.
    let pairs: Vec<(i64, i64)> = order_pairs(wanted)?
        .into_iter()
        .map(|(order, tenant)| (tenant, order))
        .collect();
    let rows: Vec<(i64, i64, String)> = captures_query(pairs.clone(), PENDING, SUCCEEDED)
        .load(conn)
        .await
        .map_err(C::Backend::store_error)?;
    in_wanted_order(
        &pairs,
        &rows,
        |(tenant, order, _)| (*tenant, *order),
        |(_, _, state)| OperationState::from_stored(state).map_err(bad("operations", "state")),
    )
}
