//! The order's insert, and the create's port on both stores' transactions.

use application::events::FIRST_REVISION;
use application::ports::OrderRepository;
use application::ports::StoreError;
use application::{CreateRefusal, StepError};
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::deserialize::FromSqlRow;
use diesel::dsl::{self, Values};
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::{QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Binary};
use diesel_async::RunQueryDsl;
use domain::{NewOrder, OrderId, OrderStatus, TenantId};

use crate::sql::bad_value::bad_row;
use crate::sql::both_stores::for_both_transactions;
use crate::sql::classify::{Unique, refused_on};
use crate::sql::connection::SqlConnection;
use crate::sql::multi_row::{MultiValues, Returning, ids_in_order};
use crate::sql::rows::to_i64;
use crate::sql::schema::orders;

/// One order per `clientOrderRef` in a tenant: its violation is the create's refusal.
pub(crate) const CLIENT_ORDER_REF: Unique = Unique {
    index: "uq_orders_tenant_client_order_ref",
    sqlite_message: "UNIQUE constraint failed: orders.tenant_id, orders.client_order_ref",
};

#[derive(Insertable)]
#[diesel(table_name = orders)]
// Plain values: diesel's default (`None` as `DEFAULT`) makes MySQL statements uncacheable,
// prepared and closed on every insert.
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct NewOrderRow<'a> {
    tenant_id: i64,
    client_order_ref: &'a [u8],
    sku: &'a [u8],
    quantity: i16,
    created_at: NaiveDateTime,
    status: &'static str,
    revision: i64,
}

pub(crate) type InsertOrder<'a> = Values<dsl::insert_into<orders::table>, NewOrderRow<'a>>;

impl<'a> NewOrderRow<'a> {
    fn of(
        tenant: TenantId,
        order: &'a NewOrder,
        created_at: DateTime<Utc>,
    ) -> Result<Self, StoreError> {
        Ok(Self {
            tenant_id: to_i64(tenant.get())?,
            client_order_ref: order.client_order_ref.as_str().as_bytes(),
            sku: order.sku.as_str().as_bytes(),
            quantity: i16::from(order.quantity.get()),
            created_at: created_at.naive_utc(),
            status: OrderStatus::Active.as_stored(),
            revision: to_i64(FIRST_REVISION)?,
        })
    }
}

/// What names a returned order: its id, tenant and `clientOrderRef`.
type OrderKeys = (BigInt, BigInt, Binary);
type OrderKeyRow = (i64, i64, Vec<u8>);

pub(crate) type InsertOrders<'a> =
    Returning<MultiValues<<NewOrderRow<'a> as Insertable<orders::table>>::Values>, OrderKeys>;

/// A batch's orders in one statement, their ids in their order; any `clientOrderRef`
/// already used is the refusal, for the batch. Without `RETURNING`, one insert per order.
pub(crate) async fn insert_many<'a, C>(
    conn: &mut C,
    ids: C::InsertIds,
    rows: &'a [(TenantId, &'a NewOrder)],
    created_at: DateTime<Utc>,
) -> Result<Vec<OrderId>, StepError<CreateRefusal>>
where
    C: SqlConnection,
    InsertOrder<'a>: QueryFragment<C::Backend>,
    InsertOrders<'a>: QueryFragment<C::Backend> + QueryId + Send,
    C::Backend: QueryMetadata<OrderKeys>,
    OrderKeyRow: FromSqlRow<OrderKeys, C::Backend>,
{
    if !C::returns_rows(ids) || rows.len() < 2 {
        let mut inserted = Vec::with_capacity(rows.len());
        for (tenant, order) in rows {
            inserted.push(insert(conn, ids, *tenant, order, created_at).await?);
        }
        return Ok(inserted);
    }
    let values = rows
        .iter()
        .map(|(tenant, order)| NewOrderRow::of(*tenant, order, created_at))
        .collect::<Result<Vec<_>, _>>()?;
    let insert: InsertOrders<'a> = Returning::new(
        MultiValues::new("orders", values),
        &["id", "tenant_id", "client_order_ref"],
    );
    let returned: Vec<OrderKeyRow> = insert.load(conn).await.map_err(|error| {
        refused_on::<C::Backend, _>(
            error,
            CLIENT_ORDER_REF,
            CreateRefusal::ClientOrderRefConflict,
        )
    })?;
    let returned: Vec<_> = returned
        .into_iter()
        .map(|(id, tenant, reference)| (id, (tenant, reference)))
        .collect();
    let ids = ids_in_order(
        rows,
        &returned,
        |(tenant, order), (row_tenant, reference)| {
            u64::try_from(*row_tenant) == Ok(tenant.get())
                && reference.as_slice() == order.client_order_ref.as_str().as_bytes()
        },
    )
    .ok_or_else(|| bad_row("orders", "id"))?;
    Ok(ids.into_iter().map(OrderId::new).collect())
}

/// A `clientOrderRef` the tenant already used is the create's refusal.
pub(crate) async fn insert<'a, C>(
    conn: &mut C,
    ids: C::InsertIds,
    tenant: TenantId,
    order: &'a NewOrder,
    created_at: DateTime<Utc>,
) -> Result<OrderId, StepError<CreateRefusal>>
where
    C: SqlConnection,
    InsertOrder<'a>: QueryFragment<C::Backend>,
{
    let insert =
        diesel::insert_into(orders::table).values(NewOrderRow::of(tenant, order, created_at)?);
    let id = conn
        .insert_returning_id(ids, insert)
        .await
        .map_err(|error| {
            refused_on::<C::Backend, _>(
                error,
                CLIENT_ORDER_REF,
                CreateRefusal::ClientOrderRefConflict,
            )
        })?;
    Ok(OrderId::new(id))
}

for_both_transactions! {
    impl OrderRepository {
        async fn insert_order(
            &mut self,
            tenant: TenantId,
            order: &NewOrder,
            created_at: DateTime<Utc>,
        ) -> Result<OrderId, StepError<CreateRefusal>> {
            self.run("order insert", async |conn, ids| {
                insert(conn, ids, tenant, order, created_at).await
            })
            .await
        }

        async fn insert_orders(
            &mut self,
            orders: &[(TenantId, &NewOrder)],
            created_at: DateTime<Utc>,
        ) -> Result<Vec<OrderId>, StepError<CreateRefusal>> {
            self.run("order batch insert", async |conn, ids| {
                insert_many(conn, ids, orders, created_at).await
            })
            .await
        }
    }
}

#[cfg(test)]
mod tests {
    use diesel::mysql::Mysql;
    use diesel::result::{DatabaseErrorKind, Error};
    use diesel::sqlite::Sqlite;

    use super::*;
    use crate::sql::classify::{Classify, SCOPE_KEY};

    fn unique(message: &str) -> Error {
        Error::DatabaseError(
            DatabaseErrorKind::UniqueViolation,
            Box::new(message.to_owned()),
        )
    }

    fn refused<B: Classify>(message: &str) -> bool {
        matches!(
            refused_on::<B, _>(
                unique(message),
                CLIENT_ORDER_REF,
                CreateRefusal::ClientOrderRefConflict
            ),
            StepError::Rejected(CreateRefusal::ClientOrderRefConflict)
        )
    }

    #[test]
    fn the_orders_unique_index_is_the_refusal_on_either_store() {
        assert!(refused::<Mysql>(
            "Duplicate entry '1-REF-1' for key 'uq_orders_tenant_client_order_ref'"
        ));
        assert!(refused::<Mysql>(
            "Duplicate entry '1-REF-1' for key 'orders.uq_orders_tenant_client_order_ref'"
        ));
        assert!(refused::<Sqlite>(CLIENT_ORDER_REF.sqlite_message));
    }

    #[test]
    fn another_unique_index_is_a_storage_failure_not_the_refusal() {
        assert!(!refused::<Mysql>(
            "Duplicate entry 'k' for key 'uq_api_idempotency_scope_key'"
        ));
        assert!(!refused::<Sqlite>(SCOPE_KEY.sqlite_message));
    }
}
