//! SQL of the orders table on SQLite.

use application::Order;
use application::ports::{InsertOrderError, StoreError};
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use domain::{NewOrder, OrderId, TenantId};

use super::classify::{order_insert_error, store_error};
use super::schema::orders;
use super::store::Connection;
use crate::rows::{OrderRow, to_i64};

#[derive(Insertable)]
#[diesel(table_name = orders)]
struct NewOrderRow<'a> {
    tenant_id: i64,
    client_order_ref: &'a [u8],
    sku: &'a [u8],
    quantity: i16,
    created_at: NaiveDateTime,
}

pub(super) async fn insert(
    conn: &mut Connection,
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
    let id: i64 = diesel::insert_into(orders::table)
        .values(&row)
        .returning(orders::id)
        .get_result(conn)
        .await
        .map_err(order_insert_error)?;
    u64::try_from(id)
        .map(OrderId::new)
        .map_err(|_| StoreError::Other("order id out of range".to_owned()).into())
}

/// The order with `id` in `tenant`; another tenant's order is simply not found.
pub(super) async fn find(
    conn: &mut Connection,
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
