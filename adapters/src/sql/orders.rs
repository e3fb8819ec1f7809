//! SQL of the orders table.

use application::Order;
use application::ports::{InsertOrderError, StoreError};
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::deserialize::FromSqlRow;
use diesel::dsl::{self, Limit, SqlTypeOf, Values};
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use diesel_async::RunQueryDsl;
use domain::{NewOrder, OrderId, TenantId};

use super::classify::{Classify, order_insert_error};
use super::connection::SqlConnection;
use super::rows::{OrderRow, order_columns, to_i64};
use super::schema::orders;

/// The insert of a new order.
#[derive(Insertable)]
#[diesel(table_name = orders)]
// Every field is a plain value: with diesel's default (`None` as `DEFAULT`) each becomes a
// defaultable value, which makes MySQL statements uncacheable (prepared and closed on
// every insert).
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct NewOrderRow<'a> {
    tenant_id: i64,
    client_order_ref: &'a [u8],
    sku: &'a [u8],
    quantity: i16,
    created_at: NaiveDateTime,
}

/// The statement [`insert`] runs.
pub(crate) type InsertOrder<'a> = Values<dsl::insert_into<orders::table>, NewOrderRow<'a>>;

/// Inserts the order and returns its id; a `clientOrderRef` the tenant already used is
/// [`InsertOrderError::ClientOrderRefTaken`].
pub(crate) async fn insert<'a, C>(
    conn: &mut C,
    ids: C::InsertIds,
    tenant: TenantId,
    order: &'a NewOrder,
    created_at: DateTime<Utc>,
) -> Result<OrderId, InsertOrderError>
where
    C: SqlConnection,
    InsertOrder<'a>: QueryFragment<C::Backend>,
{
    let row = NewOrderRow {
        tenant_id: to_i64(tenant.get())?,
        client_order_ref: order.client_order_ref.as_str().as_bytes(),
        sku: order.sku.as_str().as_bytes(),
        quantity: i16::from(order.quantity.get()),
        created_at: created_at.naive_utc(),
    };
    let insert = diesel::insert_into(orders::table).values(row);
    let id = conn
        .insert_returning_id(ids, insert)
        .await
        .map_err(order_insert_error::<C::Backend>)?;
    Ok(OrderId::new(id))
}

/// The order with `id` in `tenant`, as [`OrderRow`].
#[dsl::auto_type]
pub(crate) fn by_tenant_id(tenant: i64, id: i64) -> _ {
    orders::table
        .filter(orders::id.eq(id))
        .filter(orders::tenant_id.eq(tenant))
        .select(order_columns())
}

/// The read of [`find`], for a store that wraps it (MySQL's causal read on Galera).
///
/// # Errors
/// [`StoreError::Other`] for an id out of range.
pub(crate) fn find_query(tenant: TenantId, id: OrderId) -> Result<Limit<by_tenant_id>, StoreError> {
    Ok(by_tenant_id(to_i64(tenant.get())?, to_i64(id.get())?).limit(1))
}

/// The order with `id` in `tenant`; another tenant's order is simply not found.
pub(crate) async fn find<C>(
    conn: &mut C,
    tenant: TenantId,
    id: OrderId,
) -> Result<Option<Order>, StoreError>
where
    C: SqlConnection,
    Limit<by_tenant_id>: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<SqlTypeOf<order_columns>>,
    OrderRow: FromSqlRow<SqlTypeOf<order_columns>, C::Backend>,
{
    let row: Option<OrderRow> = find_query(tenant, id)?
        .get_result::<OrderRow>(conn)
        .await
        .optional()
        .map_err(C::Backend::store_error)?;
    row.map(OrderRow::into_order).transpose()
}
