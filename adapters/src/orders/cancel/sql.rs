//! The cancel's write, on both stores' transactions: the order, read under its row lock
//! (`orders/locks`), marked cancelled.

use application::ports::StoreError;
use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::QueryResult;
use diesel::backend::Backend;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Binary, Timestamp};
use diesel_async::RunQueryDsl;
use domain::{OrderId, OrderStatus, Reason, TenantId};

use super::super::{all_written, push_tenants_active_order};
use crate::sql::classify::Classify;
use crate::sql::connection::SqlConnection;
use crate::sql::rows::to_i64;

const CANCELLED: &str = OrderStatus::Cancelled.as_stored();

/// `UPDATE orders SET status = 'CANCELLED', cancelled_at = ?, cancel_reason = ?,
/// revision = ? WHERE id = ? AND tenant_id = ? AND status = 'ACTIVE'`. Hand-written, like
/// the record's completion (`sql/complete_record.rs`): diesel prepares a DSL `UPDATE` anew
/// on every call.
pub(crate) struct MarkCancelled<'a> {
    tenant: i64,
    order: i64,
    at: NaiveDateTime,
    reason: &'a [u8],
    revision: i64,
}

pub(crate) struct MarkCancelledQuery;

impl QueryId for MarkCancelled<'_> {
    type QueryId = MarkCancelledQuery;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<DB: Backend> QueryFragment<DB> for MarkCancelled<'_>
where
    i64: ToSql<BigInt, DB>,
    [u8]: ToSql<Binary, DB>,
    NaiveDateTime: ToSql<Timestamp, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE orders SET status = '");
        out.push_sql(CANCELLED);
        out.push_sql("', cancelled_at = ");
        out.push_bind_param::<Timestamp, _>(&self.at)?;
        out.push_sql(", cancel_reason = ");
        out.push_bind_param::<Binary, _>(self.reason)?;
        out.push_sql(", revision = ");
        out.push_bind_param::<BigInt, _>(&self.revision)?;
        push_tenants_active_order(&mut out, &self.order, &self.tenant)
    }
}

pub(super) async fn mark_cancelled<'a, C>(
    conn: &mut C,
    tenant: TenantId,
    order: OrderId,
    at: DateTime<Utc>,
    reason: &'a Reason,
    revision: u64,
) -> Result<(), StoreError>
where
    C: SqlConnection,
    MarkCancelled<'a>: QueryFragment<C::Backend>,
{
    let changed = MarkCancelled {
        tenant: to_i64(tenant.get())?,
        order: to_i64(order.get())?,
        at: at.naive_utc(),
        reason: reason.as_str().as_bytes(),
        revision: to_i64(revision)?,
    }
    .execute(conn)
    .await
    .map_err(C::Backend::store_error)?;
    all_written(changed, 1)
}

#[cfg(test)]
mod tests {
    use diesel::debug_query;
    use diesel::sqlite::Sqlite;

    use super::*;

    #[test]
    fn only_the_tenants_active_order_is_marked() {
        let mark = MarkCancelled {
            tenant: 1,
            order: 9,
            at: DateTime::UNIX_EPOCH.naive_utc(),
            reason: b"r",
            revision: 3,
        };
        let text = debug_query::<Sqlite, _>(&mark).to_string();
        assert!(
            text.starts_with(
                "UPDATE orders SET status = 'CANCELLED', cancelled_at = ?, cancel_reason = ?, \
                 revision = ? WHERE id = ? AND tenant_id = ? AND status = 'ACTIVE'"
            ),
            "{text}"
        );
    }
}
