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
use domain::{ClientOrderRef, NewOrder, OrderId, OrderStatus, TenantId};

use crate::sql::bad_value::bad_row;
use crate::sql::both_stores::for_both_transactions;
use crate::sql::classify::Classify;
use crate::sql::classify::{Unique, refused_on};
use crate::sql::connection::SqlConnection;
use crate::sql::multi_row::MultiValues;
use crate::sql::pairs_in::PairsIn;
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
    id: i64,
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
        id: OrderId,
        tenant: TenantId,
        order: &'a NewOrder,
        created_at: DateTime<Utc>,
    ) -> Result<Self, StoreError> {
        Ok(Self {
            id: to_i64(id.get())?,
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

pub(crate) type InsertOrders<'a> =
    MultiValues<<NewOrderRow<'a> as Insertable<orders::table>>::Values>;

/// Orders under their reserved ids (`docs/storage.md#order-ids`), several in one
/// statement; any `clientOrderRef` already used is the refusal, for all of them.
pub(crate) async fn insert<'a, C>(
    conn: &mut C,
    rows: &'a [(OrderId, TenantId, &'a NewOrder)],
    created_at: DateTime<Utc>,
) -> Result<(), StepError<CreateRefusal>>
where
    C: SqlConnection,
    InsertOrder<'a>: QueryFragment<C::Backend> + QueryId + Send,
    InsertOrders<'a>: QueryFragment<C::Backend> + QueryId + Send,
{
    let refused = |error| {
        refused_on::<C::Backend, _>(
            error,
            CLIENT_ORDER_REF,
            CreateRefusal::ClientOrderRefConflict,
        )
    };
    let mut values = rows
        .iter()
        .map(|(id, tenant, order)| NewOrderRow::of(*id, *tenant, order, created_at))
        .collect::<Result<Vec<_>, _>>()?;
    let inserted = if values.len() == 1 {
        let Some(row) = values.pop() else {
            return Ok(());
        };
        diesel::insert_into(orders::table)
            .values(row)
            .execute(conn)
            .await
    } else {
        MultiValues::new("orders", values).execute(conn).await
    };
    match inserted {
        Ok(n) if n == rows.len() => Ok(()),
        Ok(_) => Err(bad_row("orders", "id").into()),
        Err(error) => Err(refused(error)),
    }
}

/// Through `uq_orders_tenant_client_order_ref`, one range per reference.
#[dsl::auto_type]
fn references_query(pairs: Vec<(i64, Vec<u8>)>) -> _ {
    let among: PairsIn<orders::tenant_id, orders::client_order_ref, Vec<u8>> =
        PairsIn::new(orders::tenant_id, orders::client_order_ref, pairs);
    orders::table
        .filter(among)
        .select((orders::tenant_id, orders::client_order_ref))
}

/// Of each reference, in order, whether an order has it: a wary batch's one read.
pub(crate) async fn taken_references<C>(
    conn: &mut C,
    references: &[(TenantId, &ClientOrderRef)],
) -> Result<Vec<bool>, StoreError>
where
    C: SqlConnection,
    references_query: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<(BigInt, Binary)>,
    (i64, Vec<u8>): FromSqlRow<(BigInt, Binary), C::Backend>,
{
    let pairs = references
        .iter()
        .map(|(tenant, reference)| {
            Ok((
                to_i64(tenant.get())?,
                reference.as_str().as_bytes().to_vec(),
            ))
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    let found: Vec<(i64, Vec<u8>)> = references_query(pairs.clone())
        .load(conn)
        .await
        .map_err(C::Backend::store_error)?;
    Ok(pairs.iter().map(|pair| found.contains(pair)).collect())
}

for_both_transactions! {
    impl OrderRepository {
        async fn taken_references(
            &mut self,
            references: &[(TenantId, &ClientOrderRef)],
        ) -> Result<Vec<bool>, StoreError> {
            self.run("references read", async |conn, _| {
                taken_references(conn, references).await
            })
            .await
        }

        async fn reserve_order_ids(&mut self, count: usize) -> Result<Vec<OrderId>, StoreError> {
            Ok(self
                .order_ids(count)
                .await?
                .into_iter()
                .map(OrderId::new)
                .collect())
        }

        async fn insert_orders(
            &mut self,
            orders: &[(OrderId, TenantId, &NewOrder)],
            created_at: DateTime<Utc>,
        ) -> Result<(), StepError<CreateRefusal>> {
            let statement = if orders.len() == 1 { "order insert" } else { "order batch insert" };
            self.run(statement, async |conn, _| insert(conn, orders, created_at).await)
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
