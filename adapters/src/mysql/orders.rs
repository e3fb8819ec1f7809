//! SQL of the orders table.

use application::Order;
use application::ports::{InsertOrderError, StoreError};
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncMysqlConnection, RunQueryDsl};
use domain::{ClientOrderRef, NewOrder, OrderId, Quantity, Sku, TenantId};

use super::classify::{order_insert_error, store_error};
use super::records::{last_insert_id, to_i64};
use super::schema::orders;

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
    conn: &mut AsyncMysqlConnection,
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
    diesel::insert_into(orders::table)
        .values(&row)
        .execute(conn)
        .await
        .map_err(order_insert_error)?;
    let id = last_insert_id(conn).await.map_err(store_error)?;
    Ok(OrderId::new(id))
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = orders)]
struct OrderRow {
    id: i64,
    tenant_id: i64,
    client_order_ref: Vec<u8>,
    sku: Vec<u8>,
    quantity: i16,
    created_at: NaiveDateTime,
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
        .select(OrderRow::as_select())
        .first(conn)
        .await
        .optional()
        .map_err(store_error)?;
    row.map(OrderRow::into_order).transpose()
}

impl OrderRow {
    fn into_order(self) -> Result<Order, StoreError> {
        let corrupt = || StoreError::Other("stored order is inconsistent".to_owned());
        let text = |bytes: Vec<u8>| String::from_utf8(bytes).map_err(|_| corrupt());
        let details = NewOrder {
            client_order_ref: ClientOrderRef::parse(&text(self.client_order_ref)?)
                .map_err(|_| corrupt())?,
            sku: Sku::parse(&text(self.sku)?).map_err(|_| corrupt())?,
            quantity: Quantity::parse(i64::from(self.quantity)).map_err(|_| corrupt())?,
        };
        Ok(Order {
            id: OrderId::new(u64::try_from(self.id).map_err(|_| corrupt())?),
            tenant: TenantId::parse(u64::try_from(self.tenant_id).map_err(|_| corrupt())?)
                .map_err(|_| corrupt())?,
            details,
            created_at: self.created_at.and_utc(),
        })
    }
}
