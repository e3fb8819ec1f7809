//! The order read and its port on both stores, and the condition of every write that
//! needs the tenant's active order.

use application::Order;
use application::ports::{OrderReader, StoreError};
use chrono::NaiveDateTime;
use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::dsl::{self, Limit};
use diesel::prelude::*;
use diesel::query_builder::AstPass;
use diesel::serialize::ToSql;
use diesel::sql_types::BigInt;
use domain::{ClientOrderRef, NewOrder, OrderId, OrderStatus, Quantity, Sku, TenantId};

use crate::sql::bad_value::{bad, bad_row};
use crate::sql::both_stores::for_both_stores;
use crate::sql::rows::to_i64;
use crate::sql::schema::orders;

/// The columns of [`OrderRow`], in its field order.
#[dsl::auto_type]
pub(crate) fn order_columns() -> _ {
    (
        orders::id,
        orders::tenant_id,
        orders::client_order_ref,
        orders::sku,
        orders::quantity,
        orders::created_at,
        orders::status,
        orders::cancelled_at,
    )
}

#[derive(Queryable)]
pub(crate) struct OrderRow {
    id: i64,
    tenant_id: i64,
    client_order_ref: Vec<u8>,
    sku: Vec<u8>,
    quantity: i16,
    created_at: NaiveDateTime,
    status: String,
    cancelled_at: Option<NaiveDateTime>,
}

impl OrderRow {
    /// Re-validates the stored values through the domain's own parsers.
    pub(crate) fn into_order(self) -> Result<Order, StoreError> {
        let text = |bytes: Vec<u8>, column| String::from_utf8(bytes).map_err(bad("orders", column));
        let client_order_ref = text(self.client_order_ref, "client_order_ref")?;
        let details = NewOrder {
            client_order_ref: ClientOrderRef::parse(&client_order_ref)
                .map_err(bad("orders", "client_order_ref"))?,
            sku: Sku::parse(&text(self.sku, "sku")?).map_err(bad("orders", "sku"))?,
            quantity: Quantity::parse(i64::from(self.quantity))
                .map_err(bad("orders", "quantity"))?,
        };
        Ok(Order {
            id: OrderId::new(u64::try_from(self.id).map_err(bad("orders", "id"))?),
            tenant: u64::try_from(self.tenant_id)
                .ok()
                .and_then(|tenant| TenantId::parse(tenant).ok())
                .ok_or_else(|| bad_row("orders", "tenant_id"))?,
            details,
            created_at: self.created_at.and_utc(),
            status: OrderStatus::from_stored(&self.status).map_err(bad("orders", "status"))?,
            cancelled_at: self.cancelled_at.map(|at| at.and_utc()),
        })
    }
}

/// ` WHERE id = ? AND tenant_id = ? AND status = 'ACTIVE'`, for the hand-written updates
/// of an order (a capture's, a cancel's): another tenant's order, or a cancelled one, is
/// not there to change.
pub(crate) fn push_tenants_active_order<'b, DB>(
    out: &mut AstPass<'_, 'b, DB>,
    order: &'b i64,
    tenant: &'b i64,
) -> QueryResult<()>
where
    DB: Backend,
    i64: ToSql<BigInt, DB>,
{
    out.push_sql(" WHERE id = ");
    out.push_bind_param::<BigInt, _>(order)?;
    out.push_sql(" AND tenant_id = ");
    out.push_bind_param::<BigInt, _>(tenant)?;
    out.push_sql(" AND status = '");
    out.push_sql(OrderStatus::Active.as_stored());
    out.push_sql("'");
    Ok(())
}

#[dsl::auto_type]
pub(crate) fn by_tenant_id(tenant: i64, id: i64) -> _ {
    orders::table
        .filter(orders::id.eq(id))
        .filter(orders::tenant_id.eq(tenant))
        .select(order_columns())
}

/// Another tenant's order is simply not found.
///
/// # Errors
/// [`StoreError::Other`] for an id out of range.
pub(crate) fn find_query(tenant: TenantId, id: OrderId) -> Result<Limit<by_tenant_id>, StoreError> {
    Ok(by_tenant_id(to_i64(tenant.get())?, to_i64(id.get())?).limit(1))
}

for_both_stores! {
    impl OrderReader {
        async fn find_order(
            &self,
            tenant: TenantId,
            id: OrderId,
        ) -> Result<Option<Order>, StoreError> {
            self.find_one("order read", find_query(tenant, id)?, OrderRow::into_order)
                .await
        }
    }
}
