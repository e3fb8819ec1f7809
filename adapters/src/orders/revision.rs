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
use domain::{OrderId, TenantId};

use crate::sql::bad_value::{bad, bad_row};
use crate::sql::both_stores::for_both_transactions;
use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;
use crate::sql::rows::to_i64;
use crate::sql::schema::orders;

/// `UPDATE orders SET revision = revision + 1 WHERE id = ? AND tenant_id = ?`, whatever the
/// order's status. Hand-written, like the capture's: diesel prepares a DSL `UPDATE` anew on
/// every call.
pub(crate) struct RaiseRevision {
    tenant: i64,
    order: i64,
}

pub(crate) struct RaiseRevisionQuery;

impl QueryId for RaiseRevision {
    type QueryId = RaiseRevisionQuery;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<DB: Backend> QueryFragment<DB> for RaiseRevision
where
    i64: ToSql<BigInt, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE orders SET revision = revision + 1 WHERE id = ");
        out.push_bind_param::<BigInt, _>(&self.order)?;
        out.push_sql(" AND tenant_id = ");
        out.push_bind_param::<BigInt, _>(&self.tenant)
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
    RaiseRevision: QueryFragment<C::Backend>,
    Limit<revision_of>: QueryFragment<C::Backend>,
    C::Backend: QueryMetadata<BigInt>,
    i64: FromSqlRow<BigInt, C::Backend>,
{
    let (tenant, order) = (to_i64(tenant.get())?, to_i64(order.get())?);
    let raised = RaiseRevision { tenant, order }
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
