//! The order's revision raised for an event another operation writes about it (a payment's):
//! the `UPDATE` row-locks the order until the transaction ends, so two such events of one
//! order commit, and are sequenced, one after the other.

use application::events::OrderRevisions;
use application::ports::StoreError;
use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::deserialize::FromSqlRow;
use diesel::dsl::{self, Limit};
use diesel::expression::QueryMetadata;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::BigInt;
use diesel_async::RunQueryDsl;
use domain::{OrderId, OrderStatus, TenantId};

use super::read_sql::push_tenants_active_order;
use crate::sql::bad_value::{bad, bad_row};
use crate::sql::both_stores::for_both_transactions;
use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;
use crate::sql::pairs_in::PairsIn;
use crate::sql::rows::to_i64;
use crate::sql::schema::orders;

/// `UPDATE orders SET revision = revision + 1 WHERE id = ? AND tenant_id = ?`, for an event
/// another operation writes about the order whatever its status; with `ACTIVE_ONLY`, `AND
/// status = 'ACTIVE'` ([`TakeActiveOrder`]). The update row-locks the order and, on Galera,
/// makes a concurrent cancel's write set conflict with this one. Hand-written: diesel
/// prepares a DSL `UPDATE` anew on every call.
pub(crate) struct RaiseRevision<const ACTIVE_ONLY: bool> {
    pub(crate) tenant: i64,
    pub(crate) order: i64,
}

/// Takes the tenant's active order for work on it (a capture's acceptance, an operator's
/// retry): a cancelled or foreign order changes no row.
pub(crate) type TakeActiveOrder = RaiseRevision<true>;

pub(crate) struct RaiseRevisionQuery<const ACTIVE_ONLY: bool>;

impl<const ACTIVE_ONLY: bool> QueryId for RaiseRevision<ACTIVE_ONLY> {
    type QueryId = RaiseRevisionQuery<ACTIVE_ONLY>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<DB: Backend, const ACTIVE_ONLY: bool> QueryFragment<DB> for RaiseRevision<ACTIVE_ONLY>
where
    i64: ToSql<BigInt, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE orders SET revision = revision + 1");
        if ACTIVE_ONLY {
            return push_tenants_active_order(&mut out, &self.order, &self.tenant);
        }
        out.push_sql(" WHERE id = ");
        out.push_bind_param::<BigInt, _>(&self.order)?;
        out.push_sql(" AND tenant_id = ");
        out.push_bind_param::<BigInt, _>(&self.tenant)
    }
}

/// `UPDATE orders SET revision = revision + 1 WHERE status = 'ACTIVE' AND ((id = ? AND
/// tenant_id = ?) OR ...)`: [`TakeActiveOrder`] of a batch's orders, which its locking read
/// found active. Its text depends only on the number of orders.
pub(crate) struct TakeActiveOrders(pub(crate) PairsIn<orders::id, orders::tenant_id>);

impl QueryId for TakeActiveOrders {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<DB: Backend> QueryFragment<DB> for TakeActiveOrders
where
    PairsIn<orders::id, orders::tenant_id>: QueryFragment<DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE orders SET revision = revision + 1 WHERE status = '");
        out.push_sql(OrderStatus::Active.as_stored());
        out.push_sql("' AND ");
        self.0.walk_ast(out.reborrow())
    }
}

#[dsl::auto_type]
fn revision_of(tenant: i64, order: i64) -> _ {
    orders::table
        .filter(orders::id.eq(order))
        .filter(orders::tenant_id.eq(tenant))
        .select(orders::revision)
}

pub(crate) async fn next_revision<C>(
    conn: &mut C,
    tenant: TenantId,
    order: OrderId,
) -> Result<u64, StoreError>
where
    C: SqlConnection,
    RaiseRevision<false>: QueryFragment<C::Backend>,
    Limit<revision_of>: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<BigInt>,
    i64: FromSqlRow<BigInt, C::Backend>,
{
    let (tenant, order) = (to_i64(tenant.get())?, to_i64(order.get())?);
    let raised = RaiseRevision::<false> { tenant, order }
        .execute(conn)
        .await
        .map_err(C::Backend::store_error)?;
    if raised == 0 {
        // Orders are never deleted: the operation names one that never was.
        return Err(bad_row("operations", "order_id"));
    }
    let revision: i64 = revision_of(tenant, order)
        .first(conn)
        .await
        .map_err(C::Backend::store_error)?;
    u64::try_from(revision).map_err(bad("orders", "revision"))
}

for_both_transactions! {
    impl OrderRevisions {
        async fn next_order_revision(
            &mut self,
            tenant: TenantId,
            order: OrderId,
        ) -> Result<u64, StoreError> {
            self.run("order revision", async |conn, _| {
                next_revision(conn, tenant, order).await
            })
            .await
        }
    }
}
