//! SQL of the orders table.

use application::Order;
use application::ports::{InsertOrderError, StoreError};
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncMysqlConnection, RunQueryDsl};
use domain::{NewOrder, OrderId, TenantId};

use super::classify::{order_insert_error, store_error};
use super::insert_id::{InsertIds, insert_returning_id};
use super::schema::orders;
use crate::rows::{OrderRow, to_i64};

#[derive(Insertable)]
#[diesel(table_name = orders)]
// Every field is a plain value: with diesel's default (`None` as `DEFAULT`) each becomes a
// defaultable value, which makes MySQL statements uncacheable (prepared and closed on
// every insert).
#[diesel(treat_none_as_default_value = false)]
struct NewOrderRow<'a> {
    tenant_id: i64,
    client_order_ref: &'a [u8],
    sku: &'a [u8],
    quantity: i16,
    created_at: NaiveDateTime,
}

pub(super) async fn insert(
    conn: &mut AsyncMysqlConnection,
    ids: InsertIds,
    tenant: TenantId,
    order: &NewOrder,
    created_at: DateTime<Utc>,
) -> Result<OrderId, InsertOrderError> {
    let row = NewOrderRow {
        tenant_id: to_i64(tenant.get())?,
        client_order_ref: order.client_order_ref.as_str().as_bytes(),
        sku: order.sku.as_str().as_bytes(),
        quantity: i16::from(order.quantity.get()),
        created_at: created_at.naive_utc(),
    };
    let insert = diesel::insert_into(orders::table).values(&row);
    let id = insert_returning_id(conn, ids, insert)
        .await
        .map_err(order_insert_error)?;
    Ok(OrderId::new(id))
}

/// The order with `id` in `tenant`; another tenant's order is simply not found.
pub(super) async fn find(
    conn: &mut AsyncMysqlConnection,
    tenant: TenantId,
    id: OrderId,
) -> Result<Option<Order>, StoreError> {
    use orders::dsl;
    let row: Option<OrderRow> = dsl::orders
        .filter(dsl::id.eq(to_i64(id.get())?))
        .filter(dsl::tenant_id.eq(to_i64(tenant.get())?))
        .select(order_columns!())
        .first::<OrderRow>(conn)
        .await
        .optional()
        .map_err(store_error)?;
    row.map(OrderRow::into_order).transpose()
}
